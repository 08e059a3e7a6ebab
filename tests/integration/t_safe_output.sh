# -o: checked before sampling starts, never through a planted symbolic link or
# over another user's file, replaced atomically when it is ours; write errors
# at the end fail the run and are not reported as written.

# A link planted towards a root-only file: refused, the file untouched, and the
# command never started (the check comes before sampling).
echo secret > "$TMP/secret" && chmod 600 "$TMP/secret"
ln -s "$TMP/secret" "$TMP/link"
expect_error 1 'link is a symbolic link: not followed' \
	"$LUATOP" -o "$TMP/link" --duration 60 -- sh -c "touch '$TMP/ran'"
[ "$(cat "$TMP/secret")" = secret ] || fail "the link's target was written"
[ ! -e "$TMP/ran" ] || fail "the command ran although -o was refused"

# Another user's file is not replaced.
echo theirs > "$TMP/theirs" && chown 65534 "$TMP/theirs"
expect_error 1 'theirs belongs to another user: not replaced' \
	"$LUATOP" -o "$TMP/theirs" --duration 60 -- true
[ "$(cat "$TMP/theirs")" = theirs ] || fail "another user's file was written"

# A directory that does not exist: said at once, before sampling.
expect_error 1 '^luatop: cannot create /nonexistent/x: No such file or directory$' \
	"$LUATOP" -o /nonexistent/x --duration 60 -- sh -c "touch '$TMP/ran'"
[ ! -e "$TMP/ran" ] || fail "the command ran although -o could not be created"
# An existing file where no new one can be made (the profile replaces it by a
# new file renamed over it): the directory is named as the reason.
expect_error 1 '^luatop: cannot replace /proc/version: no new file can be made in /proc [(]No such file or directory[)]$' \
	"$LUATOP" -o /proc/version --duration 60 -- true
mkdir "$TMP/dir"
expect_error 1 "dir is a directory" "$LUATOP" -o "$TMP/dir" --duration 60 -- true

# Our own file is replaced as a whole (a new inode, its mode kept), and no
# temporary file is left next to it. Here and at /dev/full below the profile must
# not be empty: burn 2 runs >= 1 s (time() rounds down), 999 Hz x 1 s x 1/3 of a
# CPU = 333 samples.
echo old > "$TMP/own.folded" && chmod 640 "$TMP/own.folded"
ino=$(stat -c %i "$TMP/own.folded")
"$LUATOP" -F 999 -o "$TMP/own.folded" -- "$WL/burn" 2 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
grep -q 'burn_' "$TMP/own.folded" || fail "own file not replaced by the profile"
[ "$(stat -c %i "$TMP/own.folded")" != "$ino" ] || fail "own file rewritten in place, not replaced"
[ "$(stat -c %a "$TMP/own.folded")" = 640 ] || fail "mode not kept: $(stat -c %a "$TMP/own.folded")"
! ls -a "$TMP" | grep -q '^\.luatop-' || fail "temporary file left: $(ls -a "$TMP")"

# Disk full at the end: an error, a non-zero exit, no "written to".
"$LUATOP" -F 999 -o /dev/full -- "$WL/burn" 2 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "/dev/full: exit $rc, want 1"
grep -q 'cannot write /dev/full: No space left on device' "$TMP/err" || fail "no write error: $(cat "$TMP/err")"
! grep -q 'written to' "$TMP/err" || fail "claims success: $(cat "$TMP/err")"

# A closed standard output.
expect_error 1 'standard output is closed' sh -c "exec '$LUATOP' -o - -- true >&-"
expect_error 1 'cannot write to standard output' sh -c "exec '$LUATOP' --help >&-"
exit 0
