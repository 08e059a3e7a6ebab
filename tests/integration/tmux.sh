# Helpers for tests that drive the live view in a detached tmux terminal.
# Source after lib.sh: . "$TOP/tests/integration/tmux.sh". Each test gets its own
# tmux server (socket in $TMP), killed on exit with the other PIDS. Nothing here
# sleeps a fixed time to wait for the screen: tui_wait polls capture-pane.

TUI_SOCK=$TMP/tmux.sock
TUI_CWD=$TMP/cwd		# the pane's directory: snapshots land here
TUI_TERM=${TUI_TERM:-tmux-256color}
TUI_LANG=${TUI_LANG:-C.UTF-8}

command -v tmux >/dev/null 2>&1 || { echo "    tmux is not installed" >&2; exit 77; }
mkdir -p "$TUI_CWD"

tmx() {
	tmux -S "$TUI_SOCK" -f /dev/null "$@"
}

# shquote ARG: ARG quoted for sh.
shquote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# tui_start W H CMD...: run CMD in a W x H terminal (TERM=$TUI_TERM, LANG=$TUI_LANG).
# Afterwards $TMP/tui.rc holds its exit status, $TMP/tui.err its stderr and
# $TMP/tui.stty the terminal modes it left behind; the pane stays open.
tui_start() {
	w=$1 h=$2
	shift 2
	cmd=
	for a in "$@"; do cmd="$cmd $(shquote "$a")"; done
	rm -f "$TMP/tui.rc"
	cat >"$TMP/tui.cmd" <<-EOF
	$cmd 2>$(shquote "$TMP/tui.err")
	echo \$? >$(shquote "$TMP/tui.rc.tmp")
	stty -a >$(shquote "$TMP/tui.stty") 2>&1
	mv $(shquote "$TMP/tui.rc.tmp") $(shquote "$TMP/tui.rc")
	exec sleep 600
	EOF
	tmx new-session -d -s t -x "$w" -y "$h" -c "$TUI_CWD" \
		"env TERM=$TUI_TERM LANG=$TUI_LANG LC_ALL=$TUI_LANG sh $(shquote "$TMP/tui.cmd")" ||
		fail "tmux new-session failed"
	PIDS="$PIDS $(tmx display-message -p '#{pid}')"
}

# tui_screen [-e]: the screen as text (-e: with colour and attribute escapes).
tui_screen() {
	tmx capture-pane -p "$@" -t t
}

# tui_line N: line N (1-based) of the screen.
tui_line() {
	tui_screen | sed -n "${1}p"
}

# tui_keys KEYS...: type keys (tmux send-keys names: Enter, Escape, Up, ...).
tui_keys() {
	tmx send-keys -t t "$@"
}

# tui_type TEXT: type TEXT literally.
tui_type() {
	tmx send-keys -t t -l "$1"
}

# tui_wait ERE [SECONDS]: wait until the screen matches; fail with the screen if not.
tui_wait() {
	end=$(( $(date +%s) + ${2:-15} ))
	while :; do
		tui_screen >"$TMP/screen" 2>/dev/null
		grep -Eq -- "$1" "$TMP/screen" && return 0
		[ -f "$TMP/tui.rc" ] && fail "luatop exited ($(cat "$TMP/tui.rc")) waiting for /$1/: $(cat "$TMP/tui.err" 2>/dev/null)"
		[ "$(date +%s)" -ge "$end" ] && break
		sleep 0.1
	done
	echo "    timed out waiting for /$1/; the screen:" >&2
	sed 's/^/    | /' "$TMP/screen" >&2
	fail "no /$1/ on screen"
}

# tui_wait_line N ERE [SECONDS]: wait until line N matches.
tui_wait_line() {
	end=$(( $(date +%s) + ${3:-15} ))
	while :; do
		tui_line "$1" >"$TMP/line" 2>/dev/null
		grep -Eq -- "$2" "$TMP/line" && return 0
		[ "$(date +%s)" -ge "$end" ] && break
		sleep 0.1
	done
	tui_screen | sed 's/^/    | /' >&2
	fail "line $1 is '$(cat "$TMP/line")', want /$2/"
}

# tui_exit [SECONDS]: wait for the command to end; prints its exit status.
tui_exit() {
	end=$(( $(date +%s) + ${1:-15} ))
	while [ ! -f "$TMP/tui.rc" ]; do
		[ "$(date +%s)" -ge "$end" ] && fail "luatop did not exit; the screen: $(tui_screen)"
		sleep 0.1
	done
	cat "$TMP/tui.rc"
}

# tui_restored: after tui_exit, the terminal is back to normal: main screen,
# cursor shown, line editing and echo on.
tui_restored() {
	[ "$(tmx display-message -p -t t '#{alternate_on}')" = 0 ] || fail "still on the alternate screen"
	[ "$(tmx display-message -p -t t '#{cursor_flag}')" = 1 ] || fail "cursor left hidden"
	grep -Eq '(^| )icanon( |$)' "$TMP/tui.stty" || fail "terminal left in -icanon"
	grep -Eq '(^| )echo( |$)' "$TMP/tui.stty" || fail "terminal left in -echo"
}

# tui_samples: the sample count in the header ("1,234 samples" -> 1234).
tui_samples() {
	tui_line 2 | sed -n 's/.* ~\{0,1\}\([0-9][0-9,]*\) samples.*/\1/p' | tr -d ,
}
