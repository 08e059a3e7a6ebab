# nginx with libnginx-mod-http-lua (OpenResty's LuaJIT): one master, one worker, on
# 127.0.0.1, a content_by_lua_block calling tests/workloads/nginx/luatop_app.lua
# (handler -> render -> checksum). Under a bounded local load (wrk, loopback), the
# worker's samples show the handler's Lua functions: >= 50% have handler and render
# in their Lua stack, >= 30% checksum, and >= 95% of the samples with Lua frames
# merge. If the lua module does not load, the test fails with nginx's error.
MODS=$NGL_MODS
command -v wrk >/dev/null 2>&1 || fail "wrk is not installed"
nginx_up 1 "$TOP/tests/workloads/nginx/luatop_app.lua"
worker=$workers

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
