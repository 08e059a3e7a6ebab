/*
** DWARF call frame programs: the bounded byte reader, pointer encodings, and the
** CFA instruction interpreter that turns a CIE/FDE program into lt_uw_rule rows.
*/

#ifndef LUATOP_UNWIND_CFA_H
#define LUATOP_UNWIND_CFA_H

#include <stddef.h>
#include <stdint.h>

#include "wire/luatop.h"

#define CFA_REG_RA		16	/* x86-64 return address column */
#define CFA_NREG		17	/* registers summarised in cfa_state: rax .. r15, RA */
#define CFA_REMEMBER_MAX	16	/* DW_CFA_remember_state depth; deeper is malformed */
#define CFA_INSNS_MAX		(1u << 20)	/* instructions per program; more is malformed */

/* -- Bounded reader ------------------------------------------------------- */

/*
** A cursor over untrusted little-endian bytes. Every read is checked against
** end; a read that would overrun sets err (sticky), returns 0 and moves nothing.
*/
struct dw_cur {
	const uint8_t *p;	/* next byte */
	const uint8_t *end;	/* one past the last readable byte */
	int err;		/* a read overran or a value did not fit */
};

/* Bytes left to read. */
static inline size_t dw_left(const struct dw_cur *c)
{
	return c->err ? 0 : (size_t)(c->end - c->p);
}

