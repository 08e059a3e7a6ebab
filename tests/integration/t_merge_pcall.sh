# A C host calling a tiny Lua function through lua_pcall in a loop (luahost with
# tests/workloads/luahost/pcall.lua), both flavours, JIT on and off. Between C's
# call and the function's first frame, and after its last return, the sample's
# leaf is a VM activation with no Lua frame at all: those samples merge as C
# (main -> host_pcalls -> lua_pcall, the VM left out) instead of falling back.
# Fallback stacks measured before 2026-12-07: 6.5% (OpenResty, JIT on; 12.5%
# for a loop around lua_pushvalue); now none in ~2,000, both flavours, JIT on
# and off (a function trace that has returned to C merges so too). At most 0.5%
# plus 10 is allowed, host_loop's samples are under the host's frames, and no
# VM frame is left in a merged stack (a flagged window's was until 2026-12-07).
for flavour in $(lj_flavours); do
	host=$TMP/luahost-$flavour
	out=$(build_lua_host "$flavour" "$host") || fail "cannot build the $flavour host: $out"
	# The VM: in OpenResty's shared library, or linked into the host (upstream's .a).
	vm=$host
	[ "$flavour" = openresty ] && vm=$(readlink -f /usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2)
	range=$(vm_range "$vm")
	[ -n "$range" ] || fail "no VM FDE in $vm"
	for mode in jit joff; do
		merge_run "$TMP/p.folded" "$host" "$TOP/tests/workloads/luahost/pcall.lua" 30 \
			/dev/null "$mode"
		inlua=$(folded_has_count "$TMP/p.folded.merged" ';host_pcalls;lua_pcall;pcall[.]lua:[0-9]+$')
		vmleft=$(VM_SHOW=1 count_vm_frames "$TMP/p.folded.merged" "${vm##*/}" $range)
		echo "    $flavour $mode: samples=$total fallback=$fb in-host_loop=$inlua" \
			"vm-frames-left=$vmleft" >&2
		merge_checks "$TMP/p.folded" "$flavour $mode"
		# host_loop itself is a part of each call (14-19% measured): a twentieth.
		[ $((inlua * 20)) -ge "$total" ] || fail "$flavour $mode: too few samples in host_loop"
		[ "$vmleft" -eq 0 ] || fail "$flavour $mode: VM frames left in $vmleft samples"
	done
done
exit 0
