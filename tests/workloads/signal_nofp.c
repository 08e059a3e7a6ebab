/*
** Workload that spends half its CPU time in a signal handler: a profiling timer
** interrupts spin(), and each time its handler burns as much of the thread's CPU
** time as spin() used since the handler last returned. The split is 1:1 by
** construction, whatever the speed of the machine or the granularity of the
** timer (ITIMER_PROF is checked at the scheduler tick, not every 2 ms). Samples
** in on_prof must unwind through the kernel's signal frame (glibc's __restore_rt)
** back into spin and main.
** Runs for argv[1] seconds (default 60).
*/
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define MAX_BURN_NS 50000000L /* at most 50 ms per signal (the first one, say) */

volatile unsigned long sink;
static long spin_since_ns; /* thread CPU time when on_prof last returned */

static long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* async-signal-safe */
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void on_prof(int sig)
{
	long now = thread_cpu_ns();
	long burn = now - spin_since_ns;
	long end = now + (burn < MAX_BURN_NS ? burn : MAX_BURN_NS);

	/* Check the clock rarely, so that samples land in on_prof, not in the clock call. */
	do {
		for (unsigned long i = 0; i < 20000; i++)
			sink += i ^ (unsigned long)sig;
	} while (thread_cpu_ns() < end);
	spin_since_ns = thread_cpu_ns();
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

	spin_since_ns = thread_cpu_ns();
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	while (time(NULL) < end)
		spin();
	return 0;
}
