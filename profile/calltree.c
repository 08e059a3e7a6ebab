/*
** Call tree with windowed counts.
**
** Nodes sit in one array (id 0 is the root); (parent, frame) -> node is an
** open-addressing hash of node id + 1. Every node keeps inclusive counts for
** the three windows, of all samples and of fallback samples:
**
**   cum  exact counts since the start;
**   win  exact counts of the sliding window. Each add also records a delta
**        (leaf node, count, fallback count) in the ring bucket of its second;
**        when a second leaves the window, its deltas are subtracted along the
**        leaf's path. Deltas of one leaf in one second are merged (the node
**        remembers where its delta is).
**   dec  counts scaled by 2^((t - t0)/H) when added, so one factor
**        2^(-(now - t0)/H) decays them all when read; before the factors grow
**        past 2^64, t0 moves forward and every node is rescaled.
**
** An add counts its samples at the leaf only, in a pending entry per leaf;
** they are carried up the leaf's path (settled) when counts are next read, or
** before the window or the decay changes: once per refresh or second for all
** the samples of a leaf, not once per sample along its whole path.
*/

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profile/calltree.h"

#define NS		1000000000ull
#define MS		1000000ull
#define RESCALE_EXP	64.0	/* rescale decay sums when 2^((t-t0)/H) passes 2^64 */
#define SLOTS_MIN	1024u
#define NODES_MIN	256u
#define NOFRAME		UINT32_MAX

struct ct_delta {
	uint32_t node;		/* leaf node of the samples */
	uint32_t pad;
	uint64_t count;		/* samples */
	uint64_t fb;		/* of which fallback */
};

struct ct_bucket {
	uint64_t sec;		/* the second it holds (time_ns / 1e9) */
	int used;		/* holds sec's deltas */
	uint32_t n, cap;	/* deltas used / allocated */
	struct ct_delta *v;
};

struct ct_node {
	uint32_t frame;		/* frame id; NOFRAME for the root */
	uint32_t parent;	/* CT_NONE for the root */
	uint32_t child;		/* first child, CT_NONE if none */
	uint32_t next;		/* next sibling, CT_NONE if last */
	uint32_t depth;		/* 0 for the root */
	uint32_t bidx;		/* index of this node's delta in the bucket of second bsec - 1 */
	uint64_t bsec;		/* second + 1 of that bucket; 0: none */
	uint64_t cum[2];	/* samples, fallback samples: since the start */
	uint64_t marked[CT_MARKS];	/* samples with each mark, since the start */
	uint32_t trace;		/* the JIT trace its latest JIT sample ran in; 0: none */
	uint32_t pidx;		/* its pending entry's index + 1; 0: none */
	uint64_t win[2];	/* the same, in the sliding window */
	double dec[2];		/* the same, decaying, scaled by 2^((t - t0)/H) */
};

struct calltree {
	struct ct_node *node;
	uint32_t n, cap;	/* nodes used / allocated */
	struct ct_slot {	/* keyed by (parent, frame), held in the slot: a
				   lookup reads no node */
		uint32_t parent, frame;
		uint32_t id1;	/* node id + 1; 0: empty */
		uint32_t pad;
	} *slots;
	uint32_t mask;		/* number of slots - 1 */
	uint32_t max_depth;	/* deepest node ever added since the last reset */
	struct ct_bucket *ring;	/* span buckets; second s lives in ring[s % span] */
	unsigned span;		/* sliding window, seconds */
	double half;		/* half-life, seconds */
	int started;		/* the clock has been set */
	uint64_t now;		/* clock, ns: the latest sample time or advance() */
	uint64_t head;		/* now / NS: the newest second in the ring */
	uint64_t t0;		/* decay reference time, ns */
	double scale;		/* 2^(-(now - t0)/H), worked out at most once a ms: */
	uint64_t scale_ms;	/* ... at now / 1 ms (a decay error below 1e-4) */
	/* The path last added: its frames and nodes. The next sample mostly
	** shares a prefix with it, whose nodes need no lookup. */
	struct ct_step { uint32_t frame, node; } *last;
	size_t last_n, last_cap;
	/* Samples added since the counts were last settled, by leaf. */
	struct ct_pend { uint32_t node; uint64_t cum[2], win[2]; double dec[2]; } *pend;
	size_t npend, cappend;
};

