# The live view on a JIT-compiled loop that inlines two leaf functions
# (tests/workloads/inline.lua): the inlined frames are drawn under the loop,
# marked » before their name, and the footer names the trace they ran in and
# that they were inlined; in ASCII the marker is '>'. 220 columns: the header's
# second line holds the fallback share with its reason (up to 41 characters)
# and, last, the traces' share this test reads.
. "$TOP/tests/integration/tmux.sh"

luajit=$(command -v luajit || echo "$TOP/.deps/luajit-upstream/usr/bin/luajit")
[ -x "$luajit" ] || { echo "    no luajit" >&2; exit 77; }

check() {	# check MARKER
	tui_wait 'leaf_b' 40
	tui_wait '[0-9]{3} samples' 30
	tui_wait "$1leaf_b" 20
	tui_wait "$1leaf_a"
	tui_wait_line 2 "traces (9[0-9]|100)\\.[0-9]% mapped"
	tui_keys / l e a f _ b Enter
	tui_wait '^ . leaf_b .*\[Lua, JIT( [0-9]+%)? \(trace [0-9]+, inlined\)' 10
	# From the root (r), the search goes to the first match in reading order.
	# Anchored: a kernel stack may hold exit_to_user_mode_loop (a sample at the
	# exec can: its pipe to luatop closes there), in a stack of its own a few
	# rows from the top, drawn while the profile is young, which /loop/ would
	# select first; once that box is too narrow to draw, the selection goes up
	# to its nearest drawn ancestor, the root: the likely cause of the root
	# left selected in a CI run on 2026-12-06 (not reproduced).
	tui_keys r /
	tui_type '^loop'
	tui_keys Enter
	tui_wait '^ . loop .*\[Lua, JIT( [0-9]+%)? \(trace [0-9]+\)' 10
	tui_keys q
	rc=$(tui_exit 20)
	[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
}

tui_start 220 45 "$LUATOP" -d 0.3 -- "$luajit" "$TOP/tests/workloads/inline.lua" 120
check '»'
tmx kill-server 2>/dev/null
TUI_LANG=C
tui_start 220 45 "$LUATOP" -d 0.3 -- "$luajit" "$TOP/tests/workloads/inline.lua" 120
check '>'
exit 0
