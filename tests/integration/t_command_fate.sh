# luatop -- COMMAND: the command runs as it would without luatop (signal
# dispositions and mask), its end is reported, and luatop's exit status is the
# command's; when luatop dies, the command does not run on.

"$LUATOP" -o "$TMP/o" -- sh -c 'exit 3' 2>"$TMP/err"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, want the command's 3"
grep -q 'the command (PID [0-9]*) exited with status 3' "$TMP/err" || fail "no status: $(cat "$TMP/err")"

"$LUATOP" -o "$TMP/o" -- sh -c 'kill -SEGV $$' 2>"$TMP/err"
rc=$?
[ "$rc" = 139 ] || fail "exit $rc, want 128+11"
grep -q 'was killed by signal 11' "$TMP/err" || fail "no signal: $(cat "$TMP/err")"

"$LUATOP" -o "$TMP/o" --duration 1 -- sleep 30 2>"$TMP/err" || fail "luatop stopping its command: exit $?"
grep -q 'was stopped by luatop' "$TMP/err" || fail "no stop notice: $(cat "$TMP/err")"

# SIGPIPE at its default: yes dies quietly when head has its line.
"$LUATOP" -o "$TMP/o" -- sh -c 'yes | head -1 >/dev/null' 2>"$TMP/err" || fail "exit $?"
! grep -q 'Broken pipe' "$TMP/err" || fail "SIGPIPE ignored in the command: $(cat "$TMP/err")"
# The same ignored and blocked signals as without luatop (here: SIGUSR1 ignored
# by the shell that starts both).
sh -c "trap '' USR1
	grep -E '^Sig(Ign|Blk)' /proc/self/status > '$TMP/want'
	exec '$LUATOP' -o '$TMP/o' -- grep -E '^Sig(Ign|Blk)' /proc/self/status > '$TMP/sig'" \
	2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
grep -q '^SigIgn:.*[1-9a-f]' "$TMP/want" || fail "SIGUSR1 not ignored in the baseline"
cmp -s "$TMP/sig" "$TMP/want" || fail "signals differ: $(cat "$TMP/sig") vs $(cat "$TMP/want")"

# luatop killed outright: its command gets SIGTERM (the parent-death signal).
"$LUATOP" -o "$TMP/o" -- sleep 300 2>/dev/null &
lt=$!
i=0
while ! child=$(pgrep -P "$lt" -x sleep) && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -n "$child" ] || fail "the command did not start"
kill -9 "$lt"
wait "$lt" 2>/dev/null
i=0
while kill -0 "$child" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$child" 2>/dev/null && { kill "$child"; fail "the command outlived luatop"; }
exit 0
