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
	for _p in $load $lt; do kill "$_p" 2>/dev/null; done
	[ -n "$master" ] && ngl_stop "$master"
	rm -rf "$tmp"
	sysctl -q kernel.bpf_stats_enabled=0
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
