/*
** Interned strings: a chunked arena (never moves) and an open-addressing set
** kept at most half full.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strpool.h"

#define SP_CHUNK	(64 * 1024)	/* arena chunk; longer strings get their own */

struct strpool_chunk {
	struct strpool_chunk *next;	/* older chunks */
	size_t used, size;		/* bytes handed out / in mem[] */
	char mem[];
};

/* FNV-1a over len bytes. */
uint64_t strpool__hash(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* An empty pool whose set starts at slots_min on first use. */
void strpool__init(struct strpool *p, size_t slots_min)
{
	memset(p, 0, sizeof(*p));
	p->slots_min = slots_min;
}

/* Copy len bytes plus a NUL into the arena. */
static char *copy(struct strpool *p, const char *str, size_t len)
{
	struct strpool_chunk *c = p->chunks;
	char *s;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > SP_CHUNK ? len + 1 : SP_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->chunks;
		c->used = 0;
		c->size = size;
		p->chunks = c;
	}
	s = c->mem + c->used;
	memcpy(s, str, len);
	s[len] = '\0';
	c->used += len + 1;
	return s;
}

/* The slot holding str[0..len), or the empty slot where it belongs. */
static const char **slot(const struct strpool *p, const char *str, size_t len)
{
	size_t mask = p->nslots - 1, i = (size_t)strpool__hash(str, len) & mask;

	while (p->slots[i] && (strncmp(p->slots[i], str, len) || p->slots[i][len]))
		i = (i + 1) & mask;
	return &p->slots[i];
}

/* Double the set (or create it). */
int strpool__grow(struct strpool *p)
{
	struct strpool n = { .nslots = p->nslots ? p->nslots * 2 : p->slots_min };

	n.slots = calloc(n.nslots, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->nslots; i++)
		if (p->slots[i])
			*slot(&n, p->slots[i], strlen(p->slots[i])) = p->slots[i];
	free(p->slots);
	p->slots = n.slots;
	p->nslots = n.nslots;
	return 0;
}

/* The interned copy of str[0..len), or NULL on ENOMEM. */
const char *strpool__intern(struct strpool *p, const char *str, size_t len)
{
	const char **s;

	if ((p->used + 1) * 2 > p->nslots && strpool__grow(p))
		return NULL;
	s = slot(p, str, len);
	if (!*s) {
		*s = copy(p, str, len);
		if (!*s)
			return NULL;
		p->used++;
	}
	return *s;
}

/* Free every chunk and the set. */
void strpool__free(struct strpool *p)
{
	while (p->chunks) {
		struct strpool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
	free(p->slots);
	strpool__init(p, p->slots_min);
}
