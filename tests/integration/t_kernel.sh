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
exit 0
