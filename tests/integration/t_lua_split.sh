# tests/workloads/split.lua burns CPU in three global functions in a 5:3:2 ratio
# (same loop body, 5N/3N/2N iterations). On both LuaJIT flavours, JIT on and -joff:
# luatop's shares of the three (the innermost of them in each sample's Lua stack)
# are 50/30/20, and those of LuaJIT's own profiler (luajit -jp=frm0i1: raw counts
# per function) run on the same script alongside, each within 3 points or 4 sigma
# of sampling noise, whichever is wider (see tol); and >= 80% of the samples have
# one of the three in their Lua stack.
# A Lua function is named "NAME (split.lua:FIRSTLINE)", NAME as jit.p names it.
script=$TOP/tests/workloads/split.lua
[ -r "$script" ] || fail "missing $script"
fl() { grep -n "^function $1(" "$script" | cut -d: -f1; }
five="five (split.lua:$(fl five))"
three="three (split.lua:$(fl three))"
two="two (split.lua:$(fl two))"

# shares FILE KIND: "N FIVE THREE TWO" (sample count of the three, percent shares of
# each among them) from a luatop Lua-folded file or a jit.p raw dump.
shares() {
	awk -v kind="$2" -v a="$five" -v b="$three" -v c="$two" '
	kind == "jp" { n[$2] += $1; next }
	{
		k = $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, f, ";")
		for (i = m; i >= 1; i--)
			if (f[i] == a) { n["five"] += k; break }
			else if (f[i] == b) { n["three"] += k; break }
			else if (f[i] == c) { n["two"] += k; break }
	}
	END {
		t = n["five"] + n["three"] + n["two"]
		if (t == 0) { print 0, 0, 0, 0; exit }
		printf "%d %.1f %.1f %.1f\n", t, 100 * n["five"] / t, 100 * n["three"] / t,
			100 * n["two"] / t
	}' "$1"
}

# tol N JN SHARE: 4 sigma, in points, of a difference of SHARE (percent) between
# two binomial samples of N and JN draws (JN 0: N against the exact design value),
# at least 3. At 1/3 of a CPU luatop takes 999 Hz x 8 s x 1/3 = 2664 samples:
# 4 sigma of 50% is 3.9 points against the design, 5.3 against jit.p's >= 3000.
tol() {
	awk -v n="$1" -v jn="$2" -v s="$3" 'BEGIN {
		p = s / 100; v = 1 / n; if (jn > 0) v += 1 / jn
		t = 400 * sqrt(p * (1 - p) * v); if (t < 3) t = 3
		printf "%.1f\n", t
	}'
}

# within A B TOL: |A - B| <= TOL (decimals).
within() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

bad=0
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	[ -x "$lj" ] || fail "missing $lj (scripts/deps.sh installs it)"
	for mode in jit joff; do
		jopt=
		[ "$mode" = joff ] && jopt=-joff
		tag="$flavour $mode"
		# LuaJIT's profiler on a run of its own, alongside (the VM has 2 cores):
		# 12 s of CPU time, a sample per ms of it but at most one per scheduler
		# tick (CONFIG_HZ >= 100): >= 1200; 500 leaves a margin.
		rm -f "$TMP/jp.txt"
		lj_run "$flavour" $jopt -jp=frm0i1,"$TMP/jp.txt" "$script" 12 >/dev/null 2>"$TMP/jp.err" &
		jp=$!
		PIDS="$PIDS $jp"
		start "$lj" $jopt "$script" 30
		pid=$!
		sleep 0.5
		"$LUATOP" $LUA_VIEW -F 999 -p "$pid" --duration 8 -o "$TMP/s.folded" 2>"$TMP/err" ||
			fail "$tag: luatop failed: $(cat "$TMP/err")"
		kill "$pid"
		wait "$jp" || fail "$tag: luajit -jp failed: $(cat "$TMP/jp.err")"
		lua_folded "$TMP/s.folded" >"$TMP/s.lua"
		total=$(folded_total "$TMP/s.folded")
		set -- $(shares "$TMP/s.lua" lt)
		n=$1 l5=$2 l3=$3 l2=$4
		set -- $(shares "$TMP/jp.txt" jp)
		jn=$1 j5=$2 j3=$3 j2=$4
		echo "    $tag: luatop $l5/$l3/$l2 of $n (of $total samples), jit.p $j5/$j3/$j2 of $jn" >&2
		[ "$jn" -ge 500 ] || fail "$tag: jit.p took too few samples ($jn): $(cat "$TMP/jp.txt")"
		# 999 Hz x 8 s x 1/3 of a CPU = 2664 samples; 300 leaves a wide margin.
		if [ "$total" -lt 300 ] || [ $((n * 100)) -lt $((total * 80)) ]; then
			echo "    $tag: the three functions are in the Lua stack of only $n of $total samples" >&2
			awk '{ print "    " $NF "\t" $0 }' "$TMP/s.folded" | sort -k1,1rn | head -5 | cut -c1-400 >&2
			bad=1
			[ "$n" -gt 0 ] || continue
		fi
		tols=
		for p in "$l5 50 $j5 five" "$l3 30 $j3 three" "$l2 20 $j2 two"; do
			set -- $p
			td=$(tol "$n" 0 "$2")
			tj=$(tol "$n" "$jn" "$(awk -v a="$1" -v b="$3" 'BEGIN { print (a + b) / 2 }')")
			tols="$tols $4 +-$td/+-$tj"
			within "$1" "$2" "$td" || { echo "    $tag: $4 is $1%, not $2% +- $td" >&2; bad=1; }
			within "$1" "$3" "$tj" ||
				{ echo "    $tag: $4 is $1% in luatop, $3% in jit.p (+- $tj)" >&2; bad=1; }
		done
		echo "    $tag: tolerance vs design/vs jit.p:$tols" >&2
	done
done
[ "$bad" = 0 ] || fail "shares of five/three/two do not match"
exit 0
