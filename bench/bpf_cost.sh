#!/bin/sh
# Mean run time of the BPF sampler per sample, from the kernel's BPF stats
# (kernel.bpf_stats_enabled), on native (also one that empties the caches), pure-Lua,
# FFI, Lua<->C and nginx workloads.
# As root, after make.
#
#   sh bench/bpf_cost.sh [SECONDS] [HZ]
#   LUATOPS="old=/path/luatop new=/path/luatop" ROUNDS=3 sh bench/bpf_cost.sh 3
#       builds side by side: per workload, one window each in turn, ROUNDS times
#   PAIR=1 LUATOPS="old=... new=..." sh bench/bpf_cost.sh 10
#       builds all at once on each workload, each with its own program at every
#       tick of the same seconds, in both orders: each build's ns per run relative
#       to the first's, half second by half second (the host's noise cancels:
#       compare builds so)
#   ONLY=REGEX: only the workloads whose names match (ONLY='clib|demo')
#
# Each workload is pinned to CPU 0 and luatop to CPU 1; the stats of luatop's own
# program, its flush program's time added (found through its file descriptors:
# other luatops may run), are read
# over SECONDS once the start-up is over. The program runs on every CPU at HZ, and
# runs for other processes return after one hash lookup: "per run" averages all
# runs; "per sample" charges the workload's samples with the whole run time minus
# the other runs at the cost an idle target's runs have (measured first; for the
# nginx row, measured again beside the worker under wrk, whose runs cost more), and
# "bound" charges them with all of it; "median" is "ns/sample" from the median
# half second (this VM's host takes the CPU for whole milliseconds at times: a
# mean over seconds moves by 2-3x from one run to the next, the median far less),
# "best" from the fastest half second (the host's noise only ever adds time:
# the figure to compare builds by).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-5} hz=${2:-999}
luatop=${LUATOP:-$top/.output/luatop}
wl=$top/.output/workloads
up=$top/.deps/luajit-upstream/usr/bin/luajit
. "$top/bench/lib.sh"
# This shell and its stats readers (bpftool) on CPU 1 with luatop: CPU 0 is the workload's.
taskset -cp 1 $$ >/dev/null
make -C "$top" -s .output/luatop .output/workloads/qsort_nofp .output/workloads/burn \
	.output/bench/sweep >/dev/null

# stats PID: "run_cnt run_time_ns" of the sampler program PID holds, the time of
# its flush program added: the flush sends most batches (wire/luatop.h).
stats() {
	lt_progs "$1" | awk '$1 == "sample" { c = $2; t += $3 } $1 == "flush" { t += $3 }
		END { if (c != "") print c, t }'
}

idle_ns=0
# window PID: profile PID for $secs after 3 s of start-up, its BPF stats read every
# half second; prints "runs ns ticks median best": the median and the least of
# the half seconds' ns per run (a minute of host steal time lands in a few of them).
window() {
	taskset -c 1 "$luatop" -F "$hz" -p "$1" --duration $((secs + 8)) -o "$tmp/out.folded" \
		2>"$tmp/err" &
	lt=$!
	sleep 3
	t0=$(cpu_ticks "$1")
	: >"$tmp/stats"
	_i=0
	while [ "$_i" -le $((2 * secs)) ]; do
		stats "$lt" >>"$tmp/stats"
		[ "$_i" -lt $((2 * secs)) ] && sleep 0.5
		_i=$((_i + 1))
	done
	t1=$(cpu_ticks "$1")
	[ -s "$tmp/stats" ] || { echo "bpf_cost.sh: luatop did not attach: $(cat "$tmp/err")" >&2; exit 1; }
	kill -INT "$lt" 2>/dev/null || true
	wait "$lt" || true
	lt=''
	awk -v t0="$t0" -v t1="$t1" 'NR > 1 && $1 > c { m[++k] = ($2 - n) / ($1 - c) }
		NR == 1 { c0 = $1; n0 = $2 } { c = $1; n = $2 }
		END { for (i = 2; i <= k; i++) { v = m[i]; for (j = i - 1; j >= 1 && m[j] > v; j--)
			m[j + 1] = m[j]; m[j + 1] = v }
			print c - c0, n - n0, t1 - t0, k ? m[int((k + 1) / 2)] : 0, k ? m[1] : 0 }' "$tmp/stats"
}

# other_run_ns: ns a run for another process costs now (a sleeping process
# profiled; every run is then for another one).
other_run_ns() {
	sleep 60 &
	_sl=$!
	window "$_sl" | awk '{ printf "%.0f", $4 }'
	kill "$_sl"
}

