/*
** Workload in the vDSO: clock_gettime(CLOCK_MONOTONIC) in a loop, which never
** enters the kernel. Runs for argv[1] seconds (default 60).
*/
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) void read_clock(void)
{
	struct timespec ts;

	for (int i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += ts.tv_nsec;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	do {
		read_clock();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec);
	return 0;
}
