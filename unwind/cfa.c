/*
** DWARF call frame programs -> lt_uw_rule rows.
**
** The bytes come from ELF files of the profiled process and are untrusted: every
** read goes through the bounded dw_cur, the instruction count and the
** remember-state stack are bounded, and an instruction this interpreter does not
** know makes the whole program malformed (its length is unknown, so nothing after
** it can be trusted).
**
** Only three registers matter to the BPF unwinder: the CFA base (rsp or rbp),
** rbp and the return address. The rules of all other registers are parsed and
** dropped. The mapping to lt_uw_rule (cfa__rule) never approximates: a row it
** cannot express exactly becomes LT_UW_INVALID.
*/
#include <errno.h>
#include <string.h>

#include "unwind/cfa.h"

/* DW_CFA_* opcodes (DWARF 5 table 7.29, plus the GNU ones GCC emits). */
enum {
	OP_advance_loc = 0x40, OP_offset = 0x80, OP_restore = 0xc0,	/* high 2 bits */
	OP_nop = 0x00, OP_set_loc = 0x01, OP_advance_loc1 = 0x02, OP_advance_loc2 = 0x03,
	OP_advance_loc4 = 0x04, OP_offset_extended = 0x05, OP_restore_extended = 0x06,
	OP_undefined = 0x07, OP_same_value = 0x08, OP_register = 0x09,
	OP_remember_state = 0x0a, OP_restore_state = 0x0b, OP_def_cfa = 0x0c,
	OP_def_cfa_register = 0x0d, OP_def_cfa_offset = 0x0e, OP_def_cfa_expression = 0x0f,
	OP_expression = 0x10, OP_offset_extended_sf = 0x11, OP_def_cfa_sf = 0x12,
	OP_def_cfa_offset_sf = 0x13, OP_val_offset = 0x14, OP_val_offset_sf = 0x15,
	OP_val_expression = 0x16, OP_GNU_args_size = 0x2e,
	OP_GNU_negative_offset_extended = 0x2f,
};

/* DW_OP_* used by the expressions recognised below. */
enum {
	DW_OP_deref = 0x06, DW_OP_and = 0x1a, DW_OP_plus = 0x22, DW_OP_shl = 0x24,
	DW_OP_ge = 0x2a, DW_OP_lit0 = 0x30, DW_OP_lit3 = 0x33, DW_OP_lit15 = 0x3f,
	DW_OP_breg7 = 0x77, DW_OP_breg16 = 0x80,
};

/* -- Pointer encodings ---------------------------------------------------- */

/* Read the value part of encoding enc (low 4 bits): 0, or -1. */
static int ptr_value(struct dw_cur *c, uint8_t enc, uint8_t addr_size, uint64_t *v)
{
	switch (enc & 0x0f) {
	case 0x00: *v = dw_un(c, addr_size); break;			/* absptr */
	case 0x01: *v = dw_uleb(c); break;				/* uleb128 */
	case 0x02: *v = dw_un(c, 2); break;				/* udata2 */
	case 0x03: *v = dw_un(c, 4); break;				/* udata4 */
	case 0x04: *v = dw_un(c, 8); break;				/* udata8 */
	case 0x08:							/* signed absptr */
		*v = dw_un(c, addr_size);
		if (addr_size == 4)
			*v = (uint64_t)(int64_t)(int32_t)(uint32_t)*v;
		break;
	case 0x09: *v = (uint64_t)dw_sleb(c); break;			/* sleb128 */
	case 0x0a: *v = (uint64_t)(int64_t)(int16_t)dw_un(c, 2); break;	/* sdata2 */
	case 0x0b: *v = (uint64_t)(int64_t)(int32_t)dw_un(c, 4); break;	/* sdata4 */
	case 0x0c: *v = dw_un(c, 8); break;				/* sdata8 */
	default: return -1;
	}
	return c->err ? -1 : 0;
}

/* Decode an encoded pointer (pcrel and, with a base, datarel). */
int dw_read_ptr(struct dw_cur *c, uint8_t enc, const struct dw_ptrctx *x, uint64_t *out)
{
	uint64_t field = x->sec_vaddr + (uint64_t)(c->p - x->sec);	/* wraps: checked later */
	uint64_t v;

	if (enc == DW_EH_PE_omit || (x->addr_size != 4 && x->addr_size != 8))
		return -1;
	if (ptr_value(c, enc, x->addr_size, &v))
		return -1;
	switch (enc & 0x70) {
	case 0x00: break;				/* absolute */
	case 0x10: v += field; break;			/* pcrel */
	case 0x30:					/* datarel */
		if (!x->has_dbase)
			return -1;
		v += x->dbase;
		break;
	default: return -1;				/* textrel, funcrel, aligned */
	}
	*out = v;
	return 0;
}

