#!/bin/sh
# Soak run (issue 16): luatop for SOAK_MINUTES at SOAK_HZ on nginx with the Lua module
# (master + 2 workers, a Lua content handler doing real work) under loopback wrk load,
# the live view redrawing in a detached tmux terminal, workers restarted at the midpoint
# (nginx -s reload). A second luatop in batch mode (-o, --duration, -v) on the same targets
# gives the record of samples and lost samples. Every SOAK_PERIOD seconds: RSS (VmRSS),
# peak RSS (VmHWM) and CPU (utime+stime) of both luatops, the live view's sample count
# and lost share, and nginx's requests per second (stub_status). At the end: both
# luatops must still run (else: crash), the live view quits with q, the batch run with
# SIGINT; a table, then a verdict (crash or not, RSS growth first half vs last half).
# As root, after make; never part of make check.
#
#   sh bench/soak.sh                     30 minutes at 999 Hz
#   SOAK_MINUTES=1 sh bench/soak.sh      a short run (reload at 30 s)
#
# Knobs: SOAK_MINUTES (30), SOAK_HZ (999), SOAK_PERIOD (30 s between rows), SOAK_CONNS
# (wrk connections, 4), SOAK_KEEP=1 (keep the temp dir), LUATOP (.output/luatop),
# SOAK_TARGET (all: luatop --all, following the reloaded workers, and wrk, which
# embeds LuaJIT too; pids: -p with the PIDs of the start).
# Exit 0: no crash; 1: a luatop crashed, exited early, failed or hung on quit; 2: the
# set-up failed (missing tools, nginx).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
LUATOP=${LUATOP:-$top/.output/luatop}
mins=${SOAK_MINUTES:-30} hz=${SOAK_HZ:-999} period=${SOAK_PERIOD:-30} conns=${SOAK_CONNS:-4}
secs=$(awk -v m="$mins" 'BEGIN { s = int(m * 60); print (s > 0 ? s : 1) }')
case $secs$hz$period$conns in *[!0-9]*) echo "soak.sh: SOAK_MINUTES, SOAK_HZ, SOAK_PERIOD, SOAK_CONNS: numbers" >&2; exit 2 ;; esac
[ "$period" -gt 0 ] || period=30
half=$((secs / 2))
. "$top/scripts/nginx-lua.sh"

