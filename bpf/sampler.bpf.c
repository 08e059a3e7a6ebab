/*
** luatop sampler: a perf_event program run on every CPU at the sampling rate.
** Filters to the target processes; walks the user stack and the LuaJIT frames
** with the shared walk driver (walk/driver.h) over the tables user space loaded,
** records the kernel stack, and sends one lt_sample per hit through a ring
** buffer. In capture mode every Nth sample also goes out with the registers and
** every user-memory read its walk made (struct lt_capture), for fixtures.
*/
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "wire/luatop.h"
#include "unwind/pageindex.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load. */
const volatile __u32 capture_every = 0;	/* capture mode: every Nth sample, 0 = off */
const volatile __u64 wakeup_bytes = 1 << 20;	/* wake the reader past this much data */

#define LT_MAX_ROWS_DEFAULT	(1u << 20)
#define LT_MAX_RULES		(1u << 16)

/* tgid -> its slot in uw_procs and the slot's generation, for each process
** being profiled. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct lt_uw_target);
} targets SEC(".maps");

/* Two slots per target: user space rewrites the idle one, then flips targets[]. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct lt_uw_proc);
} uw_procs SEC(".maps");

/* Rows of every loaded file, appended to by user space through mmap. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LT_MAX_ROWS_DEFAULT);	/* resized by the loader */
	__type(key, __u32);
	__type(value, struct lt_uw_row);
} uw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LT_MAX_RULES);
	__type(key, __u32);
	__type(value, struct lt_uw_rule);
} uw_rules SEC(".maps");

/* The files' page indexes (unwind/pageindex.h), appended to like the rows. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LT_MAX_ROWS_DEFAULT / 4);	/* resized by the loader */
	__type(key, __u32);
	__type(value, struct lt_uw_pidx);
} uw_pidx SEC(".maps");

/* Narrow a row search with the file's page index. */
static __always_inline void pidx_narrow(const struct lt_uw_mapping *m, __u32 key, __u32 *lo,
					__u32 *hi)
{
	__s64 i = lt_pidx_block(m, key);
	__u32 k = (__u32)i;
	const struct lt_uw_pidx *b;

	if (i < 0)
		return;
	b = bpf_map_lookup_elem(&uw_pidx, &k);
	if (b)
		lt_pidx_narrow(m, b, lo, hi);
}

static __always_inline long logged_read(void *ctx, void *dst, __u32 size, __u64 addr);
static __always_inline struct lt_walk *walk_state(void);
static __always_inline long stack_read(void *ctx, __u64 *dst, __u64 addr);
static __always_inline void lua_window(void *ctx, __u64 lo, __u64 end);
static __always_inline long lua_stack_read(void *ctx, __u64 *dst, __u32 size, __u64 addr);
static __always_inline void g_window(void *ctx, __u64 G);
static __always_inline long g_read(void *ctx, void *dst, __u32 size, __u64 addr);

#define LT_INLINE __always_inline
#define LT_READ_USER(ctx, dst, size, addr) logged_read((ctx), (dst), (size), (addr))
#define LT_READ_STACK(ctx, dst, addr) stack_read((ctx), (dst), (addr))
#define LT_LUA_WINDOW(ctx, lo, end) lua_window((ctx), (lo), (end))
#define LT_READ_LUA(ctx, dst, size, addr) lua_stack_read((ctx), (dst), (size), (addr))
#define LT_G_WINDOW(ctx, G) g_window((ctx), (G))
#define LT_READ_G(ctx, dst, size, addr) g_read((ctx), (dst), (size), (addr))
#define LT_UW_ROW(ctx, idx) ({ __u32 _k = (idx); \
	(const struct lt_uw_row *)bpf_map_lookup_elem(&uw_rows, &_k); })
#define LT_UW_RULE(ctx, idx) ({ __u32 _k = (idx); \
	(const struct lt_uw_rule *)bpf_map_lookup_elem(&uw_rules, &_k); })
#define LT_UW_PROC(ctx, slot) ({ __u32 _k = (slot); \
	(const struct lt_uw_proc *)bpf_map_lookup_elem(&uw_procs, &_k); })
#define LT_UW_LOOP(n, cb, state) bpf_loop((n), (cb), (state), 0)
#define LT_UW_NARROW(ctx, m, key, lo, hi) pidx_narrow((m), (key), (lo), (hi))
/* bpf_loop's callback context must point to the stack: callbacks find the walk
** in its per-CPU map instead. Each step is a global function (below): the
** verifier checks a bpf_loop callback again and again until its states
** converge, and a step inlined in its callback took 80% of the program's
** verification (0.4M instructions, 1.5 s at start-up on kernel 6.18.44). The
** rule lookup's search steps too: inlined in their callbacks they took 70% of
** what was left (global functions, their state on the caller's stack). */
int walk_user_step(void);
int walk_lua_step(void);
struct lt_map_search;
struct lt_row_search;
int uw_map_steps(struct lt_map_search *s);
int uw_row_steps(struct lt_row_search *s);
#define LT_UW_MAP_STEPS(s) uw_map_steps(s)
#define LT_UW_ROW_STEPS(s) uw_row_steps(s)
int walk_lua_switch(void);
#define LT_WALK_STATE(arg) walk_state()
#define LT_WALK_ARG(w) NULL
#define LT_WALK_USER_STEP(arg) walk_user_step()
#define LT_WALK_LUA_STEP(arg) walk_lua_step()
#define LT_WALK_LUA_SWITCH(arg) walk_lua_switch()
int walk_lj_step(void);
#define LT_WALK_LJ_STEP(w) walk_lj_step()
#define LT_LOOKUP_CTX(w) NULL
#include "unwind/lookup.h"

static __always_inline int memo_find_rule(struct lt_walk *w, __u64 pc, struct lt_uw_rule *out,
					  __s64 *row);
#define LT_FIND_RULE(w, pc, rule, row) memo_find_rule((w), (pc), (rule), (row))
#include "walk/driver.h"

struct lt_korc;
static __always_inline int korc_find(void *ctx, __u64 ip, struct lt_korc *o);
#define LT_KREAD(ctx, addr, val) bpf_probe_read_kernel((val), 8, (const void *)(unsigned long)(addr))
#define LT_KORC_FIND(ctx, ip, orc) korc_find((ctx), (ip), (orc))
#include "unwind/korc.h"

#define LT_PACK_COPY(dst, src, n) bpf_probe_read_kernel((dst), (n), (src))
#define LT_PACK_BOUND(x) asm volatile("" : "+r"(x))
#include "wire/pack.h"
#include "walk/window.h"

/*
** The stack window (walk/window.h): the user stack from a read of the walk up,
** as much as this CPU's last windows were read, in reads that each stay in one
** page. Most of a native walk's reads (return addresses, saved rbp, the VM's
** cframes) land there: 8-byte reads inside it are loads from the copy. The
** walk's first stack read copies a window, and so does one above it, up to
** STACK_FILLS a walk: a frame with a large buffer on the stack leaves most of
** a window unread (demo.lua's stacks had a frame of 8.9 KB in luajit) and the
** frames beyond it in the next window. The buffer's size is a power of two
** for the verifier, past what is ever copied.
*/
#define STACK_BUF	(2 * LT_WIN_STACK_MAX)
#define STACK_FILLS	4

/*
** The Lua window: the top of the Lua stack being walked, below the running
** frame's base, as deep as this CPU's last Lua walks went, in one read when a
** Lua walk starts. Each Lua frame's function and link (16 bytes) were a read
** of their own; deeper frames than the window holds still are.
*/
#define LUA_BUF		LT_WIN_LUA_MAX

/*
** The G window: the part of the VM's GG_State the walk reads (G's vmstate,
** cur_L, jit_base and trace array, the main lua_State's fields: lt_lj_gwin),
** copied in one read when the walk takes G for the thread's VM. They were four
** to six reads of ~130 ns.
*/
#define GWIN_BUF	2048