/* -- Helpers ------------------------------------------------------------ */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a - b, or 0 below 0. */
static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* 2^((a - b)/H) for two clock readings in ns. */
static double ct_factor(const struct calltree *t, uint64_t a, uint64_t b)
{
	double d = a >= b ? (double)(a - b) : -(double)(b - a);

	return exp2(d / 1e9 / t->half);
}

/* Hash of the key (parent, frame). */
static uint32_t ct_hash(uint32_t parent, uint32_t frame)
{
	uint64_t k = ((uint64_t)parent << 32 | frame) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(k >> 32);
}

/* Make the tree just the root, with no samples. */
static void ct_init_root(struct calltree *t)
{
	memset(&t->node[0], 0, sizeof(t->node[0]));
	t->node[0].frame = NOFRAME;
	t->node[0].parent = t->node[0].child = t->node[0].next = CT_NONE;
	t->n = 1;
	t->max_depth = 0;
	t->last_n = 0;
	t->npend = 0;
}

/* Carry the pending samples up their leaves' paths. */
static void ct_settle(struct calltree *t)
{
	for (size_t i = 0; i < t->npend; i++) {
		const struct ct_pend *p = &t->pend[i];

		t->node[p->node].pidx = 0;
		for (uint32_t x = p->node; x != CT_NONE; x = t->node[x].parent) {
			struct ct_node *nd = &t->node[x];

			nd->cum[0] = sat_add(nd->cum[0], p->cum[0]);
			nd->cum[1] = sat_add(nd->cum[1], p->cum[1]);
			nd->win[0] = sat_add(nd->win[0], p->win[0]);
			nd->win[1] = sat_add(nd->win[1], p->win[1]);
			nd->dec[0] += p->dec[0];
			nd->dec[1] += p->dec[1];
		}
	}
	t->npend = 0;
}

/*
** The counts of a tree being read, settled: a read of a const tree may carry
** its pending samples (the tree is the caller's, never a const object).
*/
static const struct calltree *ct_read(const struct calltree *t)
{
	if (t->npend)
		ct_settle((struct calltree *)t);
	return t;
}

/* The pending entry of leaf, made if new; NULL on ENOMEM. */
static struct ct_pend *ct_pending(struct calltree *t, uint32_t leaf)
{
	struct ct_node *nd = &t->node[leaf];

	if (nd->pidx)
		return &t->pend[nd->pidx - 1];
	if (t->npend >= UINT32_MAX - 1 ||
	    grow__room((void **)&t->pend, &t->cappend, t->npend, sizeof(*t->pend)))
		return NULL;
	t->pend[t->npend] = (struct ct_pend){ .node = leaf };
	nd->pidx = (uint32_t)++t->npend;
	return &t->pend[t->npend - 1];
}

/* -- Lifetime ----------------------------------------------------------- */

/* A new tree with span_s seconds of sliding window and half-life half_s. */
struct calltree *calltree__new(unsigned span_s, double half_s)
{
	struct calltree *t;

	if (!span_s || span_s > CT_SPAN_MAX || !(half_s > 0) || !isfinite(half_s)) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cap = NODES_MIN;
	t->node = malloc(t->cap * sizeof(*t->node));
	t->mask = SLOTS_MIN - 1;
	t->slots = calloc(SLOTS_MIN, sizeof(*t->slots));
	t->span = span_s;
	t->half = half_s;
	t->ring = calloc(span_s, sizeof(*t->ring));
	t->scale = 1;
	if (!t->node || !t->slots || !t->ring) {
		calltree__delete(t);
		errno = ENOMEM;
		return NULL;
	}
	ct_init_root(t);
	return t;
}

