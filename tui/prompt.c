/*
** A one-line prompt on the status line (search pattern, refresh delay). It
** is a mode of the main loop, not a blocking read: sampling and refreshes go
** on while the user types. Enter accepts, Esc cancels, Backspace and Ctrl-U
** edit.
*/
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"

enum { K_CTRL_H = 8, K_CTRL_U = 21, K_ESC = 27, K_DEL = 127 };

/* Start typing a line of this kind, from text. */
void prompt__open(struct ui *u, enum prompt_kind kind, const char *text)
{
	u->prompt = kind;
	snprintf(u->line, sizeof(u->line), "%s", text ? text : "");
	u->len = strlen(u->line);
}

/* Apply a new refresh delay typed in seconds. */
static void set_delay(struct ui *u, const char *s)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || !isfinite(d) || d < 0.05 || d > 3600) {
		ui__status(u, 1, "delay '%s': give seconds from 0.05 to 3600", s);
		return;
	}
	u->delay = d;
	ui__status(u, 0, "refresh every %g s", d);
}

/* The line is complete: act on it. */
static int accept(struct ui *u)
{
	enum prompt_kind kind = u->prompt;

	u->prompt = PROMPT_NONE;
	if (kind == PROMPT_DELAY) {
		set_delay(u, u->line);
		return RE_REDRAW;
	}
	if (search__set(u, u->line) || !u->search.on)
		return RE_REDRAW;
	ui__relayout(u);
	if (search__step(u, 1))
		ui__status(u, 1, "pattern not found on screen: %s", u->line);
	return RE_REDRAW;
}

/* One key typed into the prompt. */
int prompt__key(struct ui *u, int ch)
{
	switch (ch) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return accept(u);
	case K_ESC:
		u->prompt = PROMPT_NONE;
		return RE_REDRAW;
	case KEY_BACKSPACE:
	case K_DEL:
	case K_CTRL_H:
		if (u->len)
			u->line[--u->len] = '\0';
		return RE_REDRAW;
	case K_CTRL_U:
		u->len = 0;
		u->line[0] = '\0';
		return RE_REDRAW;
	}
	if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && u->len + 1 < sizeof(u->line)) {
		u->line[u->len++] = (char)ch;	/* bytes: UTF-8 arrives a byte at a time */
		u->line[u->len] = '\0';
	}
	return RE_REDRAW;
}
