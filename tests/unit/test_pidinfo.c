/*
** /proc/PID/stat, status and comm: the stat line parsed from after the comm's
** last ')', whatever the comm holds; this process and its threads read back.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/pidinfo.h"

/* A stat line of a kernel 6.x, fields 3 to 22 and a few after. */
#define STAT_TAIL " S 41 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 123456 " \
		  "10000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

/* line parses into STAT_TAIL's fields. */
static void expect_tail_fields(const char *line)
{
	struct pidstat st;

	cr_assert_eq(pidinfo__parse_stat(line, &st), 0, "%s", line);
	cr_assert_eq(st.state, 'S');
	cr_assert_eq(st.ppid, 41);
	cr_assert_eq(st.flags, 4194560ul);
	cr_assert_eq(st.start, 123456u);
	cr_assert_eq(st.flags & PIDINFO_PF_KTHREAD, 0);
}

Test(pidinfo, stat_fields)
{
	expect_tail_fields("7 (luajit)" STAT_TAIL);
}

/* A comm may be set to anything up to 15 bytes: ") Z 1 (" must not pass for
** the fields. */
Test(pidinfo, stat_comm_with_parens_and_spaces)
{
	expect_tail_fields("7 (a) Z 1 (b c)" STAT_TAIL);
	expect_tail_fields("7 ())))" STAT_TAIL);
}

Test(pidinfo, stat_refused)
{
	struct pidstat st;

	cr_assert_eq(pidinfo__parse_stat("", &st), -EINVAL);
	cr_assert_eq(pidinfo__parse_stat("7 (luajit S 41", &st), -EINVAL);
	cr_assert_eq(pidinfo__parse_stat("7 (luajit) S 41 42", &st), -EINVAL);
	cr_assert_eq(pidinfo__parse_stat("7 (luajit) S x 42 42 0 -1 1 0 0 0 0 0 0 0 0 0 0 0 0 5",
					 &st), -EINVAL);
}

Test(pidinfo, this_process)
{
	struct pidstat st;
	pid_t tgid = 0;

	cr_assert_eq(pidinfo__stat(getpid(), &st), 0);
	cr_assert_eq(st.ppid, getppid());
	cr_assert_eq(st.state, 'R');
	cr_assert_gt(st.start, 0);
	cr_assert_eq(pidinfo__tgid(getpid(), &tgid), 0);
	cr_assert_eq(tgid, getpid());
}

static pthread_barrier_t named, checked;
static pid_t worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "pidinfo-\x1b[2J");	/* raw bytes, as a target may set */
	worker_tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&named);
	pthread_barrier_wait(&checked);
	return NULL;
}

Test(pidinfo, thread_comm_and_group)
{
	pthread_t t;
	char comm[32];
	pid_t tgid = 0;

	pthread_barrier_init(&named, NULL, 2);
	pthread_barrier_init(&checked, NULL, 2);
	cr_assert_eq(pthread_create(&t, NULL, worker, NULL), 0);
	pthread_barrier_wait(&named);
	cr_assert_eq(pidinfo__comm(getpid(), worker_tid, comm, sizeof(comm)), 0);
	cr_assert_str_eq(comm, "pidinfo-\x1b[2J");	/* sanitizing is the caller's */
	cr_assert_eq(pidinfo__tgid(worker_tid, &tgid), 0);
	cr_assert_eq(tgid, getpid());
	cr_assert_eq(pidinfo__comm(getpid(), 0, comm, 4), 0);	/* cut to fit */
	cr_assert_eq(strlen(comm), 3);
	pthread_barrier_wait(&checked);
	pthread_join(t, NULL);
}

Test(pidinfo, gone)
{
	char comm[16] = "x";
	struct pidstat st;

	cr_assert_lt(pidinfo__comm(0x3ffffff0, 0, comm, sizeof(comm)), 0);
	cr_assert_str_eq(comm, "");
	cr_assert_eq(pidinfo__stat(0x3ffffff0, &st), -ENOENT);
}
