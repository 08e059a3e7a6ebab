/*
** Windows: parts of the target's memory the sampler copies once per sample,
** so that the walk's reads inside them are loads from the copy. A user read
** costs ~130 ns on this VM whatever its size up to a page, while the copy
** costs by the bytes it writes into the sampler's (cold) buffer: an 8 KB copy
** of the stack cost 0.3-2 us a sample, a fifth of a native sample's time, for
** stacks whose frames span 300 bytes to 2 KB (docs/PERFORMANCE.md). So a
** window copies as much as the windows of the last samples were read, learned
** per CPU, and reads outside it are plain reads.
**
** Pure arithmetic, shared by the sampler and its unit tests. A stack window
** starts at a read of the walk and goes up (the sampler copies one more where
** a read falls above it: frames beyond a large one); the Lua window ends at
** the running frame's base and goes down.
*/
#ifndef LUATOP_WALK_WINDOW_H
#define LUATOP_WALK_WINDOW_H

#include <linux/types.h>

#define LT_WIN_PAGE		4096
#define LT_WIN_PARTS		2	/* reads per stack window: each stays in one page */
#define LT_WIN_STACK_MAX	4096	/* bytes of stack a window copies at most */
#define LT_WIN_STACK_MIN	256	/* ... at least (a leaf and a few callers) */
#define LT_WIN_LUA_MAX		1024	/* bytes of the Lua stack copied at most */
#define LT_WIN_LUA_MIN		128	/* ... at least (the top frame and its caller) */
#define LT_WIN_MARGIN		128	/* copied beyond what the last walk reached */
#define LT_WIN_ROUND		64	/* sizes are multiples of this */

/* A stack window: from lo, in reads of part[i] bytes each, one after the other. */
struct lt_win_plan {
	__u64 lo;
	__u32 part[LT_WIN_PARTS];
};

/* What to copy of a stack from addr for a window of want bytes (clamped to
** [LT_WIN_STACK_MIN, LT_WIN_STACK_MAX]): a read that reached into an unmapped
** page (above the stack's top) would fail whole, so no read crosses a page
** (and one that does costs ~4.5 us here even when it succeeds, against ~0.1-0.3
** for the two parts: docs/PERFORMANCE.md, 2026-12-06). */
static inline __attribute__((always_inline)) void
lt_win_stack_plan(struct lt_win_plan *p, __u64 addr, __u32 want)
{
	__u32 left, n;

	if (want < LT_WIN_STACK_MIN)
		want = LT_WIN_STACK_MIN;
	if (want > LT_WIN_STACK_MAX)
		want = LT_WIN_STACK_MAX;
	p->lo = addr & ~7ull;
	left = want;
	n = LT_WIN_PAGE - (__u32)(p->lo & (LT_WIN_PAGE - 1));	/* to sp's page end: 8..4096 */
	for (int i = 0; i < LT_WIN_PARTS; i++) {
		if (n > left)
			n = left;
		p->part[i] = n;
		left -= n;
		n = LT_WIN_PAGE;
	}
}

/* The bytes of a planned window that hold copies: its reads up to the first
** that failed (rc: 0 or -errno). Without branches: the sampler's verifier
** would explore the rest of the program once per outcome. */
static inline __attribute__((always_inline)) __u32
lt_win_valid(const struct lt_win_plan *p, long rc0, long rc1)
{
	__u32 ok0 = ~(__u32)(rc0 >> 63), ok1 = ok0 & ~(__u32)(rc1 >> 63);

	return (p->part[0] & ok0) + (p->part[1] & ok1);
}

/*
** The next window's size, from the one before (want) and what the walk read
** of this one (reach bytes from its start): at once as large as this one was
** read with a margin, and down by an eighth of the difference when less of it
** was, so that a thread that alternates between deep and shallow stacks keeps
** the deep one's size. Clamped to max.
*/
static inline __attribute__((always_inline)) __u32
lt_win_learn(__u32 want, __u64 reach, __u32 max)
{
	__u64 need = reach + LT_WIN_MARGIN;

	if (need > max)
		need = max;
	need = (need + LT_WIN_ROUND - 1) & ~(__u64)(LT_WIN_ROUND - 1);
	return need >= want ? (__u32)need : want - (want - (__u32)need + 7) / 8;
}

/*
** The Lua window of a walk whose frames lie in [lo, end) (the Lua stack's
** bottom and the running frame's base): the top want bytes (clamped to
** [LT_WIN_LUA_MIN, LT_WIN_LUA_MAX]), or all of it when the stack is shorter.
** Its start; *n gets its size (0 when end is below lo: a broken base).
*/
static inline __attribute__((always_inline)) __u64
lt_win_lua_plan(__u64 lo, __u64 end, __u32 want, __u32 *n)
{
	__u64 start;

	if (want < LT_WIN_LUA_MIN)
		want = LT_WIN_LUA_MIN;
	if (want > LT_WIN_LUA_MAX)
		want = LT_WIN_LUA_MAX;
	start = end - want;
	if (start < lo || start > end)	/* a stack shorter than the window, or wrapped */
		start = lo;
	*n = end >= start && end - start <= LT_WIN_LUA_MAX ? (__u32)(end - start) : 0;
	return start;
}

#endif
