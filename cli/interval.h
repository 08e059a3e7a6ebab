/*
** --every: one profile per interval, under names made from a pattern with %t
** (the interval's start, YYYYmmdd-HHMMSS local time) so that no interval's file
** replaces another's and an uploader can ship each file once it appears.
*/
#ifndef LUATOP_CLI_INTERVAL_H
#define LUATOP_CLI_INTERVAL_H

#include <stddef.h>
#include <time.h>

#define INTERVAL_TRIES	100	/* %t, then %t-2 ... %t-99 when a name is taken */

/* Does pattern hold %t? ("%%" is a literal '%'.) */
int interval__has_time(const char *pattern);
/*
** The name of try (1, 2, ...) for an interval starting at t: %t becomes the
** time (with "-try" when try > 1), %% a '%'. 0, or -ENAMETOOLONG.
*/
int interval__name(const char *pattern, time_t t, int try, char *out, size_t outsz);

#endif