# pair NAME PID: the builds of $LUATOPS all at once on PID (PAIR=1), each
# with its own program at each sampling tick of the same seconds, so that the
# host's noise falls on all of them alike; twice, the second time started in
# the reverse order (the first started ran ~7% cheaper here, whichever it
# was). A row per build: its runs and mean ns per run over both, and the median
# of its half seconds' ns per run relative to the first build's over the same
# half second (geometric mean of the two orders), with the two medians.
pair() {
	: >"$tmp/pairs"
	pair_pass "$2" "$LUATOPS"
	pair_pass "$2" "$(for _b in $LUATOPS; do echo "$_b"; done | sed -n '1!G;h;$p')"
	for _b in $LUATOPS; do
		awk -v b="${_b%%=*}" -v name="$1 [${_b%%=*}]" '$1 == b { r += $2; n += $3; m[++k] = $4 }
			END { printf "%-34s %8d %8.0f %7.3f %7.3f %7.3f\n", name, r, r ? n / r : 0,
				sqrt(m[1] * m[2]), m[1], m[2] }' "$tmp/pairs"
	done
}

# pair_pass PID "NAME=BIN ...": one pass of pair, in that order; to $tmp/pairs
# a line per build: name, runs, ns, median ratio to the first build of $LUATOPS.
pair_pass() {
	_lts=''
	for _b in $2; do
		taskset -c 1 "${_b#*=}" -F "$hz" -p "$1" --duration $((3 * secs + 10)) -o /dev/null 2>/dev/null &
		_lts="$_lts $!"
	done
	sleep 3
	: >"$tmp/pstats"
	_i=0
	while [ "$_i" -le $((2 * secs)) ]; do
		_line=''
		for _l in $_lts; do _line="$_line $(stats "$_l")"; done
		echo "$_line" >>"$tmp/pstats"
		[ "$_i" -lt $((2 * secs)) ] && sleep 0.5
		_i=$((_i + 1))
	done
	for _l in $_lts; do kill -INT "$_l" 2>/dev/null || true; done
	for _l in $_lts; do wait "$_l" || true; done
	# column of the reference build (the first of $LUATOPS) in this pass
	_ref=$(echo "$2" | tr ' ' '\n' | grep -n -F -x -e "${LUATOPS%% *}" | cut -d: -f1)
	_k=1
	for _b in $2; do
		awk -v k="$_k" -v f="$_ref" -v b="${_b%%=*}" 'NF >= 2 * k && NF >= 2 * f {
			c = $(2 * k - 1); n = $(2 * k); c1 = $(2 * f - 1); n1 = $(2 * f)
			if (NR > 1 && c > pc && c1 > pc1)
				r[++m] = ((n - pn) / (c - pc)) / ((n1 - pn1) / (c1 - pc1))
			if (NR == 1) { c0 = c; n0 = n }
			pc = c; pn = n; pc1 = c1; pn1 = n1 }
			END { for (i = 2; i <= m; i++) { v = r[i]; for (j = i - 1; j >= 1 && r[j] > v; j--)
				r[j + 1] = r[j]; r[j + 1] = v }
				print b, c - c0, n - n0, m ? r[int((m + 1) / 2)] : 0 }' "$tmp/pstats" >>"$tmp/pairs"
		_k=$((_k + 1))
	done
}

# row NAME WINDOW FRAMES: one row of the table from a window's figures.
row() {
	echo "$2" | awk -v name="$1" -v hz="$hz" -v idle="$idle_ns" -v tck="$(getconf CLK_TCK)" \
		-v frames="$3" '{
		own = $3 / tck * hz; if (own > $1) own = $1
		if (own < 1) { printf "%-28s no samples\n", name; exit }
		printf "%-28s %7d %7.0f %8d %8.0f %8.0f %8.0f %8.0f %6s\n", name, $1, $2 / $1, own,
			($2 - ($1 - own) * idle) / own, $2 / own,
			($4 * $1 - ($1 - own) * idle) / own, ($5 * $1 - ($1 - own) * idle) / own, frames }'
}

# report NAME PID: a row for the running process PID, or with LUATOPS a row per
# build, the builds taking turns ROUNDS times (figures summed, medians' median, best's best).
report() {
	if [ -n "${PAIR:-}" ]; then
		pair "$@"
		return
	fi
	if [ -z "${LUATOPS:-}" ]; then
		w=$(window "$2")
		row "$1" "$w" "$(frames_of "$tmp/out.folded")"
		return
	fi
	: >"$tmp/rows"
	_r=0
	while [ "$_r" -lt "${ROUNDS:-3}" ]; do
		for _b in $LUATOPS; do
			luatop=${_b#*=}
			echo "${_b%%=*} $(window "$2") $(frames_of "$tmp/out.folded")" >>"$tmp/rows"
		done
		_r=$((_r + 1))
	done
	for _b in $LUATOPS; do
		w=$(awk -v b="${_b%%=*}" '$1 == b { r += $2; n += $3; t += $4; m[++k] = $5
				if (k == 1 || $6 < best) best = $6 }
			END { for (i = 2; i <= k; i++) { v = m[i]; for (j = i - 1; j >= 1 && m[j] > v; j--)
				m[j + 1] = m[j]; m[j + 1] = v }
				print r, n, t, m[int((k + 1) / 2)], best }' "$tmp/rows")
		row "$1 [${_b%%=*}]" "$w" "$(awk -v b="${_b%%=*}" '$1 == b { f = $7 } END { print f }' "$tmp/rows")"
	done
}

# frames_of FOLDED: mean frames per sample.
frames_of() {
	awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n += c * split(s, f, ";"); t += c }
		END { if (t) printf "%.1f", n / t; else print 0 }' "$1"
}

