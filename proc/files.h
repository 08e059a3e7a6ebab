/*
** The file-identity cache: one entry per mapped file (device, inode, size,
** mtime) or ELF image copied from memory (the vDSO, keyed by its bytes), shared
** by every process and every mapping that maps it.
**
** An entry holds the file's PT_LOAD headers (for load biases) and what each
** consumer computed from it, its parts: the unwind rows the sampler was given,
** the LuaJIT build found in it, its symbols. Parts are computed lazily by their
** consumers, which read the file through tfile__fd(): the file is opened for
** reading once per identity and stays open until every part is there (or until
** too many files are open, when the least recently used is closed; reopening
** it is counted). Not thread-safe.
*/
#ifndef LUATOP_PROC_FILES_H
#define LUATOP_PROC_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "proc/elffile.h"
#include "proc/procmaps.h"

/* What consumers keep per file. */
enum tfile_part {
	TF_UNWIND,		/* bpf/tables: where its unwind rows went */
	TF_LUAJIT,		/* lua/detect: the LuaJIT build it holds, if any */
	TF_SYMBOLS,		/* symbolize/: its function symbols */
	TF_FUNCS,		/* symbolize/: its functions by FDE (unwind/funcs), for
				   code no symbol covers */
	TF_PART__COUNT
};

struct tfile;
struct tfiles;

struct tfiles_stats {
	uint64_t files;		/* distinct file identities */
	uint64_t images;	/* distinct images (vDSOs) */
	uint64_t opens;		/* files opened for reading (== files unless reopened) */
	uint64_t reopens;	/* of those, opens of a file whose fd had been closed */
};

struct tfiles *tfiles__new(void);
/* Free every entry and its parts (each part's drop function); NULL is fine. */
void tfiles__delete(struct tfiles *c);
/*
** The entry of the regular file behind mapping m of process pid, identified
** without reading it when already cached. NULL + errno when it cannot be
** opened (gone, not a regular file, not permitted) or on ENOMEM.
*/
struct tfile *tfiles__of_mapping(struct tfiles *c, int pid, const struct procmap *m);
/* The entry of an ELF image of len bytes (the vDSO): buf is taken over (freed
** here when an equal image is cached). NULL + errno on ENOMEM. */
struct tfile *tfiles__of_image(struct tfiles *c, void *buf, size_t len);
const struct tfiles_stats *tfiles__stats(const struct tfiles *c);

/* A read-only fd of the file (the entry keeps it; do not close it), -1 + errno
** when it cannot be (re)opened or the entry is an image. */
int tfile__fd(struct tfile *f);
/* The bytes of an image entry, NULL for a file. */
const void *tfile__image(const struct tfile *f, size_t *len);
/* The path it was first mapped from ("[vdso]" for an image). */
const char *tfile__path(const struct tfile *f);
/* Its identity as fstat gave it (zeroed for an image). */
const struct stat *tfile__stat(const struct tfile *f);
/* Its PT_LOAD headers; empty when it is not an ELF file. */
const struct elf_loads *tfile__loads(const struct tfile *f);
/* Is the part computed (possibly as NULL: "nothing there")? */
int tfile__has(const struct tfile *f, enum tfile_part p);
void *tfile__part(const struct tfile *f, enum tfile_part p);
/* Store a part, dropped with drop (may be NULL) when the cache is freed. The fd
** is closed once every part is there. A part is set once. */
void tfile__set(struct tfile *f, enum tfile_part p, void *data, void (*drop)(void *));

#endif
