/*
** Session helpers shared by batch mode and the live view.
*/
#include <stdio.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "bpf/loader.h"
#include "bpf/tables.h"
#include "collect/collect.h"
#include "lua/detect.h"
#include "cli/scan.h"
#include "cli/session.h"
#include "proc/model.h"

/*
** Tell the collector each target's LuaJIT build as soon as the sampler's
** tables know it: a spawned program or a host loads its LuaJIT after luatop
** started, and trace lookups and Lua names need the build's offsets.
*/
static void learn_luajit(struct session *s)
{
	if (!s->sampler || !s->collector)
		return;
	for (unsigned i = 0; i < s->ntargets && i < OPT_MAX_PIDS; i++) {
		struct target *t = &s->targets[i];
		const char *path = NULL;
		const struct luabuild *lj;

		if (s->vm_known[i])
			continue;
		lj = tables__luajit(sampler__tables(s->sampler), t->pid, &path);
		if (!lj || !lj->supported)
			continue;
		collector__set_luajit(s->collector, t->pid, lj);
		snprintf(s->luajit_buf, sizeof(s->luajit_buf), "%s%s GC64",
			 lj->version[0] ? lj->version : "LuaJIT 2.1",
			 lj->openresty ? " (OpenResty)" : "");
		s->luajit = s->luajit_buf;
		s->vm_known[i] = 1;
	}
}

uint64_t session__wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int session__pump(struct session *s, int timeout_ms)
{
	int rc;

	if (!s->sampler)
		return 0;
	if ((rc = sampler__wait(s->sampler, timeout_ms)) < 0)
		return rc;
	/* Every sample waiting now was taken before now (bpf_ktime_get_ns is
	** CLOCK_MONOTONIC): what the collector checks from here on is newer. */
	collector__epoch(s->collector, clock__mono_ns());
	rc = sampler__consume(s->sampler);
	learn_luajit(s);
	session__follow(s);
	return rc;
}

unsigned session__alive(struct session *s)
{
	unsigned alive = 0;

	for (unsigned i = 0; i < s->ntargets; i++) {
		alive += !target__poll_exit(&s->targets[i]);
		target__refresh_comm(&s->targets[i]);
	}
	return s->opt->all ? 1 : alive;	/* --all waits for processes to come */
}

/* --all, --children: start profiling pid (found running LuaJIT, or a child). */
static void join(pid_t pid, void *ctx)
{
	struct session *s = ctx;
	struct target *t = &s->targets[s->ntargets];
	char err[256];

	if (s->ntargets == OPT_MAX_PIDS) {
		if (!s->full_warned++)
			lt_log(LT_LOG_WARN, "%s: %d processes already: PID %d and later ones are "
			       "not profiled", s->opt->all ? "--all" : "--children", OPT_MAX_PIDS,
			       (int)pid);
		return;
	}
	if (target__check(pid, t, err, sizeof(err)))
		return;	/* gone already, or not ours to trace */
	if (tables__add_target(sampler__tables(s->sampler), t->pid)) {
		target__close(t);
		return;
	}
	collector__set_process_name(s->collector, t->pid, t->comm);
	s->vm_known[s->ntargets] = s->vm_noticed[s->ntargets] = 0;
	s->gone[s->ntargets] = 0;
	s->ntargets++;
	lt_log(LT_LOG_DEBUG, "%s: profiling PID %d (%s)", s->opt->all ? "--all" : "--children",
	       (int)t->pid, t->comm);
}

/* --all: forget target i, which exited a look ago (its last samples are in). */
static void drop(struct session *s, unsigned i)
{
	struct target *t = &s->targets[i];
	unsigned last = s->ntargets - 1;

	tables__remove_target(sampler__tables(s->sampler), t->pid);
	collector__forget(s->collector, t->pid);
	tmodel__forget(s->model, t->pid);
	target__close(t);
	s->targets[i] = s->targets[last];
	s->vm_known[i] = s->vm_known[last];
	s->vm_noticed[i] = s->vm_noticed[last];
	s->gone[i] = s->gone[last];
	s->ntargets--;
}

void session__follow(struct session *s)
{
	pid_t skip[OPT_MAX_PIDS];
	uint64_t now = clock__mono_ns();

	if (!(s->opt->all || s->opt->children) || !s->sampler || !s->scan ||
	    now < s->scan->next_ns)
		return;
	s->scan->next_ns = now + SESSION_SCAN_NS;
	if (now >= s->scan->forget_ns) {	/* a process may load LuaJIT later */
		s->scan->nseen = 0;
		s->scan->forget_ns = now + SESSION_RESCAN_NS;
	}
	for (unsigned i = s->ntargets; i-- > 0;) {
		if (s->gone[i])
			drop(s, i);
		else if (target__poll_exit(&s->targets[i]))
			s->gone[i] = 1;
	}
	for (unsigned i = 0; i < s->ntargets; i++)
		skip[i] = s->targets[i].pid;
	if (s->opt->children)
		scan__children(s->scan, s->opt->pids, s->opt->npids, skip,
			       s->ntargets, join, s);
	else
		scan__luajit(s->scan, s->model, skip, s->ntargets, join, s);
}

uint64_t session__lost(const struct session *s)
{
	return s->sampler ? sampler__dropped(s->sampler) : 0;
}

void session__describe(const struct session *s, char *out, size_t outsz)
{
	if (s->opt->all)
		snprintf(out, outsz, "all LuaJIT processes");	/* they come and go */
	else if (s->ntargets == 1)
		snprintf(out, outsz, "PID %d (%s)", (int)s->targets[0].pid, s->targets[0].comm);
	else
		snprintf(out, outsz, "%u processes", s->ntargets);
}

/* The notice for one target: 0 when there is nothing to say yet. */
static int notice_of(struct session *s, unsigned i, char *msg, size_t len)
{
	struct target *t = &s->targets[i];
	const char *path = NULL;
	const struct luabuild *lj = tables__luajit(sampler__tables(s->sampler), t->pid, &path);

	learn_luajit(s);
	if (s->vm_known[i])
		return 0;
	if (lj) {
		snprintf(msg, len, "PID %d (%s): %s in %s: profiling native code only",
			 (int)t->pid, t->comm, lj->why[0] ? lj->why : "unsupported LuaJIT build",
			 path ? path : "?");
		s->luajit = "unsupported LuaJIT";
	} else {
		snprintf(msg, len, "PID %d (%s) does not run LuaJIT: profiling native "
			 "code only", (int)t->pid, t->comm);
		s->luajit = "native only";
	}
	return 1;
}

void session__luajit_notice(struct session *s, int quiet, int final)
{
	char msg[512];

	if (!s->sampler)
		return;
	for (unsigned i = 0; i < s->ntargets && i < OPT_MAX_PIDS; i++) {
		if (s->vm_noticed[i] || (s->targets[i].spawned && !final))
			continue;
		if (notice_of(s, i, msg, sizeof(msg)) && !quiet)
			lt_log(LT_LOG_WARN, "%s", msg);
		s->vm_noticed[i] = 1;
	}
}
