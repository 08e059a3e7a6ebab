/*
** luatop sampler: a perf_event program run on every CPU at the sampling rate.
** Filters to the target processes; unwinds the user stack from the compact
** .eh_frame tables user space loaded (unwind/lookup.h, unwind/step.h), records
** the kernel stack, and sends one lt_sample per hit through a ring buffer.
*/
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "wire/luatop.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load. */
const volatile __u32 capture_every = 0;	/* capture mode: every Nth sample, 0 = off */
const volatile __u64 wakeup_bytes = 1 << 20;	/* wake the reader past this much data */

#define LT_MAX_ROWS_DEFAULT	(1u << 20)
#define LT_MAX_RULES		(1u << 16)

/* tgid -> slot in uw_procs, for each process being profiled. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u32);
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

#define LT_INLINE __always_inline
#define LT_READ_USER(ctx, dst, size, addr) \
	bpf_probe_read_user((dst), (size), (const void *)(unsigned long)(addr))
#define LT_UW_ROW(ctx, idx) ({ __u32 _k = (idx); \
	(const struct lt_uw_row *)bpf_map_lookup_elem(&uw_rows, &_k); })
#define LT_UW_RULE(ctx, idx) ({ __u32 _k = (idx); \
	(const struct lt_uw_rule *)bpf_map_lookup_elem(&uw_rules, &_k); })
#define LT_UW_PROC(ctx, slot) ({ __u32 _k = (slot); \
	(const struct lt_uw_proc *)bpf_map_lookup_elem(&uw_procs, &_k); })
#define LT_UW_LOOP(n, cb, state) bpf_loop((n), (cb), (state), 0)
#include "unwind/step.h"
#include "unwind/lookup.h"
#include "lua/cframe.h"
#include "lua/walk.h"

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

/* The sample being built, and the unwinder's registers: too big for the stack. */
struct walk {
	struct lt_sample s;
	struct lt_uw_regs r;
	__u32 slot;		/* the process's uw_procs slot */
	__u8 how;		/* how the frame in r was reached */
	__u8 lua_on;		/* the process runs a supported LuaJIT and G is known */
	__u8 pad[2];
	__u64 count;		/* samples on this CPU, for capture_every */
	__u64 L;		/* lua_State whose cframe chain the native walk follows */
	__u64 walked_L;		/* lua_State whose Lua frames were walked last */
	struct lt_lua_walk lw;	/* the Lua walk in progress */
	struct lt_lua_cfg cfg;	/* copy of the process's LuaJIT facts */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_capture);
} capture_scratch SEC(".maps");

static __always_inline void count_drop(__u32 reason)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &reason);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* Number of frames bpf_get_stack() wrote, from its byte count or error. */
static __always_inline __u16 frames_of(long bytes)
{
	return bytes > 0 ? (__u16)((__u64)bytes / 8) : 0;
}

/* One Lua frame per call, into the sample's lua[]. */
static long lua_step(__u32 i, void *unused)
{
	__u32 zero = 0;
	struct walk *w = bpf_map_lookup_elem(&scratch, &zero);
	struct lt_lua_frame fr = {};
	__u16 n;
	int emit, done, skipped;

	if (!w)
		return 1;
	n = w->s.n_lua;
	if (n >= LT_MAX_LUA) {
		w->s.flags |= LT_SAMPLE_LUA_TRUNC;
		return 1;
	}
	skipped = w->lw.skip;
	done = lt_lua_walk_step(NULL, &w->lw, &fr, &emit);
	if (emit) {
		w->s.lua[n & (LT_MAX_LUA - 1)] = fr;
		w->s.n_lua = n + 1;
	} else if (skipped && n > 0) {
		/* A vararg function's real link is on its original frame. */
		w->s.lua[(n - 1) & (LT_MAX_LUA - 1)].link = fr.link;
	}
	if (done && w->lw.bad)
		w->s.flags |= LT_SAMPLE_LUA_TRUNC;
	return done;
}

/* Walk the Lua frames of L from base (0: L->base) into lua[]. */
static __always_inline void lua_walk(struct walk *w, __u64 L, __u64 base, __u64 pc)
{
	w->walked_L = L;
	if (lt_lua_walk_init(NULL, &w->lw, L, base, pc))
		return;
	bpf_loop(LT_MAX_LUA, lua_step, NULL, 0);
}

