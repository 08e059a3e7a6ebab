/*
** The threads samples came from, with their counts, and which of them the
** profile keeps (--tid, the live view's thread list): a table by thread id.
*/
#ifndef LUATOP_COLLECT_THREADS_H
#define LUATOP_COLLECT_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "base/idmap.h"
#include "profile/event.h"

struct thread_info {
	uint32_t tid, pid;
	uint64_t weight[EV__COUNT];	/* its samples' counts in each event, since the start */
	uint64_t seen;			/* when its latest sample came (the table's count) */
	uint8_t kept;			/* its samples go into the profile */
};

#define THREADS_MAX	4096	/* threads remembered: past them, the half unseen
				   longest is forgotten (exited ones, with churn) */

struct threads {
	struct idmap map;		/* struct thread_info by tid */
	int filtered;			/* only the kept threads' samples are profiled */
	uint32_t *wanted;		/* ... and the tids asked for, not seen yet */
	size_t nwanted;
	uint64_t clock;			/* threads__get calls so far */
};

/* An empty table. */
void threads__init(struct threads *t);
/* The entry of tid (of process pid), added if new (see THREADS_MAX), marked
** seen now; NULL on ENOMEM. */
struct thread_info *threads__get(struct threads *t, uint32_t tid, uint32_t pid);
/* Keep only tids[0..n) (n = 0: every thread). 0 or -ENOMEM. */
int threads__keep(struct threads *t, const uint32_t *tids, size_t n);
/* Every thread seen, in tid order, into out[0..max): how many there are. */
size_t threads__list(const struct threads *t, struct thread_info *out, size_t max);
void threads__free(struct threads *t);

#endif
