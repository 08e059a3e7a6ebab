# A VM frame in lj_vm_cpcall's call of a C function that runs without a Lua frame
# (the trace recorder, the parser, a finalizer) is no Lua activation: the merge
# leaves it out. tests/workloads/record.lua spends most of its time recording and
# compiling work's loop (the hook of the interpreter running work calls the
# recorder through lj_vm_cpcall): those samples merge under work, native frames
# after it, instead of falling back. Both flavours (the recorder needs the JIT).
# Before 2026-12-06 77-78% of this workload's samples fell back (two runs, each
# flavour); now 0.2%, the start-up's.
for flavour in $(lj_flavours); do
	start "$(lj_bin "$flavour")" "$TOP/tests/workloads/record.lua" 30
	pid=$!
	sleep 0.5
	"$LUATOP" -F 499 -p "$pid" --duration 3 --mark-fallback -o "$TMP/r.folded" 2>"$TMP/err" ||
		fail "luatop failed: $(cat "$TMP/err")"
	kill "$pid"
	total=$(folded_total "$TMP/r.folded")
	fb=$(folded_has_count "$TMP/r.folded" '^\[fallback\];')
	# Merged, with native frames (the recorder's) under work's Lua frame.
	under=$(grep -v '^\[fallback\];' "$TMP/r.folded" |
		folded_has_count /dev/stdin ';work \(record[.]lua:[0-9]+\);[^;]')
	echo "    $flavour: samples=$total fallback=$fb native-under-work=$under" >&2
	# 499 Hz x 3 s of a busy thread is ~1,500 samples.
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
