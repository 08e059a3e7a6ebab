/*
** The per-frame unwind step, written once: compiled into the BPF sampler and
** into the user-space replayer that the unit tests drive with captured stacks.
**
** The includer defines, before including this file:
**   LT_READ_USER(ctx, dst, size, addr)  -> 0 on success, non-zero on a fault
**   LT_INLINE                            -> the inline attribute for its side
** and may define LT_READ_STACK(ctx, __u64 *dst, addr), an 8-byte LT_READ_USER of
** an address that is likely on the stack (the sampler keeps a copy of its top).
** No libc, no libbpf: plain arithmetic on the rule and three registers.
*/
#ifndef LUATOP_UNWIND_STEP_H
#define LUATOP_UNWIND_STEP_H

#include "unwind/sigframe.h"
#include "wire/luatop.h"

#ifndef LT_READ_STACK
#define LT_READ_STACK(ctx, dst, addr) LT_READ_USER((ctx), (dst), sizeof(__u64), (addr))
#endif

/* Registers the unwinder tracks. */
struct lt_uw_regs {
	__u64 pc;
	__u64 sp;
	__u64 bp;
};


/*
** Step from the frame in r to its caller, per the rule. Returns LT_STOP__COUNT
** to go on (r now holds the caller), or the reason to stop.
*/
static LT_INLINE int lt_uw_step(void *ctx, const struct lt_uw_rule *rule,
				struct lt_uw_regs *r, __u8 *how)
{
	__u64 cfa, ra, bp = r->bp, base;

	switch (rule->kind) {
	case LT_UW_CFA:
		if (rule->cfa_reg == LT_UW_REG_RSP)
			base = r->sp;
		else if (rule->cfa_reg == LT_UW_REG_RBP)
			base = r->bp;
		else
			return LT_STOP_BAD_RULE;
		cfa = base + (__s64)rule->cfa_off;
		if (rule->rbp_off != LT_UW_RBP_SAME &&
		    LT_READ_STACK(ctx, &bp, cfa + (__s64)rule->rbp_off))
			return LT_STOP_READ_FAULT;
		*how = LT_HOW_CFI;
		break;
	case LT_UW_PLT:
		/* GCC's .plt CFI: rsp+8, or rsp+16 after the stub's push. */
		cfa = r->sp + 8 + (((r->pc & 15) >= 11) ? 8 : 0);
		*how = LT_HOW_PLT;
		break;
	case LT_UW_FP:
		cfa = r->bp + 16;
		if (LT_READ_STACK(ctx, &bp, r->bp))
			return LT_STOP_READ_FAULT;
		*how = LT_HOW_FP;
		break;
	case LT_UW_SIGNAL:
		base = r->sp + LT_SIGFRAME_MCTX;
		if (LT_READ_STACK(ctx, &bp, base + LT_SIGCTX_RBP) ||
		    LT_READ_STACK(ctx, &cfa, base + LT_SIGCTX_RSP) ||
		    LT_READ_STACK(ctx, &ra, base + LT_SIGCTX_RIP))
			return LT_STOP_READ_FAULT;
		/* The interrupted pc is exact, not a return address: the caller
		** of the next step must not subtract 1 (LT_HOW_SIGNAL says so). */
		r->pc = ra;
		r->sp = cfa;
		r->bp = bp;
		*how = LT_HOW_SIGNAL;
		return ra ? LT_STOP__COUNT : LT_STOP_COMPLETE;
	case LT_UW_STOP:
		return LT_STOP_COMPLETE;
	default:
		return LT_STOP_BAD_RULE;
	}
	if (LT_READ_STACK(ctx, &ra, cfa - 8))
		return LT_STOP_READ_FAULT;
	if (cfa <= r->sp)
		return LT_STOP_BAD_FRAME;	/* stacks grow down: callers live higher */
	r->pc = ra;
	r->sp = cfa;
	r->bp = bp;
	return ra ? LT_STOP__COUNT : LT_STOP_COMPLETE;
}

#endif
