/*
** The thread list (T): every thread samples came from, with its process, name
** and share of the event shown; Space marks the ones to show, a marks all or
** none, Enter shows the marked ones (the counts start again: the profile keeps
** their samples only from then on), Esc closes the list as it was.
*/
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/colors.h"
#include "tui/ui.h"

enum { K_ESC = 27 };

/* Read the threads from the feed into u->threads, marks as the feed keeps them. */
static int load(struct ui *u)
{
	size_t n = u->feed->threads(u->feed->ctx, u->threads, u->capthreads);

	while (n > u->capthreads) {
		size_t cap = n + n / 2 + 16;
		struct tui_thread *t = realloc(u->threads, cap * sizeof(*t));
		uint8_t *m = t ? realloc(u->tmark, cap) : NULL;

		if (t)
			u->threads = t;
		if (!t || !m)
			return -1;
		u->tmark = m;
		u->capthreads = cap;
		n = u->feed->threads(u->feed->ctx, u->threads, u->capthreads);
	}
	u->nthreads = n;
	for (size_t i = 0; i < n; i++)
		u->tmark[i] = (uint8_t)u->threads[i].kept;
	return 0;
}

int tlist__open(struct ui *u)
{
	if (!u->feed->threads || !u->feed->keep_threads) {
		ui__status(u, 1, "a file has no threads to choose from");
		return RE_REDRAW;
	}
	if (load(u)) {
		ui__status(u, 1, "out of memory");
		return RE_REDRAW;
	}
	u->tlist = 1;
	u->trow = u->tfirst = 0;
	return RE_REDRAW;
}

/* Show the marked threads: the profile keeps their samples from now on. */
static int apply(struct ui *u)
{
	uint32_t *tids = malloc((u->nthreads + 1) * sizeof(*tids));
	size_t n = 0;

	if (!tids) {
		ui__status(u, 1, "out of memory");
		return RE_REDRAW;
	}
	for (size_t i = 0; i < u->nthreads; i++)
		if (u->tmark[i])
			tids[n++] = u->threads[i].tid;
	if (!n) {
		free(tids);
		ui__status(u, 1, "mark a thread with Space (a: all), or Esc");
		return RE_REDRAW;
	}
	if (n == u->nthreads)
		n = 0;	/* all of them: also those that start later */
	if (u->feed->keep_threads(u->feed->ctx, tids, n)) {
		free(tids);
		ui__status(u, 1, "out of memory");
		return RE_REDRAW;
	}
	free(tids);
	u->tlist = 0;
	u->tfiltered = n > 0;
	for (int e = 0; e < EV__COUNT; e++)	/* counts start again, of those threads */
		for (int v = 0; v < 2; v++)
			if (u->feed->tree[e][v])
				calltree__reset(u->feed->tree[e][v]);
	u->started = ui__now();
	ui__status(u, 0, n ? "showing %zu thread%s (counts reset)" : "showing every thread "
		   "(counts reset)", n, n == 1 ? "" : "s");
	return RE_REDRAW;
}

int tlist__key(struct ui *u, int ch)
{
	size_t n = u->nthreads;

	switch (ch) {
	case 'j': case KEY_DOWN:
		u->trow += u->trow + 1 < n;
		return RE_REDRAW;
	case 'k': case KEY_UP:
		u->trow -= u->trow > 0;
		return RE_REDRAW;
	case ' ':
		if (n)
			u->tmark[u->trow] ^= 1;
		return RE_REDRAW;
	case 'a': {
		int all = 1;

		for (size_t i = 0; i < n; i++)
			all &= u->tmark[i];
		for (size_t i = 0; i < n; i++)
			u->tmark[i] = (uint8_t)!all;
		return RE_REDRAW;
	}
	case '\n': case '\r': case KEY_ENTER:
		return apply(u);
	case K_ESC: case 'q': case 'T':
		u->tlist = 0;
		return RE_REDRAW;
	}
	return RE_NONE;
}

void tlist__draw(struct ui *u)
{
	int rows = u->body_h - 2;
	double all = 0;
	char buf[256];

	for (size_t i = 0; i < u->nthreads; i++)
		all += u->threads[i].weight[u->event];
	ui__fill(u->body_y, 0, COLS, CR_HEADER);
	ui__put(u, u->body_y, 0, COLS, CR_HEADER, "   show      TID      PID  SHARE  NAME"
		"   (Space: mark, a: all/none, Enter: show the marked, Esc: close)");
	if (rows < 1)
		rows = 1;
	if (u->trow < u->tfirst)
		u->tfirst = u->trow;
	if (u->trow >= u->tfirst + (uint32_t)rows)
		u->tfirst = u->trow - (uint32_t)rows + 1;
	for (int i = 0; i < rows && u->tfirst + (uint32_t)i < u->nthreads; i++) {
		size_t k = u->tfirst + (size_t)i;
		const struct tui_thread *t = &u->threads[k];
		int role = k == u->trow ? CR_SELECTED : CR_NORMAL;

		snprintf(buf, sizeof(buf), "   [%c]  %8u %8u %5.1f%%  ", u->tmark[k] ? 'x' : ' ',
			 t->tid, t->pid, all > 0 ? 100 * t->weight[u->event] / all : 0);
		ui__fill(u->body_y + 1 + i, 0, COLS, role);
		ui__put(u, u->body_y + 1 + i, 0, COLS, role, buf);
		ui__put(u, u->body_y + 1 + i, (int)strlen(buf), COLS - (int)strlen(buf), role, t->comm);
	}
	if (!u->nthreads)
		ui__put(u, u->body_y + 2, 2, COLS - 2, CR_MORE, "no samples yet");
}
