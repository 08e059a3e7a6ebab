#!/bin/bash
# More busy threads than CPUs: THREADS spinning threads in one process (bench/spinners.c),
# luatop -F HZ -p PID --duration SECONDS -o FILE -v; the samples, the lost ones (the
# ring buffer full: the reader starved), and the run's wall time against SECONDS,
# with luatop's start-up (loading the sampler and the tables) and end (draining,
# names, output) from -v. As root, after make. The timing runs at nice -20, as
# luatop does: at nice 0 among 200 busy threads the shell's own fork, exec and
# wakeup (1% of a CPU) add half a second that is not luatop's. The clock is bash's
# $EPOCHREALTIME, read without a fork: even at nice -20 a new process waits 5-150 ms
# for its first run among 200 busy threads (perf sched timehist), and a `date` on
# each side of luatop measured that twice over. "true s" is that wait, and the rest
# of a fork, exec and exit, for /bin/true just before; "own %" is luatop's part:
# its start-up and end (-v) over SECONDS.
#
#   bash bench/load.sh [THREADS] [SECONDS] [HZ] [ROUNDS]
set -eu
renice -n -20 -p $$ >/dev/null 2>&1 || true
top=$(cd "$(dirname "$0")/.." && pwd)
threads=${1:-200} secs=${2:-10} hz=${3:-999} rounds=${4:-3}
luatop=${LUATOP:-$top/.output/luatop}
tmp=$(mktemp -d)
pid=''
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || :; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
make -C "$top" -s .output/bench/spinners

echo "$threads spinning threads on $(nproc) CPUs, luatop -F $hz --duration $secs ($(uname -r))"
printf "%-6s %9s %9s %8s %8s %8s %8s %8s %8s\n" round samples lost "wall s" "over %" "start s" \
	"end s" "own %" "true s"
for r in $(seq "$rounds"); do
	nice -n 20 "$top/.output/bench/spinners" "$threads" $((secs + 30)) &
	pid=$!
	sleep 1
	t0=$EPOCHREALTIME
	/bin/true
	tt=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	t0=$EPOCHREALTIME
	"$luatop" -v -F "$hz" -p "$pid" --duration "$secs" -o "$tmp/out.folded" 2>"$tmp/err" || {
		echo "load.sh: luatop failed: $(tail -3 "$tmp/err")" >&2; exit 1; }
	t1=$EPOCHREALTIME
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=''
	sed -n 's/.*: \([0-9]*\) samples of .*, \([0-9]*\) lost.*/\1 \2/p' "$tmp/err" | head -1 >"$tmp/counts"
	st=$(sed -n 's/.*sampling from \([0-9.]*\) s after the start.*/\1/p' "$tmp/err")
	en=$(sed -n 's/.*done \([0-9.]*\) s after the end of --duration.*/\1/p' "$tmp/err")
	read -r n lost <"$tmp/counts" || { n=0; lost=0; }
	awk -v r="$r" -v n="$n" -v l="$lost" -v a="$t0" -v b="$t1" -v d="$secs" -v st="${st:-0}" \
		-v en="${en:-0}" -v tt="$tt" 'BEGIN { w = b - a
		printf "%-6s %9d %9d %8.2f %8.1f %8.3f %8.3f %8.1f %8s\n", r, n, l, w,
			(w / d - 1) * 100, st, en, (st + en) / d * 100, tt }'
done
