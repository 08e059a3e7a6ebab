# The Top table and the callers/callees view on live LuaJIT programs of our own.
# split.lua burns CPU in five, three and two in a 5:3:2 ratio: t shows the Top
# table with them in that order, their self shares within 3 points of 50/30/20 of
# their sum; Enter on the first row opens its callers and callees (the main
# chunk calls it); Esc returns to the table; /^two selects two's row, and Enter
# opens two's; t returns to the icicle. callers.lua calls
# leaf from from_a and from_b in a 3:1 ratio: c on leaf shows both callers, with
# 75% and 25% of leaf's time within 5 points.
. "$TOP/tests/integration/tmux.sh"

start luajit "$TOP/tests/workloads/split.lua" 120
pid=$!
tui_start 200 45 "$LUATOP" -F 499 -d 0.3 -p "$pid"
tui_wait 'five \(split\.lua' 40
sleep 3		# samples enough for shares: 499 Hz x 3 s
tui_keys t
tui_wait ' TOP '
tui_wait 'SELF%  TOTAL%'
tui_wait 'two \(split\.lua'
tui_keys z	# freeze, so that the rows read are of one moment
tui_wait 'FROZEN'
rows=$(tui_screen | awk '/^ *[0-9.]+% .* (five|three|two) \(split\.lua:[0-9]+\)/ {
	sub(/%/, "", $1); print $5, $1 }')
order=$(echo "$rows" | awk '{ printf "%s ", $1 }')
[ "$order" = "five three two " ] || fail "Top table order: '$order', want five three two"
shares=$(echo "$rows" | awk '{ v[NR] = $2; s += $2 } END {
	printf "%d %d %d", 1000 * v[1] / s, 1000 * v[2] / s, 1000 * v[3] / s }')
echo "    Top table: five three two at $shares per mille of their sum" >&2
set -- $shares
for pair in "$1 500" "$2 300" "$3 200"; do
	set -- $pair
	d=$(($1 - $2))
	[ ${d#-} -le 30 ] || fail "Top table shares $shares, not within 3 points of 500/300/200"
done
tui_keys z
tui_keys g Enter
tui_wait ' CALLERS / CALLEES '
tui_wait 'split\.lua:0 100\.0%'
tui_keys Escape
tui_wait ' TOP '
tui_type '/^two'	# the search selects the matching row: Enter opens it
tui_keys Enter
tui_keys Enter
tui_wait ' CALLERS / CALLEES '
tui_wait 'two \(split\.lua:[0-9]+\) '
! tui_screen | grep -q 'five (split' || fail "two's callers/callees show five: $(tui_screen)"
tui_keys Escape
tui_wait ' TOP '
tui_keys t
tui_wait_line 3 '^all'
tui_keys q
[ "$(tui_exit)" = 0 ] || fail "luatop did not exit 0"
kill "$pid"
tmx kill-session -t t	# the pane stays open after the command: a new one next

start luajit "$TOP/tests/workloads/callers.lua" 120
pid=$!
tui_start 200 45 "$LUATOP" -F 499 -d 0.3 -p "$pid"
tui_wait 'from_b \(callers\.lua' 40
sleep 3
tui_type '/^leaf'
tui_keys Enter
tui_wait '^ . leaf \(callers\.lua:[0-9]+\) \[Lua'
tui_keys c
tui_wait ' CALLERS / CALLEES '
tui_wait 'from_a \(callers\.lua:[0-9]+\) [0-9.]+%'
tui_wait 'from_b \(callers\.lua:[0-9]+\) [0-9.]+%'
tui_keys z
tui_wait 'FROZEN'
a=$(tui_screen | sed -n 's/.*from_a (callers\.lua:[0-9]*) \([0-9]*\)\.[0-9]%.*/\1/p' | head -1)
b=$(tui_screen | sed -n 's/.*from_b (callers\.lua:[0-9]*) \([0-9]*\)\.[0-9]%.*/\1/p' | head -1)
echo "    callers of leaf: from_a ${a}%, from_b ${b}%" >&2
[ -n "$a" ] && [ -n "$b" ] || fail "no shares for the callers: $(tui_screen | head -20)"
d=$((a - 75)) e=$((b - 25))
[ ${d#-} -le 5 ] && [ ${e#-} -le 5 ] || fail "callers' shares $a/$b, want 75/25 within 5 points"
tui_keys Escape
tui_wait_line 3 '^all'
tui_keys q
[ "$(tui_exit)" = 0 ] || fail "luatop did not exit 0"