/*
** The mappings the last rule searches found, per CPU: a memo miss (a pc the
** walks had not met: a leaf in a C function's loop, in a JIT trace) seldom
** needs the search over the process's mappings, which read nine entries of a
** table that is cold by the next sample.
*/
#define MRU_MAPS	4

/* A trace header a record of this CPU's batch carries (wire/pack.h). */
struct hdr_seen {
	__u64 T;		/* its trace: the latest header of T in the batch */
	__u32 off;		/* where it is in the batch's data */
	__u32 seq;		/* the batch's seq: a batch sent since, it is gone */
};

/* The walk state, with what only the sampler keeps. */
struct sampler_walk {
	struct lt_walk w;	/* first: the driver's reads get &w as their ctx */
	__u64 count;		/* samples on this CPU, for capture_every */
	__u32 generation;	/* of the tables this sample's slot holds */
	__u8 capturing;		/* this sample is captured: log its reads */
	__u8 busy;		/* an off-CPU walk or a flush is using this scratch */
	struct lt_uregs u;	/* the sampled user registers (here, not on the BPF stack) */
	__u64 Gt;		/* the thread's cached G when the walk began, 0 none */
	__u64 stk_sp;		/* the sampled sp */
	__u64 stk_lo;		/* the stack window: from here */
	__u64 stk_n;		/* bytes copied; 0: none */
	__u64 stk_top;		/* bytes of it the walk read, from its start */
	__u64 stk_reach;	/* the most of that over this walk's windows */
	__u32 stk_want;		/* bytes the next stack window copies */
	__u32 lua_want;		/* bytes the next Lua window copies */
	__u32 stk_fills;	/* stack windows copied in this walk */
	__u8 stk[STACK_BUF + 8];
	__u64 lua_lo;		/* the Lua window: from this address */
	__u64 lua_n;		/* bytes copied; 0: none */
	__u64 lua_end;		/* the end of the Lua stack walked; 0: none since learned */
	__u64 lua_low;		/* the lowest frame slot that walk read */
	__u8 lua[LUA_BUF + 16];
	__u64 g_lo;		/* the G window: from this address */
	__u64 g_n;		/* bytes copied; 0: none */
	__u8 g[GWIN_BUF + 128];	/* room past the mask for the largest read served */
	struct lt_uw_mapping mru[MRU_MAPS];
	__u32 mru_gen[MRU_MAPS];	/* the tables' generation of each; 0: empty */
	__u32 mru_next;			/* the one replaced next */
	struct lt_kwalk kw;		/* the kernel walk in progress (unwind/korc.h) */
	__u32 kw_n;			/* frames it recorded */
	__u32 kw_rc;			/* its last step's LT_KORC_* */
	__u32 kw_check;			/* it records into kcheck, not the sample */
	__u32 kw_pad;
	__u64 kcheck[LT_MAX_KERNEL];	/* check mode: the ORC walk's frames */
	struct hdr_seen hdr[2];	/* trace headers in this CPU's batch; [0] the one used last */
};

/*
** Rule memo: what lt_uw_find_rule answered for a pc, per CPU, in sets of two
** ways, with the span of pcs the answer holds for (its row's:
** lt_uw_rule_span). A search costs two bpf_loop binary searches and three or
** four cache misses; a hit is one. A leaf's pc differs from sample to sample
** but mostly stays in its row (a loop in a C function; the span of JIT code is
** its whole mapping), so the span makes most leaves hits too.
** Two keys: an answer spanning less than a page is kept in the set of the
** pc's 64-byte granule, a wider one (JIT code, a long interpreter row) in the
** set of the pc's page, so that one entry answers for a whole page of a trace
** instead of one per granule. A lookup tries the granule's set, then the
** page's. A hit in way[1] swaps the ways: way[0] is the one used last.
** The key holds the tables' generation, which user space makes new on every
** publish, so a rewrite or a reused slot never hits old entries.
** Small on purpose: 128 sets a CPU, 8 KiB. This VM flushes the TLB on every
** interrupt from user mode (PTI without PCID), so each 4 KiB page of vmalloc
** memory a sample touches costs a page walk, ~100 ns, over 1 us when the page
** tables went cold too; 4096 sets spread a sample's lookups over ~12 pages.
** 8 KiB a CPU is 2 pages, and on up to 4 CPUs the whole map is small enough
** for the kernel to take it from kmalloc, in the direct map's huge pages
** (docs/PERFORMANCE.md, "The TLB"). With the page key, misses stay ~0.2 a
** sample (luajit clib.lua; 0.1 with 4096 sets).
** A plain array, each CPU's entries at cpu << MEMO_BITS, not a per-CPU one:
** a per-CPU array's lookup first reads the element's pointer from a table of
** its own, a second cache miss per frame (the target's work between two
** samples leaves little of the sampler in the caches). Only the CPU itself
** writes its part, and never while its walk is in use (busy).
*/
#define MEMO_BITS	7
#define MEMO_GRAIN	6	/* bytes of code per key of a narrow answer: 64 */
#define MEMO_WIDE	12	/* per key of an answer spanning 4 KiB or more */

