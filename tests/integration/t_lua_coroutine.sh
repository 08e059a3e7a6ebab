# Coroutines resumed from Lua (both flavours, JIT on and -joff): the merged stack runs
# from the resumer's Lua frames through coroutine.resume into the coroutine's own,
# found by following the VM frame of the resumer (its SAVE_L) in the native walk.
for flavour in $(lj_flavours); do
	for j in "" -joff; do
		start "$(lj_bin "$flavour")" $j "$TOP/tests/workloads/coro.lua" 30
		pid=$!
		sleep 0.5
		"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/co.folded" 2>"$TMP/err" ||
			fail "luatop failed: $(cat "$TMP/err")"
		kill "$pid"
		total=$(folded_total "$TMP/co.folded")
		chain=$(folded_has_count "$TMP/co.folded" \
			';lua_pcall;coro[.]lua:0;driver [(]coro[.]lua:[0-9]+[)];coroutine[.]resume;body [(]coro[.]lua:9[)];spin [(]coro[.]lua:[0-9]+[)]')
		echo "    $flavour ${j:-jit}: samples=$total through-the-resume=$chain" >&2
		# 499 Hz x 3 s x 1/3 of a CPU = 499 samples; 100 leaves a wide margin.
		[ "$total" -ge 100 ] || fail "too few samples: $total"
		[ $((chain * 100)) -ge $((total * 95)) ] || {
			awk '{ print $NF "\t" $0 }' "$TMP/co.folded" | sort -rn | head -3 >&2
			fail "$flavour ${j:-jit}: stacks do not run driver -> coroutine.resume -> body -> spin"
		}
	done
done
exit 0
