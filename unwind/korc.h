/*
** The kernel's own stack, unwound from its ORC tables (x86-64, the ORC format
** of Linux 6.4 and later): the common path of the kernel's unwinder
** (arch/x86/kernel/unwind_orc.c, unwind_next_frame) as perf_callchain_kernel
** drives it, written once for the BPF sampler and its unit tests. The kernel's
** own unwinder, called through bpf_get_stack, looks up each frame's ORC entry
** in tables the target's work has pushed out of the caches: ~0.5 us a frame
** on this VM. The sampler keeps the entries it found (a memo, as for user
** frames) and takes this path; anything it does not know gives the stack
** back to the kernel's unwinder (LT_KORC_KERNEL), so a stack is always the
** one bpf_get_stack would give.
**
** What is followed: CALL, REGS and REGS_PARTIAL entries with a CFA based on sp
** or bp (indirect too), bp restored from the CFA, from bp or from the
** registers, inside the interrupted task's stack; an entry from user mode, an
** END_OF_STACK entry or a return into user space end the stack. What is not:
** another stack (IRQ, exception: a sample in a softirq, which runs on the IRQ
** stack, whose bounds are a per-CPU variable that the verifier finds only in a
** kernel built with KALLSYMS_ALL), CFAs based on r10, r13, rdi or rdx (entry
** code), code outside the core kernel's text (modules, BPF, trampolines),
** return addresses that ftrace or a kretprobe rewrote.
**
** The includer defines LT_INLINE and
**   LT_KREAD(ctx, addr, val)    8 bytes of kernel memory into *val: 0, else non-zero
**   LT_KORC_FIND(ctx, ip, orc)  the entry of ip (a struct lt_korc): 0, else non-zero
*/
#ifndef LUATOP_UNWIND_KORC_H
#define LUATOP_UNWIND_KORC_H

#include <linux/types.h>

/* struct orc_entry (arch/x86/include/asm/orc_types.h, 6.4+): 6 bytes. */
#define LT_KORC_ENTRY_SIZE	6
#define LT_KORC_REG_UNDEFINED	0
#define LT_KORC_REG_PREV_SP	1
#define LT_KORC_REG_BP		4
#define LT_KORC_REG_SP		5
#define LT_KORC_REG_BP_INDIRECT	8
#define LT_KORC_REG_SP_INDIRECT	9
#define LT_KORC_TYPE_UNDEFINED	0
#define LT_KORC_TYPE_END	1	/* END_OF_STACK */
#define LT_KORC_TYPE_CALL	2
#define LT_KORC_TYPE_REGS	3
#define LT_KORC_TYPE_REGS_PARTIAL 4

/* struct pt_regs (x86-64) and the iret frame. */
#define LT_KREGS_BP		32
#define LT_KREGS_IP		128
#define LT_KREGS_CS		136
#define LT_KREGS_SP		152
#define LT_KIRET_OFFSET		LT_KREGS_IP	/* the iret frame starts at pt_regs.ip */

/* One ORC entry, decoded. */
struct lt_korc {
	__s16 sp_offset;
	__s16 bp_offset;
	__u8 sp_reg;
	__u8 bp_reg;
	__u8 type;
	__u8 signal;
};

/* Decode the 6 bytes of an entry (little-endian: s16, s16, then a u16 of
** sp_reg:4 bp_reg:4 type:3 signal:1). */
static LT_INLINE struct lt_korc lt_korc_decode(__u64 raw)
{
	__u16 bits = (__u16)(raw >> 32);

	return (struct lt_korc){
		.sp_offset = (__s16)(__u16)raw,
		.bp_offset = (__s16)(__u16)(raw >> 16),
		.sp_reg = bits & 15,
		.bp_reg = (bits >> 4) & 15,
		.type = (bits >> 8) & 7,
		.signal = (bits >> 11) & 1,
	};
}

/* Where the kernel's registers of the frame come from (unwind_state.regs). */
enum lt_kregs_kind {
	LT_KREGS_NONE = 0,	/* a call frame: none */
	LT_KREGS_SAMPLE,	/* the sampled registers (full) */
	LT_KREGS_FULL,		/* a pt_regs on the stack, at regs */
	LT_KREGS_IRET,		/* an iret frame on the stack (regs = its pt_regs start) */
};

