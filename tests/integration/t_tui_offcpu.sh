# The live view with -e offcpu on a nginx-like program of our own: offcpu.lua
# (handler -> burn / nap -> usleep / wait_pipe). The header shows the event
# badge OFF-CPU and a time, not a sample count; the icicle shows nap and
# wait_pipe; e cycles to WALL (burn shows up: it runs) and to CPU (a sample
# count again) and back; i hides [idle] stacks (there are none here, so only
# the badge and the status line change); q exits 0.
. "$TOP/tests/integration/tmux.sh"

start luajit "$TOP/tests/workloads/offcpu.lua" 120
pid=$!
tui_start 160 45 "$LUATOP" -e offcpu -d 0.2 -p "$pid"
tui_wait ' OFF-CPU ' 40
tui_wait 'nap \(offcpu\.lua:'
tui_wait 'wait_pipe \(offcpu\.lua:'
tui_wait_line 2 '[0-9.]+ (us|ms|s) off-CPU'
tui_keys e
tui_wait ' WALL '
tui_wait 'burn \(offcpu\.lua:'
tui_wait_line 2 '[0-9.]+ (us|ms|s) wall'
tui_keys e
tui_wait ' CPU '
tui_wait_line 2 '[0-9,]+ samples'
tui_keys e
tui_wait ' OFF-CPU '
tui_keys i
tui_wait 'idle waits \(\[idle\]\) hidden'
tui_keys i
tui_wait 'idle waits shown'
tui_keys q
[ "$(tui_exit)" = 0 ] || fail "luatop did not exit 0"
