/*
** luatop: live CPU profiler for LuaJIT programs.
** main: options -> targets -> sampler -> batch output or live view -> cleanup;
** or, with -i FILE, a saved profile in the live view.
*/
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "base/clock.h"
#include "base/log.h"
#include "bpf/loader.h"
#include "bpf/tables.h"
#include "cli/capture.h"
#include "cli/kstack.h"
#include "cli/record.h"
#include "cli/scan.h"
#include "collect/collect.h"
#include "merge/merge.h"
#include "cli/options.h"
#include "cli/session.h"
#include "cli/signals.h"
#include "cli/view.h"
#include "cli/writer.h"
#include "export/folded.h"
#include "export/output.h"
#include "export/pprof.h"
#include "profile/stacks.h"
#include "proc/model.h"
#include "symbolize/kallsyms.h"

#define READER_NICE	(-20)	/* the reader's priority as root (raise_priority) */
#define EXIT_USAGE	2
#define MIN_KERNEL	"5.17"

static volatile sig_atomic_t stop_requested;

static int die(int code, const char *msg)
{
	lt_log(LT_LOG_ERROR, "%s", msg);
	return code;
}

/* bpf_loop (the unwinder's driver) arrived in 5.17, bpf_task_pt_regs in 5.15,
** ring buffers in 5.8: say so instead of failing in the verifier. */
static int check_kernel(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	if (major > 5 || (major == 5 && minor >= 17))
		return 0;
	lt_log(LT_LOG_ERROR, "Linux %s is too old: luatop needs Linux " MIN_KERNEL
	       " or later (bpf_loop)", u.release);
	return -1;
}

static void count_ingest(struct session *s, uint64_t ns)
{
	uint64_t b = ns / SESSION_INGEST_NS;

	s->ingest_ns += ns;
	s->ingested++;
	s->ingest_hist[b < SESSION_INGEST_BUCKETS ? b : SESSION_INGEST_BUCKETS - 1]++;
}

/* The share q of ingest times was at most this many microseconds. */
static double ingest_quantile(const struct session *s, double q)
{
	uint64_t want = (uint64_t)(q * (double)s->ingested), seen = 0;

	for (unsigned b = 0; b < SESSION_INGEST_BUCKETS; b++) {
		seen += s->ingest_hist[b];
		if (seen > want)
			return (b + 1) * SESSION_INGEST_NS / 1e3;
	}
	return SESSION_INGEST_BUCKETS * SESSION_INGEST_NS / 1e3;
}

static int on_sample(const struct lt_sample *smp, void *ctx)
{
	struct session *s = ctx;
	uint64_t t0;
	int rc;

	/* A command's samples before its exec are luatop's fork (sampler__before_exec). */
	if (sampler__before_exec(s->sampler, smp->tgid, smp->time_ns)) {
		s->pre_exec++;
		return 0;
	}
	/* --duration is the wall-clock span of sampling: what was taken after its end
	** is not counted, and the drain stops there so the main loop ends on time. */
	if (s->end_ns && smp->time_ns > s->end_ns) {
		s->late++;
		return s->draining ? 0 : -1;
	}
	/* --every: a sample of the next interval closes this one. */
	if (writer__before(s, smp->time_ns))
		return -1;
	if (s->record && !s->record_failed) {
		rc = record__write(s->record, smp);
		if (rc) {
			lt_log(LT_LOG_ERROR, "cannot write to %s: %s", s->opt->record, strerror(-rc));
			s->record_failed = 1;
		}
		s->recorded += !rc;
	}
	t0 = clock__mono_ns();
	rc = collector__add(s->collector, smp);
	count_ingest(s, clock__mono_ns() - t0);
	if (rc) {
		s->alloc_failed = 1;
		return 1;
	}
	return 0;
}

static int on_capture(const struct lt_capture *c, void *ctx)
{
	struct session *s = ctx;
	int rc = capture__write(s->opt->capture, sampler__tables(s->sampler), c,
				&s->captured);

	if (rc && !s->capture_failed) {
		lt_log(LT_LOG_ERROR, "cannot write a fixture to %s: %s", s->opt->capture,
		       strerror(-rc));
		s->capture_failed = 1;
	}
	return 0;
}

