/*
** Unit tests for profile/flat: the Top table's rows and the callers/callees of
** a frame, on call trees built by hand (no terminal).
*/
#include <criterion/criterion.h>
#include <string.h>

#include "profile/calltree.h"
#include "profile/flat.h"

enum { MAIN = 1, A, B, C, F };

static struct calltree *tree(void)
{
	struct calltree *t = calltree__new(10, 10.0);

	cr_assert_not_null(t);
	return t;
}

static void add(struct calltree *t, const uint32_t *frames, uint32_t n, uint64_t count,
		unsigned flags)
{
	cr_assert_eq(calltree__add(t, frames, n, count, 0, flags), 0);
}

#define ADD(t, count, ...) add((t), (uint32_t[]){ __VA_ARGS__ }, \
	sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t), (count), 0)

static const struct flat_row *row(const struct flat *f, uint32_t frame)
{
	for (uint32_t i = 0; i < f->n; i++)
		if (f->rows[i].frame == frame)
			return &f->rows[i];
	cr_assert_fail("frame %u has no row", frame);
	return NULL;
}

Test(flat, self_and_total_sorted_by_self)
{
	struct calltree *t = tree();
	struct flat f = { 0 };

	ADD(t, 5, MAIN, A);		/* main -> a: 5 */
	ADD(t, 3, MAIN, B);		/* main -> b: 3 */
	ADD(t, 2, MAIN, A, C);		/* main -> a -> c: 2 */
	cr_assert_eq(flat__build(&f, t, CT_CUMULATIVE, 0, FLAT_BY_SELF), 0);
	cr_assert_eq(f.n, 4);
	cr_assert_float_eq(f.all, 10, 1e-9);
	cr_assert_eq(f.rows[0].frame, A, "a has the most self samples");
	cr_assert_eq(f.rows[1].frame, B);
	cr_assert_eq(f.rows[2].frame, C);
	cr_assert_eq(f.rows[3].frame, MAIN, "main: no self samples");
	cr_assert_float_eq(row(&f, A)->total, 7, 1e-9);
	cr_assert_float_eq(row(&f, MAIN)->total, 10, 1e-9);
	flat__sort(&f, FLAT_BY_TOTAL);
	cr_assert_eq(f.rows[0].frame, MAIN);
	cr_assert_eq(f.rows[1].frame, A);
	flat__free(&f);
	calltree__delete(t);
}

Test(flat, recursion_counts_once_per_stack)
{
	struct calltree *t = tree();
	struct flat f = { 0 };

	ADD(t, 4, MAIN, F, F, F);	/* f recursing three deep */
	ADD(t, 6, MAIN, F, A);
	cr_assert_eq(flat__build(&f, t, CT_CUMULATIVE, 0, FLAT_BY_TOTAL), 0);
	cr_assert_float_eq(row(&f, F)->total, 10, 1e-9, "not 4 * 3 + 6");
	cr_assert_float_eq(row(&f, F)->self, 4, 1e-9);
	cr_assert_leq(row(&f, F)->total, f.all);
	flat__free(&f);
	calltree__delete(t);
}

Test(flat, fallback_only_and_windows)
{
	struct calltree *t = tree();
	struct flat f = { 0 };

	ADD(t, 5, MAIN, A);
	add(t, (uint32_t[]){ MAIN, B }, 2, 3, CT_FALLBACK);
	cr_assert_eq(flat__build(&f, t, CT_CUMULATIVE, 1, FLAT_BY_SELF), 0);
	cr_assert_eq(f.n, 2, "main and b: the fallback samples only");
	cr_assert_float_eq(row(&f, B)->self, 3, 1e-9);
	cr_assert_float_eq(f.all, 3, 1e-9);
	flat__free(&f);
	calltree__delete(t);
}

/* The trees of a callers/callees test: made before it, freed after. */
static struct calltree *tr, *callers, *callees;
static struct flat scratch;

static void focus_up(void)
{
	tr = tree();
	callers = tree();
	callees = tree();
	memset(&scratch, 0, sizeof(scratch));
}

static void focus_down(void)
{
	calltree__delete(tr);
	calltree__delete(callers);
	calltree__delete(callees);
	flat__free(&scratch);
}

Test(flat, callers_and_callees_of_a_frame_on_two_paths, .init = focus_up, .fini = focus_down)
{

	ADD(tr, 6, MAIN, A, C);		/* c called from a: 6 */
	ADD(tr, 4, MAIN, B, C, F);	/* ... from b: 4, calling f */
	ADD(tr, 5, MAIN, B);
	cr_assert_eq(flat__focus(&scratch, tr, C, CT_CUMULATIVE, 0, 64, 0, callers, callees), 0);
	cr_assert_float_eq(calltree__weight(callers, CT_ROOT, CT_CUMULATIVE, 0), 10, 1e-9);
	cr_assert_float_eq(calltree__weight(callers, calltree__child(callers, CT_ROOT, A),
					    CT_CUMULATIVE, 0), 6, 1e-9);
	cr_assert_float_eq(calltree__weight(callers, calltree__child(callers, CT_ROOT, B),
					    CT_CUMULATIVE, 0), 4, 1e-9);
	cr_assert_neq(calltree__child(callers, calltree__child(callers, CT_ROOT, A), MAIN),
		      CT_NONE, "a's caller main follows it");
	cr_assert_float_eq(calltree__weight(callees, CT_ROOT, CT_CUMULATIVE, 0), 10, 1e-9);
	cr_assert_float_eq(calltree__self(callees, CT_ROOT, CT_CUMULATIVE, 0), 6, 1e-9);
	cr_assert_float_eq(calltree__weight(callees, calltree__child(callees, CT_ROOT, F),
					    CT_CUMULATIVE, 0), 4, 1e-9);
}