/* The set of a code address in a CPU's part of a memo of 1 << bits sets, by
** its (1 << grain)-byte granule (a Fibonacci hash: nearby granules spread).
** The rule memo and the kernel's ORC memo both. */
static __always_inline __u32 memo_key(__u32 cpu, __u64 addr, unsigned grain, unsigned bits)
{
	return (cpu << bits) | (__u32)(((addr >> grain) * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

struct rule_memo {
	__u64 lo, hi;		/* the pcs [lo, hi) have this answer */
	__u32 generation;	/* 0: empty */
	__u16 slot;
	__u8 rc;		/* lt_uw_find_rule's result */
	__u8 pad;
	struct lt_uw_rule rule;
};

struct memo_set {
	struct rule_memo way[2];	/* way[0] the one filled last */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << MEMO_BITS);	/* resized by the loader: CPUs << MEMO_BITS */
	__type(key, __u32);
	__type(value, struct memo_set);
} memo SEC(".maps");

/* The walk of the sample being taken: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sampler_walk);
} scratch SEC(".maps");

/* The mapping of pc, from the ones found last when it is one of them. */
static __always_inline int mru_mapping(struct sampler_walk *sw, __u64 pc, struct lt_uw_mapping *out)
{
	__u32 gen = sw->generation, i;
	int rc;

	for (i = 0; i < MRU_MAPS; i++) {
		const struct lt_uw_mapping *m = &sw->mru[i];

		if (sw->mru_gen[i] == gen && pc >= m->start && pc < m->end) {
			*out = *m;
			return LT_STOP__COUNT;
		}
	}
	rc = lt_uw_find_mapping(NULL, sw->w.slot, pc, out);
	if (rc == LT_STOP__COUNT) {
		i = sw->mru_next++ & (MRU_MAPS - 1);
		sw->mru[i] = *out;
		sw->mru_gen[i] = gen;
	}
	return rc;
}

/* Does memo entry m answer for pc in the tables of this walk? */
static __always_inline int memo_hit(const struct rule_memo *m, __u32 gen, __u32 slot, __u64 pc)
{
	return m->generation == gen && m->slot == slot && pc >= m->lo && pc < m->hi;
}

/* The entry of set that answers for pc, moved to way[0]; NULL: none. */
static __always_inline struct rule_memo *memo_in(struct memo_set *set, __u32 gen, __u32 slot,
						 __u64 pc)
{
	struct rule_memo used;

	if (memo_hit(&set->way[0], gen, slot, pc))
		return &set->way[0];
	if (!memo_hit(&set->way[1], gen, slot, pc))
		return NULL;
	used = set->way[1];
	set->way[1] = set->way[0];
	set->way[0] = used;
	return &set->way[0];
}

/* lt_uw_find_rule through the memo (row: -1 on a hit; only fixtures use it). */
static __always_inline int memo_find_rule(struct lt_walk *w, __u64 pc, struct lt_uw_rule *out,
					  __s64 *row)
{
	__u32 gen = ((struct sampler_walk *)w)->generation;
	__u32 key = memo_key(w->s.cpu, pc, MEMO_GRAIN, MEMO_BITS);
	__u32 wkey = memo_key(w->s.cpu, pc, MEMO_WIDE, MEMO_BITS);
	struct memo_set *set = bpf_map_lookup_elem(&memo, &key);
	struct memo_set *wide = bpf_map_lookup_elem(&memo, &wkey);
	struct rule_memo *m;
	int rc;

	if (!set || !wide || !gen)
		return lt_uw_find_rule(NULL, w->slot, pc, out, row);
	m = memo_in(set, gen, w->slot, pc);
	if (!m)
		m = memo_in(wide, gen, w->slot, pc);
	if (!m) {
		struct lt_uw_mapping map;
		__u64 lo = pc, hi = pc + 1;

		rc = mru_mapping((struct sampler_walk *)w, pc, &map);
		if (rc == LT_STOP__COUNT) {
			rc = lt_uw_mapping_rule(NULL, &map, pc, out, row);
			lt_uw_rule_span(NULL, &map, *row, pc, &lo, &hi);
		}
		if (hi - lo >= 1ull << MEMO_WIDE)
			set = wide;
		set->way[1] = set->way[0];
		m = &set->way[0];
		m->lo = lo;
		m->hi = hi;
		m->generation = gen;
		m->slot = (__u16)w->slot;
		m->rc = (__u8)rc;
		m->rule = rc == LT_STOP__COUNT ? *out : (struct lt_uw_rule){ 0 };
	}
	/* Hit or not, the answer comes from an entry: both ways leave the
	** verifier the same state, explored once. */
	*row = -1;
	*out = m->rule;
	return m->rc;
}

static __always_inline struct lt_walk *walk_state(void)
{
	__u32 zero = 0;
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &zero);

	return sw ? &sw->w : NULL;
}

/* One loop call's steps of the mapping and row searches (unwind/lookup.h). */
__attribute__((noinline)) int uw_map_steps(struct lt_map_search *s)
{
	return s ? lt_uw_map_steps(s) : 1;
}

__attribute__((noinline)) int uw_row_steps(struct lt_row_search *s)
{
	return s ? lt_uw_row_steps(s) : 1;
}

/* One user frame of the walk in progress (lt_walk_frame_step): verified once. */
__attribute__((noinline)) int walk_user_step(void)
{
	return lt_walk_frame_step(walk_state());
}

/* The cframe rule's step out of the walk's VM or trace frame (lt_walk_lj_step):
** verified once, not at each call site. */
__attribute__((noinline)) int walk_lj_step(void)
{
	struct lt_walk *w = walk_state();

	return w ? lt_walk_lj_step(w) : LT_STOP_NO_RULE;
}

/* One Lua frame of the walk in progress (lt_walk_lua_frame_step): verified once. */
__attribute__((noinline)) int walk_lua_step(void)
{
	return lt_walk_lua_frame_step(walk_state());
}

/* The Lua frames of the lua_State a user frame's step moved to (lt_walk_lua_switch). */
__attribute__((noinline)) int walk_lua_switch(void)
{
	lt_walk_lua_switch(walk_state());
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_capture);
} capture_scratch SEC(".maps");

/* Capture mode: log one read of the walk, in chunks of LT_READ_CHUNK bytes
** (never called when capture_every is 0: the verifier knows the constant and
** drops the branch). */
static __always_inline void log_read(const void *dst, __u32 size, __u64 addr, long rc)
{
	__u32 zero = 0, n;
	struct lt_capture *c = bpf_map_lookup_elem(&capture_scratch, &zero);

	if (!c)
		return;
	for (__u32 off = 0; off < LT_TRACE_HDR && off < size; off += LT_READ_CHUNK) {
		__u32 len = size - off < LT_READ_CHUNK ? size - off : LT_READ_CHUNK, idx;
		struct lt_read *e;

		n = c->n_reads;
		if (n >= LT_CAPTURE_READS) {
			c->reads_lost++;
			return;
		}
		/* Mask behind a barrier, which clang cannot see through (it would
		** drop the mask after the check): the verifier needs the bound on
		** the register that indexes. */
		idx = n;
		asm volatile("" : "+r"(idx));
		e = &c->reads[idx & (LT_CAPTURE_READS - 1)];
		e->addr = addr + off;
		e->size = len;
		e->rc = (__s32)rc;
		e->data = 0;
		if (!rc)
			bpf_probe_read_kernel(&e->data, len & (2 * LT_READ_CHUNK - 1),
					      (const char *)dst + off);
		c->n_reads = n + 1;
	}
}

/* Every user-memory read of the walk. */
static __always_inline long logged_read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	long rc = bpf_probe_read_user(dst, size, (const void *)(unsigned long)addr);

	if (capture_every && ctx && ((struct sampler_walk *)ctx)->capturing)
		log_read(dst, size, addr, rc);
	return rc;
}

int stack_window(__u64 addr);

/* Is [addr, addr + 8) in the stack window? Its offset there into *off. */
static __always_inline int in_stack_window(const struct sampler_walk *sw, __u64 addr, __u64 *off)
{
	*off = addr - sw->stk_lo;
	return *off < sw->stk_n && sw->stk_n - *off >= 8;	/* below: off wrapped around */
}

/* An 8-byte read of the walk that is likely on the stack: from the stack window
** when it is there, else from a window copied from there, else a plain read. */
static __always_inline long stack_read(void *ctx, __u64 *dst, __u64 addr)
{
	struct sampler_walk *sw = ctx;
	__u64 off;

	if (!in_stack_window(sw, addr, &off)) {
		stack_window(addr);
		if (!in_stack_window(sw, addr, &off))
			return logged_read(ctx, dst, sizeof(*dst), addr);
	}
	if (off + 8 > sw->stk_top)
		sw->stk_top = off + 8;
	*dst = *(const __u64 *)(sw->stk + (off & (STACK_BUF - 1)));
	if (capture_every && sw->capturing)
		log_read(dst, sizeof(*dst), addr, 0);
	return 0;
}

/* One read of a stack window's plan, its size bounded for the verifier. */
#define STACK_PART(sw, p, off, i) ({						\
	__u64 _n = (p).part[i];							\
	LT_PACK_CLAMP(_n, LT_WIN_PAGE);						\
	bpf_probe_read_user((sw)->stk + (off), _n,				\
			    (const void *)(unsigned long)((p).lo + (off)));	\
})

/* A stack window is done with: how much of it the walk read. */
static __always_inline void stack_window_done(struct sampler_walk *sw)
{
	if (sw->stk_top > sw->stk_reach)
		sw->stk_reach = sw->stk_top;
	sw->stk_top = 0;
}

/*
** A stack read at addr missed the window: copy one from there (walk/window.h)
** when it is above the window (the walk goes up the stack), in the stack's top
** 64 KB (else it came from a broken frame) and the walk has copied fewer than
** STACK_FILLS. A global function, verified once: every stack read of the walk
** may call it. No branch on the reads' results: it would make the verifier
** explore the rest of the program once per outcome.
*/
__attribute__((noinline)) int stack_window(__u64 addr)
{
	__u32 zero = 0;
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &zero);
	struct lt_win_plan p;
	__u64 off1;
	long rc0, rc1;

	if (!sw || sw->stk_fills >= STACK_FILLS || (sw->stk_n && addr < sw->stk_lo) ||
	    addr < sw->stk_sp || addr - sw->stk_sp >= 65536)
		return 0;
	stack_window_done(sw);
	lt_win_stack_plan(&p, addr, sw->stk_want);
	off1 = p.part[0];
	LT_PACK_CLAMP(off1, LT_WIN_PAGE);
	rc0 = STACK_PART(sw, p, 0, 0);
	rc1 = p.part[1] ? STACK_PART(sw, p, off1, 1) : 0;
	sw->stk_lo = p.lo;
	sw->stk_n = lt_win_valid(&p, rc0, rc1);
	sw->stk_fills++;
	return 0;
}