/* Free the ring's delta arrays and the ring. */
static void ct_free_ring(struct ct_bucket *ring, unsigned span)
{
	if (!ring)
		return;
	for (unsigned i = 0; i < span; i++)
		free(ring[i].v);
	free(ring);
}

/* Free t; NULL is fine. */
void calltree__delete(struct calltree *t)
{
	if (!t)
		return;
	free(t->node);
	free(t->slots);
	ct_free_ring(t->ring, t->span);
	free(t->last);
	free(t->pend);
	free(t);
}

/* A deep copy of t. */
struct calltree *calltree__clone(const struct calltree *t)
{
	struct calltree *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *ct_read(t);
	c->last = NULL;	/* the copy starts without a last path */
	c->last_n = c->last_cap = 0;
	c->pend = NULL;	/* ... and with its counts settled */
	c->cappend = 0;
	c->cap = t->n;
	c->node = malloc((size_t)c->cap * sizeof(*c->node));
	c->slots = malloc(((size_t)t->mask + 1) * sizeof(*c->slots));
	c->ring = calloc(t->span, sizeof(*c->ring));
	if (!c->node || !c->slots || !c->ring) {
		calltree__delete(c);
		return NULL;
	}
	memcpy(c->node, t->node, (size_t)t->n * sizeof(*c->node));
	memcpy(c->slots, t->slots, ((size_t)t->mask + 1) * sizeof(*c->slots));
	for (unsigned i = 0; i < t->span; i++) {
		const struct ct_bucket *b = &t->ring[i];

		c->ring[i] = *b;
		c->ring[i].v = NULL;
		c->ring[i].cap = b->n;
		if (!b->n)
			continue;
		c->ring[i].v = malloc(b->n * sizeof(*b->v));
		if (!c->ring[i].v) {
			calltree__delete(c);
			return NULL;
		}
		memcpy(c->ring[i].v, b->v, b->n * sizeof(*b->v));
	}
	return c;
}

/* -- Sliding window ----------------------------------------------------- */

/* Subtract a bucket's deltas from the window counts and empty it. */
static void ct_expire(struct calltree *t, struct ct_bucket *b)
{
	ct_settle(t);	/* the counts subtracted from must hold them */
	for (uint32_t i = 0; i < b->n; i++) {
		const struct ct_delta *d = &b->v[i];

		for (uint32_t x = d->node; x != CT_NONE; x = t->node[x].parent) {
			t->node[x].win[0] = sat_sub(t->node[x].win[0], d->count);
			t->node[x].win[1] = sat_sub(t->node[x].win[1], d->fb);
		}
	}
	b->n = 0;
	b->used = 0;
}

/* Move the clock to time (ns) if it is later; expire seconds that leave the window. */
static void ct_clock(struct calltree *t, uint64_t time)
{
	uint64_t sec = time / NS;

	if (!t->started) {
		t->started = 1;
		t->now = t->t0 = time;
		t->head = sec;
		t->scale = 1;
		t->scale_ms = time / MS;
		return;
	}
	if (time <= t->now)
		return;
	if (sec > t->head) {
		if (sec - t->head >= t->span) {
			for (unsigned i = 0; i < t->span; i++)
				if (t->ring[i].used)
					ct_expire(t, &t->ring[i]);
		} else {
			/* Second s takes the slot of s - span, which leaves the window. */
			for (uint64_t s = t->head + 1; s <= sec; s++)
				if (t->ring[s % t->span].used)
					ct_expire(t, &t->ring[s % t->span]);
		}
		t->head = sec;
	}
	t->now = time;
	if (time / MS != t->scale_ms) {
		t->scale = ct_factor(t, t->t0, t->now);
		t->scale_ms = time / MS;
	}
}

