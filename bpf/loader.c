/*
** Loader of the BPF sampler.
** Lifecycle: open -> size maps -> load -> fill targets -> one cpu-clock perf event
** per online CPU with the program attached (-> the off-CPU tracepoints) -> ring
** buffer polling -> destroy.
*/
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/grow.h"
#include "base/log.h"
#include "bpf/loader.h"
#include "bpf/tables.h"
#include "sampler.skel.h"
#include "wire/pack.h"

#define MAX_RINGBUF	(256u << 20)
#define DEFAULT_ROWS	(1u << 21)	/* 16 MiB: a whole OpenResty process is ~160k */

struct sampler {
	struct sampler_bpf *skel;
	struct ring_buffer *rb;
	struct tables *tables;
	struct bpf_link **links;	/* one per CPU, NULL for offline CPUs */
	struct bpf_link *off_links[2];	/* sched_switch, sys_exit: -e offcpu, wall */
	struct bpf_link *exec_link;	/* sched_process_exec: opts.exec_pid */
	uint32_t exec_tgid;		/* ... whose exec it notes; 0: none watched */
	int *pfds;
	int ncpus;
	sampler_fn on_sample;
	struct lt_sample sample;	/* the record being handed on */
	size_t ring_bytes;		/* size of the ring buffer */
	capture_fn on_capture;
	void *ctx;
	int detached;			/* sampler__detach ran: no program runs */
	int drained;			/* ... and the batches left were taken */
	__u8 *recs;			/* this drain's sample records, packed ... */
	size_t recs_len, recs_cap;
	struct kept *kept;		/* ... and where each is, to hand on by time */
	size_t nkept, kept_cap;
	__u8 whole[sizeof(struct lt_sample)];	/* a record with its trace header put back */
	uint64_t bad_records;		/* records that did not parse (LT_DROP_BAD_RECORD) */
};

/* A sample record of this drain (in recs): the CPUs' batches arrive in the
** order they were sent, so a drain hands its samples on in their time order. */
struct kept {
	__u64 time_ns;
	size_t off;
	__u32 size;
};

static const char *const drop_texts[] = {
#define LT_DROP(name, text) text,
#include "wire/drops.def"
#undef LT_DROP
};

/* libbpf's messages: debug only with -v, warnings always suppressed unless -v
** (every failure is reported once, in our own words). */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	lt_vlog_passthrough(fmt, ap);
	return 0;
}

static int errf(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : -rc;
}

static const char *priv_hint(int e)
{
	return (e == EPERM || e == EACCES) ?
	       " (luatop needs root, or CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE)" : "";
}

/* Unpack the record rec of size bytes and hand it on. Never trust a count: a
** record unpacks into a full struct only when its size matches its counts. */
static int hand_on(struct sampler *s, const __u8 *rec, __u32 size)
{
	if (lt_sample_unpack(&s->sample, rec, size) || s->sample.type != LT_WIRE_SAMPLE) {
		s->bad_records++;
		return 0;
	}
	return s->on_sample ? s->on_sample(&s->sample, s->ctx) : 0;
}

/* Keep the record rec of size bytes for the end of this drain (deliver); out of
** memory, hand it on now. */
static int keep(struct sampler *s, const __u8 *rec, __u32 size)
{
	struct kept *k;

	if (grow__room((void **)&s->kept, &s->kept_cap, s->nkept, sizeof(*s->kept)) ||
	    grow__room((void **)&s->recs, &s->recs_cap, s->recs_len + size - 1, 1))
		return hand_on(s, rec, size);
	k = &s->kept[s->nkept++];
	memcpy(&k->time_ns, rec + offsetof(struct lt_sample, time_ns), sizeof(k->time_ns));
	k->off = s->recs_len;
	k->size = size;
	memcpy(s->recs + s->recs_len, rec, size);
	s->recs_len += size;
	return 0;
}

/* Keep the record rec of size bytes, with the trace header hdr put back if it
** left it out (wire/pack.h); one that refers to none in its batch is dropped. */
static int keep_whole(struct sampler *s, const __u8 *rec, __u32 size, const __u8 *hdr)
{
	__u16 flags;

	memcpy(&flags, rec + offsetof(struct lt_sample, flags), sizeof(flags));
	if (!(flags & LT_SAMPLE_HDR_AS_BEFORE))
		return keep(s, rec, size);
	size = hdr ? lt_sample_restore_hdr(s->whole, rec, size, hdr) : 0;
	if (!size) {
		s->bad_records++;
		return 0;
	}
	return keep(s, s->whole, size);
}

