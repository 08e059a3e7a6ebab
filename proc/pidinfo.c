/*
** /proc/PID/stat, status and comm: each read in one system call (they are a
** few hundred bytes, proc/readfile.h) and parsed here only.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/pidinfo.h"
#include "proc/readfile.h"

int pidinfo__parse_stat(const char *line, struct pidstat *st)
{
	const char *p = strrchr(line, ')');
	unsigned long long start;
	int ppid;

	/* state ppid pgrp session tty_nr tpgid flags, 6 unsigned counters and
	** times, 6 signed (cutime cstime priority nice num_threads itrealvalue),
	** starttime. */
	if (!p || sscanf(p + 1, " %c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u"
			 " %*d %*d %*d %*d %*d %*d %llu", &st->state, &ppid, &st->flags,
			 &start) != 4)
		return -EINVAL;
	st->ppid = (pid_t)ppid;
	st->start = start;
	return 0;
}

int pidinfo__stat(pid_t pid, struct pidstat *st)
{
	char path[64], buf[2048];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = readfile__into(path, buf, sizeof(buf));
	return n < 0 ? (int)n : pidinfo__parse_stat(buf, st);
}

int pidinfo__tgid(pid_t pid, pid_t *tgid)
{
	char path[64], buf[2048], *p, *end;
	ssize_t n;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((n = readfile__into(path, buf, sizeof(buf))) < 0)
		return (int)n;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EINVAL;
	v = strtol(p + 6, &end, 10);
	if (end == p + 6 || v <= 0 || v > INT32_MAX)
		return -EINVAL;
	*tgid = (pid_t)v;
	return 0;
}

int pidinfo__comm(pid_t pid, pid_t tid, char *out, size_t outsz)
{
	char path[64];
	ssize_t n;

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	n = readfile__into(path, out, outsz);
	if (n < 0) {
		out[0] = '\0';
		return (int)n;
	}
	out[strcspn(out, "\n")] = '\0';
	return 0;
}
