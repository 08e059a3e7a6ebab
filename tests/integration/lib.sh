# Helpers for integration tests; sourced by run.sh into each test's shell.
# A test is a shell function body in tests/integration/t_*.sh: exit 0 = pass,
# exit 77 = skip, anything else = fail (print why on stderr).

LUATOP=${LUATOP:-$TOP/.output/luatop}
WL=$TOP/.output/workloads
TMP=$(mktemp -d)
trap 'cleanup_pids; rm -rf "$TMP"' EXIT

PIDS=
cleanup_pids() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	return 0
}

# start CMD...: run a workload in the background and remember its PID in $!.
start() {
	"$@" >/dev/null 2>&1 &
	PIDS="$PIDS $!"
}

fail() {
	echo "    $*" >&2
	exit 1
}

# Total sample count of a folded file.
folded_total() {
	awk '{ n += $NF } END { print n + 0 }' "$1"
}

# Samples whose leaf frame (last before the count) matches an awk regex.
folded_leaf_count() {
	awk -v re="$2" '{
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";");
		if (f[k] ~ re) n += c
	} END { print n + 0 }' "$1"
}

# Samples whose stack contains a frame matching an awk regex (anywhere).
folded_has_count() {
	awk -v re="$2" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ re) n += c } END { print n + 0 }' "$1"
}

# pct A B: integer percent of A in B.
pct() {
	[ "$2" -gt 0 ] || { echo 0; return; }
	echo $(( $1 * 100 / $2 ))
}
