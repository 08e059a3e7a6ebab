/*
** Instruction patterns of the x86-64 LuaJIT VM (vm_x64.dasc, and vm_x86.dasc in
** x64 mode for the non-GC64 check). The encodings are fixed by DynASM, so plain
** byte matching finds them; wherever a pattern could also match by accident,
** several sites must agree or the match must be unique, else the result is
** "ambiguous" and the caller gives up rather than guess.
**
** r14 is DISPATCH = G + GG_G2DISP throughout the VM; rbp holds L on entry.
*/
#include <errno.h>
#include <string.h>

#include "lua/x64scan.h"

#define X64_WIN_ADD	96	/* entry: glref load to add $G2DISP */
#define X64_WIN_STORE	64	/* entry: add $G2DISP to the cur_L/vmstate stores */
#define X64_WIN_ENTRY	256	/* entry: prologue to glref load */
#define X64_WIN_FUNCC	32	/* FUNCC: vmstate store to the call */

static const uint8_t P_PROLOGUE[] = {	/* push rbp/rbx/r15/r14; sub $40,%rsp */
	0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x48, 0x83, 0xec, 0x28
};
static const uint8_t P_GLREF64[] = { 0x4c, 0x8b, 0x75, 0x10 };	/* mov 0x10(%rbp),%r14 */
static const uint8_t P_GLREF32[] = { 0x44, 0x8b, 0x75, 0x08 };	/* mov 0x8(%rbp),%r14d */
static const uint8_t P_ADD64[] = { 0x49, 0x81, 0xc6 };		/* add $imm32,%r14 */
static const uint8_t P_ADD32[] = { 0x41, 0x81, 0xc6 };		/* add $imm32,%r14d */
static const uint8_t P_STL64[] = { 0x49, 0x89, 0xae };		/* mov %rbp,disp32(%r14) */
static const uint8_t P_STL32[] = { 0x41, 0x89, 0xae };		/* mov %ebp,disp32(%r14) */
static const uint8_t P_MOVL[] = { 0x41, 0xc7, 0x86 };		/* movl $imm32,disp32(%r14) */
static const uint8_t P_CALLR15[] = { 0x41, 0xff, 0xd7 };	/* call *%r15 */
static const uint8_t P_CALLDISP[] = { 0x41, 0xff, 0x96 };	/* call *disp32(%r14) */
static const uint8_t P_JL_TRACE[] = { 0x49, 0x8b, 0x8e };	/* mov disp32(%r14),%rcx */
static const uint8_t P_JL_IDX[] = { 0x48, 0x8b, 0x04, 0xc1 };	/* mov (%rcx,%rax,8),%rax */
static const uint8_t P_JL_MCODE[] = { 0x48, 0x8b, 0x40 };	/* mov disp8(%rax),%rax */
static const uint8_t P_JL_BASE[] = { 0x49, 0x89, 0x96 };	/* mov %rdx,disp32(%r14) */
static const uint8_t P_ENDBR[] = { 0xf3, 0x0f, 0x1e, 0xfa };	/* endbr64 (CET builds) */
static const uint8_t P_FLOOR[] = {	/* movabs $0x7fff..,%rax; movq %rax,%xmm2; movabs $2^52 */
	0x48, 0xb8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x66, 0x48, 0x0f, 0x6e,
	0xd0, 0x48, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x43
};
static const uint8_t P_FFICB[] = {	/* push rbx/r15/r14; sub $40,%rsp; lea imm32(%rbp),%r14 */
	0x53, 0x41, 0x57, 0x41, 0x56, 0x48, 0x83, 0xec, 0x28, 0x4c, 0x8d, 0xb5
};
static const uint8_t P_EXIT[] = {	/* push r13 .. rbp; lea 0x58(%rsp),%rbp */
	0x41, 0x55, 0x41, 0x54, 0x41, 0x53, 0x41, 0x52, 0x41, 0x51, 0x41, 0x50, 0x57, 0x56,
	0x55, 0x48, 0x8d, 0x6c, 0x24, 0x58
};
static const uint8_t P_CPCALL[] = {	/* call *%rcx; test %rax,%rax: lj_vm_cpcall's call */
	0xff, 0xd1, 0x48, 0x85, 0xc0
};
static const uint8_t P_FFICALL[] = {	/* push rbp; mov %rsp,%rbp; push rbx; mov %rdi,%rbx */
	0x55, 0x48, 0x89, 0xe5, 0x53, 0x48, 0x89, 0xfb
};

