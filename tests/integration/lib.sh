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

# expect_error RC REGEX ARGS...: luatop ARGS exits RC with exactly one stderr line matching REGEX.
expect_error() {
	want=$1 re=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, want $want: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$*: want one line on stderr, got: $(cat "$TMP/err")"
	grep -Eq -e "$re" "$TMP/err" || fail "$*: stderr '$(cat "$TMP/err")' does not match /$re/"
}

# Total sample count of a folded file.
folded_total() {
	awk '{ n += $NF } END { print n + 0 }' "$1"
}

# Samples whose leaf frame (last before the count) matches an awk regex. The
# regex goes through the environment: -v would take its backslashes as escapes
# in gawk (mawk keeps them).
folded_leaf_count() {
	RE=$2 awk '{
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";");
		if (f[k] ~ ENVIRON["RE"]) n += c
	} END { print n + 0 }' "$1"
}

# Samples whose stack contains a frame matching an awk regex (anywhere).
folded_has_count() {
	RE=$2 awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ ENVIRON["RE"]) n += c
		} END { print n + 0 }' "$1"
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

# fde_starts FILE: the start address of every FDE of FILE (hex, no 0x, no leading 0s).
fde_starts() {
	readelf --debug-dump=frames "$1" 2>/dev/null |
		sed -n 's/.* FDE .*pc=0*\([0-9a-f][0-9a-f]*\)\.\..*/\1/p' | sort -u
}

# unnamed_frames FOLDED MODULE: the distinct unnamed frames of MODULE ("MODULE+0xOFF"),
# as OFF (hex, no 0x), one per line.
unnamed_frames() {
	tr ';' '\n' <"$1" | sed 's/ [0-9]*$//' | grep -F "$2+0x" |
		sed -n "s/^$(printf '%s' "$2" | sed 's/[.]/[.]/g')+0x0*\([0-9a-f][0-9a-f]*\)$/\1/p" | sort -u
}

# not_fde_starts FOLDED MODULE FILE: how many unnamed frames of MODULE (mapped from
# FILE) are not the start of one of FILE's FDEs (prints up to 5 of them to stderr).
not_fde_starts() {
	fde_starts "$3" >"$TMP/fdes.txt"
	unnamed_frames "$1" "$2" | grep -vxF -f "$TMP/fdes.txt" >"$TMP/notfde.txt"
	head -5 "$TMP/notfde.txt" | sed "s/^/    not an FDE start: $2+0x/" >&2
	wc -l <"$TMP/notfde.txt"
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

# --- LuaJIT --------------------------------------------------------------------
# The Lua tests read "the Lua stack" of a sample from luatop's raw view (--raw,
# LUA_VIEW): NATIVE...;KERNEL_[k]...;[lua];LUA1;...;LUAn, native frames root first,
# then the separator frame [lua], then the Lua frames root first. (A merged stack
# that fell back is NATIVE...;[lua];LUA...;KERNEL_[k]...: kernel frames are dropped
# from the Lua part either way.) LUA_VIEW and LUA_STACK_AWK are the one place that
# knows this: change them if the tests should read the Lua frames some other way.
# lua_stack(LINE) returns them ';'-joined, root first, "" when there are none.
LUA_VIEW=--raw
LUA_STACK_AWK='
function lua_stack(line,   s, n, f, i, j, out) {
	s = line; sub(/ [0-9]+$/, "", s)
	n = split(s, f, ";")
	for (i = 1; i <= n; i++) if (f[i] == "[lua]") break
	out = ""
	for (j = i + 1; j <= n; j++)
		if (f[j] !~ /_\[k\]$/) out = out (out == "" ? "" : ";") f[j]
	return out
}'

# lua_stack_of_line LINE: the Lua part of one folded line (see LUA_STACK_AWK).
lua_stack_of_line() {
	printf '%s\n' "$1" | awk "$LUA_STACK_AWK"'{ print lua_stack($0) }'
}

# lua_folded FILE: FILE reduced to its Lua stacks, as folded lines "LUA1;...;LUAn COUNT"
# (root first, equal stacks summed); samples without Lua frames are left out. The
# other folded_* helpers work on it (a Lua frame name may hold spaces, never ';').
lua_folded() {
	awk "$LUA_STACK_AWK"'{ s = lua_stack($0); if (s != "") c[s] += $NF }
		END { for (s in c) print s, c[s] }' "$1" | sort
}

# The two LuaJIT flavours: OpenResty's luajit2 installed system-wide, and upstream's
# unpacked by scripts/deps.sh into .deps (its luajit statically linked, and its own
# jit/*.lua modules, which its default package.path does not find).
LJ_UPSTREAM=$TOP/.deps/luajit-upstream
lj_flavours() {
	echo openresty upstream
}

# lj_bin FLAVOUR: the luajit executable of FLAVOUR.
lj_bin() {
	case $1 in
	openresty) echo /usr/bin/luajit ;;
	upstream) echo "$LJ_UPSTREAM/usr/bin/luajit" ;;
	esac
}