/* Skip an encoded pointer whose value is not needed (a personality routine). */
int dw_skip_ptr(struct dw_cur *c, uint8_t enc, uint8_t addr_size)
{
	uint64_t v;

	if (enc == DW_EH_PE_omit || (enc & 0x70) == 0x50)	/* aligned: needs the address */
		return -1;
	if (addr_size != 4 && addr_size != 8)
		return -1;
	return ptr_value(c, enc, addr_size, &v);
}

/* -- Interpreter ---------------------------------------------------------- */

/* The tracked slot of DWARF register reg, or -1. */
static int slot(uint64_t reg)
{
	switch (reg) {
	case LT_UW_REG_RBP: return CFA_T_RBP;
	case LT_UW_REG_RSP: return CFA_T_RSP;
	case CFA_REG_RA: return CFA_T_RA;
	default: return -1;
	}
}

/* Give register reg rule r: its tracked slot, and its bit in the summary of all. */
static void set_reg(struct cfa_state *st, uint64_t reg, struct cfa_regrule r)
{
	int s = slot(reg);
	uint32_t bit;

	if (s >= 0)
		st->r[s] = r;
	if (reg >= CFA_NREG)
		return;
	bit = 1u << reg;
	st->saved &= ~bit;
	st->other &= ~bit;
	if (r.how == RH_OFFSET && r.off >= INT32_MIN && r.off <= INT32_MAX) {
		st->saved |= bit;
		st->save_off[reg] = (int32_t)r.off;
	} else if (r.how != RH_UNREF) {
		st->other |= bit;
	}
}

/* Register reg saved at (how RH_OFFSET) or computed as (RH_VALOFF) CFA + off *
** daf; bad (an operand that did not fit), or an overflowing product, is RH_BAD. */
static void set_factored(struct cfa_state *st, uint64_t reg, uint8_t how, int64_t off, int bad,
			 int64_t daf)
{
	int64_t v;

	if (bad || __builtin_mul_overflow(off, daf, &v))
		set_reg(st, reg, (struct cfa_regrule){ .how = RH_BAD });
	else
		set_reg(st, reg, (struct cfa_regrule){ .how = how, .off = v });
}

/* Put register reg back to its rule in init (DW_CFA_restore). */
static void restore_reg(struct cfa_state *st, const struct cfa_state *init, uint64_t reg)
{
	int s = slot(reg);
	uint32_t bit;

	if (s >= 0)
		st->r[s] = init->r[s];
	if (reg >= CFA_NREG)
		return;
	bit = 1u << reg;
	st->saved = (st->saved & ~bit) | (init->saved & bit);
	st->other = (st->other & ~bit) | (init->other & bit);
	st->save_off[reg] = init->save_off[reg];
}

/* A uleb operand as int64_t; sets *bad when it exceeds INT64_MAX. */
static int64_t uleb_s64(struct dw_cur *c, int *bad)
{
	uint64_t v = dw_uleb(c);

	if (v > (uint64_t)INT64_MAX) {
		*bad = 1;
		return 0;
	}
	return (int64_t)v;
}

/* CFA = reg + off; bad (an operand that did not fit, or no rule to modify) leaves none. */
static void set_cfa(struct cfa_state *st, uint64_t reg, int64_t off, int bad)
{
	st->how = bad ? CFA_UNSET : CFA_REGOFF;
	st->known = !bad;
	st->reg = reg;
	st->off = off;
	st->expr = NULL;
	st->len = 0;
}

/* An expression block operand: its bytes, bounds-checked. */
static const uint8_t *block(struct dw_cur *c, size_t *len)
{
	uint64_t n = dw_uleb(c);
	const uint8_t *p = c->p;

	dw_skip(c, n);
	if (c->err)
		return NULL;
	*len = (size_t)n;
	return p;
}

/* Emit a row, or nothing when loc is outside [lo, hi) or no row is wanted. */
static int emit(const struct cfa_cie *cie, const struct cfa_state *st, uint64_t loc,
		uint64_t lo, uint64_t hi, cfa_row_fn *fn, void *arg)
{
	if (!fn || loc < lo || loc >= hi)
		return 0;
	return fn(arg, loc, cfa__rule(cie, st));
}