static int has_target(const struct session *s, pid_t pid)
{
	for (unsigned i = 0; i < s->ntargets; i++)
		if (s->targets[i].pid == pid)
			return 1;
	return 0;
}

/* Is tid a thread of one of the targets? */
static int thread_of_targets(const struct session *s, int tid)
{
	char path[64];

	for (unsigned i = 0; i < s->ntargets; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)s->targets[i].pid, tid);
		if (!access(path, F_OK))
			return 1;
	}
	return 0;
}

/* --tid: each thread is one of the -p processes', or its process becomes a
** target; only their samples are profiled. */
static int setup_threads(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->opt;
	uint32_t tids[OPT_MAX_PIDS];

	for (unsigned i = 0; i < o->ntids; i++) {
		struct target *t = &s->targets[s->ntargets];
		int rc;

		tids[i] = (uint32_t)o->tids[i];
		if (o->npids) {
			if (thread_of_targets(s, o->tids[i]))
				continue;
			snprintf(err, errlen, "TID %d is not a thread of %s", o->tids[i],
				 o->npids == 1 ? "that process" : "those processes");
			return -ESRCH;
		}
		if ((rc = target__check(o->tids[i], t, err, errlen)))
			return rc;
		if (has_target(s, t->pid))
			target__close(t);
		else
			s->ntargets++;
	}
	return o->ntids && collector__keep_threads(s->collector, tids, o->ntids) ?
	       -(errno = ENOMEM) : 0;
}

static int setup_targets(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->opt;

	if (o->cmd) {
		s->ntargets = 1;
		return target__spawn(o->cmd, !o->output, &s->targets[0], err, errlen);
	}
	if (o->all) {	/* targets join once the sampler runs (session__follow) */
		s->scan = calloc(1, sizeof(*s->scan));
		return s->scan ? 0 : -(errno = ENOMEM);
	}
	if (o->children && !(s->scan = calloc(1, sizeof(*s->scan))))
		return -(errno = ENOMEM);	/* children join as they are found */
	for (unsigned i = 0; i < o->npids; i++) {
		struct target *t = &s->targets[s->ntargets];
		int rc = target__check(o->pids[i], t, err, errlen);

		if (rc)
			return rc;
		if (t->tid)
			lt_log(LT_LOG_INFO, "%d is a thread of PID %d (%s): profiling the process",
			       (int)t->tid, (int)t->pid, t->comm);
		if (has_target(s, t->pid))
			target__close(t);	/* -p 7,7 or a process and its thread */
		else if (o->children && collector__set_process_name(s->collector, t->pid, t->comm))
			return -(errno = ENOMEM);
		else
			s->ntargets++;
	}
	return setup_threads(s, err, errlen);
}

static int start_sampler(struct session *s, char *err, size_t errlen)
{
	int pids[OPT_MAX_PIDS];
	struct sampler_opts so = {
		.freq = s->opt->freq,
		.model = s->model,
		.pids = pids,
		.npids = s->ntargets,
		.capture_every = s->opt->capture ? CAPTURE_EVERY : 0,
		.offcpu = prof_event__timed(s->opt->event),
		.min_block_ns = s->opt->min_block_ns,
		.exec_pid = s->opt->cmd ? s->targets[0].pid : 0,
		.on_sample = on_sample,
		.on_capture = on_capture,
		.ctx = s,
	};

	for (unsigned i = 0; i < s->ntargets; i++)
		pids[i] = s->targets[i].pid;
	so.korc = s->korc;
	return sampler__open(&so, &s->sampler, err, errlen);
}