/* Does pattern p (n bytes) sit at code[pos]? */
static int at(const uint8_t *code, size_t len, size_t pos, const uint8_t *p, size_t n)
{
	return pos <= len && n <= len - pos && !memcmp(code + pos, p, n);
}

/* The first pos in [from, to) where p starts (and fits before to), or -1. */
static int64_t find(const uint8_t *code, size_t len, size_t from, size_t to,
		    const uint8_t *p, size_t n)
{
	if (to > len)
		to = len;
	for (size_t i = from; i < to && n <= to - i; i++) {
		if (code[i] == p[0] && !memcmp(code + i, p, n))
			return (int64_t)i;
	}
	return -1;
}

/* The little-endian u32 at code[pos] (the caller checked the bounds). */
static uint32_t rd32(const uint8_t *code, size_t pos)
{
	return (uint32_t)code[pos] | (uint32_t)code[pos + 1] << 8 |
	       (uint32_t)code[pos + 2] << 16 | (uint32_t)code[pos + 3] << 24;
}

/* Is code[pos] a movl $imm,disp(%r14) with this disp and imm? */
static int is_movl(const uint8_t *code, size_t len, size_t pos, int32_t disp, uint32_t imm)
{
	return at(code, len, pos, P_MOVL, sizeof(P_MOVL)) && pos + 11 <= len &&
	       rd32(code, pos + 3) == (uint32_t)disp && rd32(code, pos + 7) == imm;
}

/* The label of code at pos: CET builds put an endbr64 in front of it. */
static uint32_t label(const uint8_t *code, size_t len, size_t pos)
{
	const size_t n = sizeof(P_ENDBR);

	if (pos >= n && at(code, len, pos - n, P_ENDBR, n))
		pos -= n;
	return (uint32_t)pos;
}

/* Fold one observation into a consensus value: returns 1 on a disagreement. */
static int agree(uint32_t *n, int32_t *have, int32_t v)
{
	if ((*n)++ == 0) {
		*have = v;
		return 0;
	}
	return *have != v;
}

/* -- Entry code ----------------------------------------------------------- */

/* Read G2DISP and the stores of one entry's window [s, e): 1 on a disagreement. */
static int entry_one(const uint8_t *code, size_t len, size_t s, size_t e,
		     struct x64_entry *out)
{
	int64_t g64 = find(code, len, s, e, P_GLREF64, sizeof(P_GLREF64));
	int64_t g32 = find(code, len, s, e, P_GLREF32, sizeof(P_GLREF32));
	int64_t add, st, end;
	int gc64, bad = 0;
	int32_t v;

	if (g64 < 0 && g32 < 0)
		return 0;		/* lj_vm_pcall: jumps into lj_vm_call */
	gc64 = g64 >= 0 && (g32 < 0 || g64 < g32);
	add = find(code, len, (size_t)(gc64 ? g64 : g32) + 4, e,
		   gc64 ? P_ADD64 : P_ADD32, 3);
	if (add < 0 || (size_t)add + 7 > len ||
	    (size_t)add - (size_t)(gc64 ? g64 : g32) > X64_WIN_ADD)
		return 0;
	if (out->nglref && out->gc64 != gc64)
		bad = 1;
	out->gc64 = gc64;
	v = (int32_t)rd32(code, (size_t)add + 3);
	bad |= agree(&out->nglref, (int32_t *)&out->g2disp, v);
	end = add + 7 + X64_WIN_STORE;
	st = find(code, len, (size_t)add + 7, (size_t)end, gc64 ? P_STL64 : P_STL32, 3);
	if (st >= 0 && (size_t)st + 7 <= len)
		bad |= agree(&out->ncur_L, &out->d_cur_L, (int32_t)rd32(code, (size_t)st + 3));
	for (st = add + 7; st < end && (size_t)st + 11 <= len; st++) {
		if (at(code, len, (size_t)st, P_MOVL, 3) &&
		    rd32(code, (size_t)st + 7) == 0xffffffffu) {
			bad |= agree(&out->nvmstate, &out->d_vmstate,
				     (int32_t)rd32(code, (size_t)st + 3));
			break;
		}
	}
	return bad;
}

