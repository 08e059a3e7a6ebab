# A VM frame in lj_vm_cpcall's call of a C function that runs without a Lua frame
# (the trace recorder, the parser, a finalizer) is no Lua activation: the merge
# leaves it out. tests/workloads/record.lua spends most of its time recording and
# compiling work's loop (the hook of the interpreter running work calls the
# recorder through lj_vm_cpcall): those samples merge under work, native frames
# after it, instead of falling back. Both flavours (the recorder needs the JIT).
# Before 2026-12-06 77-78% of this workload's samples fell back (two runs, each
# flavour); now 0.2%, the start-up's.
for flavour in $(lj_flavours); do
	merge_run "$TMP/r.folded" "$(lj_bin "$flavour")" "$TOP/tests/workloads/record.lua" 30
	# Merged, with native frames (the recorder's) under work's Lua frame.
	under=$(folded_has_count "$TMP/r.folded.merged" ';work \(record[.]lua:[0-9]+\);[^;]')
	echo "    $flavour: samples=$total fallback=$fb native-under-work=$under" >&2
	# 499 Hz x 4 s of a busy thread is ~2,000 samples.
	[ "$total" -ge 200 ] || fail "$flavour: too few samples: $total"
	[ $((fb * 20)) -le "$total" ] || {
		grep '^\[fallback\];' "$TMP/r.folded" | awk '{ print $NF "\t" $0 }' | sort -rn |
			head -3 | cut -c1-300 >&2
		fail "$flavour: $fb of $total samples fell back"
	}
	# By design most of the time (~75% measured) is the recorder's under work;
	# a tenth is a wide margin for a busy machine.
	[ $((under * 10)) -ge "$total" ] || fail "$flavour: recorder samples not merged under work"
done
exit 0