die() { echo "soak.sh: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "run as root (luatop needs BPF)"
[ -x "$LUATOP" ] || die "no $LUATOP: run make first"
for c in nginx wrk tmux curl; do
	command -v "$c" >/dev/null 2>&1 || die "$c is not installed (sh scripts/deps.sh bench)"
done
[ -z "$(ngl_missing)" ] || die "$(ngl_missing)"

tmp=$(mktemp -d /tmp/luatop-soak.XXXXXX)
sock=$tmp/tmux.sock
master='' load='' batch='' live=''
tmx() { tmux -S "$sock" -f /dev/null "$@"; }
# shellcheck disable=SC2046
ngx() { nginx $(ngl_args "$tmp/nginx") "$@"; }
# running PID: PID exists and is not a zombie (an exited child not yet waited for).
running() {
	_s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ -n "$_s" ] && [ "${_s%% *}" != Z ]
}
# gone PID [TENTHS]: wait until PID is gone (default 5 s); 1 if it is still there.
gone() {
	_i=0
	while running "$1"; do
		[ "$_i" -ge "${2:-50}" ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 0
}
cleanup() {
	for p in $live $batch; do kill "$p" 2>/dev/null || :; done
	for p in $live $batch; do gone "$p" 30 || kill -9 "$p" 2>/dev/null || :; done
	[ -z "$load" ] || kill "$load" 2>/dev/null || :
	tmx kill-server 2>/dev/null || :
	if [ -n "$master" ]; then
		kill "$master" 2>/dev/null || :
		gone "$master" || kill -9 "$master" 2>/dev/null || :
		wait "$master" 2>/dev/null || :
	fi
	if [ "${SOAK_KEEP:-0}" = 1 ]; then echo "soak: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# --- nginx: master + 2 workers on 127.0.0.1, a Lua handler, stub_status ----------
port=$(free_port) || die "no free TCP port"
cat >"$tmp/soak_app.lua" <<'LUA'
-- bench/soak.sh's content handler: build records (table loop), sort them, render
-- them with string.format/upper/rep, escape with gsub, checksum the bytes.
local M = {}
local words = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta" }
local seq = 0

local function records(n, seed)
  local t = {}
  for i = 1, n do
    local w = words[(i * 7 + seed) % #words + 1]
    t[i] = { id = i, name = w .. "-" .. i, score = (i * 2654435761 + seed) % 1000 }
  end
  table.sort(t, function(a, b) return a.score < b.score or (a.score == b.score and a.id < b.id) end)
  return t
end

local function render(recs)
  local parts = {}
  for i, r in ipairs(recs) do
    parts[i] = string.format("<tr><td>%d</td><td>%s</td><td>%s%d</td></tr>",
      r.id, r.name:upper(), string.rep("*", r.score % 5), r.score)
  end
  return table.concat(parts, "\n")
end

local escapes = { ["<"] = "&lt;", [">"] = "&gt;", ["&"] = "&amp;" }
local function escape(s)
  return (s:gsub("[<>&]", escapes))
end

local function checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967291 end
  return h
end

function M.handler()
  seq = seq + 1
  local body = escape(render(records(200, seq % 97)))
  ngx.say(#body, " ", checksum(body))
end

return M
LUA
ngl_conf "$tmp/nginx" "$port" 2 "$tmp/soak_app.lua" || die "$NGL_ERR"
# shellcheck disable=SC2046
nginx $(ngl_args "$tmp/nginx") >/dev/null 2>&1 &
master=$!	# nginx itself (daemon off), not a subshell: its workers are its children
workers() { pgrep -P "$master" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
wk=$(ngl_wait "$tmp/nginx" "$master" "$port" 2) || die "$wk"
# requests: nginx's request count (stub_status; its counters survive a reload).
requests() { curl -s -m 2 "http://127.0.0.1:$port/status" | awk 'NR == 3 { print $3 }'; }

# --- load and the two luatops ----------------------------------------------------
wrk -t1 -c"$conns" -d$((secs + 60))s --timeout 5s "http://127.0.0.1:$port/" >"$tmp/wrk.log" 2>&1 &
load=$!
pids=$(echo "$master $wk" | tr ' ' ',')
# --all (the default) follows the workers a reload starts; SOAK_TARGET=pids keeps
# the PIDs of the start (the old workers exit at the reload, the master stays).
case ${SOAK_TARGET:-all} in
all) target="--all" ;;
*) target="-p $pids" ;;
esac
echo "soak: ${secs}s at $hz Hz, nginx master $master, workers $wk, port $port, wrk -c$conns; reload at ${half}s" >&2
cat >"$tmp/live.sh" <<EOF
'$LUATOP' -d 1 -F $hz $target 2>'$tmp/live.err'
echo \$? >'$tmp/live.rc.tmp' && mv '$tmp/live.rc.tmp' '$tmp/live.rc'
exec sleep 3600
EOF
tmx new-session -d -s soak -x 160 -y 45 \
	"env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh $tmp/live.sh" || die "tmux new-session failed"
pane=$(tmx display-message -p -t soak '#{pane_pid}')
# shellcheck disable=SC2086
"$LUATOP" -v -F "$hz" $target --duration $((secs + 120)) -o "$tmp/batch.folded" 2>"$tmp/batch.err" &
batch=$!
i=0
while [ -z "$live" ] && [ $i -lt 100 ]; do
	live=$(pgrep -P "$pane" -x luatop | head -1)
	[ -n "$live" ] || { [ -f "$tmp/live.rc" ] && break; sleep 0.1; }
	i=$((i + 1))
done
[ -n "$live" ] || die "the live view did not start ($(cat "$tmp/live.rc" 2>/dev/null)): $(cat "$tmp/live.err" 2>/dev/null)"
# screen2: line 2 of the live view (window, samples, lost share).
screen2() { tmx capture-pane -p -t soak 2>/dev/null | sed -n 2p; }
i=0
while ! screen2 | grep -q ' samples'; do
	[ -f "$tmp/live.rc" ] || [ $i -ge 200 ] && die "the live view shows no header: $(cat "$tmp/live.err" 2>/dev/null)"
	sleep 0.1
	i=$((i + 1))
done
running "$batch" || die "batch luatop exited at start: $(tail -5 "$tmp/batch.err")"
sleep 2	# past the start-up (tables, symbols)

# --- the soak: a row every $period s, the reload at $half s -----------------------
tck=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
vm() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }
# live_counts: "SAMPLES LOST%" from the live view's header line 2.
live_counts() {
	screen2 | awk -F '│|\\|' '{
		s = "-"; l = "-"
		for (i = 1; i <= NF; i++) {
			if ($i ~ /[0-9] samples/) { s = $i; gsub(/[^0-9]/, "", s) }
			if ($i ~ /lost/) { l = $i; gsub(/[^0-9.%]/, "", l) }
		}
		print s, l
	}'
}
crash=''
# alive: both luatops still run; else note which one is gone in $crash.
alive() {
	running "$live" || crash="${crash:+$crash; }live view (PID $live) gone at ${1}s, exit status $(cat "$tmp/live.rc" 2>/dev/null || echo ?): $(tail -3 "$tmp/live.err" 2>/dev/null)"
	if ! running "$batch"; then
		wait "$batch"
		_rc=$?
		crash="${crash:+$crash; }batch luatop (PID $batch) gone at ${1}s, exit status $_rc: $(tail -3 "$tmp/batch.err")"
		batch=''
	fi
	[ -z "$crash" ]
}
t0=$(date +%s) lc0=$(cpu "$live") bc0=$(cpu "$batch") r0=$(requests)
tp=$t0 lcp=$lc0 bcp=$bc0 rp=$r0
rows=$tmp/rows
: >"$rows"
# row EL: one line of the table (kB; CPU % of one core since the previous row).
row() {
	t=$(date +%s) lc=$(cpu "$live") bc=$(cpu "$batch") r=$(requests)
	dt=$((t - tp)); [ "$dt" -gt 0 ] || dt=1
	set -- "$1" $(live_counts)
	echo "$1 $(vm "$live" VmRSS) $(vm "$live" VmHWM) $lc $lcp $2 $3 $(vm "$batch" VmRSS) $(vm "$batch" VmHWM) $bc $bcp ${r:-0} ${rp:-0} $dt $tck" |
		awk '{	# row 0 is the baseline: no interval yet for the rates
			c = $1 ? sprintf("%.1f", 100 * ($4 - $5) / $15 / $14) : "-"
			b = $1 ? sprintf("%.1f", 100 * ($10 - $11) / $15 / $14) : "-"
			q = $1 ? sprintf("%.0f", ($12 - $13) / $14) : "-"
			printf "%6d %9d %9d %6s %11s %6s %9d %9d %6s %9s\n", $1, $2, $3, c, $6, $7,
				$8, $9, b, q }' >>"$rows"
	tail -1 "$rows" >&2
	tp=$t lcp=$lc bcp=$bc rp=$r
}
hdr=$(printf '%6s %9s %9s %6s %11s %6s %9s %9s %6s %9s' time live_rss live_peak cpu% \
	samples lost b_rss b_peak b_cpu% req/s)
