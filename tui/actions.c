/*
** Actions of the key table. Each returns reaction flags (RE_*) that only the
** loop in screen.c acts on. They work on the layout of the last refresh, so
** moves go to what the user sees.
*/
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/text.h"
#include "tui/ui.h"

typedef int (*action_fn)(struct ui *u);

/* -- Moving ------------------------------------------------------------- */

/* Box index of the selection, -1 if it is not on screen. */
static int sel_box(struct ui *u)
{
	return layout__find(&u->lay, u->sel);
}

/* Select the next box on the row in direction dir. */
static int step_side(struct ui *u, int dir)
{
	int i = layout__step(&u->lay, sel_box(u), dir);

	if (i >= 0)
		ui__select(u, u->lay.box[i].node);
	return RE_REDRAW;
}

/* h: the frame to the left. */
static int act_left(struct ui *u)
{
	return step_side(u, -1);
}

/* l: the frame to the right. */
static int act_right(struct ui *u)
{
	return step_side(u, 1);
}

/* The Top table: move the selected row by n (clamped). */
static int move_row(struct ui *u, long n)
{
	long r = (long)u->row + n;

	if (r >= (long)u->flat.n)
		r = (long)u->flat.n - 1;
	u->row = r > 0 ? (uint32_t)r : 0;
	return RE_REDRAW;
}

/* Rows of the Top table on screen. */
static long table_rows(const struct ui *u)
{
	return u->body_h > 2 ? u->body_h - 1 : 1;
}

/* k: the caller; remember where we came from for j. */
static int act_up(struct ui *u)
{
	if (u->mode == UI_TOP)
		return move_row(u, -1);
	if (u->sel == u->top)
		return RE_NONE;
	path__of(&u->memo, u->tree, u->sel);
	ui__select(u, calltree__parent(u->tree, u->sel));
	return RE_REDRAW;
}

/* The child of x to go down to: the one left with k if still drawn, else the widest drawn. */
static uint32_t down_of(struct ui *u, uint32_t x)
{
	int b = layout__find(&u->lay, x);
	uint32_t m;

	if (u->memo.n == calltree__depth(u->tree, x) + 1) {
		m = calltree__find(u->tree, u->memo.v, u->memo.n, NULL);
		if (calltree__parent(u->tree, m) == x && layout__find(&u->lay, m) >= 0)
			return m;
	}
	if (b < 0)
		return CT_NONE;
	/* The leftmost box of the next row inside x's edges is its widest child. */
	for (uint32_t i = 0; i < u->lay.n; i++) {
		const struct box *c = &u->lay.box[i];

		if (c->row == u->lay.box[b].row + 1 && !(c->flags & BOX_POOL) &&
		    calltree__parent(u->tree, c->node) == x)
			return c->node;
	}
	return CT_NONE;
}

/* j: a callee, scrolling when it is below the last row. */
static int act_down(struct ui *u)
{
	uint32_t c;

	if (u->mode == UI_TOP)
		return move_row(u, 1);
	c = down_of(u, u->sel);

	if (c == CT_NONE) {
		/* Below the last row: scroll first, then look again. */
		if (calltree__first(u->tree, u->sel) == CT_NONE)
			return RE_NONE;
		u->scroll++;
		ui__relayout(u);
		c = down_of(u, u->sel);
		if (c == CT_NONE) {
			u->scroll--;
			ui__status(u, 0, "no callee wide enough to select");
			return RE_REDRAW;
		}
	}
	ui__select(u, c);
	return RE_REDRAW;
}

/* g: the top frame. */
static int act_top(struct ui *u)
{
	if (u->mode == UI_TOP)
		return move_row(u, -(long)u->flat.n);
	ui__select(u, u->top);
	return RE_REDRAW;
}

/* Go down n levels along the widest callees (n < 0: all the way). */
static int go_down(struct ui *u, int n)
{
	while (n--) {
		uint32_t c;

		ui__relayout(u);
		c = down_of(u, u->sel);
		if (c == CT_NONE) {
			if (calltree__first(u->tree, u->sel) == CT_NONE)
				break;
			u->scroll++;
			ui__relayout(u);
			c = down_of(u, u->sel);
			if (c == CT_NONE)
				break;
		}
		u->memo.n = 0;
		ui__select(u, c);
	}
	return RE_REDRAW;
}

