/*
** The model of the traced processes: per process its mappings (/proc/PID/maps)
** and, per mapping, the file behind it (an entry of the identity cache shared by
** all processes) with the mapping's load bias; the vDSO is read once per process.
** The BPF table publisher and the symbolizer both look addresses up here.
** Not thread-safe.
*/
#ifndef LUATOP_PROC_MODEL_H
#define LUATOP_PROC_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/files.h"
#include "proc/procmaps.h"

#define TPROC_REREAD_NS	100000000ull	/* a miss re-reads the maps at most this often */

struct tmodel;
struct tproc;

/* What consumers keep per process (dropped with it). */
enum tproc_part {
	TP_SYMBOLS,		/* symbolize/: its perf map */
	TP_PART__COUNT
};

struct tmodel_stats {
	uint64_t maps_reads;	/* /proc/PID/maps read */
	uint64_t vdso_reads;	/* vDSO images copied (one per process) */
};

/* NULL + errno. */
struct tmodel *tmodel__new(void);
void tmodel__delete(struct tmodel *m);
/* The identity cache every process shares. */
struct tfiles *tmodel__files(const struct tmodel *m);
/* The process pid, created unread when new; NULL on ENOMEM. */
struct tproc *tmodel__proc(struct tmodel *m, int pid);
/* Forget pid's mappings (it exited or exec'd); cached files stay. */
void tmodel__forget(struct tmodel *m, int pid);
const struct tmodel_stats *tmodel__stats(const struct tmodel *m);

int tproc__pid(const struct tproc *p);
/* An O_PATH fd of its root directory as of the last read of its maps, -1 if
** none: files of its mount namespace (debug files, perf maps) are opened inside
** it (proc/mapfile.h), also once the process has exited. Owned by the model. */
int tproc__root(const struct tproc *p);
/*
** Re-read the maps unless they were read less than max_age_ns ago. A process
** that is gone or a zombie (no mappings) keeps its old maps: samples taken
** before it exited still need them. 1 when the maps changed, 0 when not, -errno
** when the read failed.
*/
int tproc__refresh(struct tproc *p, uint64_t max_age_ns);
/* The mappings as last read (read on first use). */
const struct procmaps *tproc__maps(struct tproc *p);
/* Index of the mapping holding addr; a miss re-reads the maps (at most every
** TPROC_REREAD_NS). -1 when none. */
ssize_t tproc__find(struct tproc *p, uint64_t addr);
/* The file behind mapping i: a regular file, or the vDSO image; NULL for
** anonymous memory or a file that cannot be opened. */
struct tfile *tproc__file(struct tproc *p, size_t i);
/* Load bias of mapping i (vaddr = pc - bias): 0, or -ENOENT when unknown. */
int tproc__bias(struct tproc *p, size_t i, uint64_t *bias);
/* A consumer's part of the process, NULL while it has none. */
void *tproc__part(const struct tproc *p, enum tproc_part part);
/* Set it (dropping the one it replaces); drop (may be NULL) frees it with the process. */
void tproc__set_part(struct tproc *p, enum tproc_part part, void *data, void (*drop)(void *));

#endif