/* Find the entry prologues and what they load and store (see x64scan.h). */
int x64scan__entry(const uint8_t *code, size_t len, struct x64_entry *out)
{
	size_t total = 0;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	out->gc64 = -1;
	for (int64_t p = 0; (p = find(code, len, (size_t)p, len, P_PROLOGUE,
				      sizeof(P_PROLOGUE))) >= 0; p++) {
		if (out->n < X64_ENTRY_MAX)
			out->ofs[out->n++] = (uint32_t)p;
		total++;
	}
	if (total > X64_ENTRY_MAX)
		bad = 1;
	for (uint32_t i = 0; i < out->n; i++) {
		size_t s = out->ofs[i], e = s + X64_WIN_ENTRY;

		if (i + 1 < out->n && out->ofs[i + 1] < e)
			e = out->ofs[i + 1];
		bad |= entry_one(code, len, s, e, out);
	}
	if (!out->nglref) {
		out->gc64 = -1;
		return -ENOENT;
	}
	return bad ? -EBADMSG : 0;
}

/* -- Handlers and helpers ------------------------------------------------- */

/* Find FUNCC's call *%r15 and FUNCCW's call *wrapf(%r14) (see x64scan.h). */
int x64scan__funcc(const uint8_t *code, size_t len, int32_t d_vmstate, uint32_t *call_ofs,
		   uint32_t *callw_ofs)
{
	uint32_t nc = 0, nw = 0;

	for (size_t p = 0; p + 11 <= len; p++) {
		int64_t c;

		if (!is_movl(code, len, p, d_vmstate, 0xfffffffeu))	/* vmstate = C */
			continue;
		c = find(code, len, p + 11, p + 11 + X64_WIN_FUNCC, P_CALLR15, 3);
		if (c >= 0) {
			if (!nc++)
				*call_ofs = (uint32_t)c;
			continue;
		}
		c = find(code, len, p + 11, p + 11 + X64_WIN_FUNCC, P_CALLDISP, 3);
		if (c >= 0 && (size_t)c + 7 <= len && !nw++)
			*callw_ofs = (uint32_t)c;
	}
	if (!nc || !nw)
		return -ENOENT;
	return nc == 1 && nw == 1 ? 0 : -EBADMSG;
}

/* Match the GC64 BC_JLOOP handler in [start, end) (see x64scan.h). */
int x64scan__jloop(const uint8_t *code, size_t len, uint32_t start, uint32_t end,
		   struct x64_jloop *out)
{
	size_t p = start;
	int64_t b;

	if (end > len)
		end = (uint32_t)len;
	if (start >= end)
		return -ENOENT;
	if (at(code, end, p, P_ENDBR, sizeof(P_ENDBR)))
		p += sizeof(P_ENDBR);
	if (!at(code, end, p, P_JL_TRACE, 3) || !at(code, end, p + 7, P_JL_IDX, 4) ||
	    !at(code, end, p + 11, P_JL_MCODE, 3) || p + 15 > end)
		return -ENOENT;
	b = find(code, end, p + 15, end, P_JL_BASE, 3);
	if (b < 0 || (size_t)b + 7 > end)
		return -ENOENT;
	out->d_trace = (int32_t)rd32(code, p + 3);
	out->mcode = code[p + 14];
	out->d_jit_base = (int32_t)rd32(code, (size_t)b + 3);
	return 0;
}

/* Find lj_vm_floor (see x64scan.h). */
int x64scan__leaf(const uint8_t *code, size_t len, uint32_t from, uint32_t *ofs)
{
	int64_t p = find(code, len, from, len, P_FLOOR, sizeof(P_FLOOR));

	if (p < 0)
		return -ENOENT;
	*ofs = label(code, len, (size_t)p);
	return 0;
}

/* Find the one occurrence of p: 0 and *ofs, -ENOENT, or -EBADMSG. */
static int unique(const uint8_t *code, size_t len, const uint8_t *p, size_t n, uint32_t *ofs)
{
	int64_t a = find(code, len, 0, len, p, n);

	if (a < 0)
		return -ENOENT;
	if (find(code, len, (size_t)a + 1, len, p, n) >= 0)
		return -EBADMSG;
	*ofs = (uint32_t)a;
	return 0;
}

