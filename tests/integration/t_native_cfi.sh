# A C program built -O2 -fomit-frame-pointer, with a known chain through libc's
# qsort into a comparator that burns CPU: the in-kernel .eh_frame unwinder shows the
# whole chain, root to leaf, in >= 99% of samples.
start "$WL/qsort_nofp" 30
pid=$!
sleep 0.3
"$LUATOP" -F 499 -p "$pid" --duration 4 -o "$TMP/out.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
# Every sample of level3's work (the comparator, and qsort's merge loops and rand
# between its calls) must carry the whole chain from _start.
chain=$(folded_has_count "$TMP/out.folded" '^_start;__libc_start_main;[^;]*;main;level1;level2;level3(;|$)')
cmp=$(folded_has_count "$TMP/out.folded" \
	'^_start;__libc_start_main;[^;]*;main;level1;level2;level3;qsort[^;]*;([^;]*;)*cmp_burn(;|$)')
echo "    samples=$total full-chain=$chain ($(pct "$chain" "$total")%) comparator=$cmp" >&2
sed 's/^/    /' "$TMP/err" >&2
# 499 Hz x 4 s x 1/3 of a CPU = 665 samples; 100 leaves a wide margin, and at
# such counts the 99% below allows a few odd samples, not none.
[ "$total" -ge 100 ] || fail "too few samples: $total"
# >= 99%: chain * 100 >= total * 99
[ $((chain * 100)) -ge $((total * 99)) ] || {
	awk '{ print $NF "\t" $0 }' "$TMP/out.folded" | sort -rn | head -5 >&2
	fail "full chain in fewer than 99% of samples"
}
[ "$(pct "$cmp" "$total")" -ge 80 ] || fail "comparator under qsort in fewer than 80% of samples"
exit 0