/* Move loc forward by delta code units, clamping at hi (rows past it are dropped). */
static void advance(uint64_t *loc, uint64_t delta, uint64_t caf, uint64_t hi)
{
	uint64_t d, n;

	if (__builtin_mul_overflow(delta, caf, &d) || __builtin_add_overflow(*loc, d, &n) ||
	    n > hi)
		n = hi;
	*loc = n;
}

/* Run a CIE or FDE program (see cfa.h). */
int cfa__run(const struct cfa_cie *cie, const uint8_t *p, size_t len, uint64_t lo,
	     uint64_t hi, cfa_row_fn *fn, void *arg, struct cfa_state *st)
{
	struct cfa_state stack[CFA_REMEMBER_MAX], blank = { .how = CFA_UNSET };
	const struct cfa_state *init = fn ? &cie->init : &blank;	/* DW_CFA_restore */
	struct dw_cur c = { .p = p, .end = p ? p + len : p };	/* NULL: an empty program */
	unsigned depth = 0, ninsns = 0;
	uint64_t loc = lo;
	int err;

	while (dw_left(&c)) {
		uint8_t op = (uint8_t)dw_un(&c, 1);
		uint64_t reg = 0, delta = 0;
		int64_t off = 0;
		int bad = 0;

		if (++ninsns > CFA_INSNS_MAX)
			return -EBADMSG;
		switch (op & 0xc0) {
		case OP_advance_loc:
			delta = op & 0x3f;
			goto do_advance;
		case OP_offset:
			reg = op & 0x3f;
			off = uleb_s64(&c, &bad);
			goto do_offset;
		case OP_restore:
			reg = op & 0x3f;
			goto do_restore;
		}
		switch (op) {
		case OP_nop:
			break;
		case OP_set_loc: {
			uint64_t to;

			if (!fn)
				return -EBADMSG;
			if (cie->is_eh) {
				if (cie->ptr_enc & DW_EH_PE_indirect ||
				    dw_read_ptr(&c, cie->ptr_enc, &cie->x, &to))
					return -EBADMSG;
			} else {
				to = dw_un(&c, cie->x.addr_size);
			}
			if (c.err || to < loc)
				return -EBADMSG;	/* rows only move forward */
			if ((err = emit(cie, st, loc, lo, hi, fn, arg)))
				return err;
			loc = to < hi ? to : hi;
			break;
		}
		case OP_advance_loc1:
			delta = dw_un(&c, 1);
			goto do_advance;
		case OP_advance_loc2:
			delta = dw_un(&c, 2);
			goto do_advance;
		case OP_advance_loc4:
			delta = dw_un(&c, 4);
		do_advance:
			if (!fn || c.err)
				return -EBADMSG;	/* CIEs describe one location only */
			if ((err = emit(cie, st, loc, lo, hi, fn, arg)))
				return err;
			advance(&loc, delta, cie->caf, hi);
			break;
		case OP_offset_extended:
			reg = dw_uleb(&c);
			off = uleb_s64(&c, &bad);
		do_offset:
			set_factored(st, reg, RH_OFFSET, off, bad, cie->daf);
			break;
		case OP_offset_extended_sf:
			reg = dw_uleb(&c);
			set_factored(st, reg, RH_OFFSET, dw_sleb(&c), 0, cie->daf);
			break;
		case OP_GNU_negative_offset_extended:
			reg = dw_uleb(&c);
			off = uleb_s64(&c, &bad);
			set_factored(st, reg, RH_OFFSET, -off, bad, cie->daf);
			break;
		case OP_val_offset:
			reg = dw_uleb(&c);
			off = uleb_s64(&c, &bad);
			set_factored(st, reg, RH_VALOFF, off, bad, cie->daf);
			break;
		case OP_val_offset_sf:
			reg = dw_uleb(&c);
			set_factored(st, reg, RH_VALOFF, dw_sleb(&c), 0, cie->daf);
			break;
		case OP_restore_extended:
			reg = dw_uleb(&c);
		do_restore:
			restore_reg(st, init, reg);
			break;
		case OP_undefined:
		case OP_same_value:
			reg = dw_uleb(&c);
			set_reg(st, reg, (struct cfa_regrule){
				.how = op == OP_undefined ? RH_UNDEF : RH_SAME });
			break;
		case OP_register: {
			uint64_t to;

			reg = dw_uleb(&c);
			to = dw_uleb(&c);
			set_reg(st, reg, (struct cfa_regrule){
				.how = RH_REG, .off = (int64_t)(to & INT64_MAX) });
			break;
		}
		case OP_remember_state:
			if (depth == CFA_REMEMBER_MAX)
				return -EBADMSG;
			stack[depth++] = *st;
			break;
		case OP_restore_state:
			if (!depth)
				return -EBADMSG;
			*st = stack[--depth];	/* the CFA too, as GCC and binutils do */
			break;
		case OP_def_cfa:
			reg = dw_uleb(&c);
			off = uleb_s64(&c, &bad);
			set_cfa(st, reg, off, bad);
			break;
		case OP_def_cfa_sf:
			reg = dw_uleb(&c);
			off = dw_sleb(&c);
			bad = __builtin_mul_overflow(off, cie->daf, &off);
			set_cfa(st, reg, off, bad);
			break;
		case OP_def_cfa_register:
			reg = dw_uleb(&c);
			/*
			** DWARF allows it on a register rule only. After an expression,
			** libgcc, libunwind, gdb and readelf all go back to a register
			** rule with the last offset (libgcrypt's asm relies on it).
			*/
			set_cfa(st, reg, st->off, !st->known);
			break;
		case OP_def_cfa_offset:
			off = uleb_s64(&c, &bad);
			/* After an expression libgcc and gdb ignore it, readelf does not: none. */
			set_cfa(st, st->reg, off, bad || st->how != CFA_REGOFF);
			break;
		case OP_def_cfa_offset_sf:
			off = dw_sleb(&c);
			bad = __builtin_mul_overflow(off, cie->daf, &off);
			set_cfa(st, st->reg, off, bad || st->how != CFA_REGOFF);
			break;
		case OP_def_cfa_expression: {
			size_t n = 0;
			const uint8_t *e = block(&c, &n);

			if (e) {
				st->how = CFA_EXPR;	/* reg/off stay known */
				st->expr = e;
				st->len = n;
			}
			break;
		}
		case OP_expression:
		case OP_val_expression: {
			size_t n = 0;
			const uint8_t *e;

			reg = dw_uleb(&c);
			e = block(&c, &n);
			if (e)
				set_reg(st, reg, (struct cfa_regrule){
					.how = op == OP_expression ? RH_EXPR : RH_VALEXPR,
					.expr = e, .len = n });
			break;
		}
		case OP_GNU_args_size:
			dw_uleb(&c);	/* only matters for landing pads */
			break;
		default:
			return -EBADMSG;	/* unknown length: nothing after it is readable */
		}
		if (c.err)
			return -EBADMSG;
	}
	return emit(cie, st, loc, lo, hi, fn, arg);
}

