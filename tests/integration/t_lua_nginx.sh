# nginx with libnginx-mod-http-lua (OpenResty's LuaJIT): one master, one worker, on
# 127.0.0.1, a content_by_lua_block calling tests/workloads/nginx/luatop_app.lua
# (handler -> render -> checksum). Under a bounded local load (wrk, loopback), the
# worker's samples show the handler's Lua functions: >= 50% have handler and render
# in their Lua stack, >= 30% checksum, and >= 95% of the samples with Lua frames
# merge. If the lua module does not load, the test fails with nginx's error.
MODS=/usr/lib/nginx/modules
command -v nginx >/dev/null 2>&1 || fail "nginx is not installed"
command -v wrk >/dev/null 2>&1 || fail "wrk is not installed"
[ -r "$MODS/ngx_http_lua_module.so" ] || fail "no $MODS/ngx_http_lua_module.so (libnginx-mod-http-lua)"
port=$(free_port) || fail "no free TCP port"
mkdir -p "$TMP/nginx/lua" "$TMP/nginx/logs"
cp "$TOP/tests/workloads/nginx/luatop_app.lua" "$TMP/nginx/lua/"
# The worker runs as nginx's default unprivileged user: it must read the module.
chmod 755 "$TMP" "$TMP/nginx" "$TMP/nginx/lua"
chmod 644 "$TMP/nginx/lua/luatop_app.lua"
# The lua module needs the NDK's symbols: load ndk_http_module first when present.
ndk=
[ -r "$MODS/ndk_http_module.so" ] && ndk="load_module $MODS/ndk_http_module.so;"
cat >"$TMP/nginx/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes 1;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/logs/error.log info;
$ndk
load_module $MODS/ngx_http_lua_module.so;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $TMP/nginx/body;
	proxy_temp_path $TMP/nginx/proxy;
	fastcgi_temp_path $TMP/nginx/fastcgi;
	uwsgi_temp_path $TMP/nginx/uwsgi;
	scgi_temp_path $TMP/nginx/scgi;
	lua_package_path "$TMP/nginx/lua/?.lua;;";
	server {
		listen 127.0.0.1:$port;
		location / {
			content_by_lua_block { require("luatop_app").handler() }
		}
	}
}
CONF
ngx() {
	nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/logs/error.log" "$@"
}
ngx -t >"$TMP/nginx-t.log" 2>&1 || fail "nginx rejects the configuration: $(cat "$TMP/nginx-t.log")"

start nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/logs/error.log"
master=$!
# stop_nginx: TERM the master, wait for it (at most 5 s, then KILL).
stop_nginx() {
	kill "$master" 2>/dev/null
	i=0
	while kill -0 "$master" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$master" 2>/dev/null
	wait "$master" 2>/dev/null
}
# Up when the worker exists and a request gets the handler's answer (at most 10 s).
worker='' body='' deadline=$(($(date +%s) + 10))
while [ "$(date +%s)" -lt "$deadline" ]; do
	kill -0 "$master" 2>/dev/null || fail "nginx exited: $(tail -5 "$TMP/nginx/logs/error.log")"
	worker=$(pgrep -P "$master" | head -1)
	[ -n "$worker" ] && body=$(curl -s -m 2 "http://127.0.0.1:$port/") && [ -n "$body" ] && break
	sleep 0.1
done
[ -n "$worker" ] && [ -n "$body" ] || {
	stop_nginx
	fail "nginx does not answer on port $port: $(tail -5 "$TMP/nginx/logs/error.log")"
}
case $body in
[0-9]*' '[0-9]*) ;;
*) stop_nginx; fail "unexpected answer from the Lua handler: $body
$(grep -A12 -E '\[(error|alert|crit)\]' "$TMP/nginx/logs/error.log" | head -14)" ;;
esac

