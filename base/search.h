/*
** The one binary search of sorted address tables (symbols, mappings, perf map
** ranges): how many entries start at or below an address.
*/
#ifndef LUATOP_BASE_SEARCH_H
#define LUATOP_BASE_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
** The index of the first of n entries whose key exceeds key, in an array of
** entries of size stride sorted by the unsigned key of width bytes (4 or 8) at
** byte offset off. The entry that may hold key is the one before it (none when
** 0 is returned).
*/
static inline size_t search__upper_w(const void *base, size_t n, size_t stride, size_t off,
				     unsigned width, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = base ? n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = 0;
		uint32_t k32;

		if (width == 4) {
			memcpy(&k32, b + mid * stride + off, sizeof(k32));
			k = k32;
		} else {
			memcpy(&k, b + mid * stride + off, sizeof(k));
		}
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same for a uint64_t key. */
static inline size_t search__upper(const void *base, size_t n, size_t stride, size_t off,
				   uint64_t key)
{
	return search__upper_w(base, n, stride, off, 8, key);
}

#endif
