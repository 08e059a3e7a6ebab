/*
** unwind/korc.h: the kernel stack from ORC entries, on synthetic stacks: call
** frames with sp- and bp-based CFAs, an exception's pt_regs in the kernel, the
** entry from user space, and every case that must go back to the kernel's
** unwinder or end the stack.
*/
#include <criterion/criterion.h>
#include <linux/types.h>
#include <string.h>

#define STACK_LO	0xffffc90000100000ull
#define STACK_WORDS	2048	/* 16 KB */
#define TEXT_LO		0xffffffff81000000ull
#define TEXT_HI		0xffffffff82000000ull

static __u64 mem[STACK_WORDS];	/* the task's stack */

struct span {
	__u64 lo, hi;
	__u64 raw;
};
static struct span orcs[8];
static unsigned norcs;

static int kread(__u64 addr, __u64 *val)
{
	if (addr < STACK_LO || addr >= STACK_LO + 8 * STACK_WORDS)
		return -1;
	*val = mem[(addr - STACK_LO) / 8];
	return 0;
}

#define LT_INLINE inline
#define LT_KREAD(ctx, addr, val) kread((addr), (val))
#define LT_KORC_FIND(ctx, ip, orc) find((ip), (orc))
struct lt_korc;
static int find(__u64 ip, struct lt_korc *o);
#include "unwind/korc.h"

static int find(__u64 ip, struct lt_korc *o)
{
	for (unsigned i = 0; i < norcs; i++)
		if (ip >= orcs[i].lo && ip < orcs[i].hi) {
			*o = lt_korc_decode(orcs[i].raw);
			return 0;
		}
	return -1;
}

/* The 6 bytes of an entry, as the kernel lays them out. */
static __u64 entry(__s16 sp_off, __s16 bp_off, unsigned sp_reg, unsigned bp_reg, unsigned type,
		   unsigned signal)
{
	__u16 bits = (__u16)(sp_reg | bp_reg << 4 | type << 8 | signal << 11);

	return (__u64)(__u16)sp_off | (__u64)(__u16)bp_off << 16 | (__u64)bits << 32;
}

static void add_orc(__u64 lo, __u64 hi, __u64 raw)
{
	orcs[norcs++] = (struct span){ lo, hi, raw };
}

static void put(__u64 addr, __u64 v)
{
	mem[(addr - STACK_LO) / 8] = v;
}

static struct lt_kwalk start(__u64 ip, __u64 sp, __u64 bp)
{
	return (struct lt_kwalk){ .ip = ip, .sp = sp, .bp = bp, .sample_bp = bp, .sample_cs = 0x10,
				  .stack_lo = STACK_LO, .stack_hi = STACK_LO + 8 * STACK_WORDS,
				  .text_lo = TEXT_LO, .text_hi = TEXT_HI,
				  .regs_kind = LT_KREGS_SAMPLE, .signal = 1 };
}

/* Walk as perf_callchain_kernel does: the sampled ip, then each caller. */
static int walk(struct lt_kwalk *k, __u64 *out, int max, int *rc)
{
	int n = 0;

	out[n++] = k->ip;
	*rc = lt_kwalk_step(NULL, k);
	while (*rc == LT_KORC_GO && n < max) {
		int r = lt_kwalk_recordable(k);

		if (r < 0) {
			*rc = LT_KORC_KERNEL;
			break;
		}
		if (!r)
			break;
		out[n++] = k->ip;
		*rc = lt_kwalk_step(NULL, k);
	}
	return n;
}

static void reset(void)
{
	memset(mem, 0, sizeof(mem));
	norcs = 0;
}

#define FN_A	(TEXT_LO + 0x1000)	/* leaf: CFA = sp + 16 (one push), bp not saved */
#define FN_B	(TEXT_LO + 0x2000)	/* CFA = bp + 16, bp at CFA - 16 */
#define FN_C	(TEXT_LO + 0x3000)	/* syscall entry: pt_regs at sp */

Test(korc, decode_matches_the_kernel_layout)
{
	struct lt_korc o = lt_korc_decode(entry(-24, 16, LT_KORC_REG_BP, LT_KORC_REG_PREV_SP,
						  LT_KORC_TYPE_REGS_PARTIAL, 1));

	cr_assert_eq(o.sp_offset, -24);
	cr_assert_eq(o.bp_offset, 16);
	cr_assert_eq(o.sp_reg, LT_KORC_REG_BP);
	cr_assert_eq(o.bp_reg, LT_KORC_REG_PREV_SP);
	cr_assert_eq(o.type, LT_KORC_TYPE_REGS_PARTIAL);
	cr_assert_eq(o.signal, 1);
}