/* Make room for leaf's delta in the bucket of second sec; NULL on ENOMEM. */
static struct ct_delta *ct_delta(struct calltree *t, uint32_t leaf, uint64_t sec)
{
	struct ct_bucket *b = &t->ring[sec % t->span];
	struct ct_node *nd = &t->node[leaf];

	if (b->used && b->sec != sec)
		ct_expire(t, b);	/* cannot happen while the clock only moves forward */
	if (!b->used) {
		b->used = 1;
		b->sec = sec;
		b->n = 0;
	}
	if (nd->bsec == sec + 1 && nd->bidx < b->n && b->v[nd->bidx].node == leaf)
		return &b->v[nd->bidx];
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		struct ct_delta *v;

		if (cap < b->cap)
			return NULL;
		v = realloc(b->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		b->v = v;
		b->cap = cap;
	}
	nd->bsec = sec + 1;
	nd->bidx = b->n;
	b->v[b->n] = (struct ct_delta){ .node = leaf };
	return &b->v[b->n++];
}

/* -- Decay -------------------------------------------------------------- */

/* Move the decay reference to time: rescale every node's sums. */
static void ct_rescale(struct calltree *t, uint64_t time)
{
	double f = ct_factor(t, t->t0, time);

	ct_settle(t);
	for (uint32_t i = 0; i < t->n; i++) {
		t->node[i].dec[0] *= f;
		t->node[i].dec[1] *= f;
	}
	t->t0 = time;
	t->scale = ct_factor(t, t->t0, t->now);
	t->scale_ms = t->now / MS;
}

/* -- Nodes and adding --------------------------------------------------- */

/* The child (parent, frame), or CT_NONE with *slot set to where it would go. */
static uint32_t ct_lookup(const struct calltree *t, uint32_t parent, uint32_t frame,
			  uint32_t *slot)
{
	uint32_t i;

	for (i = ct_hash(parent, frame) & t->mask; t->slots[i].id1; i = (i + 1) & t->mask)
		if (t->slots[i].parent == parent && t->slots[i].frame == frame)
			return t->slots[i].id1 - 1;
	if (slot)
		*slot = i;
	return CT_NONE;
}

/* Double the hash table. */
static int ct_rehash(struct calltree *t)
{
	uint32_t nslots = (t->mask + 1) * 2;
	struct ct_slot *s;

	if (nslots < t->mask + 1)
		return -ENOMEM;
	s = calloc(nslots, sizeof(*s));
	if (!s)
		return -ENOMEM;
	free(t->slots);
	t->slots = s;
	t->mask = nslots - 1;
	for (uint32_t id = 1; id < t->n; id++) {
		uint32_t i;

		ct_lookup(t, t->node[id].parent, t->node[id].frame, &i);
		t->slots[i] = (struct ct_slot){ t->node[id].parent, t->node[id].frame, id + 1, 0 };
	}
	return 0;
}

/*
** Create the child (parent, frame) in the empty slot its lookup ended at
** (CT_NONE: not looked up); its id, or CT_NONE on ENOMEM.
*/
static uint32_t ct_newnode(struct calltree *t, uint32_t parent, uint32_t frame, uint32_t slot)
{
	struct ct_node *nd;
	uint32_t id;

	if (t->n >= UINT32_MAX - 1)
		return CT_NONE;
	if (t->n == t->cap) {
		uint32_t cap = t->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : t->cap * 2;

		nd = realloc(t->node, (size_t)cap * sizeof(*nd));
		if (!nd)
			return CT_NONE;
		t->node = nd;
		t->cap = cap;
	}
	if ((uint64_t)(t->n + 1) * 2 > (uint64_t)t->mask + 1) {
		if (ct_rehash(t))
			return CT_NONE;
		slot = CT_NONE;	/* the slots moved */
	}
	if (slot == CT_NONE)
		ct_lookup(t, parent, frame, &slot);
	id = t->n++;
	nd = &t->node[id];
	memset(nd, 0, sizeof(*nd));
	nd->frame = frame;
	nd->parent = parent;
	nd->child = CT_NONE;
	nd->next = t->node[parent].child;
	nd->depth = t->node[parent].depth + 1;
	t->node[parent].child = id;
	if (nd->depth > t->max_depth)
		t->max_depth = nd->depth;
	t->slots[slot] = (struct ct_slot){ parent, frame, id + 1, 0 };
	return id;
}

