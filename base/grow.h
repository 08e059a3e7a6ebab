/*
** The one way a growable array makes room: double its capacity (64 at first).
*/
#ifndef LUATOP_BASE_GROW_H
#define LUATOP_BASE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Make room for element n (and those before it) of size sz in *p (capacity
** *cap), doubling as often as it takes: 0 or -ENOMEM. */
static inline int grow__room(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c;
	void *q;

	if (n < *cap)
		return 0;
	for (c = *cap ? *cap * 2 : 64; c <= n; c *= 2)
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
	if (c > SIZE_MAX / sz)
		return -ENOMEM;
	q = realloc(*p, c * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

#endif