/* The trace headers a batch's records carry, in order, to find the one a
** record that left its own out refers to. */
struct batch_hdrs {
	__u32 n;
	struct { __u64 T; const __u8 *at; } h[LT_BATCH_BYTES / LT_SAMPLE_HEAD + 1];
};

/* The latest header of trace T in the batch so far, or NULL. */
static const __u8 *batch_hdr_of(const struct batch_hdrs *b, __u64 T)
{
	for (__u32 i = b->n; i-- > 0;)
		if (b->h[i].T == T)
			return b->h[i].at;
	return NULL;
}

#define RESYNC_MS	5	/* at most one maps re-read per process per this (new
				   code: the sampler wakes the reader at once) */

/*
** New code mapped (dlopen, exec, a JIT area): load its tables for the next
** samples. Done as the ring is read, before the drain's samples are handed on:
** the first of them may take the collector a hundred milliseconds (the first
** symbols of a process), and samples there are cut short meanwhile.
*/
static void sync_for(struct sampler *s, const struct lt_sample *head)
{
	if (head->user_stop == LT_STOP_NO_MAPPING || head->user_stop == LT_STOP_NO_PROC ||
	    (head->flags & LT_SAMPLE_NEW_CODE))
		tables__sync(s->tables, (int)head->tgid, RESYNC_MS, 0);
}

/* Keep each sample of a batch (struct lt_batch) of size bytes; a record whose
** head does not give a size within the batch ends it, and it and the records
** after it are counted as bad (the sampler never sends such a batch). */
static int on_batch(struct sampler *s, const __u8 *data, size_t size)
{
	const __u8 *p = data + LT_BATCH_HEAD, *end;
	struct batch_hdrs hdrs;
	struct lt_sample head;
	__u32 len, n, rec, got = 0;
	int rc = 0;

	if (size < LT_BATCH_HEAD) {
		s->bad_records++;
		return 0;
	}
	memcpy(&len, data + offsetof(struct lt_batch, len), sizeof(len));
	memcpy(&n, data + offsetof(struct lt_batch, n), sizeof(n));
	if (len > size - LT_BATCH_HEAD) {
		s->bad_records += n ? n : 1;
		return 0;
	}
	hdrs.n = 0;
	for (end = p + len; p < end && rc >= 0; p += rec, got++) {
		rec = lt_sample_record_size(p, (__u32)(end - p));
		if (!rec) {
			s->bad_records += n > got ? n - got : 1;
			break;
		}
		memcpy(&head, p, LT_SAMPLE_HEAD);
		sync_for(s, &head);
		rc = keep_whole(s, p, rec, batch_hdr_of(&hdrs, head.trace_T));
		if (lt_sample_has_hdr(head.trace_T, head.flags) &&
		    hdrs.n < sizeof(hdrs.h) / sizeof(hdrs.h[0])) {
			hdrs.h[hdrs.n].T = head.trace_T;
			hdrs.h[hdrs.n++].at = p + lt_sample_hdr_offset(head.n_user, head.n_kernel,
									 head.n_lua);
		}
	}
	return rc;
}

static int by_time(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;	/* one CPU's: as sent */
}

/* Hand on the samples kept in this drain, oldest first; the first error ends
** it (what is left is dropped: it is later still). */
static int deliver(struct sampler *s)
{
	int rc = 0;

	if (s->nkept > 1)	/* kept is NULL until a drain first keeps one */
		qsort(s->kept, s->nkept, sizeof(*s->kept), by_time);
	for (size_t i = 0; i < s->nkept && rc >= 0; i++)
		rc = hand_on(s, s->recs + s->kept[i].off, s->kept[i].size);
	s->nkept = 0;
	s->recs_len = 0;
	return rc;
}

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	__u32 type;

	if (size < sizeof(type))
		return 0;
	memcpy(&type, data, sizeof(type));
	if (type == LT_WIRE_BATCH)
		return on_batch(s, data, size);
	if (type == LT_WIRE_CAPTURE && size >= sizeof(struct lt_capture))
		return s->on_capture ? s->on_capture(data, s->ctx) : 0;
	if (type == LT_WIRE_NEW_CODE && size >= sizeof(struct lt_new_code)) {
		struct lt_new_code nc;

		memcpy(&nc, data, sizeof(nc));
		/* Each one: ld.so maps a program's libraries within a few ms, and
		** a sync rate-limited at the first would miss the last (libc). */
		tables__sync(s->tables, (int)nc.tgid, 0, 1);
	}
	return 0;
}

