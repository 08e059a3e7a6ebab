# --every: one profile per interval, named from -o's %t, never clobbering; the
# files' counts add up to the run's total, none lost or counted twice.
script=$TOP/tests/workloads/split.lua
mkdir "$TMP/ev"
"$LUATOP" -F 499 --every 2 --duration 6 -o "$TMP/ev/p-%t.folded" -- \
	"$(lj_bin openresty)" "$script" 8 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
n=$(ls "$TMP/ev" | wc -l)
[ "$n" = 3 ] || fail "$n files for 6 s every 2 s: $(ls "$TMP/ev")"
ls "$TMP/ev" | grep -qvE '^p-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.folded$' && fail "names: $(ls "$TMP/ev")"
sum=0
for f in "$TMP/ev"/*; do
	c=$(folded_total "$f")
	grep -q "$c samples written to $f" "$TMP/err" || fail "$f: $c samples, not as said: $(cat "$TMP/err")"
	sum=$((sum + c))
done
total=$(sed -n 's/^luatop: \([0-9]*\) samples of .*, \([0-9]*\) written to 3 files$/\1 \2/p' "$TMP/err")
[ -n "$total" ] || fail "no total: $(cat "$TMP/err")"
set -- $total
[ "$1" = "$sum" ] && [ "$2" = "$sum" ] || fail "files add up to $sum, the run took $1 (written $2)"
[ "$sum" -ge 600 ] || fail "too few samples: $sum"	# 6 s at 499 Hz of a busy target, 1/5 of it
# The command's first samples are named from its own maps, read right after its
# exec (not luatop's fork's): no "[unknown]" leaves (they were ~5% of a short run).
unk=0
for f in "$TMP/ev"/*; do unk=$((unk + $(folded_leaf_count "$f" '^\[unknown\]$'))); done
[ "$unk" -le $((sum / 100)) ] || fail "$unk of $sum samples have an [unknown] leaf"

# An idle target still gets a file per interval (closed by the clock), pprof here.
"$LUATOP" --every 1 --duration 3 -o "$TMP/ev/idle-%t.pb.gz" -- sleep 30 2>"$TMP/err" ||
	fail "idle: exit $?: $(cat "$TMP/err")"
n=$(ls "$TMP/ev" | grep -c '^idle-')
[ "$n" = 3 ] || fail "idle: $n files for 3 s every 1 s: $(ls "$TMP/ev")"
for f in "$TMP/ev"/idle-*; do
	"$LUATOP" -i "$f" -o "$TMP/idle.folded" 2>"$TMP/err2" || fail "$f unreadable: $(cat "$TMP/err2")"
	HOME=$TMP go tool pprof -symbolize=none -raw "$f" >"$TMP/raw" 2>"$TMP/err2" ||
		fail "go tool pprof cannot read $f: $(cat "$TMP/err2")"
	grep -q '^samples/count cpu/nanoseconds' "$TMP/raw" || fail "$f: $(head -3 "$TMP/raw")"
done
expect_error 2 '--every needs -o' "$LUATOP" --every 2 -p 1
expect_error 2 "put %t" "$LUATOP" --every 2 -o "$TMP/x.folded" -p 1
exit 0
