/*
** Threads by id: open addressing, linear probing, doubled at half full.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/threads.h"

static size_t slot_of(const struct threads *t, uint32_t tid)
{
	size_t i = ((size_t)tid * 0x9e3779b1u) & (t->cap - 1);

	while (t->slot[i].tid && t->slot[i].tid != tid)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int grow(struct threads *t)
{
	size_t old = t->cap, cap = old ? 2 * old : 64;
	struct thread_info *prev = t->slot;

	t->slot = calloc(cap, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = prev;
		return -ENOMEM;
	}
	t->cap = cap;
	for (size_t i = 0; i < old; i++)
		if (prev[i].tid)
			t->slot[slot_of(t, prev[i].tid)] = prev[i];
	free(prev);
	return 0;
}

/* Is tid one of the wanted ones? */
static int wanted(const struct threads *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nwanted; i++)
		if (t->wanted[i] == tid)
			return 1;
	return 0;
}

static int by_seen_latest(const void *pa, const void *pb)
{
	const struct thread_info *a = pa, *b = pb;

	return (a->seen < b->seen) - (a->seen > b->seen);
}

/* Keep the THREADS_MAX / 2 threads seen last, forget the others. */
static int forget_oldest(struct threads *t)
{
	struct thread_info *all = malloc(t->n * sizeof(*all));
	size_t n = 0;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].tid)
			all[n++] = t->slot[i];
	qsort(all, n, sizeof(*all), by_seen_latest);
	memset(t->slot, 0, t->cap * sizeof(*t->slot));
	t->n = n < THREADS_MAX / 2 ? n : THREADS_MAX / 2;
	for (size_t i = 0; i < t->n; i++)
		t->slot[slot_of(t, all[i].tid)] = all[i];
	free(all);
	return 0;
}

struct thread_info *threads__get(struct threads *t, uint32_t tid, uint32_t pid)
{
	size_t i;

	if (!tid || (!t->cap && grow(t)))
		return NULL;
	i = slot_of(t, tid);
	if (!t->slot[i].tid) {
		if ((t->n >= THREADS_MAX && forget_oldest(t)) ||
		    ((t->n + 1) * 2 > t->cap && grow(t)))
			return NULL;
		i = slot_of(t, tid);
		t->slot[i] = (struct thread_info){ .tid = tid, .pid = pid,
						   .kept = !t->filtered || wanted(t, tid) };
		t->n++;
	}
	t->slot[i].seen = ++t->clock;
	return &t->slot[i];
}

int threads__keep(struct threads *t, const uint32_t *tids, size_t n)
{
	uint32_t *w = n ? malloc(n * sizeof(*w)) : NULL;

	if (n && !w)
		return -ENOMEM;
	if (n)
		memcpy(w, tids, n * sizeof(*w));
	free(t->wanted);
	t->wanted = w;
	t->nwanted = n;
	t->filtered = n > 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].tid)
			t->slot[i].kept = !t->filtered || wanted(t, t->slot[i].tid);
	return 0;
}

static int by_tid(const void *pa, const void *pb)
{
	const struct thread_info *a = pa, *b = pb;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

size_t threads__list(const struct threads *t, struct thread_info *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->cap && n < max; i++)
		if (t->slot[i].tid)
			out[n++] = t->slot[i];
	if (n > 1)	/* out may be NULL with max 0: a count only */
		qsort(out, n, sizeof(*out), by_tid);
	return t->n;
}

void threads__free(struct threads *t)
{
	free(t->slot);
	free(t->wanted);
	memset(t, 0, sizeof(*t));
}
