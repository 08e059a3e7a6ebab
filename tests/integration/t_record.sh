# --record FILE: every sample the profile counted is in FILE (header, then a
# length-prefixed record each), the file is created new (an existing file or a
# planted symlink is refused, before any sampling), and -i refuses it.
start "$WL/burn" 30
pid=$!
sleep 0.3
"$LUATOP" -p "$pid" --duration 2 -o "$TMP/out.folded" --record "$TMP/rec" 2>"$TMP/err" ||
	fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
n=$(sed -n 's/.*luatop: \([0-9]*\) samples recorded to .*/\1/p' "$TMP/err")
[ "$n" = "$total" ] || fail "recorded $n samples, the profile has $total"
[ "$(head -c 8 "$TMP/rec")" = LTRECORD ] || fail "no LTRECORD magic"
size=$(od -An -tu4 -j12 -N4 "$TMP/rec" | tr -d ' ')
[ "$(stat -c %s "$TMP/rec")" -eq $((16 + n * (4 + size))) ] ||
	fail "file size $(stat -c %s "$TMP/rec") is not 16 + $n * (4 + $size)"
echo "    samples=$total recorded=$n record size=$size" >&2

"$LUATOP" -p "$pid" --duration 1 -o /dev/null --record "$TMP/rec" 2>"$TMP/err2" &&
	fail "--record over an existing file succeeded"
grep -q "cannot create $TMP/rec: File exists" "$TMP/err2" || fail "wrong error: $(cat "$TMP/err2")"
ln -s "$TMP/target" "$TMP/link"
"$LUATOP" -p "$pid" --duration 1 -o /dev/null --record "$TMP/link" 2>"$TMP/err2" &&
	fail "--record through a symlink succeeded"
[ -e "$TMP/target" ] && fail "the symlink's target was created"
[ "$(wc -l <"$TMP/err2")" -eq 1 ] || fail "not a one-line error: $(cat "$TMP/err2")"
"$LUATOP" -i "$TMP/out.folded" --record "$TMP/rec2" 2>"$TMP/err2" && fail "-i took --record"
grep -q -- "--record" "$TMP/err2" || fail "wrong error: $(cat "$TMP/err2")"
exit 0