/* Find lj_vm_ffi_callback (see x64scan.h). */
int x64scan__ffi_callback(const uint8_t *code, size_t len, uint32_t *ofs, uint32_t *g2disp)
{
	uint32_t o;
	int err = unique(code, len, P_FFICB, sizeof(P_FFICB), &o);

	if (err)
		return err;
	if ((size_t)o + sizeof(P_FFICB) + 4 > len)
		return -ENOENT;
	*ofs = label(code, len, o);
	*g2disp = rd32(code, o + sizeof(P_FFICB));
	return 0;
}

/* Find lj_vm_exit_handler (see x64scan.h). */
int x64scan__exit_handler(const uint8_t *code, size_t len, uint32_t *ofs)
{
	int err = unique(code, len, P_EXIT, sizeof(P_EXIT), ofs);

	if (!err)
		*ofs = label(code, len, *ofs);
	return err;
}

/* lj_vm_cpcall's call of its C function (see x64scan.h). */
int x64scan__cpcall(const uint8_t *code, size_t len, uint32_t *ret)
{
	int err = unique(code, len, P_CPCALL, sizeof(P_CPCALL), ret);

	if (!err)
		*ret += 2;	/* past the call: its return address */
	return err;
}

#define X64_WIN_LEAVE	32	/* vm_leave_cp to its xor */

/* The byte length of a pop of rbx, rbp or r12-r15 at code[pos], or 0. */
static unsigned pop_len(const uint8_t *code, size_t len, size_t pos)
{
	if (pos < len && (code[pos] == 0x5b || code[pos] == 0x5d))
		return 1;
	if (pos + 1 < len && code[pos] == 0x41 && code[pos + 1] >= 0x5c && code[pos + 1] <= 0x5f)
		return 2;
	return 0;
}

/* The target of the jz at code[pos] (rel8 or rel32), its length in *n; -1 if none. */
static int64_t jz_target(const uint8_t *code, size_t len, size_t pos, unsigned *n)
{
	if (pos + 2 <= len && code[pos] == 0x74) {
		*n = 2;
		return (int64_t)pos + 2 + (int8_t)code[pos + 1];
	}
	if (pos + 6 <= len && code[pos] == 0x0f && code[pos + 1] == 0x84) {
		*n = 6;
		return (int64_t)pos + 6 + (int32_t)rd32(code, pos + 2);
	}
	return -1;
}

/*
** restoreregs at code[unw] (after xor %eax,%eax): add $imm8,%rsp, pops, ret,
** adding up to cframe_size. Fills out->cfa and out->len; 0 or -ENOENT.
*/
static int epilogue(const uint8_t *code, size_t len, size_t unw, uint32_t cframe_size,
		    struct x64_leave *out)
{
	static const uint8_t xor_add[] = { 0x31, 0xc0, 0x48, 0x83, 0xc4 };
	size_t pos = unw + sizeof(xor_add) + 1;
	uint32_t depth;		/* bytes below the CFA freed so far, the return address's too */
	unsigned n;

	if (!at(code, len, unw, xor_add, sizeof(xor_add)) || pos > len ||
	    cframe_size % 8 || cframe_size / 8 > 0xff)
		return -ENOENT;
	memset(out->cfa, 0, sizeof(out->cfa));
	out->cfa[0] = out->cfa[2] = (uint8_t)(cframe_size / 8);	/* rsp is the cframe */
	depth = code[unw + sizeof(xor_add)];	/* CFRAME_SPACE, freed by the add */
	while ((n = pop_len(code, len, pos)) != 0) {
		if (pos - unw >= X64_LEAVE_MAX || depth % 8 || depth + 16 > cframe_size)
			return -ENOENT;
		out->cfa[pos - unw] = (uint8_t)((cframe_size - depth) / 8);
		depth += 8;
		pos += n;
	}
	if (pos >= len || code[pos] != 0xc3 || pos - unw >= X64_LEAVE_MAX ||
	    depth + 8 != cframe_size)
		return -ENOENT;
	out->cfa[pos - unw] = 1;	/* only the return address is left */
	out->len = (uint32_t)(pos + 1 - unw);
	return 0;
}

