/*
** Rule lookup for a pc: which mapping, which row, which rule. Written once for
** the BPF sampler and the user-space replayer, like unwind/step.h.
**
** Both searches are binary searches written as one step per call: the BPF side
** drives them with bpf_loop(), because the verifier explores an unrolled search
** path by path and gives up (1M instructions) long before 24 steps; user space
** drives them with a plain loop.
**
** The includer defines, before including this file:
**   LT_INLINE
**   LT_UW_PROC(ctx, slot) -> const struct lt_uw_proc * or NULL
**   LT_UW_ROW(ctx, idx)   -> const struct lt_uw_row * or NULL
**   LT_UW_RULE(ctx, idx)  -> const struct lt_uw_rule * or NULL
**   LT_UW_LOOP(n, cb, state) -> call cb(i, state) for i < n until it returns non-zero
** and may define LT_UW_NARROW(ctx, m, key, lo, hi), which narrows the row
** search of key in mapping m to rows [*lo, *hi) with its page index
** (unwind/pageindex.h; the sampler does, the replayer searches all rows), and
** LT_UW_MAP_STEPS(s), LT_UW_ROW_STEPS(s) together: a loop call's steps of each
** search, run by a function of its own (the sampler's are verified once).
** ctx is the includer's (NULL in BPF); it travels inside the search states as a
** number, because BPF callbacks only get one pointer.
*/
#ifndef LUATOP_UNWIND_LOOKUP_H
#define LUATOP_UNWIND_LOOKUP_H

#include "wire/luatop.h"

#ifndef LT_UW_NARROW
#define LT_UW_NARROW(ctx, m, key, lo, hi) ((void)0)
#endif

#define LT_MAPPING_BSEARCH	9	/* steps: log2(LT_MAX_MAPPINGS) + 1 */
#define LT_ROW_BSEARCH		24	/* steps: enough for 2^23 rows per file */
#define LT_SEARCH_UNROLL	4	/* steps per loop callback: fewer calls, and
					   still few enough paths for the verifier */
#define LT_SEARCH_CALLS(steps)	(((steps) + LT_SEARCH_UNROLL - 1) / LT_SEARCH_UNROLL)

/* State of the search for the mapping that contains pc. */
struct lt_map_search {
	__u64 ctx;		/* the includer's ctx */
	__u64 pc;
	__u32 slot;		/* the process's uw_procs slot */
	__u32 lo, hi;		/* candidates: m[lo, hi) */
	__s32 found;		/* the index, or -1 */
};

/* State of the search for the last row with pc_off <= key in [start, start+n). */
struct lt_row_search {
	__u64 ctx;		/* the includer's ctx */
	__u32 start;
	__u32 lo, hi;		/* candidates: rows start + [lo, hi) */
	__u32 key;
	__s64 found;		/* absolute row index, or -1 */
};

#define LT_UW_CTX(s)	((void *)(unsigned long)(s)->ctx)

/* One step of the mapping search; non-zero when done. */
static LT_INLINE int lt_uw_map_search_step(const struct lt_uw_proc *p, struct lt_map_search *s)
{
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	if (mid >= LT_MAX_MAPPINGS) {
		s->lo = s->hi;
		return 1;
	}
	if (s->pc < p->m[mid].start) {
		s->hi = mid;
	} else if (s->pc >= p->m[mid].end) {
		s->lo = mid + 1;
	} else {
		s->found = (__s32)mid;
		s->lo = s->hi;
	}
	return s->lo >= s->hi;
}

/* One step of the row search; non-zero when done. */
static LT_INLINE int lt_uw_row_search_step(void *ctx, struct lt_row_search *s)
{
	const struct lt_uw_row *row;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	row = LT_UW_ROW(ctx, s->start + mid);
	if (!row) {
		s->found = -1;
		s->lo = s->hi;
		return 1;
	}
	if (row->pc_off <= s->key) {
		s->found = (__s64)s->start + mid;
		s->lo = mid + 1;
	} else {
		s->hi = mid;
	}
	return s->lo >= s->hi;
}

/* One loop call's steps of each search (LT_SEARCH_UNROLL): non-zero when done. */
static LT_INLINE int lt_uw_map_steps(struct lt_map_search *s)
{
	const struct lt_uw_proc *p = LT_UW_PROC(LT_UW_CTX(s), s->slot);

	if (!p)
		return 1;
	for (int k = 0; k < LT_SEARCH_UNROLL; k++)
		if (lt_uw_map_search_step(p, s))
			return 1;
	return 0;
}

static LT_INLINE int lt_uw_row_steps(struct lt_row_search *s)
{
	for (int k = 0; k < LT_SEARCH_UNROLL; k++)
		if (lt_uw_row_search_step(LT_UW_CTX(s), s))
			return 1;
	return 0;
}

#ifndef LT_UW_MAP_STEPS
#define LT_UW_MAP_STEPS(s) lt_uw_map_steps(s)
#define LT_UW_ROW_STEPS(s) lt_uw_row_steps(s)
#endif

static long lt_uw_map_cb(__u32 i, void *arg)
{
	return LT_UW_MAP_STEPS((struct lt_map_search *)arg) != 0;
}

static long lt_uw_row_cb(__u32 i, void *arg)
{
	return LT_UW_ROW_STEPS((struct lt_row_search *)arg) != 0;
}

/* The rule of the row the search found: LT_STOP__COUNT, or why there is none. */
static LT_INLINE int lt_uw_rule_of(void *ctx, const struct lt_row_search *s,
				   struct lt_uw_rule *out)
{
	const struct lt_uw_row *row;
	const struct lt_uw_rule *rule;

