/*
** Workload with a known CPU split: main -> run_work -> burn_alpha (2/3 of the
** time) and burn_beta (1/3). Built with frame pointers. Runs for argv[1]
** seconds (default 60), or until killed; with argv[2], does exactly that many
** rounds instead (fixed work, for benchmarks).
*/
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void burn_alpha(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

__attribute__((noinline)) void burn_beta(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}

__attribute__((noinline)) void run_work(void)
{
	burn_alpha(2000000);
	burn_beta(1000000);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	long rounds = argc > 2 ? atol(argv[2]) : -1;
	time_t end = time(NULL) + (time_t)secs;

	if (rounds >= 0) {
		while (rounds-- > 0)
			run_work();
		return 0;
	}
	while (time(NULL) < end)
		run_work();
	return 0;
}
