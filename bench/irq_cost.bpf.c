/*
** What each profiler's sampling interrupt costs on the sampled CPU, sample by
** sample (bench/irq_cost.sh): the time from the timer tracepoints' entry to
** their exit around each perf_swevent_hrtimer call, the callback of a cpu-clock
** perf event (the only sampling clock of a VM without a PMU). Inside it run the
** perf event's overflow, and so luatop's BPF program or perf record's sample
** (its call chain, its copy of the user stack). The events are told apart by
** what they ask for: a BPF program, a user stack copy (--call-graph dwarf), a
** call chain, nothing (the floor). kernel/events is not traceable (no fentry)
** and this kernel has no kprobes; the hrtimer tracepoints take their place.
*/
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bench/irq_cost.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u64 swevent_fn = 0;	/* perf_swevent_hrtimer, from /proc/kallsyms */
const volatile __u32 only_cpu = 0;	/* the sampled CPU */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IRQ_KINDS);
	__type(key, __u32);
	__type(value, struct irq_kind_stats);
} stats SEC(".maps");

/* The callback in progress on only_cpu (callbacks do not nest on one CPU). */
struct open_call open_call;

/* The kind of the perf event whose hrtimer this is. */
static __always_inline __u32 kind_of(struct hrtimer *t)
{
	__u64 off = bpf_core_field_offset(struct perf_event, hw.hrtimer);
	struct perf_event *ev = (void *)((char *)t - off);
	__u64 type = BPF_CORE_READ(ev, attr.sample_type);

	if (BPF_CORE_READ(ev, prog))
		return IRQ_BPF;
	if (type & PERF_SAMPLE_STACK_USER)
		return IRQ_DWARF;
	if (type & PERF_SAMPLE_CALLCHAIN)
		return IRQ_CHAIN;
	return IRQ_FLOOR;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(timer_entry, struct hrtimer *t, ktime_t *now)
{
	if (bpf_get_smp_processor_id() != only_cpu || (__u64)t->function != swevent_fn)
		return 0;
	open_call.kind = kind_of(t);
	open_call.timer = (__u64)t;
	open_call.t0 = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(timer_exit, struct hrtimer *t)
{
	__u64 now = bpf_ktime_get_ns(), took;
	struct irq_kind_stats *s;
	__u32 kind, bucket;

	if (bpf_get_smp_processor_id() != only_cpu || open_call.timer != (__u64)t)
		return 0;
	open_call.timer = 0;
	kind = open_call.kind;
	took = now - open_call.t0;
	s = bpf_map_lookup_elem(&stats, &kind);
	if (!s)
		return 0;
	bucket = (__u32)(took / IRQ_BUCKET_NS);
	if (bucket >= IRQ_BUCKETS)
		bucket = IRQ_BUCKETS - 1;
	s->n++;
	s->ns += took;
	s->hist[bucket]++;
	return 0;
}