/* The walk takes G for the thread's VM: copy its G window, unless it has. */
static __always_inline void g_window(void *ctx, __u64 G)
{
	struct sampler_walk *sw = ctx;
	__u64 lo = G + (__s64)sw->w.cfg.gwin_off, n = sw->w.cfg.gwin_len;
	long rc;

	if (sw->g_n && sw->g_lo == lo)
		return;
	LT_PACK_CLAMP(n, GWIN_BUF);
	rc = bpf_probe_read_user(sw->g, n, (const void *)(unsigned long)lo);
	sw->g_lo = lo;
	sw->g_n = n & ~(__u64)(rc >> 63);
}

/* A read of G's fields or a lua_State's: from the G window when it is there
** (size is a constant at every caller: the copy is a few loads). Word by word:
** every caller's dst is aligned, and a memcpy clang cannot see aligned is a
** load and a store per byte. */
static __always_inline long g_read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	struct sampler_walk *sw = ctx;
	__u64 off = addr - sw->g_lo;
	const __u8 *src;

	if (off >= sw->g_n || sw->g_n - off < size)	/* also below the window */
		return logged_read(ctx, dst, size, addr);
	src = sw->g + (off & (GWIN_BUF - 1));
	if (size % 8 == 0)
		for (__u32 i = 0; i < size / 8; i++)
			((__u64 *)dst)[i] = *(const __u64 *)(src + 8 * i);
	else if (size == 4)
		*(__u32 *)dst = *(const __u32 *)src;
	else
		__builtin_memcpy(dst, src, size);
	if (capture_every && sw->capturing)
		log_read(dst, size, addr, 0);
	return 0;
}

/* The Lua walk since the last window ended: learn how deep it went. */
static __always_inline void lua_window_learn(struct sampler_walk *sw)
{
	if (!sw->lua_end)
		return;
	sw->lua_want = lt_win_learn(sw->lua_want, sw->lua_end - sw->lua_low, LT_WIN_LUA_MAX);
	sw->lua_end = 0;
}

/* A Lua walk starts with its frames in [lo, end): copy the top of that. No
** branch on the read's result (see stack_window). */
static __always_inline void lua_window(void *ctx, __u64 lo, __u64 end)
{
	struct sampler_walk *sw = ctx;
	__u32 n32;
	__u64 start, n;
	long rc;

	if (sw->lua_end == end && sw->lua_n)
		return;		/* copied for the check of the interpreter's BASE */
	lua_window_learn(sw);	/* a coroutine's resumer: the walk of the one before */
	start = lt_win_lua_plan(lo, end, sw->lua_want, &n32);
	n = n32;
	asm volatile("" : "+r"(n));
	if (n > LUA_BUF)
		n = 0;
	asm volatile("" : "+r"(n));
	rc = bpf_probe_read_user(sw->lua, n, (const void *)(unsigned long)start);
	sw->lua_lo = start;
	sw->lua_n = n & ~(__u64)(rc >> 63);
	sw->lua_end = end;
	sw->lua_low = end;
}

/* A read of a Lua frame's slots, 16 bytes (its function and link) or 8 (a
** continuation's): from the Lua window when they are in it. */
static __always_inline long lua_stack_read(void *ctx, __u64 *dst, __u32 size, __u64 addr)
{
	struct sampler_walk *sw = ctx;
	__u64 off = addr - sw->lua_lo;

	if (addr < sw->lua_low)
		sw->lua_low = addr;
	if (off >= sw->lua_n || sw->lua_n - off < size)	/* also below the window */
		return logged_read(ctx, dst, size, addr);
	off &= LUA_BUF - 1;
	dst[0] = *(const __u64 *)(sw->lua + off);
	if (size == 16)
		dst[1] = *(const __u64 *)(sw->lua + off + 8);
	if (capture_every && sw->capturing)
		log_read(dst, size, addr, 0);
	return 0;
}

/* LuaJIT build facts per target (index: slot / 2); enabled = 0 if none. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct lt_lua_cfg);
} lua_cfg SEC(".maps");

/* tid -> global_State last validated on that thread: samples in plain C code
** (nginx's event loop, a C library) still find their VM. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} gcache SEC(".maps");

/* tgid -> the global_State seen in that process, while it is the only one: a
** thread sampled in C code before it was ever seen in the VM (whose r14 holds
** something else, and that has no gcache entry yet) still finds its VM. A
** process that shows a second G (several Lua states) never uses it again. */
struct proc_G {
	__u64 G;
	__u64 several;		/* a different G was seen too */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2 * LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct proc_G);
} pgcache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* resized by the loader before load */
} samples SEC(".maps");

/* Counters indexed by enum lt_drop, summed over CPUs by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_DROP__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Add n to entry key of the per-CPU counter array map (drops, offstats,
** kstats): atomically, as a CPU sample may interrupt an off-CPU walk's count. */
static __always_inline void counter_add(void *map, __u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);

	if (v)
		__sync_fetch_and_add(v, n);
}

static __always_inline void count_drop(__u32 reason)
{
	counter_add(&drops, reason, 1);
}

/* Number of frames bpf_get_stack() wrote, from its byte count or error. */
static __always_inline __u16 frames_of(long bytes)
{
	return bytes > 0 ? (__u16)((__u64)bytes / 8) : 0;
}

