/*
** Call tree: samples as a tree of frame paths, counted for three time
** windows at once (cumulative, the last N seconds, decaying), so the view
** can switch windows instantly. Pure: no I/O.
*/

#ifndef LUATOP_PROFILE_CALLTREE_H
#define LUATOP_PROFILE_CALLTREE_H

#include <stdint.h>

#include "profile/frames.h"
#include "profile/stacks.h"

enum ct_window {
	CT_CUMULATIVE,		/* since the start or the last reset */
	CT_SLIDING,		/* the last N seconds: a ring of per-second deltas */
	CT_DECAY,		/* exponential decay with a half-life of H seconds */
	CT_WINDOW__COUNT
};

#define CT_FALLBACK	0x1u		/* calltree__add flag: the merge fell back */
/* Marks of one frame of a sample, not part of its identity (calltree__add_marked). */
#define CT_MARK_JIT	0x1u		/* the frame ran as JIT-compiled code */
#define CT_MARK_INLINED	0x2u		/* ... inlined into the trace of a caller */
#define CT_MARKS	2
#define CT_ROOT		0u		/* node id of the root ("all"); it has no frame */
#define CT_NONE		UINT32_MAX	/* no node */
#define CT_SPAN_MAX	3600u		/* longest sliding window, seconds */
#define CT_SPAN_DEFAULT	10u
#define CT_HALF_DEFAULT	10.0		/* half-life of the decaying window, seconds */

/*
** Node ids are dense and stable until calltree__reset. A node's identity
** across refreshes and resets is its path of frame ids (calltree__find).
** Counts are inclusive (a node counts the samples of its whole subtree).
** Adds count at the leaf and the first read carries them up, so reading a
** tree (const or not) may write its internals: one thread at a time.
*/
struct calltree;

/* A new tree: sliding window of span_s seconds, decay half-life half_s. NULL on ENOMEM/EINVAL. */
struct calltree *calltree__new(unsigned span_s, double half_s);
void calltree__delete(struct calltree *t);
/* A deep copy (for a frozen display). NULL on ENOMEM. */
struct calltree *calltree__clone(const struct calltree *t);
/*
** Change the sliding span (1..CT_SPAN_MAX) and the half-life (> 0). The
** sliding window restarts empty; decaying weights keep their current value.
** 0 or -EINVAL.
*/
int calltree__set_span(struct calltree *t, unsigned span_s, double half_s);
unsigned calltree__span(const struct calltree *t);
double calltree__half_life(const struct calltree *t);
/*
** Add count samples of frames[0..n) (root first) taken at time_ns
** (CLOCK_MONOTONIC); flags: CT_FALLBACK. n may be 0 (counted on the root).
** Samples older than the sliding window count in the other windows only.
** 0, -ENOMEM, or -EINVAL (n > 0 with frames NULL).
*/
int calltree__add(struct calltree *t, const uint32_t *frames, uint32_t n, uint64_t count,
		  uint64_t time_ns, unsigned flags);
/*
** The same, with marks[i] (CT_MARK_*, NULL: none) for frames[i] and, for the
** frames marked CT_MARK_JIT, the number of the trace they ran in (0: unknown).
** Marks are counted since the start, in every window.
*/
int calltree__add_marked(struct calltree *t, const uint32_t *frames, const uint8_t *marks,
			 uint32_t n, uint64_t count, uint64_t time_ns, unsigned flags,
			 uint32_t trace);
/*
** Building a tree node by node (profile/flat.c's callers): the child of node
** with frame, created if new (CT_NONE on ENOMEM or a bad node); and count
** added to node alone, in CT_CUMULATIVE only: the caller keeps the counts
** inclusive (a node's count is its subtree's).
*/
uint32_t calltree__child_add(struct calltree *t, uint32_t node, uint32_t frame);
void calltree__bump(struct calltree *t, uint32_t node, uint64_t count);
/* Move the tree's clock to now_ns (never back): expires sliding deltas, decays. */
void calltree__advance(struct calltree *t, uint64_t now_ns);
/* Forget every sample and node (keeps the clock, the span and the capacity). */
void calltree__reset(struct calltree *t);

