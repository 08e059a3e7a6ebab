# The sampler sends a CPU's samples in batches (struct lt_batch); luatop has each
# CPU send what its batch holds at every read, so a burst's last samples are not
# kept back by a CPU that samples no more. The target burns CPU for its first
# 0.6 s, then sleeps: with --every 1 all its samples fall in the first file and
# the later files are empty (a batch left to the end of the run would put its
# samples into the last one). The run's total is what the files hold.
mkdir "$TMP/b"
"$LUATOP" -F 499 --every 1 --duration 3 -o "$TMP/b/p-%t.folded" -- "$(lj_bin openresty)" -e '
	local t = os.clock()
	while os.clock() - t < 0.6 do end
	os.execute("sleep 10")' 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
set -- $(ls "$TMP/b")
[ $# = 3 ] || fail "$# files for 3 s every 1 s: $*"
first=$(folded_total "$TMP/b/$1")
later=$(($(folded_total "$TMP/b/$2") + $(folded_total "$TMP/b/$3")))
# 0.6 s of CPU at 499 Hz is ~300 samples; a quarter of it leaves room for a slow start.
[ "$first" -ge 75 ] || fail "first second: $first samples"
[ "$later" = 0 ] || fail "$later samples after the burst (first second: $first): $(cat "$TMP/err")"
grep -q "^luatop: $first samples of .* 0 lost" "$TMP/err" || fail "total: $(cat "$TMP/err")"
exit 0
