/*
** Workload that spends half its time in a signal handler: a 2 ms profiling
** timer whose handler burns ~1 ms of CPU. Samples in on_prof must unwind through
** the kernel's signal frame (glibc's __restore_rt) back into spin and main.
** Runs for argv[1] seconds (default 60).
*/
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void on_prof(int sig)
{
	for (unsigned long i = 0; i < 400000; i++)
		sink += i ^ (unsigned long)sig;
}

__attribute__((noinline)) void spin(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	struct itimerval it = { .it_interval = { 0, 2000 }, .it_value = { 0, 2000 } };
	struct sigaction sa = { .sa_handler = on_prof, .sa_flags = SA_RESTART };
	time_t end = time(NULL) + (time_t)secs;

	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	while (time(NULL) < end)
		spin();
	return 0;
}
