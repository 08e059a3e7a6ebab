# JIT traces inline small functions: tests/workloads/inline.lua's loop calls two
# leaf functions with identical bodies once and three times per iteration, so
# that the machine code of its trace is 1:3 by construction. With the JIT on (both
# flavours), luatop must put the inlined callees back into the stacks: at least 70%
# of the samples in one of them (the trace's own code is the loop's), and
# leaf_a:leaf_b at 25/75 within 10 points, as -joff runs of the same program show.
# The snapshot of (nearly) every sample in a trace must be found.
script=$TOP/tests/workloads/inline.lua
[ -r "$script" ] || fail "missing $script"

# shares FILE: "N A B LOOP" (samples under loop, and percent in leaf_a, leaf_b and
# loop itself: the innermost of the three in each stack).
shares() {
	awk '{
		k = $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, f, ";"); w = ""
		for (i = m; i >= 1 && w == ""; i--)
			if (f[i] ~ /^(leaf_a|leaf_b|loop) \(inline\.lua:[0-9]+\)$/) w = f[i]
		sub(/ .*/, "", w)
		if (w != "") { n[w] += k; t += k }
	} END {
		if (!t) { print 0, 0, 0, 0; exit }
		printf "%d %.1f %.1f %.1f\n", t, 100 * n["leaf_a"] / t, 100 * n["leaf_b"] / t,
			100 * n["loop"] / t
	}' "$1"
}

# pct_of A B: A as a percentage of A + B (one decimal).
pct_of() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", a + b ? 100 * a / (a + b) : 0 }'
}

bad=0
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	[ -x "$lj" ] || fail "missing $lj (scripts/deps.sh installs it)"
	for mode in jit joff; do
		jopt=
		[ "$mode" = joff ] && jopt=-joff
		tag="$flavour $mode"
		start "$lj" $jopt "$script" 30
		pid=$!
		sleep 0.5
		"$LUATOP" -F 499 -p "$pid" --duration 4 -o "$TMP/i.folded" 2>"$TMP/err" ||
			fail "$tag: luatop failed: $(cat "$TMP/err")"
		kill "$pid"
		set -- $(shares "$TMP/i.folded")
		n=$1 a=$2 b=$3 loop=$4
		callees=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f\n", a + b }')
		ratio=$(pct_of "$a" "$b")
		mapped=$(sed -n 's/.*: \([0-9]*\)\.[0-9]*% of the [0-9]* samples in JIT traces mapped.*/\1/p' "$TMP/err")
		echo "    $tag: $n samples: leaf_a $a%, leaf_b $b%, loop $loop%;" \
			"leaf_a:leaf_b $ratio:$(awk -v r="$ratio" 'BEGIN { print 100 - r }');" \
			"trace samples mapped ${mapped:--}%" >&2
		[ "$n" -ge 300 ] || { echo "    $tag: too few samples ($n)" >&2; bad=1; continue; }
		awk -v c="$callees" 'BEGIN { exit !(c >= 70) }' ||
			{ echo "    $tag: only $callees% in the callees" >&2; bad=1; }
		awk -v r="$ratio" 'BEGIN { exit !(r >= 15 && r <= 35) }' ||
			{ echo "    $tag: leaf_a is $ratio% of the callees, not 25 +- 10" >&2; bad=1; }
		if [ "$mode" = jit ] && [ "${mapped:-0}" -lt 90 ]; then
			echo "    $tag: $(grep -A6 'JIT traces' "$TMP/err")" >&2
			bad=1
		fi
	done
done
[ "$bad" = 0 ] || fail "inlined callees not attributed"
exit 0
