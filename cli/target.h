/*
** The processes luatop profiles: checks before attaching, a command started
** paused until the sampler is attached, and exit detection.
*/
#ifndef LUATOP_CLI_TARGET_H
#define LUATOP_CLI_TARGET_H

#include <stddef.h>
#include <sys/types.h>

struct target {
	pid_t pid;
	int pidfd;		/* polls readable when the process exits; -1 if unsupported */
	int spawned;		/* started by luatop: reap it */
	int exited;
	int status;		/* wait status when spawned and exited */
	int go_w;		/* spawned, not yet released: write a byte to exec */
	int err_r;		/* spawned: errno of a failed exec, EOF on success */
	char comm[64];		/* /proc/PID/comm at attach */
};

/* Check that pid exists and may be traced by us. 0, or -errno with one line in err. */
int target__check(pid_t pid, struct target *t, char *err, size_t errlen);
/* Fork cmd stopped before exec; target__release() lets it run. */
int target__spawn(char **cmd, int quiet, struct target *t, char *err, size_t errlen);
/* Let a spawned command exec. 0, or -errno with one line in err if exec failed. */
int target__release(struct target *t, char *err, size_t errlen);
/* Update t->exited without blocking; returns t->exited. */
int target__poll_exit(struct target *t);
/* Kill (if spawned and still running) and free the target's resources. */
void target__close(struct target *t);

#endif
