# luatop — build, test, demo, install.
#
#   make            build .output/luatop
#   make check      install what is missing, build, check the include rules, run every test
#   make demo       install what is missing, build, profile a bundled LuaJIT workload live
#   make bench      run every benchmark and print their tables (as root)
#   make install    PREFIX=/usr/local DESTDIR=
#   make clean
#
# V=1 shows full commands.

VERSION    := 0.1.0
OUT        := .output
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
CLANG      ?= clang
BPFTOOL    ?= bpftool
ARCH       := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN       := -Wall -Wextra -Werror -Wmissing-prototypes -Wno-unused-parameter
CFLAGS     ?= -O2 -g -flto=auto
ALL_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -DLUATOP_VERSION='"$(VERSION)"' \
              -I. -I$(OUT) -MMD -MP
LDLIBS     := -lbpf -lelf -lz -lncursesw -ltinfo -lm
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The rooms below the edges, in the order data flows through them (README, Layout):
# linked into luatop and into the unit tests. wire/ is headers only.
CORE_ROOMS := base proc unwind lua walk symbolize merge collect profile export
CORE_SRCS  := $(foreach r,$(CORE_ROOMS),$(wildcard $(r)/*.c))
# The edges: BPF loader, command line, terminal UI.
APP_SRCS   := $(filter-out %.bpf.c,$(wildcard bpf/*.c)) $(wildcard cli/*.c tui/*.c)
TEST_SRCS  := $(wildcard tests/unit/*.c)
# Edge code that is still pure enough to unit-test.
TESTED_APP := cli/options.c cli/interval.c tui/keys.c tui/layout.c tui/text.c
BPF_SRCS   := $(wildcard bpf/*.bpf.c)

CORE_OBJS  := $(CORE_SRCS:%.c=$(OUT)/%.o)
APP_OBJS   := $(APP_SRCS:%.c=$(OUT)/%.o)
SAN_OBJS   := $(patsubst %.c,$(OUT)/san/%.o,$(CORE_SRCS) $(TESTED_APP) $(TEST_SRCS))
SKELS      := $(BPF_SRCS:bpf/%.bpf.c=$(OUT)/%.skel.h)
WORKLOADS  := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(wildcard tests/workloads/*.c))

BPF_CFLAGS := -O2 -g -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -I. -MMD -MP \
              $(if $(MULTIARCH),-idirafter /usr/include/$(MULTIARCH))

.PHONY: all check unit integration integration-ub layers demo install clean deps fuzz bench
.DELETE_ON_ERROR:
.SECONDARY:

all: $(OUT)/luatop

deps:
	$(Q)sh scripts/deps.sh

# BPF object -> skeleton header -> loader object.
$(OUT)/%.bpf.o: bpf/%.bpf.c wire/luatop.h wire/drops.def wire/stops.def | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(APP_OBJS): $(SKELS)

$(OUT)/%.o: %.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/luatop: $(CORE_OBJS) $(APP_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# Every benchmark, one table each (bench/all.sh, as root); never part of make check.
bench: all $(WORKLOADS)
	$(Q)sh scripts/deps.sh bench
	$(Q)sh bench/all.sh

# Benchmarks built with the core (bench/README.md); never part of make check.
$(OUT)/bench/spinners $(OUT)/bench/switches: $(OUT)/bench/%: bench/%.c | $(OUT)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -pthread $< -o $@

$(OUT)/bench/sweep: bench/sweep.c | $(OUT)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $< -o $@

# bench/irq_cost: a BPF program of its own, on the running kernel's types.
$(OUT)/vmlinux.h: | $(OUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(OUT)/bench/irq_cost.bpf.o: bench/irq_cost.bpf.c bench/irq_cost.h $(OUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -I$(OUT) -c $< -o $@

$(OUT)/bench/irq_cost: $(OUT)/bench/irq_cost.skel.h

$(OUT)/bench/%.skel.h: $(OUT)/bench/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUT)/bench/%: bench/%.c $(CORE_OBJS) | $(OUT)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(CORE_OBJS) $(LDLIBS) -o $@

# Unit tests: the core built again with ASan/UBSan, linked with Criterion.
$(OUT)/san/%.o: %.c | $(OUT)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN) -Wno-missing-prototypes -c $< -o $@

$(OUT)/unit-tests: $(SAN_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN) $^ -lcriterion $(LDLIBS) -o $@

# Workloads the integration tests profile, with frame pointers in every function
# (gcc 12 drops them from leaf functions at -O1 and above, whatever the flags say),
# except *_nofp.c, built the way distributions build: -O2, no frame pointers.
WL_FP      := -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline
WL_NOFP    := -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables

LDLIBS_exit_linger := -shared -fPIC

$(OUT)/workloads/%: tests/workloads/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(if $(filter %_nofp,$*),$(WL_NOFP),$(WL_FP)) -Wall -Werror $< -o $@ \
		$(LDLIBS_$*)

unit: $(OUT)/unit-tests
	$(Q)ASAN_OPTIONS=detect_leaks=1 $(OUT)/unit-tests --jobs 2

integration: $(OUT)/luatop $(WORKLOADS)
	$(Q)TESTS="$(TESTS)" sh tests/integration/run.sh

# The whole binary under UBSan, stopping at the first report, through the tests
# that reach most of the edges (options, hostile names, merge, traces, off-CPU,
# exports, the live view): the unit tests sanitize the pure core only.
UB_CFLAGS := -O1 -g -fsanitize=undefined -fno-sanitize-recover=all -Wno-format-truncation
UB_TESTS  ?= t_cli_errors t_safe_text t_lua_split t_lua_inline t_offcpu t_pprof t_tui_top \
             t_tui_diff t_tui_threads
# Reports go to files (the live view owns the terminal), shown and failing after.
integration-ub: $(WORKLOADS)
	$(Q)$(MAKE) --no-print-directory OUT=$(OUT)/ub CFLAGS="$(UB_CFLAGS)" $(OUT)/ub/luatop
	$(Q)rm -f $(OUT)/ub/ubsan.*
	$(Q)echo "integration under UBSan: $(UB_TESTS)"
	$(Q)UBSAN_OPTIONS=print_stacktrace=1:log_path=$(abspath $(OUT)/ub/ubsan) \
		LUATOP=$(abspath $(OUT)/ub/luatop) TESTS="$(UB_TESTS)" sh tests/integration/run.sh; \
	rc=$$?; for f in $(OUT)/ub/ubsan.*; do [ -e "$$f" ] && { cat "$$f"; rc=1; }; done; exit $$rc

# The include rules of the rooms (data flows one way): scripts/check-layers.sh.
layers:
	$(Q)sh scripts/check-layers.sh

check: deps
	$(Q)$(MAKE) --no-print-directory layers
	$(Q)$(MAKE) --no-print-directory all $(OUT)/unit-tests $(WORKLOADS)
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory integration
	$(Q)$(MAKE) --no-print-directory integration-ub

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/demo.sh

# Fuzzing: each tests/fuzz/fuzz_NAME.c is built with every core source and run for
# FUZZ_SECONDS, seeded from tests/fuzz/corpus/NAME/ (or .../fuzz_NAME/) when present
# and from the files in FUZZ_SEEDS_NAME. New inputs go to a temporary corpus that is
# removed afterwards; crashes are kept as $(OUT)/fuzz/NAME-crash-*, logs as NAME.log.
# The binary seeds are made by tests/fuzz/mkseeds.py.
FUZZ_SECONDS ?= 30
FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
              -I. -D_GNU_SOURCE
FUZZ_SEEDS_elfsyms := /usr/bin/true $(wildcard /lib/$(MULTIARCH)/libdl.so.2 \
              /lib/$(MULTIARCH)/libutil.so.1) \
              $(firstword $(sort $(wildcard /usr/lib/debug/.build-id/0*/*.debug)))
