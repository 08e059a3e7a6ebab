/*
** Two busy threads for tests of thread handling: main spins in spin_main, a
** second thread in spin_worker. Prints "TID\n" of the worker on stdout, then
** runs for argv[1] seconds (default 30).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile unsigned long sink;
static time_t end;

__attribute__((noinline)) static void spin(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) static void spin_main(void)
{
	while (time(NULL) < end)
		spin();
}

__attribute__((noinline)) static void *spin_worker(void *arg)
{
	(void)arg;
	printf("%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	while (time(NULL) < end)
		spin();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 30);
	if (pthread_create(&t, NULL, spin_worker, NULL))
		return 1;
	spin_main();
	pthread_join(t, NULL);
	return 0;
}