/*
** The node at frames[0..n), made if new (CT_NONE on ENOMEM): the prefix it
** shares with the path added last is found without a lookup.
*/
static uint32_t ct_descend(struct calltree *t, const uint32_t *frames, uint32_t n)
{
	uint32_t x = CT_ROOT, i = 0;

	while (i < n && i < t->last_n && t->last[i].frame == frames[i])
		i++;
	if (i)
		x = t->last[i - 1].node;
	if (grow__room((void **)&t->last, &t->last_cap, n, sizeof(*t->last)))
		return CT_NONE;
	for (; i < n; i++) {
		uint32_t slot, c = ct_lookup(t, x, frames[i], &slot);

		if (c == CT_NONE && (c = ct_newnode(t, x, frames[i], slot)) == CT_NONE) {
			t->last_n = i;	/* what is known still holds */
			return CT_NONE;
		}
		x = c;
		t->last[i] = (struct ct_step){ frames[i], x };
	}
	t->last_n = n;
	return x;
}

/* Add count samples of frames[0..n) at time_ns. */
int calltree__add(struct calltree *t, const uint32_t *frames, uint32_t n, uint64_t count,
		  uint64_t time_ns, unsigned flags)
{
	return calltree__add_marked(t, frames, NULL, n, count, time_ns, flags, 0);
}

/* The same, with each frame's marks and the trace of the JIT-marked ones. */
int calltree__add_marked(struct calltree *t, const uint32_t *frames, const uint8_t *marks,
			 uint32_t n, uint64_t count, uint64_t time_ns, unsigned flags,
			 uint32_t trace)
{
	uint64_t fb = flags & CT_FALLBACK ? count : 0, sec = time_ns / NS;
	struct ct_delta *d = NULL;
	struct ct_pend *p;
	uint32_t x;
	double f;

	if (n && !frames)
		return -EINVAL;
	if (!count)
		return 0;
	if ((x = ct_descend(t, frames, n)) == CT_NONE)
		return -ENOMEM;	/* the new nodes keep zero counts: invisible */
	ct_clock(t, time_ns);
	if (sec + t->span > t->head) {	/* within (head - span, head] */
		d = ct_delta(t, x, sec);
		if (!d)
			return -ENOMEM;
		d->count = sat_add(d->count, count);
		d->fb = sat_add(d->fb, fb);
	}
	/* In the clock's millisecond (the usual case) the factor is the scale's inverse. */
	f = time_ns / MS == t->scale_ms ? 1 / t->scale : ct_factor(t, time_ns, t->t0);
	if (f > exp2(RESCALE_EXP)) {
		ct_rescale(t, time_ns);
		f = 1;
	}
	if (!(p = ct_pending(t, x)))
		return -ENOMEM;
	p->cum[0] = sat_add(p->cum[0], count);
	p->cum[1] = sat_add(p->cum[1], fb);
	p->dec[0] += (double)count * f;
	p->dec[1] += (double)fb * f;
	if (d) {
		p->win[0] = sat_add(p->win[0], count);
		p->win[1] = sat_add(p->win[1], fb);
	}
	for (uint32_t i = 0; marks && i < n; i++) {	/* t->last[i] is frames[i]'s node */
		struct ct_node *nd = &t->node[t->last[i].node];

		for (unsigned m = 0; marks[i] && m < CT_MARKS; m++)
			if (marks[i] & (1u << m)) {
				nd->marked[m] = sat_add(nd->marked[m], count);
				if (trace && (1u << m) == CT_MARK_JIT)
					nd->trace = trace;
			}
	}
	return 0;
}

