#!/bin/sh
# The target's CPU cost of being profiled, side by side in one run: a fixed-work
# LuaJIT program (bench/fixed.lua, its own CPU seconds from os.clock) pinned to
# CPU 0, the profiler pinned to CPU 1, in interleaved rounds of
#   none | perf record (no call chains: the sampling floor) |
#   perf record --call-graph dwarf | luatop
# at each rate. Prints per config the median of the per-round ratios of target CPU
# seconds to the unprofiled run of the same round, and their spread (min..max).
# This machine is noisy: only ratios measured side by side mean anything.
#
#   sh bench/overhead.sh [PAIRS] [ROUNDS] [HZ...]     (as root, after make)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pairs=${1:-5} rounds=${2:-3000}
shift 2 2>/dev/null || shift $#
rates=${*:-99 999}
luatop=$top/.output/luatop
lj=$(command -v luajit)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$luatop" ] || make -C "$top" -s .output/luatop
[ "$(nproc)" -ge 2 ] || { echo "overhead.sh: needs 2 CPUs (target and profiler pinned apart)" >&2; exit 1; }
have_perf=0
command -v perf >/dev/null && perf record -o "$tmp/t.data" true >/dev/null 2>&1 && have_perf=1

target() { taskset -c 0 "$lj" "$top/bench/fixed.lua" "$rounds" "$tmp/cpu"; }
run() {	# run CONFIG HZ: the target's CPU seconds under CONFIG
	case $1 in
	none) target >/dev/null 2>&1 ;;
	perf) taskset -c 1 perf record -q -F "$2" -o "$tmp/p.data" -- \
		taskset -c 0 "$lj" "$top/bench/fixed.lua" "$rounds" "$tmp/cpu" >/dev/null 2>&1 ;;
	perf-dwarf) taskset -c 1 perf record -q -F "$2" --call-graph dwarf -o "$tmp/p.data" -- \
		taskset -c 0 "$lj" "$top/bench/fixed.lua" "$rounds" "$tmp/cpu" >/dev/null 2>&1 ;;
	luatop) taskset -c 1 "$luatop" -F "$2" -o "$tmp/l.folded" -- \
		taskset -c 0 "$lj" "$top/bench/fixed.lua" "$rounds" "$tmp/cpu" >/dev/null 2>&1 ;;
	esac
	cat "$tmp/cpu"
}

configs="perf perf-dwarf luatop"
[ "$have_perf" = 1 ] || { configs=luatop; echo "(perf not usable here: luatop only)"; }
echo "target CPU ratio to unprofiled, $pairs interleaved rounds, $rounds rounds of fixed.lua"
printf '%-6s %-12s %8s %8s %8s\n' Hz profiler median min max
for hz in $rates; do
	: >"$tmp/ratios"
	p=0
	while [ $p -lt "$pairs" ]; do
		base=$(run none "$hz")
		for c in $configs; do
			echo "$c $(run "$c" "$hz") $base" >>"$tmp/ratios"
		done
		p=$((p + 1))
	done
	for c in $configs; do
		awk -v c="$c" '$1 == c { print $2 / $3 }' "$tmp/ratios" | sort -n |
			awk -v c="$c" -v hz="$hz" '{ r[NR] = $1 } END {
				m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
				printf "%-6s %-12s %8.3f %8.3f %8.3f\n", hz, c, m, r[1], r[NR] }'
	done
done