/* Batch mode: sample until the duration ends, the targets exit or a signal. */
static void run_batch(struct session *s)
{
	while (!*s->stop && !s->alloc_failed) {
		int timeout = 100;

		if (s->end_ns) {
			uint64_t now = clock__mono_ns();

			if (now >= s->end_ns)
				break;
			if (s->end_ns - now < 100000000u)
				timeout = (int)((s->end_ns - now) / 1000000u) + 1;
		}
		session__pump(s, timeout);
		if (s->out_failed || !session__alive(s))
			break;
		if (writer__tick(s))
			break;
	}
}

/*
** As root, run the reader at nice -20 (as `perf record` users do with nice or
** -r): with more busy threads than CPUs it would otherwise wait its turn while
** the ring fills, and take seconds to load the sampler. Called after a command
** was forked, so that it keeps its own priority.
*/
static void raise_priority(void)
{
	errno = 0;
	int cur = getpriority(PRIO_PROCESS, 0);

	if (errno || cur <= READER_NICE)
		return;
	if (setpriority(PRIO_PROCESS, 0, READER_NICE))
		lt_log(LT_LOG_DEBUG, "cannot raise the reader's priority: %s", strerror(errno));
}

/* How many user stacks were unwound to their outermost frame, and why not. */
static void report_unwind(const struct collector_stats *st)
{
	uint64_t done = st->stop[LT_STOP_COMPLETE];
	char fp[64] = "";

	if (st->fp_used)
		snprintf(fp, sizeof(fp), ", %.1f%% used the frame-pointer fallback",
			 100.0 * st->fp_used / st->samples);
	lt_log(LT_LOG_INFO, "user stacks complete in %.1f%% of samples%s",
	       100.0 * done / st->samples, fp);
	for (unsigned r = 0; r < LT_STOP__COUNT; r++)
		if (r != LT_STOP_COMPLETE && st->stop[r])
			lt_log(LT_LOG_INFO, "  %6.2f%% %s", 100.0 * st->stop[r] / st->samples,
			       collector__stop_text(r));
}

/* How many samples of LuaJIT processes merged, and why the others did not. */
static void report_merge(const struct collector_stats *st)
{
	char with[96] = "";

	if (!st->lua_samples)
		return;
	if (st->with_lua)
		snprintf(with, sizeof(with), "; %.1f%% of the %llu samples with Lua frames",
			 100.0 * (st->with_lua - st->with_lua_fallback) / st->with_lua,
			 (unsigned long long)st->with_lua);
	lt_log(LT_LOG_INFO, "%.1f%% of LuaJIT samples merged, %llu fallback stacks%s",
	       100.0 * (st->lua_samples - st->fallback) / st->lua_samples,
	       (unsigned long long)st->fallback, with);
	for (int r = 0; r < MG_REASON__COUNT; r++)
		if (st->fallback_why[r])
			lt_log(LT_LOG_INFO, "  %6.2f%% %s",
			       100.0 * st->fallback_why[r] / st->lua_samples, merge__reason_text(r));
	if (st->merged_window)
		lt_log(LT_LOG_INFO, "  %6.2f%% merged in a call or return between C and the VM",
		       100.0 * st->merged_window / st->lua_samples);
}

/* How many samples in JIT traces were mapped to their snapshot, why not, and
** (-v) what the trace cache did for them. */
static void report_trace_mapping(const struct collector *c, const struct collector_stats *st)
{
	struct luatraces_stats ts;

	lt_log(LT_LOG_INFO, "%.1f%% of the %llu samples in JIT traces mapped to their "
	       "snapshot, %.1f%% with inlined frames",
	       100.0 * st->trace_mapped / st->trace_samples, (unsigned long long)st->trace_samples,
	       100.0 * st->trace_inlined / st->trace_samples);
	for (int r = 0; r < LUATRACE_WHY__COUNT; r++)
		if (st->trace_why[r])
			lt_log(LT_LOG_INFO, "  %6.2f%% %s", 100.0 * st->trace_why[r] / st->trace_samples,
			       luatrace__why_text(r));
	collector__trace_cache(c, &ts);
	lt_log(LT_LOG_DEBUG, "trace cache: %llu lookups, %llu traces decoded, %llu searches "
	       "of J->trace, %llu restarts", (unsigned long long)ts.lookups,
	       (unsigned long long)ts.loads, (unsigned long long)ts.scans,
	       (unsigned long long)ts.restarts);
}

