# Bad input: one clear line on stderr and a non-zero exit, never a crash.

expect_error 1 '^luatop: no process with PID 999999$' "$LUATOP" -p 999999 --duration 1 -o "$TMP/x"
expect_error 2 'invalid PID' "$LUATOP" -p abc -o "$TMP/x"
expect_error 2 'invalid frequency' "$LUATOP" -p 1 -F 0 -o "$TMP/x"
expect_error 2 'invalid duration' "$LUATOP" -p 1 --duration -3 -o "$TMP/x"
expect_error 2 'no target' "$LUATOP" -o "$TMP/x"
expect_error 2 'unknown option' "$LUATOP" --bogus
expect_error 2 'needs a terminal' "$LUATOP" -p 1
expect_error 1 "cannot run 'no-such-command-xyz'" "$LUATOP" -o "$TMP/x" -- no-such-command-xyz
expect_error 2 '^luatop: option -o needs a file name' "$LUATOP" -p 1 --duration 1 -o ''
expect_error 1 '^luatop: --capture /nonexistent/dir: No such file or directory$' \
	"$LUATOP" --capture /nonexistent/dir -o "$TMP/x" -- no-such-command-xyz
expect_error 2 '^luatop: LUATOP_KSTACK: no such mode' env LUATOP_KSTACK=bogus "$LUATOP" -p 1 --duration 1 -o "$TMP/x"
expect_error 2 '^luatop: LUATOP_TRACE_RULE: no such rule' env LUATOP_TRACE_RULE=bogus "$LUATOP" -p 1 --duration 1 -o "$TMP/x"

# A process we may not trace: run luatop as an unprivileged user against PID 1.
if command -v setpriv >/dev/null; then
	d=$(mktemp -d) && chmod 755 "$d" && cp "$LUATOP" "$d/luatop" && chmod 755 "$d/luatop"
	expect_error 1 'cannot trace PID 1: permission denied' \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$d/luatop" -p 1 --duration 1 -o /dev/null
	rm -rf "$d"
fi

# Root denied (Yama ptrace_scope 3, a security module, PID 1 of another user
# namespace) is not told it needs root.
if "$LUATOP" -p 1 --duration 0.1 -o /dev/null 2>"$TMP/err"; then :; else
	grep -q 'permission denied' "$TMP/err" && grep -q 'needs root' "$TMP/err" &&
		fail "root is told it needs root: $(cat "$TMP/err")"
fi

"$LUATOP" --help | grep -q -- '--duration' || fail "--help does not list --duration"
"$LUATOP" --version | grep -Eq '^luatop [0-9]' || fail "--version"
exit 0
