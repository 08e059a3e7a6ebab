# The target exiting during the live view: the header says EXITED, the data stays
# browsable (moves, zoom) and exportable (s), and the counts stop moving.
. "$TOP/tests/integration/tmux.sh"

tui_start 140 40 "$LUATOP" -F 499 -d 0.2 -- "$WL/burn" 3
tui_wait 'burn_alpha' 40
tui_wait ' EXITED ' 30
n1=$(tui_samples)
echo "    samples at the exit: ${n1:-0}" >&2
# burn starts once the sampler is attached and runs >= 2 s (time() rounds down):
# 499 Hz x 2 s x 1/3 of a CPU = 333 samples; 100 leaves a wide margin.
[ "${n1:-0}" -ge 100 ] || fail "only ${n1:-0} samples of a 3 s run"
tui_type '/^burn_beta$'
tui_keys Enter
tui_wait '^ . burn_beta \[native\]'
tui_keys k
tui_wait '^ . (run_work|all) \[(native|root)\]'	# the first match may be a short stack
tui_type '/^run_work$'
tui_keys Enter
tui_wait '^ . run_work \[native\]'
tui_keys Enter
tui_wait_line 3 '^run_work'
tui_keys s
tui_wait 'saved luatop-[0-9]+-[0-9]{8}-[0-9]{6}\.folded'
snap=$(ls "$TUI_CWD"/luatop-*.folded)
[ "$(tui_samples)" = "$n1" ] || fail "counts moved after the exit: $n1 -> $(tui_samples)"
[ "$(folded_has_count "$snap" '(^|;)run_work(;|$)')" = "$(folded_total "$snap")" ] ||
	fail "the zoomed snapshot holds stacks outside run_work"
grep -q '^_start;\|^main;\|;main;run_work' "$snap" || fail "snapshot stacks do not start at the root"
tui_keys q
rc=$(tui_exit 20)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
tui_restored
exit 0
