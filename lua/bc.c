/*
** LuaJIT call-site naming: lj_debug_funcname/lj_debug_slotname/debug_varname
** (lj_debug.c) redone on untrusted local copies, GC64 (LJ_FR2) only.
*/
#include <string.h>

#include "lua/bc.h"
#include "lua/vmdef.h"

/* Operand A modes that matter here (lj_bc.h BCMode). */
enum { AM_OTHER, AM_DST, AM_BASE };

#define BIT_OPS		7	/* the 2026 tip's BNOT..BSAR follow JMP */
#define FR2		1	/* GC64: a call frame takes two slots */
#define ULEB_MAX	5	/* bytes of a 32-bit ULEB128 */

/* Metamethod run by each opcode (lj_bc.h BCDEF column 5), calls apart. */
static const char *const bc_mm[LVM_BC__COMMON] = {
	[LVM_BC_ISLT] = "__lt", [LVM_BC_ISGE] = "__lt", [LVM_BC_ISLE] = "__le",
	[LVM_BC_ISGT] = "__le", [LVM_BC_ISEQV] = "__eq", [LVM_BC_ISNEV] = "__eq",
	[LVM_BC_ISEQS] = "__eq", [LVM_BC_ISNES] = "__eq", [LVM_BC_ISEQN] = "__eq",
	[LVM_BC_ISNEN] = "__eq", [LVM_BC_ISEQP] = "__eq", [LVM_BC_ISNEP] = "__eq",
	[LVM_BC_UNM] = "__unm", [LVM_BC_LEN] = "__len",
	[LVM_BC_ADDVN] = "__add", [LVM_BC_SUBVN] = "__sub", [LVM_BC_MULVN] = "__mul",
	[LVM_BC_DIVVN] = "__div", [LVM_BC_MODVN] = "__mod",
	[LVM_BC_ADDNV] = "__add", [LVM_BC_SUBNV] = "__sub", [LVM_BC_MULNV] = "__mul",
	[LVM_BC_DIVNV] = "__div", [LVM_BC_MODNV] = "__mod",
	[LVM_BC_ADDVV] = "__add", [LVM_BC_SUBVV] = "__sub", [LVM_BC_MULVV] = "__mul",
	[LVM_BC_DIVVV] = "__div", [LVM_BC_MODVV] = "__mod",
	[LVM_BC_POW] = "__pow", [LVM_BC_CAT] = "__concat",
	[LVM_BC_FNEW] = "__gc", [LVM_BC_TNEW] = "__gc", [LVM_BC_TDUP] = "__gc",
	[LVM_BC_GGET] = "__index", [LVM_BC_TGETV] = "__index", [LVM_BC_TGETS] = "__index",
	[LVM_BC_TGETB] = "__index", [LVM_BC_TGETR] = "__index",
	[LVM_BC_GSET] = "__newindex", [LVM_BC_TSETV] = "__newindex",
	[LVM_BC_TSETS] = "__newindex", [LVM_BC_TSETB] = "__newindex",
	[LVM_BC_TSETM] = "__newindex", [LVM_BC_TSETR] = "__newindex",
};

/* Built-in names of the hidden for-loop locals (lj_debug.h VARNAMEDEF), by code. */
static const char *const var_builtin[] = {
	NULL, "(for index)", "(for limit)", "(for step)", "(for generator)",
	"(for state)", "(for control)",
};
#define VARNAME__MAX	7	/* codes below this are built-in names; 0 ends varinfo */

