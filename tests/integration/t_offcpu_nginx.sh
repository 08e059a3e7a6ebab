# Off-CPU time of an nginx worker (libnginx-mod-http-lua, OpenResty's LuaJIT)
# whose Lua handler blocks: tests/workloads/nginx/slow_app.lua sleeps 20 ms per
# request through the FFI (handler -> pause -> usleep). A client asks every 50 ms
# or so, one request at a time, so the worker is blocked in the handler for a
# fifth to a quarter of the time and idle in epoll_wait for the rest.
# luatop -e offcpu on the worker for 4 s: the handler's Lua frames carry the
# blocked time (handler -> pause -> usleep -> ... -> kernel: 90% of usleep's
# time, and 20 ms per request sampled, less a tenth), and the idle event-loop waits are
# rooted at [idle] (at least a second of them), with no Lua frame under [idle]
# and no epoll_wait outside it.
nginx_up 1 "$TOP/tests/workloads/nginx/slow_app.lua"
worker=$workers

# The client: one request at a time, each ends in a line of $TMP/served.
: >"$TMP/served"
( while :; do
	curl -s -m 2 "http://127.0.0.1:$port/" >>"$TMP/served" || exit 0
	sleep 0.05
done ) &
client=$!
PIDS="$PIDS $client"
sleep 0.5
before=$(wc -l <"$TMP/served") t0=$(date +%s%N)
"$LUATOP" -e offcpu -p "$worker" --duration 4 -o "$TMP/off.folded" 2>"$TMP/err"
rc=$?
after=$(wc -l <"$TMP/served") t1=$(date +%s%N)
kill "$client" 2>/dev/null
stop_nginx
[ "$rc" = 0 ] || fail "luatop failed: $(cat "$TMP/err")"
requests=$((after - before))
# The requests of the 4 s sampled, at the rate of the whole run (luatop takes a
# second or two to load nginx's tables first).
window=$((requests * 4000 / ((t1 - t0) / 1000000)))
fn() { echo "([^;]*[.:])?$1 \\(slow_app\\.lua:[0-9]+\\)"; }
total=$(folded_total "$TMP/off.folded")
blocked=$(folded_has_count "$TMP/off.folded" \
	";$(fn handler);$(fn pause);([^;]*;)*usleep;([^;]*;)*[^;]*_\\[k\\]")
usleep=$(folded_has_count "$TMP/off.folded" ';usleep(;|$)')
idle=$(folded_has_count "$TMP/off.folded" '^\[idle\];')
idle_epoll=$(folded_has_count "$TMP/off.folded" '^\[idle\];([^;]*;)*epoll_wait(;|$)')
idle_lua=$(folded_has_count "$TMP/off.folded" '^\[idle\];.*\([^;]*:[0-9]+\)')
epoll_out=$(grep -v '^\[idle\];' "$TMP/off.folded" | folded_has_count /dev/stdin ';epoll_wait(;|$)')
echo "    worker $worker: $requests requests, $window sampled, off-CPU $((total / 1000)) ms: handler" \
	"$((blocked / 1000)) ms (usleep $((usleep / 1000)) ms), [idle] $((idle / 1000)) ms" \
	"(epoll_wait $((idle_epoll / 1000)) ms, with Lua $idle_lua us), epoll_wait outside" \
	"[idle] $epoll_out us" >&2
show() {
	awk '{ print "    " $NF "\t" $0 }' "$TMP/off.folded" | sort -k1,1rn | head -5 | cut -c1-900 >&2
	fail "$1"
}
# 4 s at one request per 50-100 ms: 40 or more; 10 only says the client ran.
[ "$requests" -ge 10 ] || fail "too few requests: $requests"
[ "$blocked" -ge $((window * 18000)) ] ||
	show "the handler's Lua frames carry $blocked us, want 18 ms per request ($window)"
[ "$blocked" -ge $((usleep * 9 / 10)) ] || show "usleep's time is not under the handler"
[ "$idle" -ge 1000000 ] && [ "$idle_epoll" -ge $((idle * 9 / 10)) ] ||
	show "the idle epoll_wait is not rooted at [idle]"
[ "$idle_lua" = 0 ] || show "Lua frames under [idle]"
[ "$epoll_out" = 0 ] || show "epoll_wait outside [idle]"
