# Code no symbol names is named by its function: on Debian's stripped luajit (both
# flavours) running string-heavy Lua (gsub, format, find, concat), every unnamed
# "luajit+0x..." frame is the start of one of the binary's FDEs (readelf), and
# --raw, which keeps the exact addresses, shows more distinct frames under
# string.gsub than the default (one frame per function) does. Both luatops sample
# one run of the workload at the same time.
for lj in /usr/bin/luajit "$TOP/.deps/luajit-upstream/usr/bin/luajit"; do
	[ -x "$lj" ] || fail "missing $lj (scripts/deps.sh installs it)"
	start "$lj" "$TOP/tests/workloads/strings.lua" 30
	pid=$!
	sleep 0.5
	"$LUATOP" -F 499 -p "$pid" --duration 4 -o "$TMP/f.folded" 2>"$TMP/err" &
	a=$!
	"$LUATOP" --raw -F 499 -p "$pid" --duration 4 -o "$TMP/r.folded" 2>"$TMP/err.raw" ||
		fail "luatop --raw failed on $lj: $(cat "$TMP/err.raw")"
	wait "$a" || fail "luatop failed on $lj: $(cat "$TMP/err")"
	kill "$pid"
	under_gsub() {	# distinct frames below string.gsub
		grep 'string[.]gsub' "$1" | sed 's/.*string[.]gsub;//; s/ [0-9]*$//' |
			tr ';' '\n' | sort -u | wc -l
	}
	total=$(folded_total "$TMP/f.folded")
	bad=$(not_fde_starts "$TMP/f.folded" luajit "$lj")
	funcs=$(unnamed_frames "$TMP/f.folded" luajit | wc -l)
	g=$(under_gsub "$TMP/f.folded") graw=$(under_gsub "$TMP/r.folded")
	echo "    $lj: samples=$total unnamed=$funcs not-FDE-starts=$bad" \
		"frames under gsub: $g (--raw: $graw)" >&2
	[ "$total" -ge 200 ] || fail "too few samples: $total"
	[ "$funcs" -ge 1 ] || fail "$lj: no unnamed luajit frame at all (is it stripped?)"
	[ "$bad" -eq 0 ] || fail "$lj: $bad unnamed frames are not FDE starts"
	[ "$g" -lt "$graw" ] || fail "$lj: one frame per function should show fewer frames under gsub than --raw"
done
exit 0
