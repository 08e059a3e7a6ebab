/*
** collect/threads.c: the table of threads seen, bounded under thread churn;
** base/idmap.c under it.
*/
#include <criterion/criterion.h>

#include "base/idmap.h"
#include "collect/threads.h"

Test(threads, counts_and_finds_each_thread)
{
	struct threads t;
	struct thread_info *a, *b;

	threads__init(&t);
	a = threads__get(&t, 7, 1);
	cr_assert_not_null(a);
	a->weight[0] += 3;
	b = threads__get(&t, 7, 1);
	cr_assert_eq(b->weight[0], 3, "the same entry");
	cr_assert_null(threads__get(&t, 0, 1), "tid 0 is no thread");
	cr_assert_eq(threads__list(&t, NULL, 0), 1);
	threads__free(&t);
}

/* Churn: short-lived threads one after another. The table stays bounded,
** and a thread still sampled is never the one forgotten. */
Test(threads, churn_forgets_the_threads_unseen_longest)
{
	struct threads t;
	struct thread_info *busy;

	threads__init(&t);
	for (uint32_t tid = 100; tid < 100 + 3 * THREADS_MAX; tid++) {
		cr_assert_not_null(threads__get(&t, tid, 1));
		busy = threads__get(&t, 42, 1);	/* sampled all along */
		cr_assert_not_null(busy);
		busy->weight[0]++;
		cr_assert_leq(threads__list(&t, NULL, 0), THREADS_MAX);
	}
	cr_assert_eq(threads__get(&t, 42, 1)->weight[0], 3 * THREADS_MAX, "kept its counts");
	cr_assert_leq(t.map.cap, 2 * THREADS_MAX, "no growth past the bound");
	threads__free(&t);
}

/* base/idmap.c, the table under both this and the collector's process roots. */
struct pair { uint32_t id, v; };

Test(idmap, add_get_grow_clear)
{
	struct idmap m;
	int added;

	idmap__init(&m, sizeof(struct pair));
	cr_assert_null(idmap__get(&m, 5));
	cr_assert_null(idmap__add(&m, 0, &added), "id 0 marks empty slots");
	for (uint32_t id = 1; id <= 1000; id++) {
		struct pair *p = idmap__add(&m, id, &added);

		cr_assert(p && added && p->id == id && p->v == 0);
		p->v = id * 3;
	}
	cr_assert_eq(m.n, 1000);
	cr_assert_eq(((struct pair *)idmap__get(&m, 777))->v, 2331, "kept through growth");
	cr_assert_eq(((struct pair *)idmap__add(&m, 777, &added))->v, 2331);
	cr_assert_eq(added, 0);
	idmap__clear(&m);
	cr_assert_null(idmap__get(&m, 777));
	cr_assert_eq(m.n, 0);
	idmap__free(&m);
}
