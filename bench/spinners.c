/*
** bench/load.sh's workload: N threads that spin on the CPU for S seconds
** (default 200 threads, 60 s), to load every CPU far past its count.
*/
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static time_t deadline;

static void *spin(void *arg)
{
	(void)arg;
	while (time(NULL) < deadline)
		for (unsigned long i = 0; i < 1000000; i++)
			sink += i;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	int secs = argc > 2 ? atoi(argv[2]) : 60;
	pthread_t *t;

	if (n < 1 || n > 10000 || secs < 1)
		return 2;
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	deadline = time(NULL) + secs;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