/*
** The user registers, from the task's pt_regs: the kernel saves them there on
** every entry from user mode, so they are right whether the sample interrupted
** user or kernel code. Loaded field by field through the BTF pointer
** bpf_task_pt_regs returns (a fault reads 0): a copy of the whole struct was
** 168 bytes of BPF stack, which the verifier's 512-byte limit for a call chain
** could not spare. (Reading ctx->regs directly is fragile: clang may turn
** field loads into ctx pointer arithmetic, which the verifier rejects.)
*/
static __always_inline int user_regs(struct lt_uregs *u)
{
	const struct pt_regs *regs = (const struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	if (!(regs->cs & 3))
		return -1;	/* kernel thread: no user stack */
	u->pc = regs->rip;
	u->sp = regs->rsp;
	u->bp = regs->rbp;
	u->r14 = regs->r14;
	u->rdx = regs->rdx;
	u->rbx = regs->rbx;
	return 0;
}

/* The thread's last validated global_State, 0 if none. */
static __always_inline __u64 cached_G(__u32 tid)
{
	__u64 *G = bpf_map_lookup_elem(&gcache, &tid);

	return G ? *G : 0;
}

/* Keep the global_State the walk validated from r14 for the thread's later samples. */
static __always_inline void cache_G(__u32 tid, __u64 had, __u64 G)
{
	if (G && G != had)
		bpf_map_update_elem(&gcache, &tid, &G, BPF_ANY);
}

/* The process's only G so far, 0 if none or several. */
static __always_inline __u64 process_G(__u32 tgid)
{
	struct proc_G *p = bpf_map_lookup_elem(&pgcache, &tgid);

	return p && !p->several ? p->G : 0;
}

/* Note a G found from the registers of a thread of tgid. */
static __always_inline void note_process_G(__u32 tgid, __u64 G)
{
	struct proc_G *p = bpf_map_lookup_elem(&pgcache, &tgid), n = { .G = G };

	if (!p)
		bpf_map_update_elem(&pgcache, &tgid, &n, BPF_NOEXIST);
	else if (p->G != G)
		p->several = 1;
}

/*
** A walk that did not know the thread's G but met VM code: the G its cframe
** names, cached for the thread's next samples. A global function, verified
** once on its own: inlined, or as a static function verified at each path
** that calls it, its branches on what it reads multiplied the verifier's work
** through the rest of the program (verification two to four times longer).
*/
__attribute__((noinline)) int learn_G(__u32 tgid, __u32 tid, __u64 had)
{
	struct lt_walk *w = walk_state();

	if (!w)
		return 0;
	lt_walk_G_from_cframe(w);
	if (!w->found_G)
		return 0;
	cache_G(tid, had, w->found_G);
	note_process_G(tgid, w->found_G);
	return 1;
}

/* Capture mode: start logging this sample's reads. */
static __always_inline void capture_begin(struct sampler_walk *sw, const struct lt_uregs *u,
					  __u64 G, int own)
{
	__u32 zero = 0;
	struct lt_capture *c = bpf_map_lookup_elem(&capture_scratch, &zero);

	sw->capturing = 0;
	if (!c || ++sw->count % capture_every)
		return;
	c->type = LT_WIRE_CAPTURE;
	c->n_reads = 0;
	c->reads_lost = 0;
	c->regs = *u;
	c->cached_G = G;
	c->cached_own = own;
	sw->capturing = 1;
}

/* Capture mode: the walk's result after its reads, to the ring. */
static __always_inline void capture_end(struct sampler_walk *sw)
{
	__u32 zero = 0;
	struct lt_capture *c = bpf_map_lookup_elem(&capture_scratch, &zero);

	sw->capturing = 0;
	if (!c || bpf_probe_read_kernel(&c->sample, sizeof(c->sample), &sw->w.s))
		return;
	if (bpf_ringbuf_output(&samples, c, sizeof(*c), 0))
		count_drop(LT_DROP_RINGBUF_FULL);
}

/*
** The start of a walk of the current thread (of tgid, whose tables are in
** uw_procs slot slot, of that generation) into the scratch's sample: the
** header, the user registers, the LuaJIT state and the running coroutine's Lua
** frames. 1 when the user stack is to be walked next (walk_user). The walk is
** two global functions, each verified once however many programs and places
** call it, called one after the other so that their BPF stack frames never add
** up in one chain of calls.
*/
__attribute__((noinline)) int walk_begin(__u32 tgid, __u32 tid, __u32 slot, __u32 generation)
{
	__u32 zero = 0;
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &zero);
	const struct lt_lua_cfg *cfg;
	struct lt_walk *w;
	__u64 G0, Gt;
	__u32 idx;

	if (!sw)
		return 0;
	w = &sw->w;

	w->s.type = LT_WIRE_SAMPLE;
	w->s.tgid = tgid;
	w->s.tid = tid;
	w->s.cpu = bpf_get_smp_processor_id();
	w->s.time_ns = bpf_ktime_get_ns();
	w->slot = slot;
	sw->generation = generation;
	sw->capturing = 0;
	sw->stk_n = 0;
	sw->stk_top = 0;
	sw->stk_reach = 0;
	sw->stk_fills = 0;
	sw->stk_sp = 0;
	sw->lua_n = 0;
	sw->g_n = 0;
	sw->Gt = 0;
	if (user_regs(&sw->u)) {
		lt_walk_reset(w);
		w->s.flags |= LT_SAMPLE_USER_ERR;
		w->s.user_stop = LT_STOP_KERNEL_ONLY;
		return 0;
	}
	sw->stk_sp = sw->u.sp;
	idx = w->slot / 2;
	cfg = bpf_map_lookup_elem(&lua_cfg, &idx);
	Gt = cfg && cfg->enabled ? cached_G(tid) : 0;
	G0 = Gt || !cfg || !cfg->enabled ? Gt : process_G(tgid);
	sw->Gt = Gt;
	if (capture_every)
		capture_begin(sw, &sw->u, G0, Gt != 0);
	lt_walk_begin(w, &sw->u, cfg, G0, Gt != 0);
	if (w->G_from_regs) {
		cache_G(tid, Gt, w->s.G);
		note_process_G(tgid, w->s.G);
	}
	return 1;
}

/* The rest of the walk that walk_begin started: the user stack, then what the
** next walks on this CPU learn from it. */
__attribute__((noinline)) int walk_user(__u32 tgid, __u32 tid)
{
	__u32 zero = 0;
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &zero);

	if (!sw)
		return 0;
	lt_walk_user(&sw->w);
	/* How much of its stack windows this walk read, how deep in the Lua stack. */
	stack_window_done(sw);
	if (sw->stk_reach)
		sw->stk_want = lt_win_learn(sw->stk_want, sw->stk_reach, LT_WIN_STACK_MAX);
	lua_window_learn(sw);
	learn_G(tgid, tid, sw->Gt);
	return 0;
}

/* Walk the current thread into the scratch's sample. The kernel stack and the
** event are the caller's. */
static __always_inline void walk_current(__u32 tgid, __u32 tid, const struct lt_uw_target *t)
{
	struct lt_uw_target at = *t;	/* one word: a publish meanwhile gives old or new */

	if (walk_begin(tgid, tid, at.slot, at.generation))
		walk_user(tgid, tid);
}

/* Each CPU's batch of samples on their way to the ring (struct lt_batch). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_batch);
} batch SEC(".maps");

/*
** Send the batch b holds to the ring and empty it. The ring's fill is asked
** here, once a batch: the query reads the reader's position, a line the
** reader's CPU writes. A wakeup costs more than the whole walk (an irq_work,
** ~8 us in a VM): user space polls on a timer and is woken only when the ring
** is filling up, or when code the tables do not know runs (wake: a library just
** mapped, a new JIT area): until user space loads it, every sample there is cut
** short, so it is told now, not at its next timer.
*/
static __always_inline void batch_send(struct lt_batch *b, int wake)
{
	__u64 size = LT_BATCH_HEAD + (__u64)b->len;
	__u64 flags;

	asm volatile("" : "+r"(size));
	if (size > sizeof(*b))	/* for the verifier: len never exceeds the data */
		size = sizeof(*b);
	flags = wake || bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) > wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	b->type = LT_WIRE_BATCH;
	if (bpf_ringbuf_output(&samples, b, size, flags))
		counter_add(&drops, LT_DROP_RINGBUF_FULL, b->n);
	b->len = 0;
	b->n = 0;
	b->seq++;
}

/* Is the trace header the sample read the same as the one at off in batch b,
** in every byte user space reads (a trace flushed and another built at the
** same address differs)? Not the first nine bytes: the GC's link and mark
** change with every GC cycle, and nothing reads them. */
#define HDR_SAME_FROM	9	/* GCHeader.gct: the first byte luatop reads */

static __always_inline int hdr_same(const struct lt_batch *b, __u64 off, const __u64 *now)
{
	asm volatile("" : "+r"(off));
	if (off > LT_BATCH_BYTES - LT_TRACE_HDR)
		return 0;
#pragma unroll
	for (int i = HDR_SAME_FROM / 8; i < LT_TRACE_HDR / 8; i++) {
		__u64 x = *(const __u64 *)(b->data + off + 8 * i) ^ now[i];

		if (i == HDR_SAME_FROM / 8)
			x >>= 8 * (HDR_SAME_FROM % 8);
		if (x)
			return 0;
	}
	return 1;
}

/*
** The sample about to be packed at off in batch b: when it runs a trace whose
** header a record of the batch carries unchanged, it leaves it out
** (LT_SAMPLE_HDR_AS_BEFORE, wire/pack.h); else its record carries it and is the
** one to refer to for that trace. Two traces are kept: a CPU's samples in JIT
** code often alternate between two (fixed.lua's as often as they stay in one).
** Never for a captured sample, whose replay compares it whole.
*/
static __always_inline void hdr_share(struct sampler_walk *sw, const struct lt_batch *b, __u64 off)
{
	struct lt_sample *s = &sw->w.s;
	struct hdr_seen *h = sw->hdr, seen;
	int i = -1;

	if (!s->trace_T)
		return;
	if (h[0].seq == b->seq && h[0].T == s->trace_T)
		i = 0;
	else if (h[1].seq == b->seq && h[1].T == s->trace_T)
		i = 1;
	if (i >= 0 && b->n && !sw->capturing && hdr_same(b, h[i].off, (const __u64 *)s->trace_hdr)) {
		s->flags |= LT_SAMPLE_HDR_AS_BEFORE;
		seen = h[i];
	} else {
		seen = (struct hdr_seen){ .T = s->trace_T, .seq = b->seq,
					  .off = (__u32)off + lt_sample_hdr_offset(s->n_user, s->n_kernel,
										   s->n_lua) };
	}
	if (i != 0)
		h[1] = h[0];
	h[0] = seen;
}

