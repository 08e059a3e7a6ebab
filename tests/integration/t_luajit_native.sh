# Debian's stripped luajit (both flavours: OpenResty's luajit2 system-wide, upstream
# unpacked in .deps) running C library code: >= 99% of the samples whose leaf is
# outside the VM and JIT code unwind to the process root (_start -> __libc_start_main).
# With -joff: C code called from JIT traces can only be unwound through the trace by
# the LuaJIT issue's cframe rule; here C code is called from the interpreter, whose
# one .eh_frame FDE (CFA = rsp+80) holds at its call sites.
for lj in /usr/bin/luajit "$TOP/.deps/luajit-upstream/usr/bin/luajit"; do
	[ -x "$lj" ] || fail "missing $lj (scripts/deps.sh installs it)"
	range=$(vm_range "$lj")
	[ -n "$range" ] || fail "no VM FDE found in $lj"
	start "$lj" -joff "$TOP/tests/workloads/clib.lua" 30
	pid=$!
	sleep 0.5
	"$LUATOP" -F 499 -p "$pid" --duration 4 -o "$TMP/lj.folded" 2>"$TMP/err" ||
		fail "luatop failed on $lj: $(cat "$TMP/err")"
	kill "$pid"
	set -- $(count_rooted_outside_vm "$TMP/lj.folded" luajit $range)
	total=$(folded_total "$TMP/lj.folded")
	echo "    $lj: samples=$total outside-VM=$1 rooted=$2 ($(pct "$2" "$1")%)" >&2
	sed 's/^/    /' "$TMP/err" >&2
	# 499 Hz x 4 s x 1/3 of a CPU = 665 samples, most of them in the C library
	# (clib.lua's loop does little but call it): 50 outside the VM leaves a wide
	# margin; at such counts the 99% below allows a few odd stacks, not none.
	[ "$1" -ge 50 ] || fail "too few samples outside the VM: $1"
	[ $(($2 * 100)) -ge $(($1 * 99)) ] || {
		awk '{ print $NF "\t" $0 }' "$TMP/lj.folded" | sort -rn | head -8 >&2
		fail "$lj: fewer than 99% of samples outside the VM reach the root"
	}
done
exit 0