/* CPU numbers are below this. */
static unsigned possible_cpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? (unsigned)n : 1;
}

/*
** The ring buffer. What a record costs the sampler follows the memory the ring
** cycles through: written into lines that left the caches it costs ~3 ns a
** byte on this VM, ~1 us of a LuaJIT sample's ~400 bytes with 8 MiB; with
** 256-512 KiB the ring stays in cache and the same output costs ~0.45 us
** (docs/PERFORMANCE.md). So the ring holds a quarter second of records of
** RING_RECORD bytes (a LuaJIT sample packs to 300-500) from every CPU at freq,
** at least MIN_RINGBUF: 512 KiB for 2 CPUs at 999 Hz, still 58 ms of the
** largest records (4.4 KB). The reader drains it at each refresh and when a
** quarter fills. Capture mode's records (29 KB each) get half a second of the
** worst case, as every record once did. A power of two pages.
*/
#define RING_RECORD	1024
#define MIN_RINGBUF	(256u << 10)

static size_t ringbuf_size(size_t want, unsigned freq, int capture)
{
	size_t sz = (size_t)sysconf(_SC_PAGESIZE), per_s;

	if (!want) {
		per_s = (size_t)possible_cpus() * freq;
		want = capture ? per_s * sizeof(struct lt_capture) / 2 : per_s * RING_RECORD / 4;
		want = want < MIN_RINGBUF ? MIN_RINGBUF : want > MAX_RINGBUF ? MAX_RINGBUF : want;
	}
	while (sz < want)
		sz <<= 1;
	return sz;
}

static int open_cpu_event(unsigned freq, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = freq,
	};

	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int attach_cpus(struct sampler *s, unsigned freq, char *err, size_t errlen)
{
	int attached = 0;

	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0)
		return errf(err, errlen, EINVAL, "cannot count CPUs");
	s->links = calloc(s->ncpus, sizeof(*s->links));
	s->pfds = malloc(s->ncpus * sizeof(*s->pfds));
	if (!s->links || !s->pfds)
		return errf(err, errlen, ENOMEM, "out of memory");
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		s->pfds[cpu] = -1;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		s->pfds[cpu] = open_cpu_event(freq, cpu);
		if (s->pfds[cpu] < 0) {
			int e = errno;

			if (e == ENODEV)
				continue;	/* offline CPU */
			if (e == EINVAL)
				return errf(err, errlen, e, "cannot sample at %u Hz: %s "
					    "(see /proc/sys/kernel/perf_event_max_sample_rate)",
					    freq, strerror(e));
			return errf(err, errlen, e, "cannot open a perf event on CPU %d: %s%s",
				    cpu, strerror(e), priv_hint(e));
		}
		s->links[cpu] = bpf_program__attach_perf_event(s->skel->progs.sample,
							       s->pfds[cpu]);
		if (!s->links[cpu]) {
			int e = errno;

			return errf(err, errlen, e, "cannot attach the sampler to CPU %d: %s",
				    cpu, strerror(e));
		}
		attached++;
	}
	if (!attached)
		return errf(err, errlen, ENODEV, "no online CPU to sample");
	return 0;
}

