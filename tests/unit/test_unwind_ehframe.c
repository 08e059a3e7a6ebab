/*
** Unit tests of unwind/ehframe + unwind/cfa: hand-built CIE/FDE bytes, an oracle
** comparison against `readelf --debug-dump=frames-interp` on compiled fixtures,
** /usr/bin/luajit, libc, libluajit and the vDSO, and mutated real .eh_frame bytes
** (run under ASan/UBSan).
*/
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "unwind/ehframe.h"

#define LIBC_PATH	"/lib/x86_64-linux-gnu/libc.so.6"
#define LUAJIT_PATH	"/usr/bin/luajit"
#define LIBLUAJIT_PATH	"/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2"

/* -- Byte builder --------------------------------------------------------- */

struct bb {
	uint8_t b[8192];
	size_t n;
};

static void b8(struct bb *b, uint8_t v)
{
	cr_assert_lt(b->n, sizeof(b->b));
	b->b[b->n++] = v;
}

static void bn(struct bb *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b8(b, (uint8_t)(v >> (8 * i)));
}

static void bmem(struct bb *b, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b8(b, ((const uint8_t *)p)[i]);
}

static void buleb(struct bb *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;

		v >>= 7;
		b8(b, (uint8_t)(x | (v ? 0x80 : 0)));
	} while (v);
}

static void bsleb(struct bb *b, int64_t v)
{
	for (;;) {
		uint8_t x = v & 0x7f;

		v >>= 7;	/* arithmetic on gcc/clang */
		if ((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40))) {
			b8(b, x);
			return;
		}
		b8(b, x | 0x80);
	}
}

/* Start an entry: the length placeholder; returns where it starts. */
static size_t bopen(struct bb *b, int dw64)
{
	size_t at = b->n;

	if (dw64) {
		bn(b, 0xffffffff, 4);
		bn(b, 0, 8);
	} else {
		bn(b, 0, 4);
	}
	return at;
}

/* Patch the length of the entry started at at. */
static void bclose(struct bb *b, size_t at, int dw64)
{
	size_t hdr = dw64 ? 12 : 4;
	uint64_t len = b->n - at - hdr;

	for (unsigned i = 0; i < (dw64 ? 8u : 4u); i++)
		b->b[at + (dw64 ? 4 : 0) + i] = (uint8_t)(len >> (8 * i));
}

/* The usual initial instructions: CFA = rsp+8, RA at CFA-8. */
static const uint8_t std_init[] = { 0x0c, 7, 8, 0x90, 1 };

/* An .eh_frame CIE with augmentation aug ("zR", "zRS", ...) and encoding enc. */
static size_t cie_eh(struct bb *b, const char *aug, uint8_t enc, const uint8_t *ins, size_t n,
		     int dw64)
{
	size_t at = bopen(b, dw64);

	bn(b, 0, 4);		/* CIE id (4 bytes in .eh_frame, even for dw64) */
	b8(b, 1);		/* version */
	bmem(b, aug, strlen(aug) + 1);
	buleb(b, 1);		/* caf */
	bsleb(b, -8);		/* daf */
	b8(b, 16);		/* RA column */
	if (aug[0] == 'z') {
		buleb(b, strchr(aug, 'R') ? 1 : 0);
		if (strchr(aug, 'R'))
			b8(b, enc);
	}
	bmem(b, ins, n);
	bclose(b, at, dw64);
	return at;
}

/* An .eh_frame FDE with udata4/udata8 absolute addresses ('R' = 0x03 / 0x04). */
static void fde_eh(struct bb *b, size_t cie, uint64_t lo, uint64_t range, const uint8_t *ins,
		   size_t n, int dw64, unsigned asz)
{
	size_t at = bopen(b, dw64);

	bn(b, b->n - cie, 4);	/* CIE pointer: back from this field */
	bn(b, lo, asz);
	bn(b, range, asz);
	buleb(b, 0);		/* 'z' augmentation data */
	bmem(b, ins, n);
	bclose(b, at, dw64);
}

/* A .debug_frame CIE of version ver (1, 3, 4). */
static size_t cie_dbg(struct bb *b, unsigned ver, unsigned seg, const uint8_t *ins, size_t n,
		      int dw64)
{
	size_t at = bopen(b, dw64);

	bn(b, UINT64_MAX, dw64 ? 8 : 4);
	b8(b, (uint8_t)ver);
	b8(b, 0);		/* augmentation "" */
	if (ver == 4) {
		b8(b, 8);	/* address_size */
		b8(b, (uint8_t)seg);
	}
	buleb(b, 1);
	bsleb(b, -8);
	if (ver == 1)
		b8(b, 16);
	else
		buleb(b, 16);
	bmem(b, ins, n);
	bclose(b, at, dw64);
	return at;
}

/* A .debug_frame FDE: CIE pointer is a section offset, addresses are 8 bytes. */
static void fde_dbg(struct bb *b, size_t cie, uint64_t lo, uint64_t range, const uint8_t *ins,
		    size_t n, int dw64)
{
	size_t at = bopen(b, dw64);

	bn(b, cie, dw64 ? 8 : 4);
	bn(b, lo, 8);
	bn(b, range, 8);
	bmem(b, ins, n);
	bclose(b, at, dw64);
}

/* -- Table checks --------------------------------------------------------- */

struct xrow {
	uint32_t pc;
	uint8_t kind, reg;
	int32_t off;
	int16_t rbp;
};

#define CFA(pc, reg, off, rbp)	{ pc, LT_UW_CFA, reg, off, rbp }
#define KIND(pc, k)		{ pc, k, 0, 0, 0 }

/* Assert the table's rows are exactly x[0..n). */
static void check_rows(const struct uw_table *t, const struct xrow *x, size_t n)
{
	const struct lt_uw_row *r = uw_table__rows(t);
	const struct lt_uw_rule *ru = uw_table__rules(t);
	int same = uw_table__nrows(t) == n;

	for (size_t i = 0; same && i < n; i++) {
		const struct lt_uw_rule *q = &ru[r[i].rule];

		same = r[i].pc_off == x[i].pc && q->kind == x[i].kind &&
		       (q->kind != LT_UW_CFA || (q->cfa_reg == x[i].reg &&
						 q->cfa_off == x[i].off && q->rbp_off == x[i].rbp));
	}
	for (size_t i = 0; !same && i < uw_table__nrows(t); i++) {	/* show what we got */
		const struct lt_uw_rule *q = &ru[r[i].rule];

		cr_log_error("row %zu: %#x kind %u reg %u off %d rbp %d", i, r[i].pc_off,
			     q->kind, q->cfa_reg, q->cfa_off, q->rbp_off);
	}
	cr_assert_eq(uw_table__nrows(t), n, "rows: %zu, want %zu", uw_table__nrows(t), n);
	for (size_t i = 0; i < n; i++) {
		const struct lt_uw_rule *q = &ru[r[i].rule];

		cr_assert_eq(r[i].pc_off, x[i].pc, "row %zu pc %#x want %#x", i, r[i].pc_off, x[i].pc);
		cr_assert_eq(q->kind, x[i].kind, "row %zu (%#x) kind %u want %u", i, x[i].pc,
			     q->kind, x[i].kind);
		if (q->kind != LT_UW_CFA)
			continue;
		cr_assert_eq(q->cfa_reg, x[i].reg, "row %zu reg", i);
		cr_assert_eq(q->cfa_off, x[i].off, "row %zu off %d want %d", i, q->cfa_off, x[i].off);
		cr_assert_eq(q->rbp_off, x[i].rbp, "row %zu rbp %d want %d", i, q->rbp_off, x[i].rbp);
	}
}

/* The structural invariants every finished table must keep, whatever the input. */
static void check_invariants(const struct uw_table *t)
{
	const struct lt_uw_row *r = uw_table__rows(t);
	const struct lt_uw_rule *ru = uw_table__rules(t);
	size_t n = uw_table__nrows(t), nr = uw_table__nrules(t);

	cr_assert_geq(nr, 1);
	cr_assert_eq(ru[0].kind, LT_UW_INVALID);
	for (size_t i = 0; i < nr; i++) {
		cr_assert_lt(ru[i].kind, LT_UW_KIND__COUNT);
		for (size_t j = 0; j < i; j++)
			cr_assert(memcmp(&ru[i], &ru[j], sizeof(ru[i])), "duplicate rules");
		if (ru[i].kind == LT_UW_CFA)
			cr_assert(ru[i].cfa_reg == LT_UW_REG_RSP || ru[i].cfa_reg == LT_UW_REG_RBP);
	}
	if (!n)
		return;
	cr_assert_eq(ru[r[n - 1].rule].kind, LT_UW_INVALID, "last row ends the last FDE");
	for (size_t i = 0; i < n; i++) {
		cr_assert_lt(r[i].rule, nr);
		if (i) {
			cr_assert_lt(r[i - 1].pc_off, r[i].pc_off, "strictly increasing");
			cr_assert_neq(r[i - 1].rule, r[i].rule, "merged");
		}
	}
}

