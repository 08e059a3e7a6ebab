/*
** Does an ELF file contain the LuaJIT VM, which build is it, and where does it
** keep what the sampler reads? Everything is derived from the file itself: the
** VM's .eh_frame FDE, lj_bc_ofs[] in .rodata, instruction patterns in the VM
** code, its version string and its dynamic exports (luajit_internals.md §4.5,
** §5.3, §7). Known builds are recognised by their offsets, unknown ones pass on
** plausibility checks; anything ambiguous is reported, never guessed.
**
** The file is untrusted (it comes from the profiled process, and luatop runs as
** root): every read is bounds-checked, a malformed file is "not found".
*/

#ifndef LUATOP_LUA_DETECT_H
#define LUATOP_LUA_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "lua/x64scan.h"

#define LUABUILD_ENTRY_MAX	8	/* VM entry prologues kept */
#define LUABUILD_LINK_MAX	8	/* link stores kept */
#define LUABUILD_BC_OFS_MAX	217	/* BC__MAX (<= 160) + 57 ASM fast functions */

/*
** Vaddrs are ELF virtual addresses (add the mapping's bias); ofs fields are
** byte offsets from vm_start (= lj_vm_asm_begin = lj_BC_ISLT); off_* fields are
** offsets into global_State (G). All are 0 when unknown.
**
** Derived sizes: GG_LEN_DDISP = bc_max + 57 (the dynamic dispatch: bytecodes
** and ASM fast functions), BC_FUNCF = bc_max - 8 = GG_LEN_SDISP (the static copy
** of the handlers: dispatch[GG_LEN_DDISP + i] == vm_start + bc_ofs[i] but for
** FORL/ITERL/ITERN/LOOP),
** GG_State.bcff[i] = bc_max + i, bc_cfunc_int = (bc_max - 2) | 20 << 8.
*/
struct luabuild {
	int found;		/* the file contains a LuaJIT VM */
	int supported;		/* x64 GC64 LuaJIT 2.1 that luatop can walk */
	char why[128];		/* when !supported: one line, e.g.
				   "LuaJIT 2.1.0-beta3 non-GC64 build: not supported" */
	char version[64];	/* LUAJIT_VERSION from the binary's strings, "" if none */
	char layout[48];	/* the known build these offsets belong to, "" if none matched */
	int openresty;		/* exports lua_setexdata/lua_getexdata (OpenResty luajit2),
				   or its offsets are those of a known OpenResty build */
	int gc64;		/* 1 GC64; 0 non-GC64 (32-bit refs); -1 not determined */
	int jit;		/* the JIT compiler is built in (BC_JLOOP has a handler) */
	int symbols;		/* .symtab names the VM, and every derived address matched it */
	uint32_t cframe_size;	/* CFRAME_SIZE from the FDE: CFA = cframe + 80 */
	uint64_t vm_start, vm_end;	/* the VM FDE: CFA=rsp+80, rbp/rbx/r15/r14 saved */
	uint64_t ffi_call_start, ffi_call_end;	/* lj_vm_ffi_call: the rbp-frame FDE after */
	uint64_t leaf_start, leaf_end;	/* frameless: lj_vm_floor .. end of lj_vm_next */
	uint64_t exit_start, exit_end;	/* lj_vm_exit_handler .. end of lj_vm_exit_interp:
					   rsp is below the cframe there (JIT builds) */
	uint64_t ffi_callback;	/* lj_vm_ffi_callback: CFA = rsp+80 only after its prologue
				   (endbr64 in CET builds; push rbx/r15/r14; sub $40,%rsp) */
	uint64_t cpcall_ret;	/* return address of lj_vm_cpcall's call of its C function:
				   a VM frame there runs no Lua frame; 0 if not found */
	uint32_t cpcall_len;	/* bytes from cpcall_ret on where a leaf runs none either */
	uint64_t leave_start;	/* vm_leave_cp, where every return from the VM to C ends
				   (0: not found): a leaf from there runs no Lua frame */
	uint64_t unw_start;	/* its epilogue after L->cframe was restored */
	uint32_t unw_len;	/* bytes of it through the ret */
	uint8_t unw_cfa[X64_LEAVE_MAX];	/* per byte from unw_start: (CFA - rsp) / 8 where an
					   instruction starts, 0 elsewhere */
	uint32_t n_link_store;	/* the interpreter's stores of a new frame's link */
	uint64_t link_store[LUABUILD_LINK_MAX];	/* (mov %rbx,-8(%rdx)): where it is
						   not stored yet; 0 found if more */
	uint32_t n_entry;	/* VM entry points (lj_vm_resume/pcall/call/cpcall) */
	uint64_t entry[LUABUILD_ENTRY_MAX];	/* their prologues' first push: push rbp (1 byte),
					   push rbx (1), push r15 (2), push r14 (2),
					   sub $40,%rsp (4): a partial frame until done */
	uint32_t entry_len[LUABUILD_ENTRY_MAX];	/* bytes from entry[i] through the store that
						   links the frame into L->cframe (0: not found) */
	uint32_t g2disp;	/* GG_G2DISP: DISPATCH (r14) = G + g2disp */
	uint32_t off_cur_L;	/* G->cur_L */
	uint32_t off_vmstate;	/* G->vmstate (i32: ~LJ_VMST_*, or the trace number) */
	uint32_t off_jit_base;	/* G->jit_base (JIT builds) */
	uint32_t off_jit_trace;	/* G-relative address of J->trace (GCRef *), JIT builds */
	uint32_t off_trace_mcode;	/* offsetof(GCtrace, mcode), as JLOOP reads it: 88 */
	uint32_t sizeof_lua_State;	/* 96, 112 for OpenResty: G = main L + this */
	int gcstr_new;		/* GCstr.len at +20 (1: 2.1 since 2020-06-23), at +16 (0),
				   or -1 when the build is not a known one */
	uint64_t bc_ofs_vaddr;	/* lj_bc_ofs[] in .rodata */
	uint32_t bc_max;	/* BC__MAX (97 on Debian/OpenResty 2.1; 104 on the 2026 tip) */
	uint32_t n_bc_ofs;	/* entries in bc_ofs: bc_max + 57 */
	uint16_t bc_ofs[LUABUILD_BC_OFS_MAX];	/* a copy of lj_bc_ofs[] */
	uint32_t bc_funcc_ofs;	/* lj_BC_FUNCC (handler of BC_FUNCC = bc_max - 2) */
	uint32_t bc_funcc_ret;	/* return address of its call to the lua_CFunction */
	uint32_t bc_funccw_ofs;	/* lj_BC_FUNCCW (bc_max - 1) */
	uint32_t bc_funccw_ret;	/* return address of its call through G->wrapf */
	uint32_t bc_jloop_ofs;	/* lj_BC_JLOOP, JIT builds */
};

/*
** The names of fast functions by ffid in builds of this flavour (openresty 1
** OpenResty's, 0 upstream's, -1 unknown: only the ffids all builds share); *n
** entries, [0] and [1] being Lua and C functions.
*/
const char *const *luabuild__ffnames(int openresty, unsigned *n);

struct tfile;
/* The LuaJIT VM in a mapped file (found, maybe unsupported), analysed once and
   kept as the file's TF_LUAJIT part; NULL when it holds none or is unreadable. */
const struct luabuild *luabuild__of_file(struct tfile *f);
/* Analyse an open ELF file (the fd stays open). 0: analysed (check found and
   supported); -errno when the file cannot be read. */
int luabuild__detect_fd(int fd, struct luabuild *out);
/* Same for an ELF image in memory (buf is not kept). 0, or -EINVAL/-ENOMEM. */
int luabuild__detect_mem(const void *buf, size_t len, struct luabuild *out);

#endif