/* vm_leave_cp and the epilogue, from lj_vm_cpcall's test (see x64scan.h). */
int x64scan__leave(const uint8_t *code, size_t len, uint32_t cp_ret, uint32_t cframe_size,
		   struct x64_leave *out)
{
	static const uint8_t test[] = { 0x48, 0x85, 0xc0 };		/* test %rax,%rax */
	static const uint8_t go_on[] = { 0x48, 0x89, 0xc1, 0xbb };	/* mov %rax,%rcx; mov $,%ebx */
	static const uint8_t restore[] = { 0x48, 0x89, 0x4d };	/* mov %rcx,disp8(%rbp) */
	static const uint8_t xor_eax[] = { 0x31, 0xc0 };
	int64_t leave, unw;
	unsigned n = 0;
	size_t pos;

	if (!at(code, len, cp_ret, test, sizeof(test)))
		return -ENOENT;
	pos = (size_t)cp_ret + sizeof(test);
	leave = jz_target(code, len, pos, &n);
	if (leave < 0 || (uint64_t)leave >= len)
		return -ENOENT;
	pos += n;
	out->cp_len = (uint32_t)(pos - cp_ret);
	if (at(code, len, pos, go_on, sizeof(go_on)) && pos + 8 < len &&
	    (code[pos + 8] == 0xe9 || code[pos + 8] == 0xeb))
		out->cp_len += 8 + (code[pos + 8] == 0xe9 ? 5 : 2);
	unw = find(code, len, (size_t)leave, (size_t)leave + X64_WIN_LEAVE, xor_eax,
		   sizeof(xor_eax));
	/* The xor must follow L->cframe's restore (mov RA, L:RB->cframe). */
	if (unw < leave + (int64_t)sizeof(restore) + 1 ||
	    !at(code, len, (size_t)unw - sizeof(restore) - 1, restore, sizeof(restore)) ||
	    epilogue(code, len, (size_t)unw, cframe_size, out))
		return -ENOENT;
	out->leave = (uint32_t)leave;
	out->unw = (uint32_t)unw;
	return 0;
}

/* Is code[pos] mov %reg,disp8(%rbp) with that displacement (a 64-bit store)? */
static int store_rbp8(const uint8_t *code, size_t len, size_t pos, uint8_t disp)
{
	return pos + 4 <= len && (code[pos] == 0x48 || code[pos] == 0x4c) &&
	       code[pos + 1] == 0x89 && (code[pos + 2] & 0xc7) == 0x45 && code[pos + 3] == disp;
}

/* Where each entry links its frame (see x64scan.h). */
int x64scan__links(const uint8_t *code, size_t len, const struct x64_entry *en,
		   uint8_t off_cframe, uint32_t *link)
{
	for (uint32_t k = 0; k < en->n && k < X64_ENTRY_MAX; k++) {
		size_t pos = (size_t)en->ofs[k] + sizeof(P_PROLOGUE);

		while (pos < len && pos < (size_t)en->ofs[k] + X64_WIN_ENTRY &&
		       !store_rbp8(code, len, pos, off_cframe))
			pos++;
		if (!store_rbp8(code, len, pos, off_cframe))
			return -ENOENT;
		link[k] = (uint32_t)pos;
	}
	return 0;
}

/* The interpreter's link stores (see x64scan.h). */
int x64scan__link_stores(const uint8_t *code, size_t len, uint32_t *ofs, uint32_t max,
			 uint32_t *n)
{
	static const uint8_t store[] = { 0x48, 0x89, 0x5a, 0xf8 };	/* mov %rbx,-0x8(%rdx) */
	int64_t at = 0;

	*n = 0;
	while ((at = find(code, len, (size_t)at, len, store, sizeof(store))) >= 0) {
		if (*n >= max)
			return -EBADMSG;
		ofs[(*n)++] = (uint32_t)at;
		at += sizeof(store);
	}
	return *n ? 0 : -ENOENT;
}

/* Check lj_vm_ffi_call's prologue (see x64scan.h). */
int x64scan__is_ffi_call(const uint8_t *code, size_t len)
{
	return at(code, len, 0, P_FFICALL, sizeof(P_FFICALL));
}
