# A target reading /dev/zero in a loop: its stacks reach into the kernel's read path,
# named from kallsyms and suffixed _[k].
start "$WL/reader" 30
pid=$!
sleep 0.3
"$LUATOP" -F 499 -p "$pid" --duration 2 -o "$TMP/out.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
kread=$(folded_has_count "$TMP/out.folded" '^[^;].*;(ksys_read|vfs_read)_\[k\]')
echo "    samples=$total read-path=$kread" >&2
# 499 Hz x 2 s x 1/3 of a CPU = 333 samples; 50 leaves a wide margin.
[ "$total" -ge 50 ] || fail "too few samples: $total"
# 1 MB per read(): the copy in read_zero takes ~9/10 of the time (the syscall
# entry and exit the rest, a VM's interrupt re-enable among them); half is a wide margin.
[ "$(pct "$kread" "$total")" -ge 50 ] || fail "kernel read path missing"

# The sampler walks kernel stacks from the kernel's ORC tables (unwind/korc.h);
# LUATOP_KSTACK=check also takes each one with the kernel's unwinder and counts
# the stacks where the two differ: none may. The read path is core kernel code,
# entered from user mode: all but a few stacks (an interrupt's, entry code)
# are the sampler's own, so half is a wide margin.
LUATOP_KSTACK=check "$LUATOP" -v -F 499 -p "$pid" --duration 2 -o "$TMP/chk.folded" \
	2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
checked=$(sed -n 's/.*kernel stacks checked: \([0-9]*\), \([0-9]*\) differed.*/\1 \2/p' "$TMP/err")
ways=$(sed -n 's/.*kernel stacks: \([0-9]*\) from the ORC tables in the sampler, \([0-9]*\) by.*/\1 \2/p' "$TMP/err")
echo "    ORC walks and kernel unwinds: ${ways:-none}; checked and differed: ${checked:-none (no ORC tables)}" >&2
if [ -n "$checked" ]; then
	set -- $checked $ways
	[ "$2" = 0 ] || fail "$2 of $1 kernel stacks from the ORC tables differ from the kernel's unwinder"
	[ "$(pct "$3" $(($3 + $4)))" -ge 50 ] || fail "only $3 of $(($3 + $4)) kernel stacks from the ORC tables"
fi
exit 0
