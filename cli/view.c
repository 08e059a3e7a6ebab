/*
** Feeds for the live view. A session pumps samples from the sampler into
** the collector's call trees; a folded file is read once into one tree that
** stands for both merged and raw (a file holds one kind of stack). Stacks of
** a file rooted at "[fallback]" count as fallback samples.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "bpf/loader.h"
#include "collect/collect.h"
#include "cli/options.h"
#include "cli/session.h"
#include "cli/view.h"
#include "proc/pidinfo.h"
#include "profile/calltree.h"
#include "export/folded.h"
#include "export/pprof.h"
#include "export/output.h"
#include "merge/merge.h"
#include "profile/frames.h"
#include "profile/stacks.h"
#include "tui/tui.h"

#define EXIT_USAGE	2

/* The view's messages, once it has given the terminal back. */
static void say(int error, const char *msg)
{
	lt_log(error ? LT_LOG_ERROR : LT_LOG_INFO, "%s", msg);
}

/* The view's snapshots (s): folded stacks in a new file of the current directory. */
static int save(const struct tui_feed *f, const struct calltree *t, uint32_t top,
		enum ct_window w, int fallback_only, char *path, size_t pathsz, uint64_t *total)
{
	uint32_t fb_root = f->mark_fallback ? frametab__special(f->frames, SPECIAL_FALLBACK) :
			   UINT32_MAX;
	char stem[128];
	FILE *out;
	int fd, err;

	if (f->mark_fallback && fb_root == UINT32_MAX)
		return -ENOMEM;
	snprintf(stem, sizeof(stem), "luatop-%s", f->snapname);
	fd = output__create_stamped(stem, "folded", path, pathsz);
	if (fd < 0)
		return fd;
	out = fdopen(fd, "w");
	if (!out) {
		err = -errno;
		close(fd);
		unlink(path);
		return err;
	}
	err = folded__write_tree(out, f->frames, t, top, w, fallback_only, fb_root, total);
	if (fclose(out) && !err)
		err = -errno;
	if (err)
		unlink(path);
	return err;
}

/* -- A session ---------------------------------------------------------- */

/* Take the samples waiting in the ring buffer, without waiting for more. */
static int live_pump(void *ctx)
{
	struct session *s = ctx;

	session__pump(s, 0);
	return s->alloc_failed ? -ENOMEM : 0;
}

/* Sampler and collector statistics for the header. */
static void live_stats(void *ctx, struct tui_stats *st)
{
	struct session *s = ctx;
	const struct collector_stats *cs = collector__stats(s->collector);

	st->received = cs->samples;
	st->lost = session__lost(s);
	st->luajit = s->luajit;
	memcpy(st->vm, cs->vm_weight, sizeof(st->vm));
	uint64_t top = 0;

	st->fallback_why = NULL;
	for (int r = 0; r < MG_REASON__COUNT; r++)
		if (cs->fallback_why[r] > top) {
			top = cs->fallback_why[r];
			st->fallback_why = merge__reason_text(r);
		}
	st->trace_samples = cs->trace_samples;
	st->trace_mapped = cs->trace_mapped;
	st->trace_why = NULL;
	top = 0;
	for (int r = 0; r < LUATRACE_WHY__COUNT; r++)
		if (cs->trace_why[r] > top) {
			top = cs->trace_why[r];
			st->trace_why = luatrace__why_text(r);
		}
	st->exited = !session__alive(s);
	session__describe(s, s->who, sizeof(s->who));	/* a command may exec again */
	st->failed = s->alloc_failed;
}

/* The threads seen, with their comm (read now; "?" when gone), for the list. */
static size_t live_threads(void *ctx, struct tui_thread *out, size_t max)
{
	struct session *s = ctx;
	struct thread_info *ti = max ? calloc(max, sizeof(*ti)) : NULL;
	size_t n = collector__threads(s->collector, ti, ti ? max : 0);

	for (size_t i = 0; ti && i < n && i < max; i++) {
		out[i] = (struct tui_thread){ .tid = ti[i].tid, .pid = ti[i].pid,
					      .kept = ti[i].kept };
		memcpy(out[i].weight, ti[i].weight, sizeof(out[i].weight));
		if (pidinfo__comm((pid_t)ti[i].pid, (pid_t)ti[i].tid, out[i].comm,
				  sizeof(out[i].comm)))
			strcpy(out[i].comm, "?");
	}
	free(ti);
	return n;
}

