/*
** luatop wire format: what the BPF sampler writes and user space reads.
** Included by the BPF program, the loader and the tests. Fixed-width types only,
** explicit padding, a record type word first; sizes asserted on both sides.
*/
#ifndef LUATOP_WIRE_H
#define LUATOP_WIRE_H

#include <linux/types.h>

#define LT_WIRE_SAMPLE	0x4c540002	/* "LT", version 2: struct lt_sample */
#define LT_WIRE_CAPTURE	0x4c540102	/* "LT", version 2: struct lt_capture */

#ifndef LT_MAX_USER
#define LT_MAX_USER	128	/* user frames per sample (a power of two) */
#endif
#ifndef LT_MAX_KERNEL
#define LT_MAX_KERNEL	128	/* kernel frames per sample */
#endif
#define LT_MAX_TARGETS	64	/* target processes (tgids) */
#define LT_CAPTURE_STACK 16384	/* bytes of user stack in a capture record */

/* Sample flags. */
#define LT_SAMPLE_USER_ERR	0x1	/* no user registers: kernel thread or no pt_regs */
#define LT_SAMPLE_KERNEL_ERR	0x2	/* kernel stack could not be read */
#define LT_SAMPLE_FP_USED	0x4	/* some user frame came from the frame-pointer fallback */

/*
** One sample:
**
**   +------+------+-----+-----+---------+--------+----------+-------+-----------+
**   | type | tgid | tid | cpu | time_ns | n_user | n_kernel | flags | user_stop |
**   +------+------+-----+-----+---------+--------+----------+-------+-----------+
**   | user[LT_MAX_USER]       pcs, leaf first, n_user valid                     |
**   | kernel[LT_MAX_KERNEL]   return addresses, leaf first, n_kernel valid      |
**   | user_how[LT_MAX_USER]   enum lt_frame_how of each user frame              |
**   +---------------------------------------------------------------------------+
*/
struct lt_sample {
	__u32 type;			/* LT_WIRE_SAMPLE */
	__u32 tgid;			/* process id */
	__u32 tid;			/* thread id */
	__u32 cpu;			/* CPU the sample was taken on */
	__u64 time_ns;			/* CLOCK_MONOTONIC, bpf_ktime_get_ns() */
	__u16 n_user;			/* valid entries in user[] */
	__u16 n_kernel;			/* valid entries in kernel[] */
	__u16 flags;			/* LT_SAMPLE_* */
	__u8 user_stop;			/* enum lt_stop: why the user walk ended */
	__u8 pad0;
	__u64 user[LT_MAX_USER];	/* user pcs, leaf first (callers: return addresses) */
	__u64 kernel[LT_MAX_KERNEL];	/* kernel return addresses, leaf first */
	__u8 user_how[LT_MAX_USER];	/* enum lt_frame_how per user frame */
};

/*
** Capture mode (debugging and test fixtures): the registers and a copy of the
** user stack at the sample, followed by the sample the kernel walk produced.
*/
struct lt_capture {
	__u32 type;			/* LT_WIRE_CAPTURE */
	__u32 stack_len;		/* valid bytes in stack[] */
	__u64 pc, sp, bp;		/* user registers at the sample */
	__u8 stack[LT_CAPTURE_STACK];	/* copy of [sp, sp + stack_len) */
	struct lt_sample sample;	/* what the in-kernel walk produced */
};

enum lt_drop {
#define LT_DROP(name, text) LT_DROP_##name,
#include "bpf/drops.def"
#undef LT_DROP
	LT_DROP__COUNT
};

#define LT_SAMPLE_HDR_SIZE	32
_Static_assert(sizeof(struct lt_sample) ==
	       LT_SAMPLE_HDR_SIZE + 8 * (LT_MAX_USER + LT_MAX_KERNEL) + LT_MAX_USER,
	       "lt_sample layout changed: bump the wire version");
_Static_assert(__builtin_offsetof(struct lt_sample, user) == LT_SAMPLE_HDR_SIZE,
	       "lt_sample header size");
_Static_assert(__builtin_offsetof(struct lt_capture, stack) == 32, "lt_capture header");
_Static_assert((LT_MAX_USER & (LT_MAX_USER - 1)) == 0, "LT_MAX_USER: a power of two");

#endif
