# Lua functions named by their definition site (tests/workloads/tailcall.lua): a
# local function reached by a tail call (handle does `return checksum(n)`) is
# checksum, not its caller's call-site name handle; a comparator called by
# table.sort (no Lua call site) is compare, not tailcall.lua:LINE; a function called
# through an alias is work, not alias. Both flavours, JIT on and -joff, in the
# export; and in the live view.
fn() { echo "(^|;)$1 \\(tailcall[.]lua:[0-9]+\\)(;|\$)"; }
for flavour in $(lj_flavours); do
	for mode in jit joff; do
		j=; [ "$mode" = joff ] && j=-joff
		start "$(lj_bin "$flavour")" $j "$TOP/tests/workloads/tailcall.lua" 30
		pid=$!
		sleep 0.5
		"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/t.folded" 2>"$TMP/err" ||
			fail "luatop failed: $(cat "$TMP/err")"
		kill "$pid"
		total=$(folded_total "$TMP/t.folded")
		checksum=$(folded_has_count "$TMP/t.folded" "$(fn checksum)")
		compare=$(folded_has_count "$TMP/t.folded" "$(fn compare)")
		work=$(folded_has_count "$TMP/t.folded" "$(fn work)")
		wrong=$(folded_has_count "$TMP/t.folded" '(^|;)(alias \(|tailcall[.]lua:[1-9][0-9]*(;|$))')
		# handle itself runs a few instructions per 200000-step checksum call:
		# by design ~0%, so at most 2% of the samples may be its own.
		handle=$(folded_has_count "$TMP/t.folded" "$(fn handle)")
		echo "    $flavour $mode: samples=$total checksum=$checksum compare=$compare" \
			"work=$work handle=$handle misnamed=$wrong" >&2
		[ "$total" -ge 200 ] || fail "too few samples: $total"
		# By design checksum takes about 2/3 of the time, the sort about 1/3.
		[ $((checksum * 4)) -ge "$total" ] || {
			awk '{ print $NF "\t" $0 }' "$TMP/t.folded" | sort -rn | head -4 | cut -c1-300 >&2
			fail "$flavour $mode: checksum is not named (or missing)"
		}
		[ $((compare * 10)) -ge "$total" ] || fail "$flavour $mode: compare is not named"
		[ "$work" -ge "$compare" ] || fail "$flavour $mode: work is not named"
		[ $((handle * 50)) -le "$total" ] || fail "$flavour $mode: checksum's time is named handle"
		[ "$wrong" = 0 ] || {
			grep -E 'alias \(|tailcall[.]lua:[1-9]' "$TMP/t.folded" | head -3 >&2
			fail "$flavour $mode: $wrong samples with a call-site or chunk:line name"
		}
	done
done

# The live view names them the same.
. "$TOP/tests/integration/tmux.sh"
tui_start 160 45 "$LUATOP" -d 0.3 -- "$(lj_bin openresty)" "$TOP/tests/workloads/tailcall.lua" 120
tui_wait 'checksum \(tailcall[.]lua:[0-9]+\)' 40
tui_wait 'work \(tailcall[.]lua:[0-9]+\)' 20
tui_screen | grep -Eq 'handle \(|alias \(' && { tui_screen >&2; fail "a call-site name in the live view"; }
tui_keys q
rc=$(tui_exit 20)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
exit 0
