# Helpers of the benchmarks that run nginx and read the kernel's BPF statistics
# (bpf_cost.sh, offcpu.sh). Sourced (POSIX sh) with $top set; sets $tmp (a
# scratch directory the nginx workers may read) and cleans up on exit whatever
# the script left in $master (an nginx master), $load and $lt (processes).
#
#   lt_progs PID   "name run_cnt run_time_ns" of each BPF program PID holds
#   cpu_ticks PID  user + system time of PID, in clock ticks
tmp=$(mktemp -d)
chmod 755 "$tmp"
master='' load='' lt=''
bench_cleanup() {
	# Every step "|| :": the scripts run under set -e, which would end the
	# trap at the first process already gone and leave the rest undone.
	for _p in $load $lt; do kill "$_p" 2>/dev/null || :; done
	[ -z "$master" ] || ngl_stop "$master"
	rm -rf "$tmp"
	sysctl -q kernel.bpf_stats_enabled=0 || :
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP
. "$top/scripts/nginx-lua.sh"
sysctl -q kernel.bpf_stats_enabled=1

lt_progs() {
	for _f in /proc/"$1"/fdinfo/*; do
		sed -n 's/^prog_id:[[:space:]]*//p' "$_f" 2>/dev/null
	done | sort -u | while read -r _id; do
		bpftool prog show id "$_id" -j 2>/dev/null | sed -n \
		's/.*"name":"\([a-z_]*\)".*"run_time_ns":\([0-9]*\).*"run_cnt":\([0-9]*\).*/\1 \3 \2/p'
	done | sort
}

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# nginx_under_wrk APP SECONDS: one nginx worker pinned to CPU 0 serving APP's Lua
# handler to loopback wrk (-c2, pinned to CPU 1) for SECONDS; sets $master,
# $worker (its PID) and $load. Returns 1 with the reason in $worker when nginx,
# its Lua module or wrk is missing or the worker does not come up.
nginx_under_wrk() {
	_why=$(ngl_missing)
	command -v wrk >/dev/null 2>&1 || _why=${_why:-wrk is not installed}
	[ -z "$_why" ] || { worker="skipped ($_why)"; return 1; }
	_port=$(free_port) && ngl_conf "$tmp/nginx" "$_port" 1 "$1" ||
		{ worker="skipped (${NGL_ERR:-no configuration})"; return 1; }
	# shellcheck disable=SC2046
	taskset -c 0 nginx $(ngl_args "$tmp/nginx") >/dev/null 2>&1 &
	master=$!
	worker=$(ngl_wait "$tmp/nginx" "$master" "$_port" 1) || return 1
	taskset -c 1 wrk -t1 -c2 -d"$2"s "http://127.0.0.1:$_port/" >/dev/null 2>&1 &
	load=$!
	sleep 0.5
}

# three_modes ROUNDS FILE WHAT: ROUNDS rounds of run none, run cpu and run
# offcpu (the script's run MODE prints one line of figures), in a rotating
# order so that a drift of the machine's speed falls on each mode alike; each
# round's lines joined ("none... cpu... offcpu...") go to FILE, and to stderr
# labelled with WHAT (what the figures are).
three_modes() {
	: >"$2"
	_r=0
	while [ $_r -lt "$1" ]; do
		case $((_r % 3)) in
		0) _order="none cpu offcpu" ;;
		1) _order="cpu offcpu none" ;;
		*) _order="offcpu none cpu" ;;
		esac
		for _m in $_order; do eval "_v_$_m=\$(run $_m)"; done
		echo "round $((_r + 1)) ($3): none $_v_none; cpu $_v_cpu; offcpu $_v_offcpu" >&2
		echo "$_v_none $_v_cpu $_v_offcpu" >>"$2"
		_r=$((_r + 1))
	done
}

# median_range COL FILE: "median min max" of column COL of FILE.
median_range() {
	sort -n -k"$1","$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END {
		printf "%s %s %s\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2,
			v[1], v[NR] }'
}
