/*
** The snapshot decoder (lua/trace.c) against LuaJIT's own account of its traces:
** tests/workloads/trace_oracle.lua compiles traces in a live luajit of either
** flavour and writes, from jit.util (and the FFI for the pcs), every snapshot's
** pc and inlined frames and every guard branch of the machine code with the exit
** it takes; every guard's pc must map to the snapshot of its exit, with that
** snapshot's pc and frames. The same checks run on the trace memory those runs
** read, kept in tests/fixtures/lua/trace-*.fixture (no process, no root): set
** LUATOP_WRITE_FIXTURES=1 to write them again.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "lua/detect.h"
#include "lua/trace.h"
#include "proc/mem.h"
#include "proc/model.h"

#define MAX_TRACES	64
#define MAX_SNAPS	256
#define MAX_GUARDS	4096
#define MEM_MAX		4096	/* regions a fixture keeps */

/* -- What the oracle says ---------------------------------------------------- */

struct osnap {
	uint64_t pc, base_pc;
	unsigned n;
	uint64_t fn[LUATRACE_FRAMES_MAX], fpc[LUATRACE_FRAMES_MAX];	/* leaf first */
};

struct otrace {
	unsigned tr, nsnap;
	uint64_t T;
	struct osnap snap[MAX_SNAPS];
};

struct oguard {
	unsigned tr, k;
	uint64_t pc;
};

struct oracle {
	uint64_t G;
	struct otrace *t;
	unsigned nt;
	struct oguard g[MAX_GUARDS];
	unsigned ng;
};

static struct otrace *trace_no(struct oracle *o, unsigned tr)
{
	for (unsigned i = 0; i < o->nt; i++)
		if (o->t[i].tr == tr)
			return &o->t[i];
	return NULL;
}

/* One line of the oracle's output: 1 on "end", 0 otherwise. */
static int oracle_line(struct oracle *o, char *l)
{
	unsigned tr, k, n, sz, ns;
	unsigned long long a, b, c;
	int at;

	if (!strncmp(l, "end", 3))
		return 1;
	if (sscanf(l, "G %llx", &a) == 1) {
		o->G = a;
	} else if (sscanf(l, "trace %u %llx %llx %u %u", &tr, &a, &b, &sz, &ns) == 5) {
		cr_assert_lt(o->nt, MAX_TRACES);
		cr_assert_leq(ns, MAX_SNAPS);
		o->t[o->nt++] = (struct otrace){ .tr = tr, .T = a, .nsnap = ns };
	} else if (sscanf(l, "snap %u %u %llx %llx %u%n", &tr, &k, &a, &b, &n, &at) == 5) {
		struct otrace *t = trace_no(o, tr);
		struct osnap *s;

		cr_assert(t && k < t->nsnap && n <= LUATRACE_FRAMES_MAX);
		s = &t->snap[k];
		*s = (struct osnap){ .pc = a, .base_pc = b, .n = n };
		for (unsigned i = 0; i < n; i++) {
			int more;

			cr_assert_eq(sscanf(l + at, " %llx %llx%n", &b, &c, &more), 2);
			s->fn[i] = b;
			s->fpc[i] = c;
			at += more;
		}
	} else if (sscanf(l, "guard %u %u %llx", &tr, &k, &a) == 3) {
		if (o->ng < MAX_GUARDS)
			o->g[o->ng++] = (struct oguard){ .tr = tr, .k = k, .pc = a };
	} else if (l[0] && strncmp(l, "mem ", 4)) {
		cr_assert_fail("oracle line '%s'", l);
	}
	return 0;
}

/* -- Readers: a live process, a recording of one, a fixture ------------------ */

struct region {
	uint64_t addr;
	size_t len;
	uint8_t *bytes;
};

struct memlog {
	struct mreader live;		/* NULL read: replay only */
	struct region r[MEM_MAX];
	unsigned n;
};

/* Record every successful read of the live reader. */
static int log_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct memlog *m = ctx;
	int err;

	if (!m->live.read) {	/* a fixture: serve from the regions */
		for (unsigned i = 0; i < m->n; i++)
			if (addr >= m->r[i].addr && len <= m->r[i].len &&
			    addr - m->r[i].addr <= m->r[i].len - len) {
				memcpy(buf, m->r[i].bytes + (addr - m->r[i].addr), len);
				return 0;
			}
		return -EFAULT;
	}
	err = mreader__read(&m->live, addr, buf, len);
	if (!err && m->n < MEM_MAX) {
		m->r[m->n] = (struct region){ .addr = addr, .len = len, .bytes = malloc(len) };
		cr_assert_not_null(m->r[m->n].bytes);
		memcpy(m->r[m->n++].bytes, buf, len);
	}
	return err;
}