# The load runs until both luatops are done (SIGINT: wrk stops and reports), so
# both windows lie inside it however long luatop takes to attach; -d60s is only a
# bound.
wrk -t1 -c2 -d60s --timeout 2s "http://127.0.0.1:$port/" >"$TMP/wrk.log" 2>&1 &
load=$!
PIDS="$PIDS $load"
sleep 0.5
"$LUATOP" -F 499 -p "$worker" --duration 4 -o "$TMP/fn.folded" 2>"$TMP/err.fn" &
fnpid=$!
"$LUATOP" $LUA_VIEW -F 499 -p "$worker" --duration 4 -o "$TMP/ngx.folded" 2>"$TMP/err"
rc=$?
wait "$fnpid" || fail "luatop (merged) failed: $(cat "$TMP/err.fn")"
ljlib=$(sed -n 's|.* \(/[^ ]*libluajit[^ ]*\)$|\1|p' "/proc/$worker/maps" 2>/dev/null | head -1)
kill -INT "$load" 2>/dev/null
wait "$load"
stop_nginx
[ "$rc" = 0 ] || fail "luatop failed: $(cat "$TMP/err")"
requests=$(awk '/requests in/ { print $1 }' "$TMP/wrk.log")
echo "    wrk: ${requests:-0} requests$(grep -o 'Non-2xx.*' "$TMP/wrk.log" | sed 's/^/, /')" >&2
# wrk ran >= 4.5 s, two requests always in flight, a few ms of CPU each: at 1/3
# of a CPU hundreds of requests; 10 only says the load was served.
[ "${requests:-0}" -ge 10 ] || fail "too few requests served: $(cat "$TMP/wrk.log")"
grep -q 'Non-2xx' "$TMP/wrk.log" && fail "failed requests: $(grep -E 'lua|error' "$TMP/nginx/logs/error.log" | tail -3)"

lua_folded "$TMP/ngx.folded" >"$TMP/ngx.lua"
total=$(folded_total "$TMP/ngx.folded")
fn() { echo "(^|;)([^;]*[.:])?$1 \\(luatop_app\\.lua:[0-9]+\\)(;|\$)"; }
handler=$(folded_has_count "$TMP/ngx.lua" "$(fn handler)")
render=$(folded_has_count "$TMP/ngx.lua" "$(fn render)")
checksum=$(folded_has_count "$TMP/ngx.lua" "$(fn checksum)")
lua=$(folded_total "$TMP/ngx.lua")
echo "    worker $worker: samples=$total with-Lua=$lua handler=$handler render=$render checksum=$checksum" >&2
sed 's/^/    /' "$TMP/err" >&2
# The worker is busy all the while (a request always waits): 499 Hz x 4 s x 1/3
# of a CPU = 665 samples; 200 leaves a margin.
[ "$total" -ge 200 ] || fail "too few worker samples: $total"
if [ "$(pct "$handler" "$total")" -lt 50 ] || [ "$(pct "$render" "$total")" -lt 50 ] ||
	[ "$(pct "$checksum" "$total")" -lt 30 ]; then
	awk '{ print "    " $NF "\t" $0 }' "$TMP/ngx.lua" | sort -k1,1rn | head -6 | cut -c1-400 >&2
	fail "the content handler's Lua functions are missing from the worker's samples"
fi
# Unnamed code (stripped nginx, module and libluajit) is named by its function (in
# the default view; --raw keeps exact addresses): a second luatop sampled alongside.
for file in "$(command -v nginx)" "$MODS/ngx_http_lua_module.so" "$ljlib"; do
	[ -n "$file" ] || continue
	bad=$(not_fde_starts "$TMP/fn.folded" "$(basename "$file")" "$file")
	[ "$bad" -eq 0 ] || fail "$bad unnamed frames of $(basename "$file") are not FDE starts"
done
# Merging (the stats cover both views): >= 95% of worker samples with Lua frames merge.
rate=$(merge_rate "$TMP/err")
echo "    merged: ${rate:-?}% of worker samples with Lua frames" >&2
[ "${rate:-0}" -ge 95 ] || fail "fewer than 95% of worker samples with Lua frames merge"
exit 0