/* -- Rows to rules -------------------------------------------------------- */

/*
** The GCC/binutils lazy .plt expression, as ld writes it for x86-64
** (bfd/elf64-x86-64.c, elf_x86_64_eh_frame_lazy_plt and its IBT/BND variants):
**   DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and;
**   DW_OP_litN; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
** i.e. CFA = rsp + 8 + ((rip & 15) >= N) * 8. Returns N, or -1 for anything else.
*/
static int plt_threshold(const uint8_t *e, size_t n)
{
	static const uint8_t head[] = { DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15, DW_OP_and };
	static const uint8_t tail[] = { DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus };

	if (n != sizeof(head) + 1 + sizeof(tail) || memcmp(e, head, sizeof(head)) ||
	    memcmp(e + sizeof(head) + 1, tail, sizeof(tail)))
		return -1;
	if (e[sizeof(head)] < DW_OP_lit0 || e[sizeof(head)] > DW_OP_lit15)
		return -1;
	return e[sizeof(head)] - DW_OP_lit0;
}

/* Is [e, e+n) exactly "DW_OP_breg7 off" (then deref when deref)? */
static int is_breg7(const uint8_t *e, size_t n, int64_t off, int deref)
{
	struct dw_cur c = { .p = e, .end = e + n };

	if (dw_un(&c, 1) != DW_OP_breg7 || dw_sleb(&c) != off || c.err)
		return 0;
	if (deref && dw_un(&c, 1) != DW_OP_deref)
		return 0;
	return !c.err && c.p == c.end;
}

