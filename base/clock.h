/*
** The monotonic clock in nanoseconds: the samples' clock (bpf_ktime_get_ns()
** counts the same) and the one of every age, deadline and interval luatop
** keeps. Read through the vDSO: tens of ns (a thread CPU clock is a system
** call that costs as much as a sample).
*/
#ifndef LUATOP_BASE_CLOCK_H
#define LUATOP_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