/* The samples in JIT traces, and the ones as a trace left for the interpreter. */
static void report_traces(const struct collector *c)
{
	const struct collector_stats *st = collector__stats(c);

	if (st->trace_samples)
		report_trace_mapping(c, st);
	if (st->trace_left)
		lt_log(LT_LOG_INFO, "%llu samples as a trace left for the interpreter "
		       "(vm_exit_interp): the walk's Lua frames", (unsigned long long)st->trace_left);
}

/* With -v: how often the target model read maps, files and vDSOs. */
static void report_model(const struct session *s)
{
	const struct tfiles_stats *fs = tfiles__stats(tmodel__files(s->model));
	const struct tmodel_stats *ms = tmodel__stats(s->model);
	const struct tables_stats *ts = tables__stats(sampler__tables(s->sampler));

	lt_log(LT_LOG_DEBUG, "target model: %llu files (%llu opens, %llu reopens), %llu vDSO "
	       "images from %llu vDSO reads, %llu maps reads",
	       (unsigned long long)fs->files, (unsigned long long)fs->opens,
	       (unsigned long long)fs->reopens, (unsigned long long)fs->images,
	       (unsigned long long)ms->vdso_reads, (unsigned long long)ms->maps_reads);
	lt_log(LT_LOG_DEBUG, "unwind tables: %llu files compiled (%llu without CFI), %llu rows, "
	       "%llu rules, %llu process syncs", (unsigned long long)ts->files,
	       (unsigned long long)ts->no_cfi, (unsigned long long)ts->rows,
	       (unsigned long long)ts->rules, (unsigned long long)ts->syncs);
}

/* Off-CPU time: what the profile holds and what it does not. */
static void report_offcpu(struct session *s)
{
	uint64_t o[LT_OFF__COUNT];

	sampler__offstats(s->sampler, o);
	lt_log(LT_LOG_INFO, "off-CPU: %llu blocks, %.3f s in the profile; not in it: %llu "
	       "blocks under --min-block (%.3f s), %.3f s blocked outside system calls, "
	       "%.3f s runnable (preempted)", (unsigned long long)o[LT_OFF_BLOCKS],
	       o[LT_OFF_BLOCKED_NS] / 1e9, (unsigned long long)o[LT_OFF_SHORT],
	       o[LT_OFF_SHORT_NS] / 1e9, o[LT_OFF_OTHER_NS] / 1e9, o[LT_OFF_RUNNABLE_NS] / 1e9);
}

/* -v: how the kernel stacks were taken. */
static void report_kstacks(struct session *s)
{
	uint64_t k[LT_KSTAT__COUNT];

	sampler__kstats(s->sampler, k);
	if (!k[LT_KSTAT_ORC] && !k[LT_KSTAT_KERNEL])
		return;
	lt_log(LT_LOG_DEBUG, "kernel stacks: %llu from the ORC tables in the sampler, %llu by the "
	       "kernel's unwinder", (unsigned long long)k[LT_KSTAT_ORC],
	       (unsigned long long)k[LT_KSTAT_KERNEL]);
	if (k[LT_KSTAT_CHECKED])
		lt_log(LT_LOG_DEBUG, "kernel stacks checked: %llu, %llu differed",
		       (unsigned long long)k[LT_KSTAT_CHECKED], (unsigned long long)k[LT_KSTAT_DIFFER]);
}

/* -v: what the CPU sampler cost in the kernel, when its stats were on. */
static void report_cost(struct session *s)
{
	uint64_t runs, ns;

	if (sampler__cost(s->sampler, &runs, &ns) || !runs)
		return;
	lt_log(LT_LOG_DEBUG, "sampler: %llu runs (other processes' included), %.0f ns each "
	       "(with its batches' flushes; kernel.bpf_stats_enabled)", (unsigned long long)runs,
	       (double)ns / runs);
}