static int live_keep_threads(void *ctx, const uint32_t *tids, size_t n)
{
	struct session *s = ctx;

	return collector__keep_threads(s->collector, tids, n);
}

/* The live view of a running session. */
int view__live(struct session *s)
{
	const struct options *o = s->opt;
	char pid[32];
	struct tui_feed f = {
		.who = s->who, .snapname = pid, .freq = o->freq, .live = 1,
		.delay = o->delay, .window = o->window, .raw = o->raw, .event = o->event,
		.some_threads = o->ntids > 0, .mark_fallback = o->mark_fallback,
		.frames = collector__frames(s->collector),
		.fd = sampler__fd(s->sampler), .pump = live_pump, .stats = live_stats, .ctx = s,
		.threads = live_threads, .keep_threads = live_keep_threads,
		.stop = s->stop, .say = say, .save = save,
	};

	session__describe(s, s->who, sizeof(s->who));
	snprintf(pid, sizeof(pid), "%d", s->ntargets ? (int)s->targets[0].pid : 0);
	for (int e = 0; e < EV__COUNT; e++)
		for (int v = 0; v < COLLECT_VIEW__COUNT; v++) {
			struct calltree *t = collector__tree(s->collector, (enum prof_event)e,
							     (enum collect_view)v);

			f.tree[e][v] = t;
			if (t && calltree__set_span(t, o->span, o->half_life)) {
				lt_log(LT_LOG_ERROR, "out of memory");
				return 1;
			}
		}
	return tui__run(&f);
}

/* -- A folded file ------------------------------------------------------ */

struct fill {
	struct calltree *t;
	const struct frametab *ft;
};

/* stacktab__foreach callback: one stack of the file into the tree. */
static int fill_stack(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	struct fill *fl = ctx;
	unsigned flags = n && frametab__is_special(fl->ft, frames[0], SPECIAL_FALLBACK) ?
			 CT_FALLBACK : 0;

	return calltree__add(fl->t, frames, n, count, 0, flags);
}

int view__load(const char *path, struct frametab *ft, struct stacktab *st)
{
	char err[256] = "";
	unsigned char magic[2];
	struct stat sb;
	size_t n;
	FILE *in = fopen(path, "re");
	int rc, pprof;

	if (!in || fstat(fileno(in), &sb)) {
		lt_log(LT_LOG_ERROR, "%s: %s", path, strerror(errno));
		if (in)
			fclose(in);
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		lt_log(LT_LOG_ERROR, "%s: is a directory, not a profile", path);
		fclose(in);
		return -1;
	}
	n = fread(magic, 1, sizeof(magic), in);
	pprof = pprof__sniff(magic, n) || options__format_of(path) == FORMAT_PPROF;
	rewind(in);
	rc = pprof ? pprof__read(in, ft, st, err, sizeof(err)) :
		     folded__read(in, ft, st, err, sizeof(err));
	if (rc)
		lt_log(LT_LOG_ERROR, "%s: %s", path, err[0] ? err : strerror(-rc));
	fclose(in);
	return rc ? -1 : 0;
}

/* luatop -i: read a folded file, then show it. */
int view__file(const struct options *o, volatile sig_atomic_t *stop)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(), *bst = stacktab__new();
	struct calltree *t = calltree__new(o->span, o->half_life);
	struct calltree *base = o->diff ? calltree__new(o->span, o->half_life) : NULL;
	int rc = 1;

	if (!ft || !st || !bst || !t || (o->diff && !base)) {
		lt_log(LT_LOG_ERROR, "out of memory");
		goto out;
	}
	if (view__load(o->input, ft, st) || (o->diff && view__load(o->diff, ft, bst)))
		goto out;
	if (stacktab__foreach(st, fill_stack, &(struct fill){ t, ft }) ||
	    (base && stacktab__foreach(bst, fill_stack, &(struct fill){ base, ft }))) {
		lt_log(LT_LOG_ERROR, "out of memory");
		goto out;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		lt_log(LT_LOG_ERROR, "the live view needs a terminal");
		rc = EXIT_USAGE;
		goto out;
	}
	rc = tui__run(&(struct tui_feed){
		.who = o->input, .snapname = "file", .delay = o->delay, .window = o->window,
		.base = base,
		.frames = ft, .tree = { [EV_CPU] = { t, t } }, .fd = -1, .stop = stop, .say = say, .save = save,
	});
out:
	calltree__delete(t);
	calltree__delete(base);
	stacktab__delete(bst);
	stacktab__delete(st);
	frametab__delete(ft);
	return rc;
}
