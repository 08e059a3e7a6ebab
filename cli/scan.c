/*
** Finding LuaJIT processes for --all.
*/
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/scan.h"
#include "lua/detect.h"
#include "proc/model.h"
#include "proc/pidinfo.h"
#include "proc/procmaps.h"

/* The start time of pid (clock ticks since boot, /proc/PID/stat field 22),
** 0 if unknown; whether it is a kernel thread (flags field 9), and its parent
** (field 4; ppid may be NULL). */
static uint64_t stat_of(pid_t pid, int *kthread, pid_t *ppid)
{
	struct pidstat st;

	*kthread = 0;
	if (pidinfo__stat(pid, &st))
		return 0;
	*kthread = !!(st.flags & PIDINFO_PF_KTHREAD);
	if (ppid)
		*ppid = st.ppid;
	return st.start;
}

/* Remember pid (started at start) as looked at; the oldest half goes when full. */
static void remember(struct scan *sc, pid_t pid, uint64_t start)
{
	if (sc->nseen == SCAN_MAX) {
		memmove(sc->seen, sc->seen + SCAN_MAX / 2, (SCAN_MAX / 2) * sizeof(sc->seen[0]));
		sc->nseen = SCAN_MAX / 2;
	}
	sc->seen[sc->nseen].pid = pid;
	sc->seen[sc->nseen++].start = start;
}

static int seen(const struct scan *sc, pid_t pid, uint64_t start)
{
	for (unsigned i = 0; i < sc->nseen; i++)
		if (sc->seen[i].pid == pid && sc->seen[i].start == start)
			return 1;
	return 0;
}

/* Does pid map a file with a LuaJIT VM in it? */
static int runs_luajit(struct tmodel *model, pid_t pid)
{
	struct tproc *tp = tmodel__proc(model, pid);
	const struct procmaps *pm = tp ? tproc__maps(tp) : NULL;

	for (size_t i = 0; pm && i < pm->n; i++) {
		const struct luabuild *lj;
		struct tfile *f;

		if (!pm->maps[i].exec || !pm->maps[i].path[0] || pm->maps[i].path[0] == '[')
			continue;
		f = tproc__file(tp, i);
		lj = f ? luabuild__of_file(f) : NULL;
		if (lj && lj->found)
			return 1;
	}
	return 0;
}

void scan__luajit(struct scan *sc, struct tmodel *model, const pid_t *skip, unsigned nskip,
		  void (*found)(pid_t pid, void *ctx), void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();

	while (d && (e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		pid_t pid = (pid_t)v;
		uint64_t start;
		int kthread, skipped = pid == self;

		if (*end || v <= 0 || v > INT32_MAX || !isdigit((unsigned char)e->d_name[0]))
			continue;
		for (unsigned i = 0; i < nskip && !skipped; i++)
			skipped = skip[i] == pid;
		start = stat_of(pid, &kthread, NULL);
		if (skipped || !start || seen(sc, pid, start))
			continue;
		if (!kthread && runs_luajit(model, pid)) {
			found(pid, ctx);
			continue;
		}
		tmodel__forget(model, pid);
		remember(sc, pid, start);
	}
	if (d)
		closedir(d);
}

/* Is pid a descendant of one of roots[0..n)? (Its parents, at most 64 up.) */
static int descends(pid_t pid, const int *roots, unsigned n)
{
	int kthread;

	for (int up = 0; up < 64 && pid > 1; up++) {
		pid_t parent = 0;

		if (!stat_of(pid, &kthread, &parent) || kthread)
			return 0;
		for (unsigned i = 0; i < n; i++)
			if (parent == roots[i])
				return 1;
		pid = parent;
	}
	return 0;
}

void scan__children(struct scan *sc, const int *roots, unsigned nroots, const pid_t *skip,
		    unsigned nskip, void (*found)(pid_t pid, void *ctx), void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		pid_t pid = (pid_t)v;
		uint64_t start;
		int kthread, skipped = 0;

		if (*end || v <= 1 || v > INT32_MAX || !isdigit((unsigned char)e->d_name[0]))
			continue;
		for (unsigned i = 0; i < nskip && !skipped; i++)
			skipped = skip[i] == pid;
		start = stat_of(pid, &kthread, NULL);
		if (skipped || !start || kthread || seen(sc, pid, start))
			continue;
		if (descends(pid, roots, nroots))
			found(pid, ctx);
		else	/* not one now: a process only leaves a family (reparented) */
			remember(sc, pid, start);
	}
	if (d)
		closedir(d);
}