/* Add the walked sample to this CPU's batch, packed to what it holds; send the
** batch when it is due (struct lt_batch). */
static __always_inline void send_sample(struct sampler_walk *sw)
{
	struct lt_walk *w = &sw->w;
	struct lt_batch *b = bpf_map_lookup_elem(&batch, &(__u32){ 0 });
	__u64 off;
	int wake;

	if (!b) {
		count_drop(LT_DROP_NO_SCRATCH);
		return;
	}
	off = b->len;
	asm volatile("" : "+r"(off));
	if (off > LT_BATCH_BYTES - sizeof(w->s)) {	/* never: sent once past it */
		batch_send(b, 0);
		off = 0;
	}
	if (!b->n)
		b->first_ns = w->s.time_ns;
	hdr_share(sw, b, off);
	b->len = off + lt_sample_pack(b->data + off, &w->s);
	w->s.flags &= ~LT_SAMPLE_HDR_AS_BEFORE;
	b->n++;
	wake = (w->s.flags & LT_SAMPLE_NEW_CODE) != 0;
	if (wake || sw->capturing || b->len > LT_BATCH_BYTES - sizeof(w->s) ||
	    w->s.time_ns - b->first_ns >= LT_BATCH_AGE_NS)
		batch_send(b, wake);
	if (capture_every && sw->capturing)
		capture_end(sw);
}

/* send_sample of this CPU's walk, as a function of its own: verified once, and
** the packing's spilled registers stay out of the frame of each program that
** walks (syscall_done's chain of calls, down to walk_lj_step's stack reads, must
** fit in 512 bytes of stack). */
__attribute__((noinline)) int send_walked(void)
{
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &(__u32){ 0 });

	if (sw)
		send_sample(sw);
	return 0;
}

/* User space's periodic flush, run on each CPU (BPF_PROG_TEST_RUN): what a
** batch holds goes out even when its CPU samples no more. A walk in progress
** on this CPU (busy) sends it soon enough; while this sends, a CPU sample that
** interrupts it finds the scratch busy and is counted as dropped. */
SEC("raw_tp")
int flush(void *ctx)
{
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &(__u32){ 0 });
	struct lt_batch *b = bpf_map_lookup_elem(&batch, &(__u32){ 0 });

	if (!sw || !b || sw->busy || !b->n)
		return 0;
	sw->busy = 1;
	batch_send(b, 0);
	sw->busy = 0;
	return 0;
}

/* -- Kernel stacks (unwind/korc.h) -------------------------------------------- */

/*
** Where the kernel's ORC tables are: written by user space once the sampler is
** attached (reading /proc/kallsyms for them takes 30 ms of CPU that the start-up
** need not wait for), korc_n last; until then the kernel's unwinder takes every
** kernel stack. Written once, from 0, and n is read first (x86 keeps the order).
*/
volatile __u64 korc_text_lo, korc_text_hi;	/* _stext, _etext */
volatile __u64 korc_ip_table;	/* __start_orc_unwind_ip: sorted s32, relative */
volatile __u64 korc_table;	/* __start_orc_unwind: 6-byte entries */
volatile __u64 korc_tramp0, korc_tramp1;	/* return_to_handler, rethook's */
volatile __u32 korc_n;		/* entries in the two tables */
/* Set by the loader: 0 leaves the walk out of the program (LUATOP_KSTACK=kernel,
** a kernel older than 6.4); else the frames at most (kernel.perf_event_max_stack). */
const volatile __u32 korc_max = 0;
const volatile __u32 kstack_check = 0;	/* walk both ways and count the differences */

/* Counters indexed by enum lt_kstat, summed over CPUs by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_KSTAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} kstats SEC(".maps");

static __always_inline void kstat(__u32 what)
{
	counter_add(&kstats, what, 1);
}

/*
** The ORC entries found, per CPU, in sets of four by the ip's 16-byte granule,
** each with the span of ips it holds for (to the next entry's ip, cut to the
** core kernel's text): kernel code never changes, so an entry is good for the
** run. A lookup in the kernel's tables is a binary search over all of them
** (the kernel's own block index, orc_lookup, is not in /proc/kallsyms): ~19
** reads of lines the target's work evicted, ~2 us. An entry is 16 bytes (the
** span as offsets into the text), a set one 64-byte line: 128 sets a CPU hold
** 512 entries in 8 KiB, small for the TLB's sake like the rule memo. Two ways
** of 24 bytes missed on ~3% of the frames of fixed.lua's page faults, whose
** stacks meet a few hundred distinct ips; 2048 sets of two only on the first
** sight of each (docs/PERFORMANCE.md, "The ORC memo").
*/
#define KMEMO_BITS	7
#define KMEMO_GRAIN	4	/* bytes of kernel code per key: 16 */
#define KMEMO_WAYS	4

struct korc_memo {
	__u32 lo;		/* ips text_lo + [lo, lo + len) have this entry */
	__u32 len;		/* 0: empty */
	__u64 raw;		/* its 6 bytes */
};

struct korc_set {
	struct korc_memo way[KMEMO_WAYS];	/* way[0] the one used last */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << KMEMO_BITS);	/* resized by the loader: CPUs << KMEMO_BITS */
	__type(key, __u32);
	__type(value, struct korc_set);
} korc_memo SEC(".maps");

struct korc_search {
	__u64 ip;
	__u32 lo, hi;		/* candidates: entries [lo, hi) */
	__s64 found;		/* the last entry whose ip <= the ip, -1 none */
};

/* The ip entry i stands for: its slot's address plus the offset it holds. */
static __always_inline int korc_ip_of(__u32 i, __u64 *ip)
{
	__u64 slot = korc_ip_table + 4ull * i;
	__s32 off;

	if (bpf_probe_read_kernel(&off, sizeof(off), (const void *)(unsigned long)slot))
		return -1;
	*ip = slot + (__s64)off;
	return 0;
}

static long korc_search_cb(__u32 i, void *arg)
{
	struct korc_search *s = arg;

	for (int k = 0; k < LT_SEARCH_UNROLL; k++) {
		__u32 mid;
		__u64 at;

		if (s->lo >= s->hi)
			return 1;
		mid = s->lo + (s->hi - s->lo) / 2;
		if (korc_ip_of(mid, &at)) {
			s->found = -1;
			return 1;
		}
		if (at <= s->ip) {
			s->found = mid;
			s->lo = mid + 1;
		} else {
			s->hi = mid;
		}
	}
	return 0;
}

/* The entry of ip from the kernel's tables, into *m with its span in the core
** kernel's text (ip is in it): 0, or -1. */
static __always_inline int korc_lookup(__u64 ip, struct korc_memo *m)
{
	struct korc_search s = { .ip = ip, .lo = 0, .hi = korc_n, .found = -1 };
	__u64 raw = 0, lo, hi = korc_text_hi, text = korc_text_lo;
	__u32 f;

	bpf_loop(LT_SEARCH_CALLS(24), korc_search_cb, &s, 0);
	if (s.found < 0 || s.lo < s.hi)
		return -1;
	f = (__u32)s.found;
	if (korc_ip_of(f, &lo) ||
	    bpf_probe_read_kernel(&raw, LT_KORC_ENTRY_SIZE,
				  (const void *)(unsigned long)(korc_table + (__u64)LT_KORC_ENTRY_SIZE * f)) ||
	    (f + 1 < korc_n && korc_ip_of(f + 1, &hi)))
		return -1;
	if (lo < text)
		lo = text;
	if (hi > korc_text_hi)
		hi = korc_text_hi;
	if (hi <= lo || hi - text > 0xffffffffull)
		return -1;
	m->lo = (__u32)(lo - text);
	m->len = (__u32)(hi - lo);
	m->raw = raw;
	return 0;
}

