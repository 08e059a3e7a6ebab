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
	uint32_t *stack;	/* callees node at each depth below the outermost one */
	size_t capstack;
	uint32_t depth;		/* of the callers tree */
	struct calltree *callers, *callees;
	struct occ { uint32_t node, cnode; uint64_t count; } *occ;	/* outermost places */
	size_t nocc, capocc;
};

static uint64_t count_of(double w)
{
	return w > 0 ? (uint64_t)llround(w) : 0;
}

/*
** The callees are built in the walk's order: a node's callees node is the
** child, with its frame, of its parent's (kept on a stack by depth), and gets
** the node's own (inclusive) weight: one lookup per node, not one per frame of
** its path. The outermost places are kept for build_callers.
*/
static int focus_enter(struct visit *v, uint32_t node, double weight)
{
	struct focus *fo = v->ctx;
	int here = calltree__frame(v->t, node) == fo->frame;
	uint32_t d, k, c;

	if (!here && !fo->inside)
		return 1;	/* above the frame: go on looking */
	d = calltree__depth(v->t, node);
	if (here && !fo->inside++) {	/* an outermost place */
		fo->base = d;
		if (grow__room((void **)&fo->occ, &fo->capocc, fo->nocc + 1, sizeof(*fo->occ)) ||
		    grow__room((void **)&fo->stack, &fo->capstack, 1, sizeof(*fo->stack))) {
			v->err = -ENOMEM;
			return 0;
		}
		fo->occ[fo->nocc++] = (struct occ){ node, CT_ROOT, count_of(weight) };
		fo->stack[0] = CT_ROOT;
		calltree__bump(fo->callees, CT_ROOT, count_of(weight));
		return 1;
	}
	k = d - fo->base;
	if (grow__room((void **)&fo->stack, &fo->capstack, (size_t)k + 1, sizeof(*fo->stack))) {
		v->err = -ENOMEM;
		return 0;
	}
	c = calltree__child_add(fo->callees, fo->stack[k - 1], calltree__frame(v->t, node));
	if (c == CT_NONE) {
		v->err = -ENOMEM;
		return 0;
	}
	fo->stack[k] = c;
	calltree__bump(fo->callees, c, count_of(weight));
	return 1;
}

static void focus_leave(struct visit *v, uint32_t node)
{
	struct focus *fo = v->ctx;

	if (calltree__frame(v->t, node) == fo->frame)
		fo->inside--;
}

/*
** The callers tree, a level at a time: each outermost place steps up to its
** caller and adds its count there. A place whose callers node stays lighter
** than min after a level goes no higher: the view cannot show what is above
** it, and a function on tens of thousands of paths would cost an insert per
** frame of each.
*/
static int build_callers(struct focus *fo, const struct calltree *t, double min)
{
	uint64_t all = 0;
	size_t live = fo->nocc;

	for (size_t i = 0; i < fo->nocc; i++)
		all += fo->occ[i].count;
	calltree__bump(fo->callers, CT_ROOT, all);
	for (uint32_t level = 0; level < fo->depth && live; level++) {
		live = 0;
		for (size_t i = 0; i < fo->nocc; i++) {
			struct occ *o = &fo->occ[i];
			uint32_t up;

			if (o->cnode == CT_NONE)
				continue;
			up = calltree__parent(t, o->node);
			if (up == CT_ROOT || up == CT_NONE) {
				o->cnode = CT_NONE;	/* the stack begins here */
				continue;
			}
			o->node = up;
			o->cnode = calltree__child_add(fo->callers, o->cnode, calltree__frame(t, up));
			if (o->cnode == CT_NONE)
				return -ENOMEM;
			calltree__bump(fo->callers, o->cnode, o->count);
		}
		for (size_t i = 0; i < fo->nocc; i++) {
			struct occ *o = &fo->occ[i];

			if (o->cnode != CT_NONE && !(calltree__weight(fo->callers, o->cnode,
								      CT_CUMULATIVE, 0) >= min))
				o->cnode = CT_NONE;
			live += o->cnode != CT_NONE;
		}
	}
	return 0;
}

int flat__focus(const struct calltree *t, uint32_t frame, enum ct_window w, int fallback_only,
		uint32_t depth, double min, struct calltree *callers, struct calltree *callees)
{
	struct focus fo = { .frame = frame, .depth = depth, .callers = callers,
			    .callees = callees };
	struct visit v = { .t = t, .w = w, .fb = fallback_only, .enter = focus_enter,
			   .leave = focus_leave, .ctx = &fo };

	calltree__reset(callers);
	calltree__reset(callees);
	/* Their samples come dated long before their clock: they count in the
	** cumulative window only, which spares a sliding-window delta per insert. */
	calltree__advance(callers, FOCUS_CLOCK_NS);
	calltree__advance(callees, FOCUS_CLOCK_NS);
	visit(&v);
	if (!v.err)	/* the callees' root weighs the function's total */
		v.err = build_callers(&fo, t, min * calltree__weight(callees, CT_ROOT,
								       CT_CUMULATIVE, 0));
	free(fo.stack);
	free(fo.occ);
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
