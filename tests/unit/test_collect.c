/*
** Unit tests for collect/collect: what the collector builds of a sample
** (collector__set_outputs). The sample is of this process: its user frames are
** addresses of this test's own code, which the symbolizer reads from /proc/self.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect/collect.h"
#include "profile/calltree.h"
#include "profile/stacks.h"
#include "proc/model.h"
#include "wire/luatop.h"
#include "tests/unit/mono.h"

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

/* -- Events (-e): what a sample weighs in each profile ------------------------ */

static uint64_t total(struct collector *c, enum prof_event e)
{
	return stacktab__total(collector__stacks(c, e, COLLECT_MERGED));
}

Test(collect, events_weigh_cpu_and_offcpu_samples)
{
	struct tmodel *m = tmodel__new();
	struct collector *c = m ? collector__new(m) : NULL;
	struct lt_sample off;

	cr_assert_not_null(c);
	cr_assert_eq(collector__set_events(c, (1u << EV__COUNT) - 1, 1000), 0);
	cr_assert_eq(collector__add(c, own_sample()), 0);
	off = *own_sample();
	off.event = LT_EVENT_OFFCPU;
	off.weight_ns = 2500400;	/* 2.5004 ms: 2500 us */
	cr_assert_eq(collector__add(c, &off), 0);
	cr_assert_eq(total(c, EV_CPU), 1, "a CPU sample is one sample, an off-CPU one none");
	cr_assert_eq(total(c, EV_OFFCPU), 2500, "an off-CPU sample weighs its time in us");
	cr_assert_eq(total(c, EV_WALL), 1000 + 2500, "wall: the CPU sample's 1 ms period, then the block");
	cr_assert_eq((uint64_t)calltree__weight(collector__tree(c, EV_WALL, COLLECT_RAW), CT_ROOT,
						CT_CUMULATIVE, 0), 3500);
	cr_assert_eq(collector__stats(c)->offcpu_samples, 1);
	cr_assert_eq(collector__stats(c)->offcpu_us, 2500);
	collector__delete(c);
	tmodel__delete(m);
}

Test(collect, cpu_profile_takes_no_offcpu_sample)
{
	struct tmodel *m = tmodel__new();
	struct collector *c = m ? collector__new(m) : NULL;
	struct lt_sample off;

	cr_assert_not_null(c);
	off = *own_sample();
	off.event = LT_EVENT_OFFCPU;
	off.weight_ns = 5000000;
	cr_assert_eq(collector__add(c, &off), 0);
	cr_assert_eq(total(c, EV_CPU), 0);
	cr_assert_null(collector__stacks(c, EV_OFFCPU, COLLECT_MERGED), "offcpu is not built");
	cr_assert_eq(collector__stats(c)->samples, 0);
	collector__delete(c);
	tmodel__delete(m);
}

struct first_frames {
	const struct frametab *ft;
	uint64_t idle, other;
};

static int count_idle(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	struct first_frames *f = ctx;
	const struct frame *fr = n ? frametab__get(f->ft, frames[0]) : NULL;

	if (fr && fr->kind == FRAME_SPECIAL && !strcmp(fr->name, "[idle]"))
		f->idle += count;
	else
		f->other += count;
	return 0;
}

/* A sample whose leaf is libc's epoll_wait: no Lua frame, waiting for events. */
static const struct lt_sample *epoll_sample(enum lt_event ev)
{
	const struct lt_sample *s = own_sample();

	sample.user[0] = (__u64)(uintptr_t)epoll_wait + 4;
	sample.event = (__u8)ev;
	sample.weight_ns = ev == LT_EVENT_OFFCPU ? 7000000 : 0;
	return s;
}

Test(collect, offcpu_waits_for_events_are_rooted_at_idle)
{
	struct tmodel *m = tmodel__new();
	struct collector *c = m ? collector__new(m) : NULL;
	struct first_frames f = { 0 };

	cr_assert_not_null(c);
	cr_assert_eq(collector__set_events(c, (1u << EV__COUNT) - 1, 1000), 0);
	cr_assert_eq(collector__add(c, epoll_sample(LT_EVENT_OFFCPU)), 0);
	cr_assert_eq(collector__add(c, epoll_sample(LT_EVENT_CPU)), 0);
	cr_assert_eq(collector__add(c, own_sample()), 0);
	f.ft = collector__frames(c);
	stacktab__foreach(collector__stacks(c, EV_WALL, COLLECT_MERGED), count_idle, &f);
	cr_assert_eq(f.idle, 7000, "the off-CPU wait in epoll_wait is [idle]");
	cr_assert_eq(f.other, 2000, "a CPU sample in epoll_wait is not a wait");
	cr_assert_neq(calltree__child(collector__tree(c, EV_OFFCPU, COLLECT_MERGED), CT_ROOT,
				      frametab__special(collector__frames(c), SPECIAL_IDLE)),
		      CT_NONE, "the live view's tree has [idle] under the root");
	collector__delete(c);
	tmodel__delete(m);
}

