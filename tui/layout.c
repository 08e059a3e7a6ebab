/*
** Icicle layout.
**
** A depth-first walk from the zoom root, left to right, so the boxes of each
** row come out in left-to-right order; a stable counting sort by row then
** gives the rows. Only children at least one cell wide are visited (and
** sorted), so the cost follows what is visible, not the size of the tree.
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui/layout.h"

struct kid {
	uint32_t node;
	uint32_t frame;
	double w;		/* weight */
};

struct walk {
	struct layout *l;
	const struct layout_req *r;
	double scale;		/* eighths per sample */
	uint32_t ntmp;		/* boxes in l->tmp */
	int maxrow;		/* deepest row (may be >= rows) holding a frame */
};

/* Heaviest first, then by frame id, so equal weights keep their places. */
static int kid_cmp(const void *pa, const void *pb)
{
	const struct kid *a = pa, *b = pb;

	if (a->w != b->w)
		return a->w < b->w ? 1 : -1;
	return (a->frame > b->frame) - (a->frame < b->frame);
}

/* Append a box in tree order. */
static int emit(struct walk *k, uint32_t node, uint32_t flags, int row, double x0, double x1)
{
	struct layout *l = k->l;
	int32_t e0 = (int32_t)lround(x0), e1 = (int32_t)lround(x1);

	if (row > k->maxrow)
		k->maxrow = row;
	if (row < 0 || row >= l->rows || e1 <= e0)
		return 0;
	if (k->ntmp == l->captmp) {
		uint32_t cap = l->captmp ? l->captmp * 2 : 256;
		struct box *b = realloc(l->tmp, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		l->tmp = b;
		l->captmp = cap;
	}
	l->tmp[k->ntmp++] = (struct box){ node, flags, row, e0, e1 };
	return 0;
}

/* Push node's children at least one cell wide onto the scratch stack; the pooled rest's weight. */
static int gather(struct walk *k, uint32_t node, double *pool)
{
	const struct layout_req *r = k->r;
	struct layout *l = k->l;
	struct kid *s;

	*pool = 0;
	for (uint32_t c = calltree__first(r->tree, node); c != CT_NONE;
	     c = calltree__next(r->tree, c)) {
		double w = calltree__weight(r->tree, c, r->window, r->fallback_only);

		if (!(w > 0) || c == r->hide)
			continue;
		if (w * k->scale < LAYOUT_SUB) {
			*pool += w;
			continue;
		}
		if (l->nscratch == l->capscratch) {
			uint32_t cap = l->capscratch ? l->capscratch * 2 : 256;

			s = realloc(l->scratch, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			l->scratch = s;
			l->capscratch = cap;
		}
		s = l->scratch;
		s[l->nscratch++] = (struct kid){ c, calltree__frame(r->tree, c), w };
	}
	return 0;
}

/* Lay out node (weight w) at depth (relative to top) from x (eighths), then its children. */
static int walk(struct walk *k, uint32_t node, int depth, double x, double w)
{
	struct layout *l = k->l;
	int row = depth - k->r->scroll, err;
	uint32_t base = l->nscratch;
	double pool, cx = x;

	err = emit(k, node, 0, row, x, x + w * k->scale);
	if (err || row + 1 >= l->rows + 64)	/* deep enough to say "more" */
		return err;
	err = gather(k, node, &pool);
	if (err)
		return err;
	qsort((struct kid *)l->scratch + base, l->nscratch - base, sizeof(struct kid), kid_cmp);
	for (uint32_t i = base; i < l->nscratch && !err; i++) {
		struct kid c = ((struct kid *)l->scratch)[i];

		err = walk(k, c.node, depth + 1, cx, c.w);
		cx += c.w * k->scale;
	}
	l->nscratch = base;
	if (!err && pool > 0)
		err = emit(k, node, BOX_POOL, row + 1, cx, cx + pool * k->scale);
	return err;
}

/* Lay out the subtree of r->top into l. */
int layout__build(struct layout *l, const struct layout_req *r)
{
	struct walk k = { .l = l, .r = r, .maxrow = -1 };
	uint32_t *row, i;
	int err = 0;

	l->n = 0;
	l->nscratch = 0;
	l->rows = r->rows > 0 ? r->rows : 0;
	l->cols = r->cols > 0 ? r->cols : 0;
	l->scroll = r->scroll > 0 ? r->scroll : 0;
	l->more = 0;
	l->total = calltree__weight(r->tree, r->top, r->window, r->fallback_only);
	if (r->top == CT_ROOT && r->hide != CT_NONE && calltree__parent(r->tree, r->hide) == CT_ROOT)
		l->total -= calltree__weight(r->tree, r->hide, r->window, r->fallback_only);
	row = realloc(l->row, ((size_t)l->rows + 1) * sizeof(*row));
	if (!row)
		return -ENOMEM;
	l->row = row;
	memset(row, 0, ((size_t)l->rows + 1) * sizeof(*row));
	if (l->total > 0 && l->rows && l->cols) {
		k.scale = (double)l->cols * LAYOUT_SUB / l->total;
		err = walk(&k, r->top, 0, 0, l->total);
	}
	if (err) {
		k.ntmp = 0;
		k.maxrow = -1;
	}
	if (k.maxrow >= l->rows)
		l->more = k.maxrow - l->rows + 1;
	if (k.ntmp > l->cap) {
		struct box *b = realloc(l->box, k.ntmp * sizeof(*b));

		if (!b)
			return -ENOMEM;
		l->box = b;
		l->cap = k.ntmp;
	}
	/* Stable counting sort by row: tree order is already left to right per row. */
	for (i = 0; i < k.ntmp; i++)
		row[l->tmp[i].row + 1]++;
	for (int r2 = 0; r2 < l->rows; r2++)
		row[r2 + 1] += row[r2];
	for (i = 0; i < k.ntmp; i++) {
		const struct box *b = &l->tmp[i];

		l->box[row[b->row]++] = *b;
	}
	for (int r2 = l->rows; r2 > 0; r2--)	/* row[r] ran to the end of row r: shift back */
		row[r2] = row[r2 - 1];
	row[0] = 0;
	l->n = k.ntmp;
	return err;
}

/* Free what l holds. */
void layout__free(struct layout *l)
{
	free(l->box);
	free(l->row);
	free(l->scratch);
	free(l->tmp);
	memset(l, 0, sizeof(*l));
}

/* The box of node, or -1. */
int layout__find(const struct layout *l, uint32_t node)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->box[i].node == node && !(l->box[i].flags & BOX_POOL))
			return (int)i;
	return -1;
}

/* The next selectable box on the same row in direction dir, or -1. */
int layout__step(const struct layout *l, int i, int dir)
{
	int32_t row;

	if (i < 0 || (uint32_t)i >= l->n)
		return -1;
	row = l->box[i].row;
	for (i += dir > 0 ? 1 : -1; i >= 0 && (uint32_t)i < l->n; i += dir > 0 ? 1 : -1) {
		if (l->box[i].row != row)
			return -1;
		if (!(l->box[i].flags & BOX_POOL))
			return i;
	}
	return -1;
}