/* Build a table from one section's bytes. */
static struct uw_table *table_of(const struct bb *b, uint64_t vaddr, int is_eh)
{
	struct uw_table *t = uw_table__new();

	cr_assert_not_null(t);
	cr_assert_eq(uw_table__add_section(t, b->b, b->n, vaddr, is_eh), 0);
	cr_assert_eq(uw_table__finish(t), 0);
	check_invariants(t);
	return t;
}

/* -- Hand-built sections -------------------------------------------------- */

/* push rbp; mov rbp,rsp; ...; leave-ish epilogue with a DW_CFA_restore. */
static const uint8_t basic_fde[] = {
	0x41, 0x0e, 16, 0x86, 2,	/* +1: CFA rsp+16, rbp at CFA-16 */
	0x43, 0x0d, 6,			/* +3: CFA rbp+16 */
	0x48, 0x0c, 7, 8, 0xc6,		/* +8: CFA rsp+8, restore rbp */
};
static const struct xrow basic_rows[] = {
	CFA(0x1000, 7, 8, 0), CFA(0x1001, 7, 16, -16), CFA(0x1004, 6, 16, -16),
	CFA(0x100c, 7, 8, 0), KIND(0x1020, LT_UW_INVALID),
};

Test(unwind, hand_basic)
{
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	struct uw_table *t;

	fde_eh(&b, cie, 0x1000, 0x20, basic_fde, sizeof(basic_fde), 0, 4);
	t = table_of(&b, 0x5000, 1);
	check_rows(t, basic_rows, sizeof(basic_rows) / sizeof(basic_rows[0]));
	cr_assert_eq(uw_table__nbad(t), 0);
	cr_assert_null(uw_table__lookup(t, 0xfff));
	cr_assert_eq(uw_table__lookup(t, 0x1003)->cfa_off, 16);
	cr_assert_eq(uw_table__lookup(t, 0x1004)->cfa_reg, LT_UW_REG_RBP);
	cr_assert_eq(uw_table__lookup(t, 0x101f)->cfa_off, 8);
	cr_assert_eq(uw_table__lookup(t, 0x1020)->kind, LT_UW_INVALID);
	cr_assert_eq(uw_table__lookup(t, UINT64_MAX)->kind, LT_UW_INVALID);
	cr_assert_eq(uw_table__nrules(t), 4);	/* INVALID + 3 CFA rules */
	uw_table__delete(t);
}

Test(unwind, hand_dw64)
{
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 1);
	struct uw_table *t;

	fde_eh(&b, cie, 0x1000, 0x20, basic_fde, sizeof(basic_fde), 1, 4);
	t = table_of(&b, 0, 1);
	check_rows(t, basic_rows, sizeof(basic_rows) / sizeof(basic_rows[0]));
	uw_table__delete(t);

	/* .debug_frame, 64-bit: 8-byte CIE id and CIE pointer. */
	b.n = 0;
	cie = cie_dbg(&b, 1, 0, std_init, sizeof(std_init), 1);
	fde_dbg(&b, cie, 0x1000, 0x20, basic_fde, sizeof(basic_fde), 1);
	t = table_of(&b, 0, 0);
	check_rows(t, basic_rows, sizeof(basic_rows) / sizeof(basic_rows[0]));
	cr_assert_eq(uw_table__nbad(t), 0);
	uw_table__delete(t);
}

Test(unwind, hand_debug_frame_versions)
{
	static const uint8_t ins[] = { 0x41, 0x0e, 16 };
	static const struct xrow x[] = {
		CFA(0x1000, 7, 8, 0), CFA(0x1001, 7, 16, 0), KIND(0x1010, LT_UW_INVALID),
		CFA(0x2000, 7, 8, 0), CFA(0x2001, 7, 16, 0), KIND(0x2010, LT_UW_INVALID),
		CFA(0x3000, 7, 8, 0), CFA(0x3001, 7, 16, 0), KIND(0x3010, LT_UW_INVALID),
	};
	struct bb b = { .n = 0 };
	size_t c1, c3, c4, c4bad, later;
	struct uw_table *t;

	c1 = cie_dbg(&b, 1, 0, std_init, sizeof(std_init), 0);
	c3 = cie_dbg(&b, 3, 0, std_init, sizeof(std_init), 0);
	c4 = cie_dbg(&b, 4, 0, std_init, sizeof(std_init), 0);
	c4bad = cie_dbg(&b, 4, 1, std_init, sizeof(std_init), 0);	/* segments: unsupported */
	fde_dbg(&b, c1, 0x1000, 0x10, ins, sizeof(ins), 0);
	fde_dbg(&b, c3, 0x2000, 0x10, ins, sizeof(ins), 0);
	later = b.n + 4 + 4 + 16 + sizeof(ins);		/* the CIE that follows this FDE */
	fde_dbg(&b, later, 0x3000, 0x10, ins, sizeof(ins), 0);
	cr_assert_eq(cie_dbg(&b, 1, 0, std_init, sizeof(std_init), 0), later);
	fde_dbg(&b, c4bad, 0x4000, 0x10, ins, sizeof(ins), 0);
	fde_dbg(&b, c4, 0x0, 0x10, ins, sizeof(ins), 0);	/* discarded (address 0) */
	fde_dbg(&b, c4, UINT64_MAX, 0x10, ins, sizeof(ins), 0);	/* tombstone */
	t = table_of(&b, 0, 0);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	cr_assert_eq(uw_table__nbad(t), 2);	/* the segmented CIE and its FDE */
	uw_table__delete(t);

	/* The same section read as .eh_frame is nonsense, but must stay harmless. */
	t = uw_table__new();
	cr_assert_eq(uw_table__add_section(t, b.b, b.n, 0, 1), 0);
	cr_assert_eq(uw_table__finish(t), 0);
	check_invariants(t);
	uw_table__delete(t);
}

Test(unwind, hand_remember_restore)
{
	/* GCC's epilogue in the middle of a function: remember, unwind to rsp+8, restore. */
	static const uint8_t ins[] = {
		0x41, 0x0e, 16, 0x86, 2,	/* +1: rsp+16, rbp at -16 */
		0x44, 0x0e, 48,			/* +4: rsp+48 */
		0x4a, 0x0a, 0x0e, 16, 0xc6,	/* +10: remember; rsp+16; restore rbp */
		0x41, 0x0e, 8,			/* +1: rsp+8 */
		0x41, 0x0b,			/* +1: restore_state: rsp+48, rbp at -16 */
	};
	static const struct xrow x[] = {
		CFA(0x1000, 7, 8, 0), CFA(0x1001, 7, 16, -16), CFA(0x1005, 7, 48, -16),
		CFA(0x100f, 7, 16, 0), CFA(0x1010, 7, 8, 0), CFA(0x1011, 7, 48, -16),
		KIND(0x1040, LT_UW_INVALID),
	};
	uint8_t deep[2 * 17 + 1], under[] = { 0x41, 0x0b };
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	struct uw_table *t;

	fde_eh(&b, cie, 0x1000, 0x40, ins, sizeof(ins), 0, 4);
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	/* Too deep a stack (17 > 16) and a restore with nothing remembered: skipped. */
	for (size_t i = 0; i < 17; i++) {
		deep[2 * i] = 0x0a;
		deep[2 * i + 1] = 0x41;
	}
	deep[34] = 0;
	b.n = 0;
	cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	fde_eh(&b, cie, 0x1000, 0x40, deep, sizeof(deep), 0, 4);
	fde_eh(&b, cie, 0x2000, 0x40, under, sizeof(under), 0, 4);
	fde_eh(&b, cie, 0x3000, 0x40, deep + 2, sizeof(deep) - 2, 0, 4);	/* 16: fine */
	t = table_of(&b, 0, 1);
	cr_assert_eq(uw_table__nbad(t), 2);
	cr_assert_null(uw_table__lookup(t, 0x2fff));
	cr_assert_eq(uw_table__lookup(t, 0x3000)->kind, LT_UW_CFA);
	uw_table__delete(t);
}