/* Does memo entry m hold for the ip at offset off into the text? */
static __always_inline int korc_hit(const struct korc_memo *m, __u32 off)
{
	return off - m->lo < m->len;
}

/* LT_KORC_FIND: the ORC entry of ip (in the core kernel's text: the walk
** checked), through this CPU's memo; a hit moves to way[0], a miss fills it. */
static __always_inline int korc_find(void *ctx, __u64 ip, struct lt_korc *o)
{
	struct sampler_walk *sw = ctx;
	__u32 key = memo_key(sw->w.s.cpu, ip, KMEMO_GRAIN, KMEMO_BITS);
	struct korc_set *set = bpf_map_lookup_elem(&korc_memo, &key);
	__u32 off = (__u32)(ip - korc_text_lo);
	struct korc_memo found;
	int i;

	if (!set)
		return -1;
	for (i = 0; i < KMEMO_WAYS; i++)
		if (korc_hit(&set->way[i], off))
			break;
	if (i < KMEMO_WAYS) {
		found = set->way[i];
	} else {
		if (korc_lookup(ip, &found) || !korc_hit(&found, off))
			return -1;
		i = KMEMO_WAYS - 1;
	}
#pragma unroll
	for (int j = KMEMO_WAYS - 1; j > 0; j--)
		if (j <= i)
			set->way[j] = set->way[j - 1];
	set->way[0] = found;
	*o = lt_korc_decode(found.raw);
	return 0;
}

/* Record the frame the walk is at, or see that the stack ends. 1: stop. */
static __always_inline int korc_record(struct sampler_walk *sw)
{
	int r = lt_kwalk_recordable(&sw->kw);
	__u32 n = sw->kw_n;

	if (r <= 0 || n >= korc_max || n >= LT_MAX_KERNEL) {
		if (r < 0)
			sw->kw_rc = LT_KORC_KERNEL;
		return 1;
	}
	if (sw->kw_check)
		sw->kcheck[n & (LT_MAX_KERNEL - 1)] = sw->kw.ip;
	else
		sw->w.s.kernel[n & (LT_MAX_KERNEL - 1)] = sw->kw.ip;
	sw->kw_n = n + 1;
	return 0;
}

/* One kernel frame of the walk in progress: record it, step to its caller.
** A global function, verified once. 1: stop. */
__attribute__((noinline)) int korc_frame(void)
{
	__u32 zero = 0;
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &zero);

	if (!sw || sw->kw_rc != LT_KORC_GO || korc_record(sw))
		return 1;
	sw->kw_rc = lt_kwalk_step(sw, &sw->kw);
	return sw->kw_rc != LT_KORC_GO;
}

static long korc_frame_cb(__u32 i, void *arg)
{
	return korc_frame() != 0;
}

/*
** The kernel stack of a sample that interrupted the kernel at ip, sp, bp (cs),
** from the ORC tables, into the sample's kernel[] (check: into kcheck[]). The
** number of frames, or -1 when the kernel's unwinder must take it. A global
** function, verified once.
*/
__attribute__((noinline)) int korc_walk(__u64 ip, __u64 sp, __u64 bp, __u64 cs, int check)
{
	__u32 zero = 0;
	struct sampler_walk *sw = bpf_map_lookup_elem(&scratch, &zero);
	struct lt_kwalk *k;
	__u64 top;

	if (!sw)
		return -1;
	k = &sw->kw;
	/* The task's stack: its pt_regs sit at the top (16 KB stacks, no KASAN). */
	top = (__u64)(unsigned long)bpf_task_pt_regs(bpf_get_current_task_btf()) + 168;
	*k = (struct lt_kwalk){ .ip = ip, .sp = sp, .bp = bp, .sample_bp = bp, .sample_cs = cs,
				.stack_lo = top - 16384, .stack_hi = top,
				.text_lo = korc_text_lo, .text_hi = korc_text_hi,
				.tramp = { korc_tramp0, korc_tramp1 },
				.regs_kind = LT_KREGS_SAMPLE, .signal = 1 };
	sw->kw_check = check;
	if (check)
		sw->kcheck[0] = ip;
	else
		sw->w.s.kernel[0] = ip;
	sw->kw_n = 1;
	if (sp < k->stack_lo || sp >= k->stack_hi)
		return -1;	/* an IRQ or exception stack */
	sw->kw_rc = lt_kwalk_step(sw, k);	/* the sampled frame's caller */
	if (sw->kw_rc == LT_KORC_GO)
		bpf_loop(LT_MAX_KERNEL, korc_frame_cb, NULL, 0);
	return sw->kw_rc == LT_KORC_KERNEL ? -1 : (int)sw->kw_n;
}

/* Check mode: do the two walks agree (n frames from ORC in kcheck[])? */
static __always_inline int korc_same(struct sampler_walk *sw, long n)
{
	__u32 nk = sw->w.s.n_kernel;

	if (n != nk)
		return 0;
	for (__u32 i = 0; i < LT_MAX_KERNEL; i++) {
		if (i >= nk)
			break;
		if (sw->kcheck[i] != sw->w.s.kernel[i])
			return 0;
	}
	return 1;
}

/* The kernel stack of a CPU sample that interrupted the kernel, into the sample. */
static __always_inline void kernel_stack(struct bpf_perf_event_data *ctx, struct sampler_walk *sw)
{
	long n = -1, m;

	if (korc_max && korc_n)
		n = korc_walk(ctx->regs.rip, ctx->regs.rsp, ctx->regs.rbp, ctx->regs.cs, kstack_check);
	if (n >= 0 && !kstack_check) {
		kstat(LT_KSTAT_ORC);
		sw->w.s.n_kernel = (__u16)n;
		return;
	}
	m = bpf_get_stack(ctx, sw->w.s.kernel, sizeof(sw->w.s.kernel), 0);
	if (m < 0)
		sw->w.s.flags |= LT_SAMPLE_KERNEL_ERR;
	sw->w.s.n_kernel = frames_of(m);
	kstat(n >= 0 ? LT_KSTAT_ORC : LT_KSTAT_KERNEL);
	if (n >= 0) {
		kstat(LT_KSTAT_CHECKED);
		if (!korc_same(sw, n))
			kstat(LT_KSTAT_DIFFER);
	}
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0;
	const struct lt_uw_target *target;
	struct sampler_walk *sw;

	target = bpf_map_lookup_elem(&targets, &tgid);
	if (!target)
		return 0;
	sw = bpf_map_lookup_elem(&scratch, &zero);
	if (!sw) {
		count_drop(LT_DROP_NO_SCRATCH);
		return 0;
	}
	/* This CPU was walking a thread for its off-CPU sample when the perf
	** event's NMI came: the scratch is in use. */
	if (sw->busy) {
		count_drop(LT_DROP_BUSY);
		return 0;
	}
	walk_current(tgid, (__u32)id, target);
	sw->w.s.event = LT_EVENT_CPU;
	sw->w.s.weight_ns = 0;
	/* Interrupted in user mode: there is no kernel stack to walk. */
	sw->w.s.n_kernel = 0;
	if ((ctx->regs.cs & 3) != 3)
		kernel_stack(ctx, sw);
	send_walked();
	return 0;
}

/* -- A command's exec (luatop -- COMMAND) ------------------------------------ */

/*
** A command luatop starts is a target from its fork on, so that its first
** instructions after the exec are sampled; until the exec it runs luatop's own
** code, and the execve system call keeps those user registers up to its end.
** Its samples from then are no use (walked in a copy of luatop, named in the
** command's maps), so the time the exec ends is noted here, once: user space
** leaves out what came before (as perf's enable_on_exec does).
*/
volatile __u32 exec_tgid;	/* the command's process; 0: none (user space sets it) */
volatile __u64 exec_ns;		/* when its first exec ended; 0: not yet */

