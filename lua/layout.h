/*
** LuaJIT 2.1 x64 GC64 object and frame layout: the offsets that have been
** stable since 2017 in every tree checked (upstream, Debian, OpenResty,
** Tarantool; luajit_internals.md §2). The per-build ones (G2DISP, cur_L,
** vmstate, jit_base) are derived per binary (lua/detect.c) and travel in
** struct lt_lua_cfg. Shared by the BPF sampler and user space.
*/
#ifndef LUATOP_LUA_LAYOUT_H
#define LUATOP_LUA_LAYOUT_H

#include "wire/luatop.h"

#define LT_LJ_GCPTR_MASK		((1ull << 47) - 1)	/* GC64: address bits of a TValue */
#define LT_LJ_TAG_SHIFT		47
#define LT_LJ_TAG_FUNC		0x1fff7ull	/* itype of a function TValue */
#define LT_LJ_TAG_THREAD		0x1fff9ull	/* a thread in a function slot: dummy frame */

#define LT_LJ_L_GLREF		16	/* lua_State: global_State * */
#define LT_LJ_L_BASE		32	/* TValue *base */
#define LT_LJ_L_STACK		56	/* TValue *stack (MRef) */
#define LT_LJ_L_CFRAME		80	/* innermost C frame; low 2 bits are flags */
#define LT_LJ_L_STACKSIZE		88	/* u32, in slots */

#define LT_LJ_FN_FFID		10	/* GCfunc: u8 */
#define LT_LJ_FN_PC		32	/* GCfunc (Lua): bytecode of its proto (MRef) */
#define LT_LJ_FN_CFUNC		40	/* GCfunc (C): lua_CFunction */
#define LT_LJ_PROTO_SIZE		104	/* sizeof(GCproto): bytecode follows it */

#define LT_LJ_FRAME_TYPE		3	/* ftsz & 3 == 0: a Lua frame (link is a PC) */
#define LT_LJ_FRAME_TYPEP		7
#define LT_LJ_FRAME_CONT		2
#define LT_LJ_FRAME_VARG		3
#define LT_LJ_CONT_FFI_CALLBACK	1	/* cont value of an FFI callback frame */

/* The C frame every VM activation makes (lj_frame.h, x64 POSIX). */
#define LT_LJ_CFRAME_SIZE		80
#define LT_LJ_CFRAME_OFS_L		16	/* SAVE_L */
#define LT_LJ_CFRAME_OFS_PC	24	/* SAVE_PC */
#define LT_LJ_CFRAME_OFS_PREV	32	/* previous cframe of the same lua_State */
#define LT_LJ_CFRAME_OFS_RBP	64	/* saved rbp */
#define LT_LJ_CFRAME_OFS_RA	72	/* return address */
#define LT_LJ_CFRAME_RAWMASK	(~3ull)
#define LT_LJ_CFRAME_CHAIN		8	/* cframes searched per VM frame */
#define LT_LJ_CFRAME_REACH		65536	/* a cframe lies within this above sp */

#define LT_LJ_VMST_INTERP	(-1)	/* G->vmstate: ~LJ_VMST_INTERP; >= 0 a trace */
#define LT_LJ_VMST_C		(-2)	/* a C function (lj_vm_ffi_call, lua_CFunction) */
#define LT_LJ_VMST_GC		(-3)	/* the collector; < -3: exit, record, opt, asm */
#define LT_LJ_TRACE_STARTPC	72	/* GCtrace: MRef to the bytecode it starts at */
#define LT_LJ_TRACE_MAX		65536	/* trace numbers are 16 bits */

#endif
