/*
** A growable arena of NUL-terminated names addressed by offset (the names of
** a symbol table), with a size cap: offsets stay valid as it grows.
*/
#ifndef LUATOP_BASE_ARENA_H
#define LUATOP_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct arena {
	char *buf;		/* names, each NUL-terminated */
	size_t len, cap;	/* bytes used / allocated */
	size_t max;		/* never grow beyond this many bytes */
};

/* Copy len bytes of s plus a NUL; the offset, or -ENOSPC (max reached) / -ENOMEM. */
int64_t arena__add(struct arena *a, const char *s, size_t len);
/* Free the buffer; the arena is empty again (same max). */
void arena__free(struct arena *a);

#endif
