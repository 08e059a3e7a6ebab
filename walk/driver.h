/*
** The walk of one sampled thread, written once: compiled into the BPF sampler
** and into the user-space replayer (walk/replay.c), which the unit tests run
** over fixtures captured from live processes.
**
** Order of a walk (lt_walk_begin, then lt_walk_frame until it says stop):
**   1. LuaJIT, if the process runs it: the thread's global_State (DISPATCH in
**      r14 minus G2DISP, validated; else the one last validated on the thread),
**      vmstate, and the Lua frames of the running coroutine from the top frame
**      (BASE/PC registers in the interpreter, jit_base in a trace, L->base).
**   2. Per user frame: record it; a pc in the VM steps out with the cframe rule
**      (lua/cframe.h), and a VM frame of another lua_State adds that thread's Lua
**      frames after a coroutine marker; any other pc looks its rule up
**      (unwind/lookup.h), and code without tables that the cframe rule steps
**      out of is a JIT trace; everything else takes its rule's step
**      (unwind/step.h).
**
** The includer defines, before including this file:
**   LT_INLINE, LT_READ_USER(ctx, dst, size, addr)    as for unwind/step.h
**   LT_UW_PROC, LT_UW_ROW, LT_UW_RULE, LT_UW_LOOP     as for unwind/lookup.h
**   LT_WALK_STATE(arg)  -> struct lt_walk * of a loop callback's argument
**                          (BPF: a per-CPU map lookup, bpf_loop's ctx can only
**                          point to the stack), or NULL
**   LT_WALK_ARG(w)      -> the argument LT_UW_LOOP passes its callbacks
**   LT_LOOKUP_CTX(w)    -> the ctx of the rule lookup (NULL in BPF)
** and may define LT_WALK_USER_STEP(arg), LT_WALK_LUA_STEP(arg) and
** LT_WALK_LUA_SWITCH(arg), how the loop callbacks take one step
** (lt_walk_frame_step, lt_walk_lua_frame_step, lt_walk_lua_switch of
** LT_WALK_STATE(arg) by default; the sampler calls global functions, which the
** verifier checks once instead of once per round of its callback analysis),
** LT_WALK_LJ_STEP(w), how a user frame's step takes the cframe rule's step
** (lt_walk_lj_step by default; the sampler's global function is verified once,
** not at each of its two call sites),
** LT_FIND_RULE(w, pc, rule, row), which answers as
** lt_uw_find_rule (the sampler memoizes it), LT_READ_G (lua/state.h) and
** LT_G_WINDOW(w, G): G may be the thread's VM, its reads follow (the sampler
** copies its G window).
** Memory reads get w itself as their ctx.
*/
#ifndef LUATOP_WALK_DRIVER_H
#define LUATOP_WALK_DRIVER_H

#include "lua/cframe.h"
#include "lua/layout.h"
#include "lua/walk.h"
#include "unwind/lookup.h"
#include "unwind/step.h"
#include "wire/luatop.h"

/* A walk in progress: the sample being built and the unwinder's state. */
struct lt_walk {
	struct lt_sample s;	/* the result */
	struct lt_uw_regs r;	/* the frame being unwound */
	struct lt_lua_walk lw;	/* the Lua walk in progress */
	struct lt_lua_cfg cfg;	/* the process's LuaJIT facts */
	struct lt_lj_state ls;	/* the lua_State read last (its fields, for the walk) */
	__u64 L;		/* lua_State whose cframe chain the native walk follows */
	__u64 walked_L;		/* lua_State whose Lua frames were walked last */
	__u32 slot;		/* the process's uw_procs slot */
	__u8 how;		/* how the frame in r was reached */
	__u8 lua_on;		/* the process runs a supported LuaJIT and G is known */
	__u8 G_from_regs;	/* G came from r14: the per-thread cache should hold it */
	__u8 pad;
	__u64 vm_sp;		/* G unknown: sp of the last VM frame met, 0 none */
	__u64 found_G;		/* G, as that frame's cframe names it (lt_walk_G_from_cframe) */
};

#ifndef LT_G_WINDOW
#define LT_G_WINDOW(w, G) ((void)0)
#endif