Test(unwind, hand_expressions)
{
	static const uint8_t plt11[] = { 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a,
					 0x33, 0x24, 0x22 };
	static const uint8_t plt10[] = { 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3a, 0x2a,
					 0x33, 0x24, 0x22 };
	static const uint8_t plt_long[] = { 0x0f, 12, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a,
					    0x33, 0x24, 0x22, 0x96 };
	static const uint8_t deref[] = { 0x0f, 3, 0x77, 8, 0x06 };	/* CFA = [rsp+8] */
	/* glibc __restore_rt: CFA = [rsp+160], rbp at rsp+120, RA at rsp+168. */
	static const uint8_t sig[] = {
		0x0f, 4, 0x77, 0xa0, 0x01, 0x06,
		0x10, 6, 3, 0x77, 0xf8, 0x00,
		0x10, 16, 3, 0x77, 0xa8, 0x01,
	};
	static const uint8_t sig_norbp[] = {
		0x0f, 4, 0x77, 0xa0, 0x01, 0x06,
		0x10, 16, 3, 0x77, 0xa8, 0x01,
	};
	static const struct xrow x[] = {
		KIND(0x1000, LT_UW_PLT), KIND(0x1010, LT_UW_INVALID), CFA(0x1040, 7, 8, 0),
		KIND(0x1050, LT_UW_INVALID), KIND(0x2000, LT_UW_SIGNAL),
		KIND(0x2008, LT_UW_INVALID),
	};
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	size_t scie = cie_eh(&b, "zRS", 0x03, NULL, 0, 0);
	struct uw_table *t;

	fde_eh(&b, cie, 0x1000, 0x10, plt11, sizeof(plt11), 0, 4);
	fde_eh(&b, cie, 0x1010, 0x10, plt10, sizeof(plt10), 0, 4);	/* IBT: unsupported */
	fde_eh(&b, cie, 0x1020, 0x10, plt_long, sizeof(plt_long), 0, 4);
	fde_eh(&b, cie, 0x1030, 0x10, deref, sizeof(deref), 0, 4);
	fde_eh(&b, cie, 0x1040, 0x10, NULL, 0, 0, 4);
	fde_eh(&b, scie, 0x2000, 0x8, sig, sizeof(sig), 0, 4);
	fde_eh(&b, scie, 0x2008, 0x8, sig_norbp, sizeof(sig_norbp), 0, 4);	/* rbp unknown */
	fde_eh(&b, cie, 0x2010, 0x8, sig, sizeof(sig), 0, 4);		/* no 'S' */
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	cr_assert_eq(uw_table__nbad(t), 0);
	uw_table__delete(t);
}

Test(unwind, hand_rule_mapping)
{
	static const uint8_t stop[] = { 0x07, 16 };			/* RA undefined */
	static const uint8_t ra16[] = { 0x90, 2 };			/* RA at CFA-16 */
	static const uint8_t rbp_reg[] = { 0x09, 6, 3 };		/* rbp in rbx */
	static const uint8_t rax[] = { 0x0c, 0, 8 };			/* CFA = rax+8 */
	static const uint8_t rbp_undef[] = { 0x07, 6 };
	static const uint8_t rbp_valoff[] = { 0x14, 6, 2 };
	static const uint8_t rbp_zero[] = { 0x11, 6, 0 };		/* rbp at CFA+0 */
	static const uint8_t rbp_far[] = { 0x86, 0x88, 0x27 };	/* rbp at CFA-40000 */
	static const uint8_t cfa_big[] = { 0x0c, 7, 0x80, 0x80, 0x80, 0x80, 0x10 };	/* 2^32 */
	static const uint8_t cfa_neg[] = { 0x12, 7, 0x7f };		/* rsp + (-1 * -8) */
	static const uint8_t rsp_saved[] = { 0x87, 2 };			/* rsp at CFA-16 */
	static const uint8_t sf[] = { 0x12, 6, 0x7e, 0x11, 6, 0x02 };	/* rbp+16, rbp at -16 */
	static const uint8_t neg_ext[] = { 0x2f, 6, 2, 0x2e, 8 };	/* rbp at +16; args_size */
	static const uint8_t off_no_cfa[] = { 0x0d, 6 };		/* def_cfa_register */
	/* libgcrypt's asm: expression, then back to a register with the last offset. */
	static const uint8_t expr_reg[] = { 0x0e, 56, 0x41, 0x0f, 2, 0x77, 0x08,
					    0x41, 0x0d, 7, 0x41, 0x0e, 48,
					    0x41, 0x0f, 2, 0x77, 0x08, 0x41, 0x0e, 16 };
	static const struct xrow x[] = {
		KIND(0x100, LT_UW_STOP), KIND(0x110, LT_UW_INVALID), CFA(0x150, 7, 8, 0),
		KIND(0x160, LT_UW_INVALID), CFA(0x1a0, 7, 8, 0),
		CFA(0x1b0, 6, 16, -16), CFA(0x1c0, 7, 8, 16), CFA(0x1d0, 6, 8, 0),
		KIND(0x1e0, LT_UW_INVALID),
		CFA(0x200, 7, 56, 0), KIND(0x201, LT_UW_INVALID), CFA(0x202, 7, 56, 0),
		CFA(0x203, 7, 48, 0), KIND(0x204, LT_UW_INVALID),
	};
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	size_t bare = cie_eh(&b, "zR", 0x03, NULL, 0, 0);
	struct uw_table *t;

	fde_eh(&b, cie, 0x100, 0x10, stop, sizeof(stop), 0, 4);
	fde_eh(&b, cie, 0x110, 0x10, ra16, sizeof(ra16), 0, 4);
	fde_eh(&b, cie, 0x120, 0x10, rbp_reg, sizeof(rbp_reg), 0, 4);
	fde_eh(&b, cie, 0x130, 0x10, rax, sizeof(rax), 0, 4);
	fde_eh(&b, cie, 0x140, 0x10, rbp_valoff, sizeof(rbp_valoff), 0, 4);
	fde_eh(&b, cie, 0x150, 0x10, rbp_undef, sizeof(rbp_undef), 0, 4);
	fde_eh(&b, cie, 0x160, 0x10, rbp_zero, sizeof(rbp_zero), 0, 4);
	fde_eh(&b, cie, 0x170, 0x10, rbp_far, sizeof(rbp_far), 0, 4);
	fde_eh(&b, cie, 0x180, 0x10, cfa_big, sizeof(cfa_big), 0, 4);
	fde_eh(&b, cie, 0x190, 0x10, rsp_saved, sizeof(rsp_saved), 0, 4);
	fde_eh(&b, cie, 0x1a0, 0x10, cfa_neg, sizeof(cfa_neg), 0, 4);
	fde_eh(&b, cie, 0x1b0, 0x10, sf, sizeof(sf), 0, 4);
	fde_eh(&b, cie, 0x1c0, 0x10, neg_ext, sizeof(neg_ext), 0, 4);
	fde_eh(&b, cie, 0x1d0, 0x10, (const uint8_t[]){ 0x0c, 7, 8, 0x0d, 6 }, 5, 0, 4);
	fde_eh(&b, bare, 0x1e0, 0x10, off_no_cfa, sizeof(off_no_cfa), 0, 4);	/* no CFA, no RA */
	fde_eh(&b, cie, 0x200, 0x10, expr_reg, sizeof(expr_reg), 0, 4);
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);
}

Test(unwind, hand_overrun_and_truncated)
{
	static const uint8_t ok[] = { 0x41, 0x0e, 16 };
	static const uint8_t trunc_uleb[] = { 0x41, 0x0e, 0x90 };		/* continues past the end */
	static const uint8_t long_uleb[] = { 0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff, 0xff, 0xff, 0x01 };		/* > 64 bits */
	static const uint8_t trunc_sleb[] = { 0x13, 0x80 };
	static const uint8_t trunc_block[] = { 0x0f, 20, 0x77 };		/* 20-byte expression */
	static const uint8_t unknown_op[] = { 0x41, 0x3c, 0x41 };		/* DW_CFA lo_user range */
	static const uint8_t adv4_short[] = { 0x04, 1, 0 };
	static const struct xrow x[] = {
		CFA(0x1000, 7, 8, 0), CFA(0x1001, 7, 16, 0), KIND(0x1010, LT_UW_INVALID),
	};
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	struct uw_table *t;
	size_t at;

	fde_eh(&b, cie, 0x1000, 0x10, ok, sizeof(ok), 0, 4);
	fde_eh(&b, cie, 0x2000, 0x10, trunc_uleb, sizeof(trunc_uleb), 0, 4);
	fde_eh(&b, cie, 0x3000, 0x10, long_uleb, sizeof(long_uleb), 0, 4);
	fde_eh(&b, cie, 0x4000, 0x10, trunc_sleb, sizeof(trunc_sleb), 0, 4);
	fde_eh(&b, cie, 0x5000, 0x10, trunc_block, sizeof(trunc_block), 0, 4);
	fde_eh(&b, cie, 0x6000, 0x10, unknown_op, sizeof(unknown_op), 0, 4);
	fde_eh(&b, cie, 0x7000, 0x10, adv4_short, sizeof(adv4_short), 0, 4);
	/* An FDE whose augmentation length runs past its end. */
	at = bopen(&b, 0);
	bn(&b, b.n - cie, 4);
	bn(&b, 0x8000, 4);
	bn(&b, 0x10, 4);
	buleb(&b, 100);
	bclose(&b, at, 0);
	/* An FDE whose length runs past the section: the walk ends there. */
	at = bopen(&b, 0);
	bn(&b, b.n - cie, 4);
	bn(&b, 0x9000, 4);
	bn(&b, 0x10, 4);
	buleb(&b, 0);
	bclose(&b, at, 0);
	b.b[at] += 64;
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	cr_assert_eq(uw_table__nbad(t), 8);
	uw_table__delete(t);

	/* Every prefix of a good section: never a read past len (ASan watches). */
	for (size_t cut = 0; cut <= 64; cut++) {
		uint8_t *p;

		b.n = 0;
		cie = cie_eh(&b, "zR", 0x1b, std_init, sizeof(std_init), 0);
		fde_eh(&b, cie, 0x1000, 0x10, basic_fde, sizeof(basic_fde), 0, 4);
		if (cut > b.n)
			break;
		p = malloc(cut ? cut : 1);
		memcpy(p, b.b, cut);
		t = uw_table__new();
		cr_assert_eq(uw_table__add_section(t, p, cut, 0x10000, 1), 0);
		cr_assert_eq(uw_table__finish(t), 0);
		check_invariants(t);
		uw_table__delete(t);
		free(p);
	}
}

