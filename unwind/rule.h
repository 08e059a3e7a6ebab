/*
** Compact unwind rules: the table format shared by the .eh_frame compiler
** (user space), the BPF sampler and the user-space replayer.
** Fixed-width types only: this is part of the BPF wire format.
*/
#ifndef LUATOP_UNWIND_RULE_H
#define LUATOP_UNWIND_RULE_H

#include <linux/types.h>

/* How to step from one frame to its caller. */
enum lt_uw_kind {
	LT_UW_INVALID = 0,	/* no usable rule: stop and flag the stack truncated */
	LT_UW_CFA,		/* CFA = reg + cfa_off; RA = [CFA-8]; rbp per rbp_off */
	LT_UW_PLT,		/* .plt stub: CFA = rsp + 8, or + 16 once (pc & 15) >= 11 */
	LT_UW_SIGNAL,		/* signal trampoline: caller regs from ucontext at rsp */
	LT_UW_STOP,		/* outermost frame (RA undefined): the stack is complete */
	LT_UW_FP,		/* frame-pointer step, a flagged fallback */
	LT_UW_LJ_VM,		/* LuaJIT VM code: the cframe rule (LuaJIT issue) */
	LT_UW_KIND__COUNT
};

#define LT_UW_REG_RSP	7	/* DWARF register numbers, x86-64 */
#define LT_UW_REG_RBP	6
#define LT_UW_RBP_SAME	0	/* rbp_off value: rbp is not saved, keep it */

struct lt_uw_rule {
	__u8 kind;		/* enum lt_uw_kind */
	__u8 cfa_reg;		/* LT_UW_CFA: LT_UW_REG_RSP or LT_UW_REG_RBP */
	__s16 rbp_off;		/* rbp saved at [CFA + rbp_off], or LT_UW_RBP_SAME */
	__s32 cfa_off;		/* LT_UW_CFA: CFA = cfa_reg + cfa_off */
};

/* One row: from pc_off (ELF virtual address) up to the next row, rule applies. */
struct lt_uw_row {
	__u32 pc_off;		/* ELF vaddr of the first covered byte */
	__u32 rule;		/* index into the rule table */
};

/* How a frame's caller was found; one per user frame in the sample. */
enum lt_frame_how {
	LT_HOW_LEAF = 0,	/* the sampled pc itself */
	LT_HOW_CFI,		/* .eh_frame/.debug_frame rule */
	LT_HOW_PLT,		/* PLT stub rule */
	LT_HOW_SIGNAL,		/* read from a signal frame's ucontext */
	LT_HOW_FP,		/* frame-pointer fallback: may be wrong */
	LT_HOW_LJ_VM,		/* LuaJIT cframe rule */
};
#define LT_HOW_MASK	0x3f	/* the enum lt_frame_how part of a user_how byte */
#define LT_HOW_F_VM	0x40	/* flag: this frame's pc is in the LuaJIT VM */
#define LT_HOW_F_TRACE	0x80	/* flag: this frame's pc is in JIT trace code */

/* Why the user-space walk ended. X-macro: LT_STOP(NAME, "text"). */
#define LT_STOP_LIST(X)								\
	X(COMPLETE,	"reached the outermost frame")				\
	X(MAX_DEPTH,	"more frames than the sample holds")			\
	X(NO_PROC,	"unwind tables of the process not loaded yet")		\
	X(NO_MAPPING,	"pc in no known executable mapping")			\
	X(NO_RULE,	"no unwind rule covers the pc")				\
	X(BAD_RULE,	"unwind rule not supported")				\
	X(READ_FAULT,	"stack memory unreadable")				\
	X(BAD_FRAME,	"unwound frame is implausible (sp not increasing)")	\
	X(KERNEL_ONLY,	"no user registers (kernel thread)")

enum lt_stop {
#define LT_STOP_ENUM(name, text) LT_STOP_##name,
	LT_STOP_LIST(LT_STOP_ENUM)
#undef LT_STOP_ENUM
	LT_STOP__COUNT
};

/* Offsets into the kernel's struct rt_sigframe on x86-64, from the sp at the
** trampoline: the handler's ret popped pretcode, so sp is the ucontext, and
** its uc_mcontext (struct sigcontext) is 40 bytes in (glibc's __restore_rt
** CFI says the same: CFA = [rsp + 40 + 15*8]). */
#define LT_SIGFRAME_MCTX	40
#define LT_SIGCTX_RBP		(10 * 8)
#define LT_SIGCTX_RSP		(15 * 8)
#define LT_SIGCTX_RIP		(16 * 8)

#define LT_MAX_MAPPINGS		256	/* executable mappings per process */

/* One executable mapping of a target, as the BPF program sees it. */
struct lt_uw_mapping {
	__u64 start;		/* [start, end) virtual addresses */
	__u64 end;
	__u64 bias;		/* ELF vaddr = pc - bias */
	__u32 row_start;	/* first row of this file in the rows array */
	__u32 row_count;	/* 0: no unwind info (JIT code): frame-pointer fallback */
};

/* All executable mappings of one target process, sorted by start. */
struct lt_uw_proc {
	__u32 n;		/* valid entries in m[] */
	__u32 generation;	/* bumped by user space on every rewrite */
	struct lt_uw_mapping m[LT_MAX_MAPPINGS];
};

_Static_assert(sizeof(struct lt_uw_mapping) == 32, "lt_uw_mapping layout");

_Static_assert(sizeof(struct lt_uw_rule) == 8, "lt_uw_rule layout");
_Static_assert(sizeof(struct lt_uw_row) == 8, "lt_uw_row layout");

#endif