/* A loop callback's step, from its argument: the step itself by default. */
#ifndef LT_WALK_USER_STEP
#define LT_WALK_USER_STEP(arg) lt_walk_frame_step(LT_WALK_STATE(arg))
#endif
#ifndef LT_WALK_LUA_STEP
#define LT_WALK_LUA_STEP(arg) lt_walk_lua_frame_step(LT_WALK_STATE(arg))
#endif
#ifndef LT_WALK_LUA_SWITCH
#define LT_WALK_LUA_SWITCH(arg) lt_walk_lua_switch(LT_WALK_STATE(arg))
#endif

#ifndef LT_FIND_RULE
#define LT_FIND_RULE(w, pc, rule, row) \
	lt_uw_find_rule(LT_LOOKUP_CTX(w), (w)->slot, (pc), (rule), (row))
#endif

/* -- Lua frames ------------------------------------------------------------- */

/* One Lua frame, into the sample's lua[]. 1: the walk is over (also when w is NULL). */
static LT_INLINE int lt_walk_lua_frame_step(struct lt_walk *w)
{
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
	done = lt_lua_walk_step(w, &w->lw, &fr, &emit);
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

/* The loop callback: one Lua frame per call. */
static long lt_walk_lua_frame(__u32 i, void *arg)
{
	return LT_WALK_LUA_STEP(arg) != 0;
}

/* Walk the Lua frames of L from base (0: L->base) into lua[]; link: the top
** frame's link when the interpreter is storing it (0: read it). */
static LT_INLINE void lt_walk_lua(struct lt_walk *w, __u64 L, __u64 base, __u64 pc,
				  __u64 link)
{
	w->walked_L = L;
	if (lt_lua_walk_init(w, &w->lw, &w->ls, L, base, pc))
		return;
	w->lw.link = link;
	LT_UW_LOOP(LT_MAX_LUA, lt_walk_lua_frame, LT_WALK_ARG(w));
}

/* Did the native walk step into a VM frame of another lua_State (a coroutine's
** resumer) whose Lua frames are still to be walked? */
static LT_INLINE int lt_walk_lua_switched(const struct lt_walk *w)
{
	return w->L != w->walked_L && w->s.n_lua < LT_MAX_LUA - 1;
}

/* After a VM frame of another lua_State: its frames, after a coroutine marker. */
static LT_INLINE void lt_walk_lua_switch(struct lt_walk *w)
{
	__u16 n;

	if (!w || !lt_walk_lua_switched(w))
		return;
	n = w->s.n_lua;
	w->s.lua[n & (LT_MAX_LUA - 1)] = (struct lt_lua_frame){ .kind = LT_LUA_COROUTINE };
	w->s.n_lua = n + 1;
	lt_walk_lua(w, w->L, 0, 0, 0);
}

/*
** The running trace: its GCtrace and header into the sample (user space finds
** the snapshot of the sampled pc from them), and the pc the trace stands for
** until then: just past its first instruction (the loop or function it
** compiles). 0 if unknown.
*/
static LT_INLINE __u64 lt_walk_trace(struct lt_walk *w, __u64 G, __s32 traceno)
{
	__u64 traces = 0, T = 0, pc = 0;

	if (!w->cfg.off_jit_trace || traceno <= 0 || traceno >= LT_LJ_TRACE_MAX ||
	    LT_READ_G(w, &traces, sizeof(traces), G + w->cfg.off_jit_trace) ||
	    LT_READ_USER(w, &T, sizeof(T), traces + 8ull * traceno) || !T ||
	    LT_READ_USER(w, w->s.trace_hdr, LT_TRACE_HDR, T))
		return 0;
	w->s.trace_T = T;
	/* trace_hdr is 8-aligned in the sample: one load, not eight (BPF) */
	__builtin_memcpy(&pc, __builtin_assume_aligned(w->s.trace_hdr + LT_LJ_TRACE_STARTPC, 8),
			 sizeof(pc));
	return pc ? pc + 4 : 0;
}

/*
** Is base (the interpreter's BASE register, rdx) a frame of L? It must be in
** L's stack, with a function below it. Frameless helpers (lj_vm_floor,
** lj_vm_mod...) keep BASE and PC too; the ones that clobber rdx fail this. The
** function's slot is the top frame's, which the Lua walk reads next: through
** the Lua window (the sampler copies it now).
*/
static LT_INLINE int lt_walk_interp_base(struct lt_walk *w, __u64 L, __u64 base)
{
	__u64 slot[2] = { 0, 0 }, lo;

	if (lt_lj_state_get(w, &w->ls, L))
		return 0;
	lo = lt_lj_state_u64(&w->ls, LT_LJ_L_STACK);
	if (base < lo + 16 || base > lo + 8ull * lt_lj_state_stacksize(&w->ls))
		return 0;
	LT_LUA_WINDOW(w, lo, base);
	return !LT_READ_LUA(w, slot, 16, base - 16) &&
	       (slot[0] >> LT_LJ_TAG_SHIFT) == LT_LJ_TAG_FUNC;
}

/*
** Is pc an interpreter's store of a new frame's link (mov %rbx,-8(%rdx): BC_CALL,
** vm_call_dispatch)? BASE is the new frame's, its link slot still holds an old
** value, and the link is in PC (rbx).
*/
static LT_INLINE int lt_walk_at_link_store(const struct lt_walk *w, __u64 pc)
{
	__u64 ofs = pc - w->cfg.vm_lo;

	for (int k = 0; k < LT_LUA_LINK_STORES; k++)
		if (w->cfg.link_ofs[k] && ofs == w->cfg.link_ofs[k])
			return 1;
	return 0;
}

/*
** Start the Lua walk at the running frame: BASE/PC registers in the
** interpreter, jit_base in a trace, else L->base with the innermost SAVE_PC.
*/
static LT_INLINE void lt_walk_lua_top(struct lt_walk *w, const struct lt_uregs *u)
{
	__u64 G = w->s.G, L = w->s.L, base = 0, pc = 0, cf = 0, link = 0;
	__s32 st = 0;

	LT_READ_G(w, &st, sizeof(st), G + w->cfg.off_vmstate);
	w->s.vmstate = st;
	if (st == LT_LJ_VMST_INTERP && u->pc >= w->cfg.vm_lo && u->pc < w->cfg.vm_hi &&
	    lt_walk_interp_base(w, L, u->rdx)) {
		base = u->rdx;
		pc = u->rbx;
		if (lt_walk_at_link_store(w, u->pc)) {
			link = pc;	/* the caller's, about to be stored */
			pc = 0;		/* the callee has not started */
		}
	} else if (st >= 0) {
		LT_READ_G(w, &base, sizeof(base), G + w->cfg.off_jit_base);
		pc = lt_walk_trace(w, G, st);
	} else if (!lt_lj_state_get(w, &w->ls, L) &&
		   (cf = lt_lj_state_u64(&w->ls, LT_LJ_L_CFRAME) & LT_LJ_CFRAME_RAWMASK) &&
		   !LT_READ_USER(w, &pc, sizeof(pc), cf + LT_LJ_CFRAME_OFS_PC) && pc == L) {
		pc = 0;		/* SAVE_PC == L: no Lua frame on top */
	}
	lt_walk_lua(w, L, base, pc, link);
}

/* Is G the global_State of a LuaJIT VM? (its cur_L points back to it) */
static LT_INLINE int lt_walk_valid_G(struct lt_walk *w, __u64 G, __u64 *L)
{
	if (!G)
		return 0;
	LT_G_WINDOW(w, G);
	return !LT_READ_G(w, L, sizeof(*L), G + w->cfg.off_cur_L) &&
	       lt_lj_is_L(w, &w->ls, *L, G);
}

/*
** The thread's global_State: DISPATCH (r14) minus GG_G2DISP where it holds
** (VM and trace code; often still in C called from Lua), else the one last
** validated on this thread (cached_G, 0 for none; own: the thread's, else
** its process's only one, a guess). Outside the VM's code the thread's own is
** tried first, unless r14 names it: there r14 is often anything (C code that
** uses it), and checking a wrong guess costs a read that faults, the dearest
** a sample makes (~0.5 us here, 0.6 a sample of clib.lua). A thread that runs
** two VMs in turn is taken for the one it last ran VM code in when it runs
** other code (docs/DESIGN-NOTES.md).
*/
static LT_INLINE __u64 lt_walk_find_G(struct lt_walk *w, const struct lt_uregs *u,
				      __u64 cached_G, int own, __u64 *L)
{
	__u64 G = u->r14 - w->cfg.g2disp;

	if (own && cached_G && cached_G != G && (u->pc < w->cfg.vm_lo || u->pc >= w->cfg.vm_hi)) {
		if (lt_walk_valid_G(w, cached_G, L))
			return cached_G;
		cached_G = 0;
	}
	if (lt_walk_valid_G(w, G, L)) {
		w->G_from_regs = 1;
		return G;
	}
	if (cached_G && lt_walk_valid_G(w, cached_G, L))
		return cached_G;
	return 0;
}

/* -- The walk --------------------------------------------------------------- */

/* An empty result: no frames, no flags, no LuaJIT state. */
static LT_INLINE void lt_walk_reset(struct lt_walk *w)
{
	w->s.n_user = 0;
	w->s.n_lua = 0;
	w->s.flags = 0;
	w->s.user_stop = LT_STOP_MAX_DEPTH;
	w->s.G = w->s.L = 0;
	w->s.vmstate = 0;
	w->s.trace_T = 0;
	w->how = LT_HOW_LEAF;
	w->lua_on = 0;
	w->G_from_regs = 0;
	w->vm_sp = 0;
	w->found_G = 0;
	w->L = w->walked_L = 0;
	w->ls.L = 0;
}

/*
** Set up the walk of a thread stopped at registers u; cfg: the process's
** LuaJIT facts (NULL or disabled: native only); cached_G (own: the thread's, else
** its process's only one, a guess): the thread's last
** validated global_State (0: none). Walks the Lua frames of the running
** coroutine. The caller has set s.type, tgid, tid, cpu, time_ns and w->slot.
*/
static LT_INLINE void lt_walk_begin(struct lt_walk *w, const struct lt_uregs *u,
				    const struct lt_lua_cfg *cfg, __u64 cached_G, int own)
{
	__u64 L = 0;

	lt_walk_reset(w);
	w->r = (struct lt_uw_regs){ .pc = u->pc, .sp = u->sp, .bp = u->bp };
	if (!cfg || !cfg->enabled)
		return;
	w->cfg = *cfg;
	w->s.flags |= LT_SAMPLE_LUA;
	w->s.G = lt_walk_find_G(w, u, cached_G, own, &L);
	if (!w->s.G) {
		w->s.flags |= LT_SAMPLE_NO_G;
		return;
	}
	w->s.L = w->L = L;
	w->lua_on = 1;
	lt_walk_lua_top(w, u);
}

/* Step out of the VM or trace frame in w->r with the cframe rule (lua/cframe.h). */
static LT_INLINE int lt_walk_lj_step(struct lt_walk *w)
{
	return lt_lj_step(w, &w->ls, w->s.G, &w->L, &w->r, &w->how);
}

#ifndef LT_WALK_LJ_STEP
#define LT_WALK_LJ_STEP(w) lt_walk_lj_step(w)
#endif

/*
** A VM frame that runs no Lua frame (LT_HOW_F_CP, left out by the merge):
** lj_vm_cpcall's frame returning from its C function (at cp_ret, which the leaf
** may still be at or a few instructions on), and a leaf in vm_leave_cp, where
** every return to C ends after the activation's Lua frames have gone.
*/
static LT_INLINE int lt_walk_vm_no_lua(const struct lt_walk *w, __u16 n)
{
	__u64 pc = w->r.pc, ofs = pc - w->cfg.vm_lo;

	if (pc == w->cfg.cp_ret)
		return 1;
	return !n && ((w->cfg.cp_ret && pc - w->cfg.cp_ret < w->cfg.cp_len) ||
		      (w->cfg.leave_ofs && ofs >= w->cfg.leave_ofs &&
		       ofs < (__u64)w->cfg.unw_ofs + w->cfg.unw_len));
}

/* CFA - rsp i bytes into a VM entry's prologue (lua/x64scan.c: P_PROLOGUE). */
static LT_INLINE __u32 lt_walk_vm_pushed(__u64 i)
{
	switch (i) {
	case 0: return 8;	/* push rbp */
	case 1: return 16;	/* push rbx */
	case 2: return 24;	/* push r15 */
	case 4: return 32;	/* push r14 */
	case 6: return 40;	/* sub $CFRAME_SPACE,%rsp */
	}
	return i >= 10 ? LT_LJ_CFRAME_SIZE : 0;
}

/*
** CFA - rsp of a leaf outside L's cframe chain: in a VM entry before the store
** that links its frame (the prologue every entry shares: push rbp/rbx/r15/r14,
** then sub $CFRAME_SPACE,%rsp), or in vm_leave_cp's epilogue after the restore
** that unlinked it (detection read its pops). There the chain names the frame
** outside, and the walk would skip the native frames between. 0 elsewhere.
*/
static LT_INLINE __u32 lt_walk_vm_window(const struct lt_walk *w)
{
	__u64 ofs = w->r.pc - w->cfg.vm_lo, i;

	for (int k = 0; k < LT_LUA_ENTRIES; k++) {
		i = ofs - w->cfg.entry_ofs[k];
		if (i < w->cfg.entry_len[k])
			return lt_walk_vm_pushed(i);
	}
	i = ofs - w->cfg.unw_ofs;
	if (i < w->cfg.unw_len && i < LT_LUA_UNW_MAX)
		return 8u * w->cfg.unw_cfa[i];
	return 0;
}

/* A pc in the VM: unwind with the cframe rule. -1 if not VM code. */
static LT_INLINE int lt_walk_vm_frame(struct lt_walk *w, __u16 n)
{
	struct lt_uw_rule rule = { .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP };
	__u32 window;
	int rc;

	if (w->r.pc < w->cfg.vm_lo || w->r.pc >= w->cfg.vm_hi ||
	    (w->r.pc >= w->cfg.ffi_lo && w->r.pc < w->cfg.ffi_hi))
		return -1;
	window = n ? 0 : lt_walk_vm_window(w);
	/* A VM activation also when the thread's G is unknown: the merge must see it
	** (and fall back) rather than take the stack for plain C. */
	w->s.user_how[n & (LT_MAX_USER - 1)] |= LT_HOW_F_VM |
		(window || lt_walk_vm_no_lua(w, n) ? LT_HOW_F_CP : 0);
	if (window) {		/* rbp is pushed first and popped last */
		rule.cfa_off = (__s32)window;
		rule.rbp_off = window >= 16 ? -16 : LT_UW_RBP_SAME;
		return lt_uw_step(w, &rule, &w->r, &w->how);
	}
	if (!w->lua_on) {
		w->vm_sp = w->r.sp;	/* for lt_walk_G_from_cframe, after the walk */
		return -1;
	}
	rc = LT_WALK_LJ_STEP(w);
	/* No cframe found: the VM's own FDE (CFA = rsp+80) is the fallback. */
	return rc == LT_STOP_NO_RULE ? -1 : rc;
}

/*
** lj_vm_ffi_call's FDE (written by LuaJIT's buildvm) describes its body only:
** CFA = rbp+16 from its first byte. Its first two instructions (push rbp; mov
** rsp, rbp: detection checked the bytes) and its final ret run with CFA = rsp+8
** and rsp+16: at those pcs of the leaf frame, use what the instructions say.
*/
static LT_INLINE void lt_walk_ffi_call_rule(struct lt_walk *w, __u16 n, struct lt_uw_rule *rule)
{
	__u64 pc = w->r.pc;
	__u8 op = 0;

	if (n || !w->lua_on || pc < w->cfg.ffi_lo || pc >= w->cfg.ffi_hi)
		return;
	if (pc == w->cfg.ffi_lo || (pc > w->cfg.ffi_lo + 1 &&
				    !LT_READ_USER(w, &op, sizeof(op), pc) && op == 0xc3))
		*rule = (struct lt_uw_rule){ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP,
					     .rbp_off = LT_UW_RBP_SAME, .cfa_off = 8 };
	else if (pc == w->cfg.ffi_lo + 1)	/* rbp pushed */
		*rule = (struct lt_uw_rule){ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP,
					     .rbp_off = -16, .cfa_off = 16 };
}

/* What a user frame's step says (lt_walk_frame_step). */
#define LT_WALK_GO	0	/* go on */
#define LT_WALK_STOP	1	/* the walk is over */
#define LT_WALK_NEXT_L	2	/* go on, after the Lua frames of the lua_State the
				   step moved to (lt_walk_lua_switch) */

/*
** One user frame: record it, then step to its caller. A step out of a VM or
** trace frame may move to another lua_State; its Lua frames are walked after
** the step returns (by the loop callback), not inside it: in BPF a walk nested
** in the step would stack the Lua walk's frame on the step's, past the
** verifier's 512 bytes for a chain of calls.
*/
static LT_INLINE int lt_walk_frame_step(struct lt_walk *w)
{
	struct lt_uw_rule rule = { 0 };
	__s64 row;
	__u16 n;
	int rc;

	if (!w)
		return LT_WALK_STOP;
	n = w->s.n_user;
	if (n >= LT_MAX_USER) {
		w->s.user_stop = LT_STOP_MAX_DEPTH;
		return LT_WALK_STOP;
	}
	w->s.user[n & (LT_MAX_USER - 1)] = w->r.pc;
	w->s.user_how[n & (LT_MAX_USER - 1)] = w->how;
	w->s.n_user = n + 1;
	if (w->how == LT_HOW_FP)
		w->s.flags |= LT_SAMPLE_FP_USED;

	rc = lt_walk_vm_frame(w, n);
	if (rc < 0) {
		rc = LT_FIND_RULE(w, lt_frame_pc(w->r.pc, w->how), &rule, &row);
		/* Code without tables, or (in a trace) in no mapping the tables know
		** yet (a trace flush maps new machine-code areas): a JIT trace if the
		** cframe rule finds its VM frame. */
		if (rc == LT_STOP_NO_MAPPING)
			w->s.flags |= LT_SAMPLE_NEW_CODE;
		if (((rc == LT_STOP__COUNT && rule.kind == LT_UW_FP) ||
		     (rc == LT_STOP_NO_MAPPING && w->s.vmstate >= 0)) &&
		    w->lua_on && LT_WALK_LJ_STEP(w) == LT_STOP__COUNT) {
			rc = LT_STOP__COUNT;
			w->s.user_how[n & (LT_MAX_USER - 1)] |= LT_HOW_F_TRACE;
		} else if (rc == LT_STOP__COUNT) {
			lt_walk_ffi_call_rule(w, n, &rule);
			rc = lt_uw_step(w, &rule, &w->r, &w->how);
		}
	}
	if (rc != LT_STOP__COUNT) {
		w->s.user_stop = rc;
		return LT_WALK_STOP;
	}
	return lt_walk_lua_switched(w) ? LT_WALK_NEXT_L : LT_WALK_GO;
}

/* The loop callback: one user frame per call, and the Lua frames it leads to. */
static long lt_walk_frame(__u32 i, void *arg)
{
	int rc = LT_WALK_USER_STEP(arg);

	if (rc == LT_WALK_NEXT_L)
		LT_WALK_LUA_SWITCH(arg);
	return rc == LT_WALK_STOP;
}

/* Walk every user frame (after lt_walk_begin). */
static LT_INLINE void lt_walk_user(struct lt_walk *w)
{
	LT_UW_LOOP(LT_MAX_USER, lt_walk_frame, LT_WALK_ARG(w));
}

/*
** After a walk that did not know the thread's G but met VM code (a thread in C
** called from Lua, whose r14 the C code reused: an off-CPU sample in a system
** call, a sample before the thread was ever seen in the VM): the cframe at that
** frame's sp (or sp+8, as lt_lj_step looks) names its lua_State, whose glref is
** the VM's G. Into w->found_G (0: none), for the thread's later samples.
*/
static LT_INLINE void lt_walk_G_from_cframe(struct lt_walk *w)
{
	__u64 Lx = 0, G = 0, L;

	w->found_G = 0;
	if (!w->vm_sp || !(w->s.flags & LT_SAMPLE_NO_G))
		return;
	for (int k = 0; k < 2; k++)
		if (!LT_READ_STACK(w, &Lx, w->vm_sp + 8 * k + LT_LJ_CFRAME_OFS_L) &&
		    Lx && !LT_READ_USER(w, &G, sizeof(G), Lx + LT_LJ_L_GLREF) &&
		    lt_walk_valid_G(w, G, &L)) {
			w->found_G = G;
			return;
		}
}

#endif
