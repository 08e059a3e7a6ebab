# The parsing behind the t_lua_* tests, on hand-written folded files and tracebacks
# (tests/fixtures/lua): where the Lua frames of a sample are (lib.sh: lua_stack_of_line,
# lua_folded), and how a debug.traceback maps to luatop's Lua frames
# (lua_traceback.awk), at function and at line granularity. No BPF. The folded
# fixtures are *.stacks: .gitignore leaves *.folded out.
FX=$TOP/tests/fixtures/lua

# eq WHAT GOT WANT
eq() {
	[ "$2" = "$3" ] || fail "$1: got [$2], want [$3]"
}

eq "raw line" "$(lua_stack_of_line 'a;b_[k];[lua];x (s.lua:1);y (s.lua:7) 12')" "x (s.lua:1);y (s.lua:7)"
eq "fallback line" "$(lua_stack_of_line 'a;b;[lua];x (s.lua:1);s.lua:9;c_[k];d_[k] 3')" "x (s.lua:1);s.lua:9"
eq "native line" "$(lua_stack_of_line '_start;__libc_start_main;main;burn_alpha 40')" ""
eq "Lua only" "$(lua_stack_of_line '[lua];s.lua:0 1')" "s.lua:0"

lua_folded "$FX/host_functions.stacks" >"$TMP/f.lua"
eq "lua_folded lines" "$(wc -l <"$TMP/f.lua")" 10
eq "lua_folded total" "$(folded_total "$TMP/f.lua")" 410
eq "lua_folded sums" "$(grep -c ';c_nested;luahost.lua:23 123$' "$TMP/f.lua")" 1

awk -v g=f -f "$TOP/tests/integration/lua_traceback.awk" "$FX/host_traceback.txt" "$TMP/f.lua" \
	>"$TMP/m.f"
eq "functions" "$(grep -v '^#' "$TMP/m.f" | tr '\n' ,)" "nested 130 123 7,pcall 102 100 5,sort 90 90 5,gsub 85 80 5,"
eq "functions: failures" "$(grep -c '^#  ' "$TMP/m.f")" 4

lua_folded "$FX/host_lines.stacks" >"$TMP/l.lua"
awk -v g=l -f "$TOP/tests/integration/lua_traceback.awk" "$FX/host_traceback.txt" "$TMP/l.lua" \
	>"$TMP/m.l"
eq "lines" "$(grep -v '^#' "$TMP/m.l" | tr '\n' ,)" "nested 145 140 7,pcall 55 50 5,sort 90 90 5,gsub 80 80 5,"
exit 0
