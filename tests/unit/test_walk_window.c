/*
** walk/window.h: what the sampler copies of the stack and the Lua stack.
*/
#include <criterion/criterion.h>

#include "walk/window.h"

static __u32 total(const struct lt_win_plan *p)
{
	__u32 n = 0;

	for (int i = 0; i < LT_WIN_PARTS; i++)
		n += p->part[i];
	return n;
}

Test(window, a_stack_window_within_one_page_is_one_read)
{
	struct lt_win_plan p;

	lt_win_stack_plan(&p, 0x7ffc00001100, 1024);
	cr_assert_eq(p.lo, 0x7ffc00001100);
	cr_assert_eq(p.part[0], 1024);
	cr_assert_eq(p.part[1], 0);
}

Test(window, no_read_crosses_a_page)
{
	struct lt_win_plan p;

	lt_win_stack_plan(&p, 0x7ffc00001f00, 1024);	/* 256 bytes left in its page */
	cr_assert_eq(p.part[0], 0x100);
	cr_assert_eq(p.part[1], 1024 - 0x100);
	cr_assert_eq(total(&p), 1024);
	lt_win_stack_plan(&p, 0x7ffc00001ff8, LT_WIN_STACK_MAX);
	cr_assert_eq(p.part[0], 8);
	cr_assert_eq(p.part[1], LT_WIN_STACK_MAX - 8);
	for (int i = 0; i < LT_WIN_PARTS; i++)
		cr_assert_leq(p.part[i], LT_WIN_PAGE);
}

Test(window, the_window_starts_at_an_aligned_address_and_its_size_is_clamped)
{
	struct lt_win_plan p;

	lt_win_stack_plan(&p, 0x7ffc00001105, 0);
	cr_assert_eq(p.lo, 0x7ffc00001100);
	cr_assert_eq(total(&p), LT_WIN_STACK_MIN);
	lt_win_stack_plan(&p, 0x7ffc00001000, 1u << 20);
	cr_assert_eq(total(&p), LT_WIN_STACK_MAX);
}

Test(window, valid_bytes_end_at_the_first_read_that_failed)
{
	struct lt_win_plan p;

	lt_win_stack_plan(&p, 0x7ffc00001f00, 1024);
	cr_assert_eq(lt_win_valid(&p, 0, 0), 1024);
	cr_assert_eq(lt_win_valid(&p, 0, -14), 0x100, "the page above is not mapped");
	cr_assert_eq(lt_win_valid(&p, -14, 0), 0, "nothing after a failed first read");
	cr_assert_eq(lt_win_valid(&p, -14, -14), 0);
}

Test(window, learning_grows_at_once_and_shrinks_slowly)
{
	__u32 want = lt_win_learn(256, 1000, LT_WIN_STACK_MAX);

	cr_assert_geq(want, 1000 + LT_WIN_MARGIN, "room for what was read, and a margin");
	cr_assert_eq(want % LT_WIN_ROUND, 0);
	cr_assert_eq(lt_win_learn(want, 1000, LT_WIN_STACK_MAX), want, "steady");
	__u32 less = lt_win_learn(want, 0, LT_WIN_STACK_MAX);
	cr_assert_lt(less, want);
	cr_assert_gt(less, want - (want / 4), "an eighth of the way down: %u from %u", less, want);
	for (int i = 0; i < 100; i++)
		want = lt_win_learn(want, 0, LT_WIN_STACK_MAX);
	cr_assert_leq(want, 2 * LT_WIN_ROUND, "down to what is read: %u", want);
	cr_assert_eq(lt_win_learn(want, 1u << 30, LT_WIN_STACK_MAX), LT_WIN_STACK_MAX, "clamped");
}

Test(window, the_lua_window_is_the_top_of_the_lua_stack)
{
	__u32 n;
	__u64 start = lt_win_lua_plan(0x1000, 0x9000, 512, &n);

	cr_assert_eq(start, 0x9000 - 512);
	cr_assert_eq(n, 512);
	start = lt_win_lua_plan(0x8f00, 0x9000, 512, &n);
	cr_assert_eq(start, 0x8f00, "a stack shorter than the window: all of it");
	cr_assert_eq(n, 0x100);
	start = lt_win_lua_plan(0x1000, 0x9000, 1u << 20, &n);
	cr_assert_eq(n, LT_WIN_LUA_MAX, "clamped");
	start = lt_win_lua_plan(0x1000, 0x9000, 0, &n);
	cr_assert_eq(n, LT_WIN_LUA_MIN);
	start = lt_win_lua_plan(0x9000, 0x1000, 512, &n);
	cr_assert_eq(n, 0, "a base below the stack: nothing");
}
