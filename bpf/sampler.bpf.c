/*
** luatop sampler: a perf_event program run on every CPU at the sampling rate.
** Filters to the target processes, records user and kernel stacks, and sends
** one lt_sample per hit through a ring buffer. Drops are counted per CPU.
*/
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "bpf/luatop.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* tgid -> 1 for each process being profiled; filled by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

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

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct lt_sample *s;
	long n;

	if (!bpf_map_lookup_elem(&targets, &tgid))
		return 0;

	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s) {
		count_drop(LT_DROP_RINGBUF_FULL);
		return 0;
	}
	s->version = LT_WIRE_VERSION;
	s->tgid = tgid;
	s->tid = (__u32)id;
	s->cpu = bpf_get_smp_processor_id();
	s->time_ns = bpf_ktime_get_ns();
	s->flags = LT_SAMPLE_USER_FP;

	/* Frame-pointer walk until the .eh_frame unwinder lands. */
	n = bpf_get_stack(ctx, s->user, sizeof(s->user), BPF_F_USER_STACK);
	if (n < 0)
		s->flags |= LT_SAMPLE_USER_ERR;
	s->n_user = frames_of(n);

	n = bpf_get_stack(ctx, s->kernel, sizeof(s->kernel), 0);
	if (n < 0)
		s->flags |= LT_SAMPLE_KERNEL_ERR;
	s->n_kernel = frames_of(n);

	bpf_ringbuf_submit(s, 0);
	return 0;
}
