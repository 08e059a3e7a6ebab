/*
** Loader of the BPF sampler: open, size, load, attach one perf event per CPU
** (and, for off-CPU time, the sched_switch and sys_exit tracepoints), and
** deliver samples from the ring buffer.
*/
#ifndef LUATOP_BPF_LOADER_H
#define LUATOP_BPF_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "wire/luatop.h"

struct sampler;

/* Called for each sample; a non-zero return stops the current poll. */
typedef int (*sampler_fn)(const struct lt_sample *s, void *ctx);
/* Called for each capture record (capture mode). */
typedef int (*capture_fn)(const struct lt_capture *c, void *ctx);

struct tables;

struct tmodel;

/* The core kernel's ORC tables, for the sampler's own walk of kernel stacks
** (unwind/korc.h): max_frames and check at the load (max_frames 0: the walk is
** left out), the tables once it runs (sampler__set_korc); until then, or with n
** 0, the kernel's unwinder takes every kernel stack. */
struct sampler_korc {
	uint64_t text_lo, text_hi;	/* _stext, _etext */
	uint64_t ip_table;		/* __start_orc_unwind_ip */
	uint64_t table;			/* __start_orc_unwind */
	uint64_t tramp[2];		/* return addresses ftrace and kretprobes plant, 0: none */
	uint32_t n;			/* entries */
	uint32_t max_frames;		/* kernel.perf_event_max_stack */
	int check;			/* walk both ways, count the differences (debugging) */
};

struct sampler_opts {
	unsigned freq;		/* samples per second per CPU */
	struct tmodel *model;	/* the traced processes; outlives the sampler */
	const int *pids;	/* target processes */
	unsigned npids;
	size_t ringbuf_bytes;	/* 0: default; rounded up to a power of two pages */
	unsigned max_rows;	/* unwind rows for all files; 0: default */
	unsigned capture_every;	/* capture mode: every Nth sample; 0: off */
	int offcpu;		/* also time blocked (sched_switch, sys_exit): -e offcpu, wall */
	uint64_t min_block_ns;	/* off-CPU: shorter blocks are counted, not walked */
	struct sampler_korc korc;	/* the kernel walk's settings (max_frames, check) */
	int exec_pid;		/* a command luatop started and has not let exec yet:
				   note when its exec ends (sampler__before_exec); 0: none */
	sampler_fn on_sample;
	capture_fn on_capture;
	void *ctx;
};

/* Load and attach. On failure returns -errno and writes one line to err. */
int sampler__open(const struct sampler_opts *o, struct sampler **out, char *err, size_t errlen);
/* Was this sample of tgid taken before the exec of o->exec_pid ended (luatop's
** fork, the execve system call)? 0 too when the exec is not watched. */
int sampler__before_exec(const struct sampler *s, uint32_t tgid, uint64_t time_ns);
/* Stop sampling; samples already in the ring buffer can still be polled. */
void sampler__detach(struct sampler *s);
/* Where the kernel's ORC tables are (cli/kstack.h), once the sampler runs: from
** then on its own walk takes the kernel stacks. Nothing when k->n is 0 or the
** walk was left out at the load. */
void sampler__set_korc(struct sampler *s, const struct sampler_korc *k);
/* Stop sampling and free everything; NULL is fine. */
void sampler__delete(struct sampler *s);
/* A file descriptor that polls readable when the ring buffer fills up; samples
** arrive without a wakeup otherwise, so take them on a timer too. */
int sampler__fd(const struct sampler *s);
/* Wait at most timeout_ms for the ring buffer to wake us: > 0 woken, 0 timed out
** or interrupted, -errno. */
int sampler__wait(struct sampler *s, int timeout_ms);
/* Deliver the samples waiting now, without waiting. Returns the count or -errno. */
int sampler__consume(struct sampler *s);
/* Samples lost (dropped in the kernel, or records user space could not read),
** summed over CPUs, by reason into out; returns their total. */
uint64_t sampler__drops(const struct sampler *s, uint64_t out[LT_DROP__COUNT]);
/* How the CPU samples' kernel stacks were taken, summed over CPUs, by enum lt_kstat. */
void sampler__kstats(const struct sampler *s, uint64_t out[LT_KSTAT__COUNT]);
/* Off-CPU time summed over CPUs, by enum lt_offstat (all 0 without offcpu). */
void sampler__offstats(const struct sampler *s, uint64_t out[LT_OFF__COUNT]);
/* The unwind tables of the targets (to resync on dlopen/exec). */
struct tables *sampler__tables(const struct sampler *s);
/* The ring buffer's size in bytes (chosen from the CPUs and the rate by default). */
size_t sampler__ring_bytes(const struct sampler *s);
/* The CPU sampler program's runs and their total time, other processes' runs
** included, with the time of the flushes that send its batches, from the
** kernel's BPF stats: 0 and 0 unless kernel.bpf_stats_enabled was set while it
** ran. 0, or -errno. */
int sampler__cost(const struct sampler *s, uint64_t *runs, uint64_t *ns);
/* Total of sampler__drops(). */
uint64_t sampler__dropped(const struct sampler *s);
/* The text of one drop reason. */
const char *sampler__drop_text(unsigned reason);

#endif
