/*
** Writing profiles: -o, --every's intervals, conversions.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "cli/interval.h"
#include "cli/view.h"
#include "cli/writer.h"
#include "collect/collect.h"
#include "collect/labels.h"
#include "merge/merge.h"
#include "profile/vm.h"
#include "export/folded.h"
#include "export/output.h"
#include "export/pprof.h"
#include "profile/frames.h"
#include "profile/stacks.h"

#define CUT_SLACK_NS	50000000u	/* --every: samples arrive within this of their time */

/* Write one profile's frames and stacks in -o's format; 0 or -errno, said. */
static int write_stacks(const struct options *o, struct output_file *out,
			const struct frametab *ft, const struct stacktab *st,
			const struct pprof_meta *meta)
{
	char err[512];
	int rc = o->format == FORMAT_PPROF ? pprof__write(out->f, ft, st, meta) :
		 folded__write(out->f, ft, st);

	if (rc) {
		output__discard(out);
		lt_log(LT_LOG_ERROR, "cannot write %s: %s", out->path, strerror(-rc));
	} else if ((rc = output__commit(out, err, sizeof(err)))) {
		lt_log(LT_LOG_ERROR, "%s", err);
	}
	return rc;
}

int writer__convert(const struct options *o)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	struct pprof_meta meta = { .freq = o->freq };
	struct output_file out = { .f = NULL };
	char err[512];
	int rc = 1;

	if (!ft || !st)
		lt_log(LT_LOG_ERROR, "out of memory");
	else if (output__open(o->output, &out, err, sizeof(err)))
		lt_log(LT_LOG_ERROR, "%s", err);
	else if (!view__load(o->input, ft, st) && !write_stacks(o, &out, ft, st, &meta))
		rc = 0;
	output__discard(&out);
	stacktab__delete(st);
	frametab__delete(ft);
	return rc;
}

/* Sample labels of the pprof export, from a collector's label set. */
static unsigned pprof_labels(uint32_t id, struct pprof_label *out, void *ctx)
{
	static const char *const vm_names[VM_STATE__COUNT] = {
		[VM_JIT] = "JIT", [VM_INTERP] = "interpreted", [VM_C] = "C",
		[VM_GC] = "GC", [VM_COMPILER] = "compiler",
	};
	const struct collect_labels *l = collector__label_set(ctx, id);
	unsigned n = 0;

	if (!l)
		return 0;
	out[n++] = (struct pprof_label){ .key = "process_id", .num = l->pid };
	out[n++] = (struct pprof_label){ .key = "thread_id", .num = l->tid };
	if (l->vm >= 0 && l->vm < VM_STATE__COUNT)
		out[n++] = (struct pprof_label){ .key = "vm_state", .str = vm_names[l->vm] };
	if (l->merge == COLLECT_MERGE_OK)
		out[n++] = (struct pprof_label){ .key = "merge", .str = "merged" };
	if (l->merge == COLLECT_MERGE_FALLBACK) {
		out[n++] = (struct pprof_label){ .key = "merge", .str = "fallback" };
		out[n++] = (struct pprof_label){ .key = "fallback_reason",
						 .str = merge__reason_text(l->reason) };
	}
	return n;
}

/* The mapping and address of a native frame, for the pprof export. */
static int pprof_site(uint32_t frame, struct pprof_site *out, void *ctx)
{
	const struct collect_site *st = collector__site(ctx, frame);

	if (!st)
		return 0;
	*out = (struct pprof_site){ .path = st->path, .build_id = st->build_id,
				    .start = st->start, .limit = st->limit,
				    .offset = st->offset, .addr = st->addr };
	return 1;
}

/* The wall-clock time of a CLOCK_MONOTONIC time of this run. */
static uint64_t wall_of(const struct session *s, uint64_t mono)
{
	return s->start_wall_ns + (mono - s->start_ns);
}

