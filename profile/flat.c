/*
** Flat table and callers/callees of a call tree: depth-first walks that keep,
** per frame, how often it is on the path walked, so that a recursing frame's
** total and its callers come from its outermost place only.
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profile/flat.h"

/* Room for frame ids below n in the scratch arrays, zeroed. */
static int scratch(struct flat *f, uint32_t n)
{
	if (n > f->nframes) {
		double *s = realloc(f->self, n * sizeof(*s)), *t;
		uint32_t *p;

		if (!s)
			return -ENOMEM;
		f->self = s;
		if (!(t = realloc(f->total, n * sizeof(*t))))
			return -ENOMEM;
		f->total = t;
		if (!(p = realloc(f->onpath, n * sizeof(*p))))
			return -ENOMEM;
		f->onpath = p;
		f->nframes = n;
	}
	memset(f->self, 0, f->nframes * sizeof(*f->self));
	memset(f->total, 0, f->nframes * sizeof(*f->total));
	memset(f->onpath, 0, f->nframes * sizeof(*f->onpath));
	return 0;
}

/* One past the largest frame id in t. */
static uint32_t frames_of(const struct calltree *t)
{
	uint32_t n = 0;

	for (uint32_t i = 1; i < calltree__nodes(t); i++)
		if (calltree__frame(t, i) + 1 > n)
			n = calltree__frame(t, i) + 1;
	return n;
}

/*
** Visit t's nodes with weight depth first: enter(node) before its children,
** leave(node) after; a node entered with enter returning 0 is not descended.
*/
struct visit {
	const struct calltree *t;
	enum ct_window w;
	int fb;
	int (*enter)(struct visit *v, uint32_t node, double weight);
	void (*leave)(struct visit *v, uint32_t node);
	void *ctx;
	int err;
};

/* The next sibling with weight of node (or node's first child with first). */
static uint32_t weighty(const struct visit *v, uint32_t node, int first)
{
	uint32_t c = first ? calltree__first(v->t, node) : calltree__next(v->t, node);

	while (c != CT_NONE && !(calltree__weight(v->t, c, v->w, v->fb) > 0))
		c = calltree__next(v->t, c);
	return c;
}

static void visit(struct visit *v)
{
	uint32_t n = weighty(v, CT_ROOT, 1);

	while (n != CT_NONE && !v->err) {
		uint32_t c = v->enter(v, n, calltree__weight(v->t, n, v->w, v->fb)) ?
			     weighty(v, n, 1) : CT_NONE;

		if (c != CT_NONE) {
			n = c;
			continue;
		}
		for (;;) {	/* n has no more to visit: leave it, then its done ancestors */
			uint32_t s;

			v->leave(v, n);
			if ((s = weighty(v, n, 0)) != CT_NONE) {
				n = s;
				break;
			}
			n = calltree__parent(v->t, n);
			if (n == CT_ROOT || n == CT_NONE) {
				n = CT_NONE;
				break;
			}
		}
	}
}

/* -- The flat table ------------------------------------------------------ */

static int flat_enter(struct visit *v, uint32_t node, double weight)
{
	struct flat *f = v->ctx;
	uint32_t fr = calltree__frame(v->t, node);

	if (!f->onpath[fr]++)
		f->total[fr] += weight;
	f->self[fr] += calltree__self(v->t, node, v->w, v->fb);
	return 1;
}

static void flat_leave(struct visit *v, uint32_t node)
{
	struct flat *f = v->ctx;

	f->onpath[calltree__frame(v->t, node)]--;
}

/* Heaviest first by the key (*arg), then by the other, then by frame id. */
static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct flat_row *a = pa, *b = pb;
	enum flat_sort key = *(const enum flat_sort *)arg;
	double ka = key == FLAT_BY_SELF ? a->self : a->total;
	double kb = key == FLAT_BY_SELF ? b->self : b->total;
	double oa = key == FLAT_BY_SELF ? a->total : a->self;
	double ob = key == FLAT_BY_SELF ? b->total : b->self;

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (oa != ob)
		return oa < ob ? 1 : -1;
	return (a->frame > b->frame) - (a->frame < b->frame);
}

void flat__sort(struct flat *f, enum flat_sort key)
{
	qsort_r(f->rows, f->n, sizeof(*f->rows), row_cmp, &key);
}

