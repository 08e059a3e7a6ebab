#!/bin/sh
# make bench: every benchmark, one after the other, each printing its table (as
# root, after make). Never part of make check: figures, not assertions. Takes
# about forty minutes (ten of them bench/self.sh); bench/README.md says what each one measures.
#   QUICK=1 make bench   fewer rounds (a smoke run of the scripts)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
q=${QUICK:-0}
section() { printf '\n== %s\n' "$1"; }
# b CMD...: run one benchmark; a failure is told at the end and fails make bench
# (the tables before and after it still print).
failed=''
b() {
	_what=''
	for _a in "$@"; do
		case $_a in */bench/*) _what=${_a##*/}; break ;; esac
	done
	"$@"
	_rc=$?
	[ "$_rc" -eq 0 ] || failed="$failed ${_what:-$1} (exit $_rc)"
}
lj=$(command -v luajit)

section "Target overhead (bench/overhead.sh): target CPU with a profiler / without"
if [ "$q" = 1 ]; then b sh "$top/bench/overhead.sh" 2 500 99 999; else b sh "$top/bench/overhead.sh" 7 3000 99 999; fi
section "Target overhead, fixed work in user space (WORKLOAD=bench/fixed_pure.lua bench/overhead.sh)"
if [ "$q" = 1 ]; then WORKLOAD=$top/bench/fixed_pure.lua b sh "$top/bench/overhead.sh" 2 3000 99 999
else WORKLOAD=$top/bench/fixed_pure.lua b sh "$top/bench/overhead.sh" 7 20000 99 999; fi
section "Sampling interrupt per sample: luatop, then perf dwarf, each beside perf's floor (bench/irq_cost.sh)"
for w in "$top/tests/workloads/clib.lua 60" "$top/bench/fixed_pure.lua 1000000 /dev/null" \
	"$top/bench/fixed.lua 1000000 /dev/null"; do
	for hz in 99 999; do
		WORKLOAD="$lj $w" b sh "$top/bench/irq_cost.sh" "$([ "$q" = 1 ] && echo 2 || echo 5)" "$hz" \
			"$([ "$q" = 1 ] && echo 1 || echo 5)"
	done
done

section "Off-CPU tracing on a busy nginx worker (bench/offcpu.sh)"
b sh "$top/bench/offcpu.sh" "$([ "$q" = 1 ] && echo 1 || echo 9)" "$([ "$q" = 1 ] && echo 2 || echo 5)" 99
b sh "$top/bench/switches.sh" "$([ "$q" = 1 ] && echo 1 || echo 5)" "$([ "$q" = 1 ] && echo 2 || echo 4)" 99

section "BPF cost per sample (bench/bpf_cost.sh)"
b sh "$top/bench/bpf_cost.sh" "$([ "$q" = 1 ] && echo 2 || echo 5)" 999
section "BPF sampler stage by stage, reads per sample (bench/bpf_stages.sh)"
b sh "$top/bench/bpf_stages.sh" "$([ "$q" = 1 ] && echo 2 || echo 3)" 1

section "Ingest replayed (bench/ingest_replay): --record files of inline.lua and demo.lua"
make -C "$top" -s .output/bench/ingest_replay
tmp=$(mktemp -d)
for w in "$top/tests/workloads/inline.lua" "$top/scripts/demo.lua"; do
	taskset -c 0 "$lj" "$w" 30 >/dev/null 2>&1 &
	pid=$!
	sleep 1
	taskset -c 1 "$top/.output/luatop" -F 999 -p "$pid" --duration 3 -o /dev/null \
		--record "$tmp/rec" 2>/dev/null
	echo "$(basename "$w"):"
	b taskset -c 1 "$top/.output/bench/ingest_replay" "$tmp/rec" "$([ "$q" = 1 ] && echo 3 || echo 9)" path:live path:batch off
	kill "$pid" 2>/dev/null
	rm -f "$tmp/rec"
done
rm -rf "$tmp"

section "Ingest live, JIT-heavy workloads (bench/ingest.sh)"
b sh "$top/bench/ingest.sh" "$([ "$q" = 1 ] && echo 1 || echo 3)" 3 999

section "More busy threads than CPUs (bench/load.sh): lost samples and --duration"
if [ "$q" = 1 ]; then b bash "$top/bench/load.sh" 200 3 999 1; else b bash "$top/bench/load.sh" 200 10 999 3; fi

section "Live view frame time (bench/tui.sh)"
b sh "$top/bench/tui.sh"

section "luatop's own CPU and memory, live view at 999 Hz (bench/self.sh)"
if [ "$q" = 1 ]; then b sh "$top/bench/self.sh" 20 999 10; else b sh "$top/bench/self.sh" 600 999 60; fi

section "Symbolization (bench/symbolize.sh)"
b sh "$top/bench/symbolize.sh"
if [ -n "$failed" ]; then
	echo "make bench: failed:$failed" >&2
	exit 1
fi
