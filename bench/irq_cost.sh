#!/bin/sh
# What each profiler costs on the sampled CPU, per sample: a LuaJIT workload
# pinned to CPU 0 sampled at HZ by perf record (no call chains: the floor) and,
# in turn, by luatop and by perf record --call-graph dwarf (profilers pinned to
# CPU 1), while .output/bench/irq_cost times every sampling interrupt on CPU 0
# from the timer tracepoints (bench/irq_cost.bpf.c). Each profiler is measured
# against the floor of its own seconds, so the host's noise falls on both alike;
# the side-by-side ratios of target CPU time (bench/overhead.sh) move by several
# points from round to round, these by a few percent. A round takes luatop and
# perf dwarf in turn, the order alternating: perf dwarf copies 8 KB of stack a
# sample and, run at once, evicts the caches the other's samples use (TOGETHER=1
# runs all three at once all the same; DWARF=0 leaves perf dwarf out). Prints per
# round and kind the samples, mean, median and p90 ns, and each profiler's cost
# above its floor in points of the sampled CPU: (mean - the floor's mean) x HZ.
# What it does not see: the interrupt's entry and exit (the same for all) and
# what a profiler leaves in the caches for the target.
#
#   sh bench/irq_cost.sh [SECONDS] [HZ] [ROUNDS]       (as root, after make)
#   WORKLOAD="luajit bench/fixed_pure.lua 1000000 /dev/null" sh bench/irq_cost.sh
#       another workload (it must run SECONDS + 5 s at least)
#   LUATOP=/path/luatop sh bench/irq_cost.sh    another build
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-5} hz=${2:-999} rounds=${3:-3}
luatop=${LUATOP:-$top/.output/luatop}
wl=${WORKLOAD:-luajit $top/tests/workloads/clib.lua $((secs + 30))}
tmp=$(mktemp -d)
pids=''
# The kernel's BPF run statistics off while measuring (another benchmark may
# have left them on): they add two clock reads to every run of a program.
stats_was=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
trap 'for p in $pids; do kill "$p" 2>/dev/null || :; done; rm -rf "$tmp"
	sysctl -q kernel.bpf_stats_enabled="$stats_was" 2>/dev/null || :' EXIT
sysctl -q kernel.bpf_stats_enabled=0 2>/dev/null || :
trap 'exit 130' INT TERM HUP
make -C "$top" -s .output/luatop .output/bench/irq_cost
command -v perf >/dev/null || { echo "irq_cost.sh: needs perf" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "irq_cost.sh: needs 2 CPUs" >&2; exit 1; }

echo "sampling interrupts on the target's CPU at $hz Hz, $secs s a round ($(uname -r)): $wl"
[ "${TOGETHER:-0}" = 1 ] && echo "(perf dwarf and luatop at once, each with the floor)" ||
	echo "(perf dwarf and luatop in turn, each with the floor; TOGETHER=1 runs all three at once)"
printf "%-6s %-11s %8s %8s %8s %8s\n" round kind samples "mean ns" "median" "p90"

# leg KINDS: the workload on CPU 0 sampled by the floor and KINDS (dwarf,
# luatop), each profiler on CPU 1, timed for $secs; irq_cost's lines are appended
# to $tmp/round, the floor's named after the leg: floor_dwarf, floor_bpf or, with
# all at once, both.
leg() {
	# shellcheck disable=SC2086 # the workload is a command line
	taskset -c 0 $wl >/dev/null 2>&1 &
	target=$!
	pids="$target"
	sleep 0.5
	taskset -c 1 perf record -q -F "$hz" -p "$target" -o "$tmp/floor.data" >/dev/null 2>&1 &
	pids="$pids $!"
	case " $1 " in *" dwarf "*)
		taskset -c 1 perf record -q -F "$hz" --call-graph dwarf -p "$target" \
			-o "$tmp/dwarf.data" >/dev/null 2>&1 &
		pids="$pids $!" ;;
	esac
	case " $1 " in *" luatop "*)
		taskset -c 1 "$luatop" -F "$hz" -p "$target" --duration $((secs + 5)) -o /dev/null \
			2>"$tmp/lt.err" &
		pids="$pids $!" ;;
	esac
	sleep 2
	taskset -c 1 "$top/.output/bench/irq_cost" "$secs" 0 >"$tmp/leg" ||
		{ echo "irq_cost.sh: irq_cost failed" >&2; exit 1; }
	for p in $pids; do kill -INT "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	pids=''
	case $1 in
	"dwarf luatop") sed 's/^floor /floor_dwarf /; p; s/^floor_dwarf /floor_bpf /' "$tmp/leg" ;;
	dwarf) sed 's/^floor /floor_dwarf /' "$tmp/leg" ;;
	*) sed 's/^floor /floor_bpf /' "$tmp/leg" ;;
	esac >>"$tmp/round"
}

for r in $(seq "$rounds"); do
	: >"$tmp/round"
	if [ "${TOGETHER:-0}" = 1 ]; then
		leg "dwarf luatop"
	elif [ "${DWARF:-1}" = 0 ]; then
		leg luatop
	elif [ $((r % 2)) = 1 ]; then
		leg luatop; leg dwarf
	else
		leg dwarf; leg luatop
	fi
	awk -v r="$r" -v hz="$hz" '{ printf "%-6s %-11s %8d %8d %8d %8d\n", r, $1, $2, $3, $4, $5
		mean[$1] = $3 }
		END { if (("bpf" in mean) && ("floor_bpf" in mean))
			printf "%-6s luatop above the floor: %+.0f ns a sample, %+.2f points at %d Hz%s\n",
				r, mean["bpf"] - mean["floor_bpf"], (mean["bpf"] - mean["floor_bpf"]) * hz / 1e7,
				hz, ("dwarf" in mean) ? sprintf("; perf dwarf %+.0f ns, %+.2f points",
				mean["dwarf"] - mean["floor_dwarf"],
				(mean["dwarf"] - mean["floor_dwarf"]) * hz / 1e7) : "" }' \
		"$tmp/round" | tee -a "$tmp/all"
done
# The rounds' medians: luatop's and perf dwarf's points above the floor, and
# the floor's own mean: it tells the host's phase (0.6-1 us quiet on this VM,
# 1.3-2.7 us slow), which stretches every profiler's cost alike.
awk '/luatop above the floor/ { l[++n] = $10 + 0
	if ($0 ~ /dwarf/) d[n] = $(NF - 1) + 0 }
	$2 == "floor_bpf" { f[++m] = $4 + 0 }
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
	END { if (!n) exit
		below = 0; for (i = 1; i <= n; i++) if ((i in d) && l[i] < d[i]) below++
		printf "median of %d rounds: luatop %+.2f points above the floor", n, median(l, n)
		if (length(d)) printf ", perf dwarf %+.2f; luatop below perf dwarf in %d of %d", median(d, n), below, n
		if (m) printf " (the floor: %.0f ns a sample)", median(f, m)
		printf "\n" }' "$tmp/all"