/* --every: open the file of the interval that starts at s->cut_start_ns, under
** the first name of the pattern that nothing has. 0, or -1 with the reason said. */
static int open_interval(struct session *s)
{
	time_t t = (time_t)(wall_of(s, s->cut_start_ns) / 1000000000u);
	char err[512];
	int rc = -EEXIST;

	for (int try = 1; try < INTERVAL_TRIES && rc == -EEXIST; try++) {
		if (interval__name(s->opt->output, t, try, s->out_name, sizeof(s->out_name))) {
			lt_log(LT_LOG_ERROR, "--every: the name of -o is too long");
			return -1;
		}
		rc = output__open_new(s->out_name, &s->out, err, sizeof(err));
	}
	if (rc == -EEXIST)
		lt_log(LT_LOG_ERROR, "%s: every name for this interval is taken", s->out_name);
	else if (rc)
		lt_log(LT_LOG_ERROR, "%s", err);
	return rc ? -1 : 0;
}

/* Write what was sampled since the last cut (or the start) to the -o file
** opened for it; 0 or -errno, said. */
static int write_profile(struct session *s, uint64_t end_ns)
{
	enum collect_view v = s->opt->raw ? COLLECT_RAW : COLLECT_MERGED;
	struct stacktab *st = collector__stacks(s->collector, s->opt->event, v);
	struct stacktab *labelled = collector__labelled(s->collector, s->opt->event, v);
	struct pprof_meta meta = {
		.freq = s->opt->freq,
		.event = s->opt->event,
		.time_ns = wall_of(s, s->cut_start_ns),
		.duration_ns = end_ns - s->cut_start_ns,
		.labels = labelled ? pprof_labels : NULL,
		.labels_ctx = s->collector,
		.site = pprof_site,
		.site_ctx = s->collector,
	};
	uint64_t n = stacktab__total(st);
	int rc = write_stacks(s->opt, &s->out, collector__frames(s->collector),
			      s->opt->format == FORMAT_PPROF && labelled ? labelled : st, &meta);

	if (!rc && s->opt->every)
		lt_log(LT_LOG_INFO, "%llu %s written to %s", (unsigned long long)n,
		       prof_event__timed(s->opt->event) ? "us" : "samples", s->out.path);
	s->written_samples += rc ? 0 : n;
	s->files += !rc;
	return rc;
}

/* --every: the interval ends at s->cut_ns; write it and begin the next. */
static int cut_interval(struct session *s)
{
	uint64_t end = s->cut_ns;

	if (write_profile(s, end))
		return -1;
	collector__cut(s->collector);
	s->cut_start_ns = end;
	s->cut_ns = end + (uint64_t)(s->opt->every * 1e9);
	return open_interval(s);
}

/* Is an interval due to end before the run does? */
static int cut_due(const struct session *s, uint64_t t)
{
	return s->opt->every && t > s->cut_ns && (!s->end_ns || s->cut_ns < s->end_ns);
}


int writer__open(struct session *s)
{
	const struct options *o = s->opt;
	char err[512];

	s->cut_start_ns = s->start_ns;
	s->cut_ns = s->start_ns + (uint64_t)(o->every * 1e9);
	if (!o->output)
		return 0;
	if (o->format == FORMAT_PPROF && collector__set_labels(s->collector, 1)) {
		lt_log(LT_LOG_ERROR, "out of memory");
		return -1;
	}
	if (o->every)
		return open_interval(s);
	if (output__open(o->output, &s->out, err, sizeof(err))) {
		lt_log(LT_LOG_ERROR, "%s", err);
		return -1;
	}
	return 0;
}

int writer__before(struct session *s, uint64_t t)
{
	while (cut_due(s, t))
		if (cut_interval(s))
			return s->out_failed = -1;
	return 0;
}

int writer__tick(struct session *s)
{
	if (!cut_due(s, clock__mono_ns() - CUT_SLACK_NS))
		return 0;
	session__pump(s, 0);
	return writer__before(s, clock__mono_ns() - CUT_SLACK_NS);
}

int writer__finish(struct session *s, uint64_t end_ns)
{
	if (s->out_failed)
		return -1;
	if (writer__before(s, end_ns))
		return -1;
	s->written = !write_profile(s, end_ns);
	return s->written ? 0 : -1;
}
