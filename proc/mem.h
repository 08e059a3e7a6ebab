/*
** Reading another process's memory (process_vm_readv, never writing): the
** reader decoders use, and whole copies of small mappings (the vDSO).
*/
#ifndef LUATOP_PROC_MEM_H
#define LUATOP_PROC_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "base/reader.h"

#define TMEM_COPY_MAX	(1u << 20)	/* largest mapping tmem__copy takes (the vDSO) */

/* A reader of pid's memory. */
struct mreader tmem__reader(int pid);
/* Read len bytes at addr of pid: 0, or -errno (-EFAULT for a short read). */
int tmem__read(int pid, uint64_t addr, void *buf, size_t len);
/* Copy [start, end) of pid's memory into a new buffer (at most TMEM_COPY_MAX
** bytes): NULL + errno on failure. */
void *tmem__copy(int pid, uint64_t start, uint64_t end, size_t *len);

#endif