static int add_targets(struct sampler *s, const struct sampler_opts *o,
		       char *err, size_t errlen)
{
	struct tables_maps maps = {
		.targets_fd = bpf_map__fd(s->skel->maps.targets),
		.procs_fd = bpf_map__fd(s->skel->maps.uw_procs),
		.rows_fd = bpf_map__fd(s->skel->maps.uw_rows),
		.rules_fd = bpf_map__fd(s->skel->maps.uw_rules),
		.pidx_fd = bpf_map__fd(s->skel->maps.uw_pidx),
		.lua_fd = bpf_map__fd(s->skel->maps.lua_cfg),
		.max_rows = bpf_map__max_entries(s->skel->maps.uw_rows),
		.max_rules = bpf_map__max_entries(s->skel->maps.uw_rules),
		.max_pidx = bpf_map__max_entries(s->skel->maps.uw_pidx),
	};

	if (o->npids > LT_MAX_TARGETS)
		return errf(err, errlen, E2BIG, "at most %d target processes", LT_MAX_TARGETS);
	s->tables = tables__new(&maps, o->model);
	if (!s->tables)
		return errf(err, errlen, errno, "cannot map the unwind tables: %s",
			    strerror(errno));
	for (unsigned i = 0; i < o->npids; i++) {
		int rc = tables__add_target(s->tables, o->pids[i]);

		if (rc)
			return errf(err, errlen, rc, "cannot load the unwind tables of PID %d: %s",
				    o->pids[i], strerror(-rc));
	}
	return 0;
}

/* The kernel walk's settings into the program's constants: max_frames 0
** leaves the walk out (the verifier prunes it). */
static void set_korc_mode(struct sampler_bpf *skel, const struct sampler_korc *k)
{
	if (!k->max_frames)
		return;
	skel->rodata->korc_max = k->max_frames < LT_MAX_KERNEL ? k->max_frames : LT_MAX_KERNEL;
	skel->rodata->kstack_check = k->check != 0;
}

void sampler__set_korc(struct sampler *s, const struct sampler_korc *k)
{
	struct sampler_bpf__bss *b = s->skel->bss;

	if (!k->n || !s->skel->rodata->korc_max)
		return;
	b->korc_text_lo = k->text_lo;
	b->korc_text_hi = k->text_hi;
	b->korc_ip_table = k->ip_table;
	b->korc_table = k->table;
	b->korc_tramp0 = k->tramp[0];
	b->korc_tramp1 = k->tramp[1];
	/* Last: a program that sees n sees the rest. */
	__atomic_store_n(&b->korc_n, k->n, __ATOMIC_RELEASE);
}

static int load(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	int rc;

	s->skel = sampler_bpf__open();
	if (!s->skel)
		return errf(err, errlen, errno, "cannot open the BPF object: %s", strerror(errno));
	s->ring_bytes = ringbuf_size(o->ringbuf_bytes, o->freq, o->capture_every != 0);
	rc = bpf_map__set_max_entries(s->skel->maps.samples, s->ring_bytes);
	/* The rule and ORC memos: each CPU's part at cpu << bits (sampler.bpf.c). */
	if (!rc)
		rc = bpf_map__set_max_entries(s->skel->maps.memo,
					      bpf_map__max_entries(s->skel->maps.memo) * possible_cpus());
	if (!rc)
		rc = bpf_map__set_max_entries(s->skel->maps.korc_memo,
					      bpf_map__max_entries(s->skel->maps.korc_memo) *
					      possible_cpus());
	if (!rc)
		rc = bpf_map__set_max_entries(s->skel->maps.uw_rows,
					      o->max_rows ? o->max_rows : DEFAULT_ROWS);
	/* Page indexes: an entry per 256 bytes of code, rows one per ~16-64. */
	if (!rc)
		rc = bpf_map__set_max_entries(s->skel->maps.uw_pidx,
					      (o->max_rows ? o->max_rows : DEFAULT_ROWS) / 4);
	if (rc)
		return errf(err, errlen, rc, "cannot size the BPF maps: %s", strerror(-rc));
	s->skel->rodata->capture_every = o->capture_every;
	s->skel->rodata->wakeup_bytes = s->ring_bytes / 4;
	s->skel->rodata->min_block_ns = o->min_block_ns;
	set_korc_mode(s->skel, &o->korc);
	/* The off-CPU programs hold a walk each: verified only when used. */
	bpf_program__set_autoload(s->skel->progs.switch_task, o->offcpu);
	bpf_program__set_autoload(s->skel->progs.syscall_done, o->offcpu);
	bpf_program__set_autoload(s->skel->progs.exec_done, o->exec_pid > 0);
	rc = sampler_bpf__load(s->skel);
	if (rc && geteuid() != 0)
		return errf(err, errlen, rc, "cannot load the BPF sampler: %s%s", strerror(-rc),
			    priv_hint(-rc));
	if (rc)
		return errf(err, errlen, rc, "the kernel refused the BPF sampler (%s): luatop "
			    "needs Linux >= 5.17 with BTF; -v shows the verifier log",
			    strerror(-rc));
	return 0;
}

