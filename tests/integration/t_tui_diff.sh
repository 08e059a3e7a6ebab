# The live diff on a program of our own whose hot function changes halfway
# (tests/workloads/shift.lua: before_hot, then after_hot, steady all along): b
# at the change takes the baseline; a few seconds later after_hot shows as grown
# (footer "diff +", marked ▲) and before_hot as shrunk ("diff -", ▼). The same
# signs offline: `luatop -i after.folded --diff before.folded` of two batch
# profiles, before.folded of the first half, after.folded from then until the
# live part is done, at least 3 s past the change (a frame that is gone
# altogether has no box to show its change on). The change comes after 6 s of
# the workload's CPU time, which on a busy machine is more than 6 s of wall
# time: so the second profile ends with SIGINT once the change is seen, not
# after a fixed --duration.
. "$TOP/tests/integration/tmux.sh"

start luajit "$TOP/tests/workloads/shift.lua" 6 "$TMP/changed" 60
pid=$!
"$LUATOP" -F 499 -p "$pid" --duration 2 -o "$TMP/before.folded" 2>"$TMP/err" ||
	fail "luatop (before) failed: $(cat "$TMP/err")"
"$LUATOP" -F 499 -p "$pid" --duration 120 -o "$TMP/after.folded" 2>"$TMP/err.after" &
after=$!
PIDS="$PIDS $after"	# ended by the cleanup if the live part fails
tui_start 200 45 "$LUATOP" -F 499 -d 0.3 -p "$pid"
tui_wait 'before_hot \(shift\.lua:[0-9]+\)' 40
i=0
while [ ! -e "$TMP/changed" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$TMP/changed" ] || fail "the workload did not change its hot function"
tui_keys b
tui_wait ' DIFF( |$)'
tui_wait 'after_hot \(shift\.lua:[0-9]+\)'
sleep 3		# after_hot's share grows from 0 towards 80%
tui_type '/^after_hot'
tui_keys Enter
tui_wait '^ . after_hot \(shift\.lua:[0-9]+\) \[Lua.*diff \+[0-9]'
tui_wait 'after_hot'
tui_type '/^before_hot'
tui_keys Enter
tui_wait '^ . before_hot \(shift\.lua:[0-9]+\) \[Lua.*diff -[0-9]'
tui_screen | grep -q '▲after_hot\|▲.*after_hot' || fail "after_hot is not marked ▲: $(tui_screen | head -20)"
tui_keys b
tui_wait 'diff off'
tui_keys q
[ "$(tui_exit)" = 0 ] || fail "luatop did not exit 0"
tmx kill-session -t t
kill -INT "$after"
wait "$after" || fail "luatop (after) failed: $(cat "$TMP/err.after")"
kill "$pid"

tui_start 200 45 "$LUATOP" -i "$TMP/after.folded" --diff "$TMP/before.folded"
tui_wait ' DIFF( |$)' 20
tui_type '/^after_hot'
tui_keys Enter
tui_wait '^ . after_hot \(shift\.lua:[0-9]+\) \[.*diff \+[0-9]'
tui_type '/^before_hot'
tui_keys Enter
tui_wait '^ . before_hot \(shift\.lua:[0-9]+\) \[.*diff -[0-9]'
tui_keys q
[ "$(tui_exit)" = 0 ] || fail "luatop -i --diff did not exit 0"
