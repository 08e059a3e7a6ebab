/*
** /proc/PID/maps: the mappings of a process, sorted by address.
*/

#ifndef LUATOP_PROC_PROCMAPS_H
#define LUATOP_PROC_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>

#define PROCMAP_PATH_MAX	256

/* One mapping. */
struct procmap {
	uint64_t start, end;		/* [start, end) virtual */
	uint64_t offset;		/* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint8_t exec;			/* 'x' in perms */
	char path[PROCMAP_PATH_MAX];	/* "" for anonymous; "[vdso]", " (deleted)" kept;
					   longer paths are truncated */
};

struct procmaps {
	struct procmap *maps;		/* sorted by start */
	size_t n;
};

/*
** Parse maps text (need not be NUL-terminated). Malformed lines are skipped.
** Overwrites *out without freeing it. 0, -EINVAL (NULL arguments) or -ENOMEM.
*/
int procmaps__parse(const char *text, size_t len, struct procmaps *out);
/* Read and parse /proc/PID/maps: 0 or -errno (ENOENT no process, EACCES not permitted). */
int procmaps__read(int pid, struct procmaps *out);
/* The mapping containing addr, or NULL. */
const struct procmap *procmaps__find(const struct procmaps *m, uint64_t addr);
/* Free the array and reset *m to empty; safe on an empty or freed *m. */
void procmaps__free(struct procmaps *m);

#endif
