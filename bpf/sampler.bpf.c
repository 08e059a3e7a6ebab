/*
** luatop sampler: a perf_event program run on every CPU at the sampling rate.
** Filters to the target processes; unwinds the user stack from the compact
** .eh_frame tables user space loaded (unwind/lookup.h, unwind/step.h), records
** the kernel stack, and sends one lt_sample per hit through a ring buffer.
*/
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "bpf/luatop.h"
#include "unwind/rule.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load. */
const volatile __u32 capture_every = 0;	/* capture mode: every Nth sample, 0 = off */
const volatile __u64 wakeup_bytes = 1 << 20;	/* wake the reader past this much data */

#define LT_MAX_ROWS_DEFAULT	(1u << 20)
#define LT_MAX_RULES		(1u << 16)

/* tgid -> slot in uw_procs, for each process being profiled. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u32);
} targets SEC(".maps");

/* Two slots per target: user space rewrites the idle one, then flips targets[]. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct lt_uw_proc);
} uw_procs SEC(".maps");

/* Rows of every loaded file, appended to by user space through mmap. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LT_MAX_ROWS_DEFAULT);	/* resized by the loader */
	__type(key, __u32);
	__type(value, struct lt_uw_row);
} uw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LT_MAX_RULES);
	__type(key, __u32);
	__type(value, struct lt_uw_rule);
} uw_rules SEC(".maps");

#define LT_INLINE __always_inline
#define LT_READ_USER(ctx, dst, size, addr) \
	bpf_probe_read_user((dst), (size), (const void *)(unsigned long)(addr))
#define LT_UW_ROW(ctx, idx) ({ __u32 _k = (idx); \
	(const struct lt_uw_row *)bpf_map_lookup_elem(&uw_rows, &_k); })
#define LT_UW_RULE(ctx, idx) ({ __u32 _k = (idx); \
	(const struct lt_uw_rule *)bpf_map_lookup_elem(&uw_rules, &_k); })
#define LT_UW_PROC(ctx, slot) ({ __u32 _k = (slot); \
	(const struct lt_uw_proc *)bpf_map_lookup_elem(&uw_procs, &_k); })
#define LT_UW_LOOP(n, cb, state) bpf_loop((n), (cb), (state), 0)
#include "unwind/step.h"
#include "unwind/lookup.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* resized by the loader before load */
} samples SEC(".maps");

/* Counters indexed by enum lt_drop, summed over CPUs by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_DROP__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* The sample being built, and the unwinder's registers: too big for the stack. */
struct walk {
	struct lt_sample s;
	struct lt_uw_regs r;
	__u32 slot;		/* the process's uw_procs slot */
	__u8 how;		/* how the frame in r was reached */
	__u8 pad[3];
	__u64 count;		/* samples on this CPU, for capture_every */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_capture);
} capture_scratch SEC(".maps");

static __always_inline void count_drop(__u32 reason)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &reason);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* Number of frames bpf_get_stack() wrote, from its byte count or error. */
static __always_inline __u16 frames_of(long bytes)
{
	return bytes > 0 ? (__u16)((__u64)bytes / 8) : 0;
}

/* One user frame per call: record it, then step to its caller. */
static long walk_step(__u32 i, void *unused)
{
	__u32 zero = 0;
	struct walk *w = bpf_map_lookup_elem(&scratch, &zero);
	struct lt_uw_rule rule;
	__s64 row;
	__u16 n;
	int rc;

	if (!w)
		return 1;
	n = w->s.n_user;
	if (n >= LT_MAX_USER) {
		w->s.user_stop = LT_STOP_MAX_DEPTH;
		return 1;
	}
	w->s.user[n & (LT_MAX_USER - 1)] = w->r.pc;
	w->s.user_how[n & (LT_MAX_USER - 1)] = w->how;
	w->s.n_user = n + 1;
	if (w->how == LT_HOW_FP)
		w->s.flags |= LT_SAMPLE_FP_USED;

	rc = lt_uw_find_rule(NULL, w->slot, lt_uw_lookup_pc(w->r.pc, w->how), &rule, &row);
	if (rc == LT_STOP__COUNT)
		rc = lt_uw_step(NULL, &rule, &w->r, &w->how);
	if (rc != LT_STOP__COUNT) {
		w->s.user_stop = rc;
		return 1;
	}
	return 0;
}