/* sched_process_exec(p, old_pid, bprm): after the new image's registers are set. */
SEC("tp_btf/sched_process_exec")
int exec_done(__u64 *ctx)
{
	if (exec_tgid && bpf_get_current_pid_tgid() >> 32 == exec_tgid && !exec_ns)
		exec_ns = bpf_ktime_get_ns();
	return 0;
}

/* -- Off-CPU time (-e offcpu, -e wall) --------------------------------------- */

/*
** A target thread's time off CPU is measured from its switch-out (sched_switch,
** the thread current) to its switch-in (sched_switch of the thread that makes
** way for it), and sent as a sample when its system call returns (sys_exit):
** then the thread is current again with the user registers and stack it
** blocked with, so the walk is the one a CPU sample would make there, and only
** blocks longer than --min-block pay for it. A system call may block several
** times (a futex, a read in parts): its blocks add up. The kernel stack of its
** first block is kept at the switch-out.
*/
const volatile __u64 min_block_ns = 1000000;	/* --min-block */

struct block {
	__u64 t_out;		/* when the thread last switched out; 0: on CPU */
	__u64 blocked_ns;	/* time blocked in this system call so far */
	__u64 pc, sp;		/* its user registers then: its sys_exit has the same */
	__u32 runnable;		/* the last switch-out was a preemption, not a block */
	__u32 n_kernel;		/* valid entries in kernel[]; 0: not taken yet */
	__u64 kernel[LT_MAX_KERNEL];
};

/* Per thread, in the task itself: found without a hash lookup at every context
** switch and system call of the host, created only for target threads, freed
** when the thread exits. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct block);
} blocks SEC(".maps");

/* Counters indexed by enum lt_offstat, summed over CPUs by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_OFF__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} offstats SEC(".maps");

static __always_inline void offstat_add(__u32 what, __u64 n)
{
	counter_add(&offstats, what, n);
}

struct task_struct;	/* the kernel's: luatop only passes pointers to it on */

/* The block state of task t; created (zeroed) when create is set, else NULL if none. */
static __always_inline struct block *block_of(struct task_struct *t, int create)
{
	return bpf_task_storage_get(&blocks, t, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The user pc and sp the current thread entered the kernel with. */
static __always_inline int user_pc_sp(__u64 *pc, __u64 *sp)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	return bpf_probe_read_kernel(pc, sizeof(*pc), &r->rip) |
	       bpf_probe_read_kernel(sp, sizeof(*sp), &r->rsp);
}

/* Task t switches in: the time since its switch-out ends. */
static __always_inline void switched_in(struct task_struct *t, __u64 now)
{
	struct block *b = block_of(t, 0);
	__u64 d;

	if (!b || !b->t_out)
		return;
	d = now - b->t_out;
	b->t_out = 0;
	if (b->runnable)
		offstat_add(LT_OFF_RUNNABLE_NS, d);
	else
		b->blocked_ns += d;
}

/* The current thread, of a target, switches out: blocked, or preempted. */
static __always_inline void switched_out(void *ctx, __u64 now, int blocked)
{
	struct block *b = block_of((struct task_struct *)bpf_get_current_task_btf(), 1);
	__u64 pc, sp;

	if (!b)
		return;
	b->t_out = now;
	b->runnable = !blocked;
	if (!blocked || user_pc_sp(&pc, &sp))
		return;
	if (b->blocked_ns && (b->pc != pc || b->sp != sp)) {
		/* Time of an earlier block that no system call's return claimed:
		** it blocked in a page fault. */
		offstat_add(LT_OFF_OTHER_NS, b->blocked_ns);
		b->blocked_ns = 0;
		b->n_kernel = 0;
	}
	b->pc = pc;
	b->sp = sp;
	if (!b->n_kernel)
		b->n_kernel = frames_of(bpf_get_stack(ctx, b->kernel, sizeof(b->kernel), 0));
}

/* sched_switch(preempt, prev, next, prev_state), with prev current. */
SEC("tp_btf/sched_switch")
int switch_task(__u64 *ctx)
{
	struct task_struct *next = (struct task_struct *)ctx[2];
	__u64 now = bpf_ktime_get_ns();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	int blocked = !ctx[0] && (__u32)ctx[3] != 0;	/* not TASK_RUNNING */

	switched_in(next, now);
	if (bpf_map_lookup_elem(&targets, &tgid))
		switched_out(ctx, now, blocked);
	return 0;
}

/*
** sys_exit of an mmap that mapped a file's code into a target (PROT_EXEC, not
** anonymous: LuaJIT's machine code is, and the sampler flags it as it meets it):
** struct lt_new_code to user space. Tested in order of cost: every system call
** of the host comes here.
*/
static __always_inline void note_new_code(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	struct lt_new_code rec = { .type = LT_WIRE_NEW_CODE };

	if (regs->orig_rax != 9 /* mmap */ || (long)ctx[1] < 0 ||
	    !(regs->rdx & 4 /* PROT_EXEC */) || (regs->r10 & 0x20 /* MAP_ANONYMOUS */))
		return;
	rec.tgid = bpf_get_current_pid_tgid() >> 32;
	if (bpf_map_lookup_elem(&targets, &rec.tgid))
		bpf_ringbuf_output(&samples, &rec, sizeof(rec), 0);
}

/* sys_exit(regs, ret): a system call that blocked returns; walk it. */
SEC("tp_btf/sys_exit")
int syscall_done(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), pc, sp, blocked;
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0, nk;
	const struct lt_uw_target *target;
	struct sampler_walk *sw;
	struct block *b = block_of((struct task_struct *)bpf_get_current_task_btf(), 0);

	note_new_code(ctx);
	if (!b || !b->blocked_ns)
		return 0;
	blocked = b->blocked_ns;
	nk = b->n_kernel;
	b->blocked_ns = 0;
	b->n_kernel = 0;
	if (user_pc_sp(&pc, &sp) || pc != b->pc || sp != b->sp) {
		offstat_add(LT_OFF_OTHER_NS, blocked);
		return 0;
	}
	if (blocked < min_block_ns) {
		offstat_add(LT_OFF_SHORT, 1);
		offstat_add(LT_OFF_SHORT_NS, blocked);
		return 0;
	}
	target = bpf_map_lookup_elem(&targets, &tgid);
	sw = bpf_map_lookup_elem(&scratch, &zero);
	if (!target || !sw) {
		count_drop(target ? LT_DROP_NO_SCRATCH : LT_DROP_NO_TARGET_SLOT);
		return 0;
	}
	/* A tracing program runs with migration disabled, not preemption: the
	** thread that preempted this CPU's walk may return from its own system
	** call here. The walk in progress keeps the scratch. */
	if (sw->busy) {
		count_drop(LT_DROP_BUSY);
		return 0;
	}
	offstat_add(LT_OFF_BLOCKS, 1);
	offstat_add(LT_OFF_BLOCKED_NS, blocked);
	sw->busy = 1;
	walk_current(tgid, tid, target);
	/* The thread's G was unknown until its walk met a VM frame: walk again with
	** it (a thread that blocks without ever running Lua on a sampling tick). */
	if (sw->w.found_G && !sw->w.s.G)
		walk_current(tgid, tid, target);
	sw->w.s.event = LT_EVENT_OFFCPU;
	sw->w.s.weight_ns = blocked;
	sw->w.s.n_kernel = nk < LT_MAX_KERNEL ? (__u16)nk : LT_MAX_KERNEL;
	if (bpf_probe_read_kernel(sw->w.s.kernel, sizeof(sw->w.s.kernel), b->kernel))
		sw->w.s.n_kernel = 0;
	send_walked();
	sw->busy = 0;
	return 0;
}
