/*
** luatop wire format: what the BPF sampler writes and user space reads.
** Included by the BPF program, the loader and the tests. Fixed-width types only,
** explicit padding, a record type word first; sizes asserted on both sides.
*/
#ifndef LUATOP_WIRE_H
#define LUATOP_WIRE_H

#include <linux/types.h>

#define LT_WIRE_SAMPLE	0x4c540003	/* "LT", version 3: struct lt_sample */
#define LT_WIRE_CAPTURE	0x4c540103	/* "LT", version 3: struct lt_capture */

#ifndef LT_MAX_USER
#define LT_MAX_USER	128	/* user frames per sample (a power of two) */
#endif
#ifndef LT_MAX_KERNEL
#define LT_MAX_KERNEL	128	/* kernel frames per sample */
#endif
#define LT_MAX_LUA	64	/* Lua frames per sample */
#define LT_MAX_TARGETS	64	/* target processes (tgids) */
#define LT_CAPTURE_STACK 16384	/* bytes of user stack in a capture record */

/* Sample flags. */
#define LT_SAMPLE_USER_ERR	0x1	/* no user registers: kernel thread or no pt_regs */
#define LT_SAMPLE_KERNEL_ERR	0x2	/* kernel stack could not be read */
#define LT_SAMPLE_FP_USED	0x4	/* some user frame came from the frame-pointer fallback */
#define LT_SAMPLE_LUA		0x8	/* the process runs LuaJIT: vmstate and lua[] are valid */
#define LT_SAMPLE_NO_G		0x10	/* LuaJIT process, but no global_State known for the thread */
#define LT_SAMPLE_LUA_TRUNC	0x20	/* Lua walk ended early (more frames than lua[], or a bad frame) */

/* What one Lua frame is (lt_lua_frame.kind). */
enum lt_lua_kind {
	LT_LUA_LUA = 1,		/* Lua function: addr = GCproto, pc = bytecode pointer */
	LT_LUA_C,		/* lua_CFunction: addr = its native entry */
	LT_LUA_FAST,		/* fast function: ffid names it (assembly, or C via lj_BC_FUNCC) */
	LT_LUA_COROUTINE,	/* boundary: the frames after it belong to the resuming thread */
};

/* How a Lua frame was called: the frame link type (lt_lua_frame.link). */
enum lt_lua_link {
	LT_LINK_LUA = 0,	/* from a Lua CALL instruction */
	LT_LINK_C = 1,		/* from C: lua_call */
	LT_LINK_CONT = 2,	/* metamethod continuation, or FFI callback (LT_LUAF_FFI_CB) */
	LT_LINK_VARG = 3,	/* (never emitted: vararg pseudo-frames are skipped) */
	LT_LINK_CP = 5,		/* from C, protected: lua_pcall, lua_cpcall, lua_resume */
	LT_LINK_PCALL = 6,	/* from the pcall/xpcall fast function */
	LT_LINK_PCALLH = 7,	/* same, with a hook active */
};

#define LT_LUAF_FFI_CB	0x1	/* a continuation frame entered from an FFI callback */
#define LT_LUAF_PC_TOP	0x2	/* pc came from registers or SAVE_PC, not a callee's link */

/* One Lua frame, as the BPF walk found it. */
struct lt_lua_frame {
	__u64 fn;		/* GCfunc address (tag stripped) */
	__u64 addr;		/* Lua: GCproto address; C: native entry; fast: 0 */
	__u64 pc;		/* Lua: bytecode pointer after the current instruction; 0 unknown */
	__u8 kind;		/* enum lt_lua_kind */
	__u8 ffid;		/* GCfunc.ffid: 0 Lua, 1 C, >= 2 fast function */
	__u8 link;		/* enum lt_lua_link: how this frame was called */
	__u8 flags;		/* LT_LUAF_* */
	__u32 pad;
};

/*
** One sample:
**
**   +------+------+-----+-----+---------+--------+----------+-------+-----------+
**   | type | tgid | tid | cpu | time_ns | n_user | n_kernel | flags | user_stop |
**   +------+------+-----+-----+---------+--------+----------+-------+-----------+
**   | user[LT_MAX_USER]       pcs, leaf first, n_user valid                     |
**   | kernel[LT_MAX_KERNEL]   return addresses, leaf first, n_kernel valid      |
**   | user_how[LT_MAX_USER]   enum lt_frame_how of each user frame              |
**   | vmstate | n_lua | G | L                                                    |
**   | lua[LT_MAX_LUA]         Lua frames, leaf first, n_lua valid                 |
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
	__u8 user_how[LT_MAX_USER];	/* enum lt_frame_how per user frame, | LT_HOW_F_* */
	__s32 vmstate;			/* G->vmstate: ~LJ_VMST_* (< 0) or trace number */
	__u16 n_lua;			/* valid entries in lua[] */
	__u16 pad1;
	__u64 G;			/* global_State of the thread's LuaJIT VM, 0 unknown */
	__u64 L;			/* lua_State running at the sample (cur_L) */
	struct lt_lua_frame lua[LT_MAX_LUA];	/* leaf first */
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
_Static_assert(sizeof(struct lt_lua_frame) == 32, "lt_lua_frame layout");
_Static_assert(sizeof(struct lt_sample) ==
	       LT_SAMPLE_HDR_SIZE + 8 * (LT_MAX_USER + LT_MAX_KERNEL) + LT_MAX_USER + 24 +
	       32 * LT_MAX_LUA, "lt_sample layout changed: bump the wire version");
_Static_assert(__builtin_offsetof(struct lt_sample, user) == LT_SAMPLE_HDR_SIZE,
	       "lt_sample header size");
_Static_assert(__builtin_offsetof(struct lt_capture, stack) == 32, "lt_capture header");
_Static_assert((LT_MAX_USER & (LT_MAX_USER - 1)) == 0, "LT_MAX_USER: a power of two");

#endif