/* After a VM frame of another lua_State (a coroutine's resumer): its frames. */
static __always_inline void lua_switch(struct walk *w)
{
	__u16 n = w->s.n_lua;

	if (w->L == w->walked_L || n >= LT_MAX_LUA - 1)
		return;
	w->s.lua[n & (LT_MAX_LUA - 1)] = (struct lt_lua_frame){ .kind = LT_LUA_COROUTINE };
	w->s.n_lua = n + 1;
	lua_walk(w, w->L, 0, 0);
}

/* A pc in the VM: unwind with the cframe rule. -1 if not VM code. */
static __always_inline int vm_frame(struct walk *w, __u16 n)
{
	int rc;

	if (!w->lua_on || w->r.pc < w->cfg.vm_lo || w->r.pc >= w->cfg.vm_hi ||
	    (w->r.pc >= w->cfg.ffi_lo && w->r.pc < w->cfg.ffi_hi))
		return -1;
	w->s.user_how[n & (LT_MAX_USER - 1)] |= LT_HOW_F_VM;
	rc = lt_lj_step(NULL, w->s.G, &w->L, &w->r, &w->how);
	if (rc == LT_STOP__COUNT)
		lua_switch(w);
	/* No cframe found: the VM's own FDE (CFA = rsp+80) is the fallback. */
	return rc == LT_STOP_NO_RULE ? -1 : rc;
}

/* One user frame per call: record it, then step to its caller. */
static long walk_step(__u32 i, void *unused)
{
	__u32 zero = 0;
	struct walk *w = bpf_map_lookup_elem(&scratch, &zero);
	struct lt_uw_rule rule;
	__s64 row;
	__u16 n;
	int rc;

	if (!w)
		return 1;
	n = w->s.n_user;
	if (n >= LT_MAX_USER) {
		w->s.user_stop = LT_STOP_MAX_DEPTH;
		return 1;
	}
	w->s.user[n & (LT_MAX_USER - 1)] = w->r.pc;
	w->s.user_how[n & (LT_MAX_USER - 1)] = w->how;
	w->s.n_user = n + 1;
	if (w->how == LT_HOW_FP)
		w->s.flags |= LT_SAMPLE_FP_USED;

	rc = vm_frame(w, n);
	if (rc < 0) {
		rc = lt_uw_find_rule(NULL, w->slot, lt_frame_pc(w->r.pc, w->how), &rule,
				     &row);
		/* Code without tables: a JIT trace if the cframe rule finds its VM frame. */
		if (rc == LT_STOP__COUNT && rule.kind == LT_UW_FP && w->lua_on &&
		    lt_lj_step(NULL, w->s.G, &w->L, &w->r, &w->how) == LT_STOP__COUNT) {
			w->s.user_how[n & (LT_MAX_USER - 1)] |= LT_HOW_F_TRACE;
			lua_switch(w);
		} else if (rc == LT_STOP__COUNT) {
			rc = lt_uw_step(NULL, &rule, &w->r, &w->how);
		}
	}
	if (rc != LT_STOP__COUNT) {
		w->s.user_stop = rc;
		return 1;
	}
	return 0;
}

/* User registers the walks start from. */
struct uregs {
	__u64 pc, sp, bp;
	__u64 r14, rdx, rbx;	/* LuaJIT interpreter: DISPATCH, BASE, PC */
};

/*
** The user registers, from the task's pt_regs: the kernel saves them there on
** every entry from user mode, so they are right whether the sample interrupted
** user or kernel code. (Reading ctx->regs directly is fragile: clang may turn
** field loads into ctx pointer arithmetic, which the verifier rejects.)
*/
static __always_inline int user_regs(struct uregs *u)
{
	struct pt_regs regs;

	if (bpf_probe_read_kernel(&regs, sizeof(regs),
				  (void *)bpf_task_pt_regs(bpf_get_current_task_btf())))
		return -1;
	if (!(regs.cs & 3))
		return -1;	/* kernel thread: no user stack */
	u->pc = regs.rip;
	u->sp = regs.rsp;
	u->bp = regs.rbp;
	u->r14 = regs.r14;
	u->rdx = regs.rdx;
	u->rbx = regs.rbx;
	return 0;
}

