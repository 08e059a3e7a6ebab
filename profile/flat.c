/*
** Flat table and callers/callees of a call tree, over its columns
** (calltree__columns). The table is a depth-first walk that keeps, per frame,
** how often it is on the path walked, so that a recursing frame's total comes
** from its outermost place only; callers/callees start from those places
** (a walk that stops at each) and are built a level at a time.
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

/* One past the largest frame id in the columns. */
static uint32_t frames_of(const struct ct_columns *c)
{
	uint32_t n = 0;

	for (uint32_t i = 1; i < c->n; i++)
		if (c->frame[i] + 1 > n)
			n = c->frame[i] + 1;
	return n;
}

/*
** Visit the nodes with weight of f->cols depth first: enter(node, depth)
** before its children (an error from it ends the walk, 1 skips them),
** leave(node) (if any) after them.
*/
struct visit {
	struct flat *f;
	int (*enter)(struct visit *v, uint32_t node, uint32_t depth);
	void (*leave)(struct visit *v, uint32_t node);
	void *ctx;
};

static int visit(struct visit *v, uint32_t max_depth)
{
	const struct ct_columns *c = &v->f->cols;
	struct flat *f = v->f;
	uint32_t d = 0;		/* depth of the node at the top of the walk */
	int err;

	if (grow__room((void **)&f->walk, &f->capwalk, 2 * ((size_t)max_depth + 1),
		       sizeof(*f->walk)))
		return -ENOMEM;
	/* walk[2d]: the node at depth d on the path; walk[2d + 1]: its next child */
	f->walk[0] = CT_ROOT;
	f->walk[1] = c->kid0[CT_ROOT];
	for (;;) {
		uint32_t p = f->walk[2 * d], n;

		if (f->walk[2 * d + 1] == c->kid0[p + 1]) {	/* p is done */
			if (!d)
				return 0;
			if (v->leave)
				v->leave(v, p);
			d--;
			continue;
		}
		n = c->kids[f->walk[2 * d + 1]++];
		if ((err = v->enter(v, n, d + 1)) < 0)
			return err;
		if (err > 0)
			continue;	/* not below n */
		d++;
		f->walk[2 * d] = n;
		f->walk[2 * d + 1] = c->kid0[n];
	}
}

/* The weight of node's samples that end in it, never below 0. */
static double self_of(const struct ct_columns *c, uint32_t node)
{
	double s = c->weight[node];

	for (uint32_t k = c->kid0[node]; k < c->kid0[node + 1]; k++)
		s -= c->weight[c->kids[k]];
	return s > 0 ? s : 0;
}

/* -- The flat table ------------------------------------------------------ */

static int flat_enter(struct visit *v, uint32_t node, uint32_t depth)
{
	struct flat *f = v->f;
	uint32_t fr = f->cols.frame[node];

	(void)depth;
	if (!f->onpath[fr]++)
		f->total[fr] += f->cols.weight[node];
	f->self[fr] += self_of(&f->cols, node);
	return 0;
}

static void flat_leave(struct visit *v, uint32_t node)
{
	v->f->onpath[v->f->cols.frame[node]]--;
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
	if (f->n > 1)	/* rows may be NULL when there are none */
		qsort_r(f->rows, f->n, sizeof(*f->rows), row_cmp, &key);
}

int flat__build(struct flat *f, const struct calltree *t, enum ct_window w, int fallback_only,
		enum flat_sort key)
{
	struct visit v = { .f = f, .enter = flat_enter, .leave = flat_leave };
	uint32_t nf;

	f->n = 0;
	f->all = calltree__weight(t, CT_ROOT, w, fallback_only);
	if (calltree__columns(t, w, fallback_only, &f->cols) ||
	    scratch(f, nf = frames_of(&f->cols)) || visit(&v, calltree__max_depth(t)))
		return -ENOMEM;
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
	uint32_t depth;		/* of the callers tree */
	struct calltree *callers, *callees;
	struct occ { uint32_t node, cnode; uint64_t count; } *occ;	/* outermost places */
	size_t nocc, capocc;
	/* Building the callees: nodes to expand, each with its sources (the
	** nodes of the tree it merges) in src, a stack of segments. */
	struct pend { uint32_t cnode, at, n; } *pend;
	size_t npend, cappend;
	uint32_t *src;
	size_t nsrc, capsrc;
	struct kid { uint32_t frame, node; } *kids;	/* the children of a node's sources */
	size_t capkids;
};

static uint64_t count_of(double w)
{
	return w > 0 ? (uint64_t)llround(w) : 0;
}

/* The outermost places of the frame: the walk goes no deeper than each. */
static int focus_enter(struct visit *v, uint32_t node, uint32_t depth)
{
	const struct ct_columns *cols = &v->f->cols;
	struct focus *fo = v->ctx;

	(void)depth;
	if (cols->frame[node] != fo->frame)
		return 0;
	if (grow__room((void **)&fo->occ, &fo->capocc, fo->nocc + 1, sizeof(*fo->occ)))
		return -ENOMEM;
	fo->occ[fo->nocc++] = (struct occ){ node, CT_ROOT, count_of(cols->weight[node]) };
	return 1;
}

