#!/bin/sh
# Mean run time of the BPF sampler per sample, from the kernel's BPF stats
# (kernel.bpf_stats_enabled), on native, pure-Lua, FFI and Lua<->C workloads. As root,
# after make.
#
#   sh bench/bpf_cost.sh [SECONDS] [HZ]
#
# The program runs on every CPU at HZ; runs for other processes return after one
# hash lookup. "per run" averages all runs; "per recorded sample" charges the whole
# run time to the samples that were recorded (an upper bound of a walk's cost).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-5} hz=${2:-999}
luatop=$top/.output/luatop
wl=$top/.output/workloads
up=$top/.deps/luajit-upstream/usr/bin/luajit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; sysctl -q kernel.bpf_stats_enabled=0' EXIT
make -C "$top" -s .output/luatop .output/workloads/qsort_nofp .output/workloads/burn >/dev/null
sysctl -q kernel.bpf_stats_enabled=1

# stats: "run_cnt run_time_ns" of the loaded sampler program.
stats() {
	bpftool prog show -j 2>/dev/null | tr '}' '\n' | grep '"name":"sample"' |
		sed -n 's/.*"run_time_ns":\([0-9]*\).*"run_cnt":\([0-9]*\).*/\2 \1/p' | head -1
}

measure() { # NAME CMD...: profile CMD for $secs and print the figures
	name=$1; shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep 0.5
	"$luatop" -F "$hz" -p "$pid" --duration "$secs" -o "$tmp/out.folded" 2>"$tmp/err" &
	lt=$!
	sleep "$secs"	# stats while attached: the program is gone after luatop exits
	s=$(stats)
	wait "$lt" || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rec=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/out.folded")
	frames=$(awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n += c * split(s, f, ";"); t += c } END { if (t) printf "%.1f", n / t; else print 0 }' "$tmp/out.folded")
	echo "$s" | awk -v name="$name" -v rec="$rec" -v fr="$frames" '{
		printf "%-22s runs %7d  %6.0f ns/run  samples %6d  %6.0f ns/recorded sample  %s frames/sample\n",
			name, $1, $1 ? $2 / $1 : 0, rec, rec ? $2 / rec : 0, fr }'
}

echo "BPF sampler cost at $hz Hz, $secs s per workload ($(uname -r), $(nproc) CPUs)"
measure "burn (frame pointers)" "$wl/burn" 60
measure "qsort_nofp" "$wl/qsort_nofp" 60
measure "luajit2 -joff clib" luajit -joff "$top/tests/workloads/clib.lua" 60
measure "luajit2 JIT clib" luajit "$top/tests/workloads/clib.lua" 60
[ -x "$up" ] && measure "upstream -joff clib" "$up" -joff "$top/tests/workloads/clib.lua" 60
measure "luajit2 JIT demo (pure Lua)" luajit "$top/scripts/demo.lua" 60
measure "luajit2 JIT ffi" luajit "$top/tests/workloads/ffi.lua" 60
measure "luajit2 -joff ffi" luajit -joff "$top/tests/workloads/ffi.lua" 60
if [ -r /usr/include/luajit-2.1/lua.h ]; then	# Lua <-> C: a C host calling back and forth
	cc -O2 -g -I/usr/include/luajit-2.1 -o "$tmp/host" "$top/tests/workloads/luahost/luahost.c" \
		-lluajit-5.1 2>/dev/null &&
		measure "C host (Lua<->C)" "$tmp/host" "$top/tests/workloads/luahost/luahost.lua" 60 /dev/null
fi
