# Several LuaJIT states in one process, one per thread (both flavours): each thread's
# samples find their own global_State and show their own Lua function, merged.
for flavour in $(lj_flavours); do
	case $flavour in
	openresty) cc -O2 -g -Wall -I/usr/include/luajit-2.1 -o "$TMP/threads" \
		"$TOP/tests/workloads/luahost/threads.c" -lluajit-5.1 -lpthread ;;
	upstream) cc -O2 -g -Wall -I"$LJ_UPSTREAM/usr/include/luajit-2.1" -o "$TMP/threads" \
		"$TOP/tests/workloads/luahost/threads.c" \
		"$LJ_UPSTREAM/usr/lib/x86_64-linux-gnu/libluajit-5.1.a" -lm -ldl -lpthread ;;
	esac >"$TMP/cc.log" 2>&1 || fail "cannot build the threaded host: $(cat "$TMP/cc.log")"
	start "$TMP/threads" 30
	pid=$!
	sleep 0.5
	"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/t.folded" 2>"$TMP/err" ||
		fail "luatop failed: $(cat "$TMP/err")"
	kill "$pid"
	total=$(folded_total "$TMP/t.folded")
	# work_X tail-calls spin: the frame is spin's, named by work_X's call site.
	a=$(folded_has_count "$TMP/t.folded" '(^|;)run;lua_pcall;work_a:0;work_a [(]threads:2[)]')
	b=$(folded_has_count "$TMP/t.folded" '(^|;)run;lua_pcall;work_b:0;work_b [(]threads:2[)]')
	rate=$(merge_rate "$TMP/err")
	echo "    $flavour: samples=$total work_a=$a work_b=$b merged=${rate:-?}%" >&2
	# 499 Hz x 3 s x 1/3 of a CPU (both threads together) = 499 samples; 100
	# leaves a wide margin.
	[ "$total" -ge 100 ] || fail "too few samples: $total"
	[ "$(pct "$a" "$total")" -ge 25 ] && [ "$(pct "$b" "$total")" -ge 25 ] || {
		awk '{ print $NF "\t" $0 }' "$TMP/t.folded" | sort -rn | head -4 >&2
		fail "$flavour: the two threads' Lua functions are not both there"
	}
	[ "${rate:-0}" -ge 95 ] || fail "$flavour: fewer than 95% merged"
done
exit 0
