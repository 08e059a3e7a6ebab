# One node per function: tests/workloads/mixed.lua runs one call path, step ->
# work, JIT-compiled and interpreted by turns. The live view shows work once (not
# one node per VM state), the footer gives the split ("JIT N%, interpreted M%"),
# and the snapshot written with s has the same nodes: every stack once, work under
# step on one path.
. "$TOP/tests/integration/tmux.sh"

luajit=$(command -v luajit || echo "$TOP/.deps/luajit-upstream/usr/bin/luajit")
[ -x "$luajit" ] || { echo "    no luajit" >&2; exit 77; }

# --mark-fallback: the snapshot roots the stacks that could not be merged at
# [fallback] (native frames then Lua frames, a shape of their own: before
# 2026-12-06 the trace recorder's samples under work fell back, one run in ten
# had one; start-up samples still can); the check below is about the merged ones.
tui_start 160 45 "$LUATOP" -d 0.3 --mark-fallback -- "$luajit" "$TOP/tests/workloads/mixed.lua" 120
tui_wait 'work \(mixed' 40
tui_wait '[0-9]{3} samples' 30
# Both states are in the profile once work's footer gives the split (not after a
# fixed sleep); then the icicle, above the footer's selection line and crumbs,
# must still draw work once. Anchored: kernel frames such as task_work_run (a
# sample at the exec can hold it, in a stack of its own near the top) match
# /work/ too and come first in reading order.
tui_type '/^work'
tui_keys Enter
tui_wait '^ . work .*\[Lua, JIT [0-9]+%.*interpreted [0-9]+%' 10
n=$(tui_screen | sed '/^ . work (mixed[.]lua:[0-9]*) \[Lua/,$d' | grep -o 'work (mixed[.]lua:[0-9]*)' | wc -l)
[ "$n" = 1 ] || { tui_screen >&2; fail "work is drawn $n times, want once"; }
tui_keys z
tui_wait 'FROZEN'
tui_keys s
tui_wait "saved luatop-[0-9]+-[0-9]{8}-[0-9]{6}\\.folded" 10
snap=$(ls "$TUI_CWD"/luatop-*.folded | head -1)
# Complete stacks (rooted at _start): in the first milliseconds a sample can run in
# code whose tables are still being loaded, and its stack is cut short (a separate
# matter, see docs/RELIABILITY.md); what is checked here is one node per function.
paths=$(sed 's/ [0-9]*$//' "$snap" | grep -c '^_start;.*;step (mixed[.]lua:[0-9]*);work (mixed[.]lua:[0-9]*)$')
dups=$(sed 's/ [0-9]*$//' "$snap" | sort | uniq -d | wc -l)
fb=$(grep -c '^\[fallback\];' "$snap")
echo "    on screen: work x$n; snapshot: $paths stack(s) ending step;work, $dups repeated, $fb fallback" >&2
[ "$paths" = 1 ] || { grep ";step (mixed[.]lua:[0-9]*);work (mixed[.]lua:[0-9]*) [0-9]*$" "$snap" >&2; fail "the snapshot has $paths stacks ending in step;work, want 1"; }
[ "$dups" = 0 ] || fail "the snapshot repeats $dups stacks"
tui_keys q
rc=$(tui_exit 20)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
exit 0
