/*
** Shared helpers of the live view: frame paths (identity across refreshes),
** which tree is shown, status messages, and the relayout that finds the zoom
** root and the selection again after the tree changed.
*/
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "tui/colors.h"
#include "tui/text.h"
#include "tui/ui.h"

#define STATUS_SECS	6.0	/* how long a message stays */

double ui__now(void)
{
	return (double)clock__mono_ns() / 1e9;
}

/* -- Paths -------------------------------------------------------------- */

/* Room for n frames in p. */
static int path_reserve(struct path *p, uint32_t n)
{
	uint32_t cap = p->cap ? p->cap : 32, *v;

	if (n <= p->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	v = realloc(p->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->v = v;
	p->cap = cap;
	return 0;
}

/* p becomes the path of node in t. */
int path__of(struct path *p, const struct calltree *t, uint32_t node)
{
	uint32_t depth = calltree__depth(t, node);

	if (path_reserve(p, depth + 1))
		return -ENOMEM;
	p->n = calltree__path(t, node, p->v, p->cap);
	return 0;
}

/* dst becomes a copy of src. */
int path__copy(struct path *dst, const struct path *src)
{
	if (path_reserve(dst, src->n + 1))
		return -ENOMEM;
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(*src->v));
	dst->n = src->n;
	return 0;
}

/* Free p and empty it. */
void path__free(struct path *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* -- The shown tree ----------------------------------------------------- */

const struct calltree *ui__tree(const struct ui *u, int raw)
{
	return u->frozen_at ? u->frozen[u->event][raw] : u->feed->tree[u->event][raw];
}

struct calltree *ui__live(const struct ui *u, int raw)
{
	return u->feed->tree[u->event][raw];
}

int ui__one_kind(const struct ui *u)
{
	return u->feed->tree[u->event][0] == u->feed->tree[u->event][1];
}

void ui__free_trees(struct calltree *(*t)[2])
{
	for (int e = 0; e < EV__COUNT; e++) {
		if (t[e][1] != t[e][0])
			calltree__delete(t[e][1]);
		calltree__delete(t[e][0]);
		t[e][0] = t[e][1] = NULL;
	}
}

int ui__copy_trees(const struct ui *u, struct calltree *(*dst)[2])
{
	int failed = 0;

	for (int e = 0; e < EV__COUNT; e++) {
		struct calltree *const *live = u->feed->tree[e];

		if (!live[0])
			continue;
		dst[e][0] = calltree__clone(live[0]);
		dst[e][1] = live[1] == live[0] ? dst[e][0] : calltree__clone(live[1]);
		failed |= !dst[e][0] || !dst[e][1];
	}
	if (failed)
		ui__free_trees(dst);
	return failed ? -ENOMEM : 0;
}

void ui__thaw(struct ui *u)
{
	ui__free_trees(u->frozen);
}

const struct calltree *ui__base(const struct ui *u)
{
	return u->mode == UI_ICICLE || u->mode == UI_TOP ? u->base[u->event][u->raw] : NULL;
}

double ui__diff(struct ui *u, uint32_t node, int *has)
{
	const struct calltree *b = ui__base(u);
	double all = ui__weight(u, CT_ROOT), ball, w = 0;
	uint32_t n, matched, bn;

	if (has)
		*has = b != NULL;
	if (!b)
		return 0;
	ball = calltree__weight(b, CT_ROOT, u->win, u->fb);
	n = calltree__depth(u->tree, node);
	if (n > u->ndpath) {
		uint32_t *p = realloc(u->dpath, (n + 16) * sizeof(*p));

		if (!p)
			return 0;
		u->dpath = p;
		u->ndpath = n + 16;
	}
	calltree__path(u->tree, node, u->dpath, u->ndpath);
	bn = calltree__find(b, u->dpath, n, &matched);
	if (matched == n)
		w = calltree__weight(b, bn, u->win, u->fb);
	return (all > 0 ? 100 * ui__weight(u, node) / all : 0) - (ball > 0 ? 100 * w / ball : 0);
}

void ui__amount(const struct ui *u, char *out, size_t outsz, double v)
{
	if (prof_event__timed(u->event))
		text__time(out, outsz, v);
	else
		text__count(out, outsz, v);
}

/* A node's samples as shown: window and filter; the root's without the
** hidden idle stacks. */
double ui__weight(const struct ui *u, uint32_t node)
{
	double w = calltree__weight(u->tree, node, u->win, u->fb);

	if (node == CT_ROOT && u->hidden != CT_NONE)
		w -= calltree__weight(u->tree, u->hidden, u->win, u->fb);
	return w > 0 ? w : 0;
}

/* A node's frame name; the root is "all". */
const char *ui__name(const struct ui *u, uint32_t node)
{
	const struct frame *f;

	if (node == CT_ROOT && u->mode != UI_FOCUS)
		return "all";
	f = frametab__get(u->feed->frames, node == CT_ROOT ? u->focus :	/* the function */
			  calltree__frame(u->tree, node));
	return f ? f->name : "?";
}

/* Whether most samples of node are fallback ones. */
int ui__is_fallback(const struct ui *u, uint32_t node)
{
	double all = calltree__weight(u->tree, node, u->win, 0);
	double fb = calltree__weight(u->tree, node, u->win, 1);

	return fb > 0 && fb * 2 >= all;
}

/* Was the node's frame inlined into a trace in most of its samples (since the start)? */
int ui__is_inlined(const struct ui *u, uint32_t node)
{
	uint64_t in = calltree__marked(u->tree, node, CT_MARK_INLINED);

	return in > 0 && (double)in * 2 >= calltree__weight(u->tree, node, CT_CUMULATIVE, 0);
}

/* The share of node's samples (since the start) whose frame ran in a JIT trace. */
double ui__jit_share(const struct ui *u, uint32_t node)
{
	double all = calltree__weight(u->tree, node, CT_CUMULATIVE, 0);

	return all > 0 ? (double)calltree__marked(u->tree, node, CT_MARK_JIT) / all : 0;
}

/* A message on the status line for a few seconds. */
void ui__status(struct ui *u, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->status, sizeof(u->status), fmt, ap);
	va_end(ap);
	u->status_err = err;
	u->status_until = ui__now() + STATUS_SECS;
}

/* Select node: its path becomes the identity of the selection. */
void ui__select(struct ui *u, uint32_t node)
{
	u->sel = node;
	if (path__of(&u->sel_path, u->tree, node))
		ui__status(u, 1, "out of memory");
}

/* -- Relayout ----------------------------------------------------------- */

/* The node at p, or its deepest ancestor that exists and has samples. */
static uint32_t resolve(const struct ui *u, const struct path *p)
{
	uint32_t x = calltree__find(u->tree, p->v, p->n, NULL);

	while (x != CT_ROOT && !(ui__weight(u, x) > 0))
		x = calltree__parent(u->tree, x);
	return x;
}

/* Whether x is top or below it. */
static int under(const struct calltree *t, uint32_t x, uint32_t top)
{
	uint32_t d = calltree__depth(t, top);

	while (calltree__depth(t, x) > d)
		x = calltree__parent(t, x);
	return x == top;
}

/* Is what *b was built of still what is shown? If not, note what now is. */
static int still(struct built *b, const struct ui *u, const struct calltree *t, uint32_t frame)
{
	struct built now = { .t = t, .nodes = calltree__nodes(t), .frame = frame,
			     .weight = calltree__weight(t, CT_ROOT, u->window, u->fb_only),
			     .w = u->window, .fb = u->fb_only, .sort = (int)u->sort };

	if (b->t == now.t && b->nodes == now.nodes && b->frame == now.frame &&
	    b->weight == now.weight && b->w == now.w && b->fb == now.fb && b->sort == now.sort)
		return 1;
	*b = now;
	return 0;
}

/* UI_TOP: the table of the shown tree, the selected row kept on screen. The
** table is built again only when the tree has changed (not at every key). */
static void relayout_top(struct ui *u, const struct calltree *t)
{
	uint32_t rows = u->body_h > 1 ? (uint32_t)u->body_h - 1 : 1;	/* one for the titles */

	if (!still(&u->built_top, u, t, 0) &&
	    flat__build(&u->flat, t, u->window, u->fb_only, u->sort)) {
		u->built_top.t = NULL;
		ui__status(u, 1, "out of memory");
	}
	if (u->row >= u->flat.n)
		u->row = u->flat.n ? u->flat.n - 1 : 0;
	if (u->row < u->row_first)
		u->row_first = u->row;
	if (u->row >= u->row_first + rows)
		u->row_first = u->row - rows + 1;
}

/*
** The lightest share of the function a box of the focus view can show: an
** eighth of a cell of the zoom root, which the callees built last tell (the
** trees are built no lighter, so zooming in builds them again, finer).
*/
static double focus_min(const struct ui *u)
{
	double all = calltree__weight(u->callees, CT_ROOT, CT_CUMULATIVE, 0), zoom = all;

	if (u->zoom.n && all > 0)
		zoom = calltree__weight(u->callees, calltree__find(u->callees, u->zoom.v,
								   u->zoom.n, NULL),
					CT_CUMULATIVE, 0);
	return (all > 0 ? zoom / all : 1) / ((u->cols > 0 ? u->cols : 1) * LAYOUT_SUB);
}

/* Build the focus trees of u->focus in t with threshold min; -ENOMEM said. */
static int build_focus(struct ui *u, const struct calltree *t, double min)
{
	u->focus_min = min;
	if (!flat__focus(&u->flat, t, u->focus, u->window, u->fb_only, (uint32_t)u->up_h + 1,
			 min, u->callers, u->callees))
		return 0;
	u->built_focus.t = NULL;
	ui__status(u, 1, "out of memory");
	return -ENOMEM;
}

/* UI_FOCUS: the callers and callees of u->focus in the shown tree; the callees
** are the tree the icicle's keys move in, the callers drawn above it. */
static const struct calltree *relayout_focus(struct ui *u, const struct calltree *t)
{
	struct layout_req r;
	double min;

	if (!u->callers)
		u->callers = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT);
	if (!u->callees)
		u->callees = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT);
	if (!u->callers || !u->callees) {
		ui__status(u, 1, "out of memory");
		return t;
	}
	u->up_h = u->body_h / 2;
	/* Built again for a threshold at least twice finer (zooming in): a zoom
	** root whose share moves a little does not, and boxes narrower than a cell
	** are not drawn anyway. A zoom root the last build did not have is found
	** in this one, which may ask once more. */
	min = focus_min(u);
	if ((!still(&u->built_focus, u, t, u->focus) || min < u->focus_min / 2) &&
	    (build_focus(u, t, min) ||
	     ((min = focus_min(u)) < u->focus_min / 2 && build_focus(u, t, min))))
		return t;
	/* The callers' root is the function itself, which the callees' root shows. */
	r = (struct layout_req){ .tree = u->callers, .top = CT_ROOT, .window = CT_CUMULATIVE,
				 .cols = u->cols, .rows = u->up_h, .scroll = 1 };
	if (layout__build(&u->lay_up, &r))
		ui__status(u, 1, "out of memory");
	u->win = CT_CUMULATIVE;
	u->fb = 0;
	return u->callees;
}