/* Read an n-byte (n <= 8) little-endian unsigned value. */
static inline uint64_t dw_un(struct dw_cur *c, unsigned n)
{
	uint64_t v = 0;

	if (dw_left(c) < n) {
		c->err = 1;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* Skip n bytes. */
static inline void dw_skip(struct dw_cur *c, uint64_t n)
{
	if (dw_left(c) < n)
		c->err = 1;
	else
		c->p += n;
}

/* Unsigned LEB128; a value wider than 64 bits is an error. */
static inline uint64_t dw_uleb(struct dw_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (dw_left(c)) {
		uint8_t b = *c->p++;

		if (shift < 64) {
			uint64_t part = (uint64_t)(b & 0x7f);

			if (shift && (part >> (64 - shift)))
				c->err = 1;	/* bits fall off the top */
			v |= part << shift;
		} else if (b & 0x7f) {
			c->err = 1;
		}
		shift += 7;
		if (!(b & 0x80))
			return c->err ? 0 : v;
		if (shift > 70) {	/* 11 bytes: no padding that long is sane */
			c->err = 1;
			return 0;
		}
	}
	c->err = 1;
	return 0;
}

/* Signed LEB128; a value outside int64_t is an error. */
static inline int64_t dw_sleb(struct dw_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (!dw_left(c) || shift > 63) {
			c->err = 1;
			return 0;
		}
		b = *c->p++;
		if (shift == 63 && (b & 0x7f) != 0 && (b & 0x7f) != 0x7f) {
			c->err = 1;	/* the last byte holds one bit plus sign copies */
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;	/* sign-extend */
	return (int64_t)v;
}

/* -- Pointer encodings (DW_EH_PE_*) --------------------------------------- */

#define DW_EH_PE_omit		0xff
#define DW_EH_PE_indirect	0x80

/* Where encoded pointers are relative to. */
struct dw_ptrctx {
	const uint8_t *sec;	/* first byte of the section being read */
	uint64_t sec_vaddr;	/* its load address (DW_EH_PE_pcrel) */
	uint64_t dbase;		/* DW_EH_PE_datarel base, when has_dbase */
	uint8_t has_dbase;	/* 0: datarel pointers are unsupported */
	uint8_t addr_size;	/* DW_EH_PE_absptr width: 4 or 8 */
};

/*
** Decode a pointer with encoding enc: 0 and *out, or -1 on overrun or an
** encoding this reader does not support (textrel, funcrel, aligned, omit,
** datarel without a base). DW_EH_PE_indirect is not dereferenced: callers that
** need the final value must reject it.
*/
int dw_read_ptr(struct dw_cur *c, uint8_t enc, const struct dw_ptrctx *x, uint64_t *out);
/* Skip a pointer with encoding enc (its width only): 0, or -1. */
int dw_skip_ptr(struct dw_cur *c, uint8_t enc, uint8_t addr_size);

/* -- CFA programs --------------------------------------------------------- */

enum cfa_how {
	CFA_UNSET = 0,		/* no CFA rule yet, or one that cannot be stated */
	CFA_REGOFF,		/* CFA = reg + off */
	CFA_EXPR,		/* CFA = DWARF expression */
};

enum cfa_reg_how {
	RH_UNREF = 0,		/* never mentioned: the ABI's same-value */
	RH_UNDEF,		/* DW_CFA_undefined */
	RH_SAME,		/* DW_CFA_same_value */
	RH_OFFSET,		/* saved at CFA + off */
	RH_VALOFF,		/* value is CFA + off */
	RH_REG,			/* saved in register off */
	RH_EXPR,		/* saved at the address an expression gives */
	RH_VALEXPR,		/* value is an expression */
	RH_BAD,			/* a rule whose operands did not fit */
};

/* The registers that matter to lt_uw_rule; all others are parsed and dropped. */
enum { CFA_T_RBP, CFA_T_RSP, CFA_T_RA, CFA_T__COUNT };

struct cfa_regrule {
	uint8_t how;		/* enum cfa_reg_how */
	int64_t off;		/* RH_OFFSET/RH_VALOFF: bytes from CFA; RH_REG: register */
	const uint8_t *expr;	/* RH_EXPR/RH_VALEXPR: expression bytes in the section */
	size_t len;		/* their length */
};

/* One row of the CFI table, reduced to the registers luatop unwinds. */
struct cfa_state {
	uint8_t how;		/* enum cfa_how */
	uint8_t known;		/* reg/off hold the last register rule (kept under CFA_EXPR) */
	uint64_t reg;		/* CFA_REGOFF: DWARF register */
	int64_t off;		/* CFA_REGOFF: offset */
	const uint8_t *expr;	/* CFA_EXPR: expression bytes in the section */
	size_t len;		/* their length */
	struct cfa_regrule r[CFA_T__COUNT];	/* rbp, rsp, return address */
	uint32_t saved;		/* bit r: register r (< CFA_NREG) saved at CFA + save_off[r] */
	uint32_t other;		/* bit r: register r has a rule of another kind */
	int32_t save_off[CFA_NREG];
};

/* What a CIE gives the FDEs that use it. */
struct cfa_cie {
	uint64_t caf;		/* code alignment factor */
	int64_t daf;		/* data alignment factor */
	uint8_t ptr_enc;	/* 'R' encoding of FDE addresses (.eh_frame) */
	uint8_t is_eh;		/* .eh_frame (DW_CFA_set_loc is encoded) or .debug_frame */
	uint8_t signal;		/* 'S': a signal trampoline */
	struct dw_ptrctx x;	/* pointer context, addr_size from the CIE */
	struct cfa_state init;	/* the row after the initial instructions */
};

/* Receives one row: the rule in effect from loc on. 0 or -errno (stops the run). */
typedef int cfa_row_fn(void *arg, uint64_t loc, struct lt_uw_rule rule);

/*
** Run the program [p, p+len) from state *st.
** For a CIE's initial instructions pass fn = NULL: any advance is then malformed,
** and DW_CFA_restore restores the unmentioned rule. For an FDE, *st starts as
** cie->init, rows are reported for locations in [lo, hi) (the first one always at lo),
** and DW_CFA_restore goes back to cie->init.
** Returns 0, -EBADMSG for a malformed program, or fn's error. *st is the last row.
*/
int cfa__run(const struct cfa_cie *cie, const uint8_t *p, size_t len, uint64_t lo,
	     uint64_t hi, cfa_row_fn *fn, void *arg, struct cfa_state *st);

/*
** The lt_uw_rule for a row: exactly what the CFI says, or LT_UW_INVALID when the
** row cannot be expressed (see cfa.c for the mapping).
*/
struct lt_uw_rule cfa__rule(const struct cfa_cie *cie, const struct cfa_state *st);

#endif
