#!/bin/sh
# Where the sampler's time goes, stage by stage: a throw-away build of this tree
# whose BPF program sums, per CPU sample, the time of each stage (registers, stack
# window, LuaJIT state and Lua frames, native walk, kernel stack, packing, the
# batch: adding to it, sending it) and counts its user-memory reads
# (bench/bpf_stages.py instruments a copy; luatop itself is never built so).
# Each workload pinned to CPU 0, luatop to CPU 1, at 999 Hz. As root, after
# make; needs python3.
#
#   sh bench/bpf_stages.sh [SECONDS] [ROUNDS]
#
# Times carry this VM's noise (one stage can take 10x in a slow minute: compare
# within a run); the read and frame counts are exact.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-3} rounds=${2:-2}
command -v python3 >/dev/null || { echo "bpf_stages.sh: needs python3" >&2; exit 1; }
. "$top/bench/lib.sh"	# $tmp, nginx helpers, cleanup of $master, $load, $lt
pid=''
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || :; bench_cleanup' EXIT
mkdir "$tmp/tree"
(cd "$top" && tar cf - --exclude=.output --exclude=.git --exclude=.deps .) | (cd "$tmp/tree" && tar xf -)
python3 "$top/bench/bpf_stages.py" "$tmp/tree"
make -C "$tmp/tree" -s -j2 .output/luatop .output/workloads/burn .output/workloads/qsort_nofp \
	.output/bench/sweep >/dev/null
lt_bin=$tmp/tree/.output/luatop

# row NAME PID: PID (running on CPU 0) profiled for $secs, one row.
row() {
	taskset -c 1 "$lt_bin" -F 999 -p "$2" --duration $((secs + 2)) -o /dev/null 2>/dev/null &
	lt=$!
	sleep $((secs + 1))
	id=$(for f in /proc/"$lt"/fdinfo/*; do sed -n 's/^map_id:[[:space:]]*//p' "$f" 2>/dev/null; done |
		sort -u | while read -r i; do
			bpftool map show id "$i" 2>/dev/null | grep -q ' name stages ' && echo "$i"
		done | head -1)
	[ -n "$id" ] && bpftool map dump id "$id" -j | python3 "$top/bench/bpf_stages.py" --table "$1"
	wait "$lt" || true
	lt=''
}

# run NAME CMD...: CMD on CPU 0, one row.
run() {
	name=$1; shift
	taskset -c 0 "$@" >/dev/null 2>&1 &
	pid=$!
	sleep 0.5
	row "$name" "$pid"
	kill "$pid" 2>/dev/null || :; wait "$pid" 2>/dev/null || :
	pid=''
}

# nginx_row NAME: one nginx worker on CPU 0 serving a Lua handler to wrk on CPU 1 (as
# bpf_cost.sh), one row; a line saying why when nginx, its Lua module or wrk is missing.
nginx_row() {
	if nginx_under_wrk "$top/tests/workloads/nginx/luatop_app.lua" $((secs + 10)); then
		row "$1" "$worker"
		kill "$load" 2>/dev/null || :; wait "$load" 2>/dev/null || :
		load=''
	else
		echo "$1: $worker"
	fi
	[ -n "$master" ] && ngl_stop "$master"
	master=''
}

echo "BPF sampler stages at 999 Hz, $secs s per row ($(uname -r)): mean ns per sample"
python3 "$top/bench/bpf_stages.py" --header
r=0
while [ "$r" -lt "$rounds" ]; do
	run "burn (frame pointers)" "$tmp/tree/.output/workloads/burn" 60
	run "qsort_nofp" "$tmp/tree/.output/workloads/qsort_nofp" 60
	run "sweep 32 MiB (cold caches)" "$tmp/tree/.output/bench/sweep" 32768
	run "luajit2 JIT clib.lua" luajit "$top/tests/workloads/clib.lua" 60
	run "luajit2 JIT demo.lua" luajit "$top/scripts/demo.lua" 60
	run "luajit2 -joff demo.lua" luajit -joff "$top/scripts/demo.lua" 60
	run "luajit2 JIT fixed.lua" luajit "$top/bench/fixed.lua" 1000000 /dev/null
	nginx_row "nginx worker (Lua handler)"
	r=$((r + 1))
done
