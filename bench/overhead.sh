#!/bin/sh
# The target's CPU cost of being profiled, side by side in one run: a fixed-work
# LuaJIT program (bench/fixed.lua, its own CPU seconds from os.clock) pinned to
# CPU 0, the profiler pinned to CPU 1, in interleaved rounds of
#   none | perf record (no call chains: the sampling floor) |
#   perf record --call-graph dwarf | luatop
# at each rate, the configs in a rotating order from round to round (a drift of
# the machine's speed falls on each alike). Prints per config the median of the
# per-round ratios of target CPU seconds to the unprofiled run of the same
# round, and their spread (min..max). This machine is noisy: only ratios
# measured side by side mean anything, and a round's ratios move by several
# points. So for luatop it also prints what its BPF program took, from the
# kernel's BPF stats, as a share of the target's CPU time: the part of its
# cost above the sampling floor that the kernel measures exactly (an upper
# bound: other processes' runs on the other CPU count too). The stats add two
# clock reads to every program run, so the rounds run with them off, and the
# share comes from one more luatop run per rate, with them on, outside the
# ratios.
#
#   sh bench/overhead.sh [PAIRS] [ROUNDS] [HZ...]     (as root, after make)
#   WORKLOAD=bench/fixed_pure.lua sh bench/overhead.sh 7 20000
#       the same with fixed work that stays in user space (fixed.lua spends ~40%
#       of its time in page faults, whose samples carry a kernel stack)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pairs=${1:-5} rounds=${2:-3000}
shift 2 2>/dev/null || shift $#
rates=${*:-99 999}
luatop=$top/.output/luatop
lj=$(command -v luajit)
wl=${WORKLOAD:-$top/bench/fixed.lua}
case $wl in /*) ;; *) [ -f "$wl" ] || wl=$top/$wl ;; esac
tmp=$(mktemp -d)
stats_was=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
trap 'rm -rf "$tmp"; sysctl -q kernel.bpf_stats_enabled="$stats_was" 2>/dev/null' EXIT
stats() { sysctl -q kernel.bpf_stats_enabled="$1" 2>/dev/null || :; }
stats 0
[ -x "$luatop" ] || make -C "$top" -s .output/luatop
[ "$(nproc)" -ge 2 ] || { echo "overhead.sh: needs 2 CPUs (target and profiler pinned apart)" >&2; exit 1; }
have_perf=0
command -v perf >/dev/null && perf record -o "$tmp/t.data" true >/dev/null 2>&1 && have_perf=1

target() { taskset -c 0 "$lj" "$wl" "$rounds" "$tmp/cpu"; }
run() {	# run CONFIG HZ: the target's CPU seconds under CONFIG
	case $1 in
	none) target >/dev/null 2>&1 ;;
	perf) taskset -c 1 perf record -q -F "$2" -o "$tmp/p.data" -- \
		taskset -c 0 "$lj" "$wl" "$rounds" "$tmp/cpu" >/dev/null 2>&1 ;;
	perf-dwarf) taskset -c 1 perf record -q -F "$2" --call-graph dwarf -o "$tmp/p.data" -- \
		taskset -c 0 "$lj" "$wl" "$rounds" "$tmp/cpu" >/dev/null 2>&1 ;;
	luatop) taskset -c 1 "$luatop" -v -F "$2" -o "$tmp/l.folded" -- \
		taskset -c 0 "$lj" "$wl" "$rounds" "$tmp/cpu" >/dev/null 2>"$tmp/l.err" ;;
	esac
	cat "$tmp/cpu"
}

# bpf_s: seconds of BPF run time of the last luatop run (its -v line), 0 if none
bpf_s() {
	sed -n 's/.*sampler: \([0-9]*\) runs.*, \([0-9.]*\) ns each.*/\1 \2/p' "$tmp/l.err" |
		awk '{ s = $1 * $2 / 1e9 } END { printf "%.6f", s + 0 }'
}

configs="perf perf-dwarf luatop"
[ "$have_perf" = 1 ] || { configs=luatop; echo "(perf not usable here: luatop only)"; }
echo "target CPU ratio to unprofiled, $pairs interleaved rounds, $rounds rounds of $(basename "$wl")"
printf '%-6s %-12s %8s %8s %8s %10s\n' Hz profiler median min max "BPF share"
for hz in $rates; do
	: >"$tmp/ratios"
	p=0
	while [ $p -lt "$pairs" ]; do
		# this round's order: none and the configs, rotated by the round number
		order=$(echo none $configs | tr ' ' '\n' | awk -v k="$p" '{ a[NR - 1] = $0 }
			END { for (i = 0; i < NR; i++) print a[(i + k) % NR] }')
		: >"$tmp/round"
		for c in $order; do
			echo "$c $(run "$c" "$hz")" >>"$tmp/round"
		done
		base=$(awk '$1 == "none" { print $2 }' "$tmp/round")
		awk -v b="$base" '$1 != "none" { print $1, $2, b }' "$tmp/round" >>"$tmp/ratios"
		p=$((p + 1))
	done
	# the BPF share: one more luatop run, with the statistics on
	stats 1
	cpu=$(run luatop "$hz")
	stats 0
	share=$(awk -v s="$(bpf_s)" -v c="$cpu" 'BEGIN { printf "%9.2f%%", (c > 0 ? 100 * s / c : 0) }')
	for c in $configs; do
		awk -v c="$c" '$1 == c { print $2 / $3 }' "$tmp/ratios" | sort -n |
			awk -v c="$c" -v hz="$hz" -v share="$share" '{ r[NR] = $1 } END {
				m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
				printf "%-6s %-12s %8.3f %8.3f %8.3f %10s\n", hz, c, m, r[1], r[NR],
					(c == "luatop" ? share : "") }'
	done
done