/*
** glibc's x86-64 __restore_rt (sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c):
** rsp points at the ucontext_t; uc_mcontext.gregs starts at +40, so the saved
** rsp (REG_RSP = 15) is at 160, rbp (REG_RBP = 10) at 120, rip (REG_RIP = 16) at 168.
** LT_UW_SIGNAL reads exactly those slots, so all three must be what the CFI says.
*/
static int is_sigframe(const struct cfa_state *st)
{
	const struct cfa_regrule *rbp = &st->r[CFA_T_RBP], *ra = &st->r[CFA_T_RA];

	return st->how == CFA_EXPR && is_breg7(st->expr, st->len, 160, 1) &&
	       ra->how == RH_EXPR && is_breg7(ra->expr, ra->len, 168, 0) &&
	       rbp->how == RH_EXPR && is_breg7(rbp->expr, rbp->len, 120, 0);
}

/* Does rbp keep its value, or is it simply unchanged for our purposes? */
static int rbp_kept(const struct cfa_regrule *r)
{
	/*
	** RH_UNDEF is kept too, and that is an approximation: the caller's rbp
	** is then unknown, and keeping ours misleads a caller frame with an
	** rbp-based CFA (or rbp_off rules above it). The alternative, INVALID,
	** would cut every such stack. In practice no frame says it: none of the
	** ~2,400 x86-64 ELF files of a Debian 12 system marks rbp undefined, and
	** outermost frames (glibc _start, clone) mark RA undefined, which
	** gives STOP before rbp matters.
	*/
	return r->how == RH_UNREF || r->how == RH_SAME || r->how == RH_UNDEF;
}

/*
** The mapping, first match wins:
**   RA undefined                                  -> STOP
**   CFA expression:
**     'S' CIE, __restore_rt's exact CFA/rbp/RA     -> SIGNAL
**     ld's .plt expression with N = 11, RA at CFA-8,
**       rbp and rsp untouched                      -> PLT
**     anything else                                -> INVALID
**   CFA = rsp|rbp + off (s32), RA at CFA-8, rsp untouched or = CFA,
**     rbp unchanged or at CFA+off (s16, non-zero)  -> CFA
**   anything else                                  -> INVALID
*/
struct lt_uw_rule cfa__rule(const struct cfa_cie *cie, const struct cfa_state *st)
{
	const struct cfa_regrule *rbp = &st->r[CFA_T_RBP], *rsp = &st->r[CFA_T_RSP];
	const struct cfa_regrule *ra = &st->r[CFA_T_RA];
	struct lt_uw_rule bad = { .kind = LT_UW_INVALID };
	int rsp_ok = rsp->how == RH_UNREF || rsp->how == RH_SAME ||
		     (rsp->how == RH_VALOFF && rsp->off == 0);

	if (ra->how == RH_UNDEF)
		return (struct lt_uw_rule){ .kind = LT_UW_STOP };
	if (st->how == CFA_EXPR) {
		if (cie->signal && is_sigframe(st))
			return (struct lt_uw_rule){ .kind = LT_UW_SIGNAL };
		/* Other thresholds (IBT: 10, BND: 5) need a field lt_uw_rule lacks. */
		if (plt_threshold(st->expr, st->len) == 11 && ra->how == RH_OFFSET &&
		    ra->off == -8 && rsp_ok && (rbp->how == RH_UNREF || rbp->how == RH_SAME))
			return (struct lt_uw_rule){ .kind = LT_UW_PLT };
		return bad;
	}
	if (st->how != CFA_REGOFF || (st->reg != LT_UW_REG_RSP && st->reg != LT_UW_REG_RBP))
		return bad;
	if (st->off < INT32_MIN || st->off > INT32_MAX)
		return bad;
	if (ra->how != RH_OFFSET || ra->off != -8 || !rsp_ok)
		return bad;
	if (rbp_kept(rbp))
		return (struct lt_uw_rule){ .kind = LT_UW_CFA, .cfa_reg = (__u8)st->reg,
					    .rbp_off = LT_UW_RBP_SAME, .cfa_off = (__s32)st->off };
	if (rbp->how != RH_OFFSET || rbp->off == 0 || rbp->off < INT16_MIN ||
	    rbp->off > INT16_MAX)
		return bad;
	return (struct lt_uw_rule){ .kind = LT_UW_CFA, .cfa_reg = (__u8)st->reg,
				    .rbp_off = (__s16)rbp->off, .cfa_off = (__s32)st->off };
}