/* G: down the widest callees to the end. */
static int act_bottom(struct ui *u)
{
	if (u->mode == UI_TOP)
		return move_row(u, (long)u->flat.n);
	return go_down(u, -1);
}

/* PgDn: a page of widest callees down. */
static int act_page_down(struct ui *u)
{
	if (u->mode == UI_TOP)
		return move_row(u, table_rows(u));
	return go_down(u, u->body_h > 2 ? u->body_h - 1 : 1);
}

/* PgUp: a page of callers up. */
static int act_page_up(struct ui *u)
{
	if (u->mode == UI_TOP)
		return move_row(u, -table_rows(u));
	for (int n = u->body_h > 2 ? u->body_h - 1 : 1; n > 0 && u->sel != u->top; n--)
		u->sel = calltree__parent(u->tree, u->sel);
	ui__select(u, u->sel);
	return RE_REDRAW;
}

/* -- Zoom --------------------------------------------------------------- */

static int act_zoom_in(struct ui *u)
{
	if (u->mode == UI_TOP)	/* Enter on a row: its callers and callees */
		return u->flat.n ? actions__focus(u, u->flat.rows[u->row].frame) : RE_NONE;
	if (u->sel == u->top)
		return RE_NONE;
	if (u->nzstack == u->capzstack) {
		uint32_t cap = u->capzstack ? u->capzstack * 2 : 8;
		struct path *z = realloc(u->zstack, cap * sizeof(*z));

		if (!z)
			return RE_NONE;
		memset(z + u->capzstack, 0, (cap - u->capzstack) * sizeof(*z));
		u->zstack = z;
		u->capzstack = cap;
	}
	if (path__copy(&u->zstack[u->nzstack], &u->zoom) || path__of(&u->zoom, u->tree, u->sel))
		return RE_NONE;
	u->nzstack++;
	u->scroll = 0;
	return RE_REDRAW;
}

/* Esc: back to the previous zoom root. */
/* Leave the focus view for the view it was opened from, as that was. */
static void unfocus(struct ui *u)
{
	u->mode = u->back;
	u->nzstack = u->focus_zdepth;
	path__copy(&u->zoom, &u->saved_zoom);
	path__copy(&u->sel_path, &u->saved_sel);
	u->scroll = 0;
}

static int act_zoom_out(struct ui *u)
{
	if (u->mode == UI_TOP) {
		u->mode = UI_ICICLE;
		return RE_REDRAW;
	}
	if (u->mode == UI_FOCUS && u->nzstack <= u->focus_zdepth) {
		unfocus(u);	/* back where the focus view was opened from */
		return RE_REDRAW;
	}
	if (!u->nzstack)
		return RE_NONE;
	path__copy(&u->zoom, &u->zstack[--u->nzstack]);
	u->scroll = 0;
	return RE_REDRAW;
}

/* 0: no zoom. */
static int act_zoom_root(struct ui *u)
{
	u->nzstack = 0;
	u->zoom.n = 0;
	u->scroll = 0;
	return RE_REDRAW;
}

/* -- Search ------------------------------------------------------------- */

static int act_search(struct ui *u)
{
	prompt__open(u, PROMPT_SEARCH, NULL);
	return RE_REDRAW;
}

/* Move to the next or previous match, or say why not. */
static int search_step(struct ui *u, int dir)
{
	if (!u->search.on)
		ui__status(u, 1, "no search: / sets one");
	else if (search__step(u, dir))
		ui__status(u, 1, "pattern not found on screen: %s", u->search.text);
	return RE_REDRAW;
}

/* n: the next match. */
static int act_search_next(struct ui *u)
{
	return search_step(u, 1);
}

/* N: the previous match. */
static int act_search_prev(struct ui *u)
{
	return search_step(u, -1);
}

/* Search for the selected frame's own name, as a literal. */
static int act_search_selected(struct ui *u)
{
	const char *name = ui__name(u, u->sel);
	char re[256];
	size_t n = 0;

	if (u->sel == CT_ROOT)
		return RE_NONE;
	re[n++] = '^';
	for (const char *p = name; *p && n + 3 < sizeof(re); p++) {
		if (strchr("\\^$.|?*+()[]{}", *p))
			re[n++] = '\\';
		re[n++] = *p;
	}
	re[n++] = '$';
	re[n] = '\0';
	if (!search__set(u, re))
		ui__status(u, 0, "searching /%s/", re);
	return RE_REDRAW;
}

