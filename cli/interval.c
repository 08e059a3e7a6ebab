/*
** Names of --every's files.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/interval.h"

int interval__has_time(const char *pattern)
{
	for (const char *p = pattern; *p; p++)
		if (*p == '%' && p[1]) {
			if (p[1] == 't')
				return 1;
			p++;	/* "%%" and any other escape */
		}
	return 0;
}

int interval__name(const char *pattern, time_t t, int try, char *out, size_t outsz)
{
	char stamp[48];
	struct tm tm;
	size_t n = 0;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (try > 1)
		snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), "-%d", try);
	for (const char *p = pattern; *p; p++) {
		const char *add = p;
		size_t len = 1;

		if (*p == '%' && p[1] == 't') {
			add = stamp;
			len = strlen(stamp);
			p++;
		} else if (*p == '%' && p[1] == '%') {
			p++;
		}
		if (n + len >= outsz)
			return -ENAMETOOLONG;
		memcpy(out + n, add, len);
		n += len;
	}
	if (!outsz)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}
