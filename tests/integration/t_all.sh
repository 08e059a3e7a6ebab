# --all: every process that runs LuaJIT, found by its VM mapping, also those
# that start later; each stack rooted at [PID comm]; other processes left out.
script=$TOP/tests/workloads/split.lua
start "$(lj_bin openresty)" "$script" 30
early=$!
start "$WL/burn" 30	# native only: not profiled
burn=$!
sleep 0.3
"$LUATOP" --all -F 499 --duration 5 -v -o "$TMP/all.folded" 2>"$TMP/err" &
lt=$!
sleep 2
"$(lj_bin upstream)" "$script" 1.5 >/dev/null 2>&1 &	# starts later, exits before the end
late=$!
wait "$late"
wait "$lt" || fail "luatop --all: exit $?: $(grep -v libbpf "$TMP/err" | tail -5)"
kill "$early" "$burn" 2>/dev/null

# samples_of PID: samples rooted at [PID ...].
samples_of() { awk -v p="[$1 " '{ if (index($0, p) == 1) n += $NF } END { print n + 0 }' "$TMP/all.folded"; }
e=$(samples_of "$early") l=$(samples_of "$late") b=$(samples_of "$burn")
echo "    early=$e late=$l burn=$b" >&2
# 5 s and 1.5 s of CPU at 499 Hz; a fifth of that is plenty.
[ "$e" -ge 400 ] || fail "the running LuaJIT process: $e samples"
[ "$l" -ge 100 ] || fail "the LuaJIT process that started later: $l samples"
[ "$b" = 0 ] || fail "a process without LuaJIT was profiled: $b samples"
grep -q "^\[$early luajit\];_start;" "$TMP/all.folded" || fail "no [PID comm] root: $(head -2 "$TMP/all.folded")"
grep -q "^\[$late luajit\];.*five (split.lua:" "$TMP/all.folded" || fail "the late process has no Lua frames"
grep -q "profiling PID $late (luajit)" "$TMP/err" || fail "the late process was not joined: $(grep -- --all "$TMP/err")"
! grep -vq '^\[[0-9]* [^]]*\];' "$TMP/all.folded" || fail "a stack without its process root"
! grep -q '^\[[0-9]* ?\];' "$TMP/all.folded" || fail "a process root without its name"
expect_error 2 'give one of' "$LUATOP" --all -p 1 -o "$TMP/x"
exit 0
