/*
** luatop wire format: what the BPF sampler writes and user space reads.
** Included by the BPF program, the loader and the tests. Fixed-width types only,
** explicit padding, version word first; sizes asserted on both sides.
*/
#ifndef LUATOP_WIRE_H
#define LUATOP_WIRE_H

#include <linux/types.h>

#define LT_WIRE_VERSION	1

#ifndef LT_MAX_USER
#define LT_MAX_USER	128	/* user frames per sample */
#endif
#ifndef LT_MAX_KERNEL
#define LT_MAX_KERNEL	128	/* kernel frames per sample */
#endif
#define LT_MAX_TARGETS	64	/* target processes (tgids) */

/* Sample flags. */
#define LT_SAMPLE_USER_FP	0x1	/* user stack walked by frame pointers (bpf_get_stack) */
#define LT_SAMPLE_USER_ERR	0x2	/* user stack could not be read */
#define LT_SAMPLE_KERNEL_ERR	0x4	/* kernel stack could not be read */

/*
** One sample, as reserved in the ring buffer:
**
**   +---------+------+-----+-----+---------+--------+----------+-------+
**   | version | tgid | tid | cpu | time_ns | n_user | n_kernel | flags |
**   +---------+------+-----+-----+---------+--------+----------+-------+
**   | user[LT_MAX_USER]     leaf first, n_user valid                  |
**   | kernel[LT_MAX_KERNEL] leaf first, n_kernel valid                |
**   +--------------------------------------------------------------------+
*/
struct lt_sample {
	__u32 version;			/* LT_WIRE_VERSION */
	__u32 tgid;			/* process id */
	__u32 tid;			/* thread id */
	__u32 cpu;			/* CPU the sample was taken on */
	__u64 time_ns;			/* CLOCK_MONOTONIC, bpf_ktime_get_ns() */
	__u16 n_user;			/* valid entries in user[] */
	__u16 n_kernel;			/* valid entries in kernel[] */
	__u32 flags;			/* LT_SAMPLE_* */
	__u64 user[LT_MAX_USER];	/* user return addresses, leaf first */
	__u64 kernel[LT_MAX_KERNEL];	/* kernel return addresses, leaf first */
};

enum lt_drop {
#define LT_DROP(name, text) LT_DROP_##name,
#include "bpf/drops.def"
#undef LT_DROP
	LT_DROP__COUNT
};

#define LT_SAMPLE_HDR_SIZE	32
_Static_assert(sizeof(struct lt_sample) ==
	       LT_SAMPLE_HDR_SIZE + 8 * (LT_MAX_USER + LT_MAX_KERNEL),
	       "lt_sample layout changed: bump LT_WIRE_VERSION");
_Static_assert(__builtin_offsetof(struct lt_sample, user) == LT_SAMPLE_HDR_SIZE,
	       "lt_sample header size");

#endif
