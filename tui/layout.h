/*
** Icicle layout: which frames go where, as a pure function of the call tree
** and the view (zoom, window, filter, size, scroll). No curses here.
*/
#ifndef LUATOP_TUI_LAYOUT_H
#define LUATOP_TUI_LAYOUT_H

#include <stdint.h>

#include "profile/calltree.h"

#define LAYOUT_SUB	8	/* sub-cell precision: edges are in eighths of a cell */
#define BOX_POOL	0x1u	/* frames narrower than a cell, pooled; not selectable */

/*
** One frame on screen. Edges e0 < e1 are in eighths of a cell from the left
** of the icicle area, so a box covers cells e0/8 .. (e1-1)/8, the first and
** last possibly in part.
*/
struct box {
	uint32_t node;		/* calltree node; for a pool, the parent of the pooled frames */
	uint32_t flags;		/* BOX_* */
	int32_t row;		/* 0: the top row of the icicle area */
	int32_t e0, e1;		/* left and right edge, eighths of a cell */
};

struct layout_req {
	const struct calltree *tree;
	uint32_t top;		/* zoom root: spans the whole width at depth 0 */
	enum ct_window window;
	int fallback_only;	/* weigh by fallback samples only */
	int cols, rows;		/* size of the icicle area in cells */
	int scroll;		/* depth below top shown on row 0 */
	uint32_t hide;		/* a child of the root left out (and its weight); CT_NONE or
				   CT_ROOT (0, as left unset): none */
};

struct layout {
	struct box *box;	/* by row, then left to right */
	uint32_t n, cap;
	uint32_t *row;		/* rows + 1 offsets: row r is box[row[r] .. row[r+1]) */
	int rows, cols;
	int scroll;
	int more;		/* levels with frames below the last row */
	double total;		/* weight of top */
	void *scratch;		/* children being sorted, reused between builds */
	uint32_t nscratch, capscratch;
	struct box *tmp;	/* boxes in tree order before sorting by row */
	uint32_t captmp;
};

/*
** Lay out the subtree of r->top: row k holds the frames at depth scroll + k
** below top, each as wide as its weight, children left-heavy (heaviest
** first, then by frame id) from their parent's left edge. Children under one
** cell are pooled in one BOX_POOL box after their siblings; frames with no
** weight are left out. 0 or -ENOMEM (l then holds no boxes).
*/
int layout__build(struct layout *l, const struct layout_req *r);
void layout__free(struct layout *l);
/* Index of the box of node (not a pool), or -1 if it is not on screen. */
int layout__find(const struct layout *l, uint32_t node);
/* The selectable box left (dir < 0) or right (dir > 0) of box i on its row, or -1. */
int layout__step(const struct layout *l, int i, int dir);

#endif
