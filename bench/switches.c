/*
** bench/offcpu.sh's microbenchmark: what a system call and a blocking round
** trip cost a thread, to be run with and without luatop attached. Prints, for
** ROUNDS rounds of about SECONDS/ROUNDS each, "syscall NS" (one getppid(), the
** cheapest system call) and "roundtrip NS" (a byte sent to another thread over
** a pipe and one sent back: two blocks, two wakeups, two context switches).
**   switches [SECONDS] [ROUNDS]
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

static int ping[2], pong[2];

static double now(void)
{
	return (double)clock__mono_ns() / 1e9;
}

static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
		;
	return NULL;
}

/* ns per call of fn over about secs seconds. */
static double per_call(int (*fn)(void), double secs)
{
	double t0 = now(), t;
	long n = 0;

	do {
		for (int i = 0; i < 1000; i++)
			if (fn())
				exit(1);
		n += 1000;
	} while ((t = now()) - t0 < secs);
	return (t - t0) * 1e9 / n;
}

static int one_syscall(void)
{
	return syscall(SYS_getppid) < 0;
}

static int one_roundtrip(void)
{
	char c = 'x';

	return write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	pthread_t t;

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL))
		return 1;
	for (int r = 0; r < rounds; r++) {
		printf("syscall %.1f\n", per_call(one_syscall, secs / rounds / 2));
		printf("roundtrip %.1f\n", per_call(one_roundtrip, secs / rounds / 2));
		fflush(stdout);
	}
	return 0;
}
