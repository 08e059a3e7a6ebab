/*
** Milliseconds on CLOCK_MONOTONIC, for unit tests whose assertions hold only
** when a step came soon enough after another (they are skipped, never failed,
** when the machine is slow).
*/
#ifndef LUATOP_TESTS_UNIT_MONO_H
#define LUATOP_TESTS_UNIT_MONO_H

#include <time.h>

static inline double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif
