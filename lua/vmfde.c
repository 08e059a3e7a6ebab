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
** The bytes are untrusted: every read goes through the bounded dw_cur of
** unwind/cfa.h, programs are cut at CFA_INSNS_MAX instructions, and an entry
** that does not parse is skipped and counted.
*/
#include <errno.h>
#include <string.h>

#include "unwind/cfa.h"
#include "lua/vmfde.h"

#define VF_NREG		17	/* DWARF registers tracked: rax .. r15 and the RA column */
#define VF_RBX		3
#define VF_RBP		6
#define VF_RSP		7
#define VF_R12		12
#define VF_R13		13
#define VF_R14		14
#define VF_R15		15

/* The CFI state after a program, reduced to what the VM test needs. */
struct vf_state {
	uint64_t cfa_reg;	/* CFA = cfa_reg + cfa_off, when cfa_ok */
	int64_t cfa_off;
	uint8_t cfa_ok;
	uint8_t advanced;	/* the program moved past its first address */
	uint8_t rbp_cfa;	/* rbp was the CFA register at some point */
	uint8_t bad;		/* an instruction did not parse, or is unknown */
	uint32_t saved;		/* bit r: register r saved at cfa + off[r] */
	uint32_t odd;		/* bit r: register r has another kind of rule */
	int64_t off[VF_NREG];
};

/* What a CIE gives its FDEs. */
struct vf_cie {
	int64_t daf;		/* data alignment factor */
	uint8_t ptr_enc;	/* 'R' encoding */
	uint8_t aug_z;		/* FDEs carry augmentation data */
	struct dw_ptrctx x;
	struct vf_state init;	/* after the initial instructions */
};

/* -- CFA programs --------------------------------------------------------- */

/* Record that register reg is saved at cfa + off. */
static void vf_save(struct vf_state *s, uint64_t reg, int64_t off)
{
	if (reg >= VF_NREG)
		return;
	s->saved |= 1u << reg;
	s->odd &= ~(1u << reg);
	s->off[reg] = off;
}

/* Record any other rule for register reg. */
static void vf_other(struct vf_state *s, uint64_t reg)
{
	if (reg >= VF_NREG)
		return;
	s->saved &= ~(1u << reg);
	s->odd |= 1u << reg;
}

/* Put register reg back to its rule in the CIE. */
static void vf_restore(struct vf_state *s, const struct vf_state *init, uint64_t reg)
{
	uint32_t m;

	if (reg >= VF_NREG)
		return;
	m = 1u << reg;
	s->saved = (s->saved & ~m) | (init->saved & m);
	s->odd = (s->odd & ~m) | (init->odd & m);
	s->off[reg] = init->off[reg];
}

/* A uleb register offset times daf, or mark the state bad. */
static int64_t vf_factor(struct vf_state *s, int64_t v, int64_t daf)
{
	int64_t r;

	if (__builtin_mul_overflow(v, daf, &r)) {
		s->bad = 1;
		return 0;
	}
	return r;
}

/* Run [p, p+len) over *s; init is the CIE state for DW_CFA_restore (NULL in a CIE). */
static void vf_run(struct vf_state *s, const struct vf_cie *cie, const struct vf_state *init,
		   const uint8_t *p, size_t len)
{
	struct dw_cur c = { .p = p, .end = p + len };
	int64_t daf = cie->daf;
	uint32_t n = 0;

	while (dw_left(&c) && !s->bad) {
		uint8_t op = (uint8_t)dw_un(&c, 1), lo = op & 0x3f;
		uint64_t reg, u;
		int64_t v;

		if (++n > CFA_INSNS_MAX) {
			s->bad = 1;
			break;
		}
		switch (op & 0xc0) {
		case 0x40:			/* advance_loc */
			s->advanced = 1;
			continue;
		case 0x80:			/* offset */
			u = dw_uleb(&c);
			if (u > INT64_MAX)
				s->bad = 1;
			else
				vf_save(s, lo, vf_factor(s, (int64_t)u, daf));
			continue;
		case 0xc0:			/* restore */
			if (init)
				vf_restore(s, init, lo);
			else
				vf_other(s, lo);
			continue;
		}
		switch (op) {
		case 0x00:			/* nop */
			break;
		case 0x01:			/* set_loc */
			s->advanced = 1;
			if (dw_skip_ptr(&c, cie->ptr_enc, 8))
				s->bad = 1;
			break;
		case 0x02: case 0x03: case 0x04:	/* advance_loc1/2/4 */
			s->advanced = 1;
			dw_skip(&c, op == 0x02 ? 1 : op == 0x03 ? 2 : 4);
			break;
		case 0x05:			/* offset_extended */
			reg = dw_uleb(&c);
			u = dw_uleb(&c);
			if (u > INT64_MAX)
				s->bad = 1;
			else
				vf_save(s, reg, vf_factor(s, (int64_t)u, daf));
			break;
		case 0x06:			/* restore_extended */
			reg = dw_uleb(&c);
			if (init)
				vf_restore(s, init, reg);
			else
				vf_other(s, reg);
			break;
		case 0x07: case 0x08:		/* undefined, same_value */
			vf_other(s, dw_uleb(&c));
			break;
		case 0x09: case 0x14:		/* register, val_offset */
			reg = dw_uleb(&c);
			dw_uleb(&c);
			vf_other(s, reg);
			break;
		case 0x0a: case 0x0b:		/* remember/restore_state: not in the VM */
			s->advanced = 1;
			break;
		case 0x0c:			/* def_cfa */
			s->cfa_reg = dw_uleb(&c);
			u = dw_uleb(&c);
			s->cfa_off = u > INT64_MAX ? 0 : (int64_t)u;
			s->cfa_ok = u <= INT64_MAX;
			s->rbp_cfa |= s->cfa_reg == VF_RBP;
			break;
		case 0x0d:			/* def_cfa_register */
			s->cfa_reg = dw_uleb(&c);
			s->rbp_cfa |= s->cfa_reg == VF_RBP;
			break;
		case 0x0e:			/* def_cfa_offset */
			u = dw_uleb(&c);
			s->cfa_off = u > INT64_MAX ? 0 : (int64_t)u;
			s->cfa_ok = s->cfa_ok && u <= INT64_MAX;
			break;
		case 0x0f:			/* def_cfa_expression */
			dw_skip(&c, dw_uleb(&c));
			s->cfa_ok = 0;
			break;
		case 0x10: case 0x16:		/* expression, val_expression */
			reg = dw_uleb(&c);
			dw_skip(&c, dw_uleb(&c));
			vf_other(s, reg);
			break;
		case 0x11:			/* offset_extended_sf */
			reg = dw_uleb(&c);
			v = dw_sleb(&c);
			vf_save(s, reg, vf_factor(s, v, daf));
			break;
		case 0x12:			/* def_cfa_sf */
			s->cfa_reg = dw_uleb(&c);
			s->cfa_off = vf_factor(s, dw_sleb(&c), daf);
			s->cfa_ok = 1;
			s->rbp_cfa |= s->cfa_reg == VF_RBP;
			break;
		case 0x13:			/* def_cfa_offset_sf */
			s->cfa_off = vf_factor(s, dw_sleb(&c), daf);
			break;
		case 0x15:			/* val_offset_sf */
			reg = dw_uleb(&c);
			dw_sleb(&c);
			vf_other(s, reg);
			break;
		case 0x2e:			/* GNU_args_size */
			dw_uleb(&c);
			break;
		case 0x2f:			/* GNU_negative_offset_extended */
			reg = dw_uleb(&c);
			u = dw_uleb(&c);
			v = u > INT64_MAX ? 0 : vf_factor(s, (int64_t)u, daf);
			if (u > INT64_MAX || v == INT64_MIN)
				s->bad = 1;
			else
				vf_save(s, reg, -v);
			break;
		default:
			s->bad = 1;		/* unknown: its length is unknown too */
			break;
		}
	}
	if (c.err)
		s->bad = 1;
}

/* -- Entries -------------------------------------------------------------- */

/* One CIE or FDE: body after the id field, and for an FDE its CIE's offset. */
struct vf_ent {
	struct dw_cur body;
	size_t cie_off;
	uint8_t is_cie;
	uint8_t bad_ptr;
};

/* The entry at *pos: 1, 2 to skip (terminator, short), 0 at the end, -1 overrun. */
static int vf_next(const uint8_t *d, size_t len, size_t *pos, struct vf_ent *e)
{
	struct dw_cur c = { .p = d + *pos, .end = d + len };
	uint64_t n, id;
	size_t idpos;

	if (*pos >= len)
		return 0;
	n = dw_un(&c, 4);
	if (n == 0xffffffff)
		n = dw_un(&c, 8);
	else if (n >= 0xfffffff0)
		return -1;
	if (c.err || n > dw_left(&c))
		return -1;
	*pos = (size_t)(c.p - d) + (size_t)n;
	if (n < 4)
		return 2;
	idpos = (size_t)(c.p - d);
	id = dw_un(&c, 4);
	e->body = (struct dw_cur){ .p = c.p, .end = d + *pos };
	e->is_cie = id == 0;
	e->bad_ptr = id > idpos;
	e->cie_off = e->bad_ptr ? 0 : idpos - (size_t)id;
	return 1;
}

/* Parse the CIE at offset off: 0 and *ce, or -1. */
static int vf_cie(const uint8_t *d, size_t len, size_t off, const struct dw_ptrctx *x,
		  struct vf_cie *ce)
{
	size_t pos = off, alen;
	struct vf_ent e;
	struct dw_cur c;
	const char *aug;
	uint64_t ver, ra;

