/*
** Aggregated samples: stack (frame ids, root first) -> count.
*/

#ifndef LUATOP_PROFILE_STACKS_H
#define LUATOP_PROFILE_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct stacktab;

struct stacktab *stacktab__new(void);
void stacktab__delete(struct stacktab *t);
/*
** Add count samples of the stack frames[0..n) (root first). n may be 0: an
** empty stack is counted, folded export skips it. Counts saturate at UINT64_MAX.
** Returns 0, -ENOMEM, or -EINVAL (n > 0 with frames NULL).
*/
int stacktab__add(struct stacktab *t, const uint32_t *frames, uint32_t n, uint64_t count);
uint64_t stacktab__total(const struct stacktab *t);	/* sum of counts (saturating) */
size_t stacktab__unique(const struct stacktab *t);	/* number of distinct stacks */
/* Called once per distinct stack; frames is NULL when n is 0. */
typedef int (*stacktab_fn)(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx);
/* Visit stacks in first-added order; stops and returns fn's value if non-zero. */
int stacktab__foreach(const struct stacktab *t, stacktab_fn fn, void *ctx);
void stacktab__reset(struct stacktab *t);	/* zero everything, keep capacity */

#endif
