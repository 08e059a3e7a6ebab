# luatop -- CMD starts the command, profiles it until it exits, and keeps the profile.
"$LUATOP" -F 499 -o "$TMP/out.folded" -- "$WL/burn" 3 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
leaf=$(folded_leaf_count "$TMP/out.folded" '^burn_(alpha|beta)$')
echo "    samples=$total burn-leaves=$leaf" >&2
# burn starts once the sampler is attached and runs >= 2 s (time() rounds down):
# 499 Hz x 2 s x 1/3 of a CPU = 333 samples; 50 leaves a wide margin.
[ "$total" -ge 50 ] || fail "too few samples: $total"
[ "$(pct "$leaf" "$total")" -ge 90 ] || fail "leaves are not burn_*"

# A target that exits mid-run: the collected profile is still written.
# burn 6 lives >= 5 s, luatop's start-up takes a few of them: it exits long
# before the 30 s are up. The window left is >= 1 s: 499 Hz x 1 s x 1/3 = 166
# samples; 30 leaves a wide margin.
start "$WL/burn" 6
pid=$!
"$LUATOP" -F 499 -p "$pid" --duration 30 -o "$TMP/exit.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
grep -q "PID $pid exited" "$TMP/err" || fail "no exit notice: $(cat "$TMP/err")"
total=$(folded_total "$TMP/exit.folded")
echo "    exited target: samples=$total" >&2
[ "$total" -ge 30 ] || fail "profile of the exited target lost: $total samples"
exit 0
