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
#define LT_LJ_L_TOP		40	/* TValue *top */
#define LT_LJ_L_STACK		56	/* TValue *stack (MRef) */
#define LT_LJ_L_CFRAME		80	/* innermost C frame; low 2 bits are flags */
#define LT_LJ_L_STACKSIZE		88	/* u32, in slots */
/* The bytes of a lua_State the walk reads (lua/state.h): from glref to the end
** (96 bytes in GC64 builds: stacksize, the last field used, and padding). */
#define LT_LJ_L_SPAN		(96 - LT_LJ_L_GLREF)
_Static_assert(LT_LJ_L_SPAN % 8 == 0 && LT_LJ_L_GLREF % 8 == 0, "lua_State words");

#define LT_LJ_FN_FFID		10	/* GCfunc: u8 */
#define LT_LJ_FN_PC		32	/* GCfunc (Lua): bytecode of its proto (MRef) */
#define LT_LJ_FN_CFUNC		40	/* GCfunc (C): lua_CFunction */
#define LT_LJ_FN_HEAD		8	/* the words a frame's description reads: from */
#define LT_LJ_FN_HEAD_END	48	/* ... to (ffid, pc, cfunc) */
#define LT_LJ_PROTO_SIZE		104	/* sizeof(GCproto): bytecode follows it */

#define LT_LJ_FRAME_TYPE		3	/* ftsz & 3 == 0: a Lua frame (link is a PC) */
#define LT_LJ_FRAME_TYPEP		7
#define LT_LJ_FRAME_C		1	/* ftsz & 3: called from C (FRAME_C, FRAME_CP) */
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
#define LT_LJ_TRACE_MAX		65536	/* trace numbers are 16 bits */

/* JIT traces (lj_jit.h, lj_ir.h; the same in upstream 2021-03..2026 and
** OpenResty 2021-12..2024-03, luajit_traces.md §1-2). */
#define LT_LJ_TRACE_NSNAP	10	/* GCtrace: u16, snapshots */
#define LT_LJ_TRACE_NINS	12	/* u32, next IR ref (biased) */
#define LT_LJ_TRACE_IR		32	/* IRIns *, biased: ir[ref] for nk <= ref */
#define LT_LJ_TRACE_NK		40	/* u32, lowest constant ref (biased) */
#define LT_LJ_TRACE_NSNAPMAP	44	/* u32, SnapEntry count */
#define LT_LJ_TRACE_SNAP	48	/* SnapShot * */
#define LT_LJ_TRACE_SNAPMAP	56	/* SnapEntry * */
#define LT_LJ_TRACE_STARTPT	64	/* GCproto of the first instruction */
#define LT_LJ_TRACE_STARTPC	72	/* MRef to the bytecode it starts at */
#define LT_LJ_TRACE_SZMCODE	84	/* u32, bytes of machine code */
#define LT_LJ_TRACE_MCODE	88	/* MCode *, its first byte */
#define LT_LJ_TRACE_MCLOOP	96	/* u32, offset of the loop body (0: none) */
#define LT_LJ_TRACE_SPADJUST	102	/* u16, stack adjustment of its frame */
#define LT_LJ_TRACE_TRACENO	104	/* u16, its number */
#define LT_LJ_TRACE_LINK	106	/* u16, linked trace */
#define LT_LJ_TRACE_ROOT	108	/* u16, root trace of a side trace, 0 for a root */
#define LT_LJ_TRACE_LINKTYPE	116	/* u8, enum of jit.util's linktype names */
#define LT_LJ_J_SIZETRACE	12	/* MSize, after J->trace (GCRef *) */

#define LT_LJ_SNAP_SIZE		12	/* SnapShot: mapofs u32, ref u16, mcofs u16, */
#define LT_LJ_SNAP_MAPOFS	0	/* nslots u8, topslot u8, nent u8, count u8 */
#define LT_LJ_SNAP_MCOFS	6
#define LT_LJ_SNAP_NENT		10
#define LT_LJ_SNAPE_FRAME	0x10000	/* SnapEntry = slot << 24 | flags | ref16 */
#define LT_LJ_SNAPE_CONT	0x20000

#define LT_LJ_REF_BIAS		0x8000	/* IR refs below are constants */
#define LT_LJ_IR_O		5	/* IRIns: u8 opcode (t: u8 at 4, type = t & 31) */
#define LT_LJ_IR_T		4
#define LT_LJ_IR_KGC		24	/* a GC object constant, 64-bit value in ir[ref + 1] */
#define LT_LJ_IR_KNUM		28	/* a number constant, its bits in ir[ref + 1] */
#define LT_LJ_IRT_PROTO		7
#define LT_LJ_IRT_FUNC		8
#define LT_LJ_GCT_TRACE		9	/* GCHeader.gct (byte 9) of a GCtrace */

/*
** The G window (cfg->gwin_off, gwin_len): the part of a VM's GG_State the walk
** reads, so that the sampler copies it in one read instead of four to six:
** G's vmstate, cur_L, jit_base and J->trace, and the main lua_State's fields
** (GG_State starts with it: G - sizeof_L; a program that runs no coroutine
** runs there). None when the span exceeds LT_GWIN_MAX (an unknown layout).
*/
static inline __attribute__((always_inline)) void lt_lj_gwin(struct lt_lua_cfg *c, __u32 sizeof_L)
{
	__s64 lo = c->off_vmstate, hi = c->off_vmstate + 4;
	__u32 f[3] = { c->off_cur_L, c->off_jit_base, c->off_jit_trace };

	for (int i = 0; i < 3; i++) {
		if (!f[i])
			continue;
		if (f[i] < lo)
			lo = f[i];
		if (f[i] + 8 > hi)
			hi = f[i] + 8;
	}
	if (sizeof_L >= LT_LJ_L_GLREF + LT_LJ_L_SPAN)
		lo = (__s64)LT_LJ_L_GLREF - sizeof_L;	/* the main lua_State's first field used */
	lo &= ~7ll;
	c->gwin_off = (__s32)lo;
	c->gwin_len = hi - lo <= LT_GWIN_MAX ? (__u32)(hi - lo) : 0;
	if (!c->gwin_len)
		c->gwin_off = 0;
}

#endif
