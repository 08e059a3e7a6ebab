/*
** Key bindings of the live view (research/tui_survey.md c2: htop, less and
** vim habits; hjkl and arrows together; help on ?/F1, not h).
*/
#include <curses.h>

#include "tui/keys.h"

enum { K_CTRL_B = 2, K_CTRL_F = 6, K_CTRL_H = 8, K_CTRL_L = 12, K_ESC = 27, K_DEL = 127 };

const struct keydef keys__table[] = {
	{ { '?', KEY_F(1) }, "? F1", ACT_HELP,
	  "show this help (any key closes it)", "Help", "?" },
	{ { 'h', KEY_LEFT }, "h Left", ACT_LEFT,
	  "select the frame to the left on the same row", NULL, NULL },
	{ { 'l', KEY_RIGHT }, "l Right", ACT_RIGHT,
	  "select the frame to the right on the same row", NULL, NULL },
	{ { 'k', KEY_UP }, "k Up", ACT_UP,
	  "select the caller (parent)", NULL, NULL },
	{ { 'j', KEY_DOWN }, "j Down", ACT_DOWN,
	  "select a callee: the last one visited, else the widest", NULL, NULL },
	{ { 'g', KEY_HOME }, "g Home", ACT_TOP,
	  "select the top frame", NULL, NULL },
	{ { 'G', KEY_END }, "G End", ACT_BOTTOM,
	  "select the deepest frame on the widest path below", NULL, NULL },
	{ { KEY_PPAGE, K_CTRL_B }, "PgUp Ctrl-B", ACT_PAGE_UP,
	  "select the caller a page up", NULL, NULL },
	{ { KEY_NPAGE, K_CTRL_F, ' ' }, "PgDn Ctrl-F Space", ACT_PAGE_DOWN,
	  "select the widest callee a page down", NULL, NULL },
	{ { '\n', '\r', KEY_ENTER }, "Enter", ACT_ZOOM_IN,
	  "zoom into the selected frame", "Zoom", "Enter" },
	{ { K_ESC, KEY_BACKSPACE, K_DEL, K_CTRL_H }, "Esc Backspace", ACT_ZOOM_OUT,
	  "zoom out one level", "Back", "Esc" },
	{ { '0' }, "0", ACT_ZOOM_ROOT,
	  "zoom out to the root", NULL, NULL },
	{ { '/' }, "/", ACT_SEARCH,
	  "search frames by regular expression (lower case: any case)", "Search", "/" },
	{ { 'n' }, "n", ACT_SEARCH_NEXT,
	  "select the next match", NULL, NULL },
	{ { 'N' }, "N", ACT_SEARCH_PREV,
	  "select the previous match", NULL, NULL },
	{ { '*', '#' }, "* #", ACT_SEARCH_SELECTED,
	  "search for the selected frame's name", NULL, NULL },
	{ { 'm' }, "m", ACT_MERGE,
	  "toggle merged Lua+native stacks and raw stacks", "Merge", "m" },
	{ { '!' }, "!", ACT_FALLBACK,
	  "show only fallback stacks (where merging failed), or all again", "Fallback", "!" },
	{ { 'z' }, "z", ACT_FREEZE,
	  "freeze or unfreeze the display; sampling goes on", "Freeze", "z" },
	{ { 'w' }, "w", ACT_WINDOW,
	  "cycle the time window: cumulative, last N seconds, decaying", "Window", "w" },
	{ { 't' }, "t", ACT_TABLE,
	  "toggle the Top table (a row per function) and the icicle", "Top", "t" },
	{ { 'c' }, "c", ACT_CALLERS,
	  "callers (above) and callees (below) of the selected function; Esc returns",
	  "Callers", "c" },
	{ { 'o' }, "o", ACT_SORT,
	  "Top table: sort by self, or by total", NULL, NULL },
	{ { 'T' }, "T", ACT_THREADS,
	  "the thread list: mark threads to show (Space, a), Enter shows them", "Threads", "T" },
	{ { 'b' }, "b", ACT_BASELINE,
	  "diff: take the counts now as a baseline, frames show their change (b: off)",
	  "Diff", "b" },
	{ { 'e' }, "e", ACT_EVENT,
	  "cycle the event: cpu, offcpu (time blocked), wall (both); needs -e offcpu or wall",
	  NULL, NULL },
	{ { 'i' }, "i", ACT_IDLE,
	  "hide or show [idle]: off-CPU waits for events with no Lua frame (an event loop)",
	  NULL, NULL },
	{ { 'R' }, "R", ACT_RESET,
	  "reset the counts to zero (the view is kept)", NULL, NULL },
	{ { 'r' }, "r", ACT_VIEW_RESET,
	  "reset the view: zoom, search, fallback filter (not the counts)", NULL, NULL },
	{ { 's' }, "s", ACT_SNAPSHOT,
	  "save what is shown as luatop-PID-DATE-TIME.folded in the current directory",
	  "Save", "s" },
	{ { 'd' }, "d", ACT_DELAY,
	  "set the refresh interval in seconds", NULL, NULL },
	{ { K_CTRL_L }, "Ctrl-L", ACT_REDRAW,
	  "redraw the screen", NULL, NULL },
	{ { 'q', KEY_F(10) }, "q F10", ACT_QUIT,
	  "quit (Ctrl-C too): detach and restore the terminal", "Quit", "q" },
};

const size_t keys__count = sizeof(keys__table) / sizeof(keys__table[0]);

/* The action bound to code. */
enum action keys__lookup(int code)
{
	for (size_t i = 0; i < keys__count; i++)
		for (int j = 0; j < KEYS_MAX_CODES && keys__table[i].code[j]; j++)
			if (keys__table[i].code[j] == code)
				return keys__table[i].act;
	return ACT_NONE;
}
