/*
** Views of a call tree by function rather than by path (the live view's Top
** table and callers/callees): a flat table of frames with their self and total
** weight, and the callers and callees of one frame merged over all the paths
** it is on. Pure: no I/O.
*/
#ifndef LUATOP_PROFILE_FLAT_H
#define LUATOP_PROFILE_FLAT_H

#include <stdint.h>

#include "profile/calltree.h"

struct flat_row {
	uint32_t frame;
	double self;		/* weight of the samples whose leaf is this frame */
	double total;		/* ... that have it on their stack, once per stack */
};

enum flat_sort { FLAT_BY_SELF, FLAT_BY_TOTAL, FLAT_SORT__COUNT };

struct flat {
	struct flat_row *rows;	/* one per frame with weight, sorted */
	uint32_t n;
	size_t cap;
	double all;		/* the tree's total weight */
	double *self, *total;	/* scratch by frame id */
	uint32_t *onpath;	/* ... how often the frame is on the path being walked */
	uint32_t nframes;	/* entries in the scratch arrays */
	struct ct_columns cols;	/* the tree walked, read in one pass */
	uint32_t *walk;		/* the walk's path: node and next child by depth */
	size_t capwalk;
};

/*
** The flat table of t in window w (fallback_only: the fallback samples only),
** sorted by key, heaviest first (then by frame id). A frame recursing counts
** once per stack in total. 0 or -ENOMEM.
*/
int flat__build(struct flat *f, const struct calltree *t, enum ct_window w, int fallback_only,
		enum flat_sort key);
void flat__sort(struct flat *f, enum flat_sort key);
/* The self weight of frame in the table last built (0 if none). */
double flat__self_of(const struct flat *f, uint32_t frame);
void flat__free(struct flat *f);

/*
** The callers and callees of frame, merged over every path it is on (at its
** outermost place on each: a recursion's inner calls are callees), with the
** weights of t in window w: callees is rooted at frame's callees (its root
** weighs frame's total), callers at its immediate callers, each followed by
** their callers, up to depth callers. A node lighter than min (a share of
** frame's total, e.g. an eighth of a cell of the view) is made but not
** followed further (0 follows all): the view cannot show it, and this bounds
** the work for a frame near the root or on very many paths. Both trees are
** reset first; their counts are t's weights rounded, in their CT_CUMULATIVE
** window only. scratch is a flat table's room for the walk (its rows are left
** alone). 0 or -ENOMEM.
*/
int flat__focus(struct flat *scratch, const struct calltree *t, uint32_t frame, enum ct_window w,
		int fallback_only, uint32_t depth, double min, struct calltree *callers,
		struct calltree *callees);

#endif
