/*
** Unit tests for collect/collect: what the collector builds of a sample
** (collector__set_outputs). The sample is of this process: its user frames are
** addresses of this test's own code, which the symbolizer reads from /proc/self.
*/
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "profile/calltree.h"
#include "profile/stacks.h"
#include "proc/model.h"
#include "wire/luatop.h"

static struct lt_sample sample;

/* A native sample of this process: three frames of this file's code. */
static const struct lt_sample *own_sample(void)
{
	memset(&sample, 0, sizeof(sample));
	sample.type = LT_WIRE_SAMPLE;
	sample.tgid = sample.tid = (__u32)getpid();
	sample.time_ns = 1000;
	sample.n_user = 3;
	sample.user[0] = (__u64)(uintptr_t)own_sample;
	sample.user[1] = (__u64)(uintptr_t)own_sample + 1;
	sample.user[2] = (__u64)(uintptr_t)own_sample + 2;
	sample.user_stop = LT_STOP_COMPLETE;
	return &sample;
}

/* Samples in each view's stacks and tree after one sample under these outputs. */
static void built(int set, unsigned views, int stacks, int trees, uint64_t got[2][2])
{
	struct tmodel *m = tmodel__new();
	struct collector *c = m ? collector__new(m) : NULL;

	cr_assert_not_null(c);
	if (set)
		collector__set_outputs(c, views, stacks, trees);
	cr_assert_eq(collector__add(c, own_sample()), 0);
	for (int v = 0; v < COLLECT_VIEW__COUNT; v++) {
		got[v][0] = stacktab__total(collector__stacks(c, EV_CPU, (enum collect_view)v));
		got[v][1] = (uint64_t)calltree__weight(collector__tree(c, EV_CPU, (enum collect_view)v),
						       CT_ROOT, CT_CUMULATIVE, 0);
	}
	cr_assert_eq(collector__stats(c)->samples, 1);
	collector__delete(c);
	tmodel__delete(m);
}

Test(collect, builds_everything_by_default)
{
	uint64_t got[2][2];

	built(0, 0, 0, 0, got);
	cr_assert(got[COLLECT_MERGED][0] == 1 && got[COLLECT_MERGED][1] == 1);
	cr_assert(got[COLLECT_RAW][0] == 1 && got[COLLECT_RAW][1] == 1);
}

Test(collect, batch_builds_one_views_stacks_only)
{
	uint64_t got[2][2];

	built(1, 1u << COLLECT_RAW, 1, 0, got);
	cr_assert(got[COLLECT_RAW][0] == 1 && got[COLLECT_RAW][1] == 0);
	cr_assert(got[COLLECT_MERGED][0] == 0 && got[COLLECT_MERGED][1] == 0);
}

Test(collect, live_builds_both_trees_only)
{
	uint64_t got[2][2];

	built(1, 1u << COLLECT_MERGED | 1u << COLLECT_RAW, 0, 1, got);
	for (int v = 0; v < COLLECT_VIEW__COUNT; v++)
		cr_assert(got[v][0] == 0 && got[v][1] == 1, "view %d", v);
}