# measure NAME CMD...: run CMD pinned to CPU 0 and report it (when NAME matches $ONLY).
measure() {
	name=$1; shift
	echo "$name" | grep -Eq -e "${ONLY:-.}" || return 0
	taskset -c 0 "$@" >/dev/null 2>&1 &
	pid=$!
	sleep 0.5
	report "$name" "$pid"
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

echo "BPF sampler cost at $hz Hz, $secs s per workload ($(uname -r), $(nproc --all) CPUs)"
if [ -n "${PAIR:-}" ]; then
	printf "%-34s %8s %8s %7s %7s %7s\n" "workload [build]" runs ns/run "vs 1st" fwd rev
else
	idle_ns=$(other_run_ns)
	echo "a run for another process (idle target): $idle_ns ns"
	printf "%-28s %7s %7s %8s %8s %8s %8s %8s %6s\n" workload runs ns/run samples "ns/sample" bound median best frames
fi
measure "burn (frame pointers)" "$wl/burn" 900
measure "qsort_nofp" "$wl/qsort_nofp" 900
# The sampler's own lines: the cheapest walk there is, its target keeping the
# caches (16 KiB) or emptying them between two samples (32 MiB); and a run for
# a sleeping process while the sweep runs on CPU 0 (half the runs are CPU 1's).
measure "sweep 16 KiB (warm caches)" "$top/.output/bench/sweep" 16
measure "sweep 32 MiB (cold caches)" "$top/.output/bench/sweep" 32768
if [ -z "${PAIR:-}" ] && [ -z "${LUATOPS:-}" ] && echo "sweep 32 MiB" | grep -Eq -e "${ONLY:-.}"; then
	taskset -c 0 "$top/.output/bench/sweep" 32768 &
	load=$!
	echo "a run for another process, sweep 32 MiB on CPU 0: $(other_run_ns) ns"
	kill "$load"
	load=''
fi
measure "luajit2 -joff clib" luajit -joff "$top/tests/workloads/clib.lua" 900
measure "luajit2 JIT clib" luajit "$top/tests/workloads/clib.lua" 900
if [ -x "$up" ]; then
	measure "upstream -joff clib" "$up" -joff "$top/tests/workloads/clib.lua" 900
	measure "upstream JIT clib" "$up" "$top/tests/workloads/clib.lua" 900
fi
measure "luajit2 JIT demo (pure Lua)" luajit "$top/scripts/demo.lua" 900
measure "luajit2 JIT fixed (page faults)" luajit "$top/bench/fixed.lua" 1000000 /dev/null
measure "luajit2 JIT ffi" luajit "$top/tests/workloads/ffi.lua" 900
measure "luajit2 -joff ffi" luajit -joff "$top/tests/workloads/ffi.lua" 900
if [ -r /usr/include/luajit-2.1/lua.h ]; then	# Lua <-> C: a C host calling back and forth
	cc -O2 -g -I/usr/include/luajit-2.1 -o "$tmp/host" "$top/tests/workloads/luahost/luahost.c" \
		-lluajit-5.1 2>/dev/null &&
		measure "C host (Lua<->C)" "$tmp/host" "$top/tests/workloads/luahost/luahost.lua" 900 /dev/null
fi
# nginx + Lua: one worker on CPU 0 under loopback wrk load (wrk on CPU 1).
if ! echo "nginx worker" | grep -Eq -e "${ONLY:-.}"; then
	:
elif nginx_under_wrk "$top/tests/workloads/nginx/luatop_app.lua" \
	$(((secs + 8) * ${ROUNDS:-1} * $(echo ${LUATOPS:-x} | wc -w) + 60)); then
	# The other processes' runs here are wrk's and the loopback's, after
	# work that evicts what the program touches: they cost more than beside
	# an idle machine. Charge them at what a run for an idle target costs
	# under this load (a sleeping process profiled meanwhile).
	if [ -z "${PAIR:-}" ] && [ -z "${LUATOPS:-}" ]; then
		_idle=$idle_ns
		idle_ns=$(other_run_ns)
		echo "a run for another process beside the nginx worker under wrk: $idle_ns ns"
	fi
	report "nginx worker (Lua handler)" "$worker"
	[ -n "${_idle:-}" ] && idle_ns=$_idle
else
	echo "nginx worker: $worker"
fi