static void memlog_free(struct memlog *m)
{
	for (unsigned i = 0; i < m->n; i++)
		free(m->r[i].bytes);
}

/* -- The checks ----------------------------------------------------------------- */

/* Every guard of every trace maps to its exit's snapshot, decoded as the oracle says. */
static void check(const char *what, struct oracle *o, const struct mreader *r)
{
	struct luatraces *c = luatraces__new();
	unsigned checked = 0, framed = 0;

	cr_assert_not_null(c);
	cr_assert_gt(o->ng, 20, "%s: only %u guards found", what, o->ng);
	for (unsigned i = 0; i < o->ng; i++) {
		const struct oguard *g = &o->g[i];
		const struct otrace *t = trace_no(o, g->tr);
		const struct luatrace_snap *s;
		const struct osnap *want;
		uint8_t raw[LT_TRACE_HDR];
		struct luatrace_hdr h;
		enum luatrace_why why;

		cr_assert_not_null(t);
		want = &t->snap[g->k];
		cr_assert_eq(mreader__read(r, t->T, raw, sizeof(raw)), 0, "%s: trace %u", what, g->tr);
		cr_assert_eq(luatrace__hdr(raw, sizeof(raw), t->T, &h), 0, "%s: trace %u", what, g->tr);
		cr_assert_eq(luatraces__snapshot(c, r, &h, 0, g->pc, LUATRACE_RULE_REGION, &s, &why),
			     0, "%s: trace %u guard %#" PRIx64 ": %s", what, g->tr, g->pc,
			     luatrace__why_text(why));
		cr_expect_eq(s->index, g->k, "%s: trace %u guard %#" PRIx64 ": snapshot %u, exit %u",
			     what, g->tr, g->pc, s->index, g->k);
		cr_expect_eq(s->pc, want->pc, "%s: trace %u snapshot %u pc", what, g->tr, g->k);
		cr_expect_eq(s->base_pc, want->base_pc, "%s: trace %u snapshot %u base pc", what,
			     g->tr, g->k);
		cr_assert_eq(s->n, want->n, "%s: trace %u snapshot %u: %u frames, LuaJIT %u", what,
			     g->tr, g->k, s->n, want->n);
		for (unsigned f = 0; f < s->n; f++) {
			if (want->fn[f])
				cr_expect_eq(s->frames[f].fn, want->fn[f], "%s: trace %u snapshot %u "
					     "frame %u function", what, g->tr, g->k, f);
			cr_expect_eq(s->frames[f].pc, want->fpc[f], "%s: trace %u snapshot %u frame %u "
				     "pc", what, g->tr, g->k, f);
			cr_expect_eq(s->frames[f].kind, LT_LUA_LUA);
		}
		framed += s->n > 0;
		checked++;
	}
	cr_assert_gt(framed, 5, "%s: no guard in an inlined frame", what);
	luatraces__delete(c);
}

/* -- Live runs -------------------------------------------------------------- */

