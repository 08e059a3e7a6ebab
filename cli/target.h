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
	int stopped;		/* spawned: luatop ended it (SIGTERM) at the end */
	int go_w;		/* spawned, not yet released: write a byte to exec */
	int err_r;		/* spawned: errno of a failed exec, EOF on success */
	pid_t tid;		/* -p named this thread of pid; 0: pid itself */
	char comm[64];		/* /proc/PID/comm at attach; a command's as of its last exec */
};

/*
** Check that pid exists, is a user process and may be traced by us: 0, or
** -errno with one line in err (ESRCH: none or exited, EINVAL: a kernel thread,
** EPERM). A thread ID stands for its process: t->pid is the process, and
** t->tid the thread named (0 when pid was a process).
*/
int target__check(pid_t pid, struct target *t, char *err, size_t errlen);
/* Fork cmd stopped before exec; target__release() lets it run. */
int target__spawn(char **cmd, int quiet, struct target *t, char *err, size_t errlen);
/* Let a spawned command exec. 0, or -errno with one line in err if exec failed. */
int target__release(struct target *t, char *err, size_t errlen);
/* Update t->exited without blocking; returns t->exited. */
int target__poll_exit(struct target *t);
/* A running command's comm again: it may exec once more (env, nice, sh -c). */
void target__refresh_comm(struct target *t);
/* A spawned command still running gets SIGTERM and is waited for. */
void target__stop(struct target *t);
/*
** A spawned command's end, after target__stop: "exited with status 3",
** "was killed by signal 11 (Segmentation fault)", "was stopped by luatop";
** and the exit status luatop gives for it: the command's own status (128+N for
** signal N, as shells do) when it ended by itself, 0 when luatop stopped it.
*/
int target__fate(const struct target *t, char *out, size_t outsz);
/* Stop (if spawned) and free the target's resources. */
void target__close(struct target *t);

#endif
