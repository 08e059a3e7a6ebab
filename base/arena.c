/*
** Growable name arena.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

#define ARENA_FIRST	4096	/* bytes allocated by the first add */

int64_t arena__add(struct arena *a, const char *s, size_t len)
{
	size_t off = a->len;

	if (len >= a->max || off > a->max - len - 1)
		return -ENOSPC;
	if (off + len + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : ARENA_FIRST;
		char *p;

		while (cap < off + len + 1)
			cap *= 2;
		p = realloc(a->buf, cap);
		if (!p)
			return -ENOMEM;
		a->buf = p;
		a->cap = cap;
	}
	memcpy(a->buf + off, s, len);
	a->buf[off + len] = '\0';
	a->len = off + len + 1;
	return (int64_t)off;
}

void arena__free(struct arena *a)
{
	free(a->buf);
	a->buf = NULL;
	a->len = a->cap = 0;
}