/* Why samples were lost: one line, the reasons by count (d: one reading of them). */
static void report_lost(const uint64_t d[LT_DROP__COUNT])
{
	char line[512];
	size_t used = 0;

	for (unsigned r = 0; r < LT_DROP__COUNT && used < sizeof(line); r++)
		if (d[r])
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%llu %s",
						 used ? ", " : "", (unsigned long long)d[r],
						 sampler__drop_text(r));
	if (used)
		lt_log(LT_LOG_INFO, "lost: %s", line);
}

static void report(struct session *s)
{
	const struct collector_stats *st = collector__stats(s->collector);
	uint64_t drops[LT_DROP__COUNT] = { 0 };
	/* The total and its reasons from one reading: they add up. */
	uint64_t lost = s->sampler ? sampler__drops(s->sampler, drops) : 0;
	char who[128], where[512] = "";

	session__describe(s, who, sizeof(who));
	for (unsigned i = 0; i < s->ntargets; i++)
		if (s->targets[i].exited && !s->targets[i].spawned)
			lt_log(LT_LOG_INFO, "PID %d exited", (int)s->targets[i].pid);
	if (s->opt->cmd && s->targets[0].exited) {
		char fate[128];

		target__fate(&s->targets[0], fate, sizeof(fate));
		lt_log(LT_LOG_INFO, "the command (PID %d) %s", (int)s->targets[0].pid, fate);
	}
	if (s->written && s->opt->every)
		snprintf(where, sizeof(where), ", %llu written to %u file%s",
			 (unsigned long long)s->written_samples, s->files, s->files == 1 ? "" : "s");
	else if (s->written && !s->out.is_stdout)
		snprintf(where, sizeof(where), ", written to %s", s->opt->output);
	lt_log(LT_LOG_INFO, "%llu samples of %s, %llu lost%s", (unsigned long long)st->samples,
	       who, (unsigned long long)lost, where);
	if (lost)
		report_lost(drops);
	if (prof_event__timed(s->opt->event))
		report_offcpu(s);
	if (!st->samples && prof_event__timed(s->opt->event)) {
		lt_log(LT_LOG_INFO, "no samples in %.1f s: the target neither ran nor blocked "
		       "for %s or more", (double)(clock__mono_ns() - s->start_ns) / 1e9,
		       s->opt->event == EV_OFFCPU ? "--min-block" : "a sampling tick or --min-block");
		return;
	}
	if (!st->samples) {
		lt_log(LT_LOG_INFO, "no samples in %.1f s: the target was on a CPU at none of the "
		       "%u Hz sampling ticks (it slept, or ran too briefly)",
		       (double)(clock__mono_ns() - s->start_ns) / 1e9, s->opt->freq);
		return;
	}
	report_unwind(st);
	report_merge(st);
	report_traces(s->collector);
	report_model(s);
	if (s->ingested)
		lt_log(LT_LOG_DEBUG, "ingest: %.2f us per sample, median %.2f us, "
		       "p99 %.2f us (%llu samples; first loads of symbols and traces in the mean)",
		       s->ingest_ns / 1e3 / s->ingested, ingest_quantile(s, 0.5),
		       ingest_quantile(s, 0.99), (unsigned long long)s->ingested);
	report_kstacks(s);
	report_cost(s);
	if (s->record) {
		int err = record__close(s->record);

		s->record = NULL;
		if (err && !s->record_failed)
			lt_log(LT_LOG_ERROR, "cannot write to %s: %s", s->opt->record, strerror(-err));
		else if (!err)
			lt_log(LT_LOG_INFO, "%llu samples recorded to %s",
			       (unsigned long long)s->recorded, s->opt->record);
	}
	if (s->opt->capture)
		lt_log(LT_LOG_INFO, "%u unwind fixtures written to %s", s->captured,
		       s->opt->capture);
}

