# Terminals: NO_COLOR gives no colour at all (attributes only), an 8-colour TERM
# only the 8 basic colours, a non-UTF-8 locale only ASCII; the view works in each.
. "$TOP/tests/integration/tmux.sh"

printf 'main;work;compute 700\n[fallback];main;-;handler (app.lua:12) 300\n' >"$TMP/x.folded"

# check NAME: the screen in $TMP/color shows the tree and the fallback cue.
check() {
	grep -q 'compute' "$TMP/color" || fail "$1: no tree"
	grep -F '[fallback]' "$TMP/color" | grep -Eq '\[(4|[0-9;]*;4)m' || fail "$1: fallback not underlined"
}

# NO_COLOR: reverse video and underline, no colour escapes.
tui_start 100 20 env NO_COLOR=1 "$LUATOP" -i "$TMP/x.folded"
tui_wait 'compute'
tui_screen -e >"$TMP/color"
check NO_COLOR
grep -Eq '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m' "$TMP/color" &&
	fail "NO_COLOR: colour escapes on screen: $(grep -Eo '\[[0-9;]*m' "$TMP/color" | sort -u | tr '\n' ' ')"
grep -Eq '\[([0-9;]*;)?7(;[0-9;]*)?m' "$TMP/color" || fail "NO_COLOR: boxes not in reverse video"
grep -q '▚\[fallback\]' "$TMP/color" || fail "NO_COLOR: no ▚ mark"
tui_keys q
[ "$(tui_exit 10)" = 0 ] || fail "NO_COLOR: bad exit"
tmx kill-server

# 8 colours (TERM=screen): basic colours only.
rm -f "$TMP/tui.rc"
TUI_TERM=screen tui_start 100 20 "$LUATOP" -i "$TMP/x.folded"
tui_wait 'compute'
tui_screen -e >"$TMP/color"
check 8-colour
grep -q '38;5;\|48;5;' "$TMP/color" && fail "8 colours: 256-colour escapes used"
grep -Eq '\[([0-9;]*;)?4[0-7](;[0-9;]*)?m' "$TMP/color" || fail "8 colours: no background colours"
grep -F '[fallback]' "$TMP/color" | grep -Eq '\[([0-9;]*;)?45(;[0-9;]*)?m' || fail "8 colours: fallback not magenta"
tui_keys q
[ "$(tui_exit 10)" = 0 ] || fail "8 colours: bad exit"
tmx kill-server

# ASCII (LANG=C): no UTF-8 bytes on screen; the fallback mark is '!'.
rm -f "$TMP/tui.rc"
TUI_LANG=C tui_start 100 20 "$LUATOP" -i "$TMP/x.folded"
tui_wait 'compute'
tui_screen >"$TMP/color"
LC_ALL=C grep -q '[^ -~]' "$TMP/color" && fail "ASCII: non-ASCII on screen: $(LC_ALL=C grep '[^ -~]' "$TMP/color")"
grep -q '!\[fallback\]' "$TMP/color" || fail "ASCII: no ! mark"
tui_keys q
[ "$(tui_exit 10)" = 0 ] || fail "ASCII: bad exit"
exit 0