Test(unwind, hand_terminator)
{
	static const uint8_t ins[] = { 0x41, 0x0e, 16 };
	static const struct xrow x[] = {
		CFA(0x1000, 7, 8, 0), CFA(0x1001, 7, 16, 0), KIND(0x1010, LT_UW_INVALID),
		CFA(0x2000, 7, 8, 0), CFA(0x2001, 7, 16, 0), KIND(0x2010, LT_UW_INVALID),
	};
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x03, std_init, sizeof(std_init), 0);
	struct uw_table *t;

	fde_eh(&b, cie, 0x1000, 0x10, ins, sizeof(ins), 0, 4);
	bn(&b, 0, 4);				/* zero terminator */
	fde_eh(&b, cie, 0x2000, 0x10, ins, sizeof(ins), 0, 4);	/* still found, as readelf does */
	bn(&b, 0, 4);
	bn(&b, 0, 3);				/* trailing padding, not a whole word */
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	b.n = 0;
	bn(&b, 0, 4);
	t = table_of(&b, 0, 1);
	cr_assert_eq(uw_table__nrows(t), 0);
	cr_assert_null(uw_table__lookup(t, 0x1000));
	uw_table__delete(t);
}

Test(unwind, hand_overlaps)
{
	static const uint8_t c16[] = { 0x0e, 16 }, c32[] = { 0x0e, 32 }, c48[] = { 0x0e, 48 };
	static const struct xrow x[] = {
		CFA(0x1000, 7, 8, 0), CFA(0x1080, 7, 16, 0), CFA(0x1180, 7, 32, 0),
		KIND(0x1200, LT_UW_INVALID), CFA(0x1300, 7, 8, 0), KIND(0x1400, LT_UW_INVALID),
	};
	struct bb eh = { .n = 0 }, dbg = { .n = 0 };
	size_t cie = cie_eh(&eh, "zR", 0x03, std_init, sizeof(std_init), 0);
	size_t dcie = cie_dbg(&dbg, 1, 0, std_init, sizeof(std_init), 0);
	struct uw_table *t;

	fde_eh(&eh, cie, 0x1000, 0x100, NULL, 0, 0, 4);
	fde_eh(&eh, cie, 0x1080, 0x100, c16, sizeof(c16), 0, 4);	/* later: wins */
	fde_eh(&eh, cie, 0x1300, 0x100, NULL, 0, 0, 4);
	fde_dbg(&dbg, dcie, 0x1000, 0x200, c32, sizeof(c32), 0);	/* .eh_frame wins */
	fde_dbg(&dbg, dcie, 0x1300, 0x80, c48, sizeof(c48), 0);
	/* Add .debug_frame last: priority does not depend on the order of calls. */
	t = uw_table__new();
	cr_assert_eq(uw_table__add_section(t, eh.b, eh.n, 0, 1), 0);
	cr_assert_eq(uw_table__add_section(t, dbg.b, dbg.n, 0, 0), 0);
	cr_assert_eq(uw_table__finish(t), 0);
	check_invariants(t);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	t = uw_table__new();
	cr_assert_eq(uw_table__add_section(t, dbg.b, dbg.n, 0, 0), 0);
	cr_assert_eq(uw_table__add_section(t, eh.b, eh.n, 0, 1), 0);
	cr_assert_eq(uw_table__finish(t), 0);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);
}

Test(unwind, hand_pointer_encodings)
{
	static const uint8_t ins[] = { 0x41, 0x0e, 16, 0x02, 0x10, 0x0e, 24, 0x03, 0x00, 0x01,
				       0x0e, 32 };	/* advance_loc1/2 */
	static const struct xrow x[] = {
		CFA(0x401000, 7, 8, 0), CFA(0x401001, 7, 16, 0), CFA(0x401011, 7, 24, 0),
		CFA(0x401111, 7, 32, 0), KIND(0x402000, LT_UW_INVALID),
	};
	struct bb b = { .n = 0 };
	size_t cie, at;
	struct uw_table *t;

	/* pcrel|sdata4, as GCC emits: pc = field address + value. */
	cie = cie_eh(&b, "zR", 0x1b, std_init, sizeof(std_init), 0);
	at = bopen(&b, 0);
	bn(&b, b.n - cie, 4);
	bn(&b, (uint32_t)(0x401000 - (0x400000 + b.n)), 4);
	bn(&b, 0x1000, 4);
	buleb(&b, 0);
	bmem(&b, ins, sizeof(ins));
	bclose(&b, at, 0);
	t = table_of(&b, 0x400000, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	/* uleb128, udata8, sdata2 absolute; datarel only with a base. */
	b.n = 0;
	cie = cie_eh(&b, "zR", 0x01, std_init, sizeof(std_init), 0);
	at = bopen(&b, 0);
	bn(&b, b.n - cie, 4);
	buleb(&b, 0x401000);
	buleb(&b, 0x1000);
	buleb(&b, 0);
	bmem(&b, ins, sizeof(ins));
	bclose(&b, at, 0);
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	b.n = 0;
	cie = cie_eh(&b, "zR", 0x04, std_init, sizeof(std_init), 0);
	fde_eh(&b, cie, 0x401000, 0x1000, ins, sizeof(ins), 0, 8);
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	b.n = 0;
	cie = cie_eh(&b, "zR", 0x33, std_init, sizeof(std_init), 0);	/* datarel|udata4 */
	fde_eh(&b, cie, 0x1000, 0x1000, ins, sizeof(ins), 0, 4);
	cie = cie_eh(&b, "zR", 0x9b, std_init, sizeof(std_init), 0);	/* indirect pcrel */
	fde_eh(&b, cie, 0x1000, 0x1000, ins, sizeof(ins), 0, 4);
	cie = cie_eh(&b, "zR", 0x53, std_init, sizeof(std_init), 0);	/* aligned */
	fde_eh(&b, cie, 0x1000, 0x1000, ins, sizeof(ins), 0, 4);
	t = table_of(&b, 0, 1);
	cr_assert_eq(uw_table__nrows(t), 0);
	cr_assert_eq(uw_table__nbad(t), 3);
	uw_table__delete(t);
	t = uw_table__new();
	uw_table__set_datarel_base(t, 0x400000);
	cr_assert_eq(uw_table__add_section(t, b.b, b.n, 0, 1), 0);
	cr_assert_eq(uw_table__finish(t), 0);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	uw_table__delete(t);

	/* Augmentations: P and L are skipped, an unknown letter rejects the CIE. */
	b.n = 0;
	at = bopen(&b, 0);
	bn(&b, 0, 4);
	b8(&b, 1);
	bmem(&b, "zPLR", 5);
	buleb(&b, 1);
	bsleb(&b, -8);
	b8(&b, 16);
	buleb(&b, 1 + 4 + 1 + 1);
	b8(&b, 0x9b);		/* personality: indirect pcrel sdata4 */
	bn(&b, 0x1234, 4);
	b8(&b, 0x1b);		/* LSDA encoding */
	b8(&b, 0x03);		/* FDE encoding */
	bmem(&b, std_init, sizeof(std_init));
	bclose(&b, at, 0);
	at = bopen(&b, 0);
	bn(&b, b.n, 4);
	bn(&b, 0x401000, 4);
	bn(&b, 0x1000, 4);
	buleb(&b, 4);
	bn(&b, 0xdeadbeef, 4);	/* LSDA pointer */
	bmem(&b, ins, sizeof(ins));
	bclose(&b, at, 0);
	cie = cie_eh(&b, "zRX", 0x03, std_init, sizeof(std_init), 0);
	fde_eh(&b, cie, 0x1000, 0x10, ins, sizeof(ins), 0, 4);
	t = table_of(&b, 0, 1);
	check_rows(t, x, sizeof(x) / sizeof(x[0]));
	cr_assert_eq(uw_table__nbad(t), 2);	/* "zRX" and its FDE */
	uw_table__delete(t);
}

Test(unwind, hand_overflow_and_misuse)
{
	struct bb b = { .n = 0 };
	size_t cie = cie_eh(&b, "zR", 0x04, std_init, sizeof(std_init), 0);
	struct uw_table *t;

	fde_eh(&b, cie, 0xffffff00, 0x100, NULL, 0, 0, 8);	/* ends exactly at 2^32 */
	t = uw_table__new();
	cr_assert_eq(uw_table__add_section(t, b.b, b.n, 0, 1), -EOVERFLOW);
	uw_table__delete(t);

	b.n = 0;
	cie = cie_eh(&b, "zR", 0x04, std_init, sizeof(std_init), 0);
	fde_eh(&b, cie, 0xfffffe00, 0x100, NULL, 0, 0, 8);
	fde_eh(&b, cie, UINT64_MAX - 8, 0x100, NULL, 0, 0, 8);	/* wraps: malformed */
	t = uw_table__new();
	cr_assert_null(uw_table__rows(t));
	cr_assert_null(uw_table__lookup(t, 0));
	cr_assert_eq(uw_table__add_section(t, b.b, b.n, 0, 1), 0);
	cr_assert_eq(uw_table__nbad(t), 1);
	cr_assert_eq(uw_table__finish(t), 0);
	cr_assert_eq(uw_table__finish(t), -EINVAL);
	cr_assert_eq(uw_table__add_section(t, b.b, b.n, 0, 1), -EINVAL);
	cr_assert_eq(uw_table__nrows(t), 2);
	cr_assert_eq(uw_table__rows(t)[1].pc_off, 0xffffff00);
	cr_assert_eq(uw_table__lookup(t, UINT64_MAX)->kind, LT_UW_INVALID);
	uw_table__delete(t);

	t = uw_table__new();
	cr_assert_eq(uw_table__add_section(t, NULL, 0, 0, 1), 0);
	cr_assert_eq(uw_table__add_section(t, NULL, 1, 0, 1), -EINVAL);
	cr_assert_eq(uw_table__finish(t), 0);
	cr_assert_eq(uw_table__nrows(t), 0);
	cr_assert_eq(uw_table__nrules(t), 1);
	uw_table__delete(t);
	uw_table__delete(NULL);
	cr_assert_eq(uw_table__add_section(NULL, b.b, b.n, 0, 1), -EINVAL);
}

/* -- Helpers for real files ----------------------------------------------- */

/* The address, size and (optionally, malloc'd) bytes of section name; 0 or -1. */
static int scn_get(const char *path, const char *name, uint64_t *addr, size_t *len,
		   uint8_t **data, uint64_t *flags)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(n, name))
			continue;
		*addr = sh.sh_addr;
		*len = sh.sh_size;
		if (flags)
			*flags = sh.sh_flags;
		if (data) {
			Elf_Data *d = elf_rawdata(scn, NULL);

			cr_assert(d && d->d_buf);
			*data = malloc(d->d_size);
			memcpy(*data, d->d_buf, d->d_size);
			*len = d->d_size;
		}
		ret = 0;
		break;
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/* Build a table from a file path. */
static struct uw_table *table_of_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct uw_table *t;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	t = uw_table__from_elf_fd(fd);
	cr_assert_not_null(t, "%s: %s", path, strerror(errno));
	close(fd);
	check_invariants(t);
	return t;
}

