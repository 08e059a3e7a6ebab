/*
** The cframe rule: unwind a LuaJIT VM or JIT-trace frame from the lua_State's
** chain of C frames, not from the VM's one static FDE (wrong in leaf helpers,
** entry prologues and traces: unwind_symbolize.md §B.1, luajit_internals.md
** §4.3). Shared by the BPF sampler and the replayer, like unwind/step.h.
**
** The includer defines LT_INLINE and LT_READ_USER(ctx, dst, size, addr) (and
** may define LT_READ_STACK, see unwind/step.h: cframes live on the C stack).
*/
#ifndef LUATOP_LUA_CFRAME_H
#define LUATOP_LUA_CFRAME_H

#include "lua/layout.h"
#include "lua/state.h"
#include "unwind/step.h"

/* The innermost cframe of L at or above sp, or 0 (ls: lua/state.h). */
static LT_INLINE __u64 lt_lj_chain_find(void *ctx, struct lt_lj_state *ls, __u64 L, __u64 sp)
{
	__u64 c;

	if (lt_lj_state_get(ctx, ls, L))
		return 0;
	c = lt_lj_state_u64(ls, LT_LJ_L_CFRAME);
	for (int i = 0; i < LT_LJ_CFRAME_CHAIN; i++) {
		c &= LT_LJ_CFRAME_RAWMASK;
		if (!c)
			return 0;
		if (c >= sp && c - sp < LT_LJ_CFRAME_REACH)
			return c;
		if (LT_READ_STACK(ctx, &c, c + LT_LJ_CFRAME_OFS_PREV))
			return 0;
	}
	return 0;
}

/*
** Step out of a VM or trace frame at r. *L is the lua_State whose chain is
** searched first; it becomes the frame's SAVE_L (a coroutine's resumer after
** its resume frame). Without a chain hit, the frame must sit at sp (bytecode
** handlers) or sp+8 (frameless helpers) with a SAVE_L of this VM.
** The lua_States met are read through ls (lua/state.h).
** Returns LT_STOP__COUNT to go on, or why not.
*/
static LT_INLINE int lt_lj_step(void *ctx, struct lt_lj_state *ls, __u64 G, __u64 *L,
				struct lt_uw_regs *r, __u8 *how)
{
	__u64 cf = lt_lj_chain_find(ctx, ls, *L, r->sp), Lx = 0, ra, bp;

	if (cf) {
		if (LT_READ_STACK(ctx, &Lx, cf + LT_LJ_CFRAME_OFS_L) ||
		    !lt_lj_is_L(ctx, ls, Lx, G))
			Lx = *L;
	} else {
		for (int k = 0; k < 2 && !cf; k++) {
			__u64 c = r->sp + 8 * k;

			if (!LT_READ_STACK(ctx, &Lx, c + LT_LJ_CFRAME_OFS_L) &&
			    lt_lj_is_L(ctx, ls, Lx, G))
				cf = c;
		}
		if (!cf)
			return LT_STOP_NO_RULE;
	}
	if (LT_READ_STACK(ctx, &bp, cf + LT_LJ_CFRAME_OFS_RBP) ||
	    LT_READ_STACK(ctx, &ra, cf + LT_LJ_CFRAME_OFS_RA))
		return LT_STOP_READ_FAULT;
	*L = Lx;
	r->sp = cf + LT_LJ_CFRAME_SIZE;
	r->bp = bp;
	r->pc = ra;
	*how = LT_HOW_LJ_VM;
	return ra ? LT_STOP__COUNT : LT_STOP_COMPLETE;
}

#endif
