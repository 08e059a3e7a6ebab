/*
** collect/threads.c: the table of threads seen, bounded under thread churn.
*/
#include <criterion/criterion.h>

#include "collect/threads.h"

Test(threads, counts_and_finds_each_thread)
{
	struct threads t = { 0 };
	struct thread_info *a = threads__get(&t, 7, 1), *b;

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
	struct threads t = { 0 };
	struct thread_info *busy;

	for (uint32_t tid = 100; tid < 100 + 3 * THREADS_MAX; tid++) {
		cr_assert_not_null(threads__get(&t, tid, 1));
		busy = threads__get(&t, 42, 1);	/* sampled all along */
		cr_assert_not_null(busy);
		busy->weight[0]++;
		cr_assert_leq(t.n, THREADS_MAX);
	}
	cr_assert_eq(threads__get(&t, 42, 1)->weight[0], 3 * THREADS_MAX, "kept its counts");
	cr_assert_leq(t.cap, 2 * THREADS_MAX, "no growth past the bound");
	threads__free(&t);
}
