/*
** libFuzzer entry point for the .eh_frame/.debug_frame compiler (unwind/ehframe.c).
**
**   clang -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_ehframe.c \
**         unwind/cfa.c unwind/ehframe.c -lelf -lz -o /tmp/fe
**   /tmp/fe -max_total_time=60
**
** Seeds: tests/fuzz/corpus/ehframe (made by tests/fuzz/mkseeds.py: /usr/bin/true's
** .eh_frame whole and split, a small program's .debug_frame, the LuaJIT VM's
** entries). More real sections, e.g.
**   objcopy -O binary --only-section=.eh_frame /lib/x86_64-linux-gnu/libc.so.6 seed
** (the first 5 bytes of an input are the header below, so prefix 5 zero bytes, or
** 01 and the section's address for .eh_frame).
**
** Input: flags (1 byte), section vaddr (4 bytes, LE), section bytes. flags bit 0:
** .eh_frame (else .debug_frame); bit 1: split the bytes at (flags >> 2)/64 of
** their length into a second section of the other kind (overlap resolution).
** Besides memory safety, every finished table is checked for its invariants.
*/

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/ehframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort() unless the finished table keeps the invariants ehframe.h promises. */
static void check(const struct uw_table *t)
{
	const struct lt_uw_row *r = uw_table__rows(t);
	const struct lt_uw_rule *ru = uw_table__rules(t);
	size_t n = uw_table__nrows(t), nr = uw_table__nrules(t);

	if (nr < 1 || ru[0].kind != LT_UW_INVALID)
		abort();
	for (size_t i = 0; i < nr; i++) {
		if (ru[i].kind >= LT_UW_KIND__COUNT)
			abort();
		if (ru[i].kind == LT_UW_CFA && ru[i].cfa_reg != LT_UW_REG_RSP &&
		    ru[i].cfa_reg != LT_UW_REG_RBP)
			abort();
		if (ru[i].kind != LT_UW_CFA && (ru[i].cfa_reg || ru[i].cfa_off || ru[i].rbp_off))
			abort();	/* non-CFA rules are canonical, or dedupe breaks */
	}
	if (!n)
		return;
	if (ru[r[n - 1].rule].kind != LT_UW_INVALID)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (r[i].rule >= nr)
			abort();
		if (i && (r[i - 1].pc_off >= r[i].pc_off || r[i - 1].rule == r[i].rule))
			abort();
		if (uw_table__lookup(t, r[i].pc_off) != &ru[r[i].rule])
			abort();
	}
}

/* One input: see the header comment. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uw_table *t;
	uint32_t vaddr;
	uint8_t flags;
	size_t split;
	uint8_t *a, *b;
	int err;

	if (size < 5)
		return 0;
	flags = data[0];
	memcpy(&vaddr, data + 1, 4);
	data += 5;
	size -= 5;
	split = flags & 2 ? size * (size_t)(flags >> 2) / 64 : size;
	/* Exact-size copies, so ASan catches a read one byte past either section. */
	a = malloc(split ? split : 1);
	b = malloc(size - split ? size - split : 1);
	if (!a || !b)
		abort();
	memcpy(a, data, split);
	memcpy(b, data + split, size - split);
	t = uw_table__new();
	if (!t)
		abort();
	err = uw_table__add_section(t, a, split, vaddr, flags & 1);
	if (!err && split < size)
		err = uw_table__add_section(t, b, size - split, vaddr + split, !(flags & 1));
	if (err && err != -EOVERFLOW && err != -ENOMEM)
		abort();
	if (!err) {
		if (uw_table__finish(t))
			abort();
		check(t);
	}
	uw_table__delete(t);
	free(a);
	free(b);
	return 0;
}
