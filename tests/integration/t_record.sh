# --record FILE: every sample the profile counted is in FILE (header, then a
# length-prefixed record each, as long as the sampler sent it), the file is created new (an existing file or a
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
# Records are sized to their content: walk the length prefixes to the file's end.
fsize=$(stat -c %s "$TMP/rec") off=16 k=0 min=$size
while [ "$off" -lt "$fsize" ]; do
	len=$(od -An -tu4 -j"$off" -N4 "$TMP/rec" | tr -d ' ')
	[ -n "$len" ] && [ "$len" -gt 0 ] && [ "$len" -le "$size" ] ||
		fail "record $k at $off: length ${len:-none} not in 1..$size"
	[ "$len" -lt "$min" ] && min=$len
	off=$((off + 4 + len)) k=$((k + 1))
done
[ "$off" -eq "$fsize" ] && [ "$k" -eq "$n" ] ||
	fail "the file holds $k records ending at $off, want $n ending at $fsize"
echo "    samples=$total recorded=$n sample size=$size shortest record=$min" >&2

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