/* Run a shell command; its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Is the tool on PATH? */
static int have(const char *tool)
{
	return sh("command -v %s >/dev/null 2>&1", tool) == 0;
}

/* The fixture: frames of every shape GCC makes, a PLT call, a noreturn path. */
static const char fixture_src[] =
	"#include <alloca.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int dyn(int n) { char *p = alloca(n + 16);\n"
	"  memset(p, n, n + 16); return p[n / 2] + leaf(n); }\n"
	"__attribute__((noinline)) int big(int n) { volatile char buf[70000];\n"
	"  buf[n] = (char)n; return buf[n / 2] + dyn(n); }\n"
	"__attribute__((noinline)) long regs(long a, long b, long c, long d, long e, long f)\n"
	"{ long r = 0; for (long i = 0; i < a; i++) r += leaf((int)(i * b + c)) * d + e * f\n"
	"  + dyn((int)(i & 7)); return r; }\n"
	"__attribute__((noinline, noreturn)) void die(const char *m) { fputs(m, stderr); exit(3); }\n"
	"__attribute__((noinline)) int rec(int n) { return n <= 0 ? 0 : rec(n - 1) + leaf(n); }\n"
	"int main(int argc, char **argv) {\n"
	"  if (argc > 5) die(argv[1]);\n"
	"  printf(\"%d %ld %d\\n\", big(argc + 10), regs(argc, 2, 3, 4, 5, 6), rec(argc));\n"
	"  return 0; }\n";

/* Write the fixture source into a fresh directory; returns the malloc'd dir. */
static char *fixture_dir(void)
{
	char *dir = strdup("/tmp/luatop-ehtest-XXXXXX"), path[512];
	FILE *f;

	if (!have("gcc") || !have("readelf"))
		cr_skip_test("gcc or readelf missing");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fx.c", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(fixture_src, f);
	fclose(f);
	return dir;
}

/* Build dir/name from dir/fx.c with flags. */
static void fixture_build(const char *dir, const char *name, const char *flags)
{
	cr_assert_eq(sh("gcc %s -o %s/%s %s/fx.c", flags, dir, name, dir), 0, "gcc %s", flags);
}

/* The ELF entry point (_start) of a file. */
static uint64_t entry_of(const char *path)
{
	int fd = open(path, O_RDONLY);
	GElf_Ehdr eh;
	Elf *elf;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(elf && gelf_getehdr(elf, &eh));
	elf_end(elf);
	close(fd);
	return eh.e_entry;
}

/* -- The readelf oracle --------------------------------------------------- */

struct orow {
	uint64_t loc;
	char cfa[32], rbp[16], ra[16], rsp[16];	/* "" when the column is absent */
};

struct oent {
	uint64_t off, cie;	/* entry offset; FDE: its CIE */
	uint64_t lo, hi;	/* FDE range */
	int is_cie, is_eh, overlap;
	size_t first, n;	/* rows in oracle.r */
};

struct oracle {
	struct oent *e;
	size_t ne;
	struct orow *r;
	size_t nr;
};

struct ostats {
	size_t fdes, dbg_fdes, rows, exp_rows, overlaps, mismatches, stop_rows, invalid_rows;
};

/* Append a zeroed element to a growing array (capacity: the next power of two). */
static void *push(void *arr, size_t *n, size_t sz)
{
	if (!*n || (*n >= 16 && !(*n & (*n - 1)))) {
		arr = realloc(arr, (*n ? *n * 2 : 16) * sz);
		cr_assert_not_null(arr);
	}
	memset((char *)arr + *n * sz, 0, sz);
	(*n)++;
	return arr;
}

/* Parse `readelf -wN --debug-dump=frames-interp path`. */
static void oracle_load(const char *path, struct oracle *o)
{
	char cmd[600], line[4096], cols[64][16];
	size_t ncols = 0;
	int is_eh = 1, cur = -1;
	FILE *p;

	memset(o, 0, sizeof(*o));
	snprintf(cmd, sizeof(cmd), "readelf -wN --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		uint64_t off, len, id, cie, lo, hi;

		if (!strncmp(line, "Contents of the ", 16)) {
			is_eh = !!strstr(line, ".eh_frame");
			cur = -1;
		} else if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64 " FDE cie=%" SCNx64
				  " pc=%" SCNx64 "..%" SCNx64, &off, &len, &id, &cie, &lo,
				  &hi) == 6) {
			o->e = push(o->e, &o->ne, sizeof(*o->e));
			cur = (int)o->ne - 1;
			o->e[cur] = (struct oent){ .off = off, .cie = cie, .lo = lo, .hi = hi,
						   .is_eh = is_eh, .first = o->nr };
			ncols = 0;
		} else if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, &off, &len, &id) == 3 &&
			   strstr(line, " CIE")) {
			o->e = push(o->e, &o->ne, sizeof(*o->e));
			cur = (int)o->ne - 1;
			o->e[cur] = (struct oent){ .off = off, .is_cie = 1, .is_eh = is_eh,
						   .first = o->nr };
			ncols = 0;
		} else if (cur >= 0 && !strncmp(line, "   LOC", 6)) {
			char *save, *tok = strtok_r(line + 6, " \n", &save);

			for (ncols = 0; tok && ncols < 64; tok = strtok_r(NULL, " \n", &save))
				snprintf(cols[ncols++], sizeof(cols[0]), "%s", tok);
		} else if (cur >= 0 && ncols && strlen(line) > 17 && line[16] == ' ') {
			char *save, *tok = strtok_r(line, " \n", &save);
			struct orow *r;

			o->r = push(o->r, &o->nr, sizeof(*o->r));
			r = &o->r[o->nr - 1];
			r->loc = strtoull(tok, NULL, 16);
			for (size_t c = 0; c < ncols && (tok = strtok_r(NULL, " \n", &save)); c++) {
				if (save && save[0] == '(')	/* "r10 (r10)": one value */
					strtok_r(NULL, " \n", &save);
				if (!strcmp(cols[c], "CFA"))
					snprintf(r->cfa, sizeof(r->cfa), "%s", tok);
				else if (!strcmp(cols[c], "rbp"))
					snprintf(r->rbp, sizeof(r->rbp), "%s", tok);
				else if (!strcmp(cols[c], "ra"))
					snprintf(r->ra, sizeof(r->ra), "%s", tok);
				else if (!strcmp(cols[c], "rsp"))
					snprintf(r->rsp, sizeof(r->rsp), "%s", tok);
			}
			o->e[cur].n++;
		}
	}
	cr_assert_eq(pclose(p), 0, "readelf failed on %s", path);
}

