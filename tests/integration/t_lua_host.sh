# A C host embedding libluajit (tests/workloads/luahost, built here against both
# flavours: OpenResty's shared libluajit-5.1.so.2, upstream's static .a) burns CPU at
# four points: Lua -> C -> Lua -> C -> Lua (c_callback, c_nested), under pcall, in a
# table.sort comparator and in a string.gsub callback; at each it writes
# debug.traceback() once. JIT on and off: in the samples whose Lua leaf is a burn
# function, luatop's Lua stack holds every frame of that traceback, in order, with
# the same names (function granularity: NAME (CHUNK:FIRSTLINE), CHUNK:FIRSTLINE when
# unnamed, fast functions by library name, C functions by symbol), and in a second
# run with --lines the same lines (the leaf: the burn loop's line, +- 1). And the
# burn functions are the Lua leaf of >= 80% of all samples, each of >= 10%.
[ -r /usr/include/luajit-2.1/lua.h ] || fail "no OpenResty LuaJIT headers (libluajit2-5.1-dev)"
[ -r "$LJ_UPSTREAM/usr/lib/x86_64-linux-gnu/libluajit-5.1.a" ] ||
	fail "no upstream libluajit-5.1.a in $LJ_UPSTREAM (scripts/deps.sh unpacks it)"
# The script from a short path, so that tracebacks show it whole.
cp "$TOP/tests/workloads/luahost/luahost.lua" "$TMP/luahost.lua"

# The matcher (lua_traceback.awk) prints per point "POINT LEAF OK NFRAMES", then
# the stacks that failed on lines starting with "#".

bad=0 shown=
for flavour in $(lj_flavours); do
	host=$TMP/luahost-$flavour
	out=$(build_lua_host "$flavour" "$host") || fail "cannot build the $flavour host: $out"
	for mode in jit joff; do
		for g in f l; do
			tag="$flavour $mode $([ $g = l ] && echo --lines || echo functions)"
			lines='' what="a burn function"
			[ "$g" = l ] && lines=--lines what="a burn function at its burn loop's line"
			tb=$TMP/tb-$flavour-$mode-$g.txt
			rm -f "$tb"
			start "$host" "$TMP/luahost.lua" 30 "$tb" "$mode"
			pid=$!
			sleep 0.5
			"$LUATOP" $LUA_VIEW $lines -F 499 -p "$pid" --duration 3 -o "$TMP/h.folded" \
				2>"$TMP/err" || fail "$tag: luatop failed: $(cat "$TMP/err")"
			kill "$pid"
			[ "$(grep -c '^== ' "$tb" 2>/dev/null)" = 4 ] ||
				fail "$tag: the host wrote no traceback for some point: $(cat "$tb" 2>&1)"
			lua_folded "$TMP/h.folded" >"$TMP/h.lua"
			total=$(folded_total "$TMP/h.folded")
			awk -v g="$g" -f "$TOP/tests/integration/lua_traceback.awk" "$tb" "$TMP/h.lua" >"$TMP/match"
			# Each point takes about a quarter of the time: ask for 10% as its leaf.
			rbad=0 leaves=0
			while read -r point leaf ok nframes; do
				case $point in '#'*) continue ;; esac
				leaves=$((leaves + leaf))
				echo "    $tag: $point: $ok of $leaf leaf samples hold all $nframes frames (of $total samples)" >&2
				if [ $((leaf * 100)) -lt $((total * 10)) ] || [ "$leaf" -lt 20 ]; then
					echo "    $tag: $point: too few samples with $what as Lua leaf" >&2
					rbad=1
				elif [ $((ok * 100)) -lt $((leaf * 95)) ]; then
					echo "    $tag: $point: the traceback's frames are missing in more than 5% of them" >&2
					rbad=1
				fi
			done <"$TMP/match"
			# Nearly all the time goes to the burn loops.
			if [ $((leaves * 100)) -lt $((total * 80)) ]; then
				echo "    $tag: only $leaves of $total samples have $what as Lua leaf" >&2
				rbad=1
			fi
			if [ "$rbad" != 0 ]; then
				bad=1
				grep '^#' "$TMP/match" | head -12 | cut -c1-400 | sed 's/^/    /' >&2
				if [ -z "$shown" ]; then	# once: the same in every run but the paths
					shown=1
					sed 's/^/    traceback /' "$tb" >&2
				fi
				echo "    $tag: the most frequent Lua stacks:" >&2
				awk '{ print "    " $NF "\t" $0 }' "$TMP/h.lua" | sort -k1,1rn | head -6 | cut -c1-400 >&2
			fi
		done
	done
done
[ "$bad" = 0 ] || fail "luatop's Lua stacks do not match debug.traceback"
exit 0
