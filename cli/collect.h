/*
** Collector: turns raw samples from the BPF ring buffer into symbolized,
** interned stacks in the profile. Symbolization happens as samples arrive,
** so the profile stays complete after the target exits.
*/
#ifndef LUATOP_COLLECT_H
#define LUATOP_COLLECT_H

#include <stdint.h>

#include "bpf/luatop.h"

struct frametab;
struct stacktab;
struct collector;

struct collector_stats {
	uint64_t samples;	/* samples added to the profile */
	uint64_t user_err;	/* samples whose user stack could not be read */
	uint64_t empty;		/* samples with neither a user nor a kernel frame */
};

struct collector *collector__new(void);
void collector__delete(struct collector *c);
/* Add one sample; 0 or -ENOMEM. */
int collector__add(struct collector *c, const struct lt_sample *s);
/* Forget what is known of a process's address space (it exited or exec'd). */
void collector__forget(struct collector *c, int pid);
struct frametab *collector__frames(const struct collector *c);
struct stacktab *collector__stacks(const struct collector *c);
const struct collector_stats *collector__stats(const struct collector *c);

#endif