/*
** The user registers, from the task's pt_regs: the kernel saves them there on
** every entry from user mode, so they are right whether the sample interrupted
** user or kernel code. (Reading ctx->regs directly is fragile: clang may turn
** field loads into ctx pointer arithmetic, which the verifier rejects.)
*/
static __always_inline int user_regs(struct lt_uw_regs *r)
{
	struct pt_regs regs;

	if (bpf_probe_read_kernel(&regs, sizeof(regs),
				  (void *)bpf_task_pt_regs(bpf_get_current_task_btf())))
		return -1;
	if (!(regs.cs & 3))
		return -1;	/* kernel thread: no user stack */
	r->pc = regs.rip;
	r->sp = regs.rsp;
	r->bp = regs.rbp;
	return 0;
}

/* Capture mode: registers, a stack copy and the walk's result, for fixtures. */
static __always_inline void capture(struct walk *w, const struct lt_uw_regs *start)
{
	__u32 zero = 0;
	struct lt_capture *c = bpf_map_lookup_elem(&capture_scratch, &zero);
	const void *sp = (const void *)(unsigned long)start->sp;

	if (!c)
		return;
	c->type = LT_WIRE_CAPTURE;
	c->pc = start->pc;
	c->sp = start->sp;
	c->bp = start->bp;
	/* A read that crosses the end of the stack fails whole, and the main
	** thread's sp often sits within a page of it: copy up to the next page
	** boundary, then whole pages, and stop at the first that faults. */
	__u32 head = 4096 - (start->sp & 4095), off;

	c->stack_len = 0;
	if (head > 4096 || bpf_probe_read_user(c->stack, head, sp))
		goto out;
	c->stack_len = head;
	for (int i = 0; i < LT_CAPTURE_STACK / 4096 - 1; i++) {
		off = c->stack_len;
		if (off > LT_CAPTURE_STACK - 4096 ||
		    bpf_probe_read_user(c->stack + off, 4096, (const char *)sp + off))
			break;
		c->stack_len = off + 4096;
	}
out:
	if (bpf_probe_read_kernel(&c->sample, sizeof(c->sample), &w->s))
		return;
	if (bpf_ringbuf_output(&samples, c, sizeof(*c), 0))
		count_drop(LT_DROP_RINGBUF_FULL);
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0, *slot;
	struct lt_uw_regs start;
	struct walk *w;
	__u64 flags;
	long n;

	slot = bpf_map_lookup_elem(&targets, &tgid);
	if (!slot)
		return 0;
	w = bpf_map_lookup_elem(&scratch, &zero);
	if (!w) {
		count_drop(LT_DROP_NO_SCRATCH);
		return 0;
	}
	w->s.type = LT_WIRE_SAMPLE;
	w->s.tgid = tgid;
	w->s.tid = (__u32)id;
	w->s.cpu = bpf_get_smp_processor_id();
	w->s.time_ns = bpf_ktime_get_ns();
	w->s.n_user = 0;
	w->s.flags = 0;
	w->s.user_stop = LT_STOP_MAX_DEPTH;
	w->slot = *slot;
	w->how = LT_HOW_LEAF;

	if (user_regs(&w->r)) {
		w->s.flags |= LT_SAMPLE_USER_ERR;
		w->s.user_stop = LT_STOP_KERNEL_ONLY;
	} else {
		start = w->r;
		bpf_loop(LT_MAX_USER, walk_step, NULL, 0);
	}

	n = bpf_get_stack(ctx, w->s.kernel, sizeof(w->s.kernel), 0);
	if (n < 0)
		w->s.flags |= LT_SAMPLE_KERNEL_ERR;
	w->s.n_kernel = frames_of(n);

	/* A wakeup per sample costs more than the whole walk (an irq_work,
	** ~8 us in a VM): user space polls on a timer and is woken only when
	** the ring fills up. */
	flags = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) > wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&samples, &w->s, sizeof(w->s), flags))
		count_drop(LT_DROP_RINGBUF_FULL);
	if (capture_every && !(w->s.flags & LT_SAMPLE_USER_ERR) &&
	    ++w->count % capture_every == 0)
		capture(w, &start);
	return 0;
}
