# A C program built with frame pointers: the leaf functions in the folded output are
# where it burns CPU (2/3 burn_alpha, 1/3 burn_beta), under main -> run_work.

start "$WL/burn" 30
pid=$!
sleep 0.3
"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/out.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
alpha=$(folded_leaf_count "$TMP/out.folded" '^burn_alpha$')
beta=$(folded_leaf_count "$TMP/out.folded" '^burn_beta$')
chain=$(folded_has_count "$TMP/out.folded" '(^|;)main;run_work;burn_(alpha|beta)$')
echo "    samples=$total alpha=$alpha beta=$beta full-chain=$chain" >&2
# 499 Hz x 3 s x 1/3 of a CPU = 499 samples; 90 leaves a wide margin.
[ "$total" -ge 90 ] || fail "too few samples: $total (want >= 90 in 3 s at 499 Hz)"
[ "$(pct $((alpha + beta)) "$total")" -ge 95 ] || fail "leaves are not burn_alpha/burn_beta"
[ "$(pct "$chain" "$total")" -ge 95 ] || fail "stacks do not read main;run_work;burn_*"
# 67% +- 10: at 499 samples one sigma of the share is 2.1 points, 10 is ~4.7 sigma.
share=$(pct "$alpha" $((alpha + beta)))
[ "$share" -ge 56 ] && [ "$share" -le 77 ] || fail "burn_alpha share $share%, want 67% +- 10"
grep -q 'samples of PID' "$TMP/err" || fail "no summary line: $(cat "$TMP/err")"
# Folded grammar: frames, one space, a positive count; sorted bytewise.
grep -Evq '^[^ ].* [1-9][0-9]*$' "$TMP/out.folded" && fail "malformed folded line"
LC_ALL=C sort -c "$TMP/out.folded" || fail "folded output not sorted"
exit 0
