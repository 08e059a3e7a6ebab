/*
** Threads by id (base/idmap.h), bounded at THREADS_MAX.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/threads.h"

void threads__init(struct threads *t)
{
	memset(t, 0, sizeof(*t));
	idmap__init(&t->map, sizeof(struct thread_info));
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
	struct thread_info *all = malloc(t->map.n * sizeof(*all)), *e;
	size_t n = 0;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < t->map.cap; i++)
		if ((e = idmap__slot(&t->map, i)))
			all[n++] = *e;
	qsort(all, n, sizeof(*all), by_seen_latest);
	idmap__clear(&t->map);
	for (size_t i = 0; i < n && i < THREADS_MAX / 2; i++)	/* no growth: fewer than before */
		*(struct thread_info *)idmap__add(&t->map, all[i].tid, NULL) = all[i];
	free(all);
	return 0;
}

struct thread_info *threads__get(struct threads *t, uint32_t tid, uint32_t pid)
{
	struct thread_info *e = idmap__get(&t->map, tid);
	int added;

	if (!e) {
		if ((t->map.n >= THREADS_MAX && forget_oldest(t)) ||
		    !(e = idmap__add(&t->map, tid, &added)))
			return NULL;
		e->pid = pid;
		e->kept = !t->filtered || wanted(t, tid);
	}
	e->seen = ++t->clock;
	return e;
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
	for (size_t i = 0; i < t->map.cap; i++) {
		struct thread_info *e = idmap__slot(&t->map, i);

		if (e)
			e->kept = !t->filtered || wanted(t, e->tid);
	}
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

	for (size_t i = 0; i < t->map.cap && n < max; i++) {
		const struct thread_info *e = idmap__slot(&t->map, i);

		if (e)
			out[n++] = *e;
	}
	if (n > 1)	/* out may be NULL with max 0: a count only */
		qsort(out, n, sizeof(*out), by_tid);
	return t->map.n;
}

void threads__free(struct threads *t)
{
	idmap__free(&t->map);
	free(t->wanted);
	threads__init(t);
}