/* What the rule must be for a readelf row: a set of kinds, and the exact CFA rule. */
static unsigned expect_row(const struct orow *r, struct lt_uw_rule *want)
{
	char reg[8];
	int off, n = 0;

	memset(want, 0, sizeof(*want));
	if (!strcmp(r->ra, "u"))
		return 1u << LT_UW_STOP;
	if (!strcmp(r->cfa, "exp"))
		return 1u << LT_UW_PLT | 1u << LT_UW_SIGNAL | 1u << LT_UW_INVALID;
	if (sscanf(r->cfa, "%3[a-z0-9]%d%n", reg, &off, &n) != 2 || r->cfa[n] ||
	    (strcmp(reg, "rsp") && strcmp(reg, "rbp")))
		return 1u << LT_UW_INVALID;
	if (strcmp(r->ra, "c-8"))
		return 1u << LT_UW_INVALID;
	if (r->rsp[0] && strcmp(r->rsp, "u") && strcmp(r->rsp, "s") && strcmp(r->rsp, "v+0"))
		return 1u << LT_UW_INVALID;
	want->kind = LT_UW_CFA;
	want->cfa_reg = strcmp(reg, "rsp") ? LT_UW_REG_RBP : LT_UW_REG_RSP;
	want->cfa_off = off;
	if (!r->rbp[0] || !strcmp(r->rbp, "u") || !strcmp(r->rbp, "s"))
		return 1u << LT_UW_CFA;
	if (sscanf(r->rbp, "c%d%n", &off, &n) != 1 || r->rbp[n] || !off || off < INT16_MIN ||
	    off > INT16_MAX)
		return 1u << LT_UW_INVALID;
	want->rbp_off = (int16_t)off;
	return 1u << LT_UW_CFA;
}

