/*
** The one hex number parser of the text formats luatop reads (/proc maps,
** kallsyms, perf maps): bounded by an end pointer, no NUL needed.
*/
#ifndef LUATOP_BASE_HEX_H
#define LUATOP_BASE_HEX_H

#include <errno.h>
#include <stdint.h>

/* Parse 1..16 hex digits at *p (before end) into *v and move *p past them:
** 0, or -EINVAL (no digit, or more than 16). */
static inline int hex__parse(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	for (; *p < end && *p - s < 17; (*p)++) {
		char ch = **p;
		unsigned d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			break;
		x = x << 4 | d;
	}
	if (*p == s || *p - s > 16)
		return -EINVAL;
	*v = x;
	return 0;
}

#endif
