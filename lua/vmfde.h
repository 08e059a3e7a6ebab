/*
** The LuaJIT VM's call frame entries in .eh_frame: the one big FDE of the whole
** VM (CFA = rsp + CFRAME_SIZE, rbp/rbx/r15/r14 saved, no advance) and the
** rbp-frame FDE of lj_vm_ffi_call right after it.
*/

#ifndef LUATOP_LUA_VMFDE_H
#define LUATOP_LUA_VMFDE_H

#include <stddef.h>
#include <stdint.h>

#define VMFDE_MIN_LEN	10000	/* smaller VM-shaped FDEs are ordinary functions */
#define VMFDE_FFI_MAX	4096	/* longest plausible lj_vm_ffi_call */

/* What .eh_frame says about the VM. */
struct vmfde {
	uint32_t nvm;		/* VM-shaped FDEs seen (more than one: ambiguous) */
	uint64_t vm_lo, vm_hi;	/* the first one: [lo, hi) ELF vaddrs */
	uint32_t cfa_off;	/* its CFRAME_SIZE: 80, or 96 (LUAJIT_NO_UNWIND, Tarantool) */
	uint64_t ffi_lo, ffi_hi; /* rbp-frame FDE starting at vm_hi, or 0, 0 */
	uint32_t nfde;		/* FDEs parsed */
	uint32_t nbad;		/* CIEs/FDEs skipped as malformed */
};

/*
** Scan a raw .eh_frame loaded at sec_vaddr. stop_at_zero ends the walk at the
** first terminator (a section found through PT_GNU_EH_FRAME has no known end).
** The bytes are untrusted; always fills *out, returns 0, -EINVAL for NULL, or
** -ENOMEM.
*/
int vmfde__scan(const uint8_t *sec, size_t len, uint64_t sec_vaddr, int stop_at_zero,
		struct vmfde *out);

#endif
