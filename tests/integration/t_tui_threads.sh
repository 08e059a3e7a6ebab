# The thread list (T) on a live two-thread program of our own: the C host of
# t_lua_threads.sh (tests/workloads/luahost/threads.c, OpenResty's libluajit),
# each thread burning CPU in its own Lua function (work_a, work_b). T lists both
# threads; a (none), Space on the first and Enter show that thread only: the
# counts start again with the SOME THREADS badge, and from then on the icicle has
# one of work_a and work_b, not both. --tid does the same from the command line.
. "$TOP/tests/integration/tmux.sh"

cc -O2 -g -Wall -I/usr/include/luajit-2.1 -o "$TMP/threads" \
	"$TOP/tests/workloads/luahost/threads.c" -lluajit-5.1 -lpthread >"$TMP/cc.log" 2>&1 ||
	fail "cannot build the threaded host: $(cat "$TMP/cc.log")"
start "$TMP/threads" 120
pid=$!
tui_start 200 45 "$LUATOP" -F 499 -d 0.3 -p "$pid"
tui_wait 'work_a \(threads:2\)' 40
tui_wait 'work_b \(threads:2\)'
tui_keys T
tui_wait 'show +TID +PID +SHARE'
tui_wait "\\[x\\] +[0-9]+ +$pid "
n=$(tui_screen | grep -cE "\\[x\\] +[0-9]+ +$pid ")
[ "$n" -ge 2 ] || fail "the thread list shows $n threads of $pid, want 2 or more"
tui_keys a
tui_wait "\\[ \\] +[0-9]+ +$pid "
tui_keys Space
tui_keys Enter
tui_wait ' SOME THREADS '
tui_wait 'showing 1 thread'
tui_wait 'work_(a|b) \(threads:2\)'
sleep 1
screen=$(tui_screen)
a=$(echo "$screen" | grep -c 'work_a (threads:2)')
b=$(echo "$screen" | grep -c 'work_b (threads:2)')
echo "    after showing one thread: work_a on $a lines, work_b on $b" >&2
[ $((a > 0)) -ne $((b > 0)) ] || fail "want one of work_a and work_b, not both: $screen"
tui_keys q
[ "$(tui_exit)" = 0 ] || fail "luatop did not exit 0"

# --tid: the batch profile of one thread has that thread's function only.
tid=$(ls "/proc/$pid/task" | sort -n | sed -n 2p)
"$LUATOP" -F 499 -p "$pid" --tid "$tid" --duration 2 -o "$TMP/t.folded" 2>"$TMP/err" ||
	fail "luatop --tid failed: $(cat "$TMP/err")"
a=$(folded_has_count "$TMP/t.folded" 'work_a [(]threads:2[)]')
b=$(folded_has_count "$TMP/t.folded" 'work_b [(]threads:2[)]')
echo "    --tid $tid: work_a $a, work_b $b samples" >&2
[ $((a > 0)) -ne $((b > 0)) ] || fail "--tid $tid: want one of work_a ($a) and work_b ($b)"
