# Names a target controls (its comm) never reach the terminal as escape
# sequences: not in batch messages, not in the summary.
ESC=$(printf '\033') BEL=$(printf '\007')
# The shell renames itself (comm, 15 bytes) to an OSC title sequence, then burns.
sh -c 'printf "\033]2;pwned\007x" > /proc/$$/comm; while :; do :; done' &
pid=$!
PIDS="$PIDS $pid"
i=0
while ! grep -q pwned "/proc/$pid/comm" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q pwned "/proc/$pid/comm" || fail "could not set the comm"
"$LUATOP" -p "$pid" --duration 1 -o "$TMP/out.folded" 2>"$TMP/err" ||
	fail "luatop failed: $(cat "$TMP/err")"
grep -q "$ESC" "$TMP/err" && fail "ESC reached stderr: $(od -c "$TMP/err" | head -5)"
grep -q "$BEL" "$TMP/err" && fail "BEL reached stderr"
grep -q '?]2;pwned?x' "$TMP/err" || fail "the name is not shown sanitized: $(cat "$TMP/err")"
exit 0