/* Off-CPU time: the scheduler's switches and the system calls' returns. */
static int attach_offcpu(struct sampler *s, char *err, size_t errlen)
{
	struct bpf_program *progs[2] = { s->skel->progs.switch_task, s->skel->progs.syscall_done };
	const char *names[2] = { "sched_switch", "sys_exit" };

	for (int i = 0; i < 2; i++) {
		s->off_links[i] = bpf_program__attach(progs[i]);
		if (!s->off_links[i]) {
			int e = errno;

			return errf(err, errlen, e, "cannot attach to the %s tracepoint for "
				    "off-CPU time: %s", names[i], strerror(e));
		}
	}
	return 0;
}

/* A command's exec: noted by the sampler from now on. Without it (a kernel
** without the tracepoint) nothing is left out, as before. */
static void watch_exec(struct sampler *s, int pid)
{
	s->skel->bss->exec_tgid = (__u32)pid;
	s->exec_link = bpf_program__attach(s->skel->progs.exec_done);
	if (!s->exec_link) {
		lt_log(LT_LOG_DEBUG, "cannot attach to sched_process_exec (%s): the command's "
		       "samples before its exec are kept", strerror(errno));
		return;
	}
	s->exec_tgid = (uint32_t)pid;
}

int sampler__before_exec(const struct sampler *s, uint32_t tgid, uint64_t time_ns)
{
	uint64_t t;

	if (!s || !s->exec_tgid || tgid != s->exec_tgid)
		return 0;
	t = __atomic_load_n(&s->skel->bss->exec_ns, __ATOMIC_ACQUIRE);
	return !t || time_ns < t;	/* not yet: the sample was taken before it */
}

int sampler__open(const struct sampler_opts *o, struct sampler **out, char *err, size_t errlen)
{
	struct sampler *s;
	int rc;

	*out = NULL;
	libbpf_set_print(libbpf_print);
	s = calloc(1, sizeof(*s));
	if (!s)
		return errf(err, errlen, ENOMEM, "out of memory");
	s->on_sample = o->on_sample;
	s->on_capture = o->on_capture;
	s->ctx = o->ctx;
	rc = load(s, o, err, errlen);
	if (!rc)
		rc = add_targets(s, o, err, errlen);
	if (!rc) {
		s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), on_ringbuf, s, NULL);
		if (!s->rb)
			rc = errf(err, errlen, errno, "cannot open the ring buffer: %s",
				  strerror(errno));
	}
	if (!rc)
		rc = attach_cpus(s, o->freq, err, errlen);
	if (!rc && o->offcpu)
		rc = attach_offcpu(s, err, errlen);
	if (!rc && o->exec_pid > 0)
		watch_exec(s, o->exec_pid);
	if (rc) {
		sampler__delete(s);
		return rc;
	}
	*out = s;
	return 0;
}

void sampler__detach(struct sampler *s)
{
	if (s)
		s->detached = 1;
	for (int i = 0; s && i < 2; i++) {
		bpf_link__destroy(s->off_links[i]);
		s->off_links[i] = NULL;
	}
	if (s) {
		bpf_link__destroy(s->exec_link);
		s->exec_link = NULL;
	}
	for (int cpu = 0; s && s->links && s->pfds && cpu < s->ncpus; cpu++) {
		bpf_link__destroy(s->links[cpu]);
		s->links[cpu] = NULL;
		if (s->pfds[cpu] >= 0)
			close(s->pfds[cpu]);
		s->pfds[cpu] = -1;
	}
}

void sampler__delete(struct sampler *s)
{
	if (!s)
		return;
	sampler__detach(s);
	free(s->links);
	free(s->pfds);
	ring_buffer__free(s->rb);
	free(s->recs);
	free(s->kept);
	tables__delete(s->tables);
	sampler_bpf__destroy(s->skel);
	free(s);
}

int sampler__fd(const struct sampler *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

int sampler__wait(struct sampler *s, int timeout_ms)
{
	struct pollfd p = { .fd = ring_buffer__epoll_fd(s->rb), .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n;
}

/* Have each CPU send what its batch holds (flush in sampler.bpf.c): one
** interrupt a CPU, so that every sample taken before now is in the ring. A
** kernel without BPF_F_TEST_RUN_ON_CPU sends batches by their age only. */
static void flush_batches(struct sampler *s)
{
	int fd = bpf_program__fd(s->skel->progs.flush);

	for (int cpu = 0; s->links && cpu < s->ncpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)cpu);

		if (s->links[cpu])
			bpf_prog_test_run_opts(fd, &o);
	}
}

