# --children on an nginx master (two workers, each with its own listening socket,
# the Lua handler of t_lua_nginx.sh, under wrk with 16 connections: both get some):
# the workers are profiled, each stack rooted at its [PID nginx] with
# the handler's Lua frames; a reload (SIGHUP) midway forks new workers, and they
# are profiled too: a worker forked after luatop started has samples.
command -v wrk >/dev/null 2>&1 || fail "wrk is not installed"
nginx_up 2 "$TOP/tests/workloads/nginx/luatop_app.lua"
wrk -t2 -c16 -d60s --timeout 2s "http://127.0.0.1:$port/" >"$TMP/wrk.log" 2>&1 &
load=$!
PIDS="$PIDS $load"
"$LUATOP" -F 499 -p "$master" --children --duration 6 -o "$TMP/ch.folded" 2>"$TMP/err" &
lt=$!
sleep 3
kill -HUP "$master"	# new workers, the old ones finish and exit
wait "$lt"
rc=$?
after=$(pgrep -P "$master" | tr '\n' ' ')
kill -INT "$load" 2>/dev/null
wait "$load"
stop_nginx
[ "$rc" = 0 ] || fail "luatop failed: $(cat "$TMP/err")"
roots=$(awk -F';' '{ n = $NF; sub(/.* /, "", n); split($1, r, " "); sub(/^\[/, "", r[1]);
	c[r[1]] += n } END { for (p in c) print p, c[p] }' "$TMP/ch.folded" | sort -n)
echo "    workers at start: $workers; after the reload: $after; samples by root:" \
	"$(echo "$roots" | tr '\n' ',')" >&2
for w in $workers; do
	n=$(echo "$roots" | awk -v p="$w" '$1 == p { print $2 }')
	# 499 Hz x 3 s of a worker sharing 2 CPUs with another and wrk: hundreds.
	[ "${n:-0}" -ge 50 ] || fail "worker $w: ${n:-0} samples"
	grep -q "^\\[$w nginx\\];.*handler (luatop_app\\.lua:[0-9]*)" "$TMP/ch.folded" ||
		fail "worker $w: no stack with the Lua handler"
done
late=0
for w in $after; do
	case " $workers " in *" $w "*) continue ;; esac
	n=$(echo "$roots" | awk -v p="$w" '$1 == p { print $2 }')
	late=$((late + ${n:-0}))
done
[ "$late" -ge 20 ] || fail "the workers forked by the reload ($after) have $late samples"