echo "$hdr" >&2
row 0
reloaded='' next=$period
while :; do
	el=$(( $(date +%s) - t0 ))
	alive "$el" || break
	if [ "$el" -ge "$next" ] || [ "$el" -ge "$secs" ]; then
		row "$el"
		next=$((next + period))
	fi
	[ "$el" -ge "$secs" ] && break
	if [ -z "$reloaded" ] && [ "$el" -ge "$half" ]; then
		old=$wk
		ngx -s reload 2>>"$tmp/reload.log" || echo "soak: nginx -s reload failed: $(cat "$tmp/reload.log")" >&2
		i=0 new=''
		while [ $i -lt 100 ]; do	# the old workers gone, two new ones (at most 10 s)
			new=$(workers)
			left=0
			for p in $old; do running "$p" && left=1; done
			[ "$left" = 0 ] && [ "$(echo $new | wc -w)" -eq 2 ] && break
			sleep 0.1
			i=$((i + 1))
		done
		reloaded="reload at ${el}s: workers $old -> $new ($((i / 10)).$((i % 10)) s)"
		[ "$left" = 0 ] || reloaded="$reloaded, old workers still running"
		echo "soak: $reloaded" >&2
		wk=$new
	fi
	sleep 1
done
el=$(( $(date +%s) - t0 ))

