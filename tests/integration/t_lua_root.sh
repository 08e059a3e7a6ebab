# A CPU-bound LuaJIT script, JIT on (tests/workloads/rooted.lua: JIT-compiled loops,
# a function kept in the interpreter, allocation and GC, string library calls, a
# sort with a Lua comparator), on both flavours: >= 99% of all samples have a native
# stack that starts at the process root (_start;__libc_start_main), samples in the
# VM (interpreter and its helpers) and in JIT trace code included, and there are
# enough of both kinds for that to mean something.
script=$TOP/tests/workloads/rooted.lua
bad=0
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	[ -x "$lj" ] || fail "missing $lj (scripts/deps.sh installs it)"
	range=$(vm_range "$lj")
	[ -n "$range" ] || fail "no VM FDE found in $lj"
	start "$lj" "$script" 30
	pid=$!
	sleep 0.5
	"$LUATOP" $LUA_VIEW -F 499 -p "$pid" --duration 8 -o "$TMP/r.folded" 2>"$TMP/err" ||
		fail "$flavour: luatop failed: $(cat "$TMP/err")"
	kill "$pid"
	# Per kind of leaf (the last native user frame): samples, and those rooted.
	# vm: in luajit's VM FDE; trace: JIT code (an anonymous mapping: [unknown], or a
	# name with "trace"); c: anything else (libc, the C parts of luajit).
	set -- $(awk -v lo="$(echo $range | cut -d' ' -f1)" -v hi="$(echo $range | cut -d' ' -f2)" '
	function hex(s,   i, c, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
		return v
	}
	{
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		leaf = ""
		for (i = 1; i <= k && f[i] != "[lua]"; i++) if (f[i] !~ /_\[k\]$/) leaf = f[i]
		kind = "c"
		if (leaf == "" || leaf == "[unknown]" || leaf ~ /trace/) kind = "trace"
		else if (index(leaf, "luajit+0x") == 1) {
			off = hex(substr(leaf, 10))
			if (off >= hex(lo) && off < hex(hi)) kind = "vm"
		}
		n[kind] += c; all += c
		if (k >= 2 && f[1] == "_start" && f[2] == "__libc_start_main") { r[kind] += c; rooted += c }
	}
	END { printf "%d %d %d %d %d %d %d %d\n", all, rooted, n["vm"], r["vm"], n["trace"], r["trace"], n["c"], r["c"] }
	' "$TMP/r.folded")
	echo "    $flavour: rooted $2 of $1 ($(pct "$2" "$1")%); vm $4/$3, trace $6/$5, c $8/$7" >&2
	sed 's/^/    /' "$TMP/err" >&2
	# 499 Hz x 8 s x 1/3 of a CPU = 1330 samples; 400 leaves a wide margin (and
	# still puts 20 samples in the VM's 5% and 80 in the traces' 20% below).
	if [ "$1" -lt 400 ]; then
		echo "    $flavour: too few samples: $1" >&2
		bad=1
	elif [ $(($2 * 100)) -lt $(($1 * 99)) ]; then
		echo "    $flavour: fewer than 99% of the samples reach the root; the others:" >&2
		grep -v '^_start;__libc_start_main;' "$TMP/r.folded" | awk '{ print $NF "\t" $0 }' |
			sort -rn | head -8 | cut -c1-300 | sed 's/^/    /' >&2
		bad=1
	fi
	# The script spends ~15% in the interpreter, ~50% in traces.
	if [ $(($3 * 100)) -lt $(($1 * 5)) ] || [ $(($5 * 100)) -lt $(($1 * 20)) ]; then
		echo "    $flavour: too few samples in the VM ($3) or in trace code ($5)" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || fail "native stacks of LuaJIT samples do not reach the root"
exit 0