uint32_t calltree__child_add(struct calltree *t, uint32_t node, uint32_t frame)
{
	uint32_t c, slot;

	if (node >= t->n)
		return CT_NONE;
	c = ct_lookup(t, node, frame, &slot);
	return c != CT_NONE ? c : ct_newnode(t, node, frame, slot);
}

void calltree__bump(struct calltree *t, uint32_t node, uint64_t count)
{
	if (node < t->n)
		t->node[node].cum[0] = sat_add(t->node[node].cum[0], count);
}

/* Move the clock forward to now_ns. */
void calltree__advance(struct calltree *t, uint64_t now_ns)
{
	ct_clock(t, now_ns);
}

/* Forget every sample and node. */
void calltree__reset(struct calltree *t)
{
	memset(t->slots, 0, ((size_t)t->mask + 1) * sizeof(*t->slots));
	for (unsigned i = 0; i < t->span; i++) {
		t->ring[i].n = 0;
		t->ring[i].used = 0;
	}
	ct_init_root(t);
}

/* New sliding span and half-life. */
int calltree__set_span(struct calltree *t, unsigned span_s, double half_s)
{
	struct ct_bucket *ring;

	if (!span_s || span_s > CT_SPAN_MAX || !(half_s > 0) || !isfinite(half_s))
		return -EINVAL;
	ct_settle(t);
	if (span_s != t->span) {
		ring = calloc(span_s, sizeof(*ring));
		if (!ring)
			return -ENOMEM;
		ct_free_ring(t->ring, t->span);
		t->ring = ring;
		t->span = span_s;
		for (uint32_t i = 0; i < t->n; i++) {
			memset(t->node[i].win, 0, sizeof(t->node[i].win));
			t->node[i].bsec = 0;
		}
	}
	if (half_s != t->half) {
		/* Keep the current values: rebase the sums on now with factor 1. */
		for (uint32_t i = 0; i < t->n; i++) {
			t->node[i].dec[0] *= t->scale;
			t->node[i].dec[1] *= t->scale;
		}
		t->t0 = t->now;
		t->scale = 1;
		t->scale_ms = t->now / MS;
		t->half = half_s;
	}
	return 0;
}

/* The sliding window, seconds. */
unsigned calltree__span(const struct calltree *t)
{
	return t->span;
}

/* The half-life of the decaying window, seconds. */
double calltree__half_life(const struct calltree *t)
{
	return t->half;
}

/* -- Node access -------------------------------------------------------- */

uint32_t calltree__nodes(const struct calltree *t)
{
	return t->n;
}

/* Depth of the deepest node since the last reset. */
uint32_t calltree__max_depth(const struct calltree *t)
{
	return t->max_depth;
}

/* The node's frame id. */
uint32_t calltree__frame(const struct calltree *t, uint32_t node)
{
	return node < t->n ? t->node[node].frame : NOFRAME;
}

/* The node's caller. */
uint32_t calltree__parent(const struct calltree *t, uint32_t node)
{
	return node < t->n ? t->node[node].parent : CT_NONE;
}

/* The node's depth below the root. */
uint32_t calltree__depth(const struct calltree *t, uint32_t node)
{
	return node < t->n ? t->node[node].depth : 0;
}

/* The node's first callee. */
uint32_t calltree__first(const struct calltree *t, uint32_t node)
{
	return node < t->n ? t->node[node].child : CT_NONE;
}

/* The node's next sibling. */
uint32_t calltree__next(const struct calltree *t, uint32_t node)
{
	return node < t->n ? t->node[node].next : CT_NONE;
}

/* The callee of node with this frame. */
uint32_t calltree__child(const struct calltree *t, uint32_t node, uint32_t frame)
{
	return node < t->n ? ct_lookup(t, node, frame, NULL) : CT_NONE;
}

/* Exact count of node in an integral window. */
static uint64_t ct_count(const struct ct_node *nd, enum ct_window w, int fb)
{
	return w == CT_SLIDING ? nd->win[fb] : nd->cum[fb];
}

