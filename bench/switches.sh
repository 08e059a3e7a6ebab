#!/bin/sh
# What -e offcpu adds to one system call and to one blocking round trip between
# two threads (bench/switches.c, pinned to CPU 0; luatop on CPU 1), against no
# profiler and -e cpu, in interleaved rounds (rotating order). The system call
# is getppid(): the cost of tracing every system call's return on the host; the
# round trip is two blocks, two wakeups and two context switches of the target:
# what a target thread's blocks cost (the kernel stack kept at each, the
# switch-in, the return). As root, after make.
#
#   sh bench/switches.sh [ROUNDS] [SECONDS] [HZ]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5} secs=${2:-4} hz=${3:-99}
luatop=${LUATOP:-$top/.output/luatop}
. "$top/bench/lib.sh"
make -C "$top" -s .output/luatop .output/bench/switches >/dev/null

# run MODE: "syscall-ns roundtrip-ns" (medians of the program's rounds) with MODE.
run() {
	lt=''
	# The program starts measuring after 3 s: luatop is attached by then.
	taskset -c 0 sh -c 'sleep 3; exec "$0" "$1" 4' "$top/.output/bench/switches" "$secs" \
		>"$tmp/out" &
	prog=$!
	if [ "$1" != none ]; then
		taskset -c 1 "$luatop" -e "$1" -F "$hz" -p "$prog" --duration $((secs + 30)) \
			-o /dev/null 2>"$tmp/err" &
		lt=$!
	fi
	wait "$prog"
	if [ -n "$lt" ]; then
		kill -INT "$lt" 2>/dev/null
		wait "$lt" 2>/dev/null || true
		lt=''
	fi
	for k in syscall roundtrip; do
		awk -v k=$k '$1 == k { print $2 }' "$tmp/out" >"$tmp/$k"
		median_range 1 "$tmp/$k" | awk '{ printf "%s ", $1 }'
	done
	echo
}

three_modes "$rounds" "$tmp/all" "syscall ns, round trip ns"
echo "bench/switches (CPU 0), luatop on CPU 1, $rounds rounds, $hz Hz: median (range) over rounds"
printf '%-26s %22s %22s %22s\n' "" "no profiler" "-e cpu" "-e offcpu"
for k in 1 2; do
	name=$([ $k = 1 ] && echo "getppid(), ns" || echo "pipe round trip, ns")
	line=$(printf '%-26s' "$name")
	for m in 0 1 2; do
		col=$((m * 2 + k))
		cell=$(median_range $col "$tmp/all" | awk '{ printf "%.0f (%.0f-%.0f)", $1, $2, $3 }')
		line="$line$(printf ' %22s' "$cell")"
	done
	echo "$line"
done