/* LUATOP_TRACE_RULE: how samples between two snapshots are attributed
** (docs/DESIGN-NOTES.md, "JIT traces"; bench/ingest.sh compares "off"). */
static int set_trace_rule(struct collector *c)
{
	const char *v = secure_getenv("LUATOP_TRACE_RULE");
	int rule = v && *v ? luatrace__rule_of(v) : LUATRACE_RULE_PATH;

	if (rule < 0) {
		lt_log(LT_LOG_ERROR, "LUATOP_TRACE_RULE: no such rule "
		       "(path, region, next, split or off)");
		return -1;
	}
	collector__set_trace_rule(c, (enum luatrace_rule)rule);
	return 0;
}

/*
** The kernel's symbols, read and sorted once (30-90 ms of CPU): where the
** sampler's ORC tables are, and the names of kernel frames. Read at the first
** sample with a kernel frame instead, they held up the reader for ~90 ms: a new
** command's samples were cut short meanwhile, until its maps were read again
** (t_command saw 5-8% of them cut in 6 runs of ~100).
*/
static void kernel_tables(struct session *s)
{
	char *text = NULL;
	size_t len = 0;

	if (!kallsyms__read(&text, &len)) {
		kstack__tables(&s->korc, text, len);
		collector__set_kallsyms(s->collector, kallsyms__of_text(text, len));
		free(text);
	}
	sampler__set_korc(s->sampler, &s->korc);
}