/* qsort of FDE pointers by start. */
static int cmp_oent(const void *a, const void *b)
{
	const struct oent *x = *(const struct oent *const *)a, *y = *(const struct oent *const *)b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Index of the last table row at or below pc (the table covers pc). */
static size_t row_at(const struct uw_table *t, uint64_t pc)
{
	const struct lt_uw_row *r = uw_table__rows(t);
	size_t lo = 0, hi = uw_table__nrows(t);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].pc_off <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Report a mismatch (the first few only). */
static void mismatch(struct ostats *st, uint64_t pc, const struct orow *o,
		     const struct lt_uw_rule *got)
{
	if (st->mismatches++ < 12)
		cr_log_error("pc %#" PRIx64 ": readelf CFA=%s rbp=%s ra=%s rsp=%s; got kind %u "
			     "reg %u off %d rbp %d", pc, o->cfa, o->rbp, o->ra, o->rsp,
			     got ? got->kind : 99, got ? got->cfa_reg : 0,
			     got ? got->cfa_off : 0, got ? got->rbp_off : 0);
}

/*
** Compare the table with readelf: every byte range of every readelf row (FDEs
** that overlap another are counted and left out), the INVALID at each FDE end,
** and that no usable row lies outside every FDE.
*/
static void oracle_compare(const struct uw_table *t, const struct oracle *o, struct ostats *st)
{
	const struct lt_uw_row *rows = uw_table__rows(t);
	const struct lt_uw_rule *rules = uw_table__rules(t);
	size_t nrows = uw_table__nrows(t), nf = 0, k;
	struct oent **f = calloc(o->ne + 1, sizeof(*f));
	uint64_t maxhi = 0;

	memset(st, 0, sizeof(*st));
	cr_assert_not_null(f);
	for (size_t i = 0; i < o->ne; i++)
		if (!o->e[i].is_cie && o->e[i].hi > o->e[i].lo && o->e[i].lo)
			f[nf++] = &o->e[i];
	qsort(f, nf, sizeof(*f), cmp_oent);
	for (size_t i = 0; i < nf; i++) {	/* mark overlaps */
		if (i && f[i]->lo < maxhi) {
			f[i]->overlap = 1;
			for (size_t j = i; j-- > 0 && f[j]->hi > f[i]->lo;)
				f[j]->overlap = 1;
		}
		if (f[i]->hi > maxhi)
			maxhi = f[i]->hi;
	}
	for (size_t i = 0; i < nf; i++) {
		const struct oent *e = f[i];
		const struct orow *r = o->r + e->first;
		size_t n = e->n;
		struct orow cie_row = { .loc = e->lo };

		if (e->overlap) {
			st->overlaps++;
			continue;
		}
		st->fdes++;
		st->dbg_fdes += !e->is_eh;
		if (!n) {	/* only nops: the CIE's initial row, if it printed one */
			for (size_t j = 0; j < o->ne; j++) {
				const struct oent *c = &o->e[j];

				if (c->is_cie && c->is_eh == e->is_eh && c->off == e->cie && c->n)
					cie_row = o->r[c->first + c->n - 1];
			}
			cie_row.loc = e->lo;
			r = &cie_row;
			n = 1;
		}
		for (size_t j = 0; j < n; j++) {
			uint64_t a = r[j].loc, b = j + 1 < n ? r[j + 1].loc : e->hi;
			struct lt_uw_rule want;
			unsigned kinds;

			if (b > e->hi)
				b = e->hi;
			if (a >= b)
				continue;
			kinds = expect_row(&r[j], &want);
			st->rows++;
			st->exp_rows += !strcmp(r[j].cfa, "exp");
			st->stop_rows += kinds == 1u << LT_UW_STOP;
			st->invalid_rows += kinds == 1u << LT_UW_INVALID;
			if (!nrows || rows[0].pc_off > a) {
				mismatch(st, a, &r[j], NULL);
				continue;
			}
			size_t k0 = row_at(t, a);

			for (k = k0; k < nrows && (k == k0 || rows[k].pc_off < b); k++) {
				const struct lt_uw_rule *got = &rules[rows[k].rule];

				if (!(kinds & 1u << got->kind) ||
				    (got->kind == LT_UW_CFA && memcmp(got, &want, sizeof(want))))
					mismatch(st, rows[k].pc_off > a ? rows[k].pc_off : a, &r[j], got);
			}
		}
		/* The end: INVALID unless another FDE starts there. */
		if (!(i + 1 < nf && f[i + 1]->lo == e->hi)) {
			const struct lt_uw_rule *end = uw_table__lookup(t, e->hi);
			int starts = 0;

			for (size_t j = i + 1; j < nf && f[j]->lo <= e->hi; j++)
				starts |= f[j]->lo == e->hi;
			if (!starts && (!end || end->kind != LT_UW_INVALID))
				mismatch(st, e->hi, &(struct orow){ .cfa = "end" }, end);
		}
	}
	/* Every usable row lies inside some FDE. */
	for (k = 0; k < nrows; k++) {
		size_t lo = 0, hi = nf;

		if (rules[rows[k].rule].kind == LT_UW_INVALID)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (f[mid]->lo <= rows[k].pc_off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || f[lo - 1]->hi <= rows[k].pc_off) {
			int in = 0;	/* overlaps: scan back */

			for (size_t j = 0; j < lo && !in; j++)
				in = f[j]->lo <= rows[k].pc_off && rows[k].pc_off < f[j]->hi;
			if (!in)
				mismatch(st, rows[k].pc_off, &(struct orow){ .cfa = "outside" },
					 &rules[rows[k].rule]);
		}
	}
	free(f);
}

/* Load the oracle for path, compare, log the figures, assert no mismatch. */
static void oracle_check(const struct uw_table *t, const char *path, struct ostats *st)
{
	struct oracle o;

	oracle_load(path, &o);
	oracle_compare(t, &o, st);
	cr_log_info("%s: %zu rows %zu rules; readelf: %zu FDEs (%zu .debug_frame), %zu rows "
		    "(%zu exp, %zu stop, %zu invalid), %zu overlapping FDEs; %zu mismatches",
		    path, uw_table__nrows(t), uw_table__nrules(t), st->fdes, st->dbg_fdes,
		    st->rows, st->exp_rows, st->stop_rows, st->invalid_rows, st->overlaps,
		    st->mismatches);
	cr_assert_gt(st->rows, 0, "%s: readelf gave no rows", path);
	cr_assert_eq(st->mismatches, 0, "%s: %zu rows differ from readelf", path, st->mismatches);
	free(o.e);
	free(o.r);
}

/* How many table rows have rule kind k. */
static size_t count_kind(const struct uw_table *t, unsigned k)
{
	size_t n = 0;

	for (size_t i = 0; i < uw_table__nrows(t); i++)
		n += uw_table__rules(t)[uw_table__rows(t)[i].rule].kind == k;
	return n;
}

/* -- Oracle comparisons --------------------------------------------------- */

Test(unwind, fixture_omit_fp)
{
	char *dir = fixture_dir(), path[600];
	struct ostats st;
	struct uw_table *t;
	uint64_t plt, plt_len, start;
	const struct lt_uw_rule *r;

	fixture_build(dir, "omit", "-O2 -fomit-frame-pointer -fasynchronous-unwind-tables");
	snprintf(path, sizeof(path), "%s/omit", dir);
	t = table_of_file(path);
	oracle_check(t, path, &st);
	cr_assert_eq(uw_table__nbad(t), 0);

	/* glibc's _start: DW_CFA_undefined rip. */
	start = entry_of(path);
	r = uw_table__lookup(t, start);
	cr_assert(r && r->kind == LT_UW_STOP, "_start %#" PRIx64 ": %d", start, r ? r->kind : -1);
	cr_assert_geq(st.stop_rows, 1);

	/* The lazy .plt: PLT0 pushes, then ld's expression for the entries. */
	if (!scn_get(path, ".plt", &plt, &plt_len, NULL, NULL) && plt_len > 16) {
		r = uw_table__lookup(t, plt);
		cr_assert(r && r->kind == LT_UW_CFA && r->cfa_off == 16);
		for (uint64_t pc = plt + 16; pc < plt + plt_len; pc++)
			cr_assert_eq(uw_table__lookup(t, pc)->kind, LT_UW_PLT, "%#" PRIx64, pc);
	}
	uw_table__delete(t);
	sh("rm -rf %s", dir);
	free(dir);
}

Test(unwind, fixture_frame_pointer)
{
	char *dir = fixture_dir(), path[600];
	struct ostats st;
	struct uw_table *t;
	size_t rbp_rows = 0;

	fixture_build(dir, "fp", "-O2 -fno-omit-frame-pointer -fasynchronous-unwind-tables");
	snprintf(path, sizeof(path), "%s/fp", dir);
	t = table_of_file(path);
	oracle_check(t, path, &st);
	for (size_t i = 0; i < uw_table__nrows(t); i++) {
		const struct lt_uw_rule *r = &uw_table__rules(t)[uw_table__rows(t)[i].rule];

		rbp_rows += r->kind == LT_UW_CFA && r->cfa_reg == LT_UW_REG_RBP &&
			    r->cfa_off == 16 && r->rbp_off == -16;
	}
	cr_assert_geq(rbp_rows, 5, "rbp-based rows: %zu", rbp_rows);
	uw_table__delete(t);
	sh("rm -rf %s", dir);
	free(dir);
}

Test(unwind, fixture_debug_frame)
{
	char *dir = fixture_dir(), path[600], zpath[600];
	struct uw_table *t, *z;
	uint64_t addr, flags = 0;
	struct ostats st;
	size_t len;

	/* No .eh_frame for our functions: GCC writes their CFI to .debug_frame. */
	fixture_build(dir, "dbg", "-O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables");
	fixture_build(dir, "dbgz", "-O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables "
				   "-Wl,--compress-debug-sections=zlib");
	snprintf(path, sizeof(path), "%s/dbg", dir);
	snprintf(zpath, sizeof(zpath), "%s/dbgz", dir);
	cr_assert_eq(scn_get(path, ".debug_frame", &addr, &len, NULL, NULL), 0);
	cr_assert_eq(scn_get(zpath, ".debug_frame", &addr, &len, NULL, &flags), 0);
	if (!(flags & SHF_COMPRESSED))
		cr_log_warn("the linker did not compress .debug_frame");
	t = table_of_file(path);
	oracle_check(t, path, &st);
	cr_assert_geq(st.dbg_fdes, 5, ".debug_frame FDEs compared: %zu", st.dbg_fdes);
	z = table_of_file(zpath);
	cr_assert_eq(uw_table__nrows(z), uw_table__nrows(t));
	cr_assert_eq(uw_table__nrules(z), uw_table__nrules(t));
	cr_assert_arr_eq(uw_table__rows(z), uw_table__rows(t),
			 uw_table__nrows(t) * sizeof(struct lt_uw_row));
	cr_assert_arr_eq(uw_table__rules(z), uw_table__rules(t),
			 uw_table__nrules(t) * sizeof(struct lt_uw_rule));
	uw_table__delete(t);
	uw_table__delete(z);
	sh("rm -rf %s", dir);
	free(dir);
}

Test(unwind, luajit_oracle)
{
	struct uw_table *t;
	struct ostats st;
	size_t vm = 0;

	if (access(LUAJIT_PATH, R_OK) || !have("readelf"))
		cr_skip_test(LUAJIT_PATH " or readelf missing");
	t = table_of_file(LUAJIT_PATH);
	oracle_check(t, LUAJIT_PATH, &st);
	cr_assert_eq(uw_table__nbad(t), 0);
	/* The VM: one FDE, CFA = rsp+80 (CFRAME_SIZE), rbp at CFA-16, 12-20 KB long. */
	for (size_t i = 0; i + 1 < uw_table__nrows(t); i++) {
		const struct lt_uw_row *r = &uw_table__rows(t)[i];
		const struct lt_uw_rule *q = &uw_table__rules(t)[r->rule];
		uint32_t span = r[1].pc_off - r->pc_off;

		if (q->kind == LT_UW_CFA && q->cfa_reg == LT_UW_REG_RSP && q->cfa_off == 80 &&
		    q->rbp_off == -16 && span >= 12 * 1024 && span <= 20 * 1024) {
			cr_log_info("luajit VM: %#x..%#x (%u bytes)", r->pc_off, r[1].pc_off, span);
			vm++;
		}
	}
	cr_assert_eq(vm, 1, "the lj_vm FDE (found %zu)", vm);
	cr_assert_geq(count_kind(t, LT_UW_PLT), 1);
	uw_table__delete(t);
}

Test(unwind, libluajit_oracle)
{
	struct uw_table *t;
	struct ostats st;

	if (access(LIBLUAJIT_PATH, R_OK) || !have("readelf"))
		cr_skip_test(LIBLUAJIT_PATH " or readelf missing");
	t = table_of_file(LIBLUAJIT_PATH);
	oracle_check(t, LIBLUAJIT_PATH, &st);
	uw_table__delete(t);
}

Test(unwind, libc_oracle)
{
	struct uw_table *t;
	struct ostats st;

	if (!have("readelf"))
		cr_skip_test("readelf missing");
	t = table_of_file(LIBC_PATH);
	oracle_check(t, LIBC_PATH, &st);
	cr_assert_eq(uw_table__nbad(t), 0);
	cr_assert_eq(count_kind(t, LT_UW_SIGNAL), 1);
	uw_table__delete(t);
}

/* More files on request: LUATOP_ORACLE_FILES="a b c" (not run by default: slow). */
Test(unwind, oracle_extra_files)
{
	const char *env = getenv("LUATOP_ORACLE_FILES");
	char *list, *save, *path;
	size_t files = 0, failed = 0;

	if (!env || !have("readelf"))
		cr_skip_test("set LUATOP_ORACLE_FILES to compare more files with readelf");
	list = strdup(env);
	for (path = strtok_r(list, " \n", &save); path; path = strtok_r(NULL, " \n", &save)) {
		int fd = open(path, O_RDONLY);
		struct uw_table *t = fd < 0 ? NULL : uw_table__from_elf_fd(fd);
		struct ostats st;
		struct oracle o;

		if (fd >= 0)
			close(fd);
		if (!t) {
			cr_log_info("%s: %s", path, strerror(errno));
			continue;
		}
		check_invariants(t);
		oracle_load(path, &o);
		oracle_compare(t, &o, &st);
		files++;
		failed += st.mismatches != 0;
		cr_log_info("%s: %zu rows %zu rules %zu bad; readelf %zu FDEs %zu rows (%zu exp, "
			    "%zu stop, %zu invalid) %zu overlapping; %zu mismatches", path,
			    uw_table__nrows(t), uw_table__nrules(t), uw_table__nbad(t), st.fdes,
			    st.rows, st.exp_rows, st.stop_rows, st.invalid_rows, st.overlaps,
			    st.mismatches);
		free(o.e);
		free(o.r);
		uw_table__delete(t);
	}
	free(list);
	cr_log_info("%zu files compared, %zu with mismatches", files, failed);
	cr_assert_eq(failed, 0);
}

/* The kernel's view of a handler: glibc installs __restore_rt as sa_restorer. */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static void nop_handler(int sig)
{
	(void)sig;
}

Test(unwind, libc_signal_and_plt)
{
	struct sigaction sa = { .sa_handler = nop_handler };
	struct ksigaction k;
	struct uw_table *t;
	const struct lt_uw_rule *r;
	uint64_t plt, plt_len, rt;
	Dl_info info;

	cr_assert_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	cr_assert_eq(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, 8), 0);
	cr_assert(k.flags & 0x04000000, "SA_RESTORER");
	cr_assert(dladdr(k.restorer, &info) && info.dli_fname);
	if (!strstr(info.dli_fname, "libc.so.6"))
		cr_skip_test("restorer in %s", info.dli_fname);
	rt = (uint64_t)(uintptr_t)k.restorer - (uint64_t)(uintptr_t)info.dli_fbase;
	t = table_of_file(LIBC_PATH);
	r = uw_table__lookup(t, rt);
	cr_assert(r && r->kind == LT_UW_SIGNAL, "__restore_rt at %#" PRIx64 ": %d", rt,
		  r ? r->kind : -1);
	/* The FDE starts one byte early, so a return address there also finds it. */
	cr_assert_eq(uw_table__lookup(t, rt - 1)->kind, LT_UW_SIGNAL);
	cr_log_info("libc __restore_rt at %#" PRIx64, rt);

	cr_assert_eq(scn_get(LIBC_PATH, ".plt", &plt, &plt_len, NULL, NULL), 0);
	cr_assert_gt(plt_len, 16);
	r = uw_table__lookup(t, plt);
	cr_assert(r && r->kind == LT_UW_CFA && r->cfa_reg == LT_UW_REG_RSP && r->cfa_off == 16);
	r = uw_table__lookup(t, plt + 6);
	cr_assert(r && r->kind == LT_UW_CFA && r->cfa_off == 24);
	for (uint64_t pc = plt + 16; pc < plt + plt_len; pc++)
		cr_assert_eq(uw_table__lookup(t, pc)->kind, LT_UW_PLT, "%#" PRIx64, pc);
	uw_table__delete(t);
}

