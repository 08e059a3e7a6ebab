#!/bin/sh
# luatop's own cost: CPU (% of one core) and resident memory over SECONDS with the
# live view redrawing (in a detached tmux terminal, -d 1) at HZ on one busy LuaJIT
# thread (scripts/demo.lua). Prints RSS every PERIOD seconds, so growth shows, and
# the peak (VmHWM). As root, after make.
#
#   sh bench/self.sh [SECONDS] [HZ] [PERIOD]      (default 600 999 60)
# LUATOP=path measures another build's binary (side by side with this one).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
luatop=${LUATOP:-$top/.output/luatop}
secs=${1:-600} hz=${2:-999} period=${3:-60}
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; kill "$wl" 2>/dev/null || true; rm -rf "$tmp"' EXIT
lj=$(command -v luajit)
"$lj" "$top/scripts/demo.lua" $((secs + 30)) >/dev/null 2>&1 &
wl=$!
sleep 0.5
tmux -S "$sock" -f /dev/null new-session -d -s b -x 160 -y 45 \
	"env TERM=tmux-256color LANG=C.UTF-8 $luatop -d 1 -F $hz -p $wl"
# The pane's process: env exec'd luatop (another luatop may run meanwhile).
lt=$(tmux -S "$sock" list-panes -t b -F '#{pane_pid}' 2>/dev/null | head -1)
i=0
while [ $i -lt 50 ] && [ "$(cat "/proc/$lt/comm" 2>/dev/null)" != luatop ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "/proc/$lt/comm" 2>/dev/null)" = luatop ] || { echo "self.sh: luatop did not start" >&2; exit 1; }
tck=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$lt/stat"; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$lt/status"; }
sleep 2	# past the start-up (tables, symbols)
c0=$(cpu) t0=$(date +%s)
printf '%8s %10s %10s\n' seconds cpu% rss_kb
el=0
while [ "$el" -lt "$secs" ]; do
	step=$period; [ $((el + step)) -gt "$secs" ] && step=$((secs - el))
	sleep "$step"
	el=$((el + step))
	c=$(cpu) t=$(date +%s)
	printf '%8d %10.2f %10d\n' "$el" "$(echo "$c $c0 $t $t0 $tck" | awk '{ print 100 * ($1 - $2) / $5 / ($3 - $4) }')" "$(rss)"
done
echo "peak RSS (VmHWM): $(awk '/^VmHWM/ { print $2 }' "/proc/$lt/status") kB; luatop at $hz Hz, live view, one busy LuaJIT thread"