/* Operand A mode of op: dst (written), base (a register range from A) or other. */
static int amode(uint32_t op)
{
	switch (op) {
	case LVM_BC_ISTC: case LVM_BC_ISFC: case LVM_BC_MOV: case LVM_BC_NOT:
	case LVM_BC_UNM: case LVM_BC_LEN: case LVM_BC_CAT: case LVM_BC_KSTR:
	case LVM_BC_KCDATA: case LVM_BC_KSHORT: case LVM_BC_KNUM: case LVM_BC_KPRI:
	case LVM_BC_UGET: case LVM_BC_FNEW: case LVM_BC_TNEW: case LVM_BC_TDUP:
	case LVM_BC_GGET: case LVM_BC_TGETV: case LVM_BC_TGETS: case LVM_BC_TGETB:
	case LVM_BC_TGETR:
		return AM_DST;
	case LVM_BC_KNIL: case LVM_BC_TSETM: case LVM_BC_CALLM: case LVM_BC_CALL:
	case LVM_BC_CALLMT: case LVM_BC_CALLT: case LVM_BC_ITERC: case LVM_BC_ITERN:
	case LVM_BC_VARG: case LVM_BC_ISNEXT: case LVM_BC_RETM: case LVM_BC_FORI:
	case LVM_BC_JFORI: case LVM_BC_FORL: case LVM_BC_IFORL: case LVM_BC_JFORL:
	case LVM_BC_ITERL: case LVM_BC_IITERL: case LVM_BC_JITERL:
		return AM_BASE;
	}
	if (op >= LVM_BC_ADDVN && op <= LVM_BC_POW)
		return AM_DST;
	/* Tip bit ops (older builds have function headers here, never inside a body). */
	if (op >= LVM_BC__COMMON && op < LVM_BC__COMMON + BIT_OPS)
		return AM_DST;
	return AM_OTHER;
}

/* Does op return from the function (RETM, RET, RET0, RET1)? */
int luabc__isret(uint32_t op)
{
	return op >= LVM_BC_RETM && op <= LVM_BC_RET1;
}

/* Is op a function header: FUNCF..JFUNCV before the tip, after its bit ops on it? */
int luabc__isheader(uint32_t op)
{
	return (op >= LVM_BC__COMMON && op < LVM_BC__COMMON + 6) ||
	       (op >= LVM_BC__COMMON + BIT_OPS && op < LVM_BC__COMMON + BIT_OPS + 6);
}

/* Decode a ULEB128 of at most 32 bits at *p (< end); -1 at the end or on overflow. */
static int uleb(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	uint32_t r = 0;

	for (int i = 0; i < ULEB_MAX && *p < end; i++) {
		uint8_t b = *(*p)++;

		if (i == ULEB_MAX - 1 && b > 0x0f)
			return -1;
		r |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* Name of the slot-th live local at bytecode position pc, from varinfo; NULL if none. */
const char *luabc__varname(const uint8_t *vi, size_t vilen, uint32_t pc, uint32_t slot,
			   size_t *len)
{
	const uint8_t *p = vi, *end = vi ? vi + vilen : NULL;
	uint32_t lastpc = 0;

	if (!vi)
		return NULL;
	while (p < end) {
		const uint8_t *name = p;
		uint32_t vn = *p, start, span;

		if (vn == 0)
			break;		/* end of varinfo */
		if (vn < VARNAME__MAX) {
			p++;
		} else {
			const uint8_t *z = memchr(p, 0, (size_t)(end - p));

			if (!z)
				return NULL;
			p = z + 1;
		}
		if (uleb(&p, end, &start))
			return NULL;
		lastpc = start = lastpc + start;
		if (start > pc)
			break;
		if (uleb(&p, end, &span))
			return NULL;
		if (pc < start + span && slot-- == 0) {
			if (vn < VARNAME__MAX) {
				*len = strlen(var_builtin[vn]);
				return var_builtin[vn];
			}
			*len = strlen((const char *)name);	/* NUL found above */
			return (const char *)name;
		}
	}
	return NULL;
}

/* Name of upvalue idx from uvinfo (sizeuv NUL-terminated names); NULL if out of bounds. */
const char *luabc__uvname(const uint8_t *uvi, size_t uvlen, uint32_t idx, size_t *len)
{
	const uint8_t *p = uvi, *end = uvi ? uvi + uvlen : NULL;

	if (!uvi)
		return NULL;
	for (;;) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));

		if (!z)
			return NULL;
		if (idx-- == 0) {
			*len = (size_t)(z - p);
			return (const char *)p;
		}
		p = z + 1;
	}
}