/* -- Addresses in no mapping yet ---------------------------------------------- */

struct leaf_named {
	const struct frametab *ft;
	const char *want;	/* the leaf's name, the first samples' excepted */
	uint64_t named;
};

static int count_leaf(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	struct leaf_named *l = ctx;
	const struct frame *fr = n ? frametab__get(l->ft, frames[n - 1]) : NULL;

	if (fr && !strcmp(fr->name, l->want))
		l->named += count;
	return 0;
}

/*
** A file mapped after the collector read the maps (a library the dynamic loader
** maps as the program starts): its address is [unknown] until the maps are
** re-read, at most every TPROC_REREAD_NS, and named from then on. Caching the
** first answer kept libc's __libc_start_call_main [unknown] in whole runs.
*/
Test(collect, an_address_mapped_after_the_maps_were_read_is_named_later)
{
	struct tmodel *m = tmodel__new();
	struct collector *c = m ? collector__new(m) : NULL;
	char path[] = "/tmp/luatop-collect-XXXXXX", page[4096], want[64];
	struct leaf_named l = { .want = want };
	struct lt_sample late;
	double t0;
	void *p;
	int fd = mkstemp(path);

	cr_assert(c && fd >= 0);
	memset(page, 0x90, sizeof(page));
	cr_assert_eq(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
	t0 = mono_ms();
	cr_assert_eq(collector__add(c, own_sample()), 0);	/* the maps are read */
	p = mmap(NULL, sizeof(page), PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(p, MAP_FAILED);
	close(fd);
	unlink(path);
	snprintf(want, sizeof(want), "%s+0x10", strrchr(path, '/') + 1);
	late = *own_sample();
	late.user[0] = (__u64)(uintptr_t)p + 0x10;
	cr_assert_eq(collector__add(c, &late), 0);
	l.ft = collector__frames(c);
	stacktab__foreach(collector__stacks(c, EV_CPU, COLLECT_RAW), count_leaf, &l);
	if (mono_ms() - t0 < 90)
		cr_assert_eq(l.named, 0, "the maps are not re-read within 100 ms");
	usleep(120 * 1000);
	cr_assert_eq(collector__add(c, &late), 0);
	l.named = 0;
	stacktab__foreach(collector__stacks(c, EV_CPU, COLLECT_RAW), count_leaf, &l);
	cr_assert_eq(l.named, 1, "named once the maps are read again");
	munmap(p, sizeof(page));
	collector__delete(c);
	tmodel__delete(m);
}

/* -- Trace samples without a trace frame -------------------------------------- */

/* A sample whose vmstate names trace 3 and whose one Lua frame is at the leaf;
** its native leaf is VM code (how) or not. */
static const struct lt_sample *trace_sample(unsigned how)
{
	own_sample();
	sample.flags = LT_SAMPLE_LUA;
	sample.G = 0x1000;
	sample.vmstate = 3;
	sample.n_lua = 1;
	sample.lua[0] = (struct lt_lua_frame){ .fn = 0x2000, .addr = 0x3000, .kind = LT_LUA_LUA };
	sample.user_how[0] = (__u8)how;
	return &sample;
}

/*
** A trace that ends without a link jumps to vm_exit_interp, which leaves vmstate
** at the trace's number until it dispatches the next bytecode: its samples are
** counted apart from the samples in trace code, which a snapshot places (a C
** host's function trace returning through lua_pcall: about half of them).
*/
Test(collect, trace_samples_in_vm_exit_interp_are_counted_apart)
{
	struct tmodel *m = tmodel__new();
	struct collector *c = m ? collector__new(m) : NULL;
	const struct collector_stats *st;

	cr_assert_not_null(c);
	cr_assert_eq(collector__add(c, trace_sample(LT_HOW_LEAF | LT_HOW_F_VM)), 0);
	cr_assert_eq(collector__add(c, trace_sample(LT_HOW_LEAF)), 0);
	st = collector__stats(c);
	cr_assert_eq(st->trace_left, 1, "leaf in the VM: left for the interpreter");
	cr_assert_eq(st->trace_samples, 1, "not a sample in a trace's code");
	cr_assert_eq(st->trace_mapped, 0);
	cr_assert_eq(st->trace_why[LUATRACE_WHY_NO_FRAME], 1, "leaf elsewhere");
	collector__delete(c);
	tmodel__delete(m);
}
