/*
** Interned strings that never move: a chunked arena and an open-addressing set
** (FNV-1a, linear probing). Pointers stay valid until strpool__free.
*/
#ifndef LUATOP_BASE_STRPOOL_H
#define LUATOP_BASE_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

struct strpool_chunk;

struct strpool {
	struct strpool_chunk *chunks;	/* newest first */
	const char **slots;		/* NULL: empty */
	size_t nslots, used;		/* nslots is 0 or a power of two */
	size_t slots_min;		/* size of the first set, a power of two */
};

/* An empty pool whose set starts at slots_min (a power of two) on first use. */
void strpool__init(struct strpool *p, size_t slots_min);
/* Double the set (or create it): 0 or -ENOMEM. */
int strpool__grow(struct strpool *p);
/* The interned copy of str[0..len) (which holds no NUL), or NULL on ENOMEM. */
const char *strpool__intern(struct strpool *p, const char *str, size_t len);
/* Free the arena and the set; p is empty again (same slots_min). */
void strpool__free(struct strpool *p);
/* FNV-1a over len bytes: the pool's hash, for callers keying their own tables. */
uint64_t strpool__hash(const void *buf, size_t len);

#endif
