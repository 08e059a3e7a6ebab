#!/bin/sh
# What off-CPU tracing costs a busy target: an nginx worker (one, on CPU 0)
# serving a light Lua handler (bench/light_app.lua) to wrk (on CPU 1): the
# worker's CPU time per request (user + system: the BPF programs run in its
# context and are charged to it) with no profiler, with luatop -e cpu and with
# luatop -e offcpu (luatop on CPU 1), all at HZ. As root, after make.
#
#   sh bench/offcpu.sh [ROUNDS] [SECONDS] [HZ]
#   APP=tests/workloads/nginx/luatop_app.lua sh bench/offcpu.sh   (a heavier handler)
#
# Each round runs the three modes one after the other in a rotating order (so
# that a drift of the machine's speed over a round falls on each mode alike);
# the table gives each mode's cost per request relative to the unprofiled run of
# the same round: median and range over ROUNDS (the slowdown of the target).
# Throughput is printed too, but it is not the measure: luatop shares CPU 1 with
# wrk, and -e offcpu also traces wrk's system calls, so wrk sends fewer requests.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5} secs=${2:-5} hz=${3:-99}
luatop=${LUATOP:-$top/.output/luatop}
. "$top/bench/lib.sh"
make -C "$top" -s .output/luatop >/dev/null
miss=$(ngl_missing)
command -v wrk >/dev/null 2>&1 || miss=${miss:-wrk is not installed}
[ -z "$miss" ] || { echo "offcpu.sh: skipped: $miss"; exit 0; }
port=$(free_port)
app=${APP:-$top/bench/light_app.lua}
ngl_conf "$tmp/nginx" "$port" 1 "$app" || { echo "offcpu.sh: $NGL_ERR"; exit 1; }
# shellcheck disable=SC2046
taskset -c 0 nginx $(ngl_args "$tmp/nginx") >/dev/null 2>&1 &
master=$!
worker=$(ngl_wait "$tmp/nginx" "$master" "$port" 1) || { echo "offcpu.sh: $worker"; exit 1; }

# run MODE: "requests/s ticks-per-1000-requests" of one wrk run with MODE (none,
# cpu, offcpu).
run() {
	lt=''
	if [ "$1" != none ]; then
		taskset -c 1 "$luatop" -e "$1" -F "$hz" -p "$worker" --duration $((secs + 30)) \
			-o /dev/null 2>"$tmp/err" &
		lt=$!
		sleep 3	# loaded and attached (nginx's tables take a second or two)
	fi
	[ -n "$lt" ] && lt_progs "$lt" >"$tmp/p0.$1"
	t0=$(cpu_ticks "$worker")
	taskset -c 1 wrk -t1 -c16 -d"${secs}s" "http://127.0.0.1:$port/" >"$tmp/wrk" 2>&1
	t1=$(cpu_ticks "$worker")
	if [ -n "$lt" ]; then	# each program's runs and time over the wrk run, summed
		lt_progs "$lt" | join "$tmp/p0.$1" - |
			awk '{ print $1, $4 - $2, $5 - $3 }' >>"$tmp/bpf.$1"
	fi
	if [ -n "$lt" ]; then
		kill -INT "$lt" 2>/dev/null
		wait "$lt" 2>/dev/null || true
		lt=''
	fi
	awk -v t=$((t1 - t0)) '/requests in/ { n = $1 } /^Requests\/sec:/ { r = $2 }
		END { printf "%s %.4f\n", r, n ? 1000 * t / n : 0 }' "$tmp/wrk"
}

taskset -c 1 wrk -t1 -c16 -d2s "http://127.0.0.1:$port/" >/dev/null 2>&1	# warm the JIT
three_modes "$rounds" "$tmp/rounds" "req/s, ticks per 1000 requests"
awk '{ printf "%.4f %.4f %.4f\n", $4 / $2, $6 / $2, $6 / $4 }' "$tmp/rounds" >"$tmp/ratios"
echo "nginx worker, $(basename "$app"), wrk -c16, $rounds rounds of ${secs} s, $hz Hz:"
printf '%-34s %8s %17s\n' "worker CPU per request" "median" "range"
for col in 1 2 3; do
	case $col in
	1) what="-e cpu / no profiler" ;;
	2) what="-e offcpu / no profiler" ;;
	*) what="-e offcpu / -e cpu" ;;
	esac
	median_range $col "$tmp/ratios" |
		awk -v w="$what" '{ printf "%-34s %8.3f %8.3f..%.3f\n", w, $1, $2, $3 }'
done
echo "BPF programs (kernel.bpf_stats_enabled), over the wrk runs of each mode:"
for m in cpu offcpu; do
	[ -s "$tmp/bpf.$m" ] || continue
	awk -v m="$m" -v s="$secs" -v r="$rounds" '
		{ n[$1] += $2; t[$1] += $3 }
		END { for (p in n) printf "  -e %-7s %-13s %9.0f runs/s %7.0f ns/run %6.2f%% of a CPU\n",
			m, p, n[p] / (s * r), n[p] ? t[p] / n[p] : 0, 100 * t[p] / (s * r * 1e9) }' \
		"$tmp/bpf.$m" | sort
done
