/*
** Signals: luatop's own, and the ones its commands inherit.
*/
#include <stddef.h>

#include "cli/signals.h"

static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NHANDLED	(sizeof(handled) / sizeof(handled[0]))

/* What luatop was started with (the one place it keeps process-wide state:
** signal handling is process-wide). */
static struct sigaction saved[NHANDLED];
static sigset_t saved_mask;
static volatile sig_atomic_t *stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	*stop_flag = 1;
}

void signals__install(volatile sig_atomic_t *flag)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: wake poll() */
	struct sigaction ign = { .sa_handler = SIG_IGN };

	stop_flag = flag;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ign.sa_mask);
	sigprocmask(SIG_SETMASK, NULL, &saved_mask);
	for (size_t i = 0; i < NHANDLED; i++)
		sigaction(handled[i], handled[i] == SIGPIPE ? &ign : &sa, &saved[i]);
}

void signals__restore(void)
{
	if (!stop_flag)
		return;
	for (size_t i = 0; i < NHANDLED; i++)
		sigaction(handled[i], &saved[i], NULL);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}