/* A -> B -> C, C entered from user mode: three kernel frames, then the end. */
static void syscall_stack(__u64 *sp0, __u64 *bp0)
{
	__u64 top = STACK_LO + 8 * STACK_WORDS, regs = top - 168;
	__u64 c_sp = regs;		/* C's frame: its pt_regs at sp */
	__u64 b_cfa = c_sp - 8 * 4, b_bp = b_cfa - 16;	/* B called from C */
	__u64 a_sp = b_bp - 8 * 6;	/* A called from B, one push */

	reset();
	add_orc(FN_A, FN_A + 0x100, entry(16, 0, LT_KORC_REG_SP, LT_KORC_REG_UNDEFINED,
					  LT_KORC_TYPE_CALL, 0));
	add_orc(FN_B, FN_B + 0x100, entry(16, -16, LT_KORC_REG_BP, LT_KORC_REG_PREV_SP,
					  LT_KORC_TYPE_CALL, 0));
	add_orc(FN_C, FN_C + 0x100, entry(0, 0, LT_KORC_REG_SP, LT_KORC_REG_UNDEFINED,
					  LT_KORC_TYPE_REGS, 0));
	put(a_sp + 8, FN_B + 0x40);		/* A's return address (CFA - 8) */
	put(b_bp, 0x1234);			/* B's caller's bp, saved at CFA - 16 */
	put(b_cfa - 8, FN_C + 0x20);		/* B's return address */
	put(regs + LT_KREGS_IP, 0x401000);	/* user pc */
	put(regs + LT_KREGS_SP, 0x7ffc0000);
	put(regs + LT_KREGS_CS, 0x33);		/* user mode */
	put(regs + LT_KREGS_BP, 0x7ffc0100);
	*sp0 = a_sp;
	*bp0 = b_bp;
}

/* The first step from A of the system call's stack, A's entry being raw. */
static int first_step_with(__u64 raw)
{
	__u64 sp, bp;
	struct lt_kwalk k;

	syscall_stack(&sp, &bp);
	orcs[0].raw = raw;
	put(sp - 72, FN_B + 0x40);	/* a return address below A's frame */
	k = start(FN_A + 0x10, sp, bp);
	return lt_kwalk_step(NULL, &k);
}

Test(korc, a_system_call_ends_at_the_entry_from_user_mode)
{
	__u64 sp, bp, out[16];
	struct lt_kwalk k;
	int rc, n;

	syscall_stack(&sp, &bp);
	k = start(FN_A + 0x10, sp, bp);
	n = walk(&k, out, 16, &rc);
	cr_assert_eq(n, 3, "frames: %d (rc %d)", n, rc);
	cr_assert_eq(out[0], FN_A + 0x10);
	cr_assert_eq(out[1], FN_B + 0x40);
	cr_assert_eq(out[2], FN_C + 0x20);
	cr_assert_eq(rc, LT_KORC_GO, "ends on the user pc, which is not recorded");
}

Test(korc, the_sampled_frames_bp_comes_back_from_the_registers)
{
	__u64 sp, bp, out[16];
	struct lt_kwalk k;
	int rc;

	syscall_stack(&sp, &bp);
	k = start(FN_A + 0x10, sp, bp);
	walk(&k, out, 2, &rc);	/* stop after B */
	cr_assert_eq(k.bp, 0x1234, "B's CFA - 16 restored bp");
}

Test(korc, code_outside_the_core_kernel_goes_to_the_kernels_unwinder)
{
	__u64 sp, bp, out[16];
	struct lt_kwalk k;
	int rc;

	syscall_stack(&sp, &bp);
	put(sp + 8, TEXT_HI + 0x100);	/* A returns into a module */
	k = start(FN_A + 0x10, sp, bp);
	walk(&k, out, 16, &rc);
	cr_assert_eq(rc, LT_KORC_KERNEL);
	k = start(TEXT_HI + 0x10, sp, bp);	/* sampled in a module */
	cr_assert_eq(lt_kwalk_step(NULL, &k), LT_KORC_KERNEL);
}