/* Name slot as seen by the instruction at pos: a local, or what loaded it last. */
static enum luabc_what slotname(const uint32_t *win, uint32_t lo, uint32_t pos, uint32_t slot,
				const uint8_t *vi, size_t vilen, struct luabc_name *out)
{
	uint32_t ip = pos;

restart:
	out->name = luabc__varname(vi, vilen, ip, slot, &out->len);
	if (out->name)
		return out->what = LUABC_LOCAL;
	while (--ip >= lo && ip > 0) {
		uint32_t ins = win[ip - lo], op = luabc_op(ins), ra = luabc_a(ins);
		int m = amode(op);

		if (m == AM_BASE) {
			if (slot >= ra && (op != LVM_BC_KNIL || slot <= luabc_d(ins)))
				return LUABC_NONE;
		} else if (m == AM_DST && ra == slot) {
			switch (op) {
			case LVM_BC_MOV:
				slot = luabc_d(ins);
				goto restart;
			case LVM_BC_GGET:
				out->ref = luabc_d(ins);
				return out->what = LUABC_GLOBAL;
			case LVM_BC_TGETS:
				out->ref = luabc_c(ins);
				if (ip - 1 >= lo && ip - 1 > 0) {
					uint32_t insp = win[ip - 1 - lo];

					if (luabc_op(insp) == LVM_BC_MOV &&
					    luabc_a(insp) == ra + 1 + FR2 &&
					    luabc_d(insp) == luabc_b(ins))
						return out->what = LUABC_METHOD;
				}
				return out->what = LUABC_FIELD;
			case LVM_BC_UGET:
				out->ref = luabc_d(ins);
				return out->what = LUABC_UPVALUE;
			default:
				return LUABC_NONE;
			}
		}
	}
	return LUABC_NONE;
}

/* Name the function called by the instruction at pos (see luabc.h). */
enum luabc_what luabc__callee(const uint32_t *win, uint32_t lo, uint32_t pos,
			      const uint8_t *vi, size_t vilen, struct luabc_name *out)
{
	uint32_t ins, op, slot;

	memset(out, 0, sizeof(*out));
	if (!win || lo == 0 || pos < lo)
		return LUABC_NONE;
	ins = win[pos - lo];
	op = luabc_op(ins);
	if (op < LVM_BC_CALLM || op > LVM_BC_ITERN) {	/* not a call: a metamethod? */
		out->name = op < LVM_BC__COMMON ? bc_mm[op] : NULL;
		if (!out->name)
			return LUABC_NONE;
		out->len = strlen(out->name);
		return out->what = LUABC_META;
	}
	slot = luabc_a(ins);
	if (op == LVM_BC_ITERC)
		slot -= 3;
	return slotname(win, lo, pos, slot, vi, vilen, out);
}

/* How the instruction after an FNEW into slot stores the closure. */
static enum luabc_what stored_as(uint32_t next, uint32_t slot, uint32_t pos,
				 const uint8_t *vi, size_t vilen, struct luabc_name *out)
{
	switch (luabc_op(next)) {
	case LVM_BC_GSET:
		if (luabc_a(next) != slot)
			break;
		out->ref = luabc_d(next);
		return out->what = LUABC_GLOBAL;
	case LVM_BC_TSETS:
		if (luabc_a(next) != slot)
			break;
		out->ref = luabc_c(next);
		return out->what = LUABC_FIELD;
	case LVM_BC_USETV:
		if (luabc_d(next) != slot)
			break;
		out->ref = luabc_a(next);
		return out->what = LUABC_UPVALUE;
	}
	/* A local declared before (local function f) or by this store (local f = ...). */
	out->name = luabc__varname(vi, vilen, pos + 1, slot, &out->len);
	return out->name ? (out->what = LUABC_LOCAL) : LUABC_NONE;
}

enum luabc_what luabc__definer(const uint32_t *win, uint32_t lo, uint32_t n, uint32_t kidx,
			       const uint8_t *vi, size_t vilen, uint32_t *at,
			       struct luabc_name *out)
{
	memset(out, 0, sizeof(*out));
	if (!win || lo == 0)
		return LUABC_NONE;
	for (uint32_t k = 0; k + 1 < n; k++) {
		uint32_t ins = win[k];

		if (luabc_op(ins) != LVM_BC_FNEW || luabc_d(ins) != kidx)
			continue;
		*at = lo + k;
		return stored_as(win[k + 1], luabc_a(ins), lo + k, vi, vilen, out);
	}
	return LUABC_NONE;
}