/* Is G the global_State of a LuaJIT VM? (its cur_L points back to it) */
static __always_inline int valid_G(const struct lt_lua_cfg *cfg, __u64 G, __u64 *L)
{
	return G && !bpf_probe_read_user(L, sizeof(*L), (void *)(G + cfg->off_cur_L)) &&
	       lt_lj_is_L(NULL, *L, G);
}

/*
** The thread's global_State: DISPATCH (r14) minus GG_G2DISP where it holds
** (VM and trace code; often still in C called from Lua), else the one last
** validated on this thread.
*/
static __always_inline __u64 find_G(struct walk *w, const struct uregs *u, __u64 *L)
{
	__u32 tid = w->s.tid;
	__u64 G = u->r14 - w->cfg.g2disp, *cached;

	if (valid_G(&w->cfg, G, L)) {
		cached = bpf_map_lookup_elem(&gcache, &tid);
		if (!cached || *cached != G)
			bpf_map_update_elem(&gcache, &tid, &G, BPF_ANY);
		return G;
	}
	cached = bpf_map_lookup_elem(&gcache, &tid);
	if (cached && valid_G(&w->cfg, *cached, L))
		return *cached;
	return 0;
}

/*
** The pc a trace stands for: just past its first instruction (the loop or
** function it compiles), so the running function gets that line. 0 if unknown.
*/
static __always_inline __u64 trace_pc(struct walk *w, __u64 G, __s32 traceno)
{
	__u64 traces = 0, T = 0, pc = 0;

	if (!w->cfg.off_jit_trace || traceno <= 0 || traceno >= LT_LJ_TRACE_MAX ||
	    bpf_probe_read_user(&traces, sizeof(traces), (void *)(G + w->cfg.off_jit_trace)) ||
	    bpf_probe_read_user(&T, sizeof(T), (void *)(traces + 8ull * traceno)) || !T ||
	    bpf_probe_read_user(&pc, sizeof(pc), (void *)(T + LT_LJ_TRACE_STARTPC)) || !pc)
		return 0;
	return pc + 4;
}

/*
** Start the Lua walk at the running frame: BASE/PC registers in the
** interpreter, jit_base in a trace, else L->base with the innermost SAVE_PC.
*/
static __always_inline void lua_top(struct walk *w, const struct uregs *u)
{
	__u64 G = w->s.G, L = w->s.L, base = 0, pc = 0, cf = 0, tv = 0;
	__s32 st = 0;

	bpf_probe_read_user(&st, sizeof(st), (void *)(G + w->cfg.off_vmstate));
	w->s.vmstate = st;
	/* Frameless helpers (lj_vm_floor, lj_vm_mod...) keep BASE and PC too;
	** the ones that clobber rdx fail the function-tag check. */
	if (st == LT_LJ_VMST_INTERP && u->pc >= w->cfg.vm_lo && u->pc < w->cfg.vm_hi &&
	    !bpf_probe_read_user(&tv, sizeof(tv), (void *)(u->rdx - 16)) &&
	    (tv >> LT_LJ_TAG_SHIFT) == LT_LJ_TAG_FUNC) {
		base = u->rdx;
		pc = u->rbx;
	} else if (st >= 0) {
		bpf_probe_read_user(&base, sizeof(base), (void *)(G + w->cfg.off_jit_base));
		pc = trace_pc(w, G, st);
	} else if (!bpf_probe_read_user(&cf, sizeof(cf), (void *)(L + LT_LJ_L_CFRAME)) &&
		   (cf &= LT_LJ_CFRAME_RAWMASK) &&
		   !bpf_probe_read_user(&pc, sizeof(pc), (void *)(cf + LT_LJ_CFRAME_OFS_PC)) &&
		   pc == L) {
		pc = 0;		/* SAVE_PC == L: no Lua frame on top */
	}
	lua_walk(w, L, base, pc);
}