/* Push callees node cnode, merging the tree's nodes kid[0..n), to expand. */
static int push_pend(struct focus *fo, uint32_t cnode, const struct kid *kid, uint32_t n)
{
	if (grow__room((void **)&fo->pend, &fo->cappend, fo->npend + 1, sizeof(*fo->pend)) ||
	    grow__room((void **)&fo->src, &fo->capsrc, fo->nsrc + n, sizeof(*fo->src)))
		return -ENOMEM;
	fo->pend[fo->npend++] = (struct pend){ cnode, (uint32_t)fo->nsrc, n };
	for (uint32_t i = 0; i < n; i++)
		fo->src[fo->nsrc++] = kid[i].node;
	return 0;
}

static int kid_cmp(const void *pa, const void *pb)
{
	const struct kid *a = pa, *b = pb;

	return a->frame != b->frame ? (a->frame > b->frame) - (a->frame < b->frame) :
				      (a->node > b->node) - (a->node < b->node);
}

/* The children of e's sources, by frame when they are several (one source's
** children have frames of their own). Their number, or -ENOMEM. */
static long gather_kids(struct focus *fo, const struct ct_columns *c, const struct pend *e)
{
	size_t n = 0;

	for (uint32_t i = e->at; i < e->at + e->n; i++) {
		uint32_t s = fo->src[i], k0 = c->kid0[s], k1 = c->kid0[s + 1];

		if (grow__room((void **)&fo->kids, &fo->capkids, n + (k1 - k0), sizeof(*fo->kids)))
			return -ENOMEM;
		for (uint32_t k = k0; k < k1; k++)
			fo->kids[n++] = (struct kid){ c->frame[c->kids[k]], c->kids[k] };
	}
	if (e->n > 1)
		qsort(fo->kids, n, sizeof(*fo->kids), kid_cmp);
	return (long)n;
}

/*
** The callees tree, top down: a node merges its sources (the places of its
** path below the frame's outermost places), so its weight is known before
** its children are made, and a node lighter than min is not expanded: the
** view cannot show what is below it, and a frame at the top of the tree
** would cost a copy of the whole tree.
*/
static int build_callees(struct focus *fo, const struct ct_columns *c, double min)
{
	uint64_t all = 0;

	for (size_t i = 0; i < fo->nocc; i++)
		all += fo->occ[i].count;
	calltree__bump(fo->callees, CT_ROOT, all);
	if (grow__room((void **)&fo->kids, &fo->capkids, fo->nocc, sizeof(*fo->kids)))
		return -ENOMEM;
	for (size_t i = 0; i < fo->nocc; i++)
		fo->kids[i] = (struct kid){ fo->frame, fo->occ[i].node };
	if (all > 0 && push_pend(fo, CT_ROOT, fo->kids, (uint32_t)fo->nocc))
		return -ENOMEM;
	while (fo->npend) {
		struct pend e = fo->pend[--fo->npend];
		long n = gather_kids(fo, c, &e);

		if (n < 0)
			return -ENOMEM;
		fo->nsrc = e.at;	/* e's segment is the stack's last */
		for (long j = 0, end; j < n; j = end) {
			uint64_t w = 0;
			uint32_t cn;

			for (end = j; end < n && fo->kids[end].frame == fo->kids[j].frame; end++)
				w += count_of(c->weight[fo->kids[end].node]);
			cn = calltree__child_add(fo->callees, e.cnode, fo->kids[j].frame);
			if (cn == CT_NONE)
				return -ENOMEM;
			calltree__bump(fo->callees, cn, w);
			if ((double)w >= min && w > 0 &&
			    push_pend(fo, cn, fo->kids + j, (uint32_t)(end - j)))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
** The callers tree, a level at a time: each outermost place steps up to its
** caller and adds its count there. A place whose callers node stays lighter
** than min after a level goes no higher: the view cannot show what is above
** it, and a function on tens of thousands of paths would cost an insert per
** frame of each.
*/
static int build_callers(struct focus *fo, const struct ct_columns *cols, double min)
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
			up = cols->parent[o->node];
			if (up == CT_ROOT || up == CT_NONE) {
				o->cnode = CT_NONE;	/* the stack begins here */
				continue;
			}
			o->node = up;
			o->cnode = calltree__child_add(fo->callers, o->cnode, cols->frame[up]);
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

int flat__focus(struct flat *f, const struct calltree *t, uint32_t frame, enum ct_window w,
		int fallback_only, uint32_t depth, double min, struct calltree *callers,
		struct calltree *callees)
{
	struct focus fo = { .frame = frame, .depth = depth, .callers = callers,
			    .callees = callees };
	struct visit v = { .f = f, .enter = focus_enter, .ctx = &fo };
	int err;

	calltree__reset(callers);
	calltree__reset(callees);
	/* Their samples come dated long before their clock: they count in the
	** cumulative window only, which spares a sliding-window delta per insert. */
	calltree__advance(callers, FOCUS_CLOCK_NS);
	calltree__advance(callees, FOCUS_CLOCK_NS);
	err = calltree__columns(t, w, fallback_only, &f->cols);
	if (!err)
		err = visit(&v, calltree__max_depth(t));
	if (!err) {
		double all = 0;

		for (size_t i = 0; i < fo.nocc; i++)
			all += (double)fo.occ[i].count;
		err = build_callees(&fo, &f->cols, min * all);
		if (!err)
			err = build_callers(&fo, &f->cols, min * all);
	}
	free(fo.occ);
	free(fo.pend);
	free(fo.src);
	free(fo.kids);
	return err;
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
	free(f->walk);
	calltree__columns_free(&f->cols);
	memset(f, 0, sizeof(*f));
}
