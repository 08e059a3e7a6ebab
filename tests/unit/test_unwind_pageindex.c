/*
** unwind/pageindex.h: a row search narrowed by the page index finds the row
** the search over all rows finds, on synthetic rows and on libc's.
** unwind/lookup.h's lt_uw_rule_span: every pc of a row's span gets that row.
*/
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "unwind/ehframe.h"
#include "unwind/pageindex.h"

static const struct lt_uw_row *t_rows;
static const struct lt_uw_pidx *t_idx;
static int t_narrow;	/* search with the index */

static const struct lt_uw_row *row_at(__u32 i)
{
	return &t_rows[i];
}

static const struct lt_uw_rule *rule_at(__u32 i)
{
	static const struct lt_uw_rule r = { .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 8 };

	(void)i;
	return &r;
}

static void narrow(const struct lt_uw_mapping *m, __u32 key, __u32 *lo, __u32 *hi)
{
	__s64 i = lt_pidx_block(m, key);

	if (t_narrow && i >= 0)
		lt_pidx_narrow(m, &t_idx[i], lo, hi);
}

#define LT_INLINE inline
#define LT_UW_ROW(ctx, idx) row_at(idx)
#define LT_UW_RULE(ctx, idx) rule_at(idx)
#define LT_UW_PROC(ctx, slot) ((const struct lt_uw_proc *)NULL)
#define LT_UW_LOOP(n, cb, state) \
	do { for (__u32 _i = 0; _i < (n) && !(cb)(_i, (state)); _i++) ; } while (0)
#define LT_UW_NARROW(ctx, m, key, lo, hi) narrow((m), (key), (lo), (hi))
#include "unwind/lookup.h"

/* The row of key, with and without the index. */
static void same_row(const struct lt_uw_mapping *m, __u32 key)
{
	struct lt_uw_rule rule;
	__s64 full, fast;

	t_narrow = 0;
	lt_uw_mapping_rule(NULL, m, m->bias + key, &rule, &full);
	t_narrow = 1;
	lt_uw_mapping_rule(NULL, m, m->bias + key, &rule, &fast);
	cr_assert_eq(fast, full, "key 0x%x: row %lld with the index, %lld without", key,
		     (long long)fast, (long long)full);
}

/* The span of the row of pc holds pc, and its first and last pcs get that row. */
static void span_holds(const struct lt_uw_mapping *m, __u64 pc)
{
	struct lt_uw_rule rule;
	__s64 row, r2;
	__u64 lo, hi;

	t_narrow = 1;
	lt_uw_mapping_rule(NULL, m, pc, &rule, &row);
	lt_uw_rule_span(NULL, m, row, pc, &lo, &hi);
	cr_assert(lo <= pc && pc < hi, "pc 0x%llx outside its span [0x%llx, 0x%llx)",
		  (unsigned long long)pc, (unsigned long long)lo, (unsigned long long)hi);
	if (row < 0) {
		cr_assert_eq(hi - lo, 1, "no row: the span is pc alone");
		return;
	}
	lt_uw_mapping_rule(NULL, m, lo, &rule, &r2);
	cr_assert_eq(r2, row, "span start 0x%llx: row %lld, want %lld", (unsigned long long)lo,
		     (long long)r2, (long long)row);
	lt_uw_mapping_rule(NULL, m, hi - 1, &rule, &r2);
	cr_assert_eq(r2, row, "span end 0x%llx: row %lld, want %lld", (unsigned long long)hi - 1,
		     (long long)r2, (long long)row);
	if (hi < m->end) {
		lt_uw_mapping_rule(NULL, m, hi, &rule, &r2);
		cr_assert_neq(r2, row, "the span ends before its row does");
	}
}

/* Index rows[0, n) into m and the test's index array. */
static void index_rows(const struct lt_uw_row *rows, __u32 n, struct lt_uw_mapping *m)
{
	static struct lt_uw_pidx idx[LT_PIDX_MAX_BLOCKS];

	*m = (struct lt_uw_mapping){ .start = 0x10000, .end = 1ull << 40, .bias = 0x10000,
				     .row_count = n };
	t_rows = rows;
	t_idx = idx;
	cr_assert_gt(lt_pidx_build(rows, n, idx, LT_PIDX_MAX_BLOCKS, m), 0);
}

Test(pageindex, synthetic_rows_every_key)
{
	struct lt_uw_row rows[64];
	struct lt_uw_mapping m;
	__u32 pc = 0x1000;

	for (unsigned i = 0; i < 64; i++) {
		rows[i] = (struct lt_uw_row){ .pc_off = pc, .rule = i & 1 };
		pc += 1 + (i * 37) % 700;	/* several rows in some blocks, none in others */
	}
	index_rows(rows, 64, &m);
	cr_assert_eq(m.pidx_shift, LT_PIDX_SHIFT_MIN);
	for (__u32 key = 0; key < pc + 1024; key++) {
		same_row(&m, key);
		span_holds(&m, m.bias + key);
	}
}

Test(pageindex, a_mapping_without_rows_is_one_span)
{
	struct lt_uw_mapping m = { .start = 0x7000, .end = 0x9000, .bias = 0 };
	__u64 lo, hi;

	lt_uw_rule_span(NULL, &m, -1, 0x7123, &lo, &hi);
	cr_assert_eq(lo, 0x7000);
	cr_assert_eq(hi, 0x9000);
}

Test(pageindex, a_large_file_gets_coarser_blocks)
{
	static struct lt_uw_row rows[4];
	static struct lt_uw_pidx idx[LT_PIDX_MAX_BLOCKS];
	struct lt_uw_mapping m = { 0 };

	rows[0].pc_off = 0x1000;
	rows[1].pc_off = 0x2000;
	rows[2].pc_off = 0x40000000;	/* 1 GB of code: 256-byte blocks would be 4M */
	rows[3].pc_off = 0x40000100;
	cr_assert_gt(lt_pidx_build(rows, 4, idx, LT_PIDX_MAX_BLOCKS, &m), 0);
	cr_assert_gt(m.pidx_shift, LT_PIDX_SHIFT_MIN);
	cr_assert_leq(m.pidx_n, LT_PIDX_MAX_BLOCKS);
	cr_assert_eq(lt_pidx_build(rows, 4, idx, 3, &m), 0, "no room: no index");
	cr_assert_eq(m.pidx_n, 0);
}

Test(pageindex, libc_rows_at_random_keys)
{
	const char *paths[] = { "/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	struct uw_table *u = NULL;
	struct lt_uw_mapping m;
	const struct lt_uw_row *rows;
	__u32 n;

	for (unsigned i = 0; i < 2 && !u; i++) {
		int fd = open(paths[i], O_RDONLY);

		if (fd >= 0) {
			u = uw_table__from_elf_fd(fd);
			close(fd);
		}
	}
	if (!u)
		cr_skip_test("no libc.so.6 to read");
	rows = uw_table__rows(u);
	n = (__u32)uw_table__nrows(u);
	index_rows(rows, n, &m);
	srand(7);
	for (int k = 0; k < 200000; k++) {
		__u32 key = rows[0].pc_off - 64 + (__u32)rand() % (rows[n - 1].pc_off - rows[0].pc_off + 128);

		same_row(&m, key);
		span_holds(&m, m.bias + key);
	}
	for (__u32 i = 0; i < n; i++) {	/* every row's first and last byte */
		same_row(&m, rows[i].pc_off);
		same_row(&m, rows[i].pc_off - 1);
	}
	uw_table__delete(u);
}