Test(unwind, vdso_from_memory)
{
	const void *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	char line[512], path[] = "/tmp/luatop-vdso-XXXXXX";
	unsigned long s = 0, e = 0;
	struct uw_table *t;
	struct ostats st;
	FILE *f;
	int fd;

	if (!base)
		cr_skip_test("no vDSO");
	f = fopen("/proc/self/maps", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%lx-%lx", &s, &e);
	fclose(f);
	cr_assert_eq(s, (unsigned long)(uintptr_t)base);
	t = uw_table__from_elf_mem(base, e - s);
	if (!t && errno == ENODATA)
		cr_skip_test("this vDSO has no CFI");
	cr_assert_not_null(t, "%s", strerror(errno));
	check_invariants(t);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, base, e - s), (ssize_t)(e - s));
	close(fd);
	if (have("readelf"))
		oracle_check(t, path, &st);
	unlink(path);
	uw_table__delete(t);
}

/* -- Errors and hostile input --------------------------------------------- */

Test(unwind, elf_errors)
{
	static const char text[] = "not an ELF file at all\n";
	char *dir, path[600];
	struct uw_table *t;
	int fd;

	fd = open("/dev/null", O_RDONLY);
	errno = 0;
	cr_assert_null(uw_table__from_elf_fd(fd));
	cr_assert_eq(errno, EINVAL);
	close(fd);
	errno = 0;
	cr_assert_null(uw_table__from_elf_fd(-1));
	cr_assert_eq(errno, EBADF);
	errno = 0;
	cr_assert_null(uw_table__from_elf_mem(text, sizeof(text)));
	cr_assert_eq(errno, ENOEXEC);
	errno = 0;
	cr_assert_null(uw_table__from_elf_mem(NULL, 0));
	cr_assert_eq(errno, ENOEXEC);

	dir = fixture_dir();
	if (!have("objcopy"))
		cr_skip_test("objcopy missing");
	fixture_build(dir, "fx", "-O2");
	cr_assert_eq(sh("objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr "
			"%s/fx %s/nocfi", dir, dir), 0);
	snprintf(path, sizeof(path), "%s/nocfi", dir);
	fd = open(path, O_RDONLY);
	errno = 0;
	cr_assert_null(uw_table__from_elf_fd(fd));
	cr_assert_eq(errno, ENODATA);
	close(fd);
	/* A 32-bit-looking header: flip EI_CLASS. */
	cr_assert_eq(sh("cp %s/fx %s/c32 && printf '\\001' | dd of=%s/c32 bs=1 seek=4 "
			"conv=notrunc status=none", dir, dir, dir), 0);
	snprintf(path, sizeof(path), "%s/c32", dir);
	fd = open(path, O_RDONLY);
	errno = 0;
	t = uw_table__from_elf_fd(fd);
	cr_assert_null(t);
	cr_assert_eq(errno, ENOEXEC);
	close(fd);
	sh("rm -rf %s", dir);
	free(dir);
}

/* Deterministic xorshift for the mutation loops. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Parse one mutated buffer; nothing may crash, the result must stay well-formed. */
static void parse_mutant(const uint8_t *p, size_t len, uint64_t vaddr, int is_eh)
{
	struct uw_table *t = uw_table__new();
	int err;

	cr_assert_not_null(t);
	err = uw_table__add_section(t, p, len, vaddr, is_eh);
	cr_assert(err == 0 || err == -EOVERFLOW, "err %d", err);
	if (!err) {
		cr_assert_eq(uw_table__finish(t), 0);
		check_invariants(t);
		(void)uw_table__lookup(t, vaddr);
	}
	uw_table__delete(t);
}

Test(unwind, libc_mutations)
{
	uint8_t *orig, *buf;
	uint64_t vaddr, seed = 0x5eed1e5beefull;
	size_t len;

	cr_assert_eq(scn_get(LIBC_PATH, ".eh_frame", &vaddr, &len, &orig, NULL), 0);
	buf = malloc(len);
	cr_assert_not_null(buf);
	/* Whole section, a few bytes changed: every FDE is still reached. */
	for (int i = 0; i < 400; i++) {
		unsigned nmut = 1 + (unsigned)(rnd(&seed) % 8);

		memcpy(buf, orig, len);
		for (unsigned m = 0; m < nmut; m++)
			buf[rnd(&seed) % len] = (uint8_t)rnd(&seed);
		parse_mutant(buf, len, vaddr, (int)(rnd(&seed) % 8 != 0));
	}
	/* Short random slices of it, mutated harder and cut anywhere: exact-size heap
	   copies, so ASan sees any read past the end. */
	for (int i = 0; i < 4000; i++) {
		size_t off = (rnd(&seed) % 4) ? 0 : (size_t)(rnd(&seed) % len);
		size_t n = 1 + (size_t)(rnd(&seed) % 2048);
		unsigned nmut = (unsigned)(rnd(&seed) % 16);
		uint8_t *p;

		if (n > len - off)
			n = len - off;
		p = malloc(n);
		cr_assert_not_null(p);
		memcpy(p, orig + off, n);
		for (unsigned m = 0; m < nmut; m++)
			p[rnd(&seed) % n] = (uint8_t)rnd(&seed);
		parse_mutant(p, n, vaddr + off, (int)(rnd(&seed) % 8 != 0));
		free(p);
	}
	free(buf);
	free(orig);
}

/* -- Functions by FDE (unwind/funcs.c) ----------------------------------- */

#include <link.h>
#include <fcntl.h>
#include <unistd.h>

#include "unwind/funcs.h"

/* A function of our own, with an FDE of its own. */
__attribute__((noinline)) int funcs_probe(int x);
__attribute__((noinline)) int funcs_probe(int x)
{
	return x * 3 + 1;
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;	/* the first object is the executable */
}

Test(funcs, names_addresses_by_their_function)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct uw_funcs *f;
	uint64_t bias = 0, start = 0, fn;

	cr_assert_geq(fd, 0);
	f = uw_funcs__from_elf_fd(fd);
	close(fd);
	cr_assert_not_null(f);
	cr_assert_gt(uw_funcs__count(f), 100);
	dl_iterate_phdr(first_bias, &bias);
	fn = (uint64_t)(uintptr_t)&funcs_probe - bias;
	cr_assert_eq(uw_funcs__start_of(f, fn, &start), 0);
	cr_assert_eq(start, fn, "an FDE starts at the function");
	cr_assert_eq(uw_funcs__start_of(f, fn + 2, &start), 0);
	cr_assert_eq(start, fn, "an address inside it names its start");
	cr_assert_eq(uw_funcs__start_of(f, 0, &start), -ENOENT);
	uw_funcs__delete(f);
	cr_assert_null(uw_funcs__from_elf_mem("not an ELF file", 15));
}

Test(funcs, pure_core)
{
	struct uw_funcs *f = uw_funcs__new();
	uint64_t start;

	cr_assert_not_null(f);
	cr_assert_eq(uw_funcs__add_section(f, NULL, 0, 0, 1), 0);
	cr_assert_eq(uw_funcs__finish(f), 0);
	cr_assert_eq(uw_funcs__finish(f), -EINVAL);
	cr_assert_eq(uw_funcs__count(f), 0);
	cr_assert_eq(uw_funcs__start_of(f, 0x1000, &start), -ENOENT);
	cr_assert_eq(uw_funcs__add_section(f, NULL, 0, 0, 1), -EINVAL, "finished");
	uw_funcs__delete(f);
}
