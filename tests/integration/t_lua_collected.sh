# Lua code that dies between its samples and luatop's read: tests/workloads/
# collected.lua runs each of its rounds' chunks ("=hotN") for 0.25 s of CPU,
# then drops and collects it, and sleeps 0.6 s: the reader (a drain every
# 100 ms in batch mode) reads the round's last samples after the prototype and
# its chunk name were freed; the next round's are often allocated at the same
# addresses. Both flavours, JIT on.
# Each round's samples are named after its own chunk: 0.25 s at 999 Hz is ~250
# samples a round; 125-375 each is a wide margin, and a round named after
# another shows as ~500 and ~0. No frame is [lua:?] by design (each chunk is
# met alive at its first drain); 1% is the margin.
# Before 2026-12-07 (five runs): 92-210 of ~1,500 samples were [lua:?] (a dead
# prototype failed its check), and the third round's samples were named after
# the second (hot2 ~500, hot3 0: a new prototype with the same header, its
# chunk name a new string at the old one's address).
script=$TOP/tests/workloads/collected.lua
[ -r "$script" ] || fail "missing $script"
bad=0
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	"$LUATOP" -F 999 -o "$TMP/c.folded" -- "$lj" "$script" 4 0.6 2>"$TMP/err" ||
		{ echo "    $flavour: luatop failed: $(cat "$TMP/err")" >&2; bad=1; continue; }
	total=$(folded_total "$TMP/c.folded")
	unnamed=$(grep -F '[lua:?]' "$TMP/c.folded" | awk '{ s += $NF } END { print s + 0 }')
	rounds=''
	for r in 1 2 3 4; do
		n=$(grep -F "(hot$r:" "$TMP/c.folded" | awk '{ s += $NF } END { print s + 0 }')
		rounds="$rounds $n"
		[ "$n" -ge 125 ] && [ "$n" -le 375 ] || bad=1
	done
	echo "    $flavour: samples=$total, by round:$rounds, [lua:?] in $unnamed" >&2
	[ "$(pct "$unnamed" "$total")" -lt 1 ] || bad=1
done
[ "$bad" = 0 ] || fail "collected code misnamed"
exit 0