/* LuaJIT: find the VM, record vmstate, walk the running coroutine's frames. */
static __always_inline void lua_sample(struct walk *w, const struct uregs *u)
{
	__u32 idx = w->slot / 2;
	const struct lt_lua_cfg *cfg = bpf_map_lookup_elem(&lua_cfg, &idx);
	__u64 L = 0;

	w->lua_on = 0;
	w->s.G = w->s.L = 0;
	w->s.vmstate = 0;
	w->s.n_lua = 0;
	w->L = w->walked_L = 0;
	if (!cfg || !cfg->enabled)
		return;
	w->cfg = *cfg;
	w->s.flags |= LT_SAMPLE_LUA;
	w->s.G = find_G(w, u, &L);
	if (!w->s.G) {
		w->s.flags |= LT_SAMPLE_NO_G;
		return;
	}
	w->s.L = w->L = L;
	w->lua_on = 1;
	lua_top(w, u);
}

/* Capture mode: registers, a stack copy and the walk's result, for fixtures. */
static __always_inline void capture(struct walk *w, const struct lt_uw_regs *start)
{
	__u32 zero = 0;
	struct lt_capture *c = bpf_map_lookup_elem(&capture_scratch, &zero);
	const void *sp = (const void *)(unsigned long)start->sp;

	if (!c)
		return;
	c->type = LT_WIRE_CAPTURE;
	c->pc = start->pc;
	c->sp = start->sp;
	c->bp = start->bp;
	/* A read that crosses the end of the stack fails whole, and the main
	** thread's sp often sits within a page of it: copy up to the next page
	** boundary, then whole pages, and stop at the first that faults. */
	__u32 head = 4096 - (start->sp & 4095), off;

	c->stack_len = 0;
	if (head > 4096 || bpf_probe_read_user(c->stack, head, sp))
		goto out;
	c->stack_len = head;
	for (int i = 0; i < LT_CAPTURE_STACK / 4096 - 1; i++) {
		off = c->stack_len;
		if (off > LT_CAPTURE_STACK - 4096 ||
		    bpf_probe_read_user(c->stack + off, 4096, (const char *)sp + off))
			break;
		c->stack_len = off + 4096;
	}
out:
	if (bpf_probe_read_kernel(&c->sample, sizeof(c->sample), &w->s))
		return;
	if (bpf_ringbuf_output(&samples, c, sizeof(*c), 0))
		count_drop(LT_DROP_RINGBUF_FULL);
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0, *slot;
	struct lt_uw_regs start;
	struct uregs u;
	struct walk *w;
	__u64 flags;
	long n;

	slot = bpf_map_lookup_elem(&targets, &tgid);
	if (!slot)
		return 0;
	w = bpf_map_lookup_elem(&scratch, &zero);
	if (!w) {
		count_drop(LT_DROP_NO_SCRATCH);
		return 0;
	}
	w->s.type = LT_WIRE_SAMPLE;
	w->s.tgid = tgid;
	w->s.tid = (__u32)id;
	w->s.cpu = bpf_get_smp_processor_id();
	w->s.time_ns = bpf_ktime_get_ns();
	w->s.n_user = 0;
	w->s.flags = 0;
	w->s.user_stop = LT_STOP_MAX_DEPTH;
	w->slot = *slot;
	w->how = LT_HOW_LEAF;

	w->lua_on = 0;
	w->s.n_lua = 0;
	w->s.G = w->s.L = 0;
	w->s.vmstate = 0;
	if (user_regs(&u)) {
		w->s.flags |= LT_SAMPLE_USER_ERR;
		w->s.user_stop = LT_STOP_KERNEL_ONLY;
	} else {
		w->r.pc = u.pc;
		w->r.sp = u.sp;
		w->r.bp = u.bp;
		start = w->r;
		lua_sample(w, &u);
		bpf_loop(LT_MAX_USER, walk_step, NULL, 0);
	}

	n = bpf_get_stack(ctx, w->s.kernel, sizeof(w->s.kernel), 0);
	if (n < 0)
		w->s.flags |= LT_SAMPLE_KERNEL_ERR;
	w->s.n_kernel = frames_of(n);

	/* A wakeup per sample costs more than the whole walk (an irq_work,
	** ~8 us in a VM): user space polls on a timer and is woken only when
	** the ring fills up. */
	flags = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) > wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&samples, &w->s, sizeof(w->s), flags))
		count_drop(LT_DROP_RINGBUF_FULL);
	if (capture_every && !(w->s.flags & LT_SAMPLE_USER_ERR) &&
	    ++w->count % capture_every == 0)
		capture(w, &start);
	return 0;
}
