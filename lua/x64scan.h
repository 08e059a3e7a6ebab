/*
** Byte patterns in the x86-64 LuaJIT VM code: where the VM keeps global_State
** fields (DISPATCH-relative displacements), which build flavour it is, and where
** its entry points, handlers and helpers start. Offsets are from vm_start.
** The code is untrusted: every read is bounds-checked against len.
** Helper offsets are their labels (an endbr64 in CET builds, then the code);
** entry prologue offsets are those of their first push.
*/

#ifndef LUATOP_LUA_X64SCAN_H
#define LUATOP_LUA_X64SCAN_H

#include <stddef.h>
#include <stdint.h>

#define X64_ENTRY_MAX	8	/* VM entry prologues kept */

/* What the VM entry code (lj_vm_resume/pcall/call/cpcall) says. */
struct x64_entry {
	uint32_t n;			/* prologues push rbp/rbx/r15/r14; sub $40,%rsp */
	uint32_t ofs[X64_ENTRY_MAX];	/* their offsets */
	int gc64;			/* 1: mov 0x10(%rbp),%r14; 0: mov 0x8(%rbp),%r14d; -1 */
	uint32_t nglref;		/* entries that load glref and add G2DISP */
	uint32_t g2disp;		/* the add $imm32 to r14: GG_G2DISP */
	uint32_t ncur_L;		/* entries that store L to cur_L */
	int32_t d_cur_L;		/* mov %rbp,disp32(%r14): cur_L - G2DISP */
	uint32_t nvmstate;		/* entries that set vmstate to INTERP */
	int32_t d_vmstate;		/* movl $-1,disp32(%r14): vmstate - G2DISP */
};

/* What the BC_JLOOP handler says (GC64). */
struct x64_jloop {
	int32_t d_trace;		/* mov disp32(%r14),%rcx: &J->trace - DISPATCH */
	int32_t d_jit_base;		/* mov %rdx,disp32(%r14): jit_base - G2DISP */
	uint8_t mcode;			/* mov disp8(%rax),%rax: offsetof(GCtrace, mcode) */
};

/*
** Find the entry prologues and read G2DISP, cur_L and vmstate out of them.
** 0; -ENOENT when no entry loads glref; -EBADMSG when entries disagree (the
** fields stay as found in the first one).
*/
int x64scan__entry(const uint8_t *code, size_t len, struct x64_entry *out);
/*
** The call *%r15 of lj_BC_FUNCC after its `movl $-2,d_vmstate(%r14)` (vmstate C),
** and the call *wrapf(%r14) of lj_BC_FUNCCW after the same store: 0 and both
** offsets, -ENOENT, or -EBADMSG when one of them is not unique.
*/
int x64scan__funcc(const uint8_t *code, size_t len, int32_t d_vmstate, uint32_t *call_ofs,
		   uint32_t *callw_ofs);
/* Does [start, end) hold the GC64 BC_JLOOP handler? 0 and *out, or -ENOENT. */
int x64scan__jloop(const uint8_t *code, size_t len, uint32_t start, uint32_t end,
		   struct x64_jloop *out);
/* The first frameless SSE rounding helper (lj_vm_floor) at or after from: 0, -ENOENT. */
int x64scan__leaf(const uint8_t *code, size_t len, uint32_t from, uint32_t *ofs);
/* lj_vm_ffi_callback (GC64) and the G2DISP in its lea: 0, -ENOENT, -EBADMSG if several. */
int x64scan__ffi_callback(const uint8_t *code, size_t len, uint32_t *ofs, uint32_t *g2disp);
/* lj_vm_exit_handler (pushes every GPR): 0, -ENOENT, -EBADMSG if several. */
int x64scan__exit_handler(const uint8_t *code, size_t len, uint32_t *ofs);
/*
** The return address of lj_vm_cpcall's call of its C function (`call *%rcx`,
** then `test %rax,%rax`): a VM frame there is a cpcall whose function runs
** without a Lua frame (the parser, the trace recorder, a finalizer...). 0,
** -ENOENT, -EBADMSG if several.
*/
int x64scan__cpcall(const uint8_t *code, size_t len, uint32_t *ret);

#define X64_LEAVE_MAX	20	/* bytes of the VM's epilogue described, at most */

/*
** Where a VM activation ends (vm_x64.dasc): lj_vm_cpcall tests its C
** function's result (at cp_ret: test %rax,%rax; jz ->vm_leave_cp) and, when
** there is a function to call, goes on with mov %rax,%rcx; mov $FRAME_CP,%ebx;
** jmp. vm_leave_cp restores L->cframe from SAVE_CFRAME, then xor %eax,%eax and
** restoreregs (add $CFRAME_SPACE,%rsp; pop r14/r15/rbx/rbp or more; ret):
** every return from the VM to C (lua_call, lua_pcall, lua_resume, lua_cpcall)
** passes there. After the restore, L's cframe chain no longer names the frame,
** which sits at a distance below rsp that each pop changes.
*/
struct x64_leave {
	uint32_t cp_len;	/* bytes from cp_ret through that jmp (or the jz) */
	uint32_t leave;		/* vm_leave_cp */
	uint32_t unw;		/* the xor after the restore */
	uint32_t len;		/* bytes from unw through the ret */
	uint8_t cfa[X64_LEAVE_MAX];	/* from unw: (CFA - rsp) / 8 where an
					   instruction starts, 0 elsewhere */
};

/*
** Read both from cp_ret (x64scan__cpcall's offset); cframe_size is CFRAME_SIZE
** (the FDE's CFA offset), which the epilogue's add and pops must add up to. 0,
** or -ENOENT when the code is not laid out so.
*/
int x64scan__leave(const uint8_t *code, size_t len, uint32_t cp_ret, uint32_t cframe_size,
		   struct x64_leave *out);
/*
** Where each entry prologue of en links its frame into L->cframe (mov
** %reg,off_cframe(%rbp), L in rbp): the first such store after the prologue,
** following the code as laid out (lj_vm_pcall's jmp lands before lj_vm_call's
** store, which follows it). Up to that store the frame is not in L's chain.
** 0 and link[k] (offsets) for each, or -ENOENT if one has none.
*/
int x64scan__links(const uint8_t *code, size_t len, const struct x64_entry *en,
		   uint8_t off_cframe, uint32_t *link);
/*
** The interpreter's stores of a new frame's link, mov %rbx,-0x8(%rdx) (PC to
** [BASE-8]: ins_call in BC_CALL*, vm_call_dispatch): their offsets into ofs[],
** their count into *n. 0; -ENOENT if there is none, -EBADMSG if more than max.
*/
int x64scan__link_stores(const uint8_t *code, size_t len, uint32_t *ofs, uint32_t max,
			 uint32_t *n);
/* Is the rbp-frame prologue of lj_vm_ffi_call at code[0..len)? */
int x64scan__is_ffi_call(const uint8_t *code, size_t len);

#endif
