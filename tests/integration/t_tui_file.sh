# luatop -i FILE: a folded file in the live view, without root or BPF. Fallback
# stacks (rooted at [fallback]) look different even without colour (the ▚ mark,
# underline), ! shows only them; a malformed file is one clear error line.
. "$TOP/tests/integration/tmux.sh"

# A directory and a binary that nobody (uid 65534) can read.
d=$TMP/pub
mkdir "$d" && chmod 711 "$TMP" && chmod 755 "$d" && cp "$LUATOP" "$d/luatop" &&
	chmod 755 "$d/luatop" || fail "cannot set up $d"
cat >"$d/x.folded" <<'F'
main;work;compute 700
main;work;read_[k] 60
main;idle 90
[fallback];main;-;handler (app.lua:12) 150
F
chmod 644 "$d/x.folded"

run_as_nobody=
command -v setpriv >/dev/null && run_as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2086
tui_start 120 30 $run_as_nobody "$d/luatop" -i "$d/x.folded"
tui_wait ' FILE '
tui_wait 'compute'
tui_wait '\[fallback\]'
tui_wait '1,000 samples'
tui_wait 'fallback 15\.0%'

# The fallback frames: marked, underlined, and in a colour no other kind has.
tui_screen -e >"$TMP/color"
fbline=$(grep -F '[fallback]' "$TMP/color")
okline=$(grep -F 'compute' "$TMP/color")
printf '%s' "$fbline" | grep -q '▚\[fallback\]' || fail "no ▚ mark on the fallback frame: $fbline"
printf '%s' "$fbline" | grep -Eq '\[(4|[0-9;]*;4)m' || fail "fallback frame not underlined: $fbline"
printf '%s' "$fbline" | grep -q '48;5;127m' || fail "fallback frame not magenta: $fbline"
# What is in effect where "compute" starts (since the last reset): no fallback look.
okpre=$(printf '%s' "$okline" | sed 's/compute.*//; s/.*\[0m//')
printf '%s' "$okpre" | grep -Eq '▚|\[(4|[0-9;]*;4)m|48;5;127m' &&
	fail "a normal frame looks like a fallback one: $okline"

# !: only the fallback stacks, all of the width; ! again: everything.
tui_keys '!'
tui_wait 'FALLBACK ONLY'
tui_wait '▚handler \(app\.lua:12\)'
tui_wait 'total 100\.0% \(150\)'
tui_screen | grep -q compute && fail "! still shows non-fallback stacks"
tui_keys '!'
tui_wait 'compute'

# A file has one kind of stack: m says so instead of pretending.
tui_keys m
tui_wait 'one kind of stack'
tui_keys q
rc=$(tui_exit 10)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
tui_restored

# The same profile as pprof (-i x.folded -o x.pb.gz) shows the same.
"$LUATOP" -i "$d/x.folded" -o "$d/x.pb.gz" 2>"$TMP/err" || fail "to pprof: $(cat "$TMP/err")"
chmod 644 "$d/x.pb.gz"
tmx kill-session -t t
# shellcheck disable=SC2086
tui_start 120 30 $run_as_nobody "$d/luatop" -i "$d/x.pb.gz"
tui_wait ' FILE '
tui_wait 'compute'
tui_wait '1,000 samples'
tui_wait 'fallback 15\.0%'
tui_keys q
rc=$(tui_exit 10)
[ "$rc" = 0 ] || fail "pprof file: exit status $rc: $(cat "$TMP/tui.err")"

# Errors: one line naming the file and what is wrong, exit 1 (2 without a terminal).
printf 'a;b 3\nc;d x\n' >"$TMP/bad.folded"
"$LUATOP" -i "$TMP/bad.folded" >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
[ "$rc" = 1 ] || fail "malformed file: exit $rc"
[ "$(cat "$TMP/err")" = "luatop: $TMP/bad.folded: line 2: count is not a positive integer" ] ||
	fail "malformed file: stderr '$(cat "$TMP/err")'"
"$LUATOP" -i "$TMP/nothing.folded" 2>"$TMP/err" </dev/null
rc=$?
[ "$rc" = 1 ] && [ "$(cat "$TMP/err")" = "luatop: $TMP/nothing.folded: No such file or directory" ] ||
	fail "missing file: exit $rc, '$(cat "$TMP/err")'"
"$LUATOP" -i "$d/x.folded" 2>"$TMP/err" </dev/null >/dev/null
rc=$?
[ "$rc" = 2 ] && grep -q 'needs a terminal' "$TMP/err" || fail "no terminal: exit $rc, '$(cat "$TMP/err")'"
"$LUATOP" -i "$d/x.folded" -p 1 2>"$TMP/err" </dev/null
[ $? = 2 ] && grep -q -- '-i FILE' "$TMP/err" || fail "-i with -p: '$(cat "$TMP/err")'"
exit 0