/* Samples of node's subtree in window w. */
double calltree__weight(const struct calltree *t, uint32_t node, enum ct_window w,
			int fallback_only)
{
	const struct ct_node *nd;
	int fb = !!fallback_only;

	t = ct_read(t);
	if (node >= t->n)
		return 0;
	nd = &t->node[node];
	if (w == CT_DECAY)
		return nd->dec[fb] * t->scale;
	return (double)ct_count(nd, w, fb);
}

/* Exact self count in an integral window. */
static uint64_t ct_self_count(const struct calltree *t, uint32_t node, enum ct_window w,
			      int fb)
{
	uint64_t s = ct_count(&t->node[node], w, fb);

	for (uint32_t c = t->node[node].child; c != CT_NONE; c = t->node[c].next)
		s = sat_sub(s, ct_count(&t->node[c], w, fb));
	return s;
}

/* Samples whose leaf is node. */
double calltree__self(const struct calltree *t, uint32_t node, enum ct_window w,
		      int fallback_only)
{
	int fb = !!fallback_only;
	double s;

	t = ct_read(t);
	if (node >= t->n)
		return 0;
	if (w != CT_DECAY)
		return (double)ct_self_count(t, node, w, fb);
	s = t->node[node].dec[fb];
	for (uint32_t c = t->node[node].child; c != CT_NONE; c = t->node[c].next)
		s -= t->node[c].dec[fb];
	return s > 0 ? s * t->scale : 0;
}

/* Room for n nodes in every column of c. */
static int ct_columns_room(struct ct_columns *c, uint32_t n)
{
	size_t cap = c->cap;
	void *p[5];
	size_t sz[5] = { sizeof(*c->frame), sizeof(*c->parent), sizeof(*c->weight),
			 sizeof(*c->kid0), sizeof(*c->kids) };
	void **col[5] = { (void **)&c->frame, (void **)&c->parent, (void **)&c->weight,
			  (void **)&c->kid0, (void **)&c->kids };

	if ((size_t)n + 1 <= cap)
		return 0;
	cap = (size_t)n + 1 + n / 2;
	for (int i = 0; i < 5; i++) {
		if (!(p[i] = realloc(*col[i], cap * sz[i])))
			return -ENOMEM;
		*col[i] = p[i];
	}
	c->cap = cap;
	return 0;
}

/* The columns of t in window w. */
int calltree__columns(const struct calltree *t, enum ct_window w, int fallback_only,
		      struct ct_columns *c)
{
	int fb = !!fallback_only;
	uint32_t n = t->n, kids;

