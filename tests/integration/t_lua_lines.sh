# Lines inside a JIT trace: tests/workloads/lines.lua's loop body has four lines of
# one, two, three and four statements of one shape, each with a guard and a store.
# With --lines and the JIT on (both flavours), the samples of the body spread over
# its lines as a -joff run of the program spreads them (within 10 points per
# line), instead of all on the line the trace starts at.
script=$TOP/tests/workloads/lines.lua
[ -r "$script" ] || fail "missing $script"
first=$(grep -n '^    t\[band(i, 255)' "$script" | cut -d: -f1)
[ -n "$first" ] || fail "cannot find the loop body in $script"

# per_line FILE: "L1 L2 L3 L4" percent of the samples on the body's four lines
# among those four (the innermost body frame's line in each stack).
per_line() {
	awk -v first="$first" '{
		k = $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, f, ";")
		for (i = m; i >= 1; i--)
			if (match(f[i], /lines\.lua:[0-9]+\)$/)) {
				l = substr(f[i], RSTART + 10, RLENGTH - 11) - first
				if (l >= 0 && l < 4) { n[l] += k; t += k }
				break
			}
	} END {
		for (l = 0; l < 4; l++) printf "%.1f ", t ? 100 * n[l] / t : 0
		printf "%d\n", t
	}' "$1"
}

bad=0
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	[ -x "$lj" ] || fail "missing $lj (scripts/deps.sh installs it)"
	for mode in joff jit; do
		jopt=
		[ "$mode" = joff ] && jopt=-joff
		start "$lj" $jopt "$script" 30
		pid=$!
		sleep 0.5
		"$LUATOP" --lines -F 499 -p "$pid" --duration 4 -o "$TMP/$mode.folded" 2>"$TMP/err" ||
			fail "$flavour $mode: luatop failed: $(cat "$TMP/err")"
		kill "$pid"
	done
	set -- $(per_line "$TMP/joff.folded")
	o1=$1 o2=$2 o3=$3 o4=$4 on=$5
	set -- $(per_line "$TMP/jit.folded")
	j1=$1 j2=$2 j3=$3 j4=$4 jn=$5
	echo "    $flavour: lines 1-4 with -joff $o1/$o2/$o3/$o4 of $on, JIT $j1/$j2/$j3/$j4 of $jn" >&2
	[ "$on" -ge 300 ] && [ "$jn" -ge 300 ] || { echo "    $flavour: too few samples" >&2; bad=1; }
	for p in "1 $o1 $j1" "2 $o2 $j2" "3 $o3 $j3" "4 $o4 $j4"; do
		set -- $p
		awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 10) }' ||
			{ echo "    $flavour: line $1 has $3% with the JIT, $2% with -joff" >&2; bad=1; }
	done
done
[ "$bad" = 0 ] || fail "lines in JIT traces do not match the interpreter's"
exit 0