# --- the end: alive?, then q for the live view, SIGINT for the batch run -----------
failed=$crash
live_peak=$(vm "$live" VmHWM) batch_peak=$(vm "$batch" VmHWM)
screen=$(tmx capture-pane -p -t soak 2>/dev/null | head -3)
if running "$live"; then
	tmx send-keys -t soak q
	i=0
	while [ ! -f "$tmp/live.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if [ ! -f "$tmp/live.rc" ]; then
		failed="${failed:+$failed; }live view hangs on q (10 s)"
		kill -9 "$live" 2>/dev/null
	elif [ "$(cat "$tmp/live.rc")" != 0 ]; then
		failed="${failed:+$failed; }live view exited $(cat "$tmp/live.rc") on q: $(tail -3 "$tmp/live.err")"
	fi
fi
live=''
if [ -n "$batch" ]; then
	kill -INT "$batch" 2>/dev/null
	if gone "$batch" 150; then
		wait "$batch"
		brc=$?
		[ "$brc" = 0 ] || failed="${failed:+$failed; }batch luatop exited $brc on SIGINT: $(tail -3 "$tmp/batch.err")"
	else
		failed="${failed:+$failed; }batch luatop hangs on SIGINT (15 s)"
		kill -9 "$batch" 2>/dev/null
	fi
	batch=''
fi
kill -INT "$load" 2>/dev/null
gone "$load" 50 || kill -9 "$load" 2>/dev/null
wait "$load" 2>/dev/null
load=''
# counts FILE: "SAMPLES LOST" from luatop's summary ("N samples of ..., M lost"), or "- -".
counts() {
	_c=$(sed -n 's/.* \([0-9][0-9]*\) samples of .*, \([0-9][0-9]*\) lost.*/\1 \2/p' "$1" 2>/dev/null | tail -1)
	echo "${_c:-- -}"
}
# share S L: " (P%)" of L lost in S + L.
share() { awk -v s="$1" -v l="$2" 'BEGIN { if (s + l > 0) printf " (%.2f%%)", 100 * l / (s + l) }'; }
set -- $(counts "$tmp/batch.err")
bs=$1 bl=$2
set -- $(counts "$tmp/live.err")
ls_=$1 ll=$2

echo
echo "luatop soak: $el s at $hz Hz on nginx (master + 2 workers, Lua handler), wrk -c$conns on loopback"
echo "live = luatop's live view in tmux (160x45, -d 1); b_ = the batch luatop (-o, -v); kB;"
echo "cpu% of one core over the row's interval; samples, lost = the live view's header"
echo "$hdr"
cat "$rows"
printf '%6s %9s %9s %6s %11s %6s %9s %9s %6s\n' end - "${live_peak:--}" - - - - "${batch_peak:--}" -
echo "batch run (-v summary): $bs samples, $bl lost$(share "$bs" "$bl")"
echo "live view (summary on q): $ls_ samples, $ll lost$(share "$ls_" "$ll")"
echo "${reloaded:-no reload (the run ended first)}"
grep -o 'Non-2xx.*\|Socket errors.*' "$tmp/wrk.log" | sed 's/^/wrk: /'
awk '/requests in/ { print "wrk:", $0 }' "$tmp/wrk.log" | sed 's/  */ /g'
grep -E '\[(alert|crit|emerg)\]' "$tmp/nginx/logs/error.log" | head -3 | sed 's/^/nginx: /'
grep -h 'PID [0-9]* exited' "$tmp/batch.err" | sed 's/^luatop: /batch luatop: /' | tr '\n' ' ' |
	sed 's/ $/\n/'
grep -ihE 'error|warn|cannot|fail[^b]' "$tmp/live.err" "$tmp/batch.err" 2>/dev/null | grep -v '^libbpf' |
	sort | uniq -c | head -5 | sed 's/^/luatop said: /'
# RSS growth: first half (first row to the last row before the reload) against the
# last half (that row to the last row); flat = the last half grows by less than
# max(1 MB, 2% of the midpoint RSS).
growth() {
	awk -v c="$1" -v h="$half" '{ t[NR] = $1; v[NR] = $c; if ($1 <= h) m = NR }
	END {
		if (NR < 2) { print "too few rows"; exit }
		if (!m || m == NR) m = int((NR + 1) / 2)
		a = v[m] - v[1]; b = v[NR] - v[m]; lim = v[m] * 0.02; if (lim < 1024) lim = 1024
		printf "%+d kB (%ds-%ds) then %+d kB (%ds-%ds): %s", a, t[1], t[m], b, t[m], t[NR],
			b <= lim ? "flat" : "GROWING"
	}' "$rows"
}
verdict=$([ -n "$failed" ] && echo "FAIL: $failed" || echo "no crash")
echo "verdict: $verdict; RSS live view $(growth 2), batch $(growth 7)"
if [ -n "$failed" ]; then
	echo "last screen:"; echo "$screen" | sed 's/^/  | /'
	echo "live view stderr:"; tail -5 "$tmp/live.err" 2>/dev/null | sed 's/^/  | /'
	echo "batch stderr:"; grep -v '^libbpf' "$tmp/batch.err" 2>/dev/null | tail -8 | sed 's/^/  | /'
	exit 1
fi
exit 0