/* Once detached: what the CPUs' batches still hold, read from the map (no
** program writes it any more). */
static int drain_batches(struct sampler *s)
{
	size_t stride = (sizeof(struct lt_batch) + 7) & ~(size_t)7;
	int fd = bpf_map__fd(s->skel->maps.batch), rc = 0;
	__u8 *all = calloc((size_t)s->ncpus, stride);
	__u32 zero = 0;

	s->drained = 1;
	if (!all || bpf_map_lookup_elem(fd, &zero, all)) {
		free(all);
		return 0;
	}
	for (int cpu = 0; cpu < s->ncpus && rc >= 0; cpu++)
		rc = on_batch(s, all + (size_t)cpu * stride, sizeof(struct lt_batch));
	free(all);
	return rc;
}

int sampler__consume(struct sampler *s)
{
	int n, rc = 0;

	/* The BPF side rarely wakes us (see sampler.bpf.c): take what is there. */
	if (!s->detached)
		flush_batches(s);
	n = ring_buffer__consume(s->rb);
	if (n >= 0 && s->detached && !s->drained)
		rc = drain_batches(s);
	if (rc >= 0)
		rc = deliver(s);
	return n < 0 ? n : rc < 0 ? rc : n;
}

/* Each entry of a per-CPU array of n counters, summed over CPUs. */
static void sum_percpu(int fd, uint64_t *out, unsigned n)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *percpu = calloc(ncpus > 0 ? ncpus : 1, sizeof(*percpu));

	for (__u32 r = 0; r < n; r++) {
		out[r] = 0;
		if (!percpu || bpf_map_lookup_elem(fd, &r, percpu))
			continue;
		for (int c = 0; c < ncpus; c++)
			out[r] += percpu[c];
	}
	free(percpu);
}

uint64_t sampler__drops(const struct sampler *s, uint64_t out[LT_DROP__COUNT])
{
	uint64_t sum = 0;

	sum_percpu(bpf_map__fd(s->skel->maps.drops), out, LT_DROP__COUNT);
	out[LT_DROP_BAD_RECORD] += s->bad_records;	/* counted here, not in BPF */
	for (unsigned r = 0; r < LT_DROP__COUNT; r++)
		sum += out[r];
	return sum;
}

void sampler__kstats(const struct sampler *s, uint64_t out[LT_KSTAT__COUNT])
{
	sum_percpu(bpf_map__fd(s->skel->maps.kstats), out, LT_KSTAT__COUNT);
}

void sampler__offstats(const struct sampler *s, uint64_t out[LT_OFF__COUNT])
{
	sum_percpu(bpf_map__fd(s->skel->maps.offstats), out, LT_OFF__COUNT);
}

size_t sampler__ring_bytes(const struct sampler *s)
{
	return s ? s->ring_bytes : 0;
}

struct tables *sampler__tables(const struct sampler *s)
{
	return s->tables;
}

/* Run count (runs: NULL, not wanted) and time of one of the sampler's programs
** (kernel.bpf_stats_enabled). */
static int prog_cost(const struct bpf_program *p, uint64_t *runs, uint64_t *ns)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return -errno;
	if (runs)
		*runs = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

int sampler__cost(const struct sampler *s, uint64_t *runs, uint64_t *ns)
{
	uint64_t flush_ns = 0;
	int rc;

	*runs = *ns = 0;
	if ((rc = prog_cost(s->skel->progs.sample, runs, ns)))
		return rc;
	/* The flush sends most batches now (LT_BATCH_AGE_NS): its time is the samples'. */
	if (!prog_cost(s->skel->progs.flush, NULL, &flush_ns))
		*ns += flush_ns;
	return 0;
}

uint64_t sampler__dropped(const struct sampler *s)
{
	uint64_t d[LT_DROP__COUNT];

	return sampler__drops(s, d);
}

const char *sampler__drop_text(unsigned reason)
{
	return reason < LT_DROP__COUNT ? drop_texts[reason] : "unknown";
}
