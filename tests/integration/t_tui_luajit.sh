# The live view on a LuaJIT program (scripts/demo.lua started by luatop): it runs,
# counts samples, draws the program's merged stacks (its Lua functions in the icicle),
# m flips to the raw stacks (the Lua frames as their own block after [lua]) and back,
# and q stops the program and exits 0.
. "$TOP/tests/integration/tmux.sh"

luajit=$(command -v luajit || echo "$TOP/.deps/luajit-upstream/usr/bin/luajit")
[ -x "$luajit" ] || { echo "    no luajit" >&2; exit 77; }
tui_start 160 45 "$LUATOP" -d 0.3 -- "$luajit" "$TOP/scripts/demo.lua" 120
tui_wait 'PID [0-9]+ \(luajit\)' 40
tui_wait ' LIVE '
tui_wait '[0-9]{3} samples' 30
tui_wait '(^| )(main|_start|lua_pcall|luajit[^ ]*)( |$)'
tui_wait 'handle' 30
tui_wait_line 1 '│ LuaJIT 2\.1[^│]* GC64 │' 20	# learnt once the program loaded it
! tui_line 1 | grep -q 'LuaJIT LuaJIT' || fail "the header repeats LuaJIT: $(tui_line 1)"
tui_wait ' MERGED '
tui_keys m
tui_wait ' RAW '
tui_wait '\[lua\]' 20
tui_keys m
tui_wait ' MERGED '
pid=$(tui_line 1 | sed -n 's/.*PID \([0-9]*\) (luajit).*/\1/p')
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || fail "the LuaJIT program is not running"
tui_keys q
rc=$(tui_exit 20)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
tui_restored
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$pid" 2>/dev/null && fail "the program luatop started is still running"
exit 0
