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

# vm_range FILE: "LO HI" (hex, no 0x) of the LuaJIT VM in FILE: the .eh_frame FDE
# that spans more than 10 KB with CFA = rsp+80 (buildvm's single FDE for lj_vm).
vm_range() {
	readelf -wf "$1" 2>/dev/null | while read -r a b c d e f; do
		case "$d $f" in
		FDE*pc=*)
			r=${f#pc=}; lo=${r%%..*}; hi=${r##*..}
			big=$(( 0x$hi - 0x$lo > 10000 ))
			;;
		*)
			if [ "${big:-0}" = 1 ] && [ "$a $b" = "DW_CFA_def_cfa_offset: 80" ]; then
				printf '%x %x\n' $((0x$lo)) $((0x$hi))
				return
			fi
			big=0
			;;
		esac
	done
}

# Leaf classification of a folded file: prints "outside rooted" counts for samples
# whose last user frame is outside the VM range of MODULE (LO..HI) and outside
# anonymous JIT code ([unknown]); rooted = the stack starts ROOT;__libc_start_main.
count_rooted_outside_vm() {
	awk -v mod="$2" -v lo="$3" -v hi="$4" '
	function hex(s,   i, c, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
		return v
	}
	{
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		leaf = ""
		for (i = k; i >= 1; i--) if (f[i] !~ /_\[k\]$/) { leaf = f[i]; break }
		if (leaf == "[unknown]") next
		if (index(leaf, mod "+0x") == 1) {
			off = hex(substr(leaf, length(mod) + 4))
			if (off >= hex(lo) && off < hex(hi)) next
		}
		out += c
		if (k >= 2 && f[2] == "__libc_start_main") rooted += c
	} END { print out + 0, rooted + 0 }' "$1"
}