/* -- Nodes -------------------------------------------------------------- */

uint32_t calltree__nodes(const struct calltree *t);		/* node count, root included */
uint32_t calltree__max_depth(const struct calltree *t);	/* deepest node's depth */
uint32_t calltree__frame(const struct calltree *t, uint32_t node);	/* root: UINT32_MAX */
uint32_t calltree__parent(const struct calltree *t, uint32_t node);	/* CT_NONE for the root */
uint32_t calltree__depth(const struct calltree *t, uint32_t node);	/* 0 for the root */
uint32_t calltree__first(const struct calltree *t, uint32_t node);	/* first child or CT_NONE */
uint32_t calltree__next(const struct calltree *t, uint32_t node);	/* sibling or CT_NONE */
/* The child of node with this frame, or CT_NONE. */
uint32_t calltree__child(const struct calltree *t, uint32_t node, uint32_t frame);
/*
** Samples of node's subtree in window w; fallback_only counts only the
** samples added with CT_FALLBACK. Integral except in CT_DECAY.
*/
double calltree__weight(const struct calltree *t, uint32_t node, enum ct_window w,
			int fallback_only);
/* Samples whose leaf is node itself (weight minus the children's), never below 0. */
double calltree__self(const struct calltree *t, uint32_t node, enum ct_window w,
		      int fallback_only);
/* Samples of node (since the start) whose frame had the mark (one CT_MARK_*). */
uint64_t calltree__marked(const struct calltree *t, uint32_t node, unsigned mark);
/* The trace the node's latest JIT-marked sample ran in, 0 if none. */
uint32_t calltree__trace(const struct calltree *t, uint32_t node);
/*
** The frames from the root to node (root excluded) into out[0..max); returns
** the node's depth (the path length), which may exceed max (then out holds
** nothing useful).
*/
uint32_t calltree__path(const struct calltree *t, uint32_t node, uint32_t *out, uint32_t max);
/*
** The node at path[0..n), or the deepest node on the way to it; *matched
** (may be NULL) gets how many frames of path were found.
*/
uint32_t calltree__find(const struct calltree *t, const uint32_t *path, uint32_t n,
			uint32_t *matched);

/*
** The tree as dense columns by node id, for walks over every node (the Top
** table, callers/callees): read in one pass over the nodes, they spare such a
** walk the cache misses of visiting 100k nodes in depth-first order. Parents
** come before their children (ids grow as nodes are added). Only nodes with
** weight are linked as children, newest first as calltree__first does.
*/
struct ct_columns {
	uint32_t n;		/* nodes, root included */
	uint32_t *frame;	/* by node: frame id (root: UINT32_MAX) */
	uint32_t *parent;	/* ... parent (root: CT_NONE) */
	double *weight;		/* ... weight in the window asked for */
	uint32_t *kid0;		/* node i's children: kids[kid0[i] .. kid0[i + 1]) */
	uint32_t *kids;
	size_t cap;		/* nodes the arrays have room for */
};

/* Fill c (reused between calls) with t in window w. 0 or -ENOMEM. */
int calltree__columns(const struct calltree *t, enum ct_window w, int fallback_only,
		      struct ct_columns *c);
void calltree__columns_free(struct ct_columns *c);

/* -- Export ------------------------------------------------------------- */

/*
** Add the subtree of top to out, as whole stacks (top's ancestors included),
** with the self samples of each node in window w (rounded in CT_DECAY);
** fallback_only keeps the CT_FALLBACK samples only. fb_root: a frame to root
** the CT_FALLBACK samples at (their own stacks, [fallback];...), or UINT32_MAX
** to add them as they are. 0 or -ENOMEM.
*/
int calltree__to_stacks(const struct calltree *t, uint32_t top, enum ct_window w,
			int fallback_only, uint32_t fb_root, struct stacktab *out);

#endif
