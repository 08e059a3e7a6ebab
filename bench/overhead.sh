#!/bin/sh
# Target slowdown with luatop attached vs perf record --call-graph dwarf at the same
# rate, measured side by side in one run (this machine is noisy: compare ratios),
# plus the sampler's mean BPF run time per sample from the kernel's BPF stats.
#
#   sh bench/overhead.sh [ROUNDS] [HZ] [REPEATS]     (as root, after make)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3000} hz=${2:-999} reps=${3:-3}
burn=$top/.output/workloads/burn
luatop=$top/.output/luatop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; sysctl -q kernel.bpf_stats_enabled=0' EXIT
[ -x "$burn" ] || make -C "$top" -s .output/workloads/burn .output/luatop

secs() { # run a command, print its wall time in seconds
	s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}

sysctl -q kernel.bpf_stats_enabled=1
have_perf=$(command -v perf >/dev/null && perf record -o /dev/null true >/dev/null 2>&1 && echo 1 || echo 0)
printf '%-8s %10s %10s %10s\n' run baseline luatop perf-dwarf
i=0
while [ $i -lt "$reps" ]; do
	b=$(secs "$burn" 0 "$rounds")
	l=$(secs "$luatop" -F "$hz" -o "$tmp/l.folded" -- "$burn" 0 "$rounds")
	if [ "$have_perf" = 1 ]; then
		p=$(secs perf record -F "$hz" --call-graph dwarf -o "$tmp/perf.data" -- "$burn" 0 "$rounds")
	else
		p=nan
	fi
	printf '%-8s %10.3f %10.3f %10s\n' "$i" "$b" "$l" "$p"
	echo "$b $l $p" >>"$tmp/times"
	i=$((i + 1))
done
awk '{ b += $1; l += $2; p += $3 } END {
	printf "mean     %10.3f %10.3f %10.3f\n", b/NR, l/NR, p/NR
	printf "slowdown luatop %+.1f%%   perf --call-graph dwarf %+.1f%%   (at %s Hz)\n",
		(l/b - 1) * 100, (p/b - 1) * 100, hz }' hz="$hz" "$tmp/times"

# BPF cost per sample: profile the workload once more and read run_time_ns/run_cnt.
"$burn" 5 >/dev/null & wl=$!
"$luatop" -F "$hz" -p "$wl" --duration 3 -o "$tmp/s.folded" 2>/dev/null &
lt=$!
sleep 2.5
bpftool prog show -j 2>/dev/null | tr '}' '\n' | grep '"name":"sample"' |
	sed -n 's/.*"run_time_ns":\([0-9]*\).*"run_cnt":\([0-9]*\).*/\1 \2/p' |
	awk '$2 > 0 { printf "BPF sampler: %d runs, mean %.0f ns per run (all CPUs, incl. filtered-out samples)\n", $2, $1 / $2 }'
wait "$lt" 2>/dev/null || true
kill "$wl" 2>/dev/null || true
