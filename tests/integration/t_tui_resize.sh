# Resizing the live view: down to the 40x10 minimum, below it (the "too small"
# screen, sampling goes on), and back; many quick resizes; nothing crashes.
. "$TOP/tests/integration/tmux.sh"

start "$WL/burn" 120
pid=$!
tui_start 120 40 "$LUATOP" -d 0.2 -p "$pid"
tui_wait 'burn_alpha' 40
tmx resize-window -t t -x 40 -y 10
tui_wait '^ luatop'
tui_wait '^all'
tui_wait '^\? Enter Esc'	# the key bar shows keys only when narrow
tmx resize-window -t t -x 30 -y 8
tui_wait 'Terminal size too small'
tui_wait 'Width = 30 Height = 8'
tui_wait 'Needed: 40 x 10'
n1=$(cat "$TMP/tui.rc" 2>/dev/null)
[ -z "$n1" ] || fail "luatop exited on a small terminal"
tmx resize-window -t t -x 120 -y 40
tui_wait 'burn_alpha'
tui_wait 'burn_beta'
for size in 41x11 200x60 40x10 80x24 10x3 160x50 1x1 120x40; do
	tmx resize-window -t t -x "${size%x*}" -y "${size#*x}"
done
tui_wait 'burn_alpha'
tui_wait_line 2 'samples'
tui_keys q
rc=$(tui_exit 20)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$TMP/tui.err")"
tui_restored
exit 0
