# The live view on a running program (burn: main -> run_work -> burn_alpha/beta):
# the icicle shows its functions; m flips MERGED/RAW; / finds and n moves; Enter
# zooms and Esc returns; z freezes and s writes a snapshot whose total is the
# header's count, never over an existing file or through a symlink; q exits 0
# with the terminal restored.
. "$TOP/tests/integration/tmux.sh"

start "$WL/burn" 120
pid=$!
tui_start 160 45 "$LUATOP" -d 0.2 -p "$pid"
tui_wait 'burn_alpha' 40
tui_wait 'burn_beta'
tui_wait 'run_work'
tui_wait ' LIVE '
tui_wait_line 1 "PID $pid \\(burn\\)"

# m: merged <-> raw, live. Until Lua/native merging lands, both trees hold the same
# native stacks, so only the badge can change; the tree changing is for later.
tui_wait ' MERGED '
tui_keys m
tui_wait ' RAW '
tui_wait 'burn_alpha'
tui_keys m
tui_wait ' MERGED '

# /: a regex search selects the first match on screen; n and N walk the matches.
# (Which burn_ comes first in reading order depends on the samples: early ones may
# have short stacks. A match's identity is its path: the breadcrumb line.)
sel_id() {
	tui_screen | sed -n '/^ . [^ ]* \[/{n;p;}'
}
tui_keys / b u r n _ Enter
tui_wait 'match /burn_/'
tui_wait '^ . burn_(alpha|beta) \[native\]'
first=$(sel_id)
tui_keys n
tui_wait '^ . burn_(alpha|beta) \[native\]'
i=0
while [ "$(sel_id)" = "$first" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(sel_id)" != "$first" ] || fail "n did not move: $first"
tui_keys N
i=0
while [ "$(sel_id)" != "$first" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(sel_id)" = "$first" ] || fail "N did not come back to $first: $(sel_id)"

# Enter zooms: the selected frame becomes the top row, its callers go to the
# breadcrumb; Esc zooms back out to the root.
tui_type '/^run_work$'
tui_keys Enter
tui_wait '^ . run_work \[native\]'
tui_wait_line 3 '^all'
tui_keys Enter
tui_wait_line 3 '^run_work'
tui_wait 'of zoom'
tui_wait_line 4 '^burn_(alpha|beta)'
tui_keys Escape
tui_wait_line 3 '^all'
tui_wait '^ . run_work \[native\]'	# the selection stays

# z freezes the display while sampling goes on; the snapshot is what is shown.
tui_wait '[0-9]{3} samples' 20
tui_keys z
tui_wait 'FROZEN'
n1=$(tui_samples)
tui_wait 'new\)'
[ "$(tui_samples)" = "$n1" ] || fail "the frozen count moved: $n1 -> $(tui_samples)"
tui_keys s
tui_wait "saved luatop-$pid-[0-9]{8}-[0-9]{6}\\.folded \\([0-9,]+ samples\\)"
snap=$(ls "$TUI_CWD"/luatop-"$pid"-*.folded)
[ "$(echo "$snap" | wc -l)" = 1 ] || fail "want one snapshot, got: $snap"
total=$(folded_total "$snap")
echo "    header samples=$n1 snapshot total=$total" >&2
[ "$total" = "$n1" ] || fail "snapshot total $total != header count $n1"
[ "$(folded_leaf_count "$snap" '^burn_(alpha|beta)$')" -ge $((total * 9 / 10)) ] ||
	fail "snapshot leaves are not burn_*"
grep -Evq '^[^ ].* [1-9][0-9]*$' "$snap" && fail "malformed folded line in $snap"
LC_ALL=C sort -c "$snap" || fail "snapshot not sorted"

# Never clobber, never follow a symlink: names for the next seconds already exist
# as symlinks to a file that must stay untouched.
echo keep >"$TMP/victim"
now=$(date +%s)
for i in 0 1 2 3 4 5 6 7 8 9; do
	name=$TUI_CWD/luatop-$pid-$(date -d "@$((now + i))" +%Y%m%d-%H%M%S).folded
	[ -e "$name" ] || ln -s "$TMP/victim" "$name"
done
tui_keys s
tui_wait "saved luatop-$pid-[0-9]{8}-[0-9]{6}-2\\.folded"
[ "$(cat "$TMP/victim")" = keep ] || fail "a snapshot was written through a symlink"
second=$(find "$TUI_CWD" -name "luatop-$pid-*-2.folded" -type f)
[ -n "$second" ] && [ "$(folded_total "$second")" = "$n1" ] || fail "second snapshot wrong"

tui_keys z
tui_wait ' LIVE '

# q: exit status 0, terminal restored, snapshot paths printed after the screen.
tui_keys q
rc=$(tui_exit 20)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
tui_restored
grep -q "snapshot saved to $snap" "$TMP/tui.err" || fail "no snapshot path on stderr: $(cat "$TMP/tui.err")"
exit 0
