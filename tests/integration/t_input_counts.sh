# -i: counts past what a profile can hold are refused with the line, not dropped
# or saturated.
printf 'a;b 5\nmain;hot 18446744073709551616\n' > "$TMP/big.folded"
expect_error 1 'big.folded: line 2: count is above 2\^63' "$LUATOP" -i "$TMP/big.folded"
# Counts that fit one by one but not together: refused, not saturated unseen.
printf 'a 9223372036854775808\nb 9223372036854775807\nc 1\n' > "$TMP/sum.folded"
expect_error 1 'sum.folded: line 3: the counts add up to 2\^64 or more' "$LUATOP" -i "$TMP/sum.folded"
exit 0