/* The unwinder's state between frames. */
struct lt_kwalk {
	__u64 ip, sp, bp;
	__u64 regs;		/* LT_KREGS_FULL / IRET: address of the pt_regs */
	__u64 prev_regs;	/* a full pt_regs before an iret frame (kind in prev_kind) */
	__u64 sample_bp;	/* the sampled registers' bp and cs */
	__u64 sample_cs;
	__u64 stack_lo, stack_hi;	/* the task's stack: [lo, hi) */
	__u64 text_lo, text_hi;		/* the core kernel's text */
	__u64 tramp[2];			/* ftrace's and kretprobes' return trampolines, 0: none */
	__u8 regs_kind;		/* enum lt_kregs_kind */
	__u8 prev_kind;
	__u8 signal;		/* the frame's ip is exact, not a return address */
	__u8 pad[5];
};

/* What a step says. */
#define LT_KORC_GO	0	/* record ip, step again */
#define LT_KORC_DONE	1	/* the kernel stack ends here */
#define LT_KORC_KERNEL	2	/* not followed here: use the kernel's unwinder */

/* 8 bytes of the task's stack at addr, as the kernel's stack_access_ok allows. */
static LT_INLINE int lt_kwalk_read(void *ctx, const struct lt_kwalk *k, __u64 addr, __u64 *val)
{
	if (addr < k->stack_lo || addr > k->stack_hi - 8 || (addr & 7))
		return -1;
	return LT_KREAD(ctx, addr, val) ? -1 : 0;
}

/* Was the frame whose registers k holds entered from user mode? -1: unreadable. */
static LT_INLINE int lt_kwalk_user_regs(void *ctx, const struct lt_kwalk *k)
{
	__u64 cs;

	if (k->regs_kind == LT_KREGS_SAMPLE)
		return (k->sample_cs & 3) != 0;
	if (k->regs_kind == LT_KREGS_NONE)
		return 0;
	if (lt_kwalk_read(ctx, k, k->regs + LT_KREGS_CS, &cs))
		return -1;
	return (cs & 3) != 0;
}

/* The bp of the full registers at hand (get_reg): 0 and *bp, else -1. */
static LT_INLINE int lt_kwalk_regs_bp(void *ctx, const struct lt_kwalk *k, __u64 *bp)
{
	__u8 kind = k->regs_kind;
	__u64 at = k->regs;

	if (kind == LT_KREGS_IRET) {	/* the full registers before it, if any */
		kind = k->prev_kind;
		at = k->prev_regs;
	}
	if (kind == LT_KREGS_SAMPLE) {
		*bp = k->sample_bp;
		return 0;
	}
	if (kind == LT_KREGS_FULL)
		return lt_kwalk_read(ctx, k, at + LT_KREGS_BP, bp);
	return -1;
}

/* Is ip an address the kernel's unwinder could have rewritten, or one outside
** the core kernel's text (module, BPF, trampoline)? */
static LT_INLINE int lt_kwalk_foreign(const struct lt_kwalk *k, __u64 ip)
{
	return ip < k->text_lo || ip >= k->text_hi ||
	       (k->tramp[0] && ip == k->tramp[0]) || (k->tramp[1] && ip == k->tramp[1]);
}

