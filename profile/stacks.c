/*
** Aggregated samples: stack (frame ids, root first) -> count.
**
** Entries sit in one array in first-added order; id sequences are copied
** into a chunked arena. Lookup is open addressing (linear probing, FNV-1a
** over the ids) of entry index + 1, 0 meaning empty. Reset rewinds the
** arena and clears the slots without freeing either.
*/

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stacks.h"

#define ST_CHUNK	(64 * 1024)		/* ids per arena chunk (256 KiB) */
#define ST_SLOTS_MIN	1024u
#define ST_SLOTS_MAX	(1u << 31)

struct st_chunk {
	struct st_chunk *next;	/* newer chunks */
	size_t used;		/* ids handed out */
	size_t size;		/* ids in mem[] */
	uint32_t mem[];
};

struct st_ent {
	const uint32_t *frames;	/* in the arena, root first; NULL if n is 0 */
	uint32_t n;		/* number of frames */
	uint32_t hash;		/* of frames[0..n), kept for rehashing */
	uint64_t count;		/* samples, saturating */
};

struct stacktab {
	struct st_ent *v;	/* entries in first-added order */
	uint32_t n;		/* entries used */
	uint32_t cap;		/* entries allocated */
	uint32_t *slots;	/* entry index + 1, 0 = empty */
	uint32_t mask;		/* number of slots - 1 */
	struct st_chunk *head;	/* arena, oldest first */
	struct st_chunk *cur;	/* chunk being filled; later ones are free */
	uint64_t total;		/* sum of counts, saturating */
};

/* -- Id arena ----------------------------------------------------------- */

/* Room for n ids, reusing chunks kept by a reset; NULL on ENOMEM. */
static uint32_t *st_alloc(struct stacktab *t, size_t n)
{
	struct st_chunk *c, **link = &t->head;

	for (c = t->cur; c; c = c->next) {
		if (c->size - c->used >= n) {
			t->cur = c;
			c->used += n;
			return c->mem + c->used - n;
		}
	}
	if (n > (SIZE_MAX - sizeof(*c)) / sizeof(uint32_t))
		return NULL;
	c = malloc(sizeof(*c) + (n > ST_CHUNK ? n : ST_CHUNK) * sizeof(uint32_t));
	if (!c)
		return NULL;
	c->next = NULL;
	c->used = n;
	c->size = n > ST_CHUNK ? n : ST_CHUNK;
	while (*link)
		link = &(*link)->next;
	*link = c;
	t->cur = c;
	return c->mem;
}

/* -- Hash table --------------------------------------------------------- */

/* FNV-1a over the bytes of the ids. */
static uint32_t st_hash(const uint32_t *frames, uint32_t n)
{
	uint32_t h = 2166136261u, i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 32; k += 8) {
			h ^= (frames[i] >> k) & 0xff;
			h *= 16777619u;
		}
	return h;
}

/* Slot holding the stack, or the empty slot where it belongs. */
static uint32_t st_probe(const struct stacktab *t, uint32_t h, const uint32_t *frames,
			 uint32_t n)
{
	uint32_t i = h & t->mask, s;

	for (; (s = t->slots[i]); i = (i + 1) & t->mask) {
		const struct st_ent *e = &t->v[s - 1];

		if (e->hash == h && e->n == n &&
		    (!n || !memcmp(e->frames, frames, n * sizeof(*frames))))
			break;
	}
	return i;
}

/* Double the slot array and reinsert every entry. */
static int st_rehash(struct stacktab *t)
{
	uint32_t nslots = (t->mask + 1) * 2, *slots, k;

	if (t->mask + 1 >= ST_SLOTS_MAX)
		return -ENOMEM;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (k = 0; k < t->n; k++) {
		uint32_t i = t->v[k].hash & (nslots - 1);

		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = k + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
	return 0;
}

/* Make room for one more entry. */
static int st_reserve(struct stacktab *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 256;
	struct st_ent *v;

	if (t->n < t->cap)
		return 0;
	if (t->cap >= ST_SLOTS_MAX)
		return -ENOMEM;
	v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

/* a + b, stuck at UINT64_MAX instead of wrapping. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* -- Public API --------------------------------------------------------- */

/* Create an empty table; NULL on ENOMEM. */
struct stacktab *stacktab__new(void)
{
	struct stacktab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->slots = calloc(ST_SLOTS_MIN, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	t->mask = ST_SLOTS_MIN - 1;
	return t;
}

/* Free the table and its arena. NULL is fine. */
void stacktab__delete(struct stacktab *t)
{
	if (!t)
		return;
	while (t->head) {
		struct st_chunk *c = t->head;

		t->head = c->next;
		free(c);
	}
	free(t->v);
	free(t->slots);
	free(t);
}

/* Add count samples of frames[0..n). */
int stacktab__add(struct stacktab *t, const uint32_t *frames, uint32_t n, uint64_t count)
{
	uint32_t h, i;
	struct st_ent *e;

	if (n && !frames)
		return -EINVAL;
	h = st_hash(frames, n);
	i = st_probe(t, h, frames, n);
	if (t->slots[i]) {
		e = &t->v[t->slots[i] - 1];
		e->count = sat_add(e->count, count);
		t->total = sat_add(t->total, count);
		return 0;
	}
	/* Keep the load under 3/4 so probe runs stay short. */
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)(t->mask + 1) * 3) {
		if (st_rehash(t))
			return -ENOMEM;
		i = st_probe(t, h, frames, n);
	}
	if (st_reserve(t))
		return -ENOMEM;
	e = &t->v[t->n];
	e->frames = NULL;
	if (n) {
		uint32_t *copy = st_alloc(t, n);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, frames, n * sizeof(*frames));
		e->frames = copy;
	}
	e->n = n;
	e->hash = h;
	e->count = count;
	t->total = sat_add(t->total, count);
	t->slots[i] = ++t->n;
	return 0;
}

/* Sum of all counts. */
uint64_t stacktab__total(const struct stacktab *t)
{
	return t->total;
}

/* Number of distinct stacks, the empty one included. */
size_t stacktab__unique(const struct stacktab *t)
{
	return t->n;
}

/* Call fn on each stack in first-added order until it returns non-zero. */
int stacktab__foreach(const struct stacktab *t, stacktab_fn fn, void *ctx)
{
	uint32_t k;
	int r;

	for (k = 0; k < t->n; k++) {
		r = fn(t->v[k].frames, t->v[k].n, t->v[k].count, ctx);
		if (r)
			return r;
	}
	return 0;
}

/* Forget every stack but keep the slots, entries and arena chunks. */
void stacktab__reset(struct stacktab *t)
{
	struct st_chunk *c;

	for (c = t->head; c; c = c->next)
		c->used = 0;
	t->cur = t->head;
	memset(t->slots, 0, (size_t)(t->mask + 1) * sizeof(*t->slots));
	t->n = 0;
	t->total = 0;
}