/* The G-relative J->trace of the LuaJIT that pid runs (its VM file, detected). */
static uint32_t jit_trace_of(int pid)
{
	struct tmodel *m = tmodel__new();
	struct tproc *p = tmodel__proc(m, pid);
	const struct procmaps *pm = tproc__maps(p);
	uint32_t off = 0;

	for (size_t i = 0; i < pm->n && !off; i++) {
		struct tfile *f = pm->maps[i].exec ? tproc__file(p, i) : NULL;
		const struct luabuild *b = f && !tfile__image(f, NULL) ? luabuild__of_file(f) : NULL;

		if (b && b->supported && b->jit)
			off = b->off_jit_trace;
	}
	tmodel__delete(m);
	return off;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Parse OUT once the oracle has written "end" (within 30 s). */
static void wait_oracle(const char *path, struct oracle *o)
{
	for (int i = 0; i < 300; i++) {
		FILE *f = fopen(path, "r");
		char line[8192];
		int done = 0;

		if (f) {
			o->nt = o->ng = 0;
			while (!done && fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = 0;
				done = oracle_line(o, line);
			}
			fclose(f);
			if (done)
				return;
		}
		usleep(100000);
	}
	cr_assert_fail("the oracle did not finish: %s", path);
}

/* Write the oracle's lines and the memory regions read as a fixture. */
static void write_fixture(const char *path, const char *oracle, const struct memlog *m)
{
	FILE *in = fopen(oracle, "r"), *out = fopen(path, "w");
	char line[8192];

	cr_assert(in && out, "%s", path);
	fprintf(out, "# tests/unit/test_trace.c: trace_oracle.lua's output and the trace memory "
		"read; written with LUATOP_WRITE_FIXTURES=1\n");
	while (fgets(line, sizeof(line), in) && strncmp(line, "end", 3))
		fputs(line, out);
	for (unsigned i = 0; i < m->n; i++) {
		fprintf(out, "mem 0x%" PRIx64 " %zu ", m->r[i].addr, m->r[i].len);
		for (size_t k = 0; k < m->r[i].len; k++)
			fprintf(out, "%02x", m->r[i].bytes[k]);
		fputc('\n', out);
	}
	fputs("end\n", out);
	fclose(in);
	fclose(out);
}

static void live(const char *flavour, const char *luajit)
{
	char out[] = "/tmp/luatop-oracle-XXXXXX", done[64], off[16], fx[128];
	char *probe[] = { (char *)luajit, "-e",
			  "local ffi = require('ffi') ffi.cdef('int pause(void);') ffi.C.pause()", NULL };
	struct oracle *o = calloc(1, sizeof(*o));
	struct memlog *m = calloc(1, sizeof(*m));
	struct mreader r = { .read = log_read, .ctx = m };
	uint32_t jtrace;
	pid_t pid;
	int fd;

	if (access(luajit, X_OK))
		cr_skip_test("%s missing (make deps)", luajit);
	cr_assert(o && m);
	o->t = calloc(MAX_TRACES, sizeof(*o->t));
	cr_assert_not_null(o->t);
	pid = spawn(probe);
	for (int i = 0; i < 50 && !(jtrace = jit_trace_of(pid)); i++)
		usleep(20000);
	stop(pid);
	cr_assert_gt(jtrace, 0, "%s: no JIT build detected", luajit);
	fd = mkstemp(out);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(done, sizeof(done), "%s.done", out);
	snprintf(off, sizeof(off), "%u", jtrace);
	{
		char *argv[] = { (char *)luajit, "tests/workloads/trace_oracle.lua", out, done, off,
				 NULL };

		pid = spawn(argv);
	}
	wait_oracle(out, o);
	m->live = tmem__reader(pid);
	check(flavour, o, &r);
	if (getenv("LUATOP_WRITE_FIXTURES")) {
		snprintf(fx, sizeof(fx), "tests/fixtures/lua/trace-%s.fixture", flavour);
		write_fixture(fx, out, m);
	}
	close(open(done, O_CREAT | O_WRONLY, 0600));
	stop(pid);
	unlink(out);
	unlink(done);
	memlog_free(m);
	free(o->t);
	free(o);
	free(m);
}

Test(trace, oracle_openresty)
{
	live("openresty", "/usr/bin/luajit");
}

Test(trace, oracle_upstream)
{
	live("upstream", ".deps/luajit-upstream/usr/bin/luajit");
}

/* -- Fixtures ----------------------------------------------------------------------- */

static void replay(const char *flavour)
{
	char path[128], *line = malloc(1 << 20);
	struct oracle *o = calloc(1, sizeof(*o));
	struct memlog *m = calloc(1, sizeof(*m));
	struct mreader r = { .read = log_read, .ctx = m };
	FILE *f;

	snprintf(path, sizeof(path), "tests/fixtures/lua/trace-%s.fixture", flavour);
	f = fopen(path, "r");
	cr_assert(f && o && m && line, "%s", path);
	o->t = calloc(MAX_TRACES, sizeof(*o->t));
	while (fgets(line, 1 << 20, f)) {
		unsigned long long a;
		size_t len;
		int at;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "mem %llx %zu %n", &a, &len, &at) == 2) {
			struct region *g = &m->r[m->n++];

			cr_assert_leq(m->n, MEM_MAX);
			*g = (struct region){ .addr = a, .len = len, .bytes = malloc(len) };
			for (size_t k = 0; k < len; k++) {
				unsigned v;

				cr_assert_eq(sscanf(line + at + 2 * k, "%2x", &v), 1, "%s", path);
				g->bytes[k] = (uint8_t)v;
			}
			continue;
		}
		oracle_line(o, line);
	}
	fclose(f);
	check(path, o, &r);
	memlog_free(m);
	free(o->t);
	free(o);
	free(m);
	free(line);
}

