# Merging on the C host embedding LuaJIT (both flavours, JIT on and -joff): >= 99% of
# the samples with Lua frames merge, the merged stacks read root to leaf
#   main -> ... -> lua_pcall -> (Lua) -> c_callback -> lua_call -> (Lua)
#        -> c_nested -> lua_call -> (Lua)
# and no VM dispatch frame (VM code, lj_BC_*/lj_vm_*, JIT code) is left in them;
# every unnamed frame of the stripped libluajit-5.1.so is the start of an FDE.
# (LuaJIT's lua_call jumps into the VM instead of calling it, so it has no native
# frame of its own; the chain is checked with lua_call optional.)
for flavour in $(lj_flavours); do
	build_lua_host "$flavour" "$TMP/host-$flavour" || fail "cannot build the C host"
	case $flavour in
	openresty) vmfile=/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2.1.0 ;;
	upstream) vmfile=$TMP/host-$flavour ;;
	esac
	range=$(vm_range "$vmfile")
	[ -n "$range" ] || fail "no VM FDE in $vmfile"
	for mode in jit joff; do
		j=; [ "$mode" = joff ] && j=joff
		"$TMP/host-$flavour" "$TOP/tests/workloads/luahost/luahost.lua" 30 /dev/null $j \
			>/dev/null 2>&1 &
		pid=$!
		PIDS="$PIDS $pid"
		sleep 0.5
		"$LUATOP" -F 499 -p "$pid" --duration 4 -o "$TMP/m.folded" 2>"$TMP/err" ||
			fail "luatop failed: $(cat "$TMP/err")"
		kill "$pid"
		total=$(folded_total "$TMP/m.folded")
		rate=$(merge_rate "$TMP/err")
		nested=$(folded_has_count "$TMP/m.folded" \
			'(^|;)main;([^;]*;)*lua_pcall;[^;]*luahost[.]lua[^;]*;([^;]*;)*c_callback;(lua_call;)?[^;]*luahost[.]lua[^;]*;([^;]*;)*c_nested;(lua_call;)?[^;]*luahost[.]lua')
		# Lua code called from c_nested (a sample in a C API function c_nested
		# calls, lua_gettop, is right as it is and not part of the chain).
		innested=$(folded_has_count "$TMP/m.folded" ';c_nested;(lua_call;)?[^;]*luahost[.]lua')
		vmleft=$(count_vm_frames "$TMP/m.folded" "$(basename "$vmfile")" $range)
		echo "    $flavour $mode: samples=$total merged=${rate:-?}% nested-chain=$nested/$innested vm-frames-left=$vmleft" >&2
		# 499 Hz x 4 s x 1/3 of a CPU = 665 samples; 100 leaves a wide margin. A
		# round of luahost.lua burns about a quarter of its loop steps under
		# c_nested (200000 of ~740000): ~166 samples; 50 leaves a wide margin.
		# At such counts the 99% and 1% below allow a few odd samples, not none.
		[ "$total" -ge 100 ] || fail "too few samples: $total"
		[ "${rate:-0}" -ge 99 ] || { cat "$TMP/err" >&2; fail "$flavour $mode: fewer than 99% merged"; }
		[ "$innested" -ge 50 ] || fail "$flavour $mode: too few samples under c_nested"
		# All but the rare sample taken while the JIT compiles a trace there (its
		# compiler frames sit between c_nested and the Lua frames): 1%, plus one.
		[ $(( (innested - nested) * 100 )) -le $((innested + 100)) ] || {
			grep ';c_nested;' "$TMP/m.folded" | head -3 >&2
			fail "$flavour $mode: merged stacks under c_nested do not read main..lua_pcall..c_callback;lua_call..c_nested;lua_call"
		}
		if [ "$flavour" = openresty ]; then	# the stripped shared library
			bad=$(not_fde_starts "$TMP/m.folded" "$(basename "$vmfile")" "$vmfile")
			[ "$bad" -eq 0 ] || fail "$flavour $mode: $bad unnamed frames are not FDE starts"
		fi
		[ $((vmleft * 100)) -le "$total" ] || {
			awk '{ print $NF "\t" $0 }' "$TMP/m.folded" | sort -rn | head -5 >&2
			fail "$flavour $mode: VM frames left in $vmleft of $total samples"
		}
	done
done
exit 0