Test(korc, no_entry_or_an_unknown_base_goes_to_the_kernels_unwinder)
{
	__u64 sp, bp;
	struct lt_kwalk k;

	syscall_stack(&sp, &bp);
	k = start(FN_A + 0x200, sp, bp);	/* no ORC entry */
	cr_assert_eq(lt_kwalk_step(NULL, &k), LT_KORC_KERNEL);
	cr_assert_eq(first_step_with(entry(8, 0, 6 /* r10 */, LT_KORC_REG_UNDEFINED,
					   LT_KORC_TYPE_CALL, 0)), LT_KORC_KERNEL);
}

Test(korc, a_read_off_the_tasks_stack_goes_to_the_kernels_unwinder)
{
	__u64 sp, bp;
	struct lt_kwalk k;

	syscall_stack(&sp, &bp);
	k = start(FN_B + 0x10, sp, STACK_LO - 64);	/* bp-based CFA below the stack */
	cr_assert_eq(lt_kwalk_step(NULL, &k), LT_KORC_KERNEL);
}

Test(korc, end_of_stack_and_undefined_entries_end_the_stack)
{
	cr_assert_eq(first_step_with(entry(0, 0, LT_KORC_REG_UNDEFINED, LT_KORC_REG_UNDEFINED,
					   LT_KORC_TYPE_END, 0)), LT_KORC_DONE);
	cr_assert_eq(first_step_with(entry(0, 0, LT_KORC_REG_UNDEFINED, LT_KORC_REG_UNDEFINED,
					   LT_KORC_TYPE_UNDEFINED, 0)), LT_KORC_DONE);
}

Test(korc, a_caller_below_its_callee_ends_the_stack)
{
	cr_assert_eq(first_step_with(entry(-64, 0, LT_KORC_REG_SP, LT_KORC_REG_UNDEFINED,
					   LT_KORC_TYPE_CALL, 0)), LT_KORC_DONE);
}

Test(korc, return_addresses_are_looked_up_one_byte_back)
{
	__u64 sp, bp;
	struct lt_kwalk k;

	syscall_stack(&sp, &bp);
	put(sp + 8, FN_B + 0x100);	/* B's last byte was a call: its return address is past B */
	k = start(FN_A + 0x10, sp, bp);
	cr_assert_eq(lt_kwalk_step(NULL, &k), LT_KORC_GO);
	cr_assert_eq(k.signal, 0);
	cr_assert_eq(lt_kwalk_step(NULL, &k), LT_KORC_GO, "found B's entry at ip - 1");
}

Test(korc, an_exception_in_the_kernel_goes_on_from_its_registers)
{
	__u64 sp, bp, out[16], regs;
	struct lt_kwalk k;
	int rc, n;

	syscall_stack(&sp, &bp);
	/* A was interrupted by an exception whose handler is FN_C's twin at FN_C + 0x80:
	** the pt_regs at its sp hold a kernel pc in A, and the stack goes on from there. */
	regs = sp - 200;
	add_orc(TEXT_LO + 0x4000, TEXT_LO + 0x4100, entry(0, 0, LT_KORC_REG_SP,
							  LT_KORC_REG_UNDEFINED, LT_KORC_TYPE_REGS, 1));
	put(regs + LT_KREGS_IP, FN_A + 0x10);
	put(regs + LT_KREGS_SP, sp);
	put(regs + LT_KREGS_CS, 0x10);	/* kernel mode */
	put(regs + LT_KREGS_BP, bp);
	k = start(TEXT_LO + 0x4010, regs, 0);
	n = walk(&k, out, 16, &rc);
	cr_assert_eq(n, 4, "frames: %d (rc %d)", n, rc);
	cr_assert_eq(out[1], FN_A + 0x10, "the interrupted pc, exact");
	cr_assert_eq(out[2], FN_B + 0x40);
	cr_assert_eq(out[3], FN_C + 0x20);
}

Test(korc, rewritten_return_addresses_go_to_the_kernels_unwinder)
{
	__u64 sp, bp, out[16];
	struct lt_kwalk k;
	int rc;

	syscall_stack(&sp, &bp);
	k = start(FN_A + 0x10, sp, bp);
	k.tramp[0] = FN_B + 0x40;	/* as if ftrace's return_to_handler were there */
	walk(&k, out, 16, &rc);
	cr_assert_eq(rc, LT_KORC_KERNEL);
}