Test(trace, fixture_openresty)
{
	replay("openresty");
}

Test(trace, fixture_upstream)
{
	replay("upstream");
}

/* A plausible GC64 GCtrace header of trace 3 at 0x1000 (its fields' offsets as
** in lua/trace.c), with the other words raw already holds. */
static void plausible_hdr(uint8_t raw[LT_TRACE_HDR])
{
	raw[9] = 9;					/* gct: ~LJ_TTRACE */
	raw[10] = 2;					/* nsnap */
	memcpy(raw + 12, &(uint32_t){ 0x8010 }, 4);	/* nins */
	memcpy(raw + 32, &(uint64_t){ 0x10000 }, 8);	/* ir */
	memcpy(raw + 40, &(uint32_t){ 0x7ff0 }, 4);	/* nk */
	memcpy(raw + 44, &(uint32_t){ 16 }, 4);		/* nsnapmap */
	memcpy(raw + 48, &(uint64_t){ 0x20000 }, 8);	/* snap */
	memcpy(raw + 56, &(uint64_t){ 0x30000 }, 8);	/* snapmap */
	memcpy(raw + 72, &(uint64_t){ 0x40000 }, 8);	/* startpc */
	memcpy(raw + 84, &(uint32_t){ 100 }, 4);	/* szmcode */
	memcpy(raw + 88, &(uint64_t){ 0x50000 }, 8);	/* mcode */
	memcpy(raw + 104, &(uint16_t){ 3 }, 2);		/* traceno */
}

/* Headers that are not a GCtrace, and traces that are gone, are told. */
Test(trace, bad_headers_and_gone_traces)
{
	uint8_t raw[LT_TRACE_HDR] = { 0 };
	struct luatrace_hdr h;
	struct luatraces *c = luatraces__new();
	struct memlog *m = calloc(1, sizeof(*m));
	struct mreader r = { .read = log_read, .ctx = m };
	const struct luatrace_snap *s;
	enum luatrace_why why;

	cr_assert_eq(luatrace__hdr(raw, sizeof(raw), 0x1000, &h), -EINVAL);	/* gct */
	raw[9] = 9;
	cr_assert_eq(luatrace__hdr(raw, sizeof(raw), 0x1000, &h), -EINVAL);	/* nsnap 0 */
	cr_assert_eq(luatrace__hdr(raw, 8, 0x1000, &h), -EINVAL);
	/* A plausible header whose memory cannot be read: the trace is gone. */
	plausible_hdr(raw);
	cr_assert_eq(luatrace__hdr(raw, sizeof(raw), 0x1000, &h), 0);
	cr_assert_eq(luatraces__snapshot(c, &r, &h, 0, 0x50010, LUATRACE_RULE_REGION, &s, &why), -1);
	cr_assert_eq(why, LUATRACE_WHY_GONE);
	cr_assert_eq(luatraces__snapshot(c, &r, &h, 0, 0x90000, LUATRACE_RULE_REGION, &s, &why), -1);
	cr_assert_eq(why, LUATRACE_WHY_OUTSIDE);
	cr_assert_str_eq(luatrace__why_text(LUATRACE_WHY_GONE), "trace flushed before its sample was read");
	/* A trace that failed to load is not read again. */
	cr_assert_eq(luatraces__stats(c)->loads, 1);
	cr_assert_eq(luatraces__snapshot(c, &r, &h, 0, 0x50010, LUATRACE_RULE_REGION, &s, &why), -1);
	cr_assert_eq(why, LUATRACE_WHY_GONE);
	cr_assert_eq(luatraces__stats(c)->loads, 1);
	luatraces__delete(c);
	free(m);
}

/*
** A trace's memory as luatop finds it after the sample: the header at 0x1000
** reads as hdr until the change_at-th read of it (1: the first), as later from
** then on; everything else reads as zeros.
*/
struct flushing {
	uint8_t hdr[LT_TRACE_HDR], later[LT_TRACE_HDR];
	unsigned reads, change_at;
};

