# A C host calling a tiny Lua function through lua_pcall in a loop (luahost with
# tests/workloads/luahost/pcall.lua), both flavours, JIT on and off. Between C's
# call and the function's first frame, and after its last return, the sample's
# leaf is a VM activation with no Lua frame at all: those samples merge as C
# (main -> host_pcalls -> lua_pcall, the VM left out) instead of falling back.
# Fallback stacks measured before 2026-12-07: 6.5% (OpenResty, JIT on; 12.5%
# for a loop around lua_pushvalue); now 0.8-2.1% with the JIT on, none with
# -joff. What still falls back is vm_return copying the result over the
# function's slot and a trace that has popped its frame. At most 4% plus 10 is
# allowed, and host_loop's samples are under the host's frames.
for flavour in $(lj_flavours); do
	host=$TMP/luahost-$flavour
	out=$(build_lua_host "$flavour" "$host") || fail "cannot build the $flavour host: $out"
	for mode in jit joff; do
		merge_run "$TMP/p.folded" "$host" "$TOP/tests/workloads/luahost/pcall.lua" 30 \
			/dev/null "$mode"
		inlua=$(folded_has_count "$TMP/p.folded.merged" ';host_pcalls;lua_pcall;pcall[.]lua:[0-9]+$')
		echo "    $flavour $mode: samples=$total fallback=$fb in-host_loop=$inlua" >&2
		# 499 Hz x 4 s of a busy thread is ~2,000 samples.
		[ "$total" -ge 200 ] || fail "$flavour $mode: too few samples: $total"
		[ "$fb" -le $((total * 4 / 100 + 10)) ] || {
			grep '^\[fallback\]' "$TMP/p.folded" | awk '{ print $NF "\t" $0 }' |
				sort -rn | head -3 | cut -c1-300 >&2
			fail "$flavour $mode: $fb fallback stacks, more than 4% of $total plus 10"
		}
		# host_loop itself is a part of each call (14-19% measured): a twentieth.
		[ $((inlua * 20)) -ge "$total" ] || fail "$flavour $mode: too few samples in host_loop"
	done
done
exit 0
