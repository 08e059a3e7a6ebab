/*
** Find the LuaJIT VM in .eh_frame by the shape of its FDE.
**
** buildvm emits the VM's CFI itself (vm_x64.dasc, emit_asm_debug): one FDE from
** lj_vm_asm_begin to lj_vm_ffi_call holding only the initial state of a VM frame,
** CFA = rsp + CFRAME_SIZE (80; 96 with LUAJIT_NO_UNWIND or in Tarantool), the
** return address at cfa-8 and rbp, rbx, r15, r14 at cfa-16 .. -40, no advance;
** then, with the FFI, a classic rbp-frame FDE for lj_vm_ffi_call. Compilers emit
** nothing of that shape over more than 10 KB (Parca and Perforator rely on it too).
**
** The section is walked by unwind/fde.h and each program run by unwind/cfa.h
** (the one parser of .eh_frame); here only the shape of the result is judged.
*/
#include <errno.h>
#include <string.h>

#include "lua/vmfde.h"
#include "unwind/fde.h"

#define VF_RBX		3
#define VF_RBP		6
#define VF_RSP		7
#define VF_R12		12
#define VF_R13		13
#define VF_R14		14
#define VF_R15		15

/* What the rows of one FDE looked like. */
struct vf_rows {
	uint32_t n;		/* rows emitted: 1 means no advance */
	uint8_t rbp_cfa;	/* some row computes the CFA from rbp */
};

/* cfa_row_fn: note the shape of each row. */
static int vf_row(void *arg, uint64_t loc, struct lt_uw_rule rule)
{
	struct vf_rows *r = arg;

	(void)loc;
	r->n++;
	r->rbp_cfa |= rule.kind == LT_UW_CFA && rule.cfa_reg == LT_UW_REG_RBP;
	return 0;
}

/* Run an FDE's program: 0 with its final state and rows, or -1 when malformed. */
static int vf_run(const struct fde *f, struct cfa_state *st, struct vf_rows *rows)
{
	*st = f->cie->init;
	*rows = (struct vf_rows){ 0 };
	return cfa__run(f->cie, f->insns, f->len, f->lo, f->hi, vf_row, rows, st) ? -1 : 0;
}

/* Is this FDE the VM's? 0 if not, else its CFRAME_SIZE. */
static uint32_t vf_is_vm(const struct cfa_state *s, const struct vf_rows *rows, uint64_t lo,
			 uint64_t hi)
{
	const uint32_t core = 1u << VF_RBX | 1u << VF_RBP | 1u << VF_R14 | 1u << VF_R15 |
			      1u << CFA_REG_RA;
	const uint32_t wide = core | 1u << VF_R12 | 1u << VF_R13;

	if (hi - lo <= VMFDE_MIN_LEN || rows->n != 1 || s->how != CFA_REGOFF ||
	    s->reg != VF_RSP || s->other)
		return 0;
	if ((s->saved & core) != core || s->save_off[CFA_REG_RA] != -8 ||
	    s->save_off[VF_RBP] != -16 || s->save_off[VF_RBX] != -24 ||
	    s->save_off[VF_R15] != -32 || s->save_off[VF_R14] != -40)
		return 0;
	if (s->off == 80 && s->saved == core)
		return 80;
	if (s->off == 96 && (s->saved == core || s->saved == wide))
		return 96;
	return 0;
}

/* One walk of the section: pass 0 finds VM-shaped FDEs, pass 1 the one at vm_hi. */
static int vf_pass(const uint8_t *sec, size_t len, uint64_t sec_vaddr, int stop_at_zero,
		   int pass, struct vmfde *out)
{
	struct fde_iter it;
	struct cfa_state st;
	struct vf_rows rows;
	struct fde f;

	if (fde_iter__init(&it, sec, len, sec_vaddr, 1, stop_at_zero, NULL))
		return -ENOMEM;
	while (fde_iter__next(&it, &f)) {
		uint32_t cfa;

		if (vf_run(&f, &st, &rows)) {
			out->nbad += !pass;
			continue;
		}
		if (pass == 0) {
			out->nfde++;
			cfa = vf_is_vm(&st, &rows, f.lo, f.hi);
			if (cfa && !out->nvm++) {
				out->vm_lo = f.lo;
				out->vm_hi = f.hi;
				out->cfa_off = cfa;
			}
		} else if (f.lo == out->vm_hi && f.hi - f.lo <= VMFDE_FFI_MAX && rows.rbp_cfa &&
			   !out->ffi_lo) {
			out->ffi_lo = f.lo;
			out->ffi_hi = f.hi;
		}
	}
	if (!pass)
		out->nbad += (uint32_t)it.nbad;
	fde_iter__fini(&it);
	return 0;
}

/* Scan .eh_frame for the VM FDE and the ffi_call FDE after it (see vmfde.h). */
int vmfde__scan(const uint8_t *sec, size_t len, uint64_t sec_vaddr, int stop_at_zero,
		struct vmfde *out)
{
	if (!out || (!sec && len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (vf_pass(sec, len, sec_vaddr, stop_at_zero, 0, out))
		return -ENOMEM;
	if (out->nvm && vf_pass(sec, len, sec_vaddr, stop_at_zero, 1, out))
		return -ENOMEM;
	return 0;
}
