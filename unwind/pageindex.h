/*
** The page index of a file's unwind rows: for each block of 1 << shift bytes
** of its code, the rows that can cover a pc in it. The sampler's binary search
** for a rule (unwind/lookup.h) then runs over the few rows of one block instead
** of all the file's: each step reads a row from a cold part of a large array
** (~100-150 ns here), and a search over libluajit's or libc's rows took 13 to
** 16 of them; a memo miss cost ~1.5-2 us.
**
** Written once: user space builds the index (lt_pidx_build), the sampler
** narrows its search with it (lt_pidx_narrow); the replayer searches all
** rows, which gives the same row.
**
**   first(p) = the last row r with rows[r].pc_off <= (page + p) << shift, or 0
**   block p = { first(p), first(p + 1) }: a pc_off in it has its row in there
*/
#ifndef LUATOP_UNWIND_PAGEINDEX_H
#define LUATOP_UNWIND_PAGEINDEX_H

#include "wire/luatop.h"

#define LT_PIDX_SHIFT_MIN	8	/* 256-byte blocks: a few rows each */
#define LT_PIDX_SHIFT_MAX	16
#define LT_PIDX_MAX_BLOCKS	65536	/* per file: coarser blocks beyond */

/*
** The index of n rows (sorted by pc_off), at the finest block size that keeps
** it within LT_PIDX_MAX_BLOCKS and cap: into out[], its geometry into m
** (pidx_n, pidx_page, pidx_shift; pidx_n 0 when it does not fit). Returns the
** blocks written.
*/
static inline __u32 lt_pidx_build(const struct lt_uw_row *rows, __u32 n, struct lt_uw_pidx *out,
				  __u32 cap, struct lt_uw_mapping *m)
{
	__u32 shift = LT_PIDX_SHIFT_MIN, first, blocks, r = 0, prev = 0;

	m->pidx_n = 0;
	if (!n)
		return 0;
	for (;; shift++) {
		first = rows[0].pc_off >> shift;
		blocks = (rows[n - 1].pc_off >> shift) - first + 1;
		if (blocks <= LT_PIDX_MAX_BLOCKS || shift == LT_PIDX_SHIFT_MAX)
			break;
	}
	if (blocks > LT_PIDX_MAX_BLOCKS || blocks > cap)
		return 0;
	for (__u32 p = 0; p <= blocks; p++) {
		__u64 bound = (__u64)(first + p) << shift;

		while (r + 1 < n && rows[r + 1].pc_off <= bound)
			r++;
		if (p)
			out[p - 1] = (struct lt_uw_pidx){ .lo = prev, .hi = r };
		prev = r;
	}
	m->pidx_n = blocks;
	m->pidx_page = first;
	m->pidx_shift = (__u8)shift;
	return blocks;
}

/* The index block of key in m (absolute, into the index array), or -1 when m
** has no index or key is outside it. */
static inline __attribute__((always_inline)) __s64
lt_pidx_block(const struct lt_uw_mapping *m, __u32 key)
{
	__u32 blk = key >> (m->pidx_shift & 31);

	if (!m->pidx_n || blk < m->pidx_page || blk - m->pidx_page >= m->pidx_n)
		return -1;
	return (__s64)m->pidx_start + (blk - m->pidx_page);
}

/* Narrow a search of m's rows to [*lo, *hi) (relative to row_start) with the
** block b of its key. Leaves the bounds when it does not fit: a broken index
** must not hide the row. */
static inline __attribute__((always_inline)) void
lt_pidx_narrow(const struct lt_uw_mapping *m, const struct lt_uw_pidx *b, __u32 *lo, __u32 *hi)
{
	if (b->lo <= b->hi && b->hi < m->row_count) {
		*lo = b->lo;
		*hi = b->hi + 1;
	}
}

#endif