# lj_run FLAVOUR ARGS...: run FLAVOUR's luajit (with the jit.* modules of that
# flavour), killed after 120 s at the latest.
lj_run() {
	_f=$1
	shift
	if [ "$_f" = upstream ]; then
		LUA_PATH="$LJ_UPSTREAM/usr/share/luajit-2.1.0-beta3/?.lua;;" \
			timeout 120 "$(lj_bin upstream)" "$@"
	else
		timeout 120 "$(lj_bin "$_f")" "$@"
	fi
}

# merge_run OUT COMMAND...: start COMMAND, profile it 4 s at 499 Hz with
# --mark-fallback into OUT after 0.5 s of start-up, stop it; then OUT.merged holds
# OUT's merged stacks, and $total and $fb the samples and fallback stacks.
merge_run() {
	_out=$1
	shift
	start "$@"
	_pid=$!
	sleep 0.5
	"$LUATOP" -F 499 -p "$_pid" --duration 4 --mark-fallback -o "$_out" 2>"$TMP/err" ||
		fail "luatop failed: $(grep -v '^libbpf' "$TMP/err")"
	kill "$_pid"
	total=$(folded_total "$_out")
	fb=$(folded_has_count "$_out" '^\[fallback\];')
	grep -v '^\[fallback\];' "$_out" >"$_out.merged"
}

# merge_checks OUT TAG: after merge_run, fail unless OUT has 200 samples or more
# (499 Hz x 4 s of a busy thread is ~2,000) and at most 0.5% of them plus 10
# fallback stacks (a burst of a few at a time), showing the commonest.
merge_checks() {
	[ "$total" -ge 200 ] || fail "$2: too few samples: $total"
	[ "$fb" -le $((total / 200 + 10)) ] || {
		grep '^\[fallback\]' "$1" | awk '{ print $NF "\t" $0 }' | sort -rn | head -3 |
			cut -c1-300 >&2
		fail "$2: $fb fallback stacks, more than 0.5% of $total plus 10"
	}
}

# build_lua_host FLAVOUR OUT: build tests/workloads/luahost/luahost.c into OUT, linked
# with FLAVOUR's libluajit: OpenResty's shared libluajit-5.1.so.2, upstream's static
# libluajit-5.1.a. Prints the compiler's complaint and returns 1 on failure.
build_lua_host() {
	case $1 in
	openresty)
		cc -O2 -g -Wall -I/usr/include/luajit-2.1 -o "$2" \
			"$TOP/tests/workloads/luahost/luahost.c" -lluajit-5.1 ;;
	upstream)
		cc -O2 -g -Wall -I"$LJ_UPSTREAM/usr/include/luajit-2.1" -o "$2" \
			"$TOP/tests/workloads/luahost/luahost.c" \
			"$LJ_UPSTREAM/usr/lib/x86_64-linux-gnu/libluajit-5.1.a" -lm -ldl ;;
	*) echo "unknown LuaJIT flavour $1"; return 1 ;;
	esac >"$TMP/cc.log" 2>&1 || { cat "$TMP/cc.log"; return 1; }
}

# free_port, and nginx with the Lua module: scripts/nginx-lua.sh.
. "$TOP/scripts/nginx-lua.sh"

# nginx_up WORKERS APP.lua: nginx with WORKERS workers serving APP's handler on
# a free port of 127.0.0.1, or the test fails saying why: sets $port, $master
# and $workers (the workers' PIDs); stop_nginx stops it.
nginx_up() {
	port=$(free_port) || fail "no free TCP port"
	ngl_conf "$TMP/nginx" "$port" "$1" "$2" || fail "$NGL_ERR"
	# shellcheck disable=SC2046
	start nginx $(ngl_args "$TMP/nginx")
	master=$!
	workers=$(ngl_wait "$TMP/nginx" "$master" "$port" "$1") || { stop_nginx; fail "$workers"; }
}
stop_nginx() { ngl_stop "$master"; }

# merge_rate ERRFILE: the percentage (integer) of samples with Lua frames that merged,
# from luatop's batch summary ("...; 99.6% of the 1234 samples with Lua frames").
merge_rate() {
	sed -n 's/.*; \([0-9]*\)\.[0-9]*% of the [0-9]* samples with Lua frames.*/\1/p' "$1" | tail -1
}

# count_vm_frames FOLDED MODULE LO HI: samples with a frame left in the VM code:
# "MODULE+0xOFF" with OFF in [LO, HI) (hex, stripped builds), or a VM symbol
# (lj_BC_*, lj_vm_*: unstripped builds), or JIT code ([unknown]).
count_vm_frames() {
	awk -v mod="$2" -v lo="$3" -v hi="$4" -v show="${VM_SHOW:-0}" '
	function hex(s,   i, c, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
		return v
	}
	{
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); vm = 0
		for (i = 1; i <= k; i++) {
			if (f[i] ~ /^(lj_BC_|lj_vm_)/ || f[i] == "[unknown]") vm = 1
			if (index(f[i], mod "+0x") == 1) {
				off = hex(substr(f[i], length(mod) + 4))
				if (off >= hex(lo) && off < hex(hi)) vm = 1
			}
		}
		n += vm * c
		if (vm && show && shown++ < 3) print "    VM frame left: " substr($0, 1, 400) > "/dev/stderr"
	} END { print n + 0 }' "$1"
}