/* -- Modes -------------------------------------------------------------- */

static int act_merge(struct ui *u)
{
	if (ui__one_kind(u)) {
		ui__status(u, 1, "a folded file holds one kind of stack: nothing to toggle");
		return RE_REDRAW;
	}
	u->raw = !u->raw;
	return RE_REDRAW;
}

/* !: fallback stacks only, or all. */
static int act_fallback(struct ui *u)
{
	u->fb_only = !u->fb_only;
	return RE_REDRAW;
}

/* z: show copies of the trees (sampling fills the live ones), or live again. */
static int act_freeze(struct ui *u)
{
	if (u->frozen_at) {
		ui__thaw(u);
		u->frozen_at = 0;
		return RE_REDRAW;
	}
	/* Every event's trees: e switches between them while frozen. */
	if (ui__copy_trees(u, u->frozen)) {
		ui__status(u, 1, "cannot freeze: out of memory");
		return RE_REDRAW;
	}
	u->frozen_at = ui__now();
	return RE_REDRAW;
}

/* -- Views by function --------------------------------------------------- */

int actions__focus(struct ui *u, uint32_t frame)
{
	if (u->mode != UI_FOCUS) {	/* what Esc goes back to */
		u->back = u->mode;
		u->focus_zdepth = u->nzstack;
		if (path__copy(&u->saved_zoom, &u->zoom) || path__copy(&u->saved_sel, &u->sel_path)) {
			ui__status(u, 1, "out of memory");
			return RE_REDRAW;
		}
	}
	u->mode = UI_FOCUS;
	u->focus = frame;
	u->zoom.n = u->sel_path.n = u->memo.n = 0;
	u->scroll = 0;
	return RE_REDRAW;
}

/* Forget the baseline (free it when it is ours, not the feed's --diff tree). */
static void drop_base(struct ui *u)
{
	if (u->base_owned)
		ui__free_trees(u->base);
	memset(u->base, 0, sizeof(u->base));
	u->base_owned = 0;
	u->base_flat_of = NULL;
}

/* b: take what the counts are now as the baseline of the diff, or drop it. */
static int act_baseline(struct ui *u)
{
	int had = u->base[EV_CPU][0] || u->base[u->event][0];

	drop_base(u);
	if (had) {
		ui__status(u, 0, "diff off");
		return RE_REDRAW;
	}
	if (ui__copy_trees(u, u->base)) {
		ui__status(u, 1, "cannot take a baseline: out of memory");
		return RE_REDRAW;
	}
	u->base_owned = 1;
	ui__status(u, 0, "baseline taken: frames show their change of share since (b again: off)");
	return RE_REDRAW;
}

/* t: the Top table, or the icicle again. */
static int act_table(struct ui *u)
{
	if (u->mode == UI_FOCUS)
		unfocus(u);
	u->mode = u->mode == UI_TOP ? UI_ICICLE : UI_TOP;
	return RE_REDRAW;
}

/* c: the callers and callees of the selected frame. */
static int act_callers(struct ui *u)
{
	if (u->mode == UI_TOP)
		return act_zoom_in(u);
	if (u->sel == CT_ROOT) {
		ui__status(u, 1, "select a frame first: the root has no callers");
		return RE_REDRAW;
	}
	return actions__focus(u, calltree__frame(u->tree, u->sel));
}

/* o: the Top table's order. */
static int act_sort(struct ui *u)
{
	u->sort = (enum flat_sort)((u->sort + 1) % FLAT_SORT__COUNT);
	u->row = u->row_first = 0;
	if (u->mode != UI_TOP)
		ui__status(u, 0, "the Top table (t) is now sorted by %s",
			   u->sort == FLAT_BY_SELF ? "self" : "total");
	return RE_REDRAW;
}

/* e: the next event profiled (CPU, off-CPU, wall). */
static int act_event(struct ui *u)
{
	enum prof_event e = u->event;

	do
		e = (enum prof_event)((e + 1) % EV__COUNT);
	while (!u->feed->tree[e][0]);
	if (e == u->event)
		ui__status(u, 1, "only %s is profiled: start luatop with -e offcpu or -e wall "
			   "for off-CPU time too", prof_event__name(e));
	u->event = e;
	return RE_REDRAW;
}