	if (vf_next(d, len, &pos, &e) != 1 || !e.is_cie)
		return -1;
	c = e.body;
	memset(ce, 0, sizeof(*ce));
	ce->x = *x;
	ver = dw_un(&c, 1);
	if (c.err || (ver != 1 && ver != 3))
		return -1;
	aug = (const char *)c.p;
	alen = strnlen(aug, dw_left(&c));
	if (alen == dw_left(&c))
		return -1;
	dw_skip(&c, alen + 1);
	dw_uleb(&c);				/* code alignment: advances are not followed */
	ce->daf = dw_sleb(&c);
	ra = ver == 1 ? dw_un(&c, 1) : dw_uleb(&c);
	if (c.err || ra != CFA_REG_RA)
		return -1;
	if (alen && aug[0] == 'z') {
		uint64_t n = dw_uleb(&c);
		struct dw_cur a;

		if (c.err || n > dw_left(&c))
			return -1;
		a = (struct dw_cur){ .p = c.p, .end = c.p + n };
		dw_skip(&c, n);
		ce->aug_z = 1;
		for (size_t i = 1; i < alen; i++) {
			uint8_t enc;

			switch (aug[i]) {
			case 'R':
				ce->ptr_enc = (uint8_t)dw_un(&a, 1);
				break;
			case 'P':
				enc = (uint8_t)dw_un(&a, 1);
				if (a.err || dw_skip_ptr(&a, enc, 8))
					return -1;
				break;
			case 'L':
				dw_un(&a, 1);
				break;
			case 'S':
				break;
			default:
				return -1;
			}
			if (a.err)
				return -1;
		}
	} else if (alen) {
		return -1;
	}
	vf_run(&ce->init, ce, NULL, c.p, dw_left(&c));
	return ce->init.bad ? -1 : 0;
}

/* Parse an FDE: 0 with [*lo, *hi) and its final state, or -1. */
static int vf_fde(const uint8_t *d, size_t len, const struct vf_ent *e,
		  const struct dw_ptrctx *x, uint64_t *lo, uint64_t *hi, struct vf_state *st)
{
	struct dw_cur c = e->body;
	struct vf_cie ce;
	uint64_t range;

	if (e->bad_ptr || vf_cie(d, len, e->cie_off, x, &ce))
		return -1;
	if (ce.ptr_enc & DW_EH_PE_indirect || dw_read_ptr(&c, ce.ptr_enc, &ce.x, lo) ||
	    dw_read_ptr(&c, ce.ptr_enc & 0x0f, &ce.x, &range))
		return -1;
	if (ce.aug_z)
		dw_skip(&c, dw_uleb(&c));
	if (c.err || !range || *lo + range < *lo)
		return -1;
	*hi = *lo + range;
	*st = ce.init;
	st->advanced = 0;
	vf_run(st, &ce, &ce.init, c.p, dw_left(&c));
	return st->bad ? -1 : 0;
}

/* Is this FDE the VM's? 0 if not, else its CFRAME_SIZE. */
static uint32_t vf_is_vm(const struct vf_state *s, uint64_t lo, uint64_t hi)
{
	const uint32_t core = 1u << VF_RBX | 1u << VF_RBP | 1u << VF_R14 | 1u << VF_R15 |
			      1u << CFA_REG_RA;
	const uint32_t wide = core | 1u << VF_R12 | 1u << VF_R13;

	if (hi - lo <= VMFDE_MIN_LEN || s->advanced || !s->cfa_ok || s->cfa_reg != VF_RSP || s->odd)
		return 0;
	if ((s->saved & core) != core || s->off[CFA_REG_RA] != -8 || s->off[VF_RBP] != -16 ||
	    s->off[VF_RBX] != -24 || s->off[VF_R15] != -32 || s->off[VF_R14] != -40)
		return 0;
	if (s->cfa_off == 80 && s->saved == core)
		return 80;
	if (s->cfa_off == 96 && (s->saved == core || s->saved == wide))
		return 96;
	return 0;
}

/* Scan .eh_frame for the VM FDE and the ffi_call FDE after it (see vmfde.h). */
int vmfde__scan(const uint8_t *sec, size_t len, uint64_t sec_vaddr, int stop_at_zero,
		struct vmfde *out)
{
	struct dw_ptrctx x = { .sec = sec, .sec_vaddr = sec_vaddr, .addr_size = 8 };
	struct vf_state st;
	struct vf_ent e;
	uint64_t lo, hi;
	size_t pos;
	int pass, r;

	if (!out || (!sec && len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (pass = 0; pass < 2; pass++) {	/* 1: the FDE that starts at vm_hi */
		if (pass == 1 && !out->nvm)
			break;
		pos = 0;
		while ((r = vf_next(sec, len, &pos, &e)) > 0) {
			uint32_t cfa;

			if (r == 2) {
				if (stop_at_zero)
					break;
				continue;
			}
			if (e.is_cie)
				continue;
			if (vf_fde(sec, len, &e, &x, &lo, &hi, &st)) {
				out->nbad += !pass;
				continue;
			}
			if (pass == 0) {
				out->nfde++;
				cfa = vf_is_vm(&st, lo, hi);
				if (cfa && !out->nvm++) {
					out->vm_lo = lo;
					out->vm_hi = hi;
					out->cfa_off = cfa;
				}
			} else if (lo == out->vm_hi && hi - lo <= VMFDE_FFI_MAX && st.rbp_cfa &&
				   !out->ffi_lo) {
				out->ffi_lo = lo;
				out->ffi_hi = hi;
			}
		}
		if (r < 0)
			out->nbad += !pass;
	}
	return 0;
}
