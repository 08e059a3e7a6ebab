/*
** The live view (ncurses): what it needs from the outside world is a feed
** of call trees and sampler statistics, so a live session and a saved
** folded file look the same to it.
*/
#ifndef LUATOP_TUI_TUI_H
#define LUATOP_TUI_TUI_H

#include <signal.h>
#include <stdint.h>

#include "profile/calltree.h"
#include "profile/event.h"
#include "profile/frames.h"
#include "profile/vm.h"


struct tui_stats {
	uint64_t received;		/* samples taken in since the start */
	uint64_t lost;			/* samples dropped before user space */
	const char *luajit;		/* LuaJIT flavour for the header; NULL: not known yet */
	uint64_t vm[EV__COUNT][VM_STATE__COUNT];	/* counts of each event by VM state;
							   all 0: not known */
	const char *fallback_why;	/* the commonest reason stacks fell back; NULL: none */
	uint64_t trace_samples;		/* samples in JIT traces */
	uint64_t trace_mapped;		/* ... whose frames came from the trace's snapshots */
	const char *trace_why;		/* the commonest reason the others did not; NULL: none */
	int exited;			/* every target has exited */
	int failed;			/* sampling stopped (out of memory) */
};

/* A thread samples came from, for the thread list. */
struct tui_thread {
	uint32_t tid, pid;
	double weight[EV__COUNT];	/* its samples' counts in each event */
	int kept;			/* its samples are profiled now */
	char comm[32];			/* its name (comm), as the kernel has it */
};

struct tui_feed {
	const char *who;		/* "PID 1234 (luajit)", or the file name */
	const char *snapname;		/* snapshot names: luatop-<snapname>-<time>.folded */
	unsigned freq;			/* sampling rate in Hz; 0 for a file */
	int live;			/* samples keep coming; 0 for a file */
	double delay;			/* seconds between refreshes */
	enum ct_window window;		/* window shown first */
	struct calltree *base;		/* a baseline to diff against (-i --diff); NULL: none */
	int raw;			/* start on raw stacks */
	int some_threads;		/* only some threads are profiled (--tid) */
	int mark_fallback;		/* snapshots root fallback stacks at [fallback] */
	struct frametab *frames;
	/* Per event: merged, raw; NULL: not profiled. A file gives its one tree
	** twice, as EV_CPU. */
	struct calltree *tree[EV__COUNT][2];
	enum prof_event event;		/* shown first */
	int fd;				/* readable when samples wait; -1: none */
	int (*pump)(void *ctx);		/* take waiting samples, never blocking; < 0: stopped */
	void (*stats)(void *ctx, struct tui_stats *st);	/* NULL for a file */
	/* The threads seen, in tid order, into out[0..max): how many there are
	** (NULL for a file). */
	size_t (*threads)(void *ctx, struct tui_thread *out, size_t max);
	/* Profile only the threads tids[0..n) from now on (n = 0: all): 0 or -errno. */
	int (*keep_threads)(void *ctx, const uint32_t *tids, size_t n);
	void *ctx;
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM/SIGHUP */
	void (*say)(int error, const char *msg);	/* a line for the user, once the
							   terminal is restored */
	/* Save what is shown (top's subtree in window w, fallback samples only or
	** all) as luatop-<snapname>-<time>.folded: 0, or -errno; the file's name
	** in path (also on failure, when known), the samples written in *total. */
	int (*save)(const struct tui_feed *f, const struct calltree *t, uint32_t top,
		    enum ct_window w, int fallback_only, char *path, size_t pathsz,
		    uint64_t *total);
};

/*
** Run the view until q or *stop; sampling (pump) goes on whatever the view
** does. Returns the exit status (0; 1 if the terminal could not be set up).
** Snapshot paths are told through say() after the terminal is restored.
*/
int tui__run(struct tui_feed *f);

#endif