/* Find zoom root and selection in the shown tree again and lay out the body. */
void ui__relayout(struct ui *u)
{
	struct layout_req r;
	int rel, rows;

	u->tree = ui__tree(u, u->raw);
	u->win = u->window;
	u->fb = u->fb_only;
	u->up_h = 0;
	u->lines = LINES;
	u->cols = COLS;
	u->crumb = u->lines >= 14;
	u->body_y = UI_HEADER_ROWS;
	u->body_h = u->lines - UI_HEADER_ROWS - 3 - u->crumb;
	if (u->body_h < 1)
		u->body_h = 1;
	if (u->mode == UI_TOP) {
		relayout_top(u, u->tree);
		/* The share of samples whose leaf matches. */
		u->search.weight = 0;
		for (uint32_t i = 0; u->search.on && i < u->flat.n; i++)
			if (search__frame(u, u->flat.rows[i].frame))
				u->search.weight += u->flat.rows[i].self;
		return;
	}
	if (u->mode == UI_FOCUS)
		u->tree = relayout_focus(u, u->tree);
	u->hidden = u->hide_idle && u->mode == UI_ICICLE ?
		    calltree__child(u->tree, CT_ROOT, frametab__special(u->feed->frames,
									 SPECIAL_IDLE)) : CT_NONE;
	rows = u->body_h - u->up_h;
	u->top = resolve(u, &u->zoom);
	u->sel = resolve(u, &u->sel_path);
	if (!under(u->tree, u->sel, u->top))
		u->sel = u->top;
	/* Keep the selected row on screen. */
	rel = (int)(calltree__depth(u->tree, u->sel) - calltree__depth(u->tree, u->top));
	if (rel < u->scroll)
		u->scroll = rel;
	if (rel >= u->scroll + rows)
		u->scroll = rel - rows + 1;
	if (u->scroll < 0)
		u->scroll = 0;
	r = (struct layout_req){
		.tree = u->tree, .top = u->top, .window = u->win,
		.fallback_only = u->fb, .cols = u->cols, .rows = rows,
		.scroll = u->scroll, .hide = u->hidden,
	};
	if (layout__build(&u->lay, &r))
		ui__status(u, 1, "out of memory");
	/* Too narrow to draw: show the nearest ancestor that is drawn as selected. */
	while (u->sel != u->top && layout__find(&u->lay, u->sel) < 0)
		u->sel = calltree__parent(u->tree, u->sel);
	search__update(u);
}

/* -- Drawing helpers ---------------------------------------------------- */

int ui__put(const struct ui *u, int y, int x, int w, int role, const char *s)
{
	wchar_t buf[512];
	size_t n;

	if (w <= 0 || x >= COLS || y >= LINES)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	n = text__wide(s, buf, (size_t)w < 511 ? (size_t)w : 511, u->utf8);
	buf[n] = 0;
	attrset(colors__attr(role));
	mvaddnwstr(y, x, buf, (int)n);
	attrset(A_NORMAL);
	return (int)n;
}

/* Blank cells in a role. */
void ui__fill(int y, int x, int w, int role)
{
	if (x >= COLS || y >= LINES || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	mvhline(y, x, ' ' | colors__attr(role), w);
}
