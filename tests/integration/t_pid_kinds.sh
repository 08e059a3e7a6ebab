# -p with what is not a running user process: a thread stands for its process,
# a zombie and a kernel thread are refused with the reason; a PID twice is one.

# A thread ID: its process is profiled, both threads' functions in the profile.
"$WL/twothreads" 20 >"$TMP/tid" &
pid=$!
PIDS="$PIDS $pid"
i=0
while [ ! -s "$TMP/tid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
tid=$(cat "$TMP/tid")
[ -n "$tid" ] && [ "$tid" != "$pid" ] || fail "no worker thread"
"$LUATOP" -p "$tid" --duration 2 -o "$TMP/t.folded" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
grep -q "$tid is a thread of PID $pid (twothreads): profiling the process" "$TMP/err" ||
	fail "no thread notice: $(cat "$TMP/err")"
[ "$(folded_has_count "$TMP/t.folded" spin_main)" -gt 0 ] || fail "main thread missing"
[ "$(folded_has_count "$TMP/t.folded" spin_worker)" -gt 0 ] || fail "worker thread missing"

# The same PID twice (and a process with its own thread) is one target.
"$LUATOP" -p "$pid,$pid,$tid" --duration 1 -o "$TMP/d.folded" 2>"$TMP/err" || fail "exit $?"
grep -q "samples of PID $pid (twothreads)" "$TMP/err" || fail "not one target: $(cat "$TMP/err")"

# A zombie: its parent (this sh -c) does not reap it while it sleeps.
sh -c 'sleep 0.1 & exec sleep 30' &
parent=$!
PIDS="$PIDS $parent"
i=0
while ! { z=$(pgrep -P "$parent") && [ "$(ps -o stat= -p "$z" | cut -c1)" = Z ]; } && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
[ "$(ps -o stat= -p "$z" | cut -c1)" = Z ] || fail "no zombie"
expect_error 1 "^luatop: PID $z has exited \\(a zombie" "$LUATOP" -p "$z" --duration 1 -o "$TMP/z"

# A kernel thread (PF_KTHREAD in /proc/PID/stat's flags), when one is visible.
for d in /proc/[0-9]*; do
	f=$(sed 's/.*) //' "$d/stat" 2>/dev/null | cut -d' ' -f7)
	[ -n "$f" ] && [ $(( f & 0x200000 )) != 0 ] && { kt=${d#/proc/}; break; }
done
if [ -n "${kt:-}" ]; then
	expect_error 1 "^luatop: PID $kt is a kernel thread" "$LUATOP" -p "$kt" --duration 1 -o "$TMP/k"
else
	echo "    no kernel thread visible: that case not checked" >&2
fi
exit 0
