/*
** Target processes: existence and permission checks, starting a command, exit.
*/
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cli/signals.h"
#include "cli/target.h"
#include "proc/pidinfo.h"

static int errf(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Reading /proc/PID/maps needs the same ptrace access check the profiler needs. */
static int check_access(pid_t pid)
{
	char path[64], c;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, &c, 1);
	close(fd);
	return n < 0 ? -errno : 0;
}

/* A thread stands for its process; a zombie or a kernel thread is refused. */
static int check_kind(pid_t pid, struct target *t, char *err, size_t errlen)
{
	struct pidstat k;
	pid_t tgid = pid;
	int rc = pidinfo__stat(pid, &k);

	if (!rc)
		rc = pidinfo__tgid(pid, &tgid);
	if (rc == -ENOENT || rc == -ESRCH)
		return errf(err, errlen, ESRCH, "no process with PID %d", (int)pid);
	if (rc)
		return 0;	/* the access check below says what is wrong */
	if (k.flags & PIDINFO_PF_KTHREAD)
		return errf(err, errlen, EINVAL, "PID %d is a kernel thread: luatop profiles "
			    "user processes (the kernel's stacks show under them)", (int)pid);
	if (k.state == 'Z' || k.state == 'X')
		return errf(err, errlen, ESRCH, "PID %d has exited (a zombie its parent has "
			    "not reaped)", (int)pid);
	if (tgid != pid) {
		t->tid = pid;
		t->pid = tgid;
		return check_kind(tgid, t, err, errlen);
	}
	return 0;
}

int target__check(pid_t pid, struct target *t, char *err, size_t errlen)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->pidfd = t->go_w = t->err_r = -1;
	if (kill(pid, 0) && errno == ESRCH)
		return errf(err, errlen, ESRCH, "no process with PID %d", (int)pid);
	if ((rc = check_kind(pid, t, err, errlen)))
		return rc;
	pid = t->pid;
	if (pid == getpid())
		return errf(err, errlen, EINVAL, "PID %d is luatop itself", (int)pid);
	rc = check_access(pid);
	if (rc == -ENOENT || rc == -ESRCH)
		return errf(err, errlen, ESRCH, "no process with PID %d", (int)pid);
	if ((rc == -EACCES || rc == -EPERM) && geteuid() == 0)
		return errf(err, errlen, EPERM, "cannot trace PID %d: permission denied to "
			    "root (a Yama ptrace_scope of 3, a security module or another user "
			    "namespace)", (int)pid);
	if (rc == -EACCES || rc == -EPERM)
		return errf(err, errlen, EPERM, "cannot trace PID %d: permission denied "
			    "(luatop needs root, or CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE)",
			    (int)pid);
	if (rc)
		return errf(err, errlen, -rc, "cannot read /proc/%d/maps: %s", (int)pid,
			    strerror(-rc));
	pidinfo__comm(pid, 0, t->comm, sizeof(t->comm));
	t->pidfd = open_pidfd(pid);
	return 0;
}

static void child(char **cmd, int quiet, pid_t parent, int go_r, int err_w)
{
	char c;
	int e;

	/* The command sees what luatop was given, and ends with luatop (SIGTERM,
	** also when luatop is killed: a profiler's death must not orphan it). */
	signals__restore();
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(127);

	/* Wait until the sampler is attached; EOF means luatop gave up. */
	if (read(go_r, &c, 1) != 1)
		_exit(127);
	if (quiet) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	execvp(cmd[0], cmd);
	e = errno;
	if (write(err_w, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int target__spawn(char **cmd, int quiet, struct target *t, char *err, size_t errlen)
{
	int go[2], ex[2];
	pid_t pid, self = getpid();

	memset(t, 0, sizeof(*t));
	t->pidfd = t->go_w = t->err_r = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return errf(err, errlen, errno, "cannot create a pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return errf(err, errlen, errno, "cannot fork: %s", strerror(errno));
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(cmd, quiet, self, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	t->go_w = go[1];
	t->err_r = ex[0];
	t->pid = pid;
	t->spawned = 1;
	t->pidfd = open_pidfd(pid);
	snprintf(t->comm, sizeof(t->comm), "%s", cmd[0]);
	return 0;
}

int target__release(struct target *t, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (t->go_w < 0)
		return 0;
	n = write(t->go_w, "g", 1);
	close(t->go_w);
	if (n == 1) {
		do
			n = read(t->err_r, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
	}
	close(t->err_r);
	t->go_w = t->err_r = -1;
	if (n == (ssize_t)sizeof(e) && e)
		return errf(err, errlen, e, "cannot run '%s': %s", t->comm, strerror(e));
	pidinfo__comm(t->pid, 0, t->comm, sizeof(t->comm));
	return 0;
}

int target__poll_exit(struct target *t)
{
	if (t->exited)
		return 1;
	if (t->spawned) {
		if (waitpid(t->pid, &t->status, WNOHANG) == t->pid)
			t->exited = 1;
		return t->exited;
	}
	if (t->pidfd >= 0) {
		struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

		t->exited = poll(&p, 1, 0) > 0;
	} else {
		t->exited = kill(t->pid, 0) && errno == ESRCH;
	}
	return t->exited;
}

void target__refresh_comm(struct target *t)
{
	char now[sizeof(t->comm)];

	if (!t->spawned || t->exited || t->go_w >= 0)
		return;
	if (!pidinfo__comm(t->pid, 0, now, sizeof(now)) && now[0])	/* kept when gone: its last name is the one to report */
		memcpy(t->comm, now, sizeof(now));
}

void target__stop(struct target *t)
{
	if (!t->spawned || t->exited)
		return;
	if (t->go_w >= 0) {
		close(t->go_w);	/* never released: the child sees EOF and exits */
		close(t->err_r);
		t->go_w = t->err_r = -1;
	} else if (waitpid(t->pid, &t->status, WNOHANG) == t->pid) {
		t->exited = 1;	/* ended by itself after the last poll */
		return;
	} else {
		kill(t->pid, SIGTERM);
		t->stopped = 1;
	}
	while (waitpid(t->pid, &t->status, 0) < 0 && errno == EINTR)
		;
	t->exited = 1;
}

int target__fate(const struct target *t, char *out, size_t outsz)
{
	int st = t->status;

	if (t->stopped && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) {
		snprintf(out, outsz, "was stopped by luatop (SIGTERM)");
		return 0;
	}
	if (WIFEXITED(st)) {
		snprintf(out, outsz, "exited with status %d", WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	if (WIFSIGNALED(st)) {
		snprintf(out, outsz, "was killed by signal %d (%s)%s", WTERMSIG(st),
			 strsignal(WTERMSIG(st)), WCOREDUMP(st) ? ", core dumped" : "");
		return 128 + WTERMSIG(st);
	}
	snprintf(out, outsz, "ended");
	return 0;
}

void target__close(struct target *t)
{
	target__stop(t);
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}
