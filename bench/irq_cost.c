/*
** irq_cost SECONDS CPU: times the cpu-clock perf events' sampling interrupts on
** CPU for SECONDS (bench/irq_cost.bpf.c) and prints a line per kind of event
** seen: "KIND samples mean median p90" in ns. As root; for bench/irq_cost.sh.
*/
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench/irq_cost.h"
#include "bench/irq_cost.skel.h"
#include "proc/readfile.h"
#include "symbolize/kallsyms.h"

static const char *const kind_names[IRQ_KINDS] = { "floor", "chain", "dwarf", "bpf" };

/* The ns under which a share q of the callbacks fall (bucket midpoints). */
static double quantile(const struct irq_kind_stats *s, double q)
{
	uint64_t want = (uint64_t)(q * (double)s->n), seen = 0;

	for (unsigned b = 0; b < IRQ_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen > want)
			return (b + 0.5) * IRQ_BUCKET_NS;
	}
	return IRQ_BUCKETS * IRQ_BUCKET_NS;
}

static uint64_t swevent_address(void)
{
	static const char *const names[] = { "perf_swevent_hrtimer" };
	uint64_t addr = 0;
	char *buf = NULL;
	size_t len = 0;

	if (readfile__all("/proc/kallsyms", 512u << 20, &buf, &len))
		return 0;
	kallsyms__find(buf, len, names, &addr, 1);
	free(buf);
	return addr;
}

static int report(struct irq_cost_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.stats);
	struct irq_kind_stats s;

	for (__u32 k = 0; k < IRQ_KINDS; k++) {
		if (bpf_map_lookup_elem(fd, &k, &s))
			return -errno;
		if (s.n)
			printf("%s %llu %.0f %.0f %.0f\n", kind_names[k], (unsigned long long)s.n,
			       (double)s.ns / (double)s.n, quantile(&s, 0.5), quantile(&s, 0.9));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct irq_cost_bpf *skel;
	unsigned secs, cpu;
	int rc;

	if (argc != 3 || !(secs = (unsigned)atoi(argv[1]))) {
		fprintf(stderr, "usage: irq_cost SECONDS CPU\n");
		return 2;
	}
	cpu = (unsigned)atoi(argv[2]);
	skel = irq_cost_bpf__open();
	if (!skel) {
		fprintf(stderr, "irq_cost: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->swevent_fn = swevent_address();
	skel->rodata->only_cpu = cpu;
	if (!skel->rodata->swevent_fn) {
		fprintf(stderr, "irq_cost: no perf_swevent_hrtimer in /proc/kallsyms\n");
		rc = 1;
	} else if ((rc = irq_cost_bpf__load(skel)) || (rc = irq_cost_bpf__attach(skel))) {
		fprintf(stderr, "irq_cost: cannot load or attach: %s\n", strerror(-rc));
		rc = 1;
	} else {
		sleep(secs);
		rc = report(skel) ? 1 : 0;
	}
	irq_cost_bpf__destroy(skel);
	return rc;
}