# fuzz_debuglink stands in for the process's files and /proc/PID/maps (see its header).
FUZZ_LDFLAGS_debuglink := -Wl,--wrap=readfile__all,--wrap=mapfile__open_path \
              -Wl,--wrap=mapfile__open,--wrap=mapfile__open_at_root

$(OUT)/fuzz/%: tests/fuzz/%.c $(CORE_SRCS) | $(OUT)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $< $(CORE_SRCS) $(FUZZ_LDFLAGS_$(*:fuzz_%=%)) -lelf -lz -o $@

fuzz: $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=fuzz-run-%)

fuzz-run-%: $(OUT)/fuzz/fuzz_%
	$(call msg,FUZZ,$* for $(FUZZ_SECONDS) s)
	$(Q)c=$$(mktemp -d) && trap 'rm -rf "$$c"' EXIT && \
	i=0 && for f in $(FUZZ_SEEDS_$*); do i=$$((i + 1)); cp "$$f" "$$c/$$i-$${f##*/}"; done && \
	if $< -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(OUT)/fuzz/$*- "$$c" \
		$(wildcard tests/fuzz/corpus/$* tests/fuzz/corpus/fuzz_$*) \
		> $(OUT)/fuzz/$*.log 2>&1; \
	then grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::new_units_added|Done)' \
		$(OUT)/fuzz/$*.log | sed 's/^/           /'; \
	else tail -40 $(OUT)/fuzz/$*.log; exit 1; fi

install: $(OUT)/luatop
	install -D -m 0755 $(OUT)/luatop $(DESTDIR)$(PREFIX)/bin/luatop
	install -D -m 0644 man/luatop.1 $(DESTDIR)$(PREFIX)/share/man/man1/luatop.1

clean:
	rm -rf $(OUT)

$(OUT):
	$(Q)mkdir -p $@

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