/* i: hide the off-CPU stacks of idle event-loop waits, or show them. */
static int act_idle(struct ui *u)
{
	u->hide_idle = !u->hide_idle;
	ui__status(u, 0, u->hide_idle ? "idle waits ([idle]) hidden" : "idle waits shown");
	return RE_REDRAW;
}

/* w: the next time window. */
static int act_window(struct ui *u)
{
	u->window = (u->window + 1) % CT_WINDOW__COUNT;
	return RE_REDRAW;
}

/* R: zero the counts of the live (and frozen) trees. */
static int act_reset(struct ui *u)
{
	if (!u->feed->live) {
		ui__status(u, 1, "a file cannot be reset: nothing would refill it");
		return RE_REDRAW;
	}
	for (int e = 0; e < EV__COUNT; e++)
		for (int i = 0; i < 2; i++) {
			if (u->feed->tree[e][i])
				calltree__reset(u->feed->tree[e][i]);
			if (u->frozen[e][i])
				calltree__reset(u->frozen[e][i]);
		}
	u->started = ui__now();
	ui__status(u, 0, "counts reset");
	return RE_REDRAW;
}

/* r: no zoom, no search, no filter, the root selected. */
static int act_view_reset(struct ui *u)
{
	u->nzstack = 0;
	u->zoom.n = 0;
	u->sel_path.n = 0;
	u->memo.n = 0;
	u->scroll = 0;
	u->fb_only = 0;
	search__clear(u);
	return RE_REDRAW;
}

/* s: save what is shown. */
static int act_snapshot(struct ui *u)
{
	snapshot__save(u);
	return RE_REDRAW;
}

/* d: prompt for the refresh interval. */
static int act_delay(struct ui *u)
{
	char now[32];

	snprintf(now, sizeof(now), "%g", u->delay);
	prompt__open(u, PROMPT_DELAY, now);
	return RE_REDRAW;
}

/* ?: the help screen. */
static int act_help(struct ui *u)
{
	u->help = !u->help;
	return RE_REDRAW;
}

/* Ctrl-L: repaint everything. */
static int act_redraw(struct ui *u)
{
	return RE_REDRAW | RE_CLEAR;
}

/* q: leave the loop. */
static int act_quit(struct ui *u)
{
	return RE_QUIT;
}

static const action_fn actions[ACT__COUNT] = {
	[ACT_QUIT] = act_quit,
	[ACT_HELP] = act_help,
	[ACT_LEFT] = act_left,
	[ACT_RIGHT] = act_right,
	[ACT_UP] = act_up,
	[ACT_DOWN] = act_down,
	[ACT_TOP] = act_top,
	[ACT_BOTTOM] = act_bottom,
	[ACT_PAGE_UP] = act_page_up,
	[ACT_PAGE_DOWN] = act_page_down,
	[ACT_ZOOM_IN] = act_zoom_in,
	[ACT_ZOOM_OUT] = act_zoom_out,
	[ACT_ZOOM_ROOT] = act_zoom_root,
	[ACT_SEARCH] = act_search,
	[ACT_SEARCH_NEXT] = act_search_next,
	[ACT_SEARCH_PREV] = act_search_prev,
	[ACT_SEARCH_SELECTED] = act_search_selected,
	[ACT_MERGE] = act_merge,
	[ACT_FALLBACK] = act_fallback,
	[ACT_FREEZE] = act_freeze,
	[ACT_WINDOW] = act_window,
	[ACT_EVENT] = act_event,
	[ACT_TABLE] = act_table,
	[ACT_CALLERS] = act_callers,
	[ACT_SORT] = act_sort,
	[ACT_THREADS] = tlist__open,
	[ACT_BASELINE] = act_baseline,
	[ACT_IDLE] = act_idle,
	[ACT_RESET] = act_reset,
	[ACT_VIEW_RESET] = act_view_reset,
	[ACT_SNAPSHOT] = act_snapshot,
	[ACT_DELAY] = act_delay,
	[ACT_REDRAW] = act_redraw,
};

/* Run action a; its reactions. */
int actions__do(struct ui *u, enum action a)
{
	if (a <= ACT_NONE || a >= ACT__COUNT || !actions[a])
		return RE_NONE;
	return actions[a](u);
}