static int flushing_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct flushing *f = ctx;

	if (addr == 0x1000 && len == LT_TRACE_HDR) {
		f->reads++;
		memcpy(buf, f->reads >= f->change_at ? f->later : f->hdr, len);
	} else {
		memset(buf, 0, len);
	}
	return 0;
}

/* The reason a sample's trace had, its header at 0x1000 changing at read n. */
static enum luatrace_why flushed_at(unsigned n, void (*change)(uint8_t *later))
{
	struct flushing f = { .change_at = n };
	struct mreader r = { .read = flushing_read, .ctx = &f };
	struct luatraces *c = luatraces__new();
	const struct luatrace_snap *s;
	enum luatrace_why why = LUATRACE_WHY_BAD;
	struct luatrace_hdr h;

	cr_assert_not_null(c);
	plausible_hdr(f.hdr);
	memcpy(f.later, f.hdr, sizeof(f.later));
	change(f.later);
	cr_assert_eq(luatrace__hdr(f.hdr, sizeof(f.hdr), 0x1000, &h), 0);
	cr_assert_eq(luatraces__snapshot(c, &r, &h, 0, 0x50010, LUATRACE_RULE_REGION, &s, &why), -1);
	cr_assert_geq(f.reads, n, "the header changed after the last read (%u)", f.reads);
	luatraces__delete(c);
	return why;
}

/* jit.flush() clears every trace's number (lj_trace_flushall); the GC frees it later. */
static void blacklisted(uint8_t *later)
{
	memset(later + 104, 0, 2);
}

/* The GC freed the trace and another took its memory: another start pc. */
static void reused(uint8_t *later)
{
	memcpy(later + 72, &(uint64_t){ 0x40100 }, 8);
}

/*
** A trace flushed before its sample was read is counted under that reason
** whichever read first sees it: the check before the copy (1), the copy's
** first header (2) or its last (3), the header flushed or the memory reused.
** A live process gives each case only by a race with the flush; here each is
** certain.
*/
Test(trace, flushed_between_sample_and_read)
{
	for (unsigned n = 1; n <= 3; n++) {
		cr_assert_eq(flushed_at(n, blacklisted), LUATRACE_WHY_GONE, "flushed, read %u", n);
		cr_assert_eq(flushed_at(n, reused), LUATRACE_WHY_GONE, "reused, read %u", n);
	}
}

/* A sample's raw header is parsed once and again only when its bytes change. */
Test(trace, header_memo_and_rules)
{
	uint8_t raw[LT_TRACE_HDR] = { 0 };
	struct luatrace_hdr h;
	struct luatraces *c = luatraces__new();

	cr_assert_eq(luatraces__header(c, raw, 0x1000, &h), -EINVAL);
	raw[9] = 9;
	raw[10] = 2;
	memcpy(raw + 84, &(uint32_t){ 100 }, 4);
	memcpy(raw + 88, &(uint64_t){ 0x50000 }, 8);
	memcpy(raw + 104, &(uint16_t){ 3 }, 2);
	memcpy(raw + 48, &(uint64_t){ 0x20000 }, 8);
	memcpy(raw + 56, &(uint64_t){ 0x30000 }, 8);
	memcpy(raw + 32, &(uint64_t){ 0x10000 }, 8);
	memcpy(raw + 40, &(uint32_t){ 0x7ff0 }, 4);
	memcpy(raw + 12, &(uint32_t){ 0x8010 }, 4);
	memcpy(raw + 44, &(uint32_t){ 16 }, 4);
	memcpy(raw + 72, &(uint64_t){ 0x40000 }, 8);
	cr_assert_eq(luatraces__header(c, raw, 0x1000, &h), 0);
	cr_assert_eq(h.traceno, 3);
	cr_assert_eq(luatraces__header(c, raw, 0x1000, &h), 0);
	memcpy(raw + 104, &(uint16_t){ 4 }, 2);
	cr_assert_eq(luatraces__header(c, raw, 0x1000, &h), 0);
	cr_assert_eq(h.traceno, 4);
	raw[9] = 0;	/* gct no more: not a trace */
	cr_assert_eq(luatraces__header(c, raw, 0x1000, &h), -EINVAL);
	for (int rule = 0; rule < LUATRACE_RULE__COUNT; rule++)
		cr_assert_eq(luatrace__rule_of(luatrace__rule_name(rule)), rule);
	cr_assert_eq(luatrace__rule_of("bogus"), -1);
	cr_assert_eq(luatrace__rule_of(NULL), -1);
	luatraces__delete(c);
}