/*
** One step of unwind_next_frame from the frame in k to its caller. LT_KORC_GO:
** k holds the caller, whose ip is to be recorded (a user-space ip ends the
** stack instead: DONE); DONE: the stack ends; KERNEL: not followed here.
*/
static LT_INLINE int lt_kwalk_step(void *ctx, struct lt_kwalk *k)
{
	struct lt_korc o;
	__u64 sp, ip, nsp, bp = k->bp, prev_sp = k->sp, v;
	int user = lt_kwalk_user_regs(ctx, k);

	if (user < 0)
		return LT_KORC_KERNEL;
	if (user)
		return LT_KORC_DONE;
	ip = k->signal ? k->ip : k->ip - 1;
	if (lt_kwalk_foreign(k, ip) || LT_KORC_FIND(ctx, ip, &o))
		return LT_KORC_KERNEL;
	if (o.type == LT_KORC_TYPE_UNDEFINED || o.type == LT_KORC_TYPE_END)
		return LT_KORC_DONE;	/* the kernel's unwinder stops there too */
	switch (o.sp_reg) {
	case LT_KORC_REG_SP:
		sp = k->sp + o.sp_offset;
		break;
	case LT_KORC_REG_BP:
		sp = k->bp + o.sp_offset;
		break;
	case LT_KORC_REG_SP_INDIRECT:
		if (lt_kwalk_read(ctx, k, k->sp, &sp))
			return LT_KORC_KERNEL;
		sp += o.sp_offset;
		break;
	case LT_KORC_REG_BP_INDIRECT:
		if (lt_kwalk_read(ctx, k, k->bp + o.sp_offset, &sp))
			return LT_KORC_KERNEL;
		break;
	default:		/* r10, r13, rdi, rdx: entry code */
		return LT_KORC_KERNEL;
	}
	switch (o.type) {
	case LT_KORC_TYPE_CALL:
		if (lt_kwalk_read(ctx, k, sp - 8, &ip))
			return LT_KORC_KERNEL;
		nsp = sp;
		k->regs_kind = LT_KREGS_NONE;
		k->prev_kind = LT_KREGS_NONE;
		break;
	case LT_KORC_TYPE_REGS:
		if (lt_kwalk_read(ctx, k, sp + LT_KREGS_IP, &ip) ||
		    lt_kwalk_read(ctx, k, sp + LT_KREGS_SP, &nsp))
			return LT_KORC_KERNEL;
		k->regs = sp;
		k->regs_kind = LT_KREGS_FULL;
		k->prev_kind = LT_KREGS_NONE;
		break;
	case LT_KORC_TYPE_REGS_PARTIAL:
		if (lt_kwalk_read(ctx, k, sp, &ip) ||
		    lt_kwalk_read(ctx, k, sp + (LT_KREGS_SP - LT_KIRET_OFFSET), &nsp))
			return LT_KORC_KERNEL;
		if (k->regs_kind == LT_KREGS_SAMPLE || k->regs_kind == LT_KREGS_FULL) {
			k->prev_kind = k->regs_kind;
			k->prev_regs = k->regs;
		}
		k->regs = sp - LT_KIRET_OFFSET;
		k->regs_kind = LT_KREGS_IRET;
		break;
	default:
		return LT_KORC_KERNEL;
	}
	k->signal = o.signal;
	switch (o.bp_reg) {
	case LT_KORC_REG_UNDEFINED:
		if (!lt_kwalk_regs_bp(ctx, k, &v))
			bp = v;
		break;
	case LT_KORC_REG_PREV_SP:
		if (lt_kwalk_read(ctx, k, sp + o.bp_offset, &bp))
			return LT_KORC_KERNEL;
		break;
	case LT_KORC_REG_BP:
		if (lt_kwalk_read(ctx, k, k->bp + o.bp_offset, &bp))
			return LT_KORC_KERNEL;
		break;
	default:
		return LT_KORC_KERNEL;
	}
	k->ip = ip;
	k->sp = nsp;
	k->bp = bp;
	/* A caller below its callee on the same stack: the kernel's unwinder
	** calls it bad data and stops; so does the stack off this stack, where
	** it would go on (another stack): its unwinder decides. */
	if (nsp < k->stack_lo || nsp >= k->stack_hi)
		return k->regs_kind == LT_KREGS_FULL || k->regs_kind == LT_KREGS_IRET ?
		       LT_KORC_GO : LT_KORC_KERNEL;
	if (nsp <= prev_sp)
		return LT_KORC_DONE;
	return LT_KORC_GO;
}

/* The ip to record after a GO step: 1 to record it, 0 when it is a user-space
** address (the kernel's walk stops: unwind_get_return_address is 0), -1 when
** it is neither core kernel text nor user space (its unwinder decides). */
static LT_INLINE int lt_kwalk_recordable(const struct lt_kwalk *k)
{
	if (!(k->ip >> 63))
		return 0;
	return lt_kwalk_foreign(k, k->ip) ? -1 : 1;
}

#endif