static int run(struct session *s)
{
	const struct options *o = s->opt;
	uint64_t launch_ns;
	char err[512];
	int rc;

	if (!o->output && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return die(EXIT_USAGE, "the live view needs a terminal; use -o FILE "
			   "for batch mode (see --help)");
	if (check_kernel())
		return 1;
	s->model = tmodel__new();
	s->collector = s->model ? collector__new(s->model) : NULL;
	if (!s->collector)
		return die(1, "out of memory");
	collector__set_lines(s->collector, o->lines);
	collector__set_mark_fallback(s->collector, o->mark_fallback);
	collector__set_exact_addresses(s->collector, o->raw);
	collector__set_process_roots(s->collector, o->all || o->children);
	/* Build what this run reads: an export one view's stacks, the live view
	** both views' call trees. */
	if (o->output)
		collector__set_outputs(s->collector, 1u << (o->raw ? COLLECT_RAW : COLLECT_MERGED),
				       1, 0);
	else
		collector__set_outputs(s->collector, 1u << COLLECT_MERGED | 1u << COLLECT_RAW, 0, 1);
	/* ... of the event asked for; the live view cycles all three when it has
	** off-CPU samples. */
	if (collector__set_events(s->collector, o->output || o->event == EV_CPU ?
				  1u << o->event : (1u << EV__COUNT) - 1, o->freq))
		return die(1, "out of memory");
	if (set_trace_rule(s->collector) || kstack__mode(&s->korc))
		return EXIT_USAGE;
	s->start_ns = clock__mono_ns();	/* the output's name may need the time */
	s->start_wall_ns = session__wall();
	launch_ns = s->start_ns;
	if (writer__open(s))
		return 1;
	if (o->record && !(s->record = record__open(o->record))) {
		lt_log(LT_LOG_ERROR, "cannot create %s: %s", o->record, strerror(errno));
		return 1;
	}
	if (o->capture && (rc = capture__check_dir(o->capture))) {
		lt_log(LT_LOG_ERROR, "--capture %s: %s", o->capture, strerror(-rc));
		return 1;
	}
	rc = setup_targets(s, err, sizeof(err));
	if (!rc) {
		if (o->cmd)
			raise_priority();	/* after the command was forked: it keeps its own */
		rc = start_sampler(s, err, sizeof(err));
	}
	/* A command waits to start: find the kernel's ORC tables now (~70 ms of
	** /proc/kallsyms), so that the reader is in its loop when the command's
	** first samples come, which are cut short until the code it maps (libc,
	** ld.so's work) has tables: each wakes the reader to load them. */
	if (!rc && o->cmd) {
		kernel_tables(s);
		rc = target__release(&s->targets[0], err, sizeof(err));
	}
	/* The command has exec'd: its tables (and the maps its names come from)
	** are luatop's own fork's until re-read; read them now, not when the
	** first samples of the new image have already gone unknown. */
	if (!rc && o->cmd)
		tables__sync(sampler__tables(s->sampler), (int)s->targets[0].pid, 0, 1);
	if (rc)
		return die(1, err);
	session__follow(s);	/* --all: the LuaJIT processes running now */
	/* Sampling starts now: the run's (and the first interval's) clock. */
	s->start_ns = clock__mono_ns();
	s->start_wall_ns = session__wall();
	s->cut_start_ns = s->start_ns;
	s->cut_ns = s->start_ns + (uint64_t)(o->every * 1e9);
	if (o->duration)
		s->end_ns = s->start_ns + (uint64_t)(o->duration * 1e9);
	/* A running process: the start-up need not wait for them (the kernel
	** unwinds until they are set). */
	if (!o->cmd)
		kernel_tables(s);
	lt_log(LT_LOG_DEBUG, "ring buffer: %zu KiB", sampler__ring_bytes(s->sampler) >> 10);
	lt_log(LT_LOG_DEBUG, "sampling from %.3f s after the start (loading the sampler and tables)",
	       (double)(s->start_ns - launch_ns) / 1e9);
	session__luajit_notice(s, !o->output, 0);

	if (o->output)
		run_batch(s);
	else
		rc = view__live(s);
	/* Detach first, then take what is still in the ring buffer. */
	sampler__detach(s->sampler);
	s->draining = 1;
	session__pump(s, 0);
	if (s->late)
		lt_log(LT_LOG_DEBUG, "%llu samples taken after the end of --duration, not counted",
		       (unsigned long long)s->late);
	if (s->pre_exec)
		lt_log(LT_LOG_DEBUG, "%llu samples of the command before its exec ended (luatop's "
		       "fork, the execve system call), left out", (unsigned long long)s->pre_exec);
	if (s->alloc_failed)
		lt_log(LT_LOG_ERROR, "out of memory: the profile is incomplete");
	session__luajit_notice(s, !o->output, 1);
	if (o->cmd)
		target__stop(&s->targets[0]);
	if (o->output) {
		uint64_t now = clock__mono_ns();

		rc = writer__finish(s, s->end_ns && s->end_ns < now ? s->end_ns : now) ? 1 : rc;
	}
	if (s->end_ns && clock__mono_ns() >= s->end_ns)
		lt_log(LT_LOG_DEBUG, "done %.3f s after the end of --duration (draining, names, output)",
		       (double)(clock__mono_ns() - s->end_ns) / 1e9);
	report(s);
	if (!rc && o->cmd && s->targets[0].exited)
		rc = target__fate(&s->targets[0], err, sizeof(err));
	return rc;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct session s = { .opt = &opt, .stop = &stop_requested };
	char err[256];
	int rc;

	if (options__parse(argc, argv, &opt, err, sizeof(err)))
		return die(EXIT_USAGE, err);
	if (opt.help || opt.version) {
		if (opt.help)
			fputs(options__usage(), stdout);
		else
			printf("luatop %s\n", LUATOP_VERSION);
		if (fflush(stdout) || ferror(stdout))
			return die(1, "cannot write to standard output");
		return 0;
	}
	/* No command to fork: the reader's priority from the start, before the
	** loading (the sampler, symbols, tables) that a loaded machine delays. */
	if (!opt.cmd && !opt.input && !opt.help && !opt.version)
		raise_priority();
	lt_log_set_verbose(opt.verbose);
	signals__install(&stop_requested);
	if (opt.input && opt.output)
		return writer__convert(&opt);
	if (opt.input)
		return view__file(&opt, &stop_requested);
	rc = run(&s);
	output__discard(&s.out);
	sampler__delete(s.sampler);
	free(s.scan);
	for (unsigned i = 0; i < s.ntargets; i++)
		target__close(&s.targets[i]);
	collector__delete(s.collector);
	tmodel__delete(s.model);
	return rc;
}
