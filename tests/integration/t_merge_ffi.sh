# Merging across the FFI (both flavours, JIT on and -joff): Lua calling C through
# ffi.C from a hot loop, and C's qsort calling a Lua comparator through an FFI
# callback. At most 0.5% fallback stacks, plus 10; every merged stack with the
# comparator reads ... sort_some -> ... -> qsort_r -> ... -> compare (ffi.lua:N) in
# that order; no VM frame (VM code, lj_BC_*/lj_vm_*, JIT code) is left in a merged
# stack; the samples in a call or return between C and the VM are merged, not
# fallen back.
# Fallbacks come in a burst of a few (not in proportion to the run): allowed are
# 10 for that burst, and 0.5% of the samples for any steady rate.
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	range=$(vm_range "$lj")
	[ -n "$range" ] || fail "no VM FDE in $lj"
	for mode in jit joff; do
		j=; [ "$mode" = joff ] && j=-joff
		start "$lj" $j "$TOP/tests/workloads/ffi.lua" 30
		pid=$!
		sleep 0.5
		"$LUATOP" -v -F 499 -p "$pid" --duration 8 --mark-fallback -o "$TMP/f.folded" \
			2>"$TMP/err" || fail "luatop failed: $(grep -v '^libbpf' "$TMP/err")"
		kill "$pid"
		grep -v '^libbpf' "$TMP/err" >"$TMP/err.short"
		total=$(folded_total "$TMP/f.folded")
		fb=$(folded_has_count "$TMP/f.folded" '^\[fallback\]')
		# The order is a claim about merged stacks: the few fallback ones
		# allowed below list their native frames first.
		grep -v '^\[fallback\]' "$TMP/f.folded" >"$TMP/merged.folded"
		cmp=$(folded_has_count "$TMP/merged.folded" ';compare \(ffi[.]lua:[0-9]+\)(;|$)')
		ordered=$(folded_has_count "$TMP/merged.folded" \
			';sort_some \(ffi[.]lua:[0-9]+\);([^;]*;)*qsort_r;([^;]*;)*compare \(ffi[.]lua:[0-9]+\)(;|$)')
		ccall=$(folded_has_count "$TMP/f.folded" ';call_c \(ffi[.]lua:[0-9]+\)(;|$)')
		vmleft=$(VM_SHOW=1 count_vm_frames "$TMP/merged.folded" luajit $range)
		echo "    $flavour $mode: samples=$total fallback=$fb comparator=$cmp in-order=$ordered" \
			"call_c=$ccall vm-frames-left=$vmleft" >&2
		# 499 Hz x 8 s x 1/3 of a CPU = 1330 samples; 200 leaves a wide margin.
		[ "$total" -ge 200 ] || fail "too few samples: $total"
		[ "$fb" -le $((total / 200 + 10)) ] || {
			sed 's/^/    /' "$TMP/err.short" >&2
			grep '^\[fallback\]' "$TMP/f.folded" | head -3 >&2
			fail "$flavour $mode: $fb fallback stacks, more than 0.5% of $total plus 10"
		}
		# The comparator runs 50 loop steps per call and qsort a few compares per
		# element: far more than a tenth of the time; call_c most of the rest.
		[ $((cmp * 10)) -ge "$total" ] || fail "$flavour $mode: too few samples in the comparator"
		[ $((ccall * 10)) -ge "$total" ] || fail "$flavour $mode: too few samples in call_c"
		[ "$ordered" -eq "$cmp" ] || {
			grep ';compare (' "$TMP/f.folded" | grep -v 'qsort_r' | head -3 >&2
			fail "$flavour $mode: comparator stacks not in the order sort_some..qsort_r..compare"
		}
		[ "$vmleft" -eq 0 ] || {
			awk '{ print $NF "\t" $0 }' "$TMP/f.folded" | sort -rn | head -3 | cut -c1-400 >&2
			fail "$flavour $mode: VM frames left in $vmleft samples"
		}
	done
done
exit 0
