# A process that does not run LuaJIT (.output/workloads/burn) still profiles
# natively, and luatop says so in exactly one line ("... does not run LuaJIT ...");
# a LuaJIT process gets no such line. Targets given by PID, started by luatop
# (-- CMD: nothing is known at exec time), and both kinds in one run (-p A,B);
# the LuaJIT ones: luajit itself, and a C host with OpenResty's libluajit-5.1.so.2
# (mapped by the dynamic loader after exec).
NOTICE='does not run LuaJIT'
script=$TOP/tests/workloads/split.lua
lj=$(lj_bin openresty)
host=$TMP/luahost
out=$(build_lua_host openresty "$host") || fail "cannot build the LuaJIT host: $out"
cp "$TOP/tests/workloads/luahost/luahost.lua" "$TMP/luahost.lua"

# notices TAG EXPECTED: the notice lines in $TMP/err are EXPECTED in number.
notices() {
	got=$(grep -c "$NOTICE" "$TMP/err")
	[ "$got" = "$2" ] || fail "$1: $got notice lines, want $2: $(cat "$TMP/err")"
}
# native_ok TAG: burn's own frames in >= 90% of the samples of $TMP/n.folded.
# Every run samples at 499 Hz for >= 2 s of the target's life (-p: --duration 2;
# -- CMD: burn 3 runs >= 2 s, split.lua and luahost.lua 2 s of CPU time):
# 499 Hz x 2 s x 1/3 of a CPU = 333 samples; 50 (and 20 with Lua frames, of
# workloads that run Lua nearly all the time) leave a wide margin.
native_ok() {
	total=$(folded_total "$TMP/n.folded")
	leaf=$(folded_leaf_count "$TMP/n.folded" '^burn_(alpha|beta)$')
	echo "    $1: samples=$total burn-leaves=$leaf" >&2
	[ "$total" -ge 50 ] || fail "$1: too few samples: $total"
	[ "$(pct "$leaf" "$total")" -ge 90 ] || fail "$1: leaves are not burn_*"
}
# lua_ok TAG FILE: some samples of FILE have Lua frames (LuaJIT was found).
lua_ok() {
	n=$(lua_folded "$2" | awk '{ n += $NF } END { print n + 0 }')
	echo "    $1: samples with Lua frames=$n" >&2
	[ "$n" -ge 20 ] || fail "$1: only $n samples with Lua frames: LuaJIT not found?"
}

# burn by PID.
start "$WL/burn" 30
pid=$!
sleep 0.3
"$LUATOP" -F 499 -p "$pid" --duration 2 -o "$TMP/n.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
notices "burn -p" 1
grep "$NOTICE" "$TMP/err" | grep -q "PID $pid (burn)" || fail "the notice does not name PID $pid (burn): $(cat "$TMP/err")"
native_ok "burn -p"
grep "$NOTICE" "$TMP/err" | sed 's/^/    /' >&2

# burn started by luatop.
"$LUATOP" -F 499 -o "$TMP/n.folded" -- "$WL/burn" 3 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
notices "burn -- CMD" 1
native_ok "burn -- CMD"

# luajit by PID; with burn in the same run: one notice, for burn.
start "$lj" "$script" 30
ljpid=$!
sleep 0.3
"$LUATOP" $LUA_VIEW -F 499 -p "$ljpid" --duration 2 -o "$TMP/l.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
notices "luajit -p" 0
lua_ok "luajit -p" "$TMP/l.folded"
"$LUATOP" $LUA_VIEW -F 499 -p "$pid,$ljpid" --duration 2 -o "$TMP/l.folded" 2>"$TMP/err" ||
	fail "luatop failed: $(cat "$TMP/err")"
notices "burn and luajit -p" 1
grep "$NOTICE" "$TMP/err" | grep -q "PID $pid (burn)" || fail "the notice is not about burn: $(cat "$TMP/err")"
lua_ok "burn and luajit -p" "$TMP/l.folded"
kill "$ljpid"

# luajit and the libluajit host started by luatop.
"$LUATOP" $LUA_VIEW -F 499 -o "$TMP/l.folded" -- "$lj" "$script" 2 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
notices "luajit -- CMD" 0
lua_ok "luajit -- CMD" "$TMP/l.folded"
"$LUATOP" $LUA_VIEW -F 499 -o "$TMP/l.folded" -- "$host" "$TMP/luahost.lua" 2 "$TMP/tb.txt" 2>"$TMP/err" ||
	fail "luatop failed: $(cat "$TMP/err")"
notices "libluajit host -- CMD" 0
lua_ok "libluajit host -- CMD" "$TMP/l.folded"
exit 0
