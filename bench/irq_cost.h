/* bench/irq_cost: what the BPF side and the user side share. */
#ifndef LUATOP_BENCH_IRQ_COST_H
#define LUATOP_BENCH_IRQ_COST_H

/* Which profiler's event a sampling interrupt was for. */
enum irq_kind {
	IRQ_FLOOR,	/* perf record, no call chain: the sampling floor */
	IRQ_CHAIN,	/* perf record -g (frame pointers) */
	IRQ_DWARF,	/* perf record --call-graph dwarf: a copy of the user stack */
	IRQ_BPF,	/* a BPF program: luatop */
	IRQ_KINDS
};

#define IRQ_BUCKET_NS	50	/* the histogram's step */
#define IRQ_BUCKETS	1024	/* up to 51 us; the last one holds the rest */

struct irq_kind_stats {
	__u64 n;			/* callbacks timed */
	__u64 ns;			/* their total time */
	__u64 hist[IRQ_BUCKETS];	/* their times, by IRQ_BUCKET_NS */
};

/* The callback being timed. */
struct open_call {
	__u64 timer;	/* its hrtimer; 0: none */
	__u64 t0;	/* when it started */
	__u32 kind;	/* enum irq_kind */
};

#endif
