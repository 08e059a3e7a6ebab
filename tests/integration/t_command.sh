# luatop -- CMD starts the command, profiles it until it exits, and keeps the profile.
"$LUATOP" -o "$TMP/out.folded" -- "$WL/burn" 3 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
leaf=$(folded_leaf_count "$TMP/out.folded" '^burn_(alpha|beta)$')
echo "    samples=$total burn-leaves=$leaf" >&2
[ "$total" -ge 50 ] || fail "too few samples: $total"
[ "$(pct "$leaf" "$total")" -ge 90 ] || fail "leaves are not burn_*"

# A target that exits mid-run: the collected profile is still written.
start "$WL/burn" 2
pid=$!
"$LUATOP" -p "$pid" --duration 10 -o "$TMP/exit.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
grep -q "PID $pid exited" "$TMP/err" || fail "no exit notice: $(cat "$TMP/err")"
[ "$(folded_total "$TMP/exit.folded")" -ge 30 ] || fail "profile of the exited target lost"
exit 0
