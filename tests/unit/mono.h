/*
** Milliseconds on CLOCK_MONOTONIC, for unit tests whose assertions hold only
** when a step came soon enough after another (they are skipped, never failed,
** when the machine is slow).
*/
#ifndef LUATOP_TESTS_UNIT_MONO_H
#define LUATOP_TESTS_UNIT_MONO_H

#include "base/clock.h"

static inline double mono_ms(void)
{
	return (double)clock__mono_ns() / 1e6;
}

#endif