int flat__build(struct flat *f, const struct calltree *t, enum ct_window w, int fallback_only,
		enum flat_sort key)
{
	struct visit v = { .t = t, .w = w, .fb = fallback_only, .enter = flat_enter,
			   .leave = flat_leave, .ctx = f };
	uint32_t nf = frames_of(t);

	f->n = 0;
	f->all = calltree__weight(t, CT_ROOT, w, fallback_only);
	if (scratch(f, nf))
		return -ENOMEM;
	visit(&v);
	for (uint32_t fr = 0; fr < nf; fr++) {
		if (!(f->total[fr] > 0))
			continue;
		if (grow__room((void **)&f->rows, &f->cap, f->n + 1, sizeof(*f->rows)))
			return -ENOMEM;
		f->rows[f->n++] = (struct flat_row){ fr, f->self[fr], f->total[fr] };
	}
	flat__sort(f, key);
	return 0;
}

/* -- Callers and callees ------------------------------------------------ */

#define FOCUS_CLOCK_NS	(2ull * CT_SPAN_MAX * 1000000000ull)	/* past any sliding window */

struct focus {
	uint32_t frame;
	uint32_t inside;	/* occurrences of frame on the path walked */
	uint32_t base;		/* depth of the outermost one */
	uint32_t *path;		/* scratch: calltree__path */
	uint32_t max;
	uint32_t depth;		/* of the callers tree */
	struct calltree *callers, *callees;
};

static uint64_t count_of(double w)
{
	return w > 0 ? (uint64_t)llround(w) : 0;
}

static int focus_enter(struct visit *v, uint32_t node, double weight)
{
	struct focus *fo = v->ctx;
	int here = calltree__frame(v->t, node) == fo->frame;
	uint64_t self;
	uint32_t d;

	if (!here && !fo->inside)
		return 1;	/* above the frame: go on looking */
	/* Inside: only self weight is added (a path adds to every node on it). */
	self = count_of(calltree__self(v->t, node, v->w, v->fb));
	if (!self && (!here || fo->inside)) {
		fo->inside += here;
		return 1;
	}
	d = calltree__path(v->t, node, fo->path, fo->max);
	if (d > fo->max) {
		v->err = -ENOMEM;
		return 0;
	}
	if (here && !fo->inside++) {	/* an outermost place: its callers, reversed */
		fo->base = d;
		for (uint32_t i = 0; i < (d - 1) / 2; i++) {	/* path[0 .. d-1): the callers */
			uint32_t x = fo->path[i];

			fo->path[i] = fo->path[d - 2 - i];
			fo->path[d - 2 - i] = x;
		}
		v->err = calltree__add(fo->callers, fo->path, d - 1 < fo->depth ? d - 1 : fo->depth,
				       count_of(weight), 0, 0);
		calltree__path(v->t, node, fo->path, fo->max);
	}
	/* Callees: each node's self under the outermost place, by its path from there. */
	if (!v->err && self)
		v->err = calltree__add(fo->callees, fo->path + fo->base, d - fo->base, self, 0, 0);
	return !v->err;
}

static void focus_leave(struct visit *v, uint32_t node)
{
	struct focus *fo = v->ctx;

	if (calltree__frame(v->t, node) == fo->frame)
		fo->inside--;
}

int flat__focus(const struct calltree *t, uint32_t frame, enum ct_window w, int fallback_only,
		uint32_t depth, struct calltree *callers, struct calltree *callees)
{
	struct focus fo = { .frame = frame, .max = calltree__max_depth(t) + 1, .depth = depth,
			    .callers = callers, .callees = callees };
	struct visit v = { .t = t, .w = w, .fb = fallback_only, .enter = focus_enter,
			   .leave = focus_leave, .ctx = &fo };

	calltree__reset(callers);
	calltree__reset(callees);
	/* Their samples come dated long before their clock: they count in the
	** cumulative window only, which spares a sliding-window delta per insert. */
	calltree__advance(callers, FOCUS_CLOCK_NS);
	calltree__advance(callees, FOCUS_CLOCK_NS);
	fo.path = malloc(fo.max * sizeof(*fo.path));
	if (!fo.path)
		return -ENOMEM;
	visit(&v);
	free(fo.path);
	return v.err;
}

double flat__self_of(const struct flat *f, uint32_t frame)
{
	return frame < f->nframes ? f->self[frame] : 0;
}

void flat__free(struct flat *f)
{
	free(f->rows);
	free(f->self);
	free(f->total);
	free(f->onpath);
	memset(f, 0, sizeof(*f));
}