Test(flat, focus_on_a_recursion_takes_its_outermost_place, .init = focus_up, .fini = focus_down)
{

	ADD(tr, 4, MAIN, F, F, A);
	cr_assert_eq(flat__focus(&scratch, tr, F, CT_CUMULATIVE, 0, 64, 0, callers, callees), 0);
	cr_assert_float_eq(calltree__weight(callers, CT_ROOT, CT_CUMULATIVE, 0), 4, 1e-9);
	cr_assert_eq(calltree__nodes(callers), 2, "one caller: main (not f)");
	cr_assert_neq(calltree__child(callees, CT_ROOT, F), CT_NONE, "the inner f is a callee");
	cr_assert_float_eq(calltree__weight(callees, CT_ROOT, CT_CUMULATIVE, 0), 4, 1e-9);
}

Test(flat, callers_are_cut_at_the_depth_asked, .init = focus_up, .fini = focus_down)
{

	ADD(tr, 2, MAIN, A, B, C);
	cr_assert_eq(flat__focus(&scratch, tr, C, CT_CUMULATIVE, 0, 1, 0, callers, callees), 0);
	cr_assert_eq(calltree__max_depth(callers), 1, "b only, not a and main");
	cr_assert_neq(calltree__child(callers, CT_ROOT, B), CT_NONE);
	cr_assert_float_eq(calltree__weight(callers, CT_ROOT, CT_CUMULATIVE, 0), 2, 1e-9);
}

/* A raw-mode tree (native frames, then "[lua]" and the Lua frames) is just
** another tree: a frame on both sides of the separator counts once in total. */
Test(flat, raw_stacks_with_the_lua_separator, .init = focus_up, .fini = focus_down)
{
	enum { VM = 20, LUA_SEP = 21 };
	struct flat f = { 0 };

	ADD(tr, 3, MAIN, VM, LUA_SEP, A, F);
	ADD(tr, 1, MAIN, A, VM, LUA_SEP, A);	/* a native frame named like a Lua one */
	cr_assert_eq(flat__build(&f, tr, CT_CUMULATIVE, 0, FLAT_BY_TOTAL), 0);
	cr_assert_float_eq(row(&f, A)->total, 4, 1e-9, "once per stack");
	cr_assert_float_eq(row(&f, LUA_SEP)->total, 4, 1e-9);
	cr_assert_eq(flat__focus(&scratch, tr, A, CT_CUMULATIVE, 0, 64, 0, callers, callees), 0);
	cr_assert_neq(calltree__child(callers, CT_ROOT, LUA_SEP), CT_NONE);
	cr_assert_neq(calltree__child(callers, CT_ROOT, MAIN), CT_NONE);
	cr_assert_float_eq(calltree__weight(callees, CT_ROOT, CT_CUMULATIVE, 0), 4, 1e-9);
	flat__free(&f);
}

Test(flat, callers_lighter_than_the_view_shows_go_no_higher, .init = focus_up, .fini = focus_down)
{

	ADD(tr, 90, MAIN, A, C);
	ADD(tr, 10, MAIN, B, C);
	cr_assert_eq(flat__focus(&scratch, tr, C, CT_CUMULATIVE, 0, 64, 0.2, callers, callees), 0);
	cr_assert_neq(calltree__child(callers, calltree__child(callers, CT_ROOT, A), MAIN),
		      CT_NONE, "a's 90 samples: its caller too");
	cr_assert_eq(calltree__child(callers, calltree__child(callers, CT_ROOT, B), MAIN),
		     CT_NONE, "b's 10 samples, under 20% of c's 100: not followed further up");
	cr_assert_float_eq(calltree__weight(callers, calltree__child(callers, CT_ROOT, B),
					    CT_CUMULATIVE, 0), 10, 1e-9, "but b itself is there");
}

/* A callee light on each path but heavy merged is followed; one light
** merged is made but not followed (the view could not show below it). */
Test(flat, callees_are_pruned_by_their_merged_weight, .init = focus_up, .fini = focus_down)
{
	uint32_t f, a;

	ADD(tr, 3, MAIN, A, C, F, B);
	ADD(tr, 3, MAIN, B, C, F, B);
	ADD(tr, 4, MAIN, A, C);
	ADD(tr, 1, MAIN, A, C, A, F);
	/* c weighs 11; min 0.5 of it is 5.5: f (3 + 3 merged) goes on, a (1) stops */
	cr_assert_eq(flat__focus(&scratch, tr, C, CT_CUMULATIVE, 0, 64, 0.5, callers, callees), 0);
	f = calltree__child(callees, CT_ROOT, F);
	a = calltree__child(callees, CT_ROOT, A);
	cr_assert_float_eq(calltree__weight(callees, f, CT_CUMULATIVE, 0), 6, 1e-9);
	cr_assert_float_eq(calltree__weight(callees, calltree__child(callees, f, B),
					    CT_CUMULATIVE, 0), 6, 1e-9, "below the merged f");
	cr_assert_float_eq(calltree__weight(callees, a, CT_CUMULATIVE, 0), 1, 1e-9);
	cr_assert_eq(calltree__first(callees, a), CT_NONE, "a is too light to follow");
	cr_assert_eq(flat__focus(&scratch, tr, C, CT_CUMULATIVE, 0, 64, 0, callers, callees), 0);
	a = calltree__child(callees, CT_ROOT, A);
	cr_assert_neq(calltree__child(callees, a, F), CT_NONE, "min 0 follows all");
}