	t = ct_read(t);
	if (ct_columns_room(c, n))
		return -ENOMEM;
	c->n = n;
	memset(c->kid0, 0, ((size_t)n + 1) * sizeof(*c->kid0));
	for (uint32_t i = 0; i < n; i++) {
		const struct ct_node *nd = &t->node[i];

		c->frame[i] = nd->frame;
		c->parent[i] = nd->parent;
		c->weight[i] = w == CT_DECAY ? nd->dec[fb] * t->scale : (double)ct_count(nd, w, fb);
		if (i && c->weight[i] > 0)
			c->kid0[nd->parent + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)	/* counts to ends: kid0[p + 1] ends p's */
		c->kid0[i + 1] += c->kid0[i];
	kids = c->kid0[n];
	/* Fill each node's slots from its end, the newest child last placed and
	** so first: kid0[p + 1] ends as p's start, moved to kid0[p] after. */
	for (uint32_t i = 1; i < n; i++)
		if (c->weight[i] > 0)
			c->kids[--c->kid0[c->parent[i] + 1]] = i;
	memmove(c->kid0, c->kid0 + 1, (size_t)n * sizeof(*c->kid0));
	c->kid0[n] = kids;
	return 0;
}

void calltree__columns_free(struct ct_columns *c)
{
	free(c->frame);
	free(c->parent);
	free(c->weight);
	free(c->kid0);
	free(c->kids);
	memset(c, 0, sizeof(*c));
}

/* Frames from the root to node. */
uint32_t calltree__path(const struct calltree *t, uint32_t node, uint32_t *out, uint32_t max)
{
	uint32_t depth, i;

	if (node >= t->n)
		return 0;
	depth = t->node[node].depth;
	if (depth > max)
		return depth;
	for (i = depth; i > 0; i--, node = t->node[node].parent)
		out[i - 1] = t->node[node].frame;
	return depth;
}

/* The node at path, or the deepest one on the way. */
uint32_t calltree__find(const struct calltree *t, const uint32_t *path, uint32_t n,
			uint32_t *matched)
{
	uint32_t x = CT_ROOT, i;

	for (i = 0; i < n; i++) {
		uint32_t c = ct_lookup(t, x, path[i], NULL);

		if (c == CT_NONE)
			break;
		x = c;
	}
	if (matched)
		*matched = i;
	return x;
}

/* -- Export ------------------------------------------------------------- */

/* Self samples of node for export: exact, or rounded when decaying. */
static uint64_t ct_export_self(const struct calltree *t, uint32_t node, enum ct_window w,
			       int fb)
{
	double s;

	if (w != CT_DECAY)
		return ct_self_count(t, node, w, fb);
	s = calltree__self(t, node, w, fb);
	return s >= 0.5 ? (uint64_t)llround(s) : 0;
}

/* Node x's self samples, at path (depth frames), into out: the CT_FALLBACK ones
** under fb_root (path[-1]) when it is a frame. */
static int ct_export_node(const struct calltree *t, uint32_t x, enum ct_window w, int fb,
			  uint32_t *path, uint32_t depth, uint32_t fb_root, struct stacktab *out)
{
	uint64_t self = ct_export_self(t, x, w, fb), fbs;
	int err;

	if (fb_root == UINT32_MAX)
		return self ? stacktab__add(out, path, depth, self) : 0;
	fbs = fb ? self : ct_export_self(t, x, w, 1);
	if (fbs > self)		/* decaying counts round apart */
		fbs = self;
	if (self > fbs && (err = stacktab__add(out, path, depth, self - fbs)))
		return err;
	path[-1] = fb_root;
	return fbs ? stacktab__add(out, path - 1, depth + 1, fbs) : 0;
}

/* Whole stacks of top's subtree with their self samples, into out. */
int calltree__to_stacks(const struct calltree *t, uint32_t top, enum ct_window w,
			int fallback_only, uint32_t fb_root, struct stacktab *out)
{
	int fb = !!fallback_only, err = 0;
	uint32_t *buf, *path, x = top;

	t = ct_read(t);
	if (top >= t->n)
		return 0;
	buf = malloc(((size_t)t->max_depth + 2) * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	path = buf + 1;		/* room for fb_root before the stack */
	calltree__path(t, top, path, t->max_depth + 1);
	for (;;) {	/* preorder walk of the subtree */
		uint32_t depth = t->node[x].depth;

		if (depth)
			path[depth - 1] = t->node[x].frame;
		if ((err = ct_export_node(t, x, w, fb, path, depth, fb_root, out)))
			break;
		if (t->node[x].child != CT_NONE) {
			x = t->node[x].child;
			continue;
		}
		while (x != top && t->node[x].next == CT_NONE)
			x = t->node[x].parent;
		if (x == top)
			break;
		x = t->node[x].next;
	}
	free(buf);
	return err;
}

uint64_t calltree__marked(const struct calltree *t, uint32_t node, unsigned mark)
{
	for (unsigned m = 0; m < CT_MARKS; m++)
		if (mark == 1u << m)
			return node < t->n ? t->node[node].marked[m] : 0;
	return 0;
}

uint32_t calltree__trace(const struct calltree *t, uint32_t node)
{
	return node < t->n ? t->node[node].trace : 0;
}