	if (s->found < 0 || s->lo < s->hi)	/* not found, or ran out of steps */
		return LT_STOP_NO_RULE;
	row = LT_UW_ROW(ctx, (__u32)s->found);
	if (!row)
		return LT_STOP_NO_RULE;
	rule = LT_UW_RULE(ctx, row->rule);
	if (!rule)
		return LT_STOP_BAD_RULE;
	*out = *rule;
	return rule->kind == LT_UW_INVALID ? LT_STOP_NO_RULE : LT_STOP__COUNT;
}

/*
** The mapping that contains pc in the process at slot, copied into *out.
** LT_STOP__COUNT, or why there is none.
*/
static LT_INLINE int lt_uw_find_mapping(void *ctx, __u32 slot, __u64 pc, struct lt_uw_mapping *out)
{
	struct lt_map_search ms = { .ctx = (unsigned long)ctx, .pc = pc, .slot = slot,
				    .found = -1 };
	const struct lt_uw_proc *p = LT_UW_PROC(ctx, slot);

	if (!p || !p->n)
		return LT_STOP_NO_PROC;
	ms.hi = p->n < LT_MAX_MAPPINGS ? p->n : LT_MAX_MAPPINGS;
	LT_UW_LOOP(LT_SEARCH_CALLS(LT_MAPPING_BSEARCH), lt_uw_map_cb, &ms);
	if (ms.found < 0 || ms.found >= LT_MAX_MAPPINGS)
		return LT_STOP_NO_MAPPING;
	p = LT_UW_PROC(ctx, slot);	/* re-fetch: the verifier forgets it across calls */
	if (!p)
		return LT_STOP_NO_PROC;
	*out = p->m[ms.found & (LT_MAX_MAPPINGS - 1)];
	return LT_STOP__COUNT;
}

/*
** The rule for pc in its mapping m. Returns LT_STOP__COUNT and fills *out, or
** the reason there is none. *row gets the row used (-1 for none or the
** frame-pointer fallback), for fixtures.
*/
static LT_INLINE int lt_uw_mapping_rule(void *ctx, const struct lt_uw_mapping *m, __u64 pc,
					struct lt_uw_rule *out, __s64 *row)
{
	struct lt_row_search rs = { .ctx = (unsigned long)ctx, .found = -1 };
	__u64 off;

	*row = -1;
	if (!m->row_count) {
		/* Code without unwind info (JIT, no CFI): flagged fallback. */
		*out = (struct lt_uw_rule){ .kind = LT_UW_FP };
		return LT_STOP__COUNT;
	}
	off = pc - m->bias;
	if (off > 0xffffffffull)
		return LT_STOP_NO_RULE;
	rs.start = m->row_start;
	rs.hi = m->row_count;
	rs.key = (__u32)off;
	LT_UW_NARROW(ctx, m, rs.key, &rs.lo, &rs.hi);
	LT_UW_LOOP(LT_SEARCH_CALLS(LT_ROW_BSEARCH), lt_uw_row_cb, &rs);
	*row = rs.found;
	return lt_uw_rule_of(ctx, &rs, out);
}

/*
** The pcs of mapping m that get the answer pc got from lt_uw_mapping_rule (row:
** the row it used), as [*lo, *hi): its row's span, from the row's pc_off to
** the next row's (to m's end, or as far as 32-bit offsets reach, for the last
** row), or all of m when m has no rows
** (the frame-pointer fallback). [pc, pc + 1) when no row was found. For the
** sampler's memo: a leaf's pc moves about a loop from one sample to the next,
** but mostly inside one row.
*/
static LT_INLINE void lt_uw_rule_span(void *ctx, const struct lt_uw_mapping *m, __s64 row,
				      __u64 pc, __u64 *lo, __u64 *hi)
{
	const struct lt_uw_row *r;
	__u64 a, b = m->end;

	*lo = pc;
	*hi = pc + 1;
	if (!m->row_count) {
		*lo = m->start;
		*hi = m->end;
		return;
	}
	if (row < (__s64)m->row_start || row >= (__s64)m->row_start + m->row_count)
		return;
	r = LT_UW_ROW(ctx, (__u32)row);
	if (!r)
		return;
	a = m->bias + r->pc_off;
	if (row + 1 < (__s64)m->row_start + m->row_count) {
		r = LT_UW_ROW(ctx, (__u32)row + 1);
		if (!r)
			return;
		b = m->bias + r->pc_off;
	}
	if (a < m->start)
		a = m->start;
	if (b > m->end)
		b = m->end;
	if (b > m->bias + 0x100000000ull)	/* the search's keys are 32-bit offsets */
		b = m->bias + 0x100000000ull;
	if (a <= pc && pc < b) {	/* always, unless the tables are broken */
		*lo = a;
		*hi = b;
	}
}

/*
** The rule for pc (already adjusted by lt_uw_lookup_pc) in the process at slot.
** Returns LT_STOP__COUNT and fills *out, or the reason there is none. *row gets
** the row used (-1 for none or the frame-pointer fallback), for fixtures.
*/
static LT_INLINE int lt_uw_find_rule(void *ctx, __u32 slot, __u64 pc,
				     struct lt_uw_rule *out, __s64 *row)
{
	struct lt_uw_mapping m;
	int rc;

	*row = -1;
	rc = lt_uw_find_mapping(ctx, slot, pc, &m);
	return rc == LT_STOP__COUNT ? lt_uw_mapping_rule(ctx, &m, pc, out, row) : rc;
}

#endif
