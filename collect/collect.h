/*
** The pipeline from the ring buffer to the profile: each sample's frames named
** (native, kernel, Lua), its stacks merged (merge/), both the merged and the raw
** stack added to the profile's stack tables (export) and call trees (live view).
** Symbolization happens as samples arrive, so the profile stays complete after
** the target exits.
*/
#ifndef LUATOP_COLLECT_COLLECT_H
#define LUATOP_COLLECT_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "collect/threads.h"
#include "lua/trace.h"
#include "merge/merge.h"
#include "profile/event.h"
#include "profile/vm.h"
#include "wire/luatop.h"

struct frametab;
struct stacktab;
struct calltree;
struct collector;

/* The two call trees fed per sample: stacks merged, and as captured. */
enum collect_view { COLLECT_MERGED, COLLECT_RAW, COLLECT_VIEW__COUNT };

struct collector_stats {
	uint64_t samples;	/* samples added to the profile */
	uint64_t offcpu_samples;	/* ... of them off-CPU ones (blocks) */
	uint64_t offcpu_us;	/* ... their time blocked */
	uint64_t user_err;	/* samples without user registers */
	uint64_t empty;		/* samples with neither a user nor a kernel frame */
	uint64_t fp_used;	/* samples with a frame-pointer fallback frame */
	uint64_t stop[LT_STOP__COUNT];	/* why each user walk ended */
	uint64_t fallback;	/* samples whose merge fell back */
	uint64_t fallback_why[MG_REASON__COUNT];	/* by enum mg_reason */
	uint64_t merged_window;	/* samples merged in a call/return window */
	uint64_t lua_samples;	/* samples of LuaJIT processes */
	uint64_t with_lua;	/* samples that have Lua frames */
	uint64_t with_lua_fallback;	/* ... whose merge fell back */
	uint64_t vm[VM_STATE__COUNT];	/* LuaJIT samples by VM state */
	uint64_t vm_weight[EV__COUNT][VM_STATE__COUNT];	/* ... their counts in each event */
	uint64_t trace_samples;	/* samples in a JIT trace */
	uint64_t trace_left;	/* not counted there: vmstate names a trace, but the
				   code had left it for the interpreter (vm_exit_interp);
				   the walk's Lua frames, no snapshot needed */
	uint64_t trace_mapped;	/* ... whose frames came from the snapshot at their pc */
	uint64_t trace_inlined;	/* ... with frames the trace inlined */
	uint64_t trace_why[LUATRACE_WHY__COUNT];	/* why the others kept the sampler's */
};

/* The text of an enum lt_stop. */
const char *collector__stop_text(unsigned stop);

struct tmodel;
/* A collector of samples of the processes of model (which outlives it). */
struct collector *collector__new(struct tmodel *model);
void collector__delete(struct collector *c);
/* Add one sample; 0 or -ENOMEM. */
int collector__add(struct collector *c, const struct lt_sample *s);
/*
** A drain of the sample queue begins at now_ns (CLOCK_MONOTONIC), after every
** sample it will hand in was taken: what the collector checks against the
** targets' memory (Lua prototypes) is checked once for all of them, not once
** per sample. A sample newer than that begins an epoch of its own.
*/
void collector__epoch(struct collector *c, uint64_t now_ns);
/* Lua frames per line (--lines) instead of per function. */
void collector__set_lines(struct collector *c, int on);
/* Native code no symbol names: by its exact address instead of its function
** (--raw; see symbolizer__set_exact). Set before the first sample. */
void collector__set_exact_addresses(struct collector *c, int on);
/* Name kernel frames from k (owned from now on): symbolizer__set_kallsyms. */
struct kallsyms;
void collector__set_kallsyms(struct collector *c, struct kallsyms *k);
/* Export: root the stacks that could not be merged at "[fallback]". */
void collector__set_mark_fallback(struct collector *c, int on);
/* pid runs this LuaJIT build: names its fast functions, reads its strings. */
struct luabuild;
void collector__set_luajit(struct collector *c, int pid, const struct luabuild *b);
/* Forget what is known of a process's address space (it exited or exec'd). */
void collector__forget(struct collector *c, int pid);
/*
** Keep the stacks by label set too (the pprof export's sample labels): off by
** default, as it costs a second table insert per view. 0 or -ENOMEM.
*/
int collector__set_labels(struct collector *c, int on);
/* The stacks of event e keyed [label set id, frames...] (with labels on), or NULL. */
struct stacktab *collector__labelled(const struct collector *c, enum prof_event e,
				     enum collect_view v);
/* A label set by id, or NULL. */
struct collect_labels;
const struct collect_labels *collector__label_set(const struct collector *c, uint32_t id);
/*
** What to build of each sample (all of it by default): views is a mask of
** 1 << COLLECT_MERGED and 1 << COLLECT_RAW; stacks keeps their stack tables
** (the exports read them), trees their call trees (the live view reads them).
** Batch mode needs one view's stacks, the live view both views' trees: what no
** one reads costs a third of the time per sample.
*/
void collector__set_outputs(struct collector *c, unsigned views, int stacks, int trees);
/*
** The events to build profiles of (a mask of 1 << enum prof_event; EV_CPU
** alone by default), and the sampling rate, which gives a CPU sample its
** wall time. Counts are samples for EV_CPU, microseconds for the others.
** 0 or -ENOMEM.
*/
int collector__set_events(struct collector *c, unsigned events, unsigned freq);
unsigned collector__events(const struct collector *c);
/*
** Profile only the samples of threads tids[0..n) (n = 0: every thread), from
** now on (--tid, the live view's thread list); the others are still counted
** per thread (collector__threads). 0 or -ENOMEM.
*/
int collector__keep_threads(struct collector *c, const uint32_t *tids, size_t n);
/* The threads seen, in tid order, into out[0..max): how many there are. */
size_t collector__threads(const struct collector *c, struct thread_info *out, size_t max);
/* Root every stack at a frame "[PID comm]" of its process (--all). */
void collector__set_process_roots(struct collector *c, int on);
/* The comm of pid for its root frame; 0 or -ENOMEM. */
int collector__set_process_name(struct collector *c, int pid, const char *comm);
/* Zero the counts of every stack table (--every, between intervals); frames,
** names, label sets and statistics stay. */
void collector__cut(struct collector *c);
/* Where a native frame's code is mapped, as the first sample of it saw. */
struct collect_site {
	const char *path;	/* the mapped file; NULL: none known */
	const char *build_id;	/* its GNU build ID in hex, "" if none */
	uint64_t start, limit, offset;	/* the mapping: [start, limit), file offset */
	uint64_t addr;		/* the function's start (or the code's address) */
};
/* The site of a frame id, or NULL (kernel, Lua and JIT code, unknown). */
const struct collect_site *collector__site(const struct collector *c, uint32_t frame);
struct frametab *collector__frames(const struct collector *c);
/* The stacks and the call tree of event e in view v (NULL: e not built). */
struct stacktab *collector__stacks(const struct collector *c, enum prof_event e,
				   enum collect_view v);
struct calltree *collector__tree(const struct collector *c, enum prof_event e,
				 enum collect_view v);
/* Which snapshot a sample between two in a JIT trace stands for (default: path). */
void collector__set_trace_rule(struct collector *c, enum luatrace_rule rule);
const struct collector_stats *collector__stats(const struct collector *c);
/* The JIT-trace caches of every process seen, summed. */
void collector__trace_cache(const struct collector *c, struct luatraces_stats *out);

#endif
