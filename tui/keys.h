/*
** The key table: the one place that binds keys to actions. The help screen,
** the key bar and the man page check (tests/unit/test_tui.c) all read it.
*/
#ifndef LUATOP_TUI_KEYS_H
#define LUATOP_TUI_KEYS_H

#include <stddef.h>

enum action {
	ACT_NONE,
	ACT_QUIT,
	ACT_HELP,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_UP,
	ACT_DOWN,
	ACT_TOP,
	ACT_BOTTOM,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_ZOOM_IN,
	ACT_ZOOM_OUT,
	ACT_ZOOM_ROOT,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_SEARCH_SELECTED,
	ACT_MERGE,
	ACT_FALLBACK,
	ACT_FREEZE,
	ACT_WINDOW,
	ACT_EVENT,
	ACT_TABLE,
	ACT_CALLERS,
	ACT_SORT,
	ACT_THREADS,
	ACT_BASELINE,
	ACT_IDLE,
	ACT_RESET,
	ACT_VIEW_RESET,
	ACT_SNAPSHOT,
	ACT_DELAY,
	ACT_REDRAW,
	ACT__COUNT
};

#define KEYS_MAX_CODES	4

struct keydef {
	int code[KEYS_MAX_CODES];	/* curses key codes, 0-terminated */
	const char *name;		/* the keys as the help and the man page spell them */
	enum action act;
	const char *help;		/* one line for the help screen */
	const char *bar;		/* label in the key bar, NULL if not there */
	const char *barkey;		/* key shown before the label in the bar */
};

extern const struct keydef keys__table[];
extern const size_t keys__count;

/* The action bound to a curses key code, ACT_NONE if none. */
enum action keys__lookup(int code);

#endif
