/*
** The frame of each (process, address) the pipeline has named, so that every
** address is symbolized once: open addressing on (pid, address), pid 0 for the
** kernel.
*/
#ifndef LUATOP_COLLECT_FRAMECACHE_H
#define LUATOP_COLLECT_FRAMECACHE_H

#include <stdint.h>

struct framecache;

struct framecache *framecache__new(void);
void framecache__delete(struct framecache *fc);
/* The frame id cached for (pid, addr): 1 and *frame, or 0 when not cached. */
int framecache__get(const struct framecache *fc, int32_t pid, uint64_t addr, uint32_t *frame);
/* Cache frame for (pid, addr), which must not be cached yet: 0 or -ENOMEM. */
int framecache__put(struct framecache *fc, int32_t pid, uint64_t addr, uint32_t frame);
/* Forget the entries of pid (it exited or exec'd: its addresses mean other code). */
void framecache__forget(struct framecache *fc, int32_t pid);

#endif
