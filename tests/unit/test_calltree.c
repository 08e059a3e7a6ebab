/*
** Unit tests for profile/calltree: node identity, the three windows,
** fallback counts and filtering, reset, clone, and folded export.
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* open_memstream */
#endif

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/calltree.h"
#include "export/folded.h"
#include "profile/frames.h"
#include "profile/stacks.h"

#define S(x)	((uint64_t)((x) * 1e9))	/* seconds -> ns */
#define CUM	CT_CUMULATIVE
#define WIN	CT_SLIDING
#define DEC	CT_DECAY

/* -- Helpers ------------------------------------------------------------ */

/* Add count samples of the stack of frame ids in ids (terminated by UINT32_MAX). */
static void add(struct calltree *t, const uint32_t *ids, uint64_t count, uint64_t ns,
		unsigned flags)
{
	uint32_t n = 0;

	while (ids[n] != UINT32_MAX)
		n++;
	cr_assert_eq(calltree__add(t, ids, n, count, ns, flags), 0);
}

#define P(...)	((const uint32_t[]){ __VA_ARGS__, UINT32_MAX })

/* The node at a path that must exist. */
static uint32_t at(const struct calltree *t, const uint32_t *ids)
{
	uint32_t n = 0, matched, x;

	while (ids[n] != UINT32_MAX)
		n++;
	x = calltree__find(t, ids, n, &matched);
	cr_assert_eq(matched, n, "path not in the tree");
	return x;
}

static double w(const struct calltree *t, const uint32_t *ids, enum ct_window win, int fb)
{
	return calltree__weight(t, at(t, ids), win, fb);
}

/* Folded text of top's subtree, malloc'd. */
static char *folded(const struct calltree *t, uint32_t top, enum ct_window win, int fb,
		    const struct frametab *ft, uint64_t *total)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	cr_assert_not_null(f);
	cr_assert_eq(folded__write_tree(f, ft, t, top, win, fb, UINT32_MAX, total), 0);
	cr_assert_eq(fclose(f), 0);
	return p;
}

/* A frametab with frames named f0, f1, ... f(n-1) (ids 0..n-1). */
static struct frametab *names(unsigned n)
{
	struct frametab *ft = frametab__new();
	char name[16];

	cr_assert_not_null(ft);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		cr_assert_eq(frametab__intern(ft, FRAME_NATIVE, name, NULL), i);
	}
	return ft;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* -- Identity ----------------------------------------------------------- */

Test(calltree, identity_is_the_path)
{
	struct calltree *t = calltree__new(10, 10);
	uint32_t path[8], x, matched;

	add(t, P(1, 2, 3), 1, 0, 0);
	add(t, P(1, 2, 4), 1, 0, 0);
	add(t, P(1, 2, 3), 1, 0, 0);
	add(t, P(5, 2, 3), 1, 0, 0);	/* same frames, other path: another node */
	add(t, P(1, 1, 1), 1, 0, 0);	/* recursion: one node per level */
	cr_assert_eq(calltree__nodes(t), 1 + 4 + 3 + 2);
	x = at(t, P(1, 2, 3));
	cr_assert_neq(x, at(t, P(5, 2, 3)));
	cr_assert_eq(calltree__frame(t, x), 3);
	cr_assert_eq(calltree__depth(t, x), 3);
	cr_assert_eq(calltree__path(t, x, path, 8), 3);
	cr_assert(path[0] == 1 && path[1] == 2 && path[2] == 3);
	cr_assert_eq(calltree__path(t, x, path, 2), 3, "too small: depth, nothing written");
	cr_assert_eq(calltree__child(t, at(t, P(1, 2)), 4), at(t, P(1, 2, 4)));
	cr_assert_eq(calltree__child(t, at(t, P(1, 2)), 9), CT_NONE);
	cr_assert_eq(calltree__parent(t, x), at(t, P(1, 2)));
	cr_assert_eq(calltree__parent(t, CT_ROOT), CT_NONE);
	cr_assert_eq(calltree__max_depth(t), 3);
	/* A path that goes off the tree: the deepest node on the way. */
	x = calltree__find(t, (uint32_t[]){ 1, 2, 7, 8 }, 4, &matched);
	cr_assert_eq(matched, 2);
	cr_assert_eq(x, at(t, P(1, 2)));
	cr_assert_eq(calltree__find(t, NULL, 0, &matched), CT_ROOT);
	/* Every child appears once in the sibling list. */
	{
		int n = 0;

		for (uint32_t c = calltree__first(t, CT_ROOT); c != CT_NONE;
		     c = calltree__next(t, c))
			n++;
		cr_assert_eq(n, 2);
	}
	calltree__delete(t);
}

Test(calltree, counts_are_inclusive_and_self_is_the_rest)
{
	struct calltree *t = calltree__new(10, 10);

	add(t, P(1, 2, 3), 5, 0, 0);
	add(t, P(1, 2), 2, 0, 0);
	add(t, P(1, 4), 3, 0, 0);
	cr_assert_eq(calltree__add(t, NULL, 0, 1, 0, 0), 0, "empty stack: on the root");
	cr_assert_eq(calltree__add(t, NULL, 2, 1, 0, 0), -EINVAL);
	cr_assert_eq(calltree__add(t, P(1), 1, 0, 0, 0), 0, "zero count: nothing");
	cr_assert_float_eq(calltree__weight(t, CT_ROOT, CUM, 0), 11, 1e-9);
	cr_assert_float_eq(w(t, P(1), CUM, 0), 10, 1e-9);
	cr_assert_float_eq(w(t, P(1, 2), CUM, 0), 7, 1e-9);
	cr_assert_float_eq(calltree__self(t, at(t, P(1, 2)), CUM, 0), 2, 1e-9);
	cr_assert_float_eq(calltree__self(t, at(t, P(1)), CUM, 0), 0, 1e-9);
	cr_assert_float_eq(calltree__self(t, CT_ROOT, CUM, 0), 1, 1e-9);
	cr_assert_float_eq(calltree__weight(t, 999, CUM, 0), 0, 1e-9, "bad node: 0");
	calltree__delete(t);
}

Test(calltree, many_nodes_grow_and_stay_consistent)
{
	struct calltree *t = calltree__new(10, 10);
	uint64_t seed = 42, total = 0;
	uint32_t path[12];

	for (int i = 0; i < 60000; i++) {
		uint32_t n = 1 + (uint32_t)(rnd(&seed) % 12);

		for (uint32_t k = 0; k < n; k++)
			path[k] = (uint32_t)(rnd(&seed) % (k < 3 ? 4 : 40));
		cr_assert_eq(calltree__add(t, path, n, 1 + i % 3, S(i / 1000.0), 0), 0);
		total += 1 + i % 3;
	}
	cr_assert_gt(calltree__nodes(t), 50000);
	cr_assert_float_eq(calltree__weight(t, CT_ROOT, CUM, 0), (double)total, 0.5);
	/* Inclusive counts: every node's weight is its self plus its children's. */
	for (uint32_t x = 0; x < calltree__nodes(t); x++) {
		double sum = calltree__self(t, x, CUM, 0);

		for (uint32_t c = calltree__first(t, x); c != CT_NONE; c = calltree__next(t, c))
			sum += calltree__weight(t, c, CUM, 0);
		cr_assert_float_eq(sum, calltree__weight(t, x, CUM, 0), 0.5, "node %u", x);
		cr_assert_eq(calltree__find(t, path, calltree__path(t, x, path, 12), NULL), x);
	}
	calltree__delete(t);
}

/* Path k of a pool in which no path is another's prefix (element 2 is k's own). */
static uint32_t pool_path(uint32_t k, uint32_t round, uint32_t *path)
{
	uint32_t n = 3 + k % 5;

	path[0] = round * 100 + k % 7;
	path[1] = k % 13;
	path[2] = 1000 + k;
	for (uint32_t j = 3; j < n; j++)
		path[j] = (k * 31 + j) % 50;
	return n;
}

Test(calltree, repeated_paths_count_alike_across_a_reset)
{
	enum { POOL = 6000 };
	struct calltree *t = calltree__new(10, 10);
	static uint64_t want[POOL];
	uint64_t seed = 7;
	uint32_t path[8], matched;

	/* Twice: after the reset, node ids come back for other paths. */
	for (uint32_t round = 0; round < 2; round++) {
		memset(want, 0, sizeof(want));
		for (int i = 0; i < 40000; i++) {
			uint32_t k = (uint32_t)(rnd(&seed) % POOL), n = pool_path(k, round, path);

			cr_assert_eq(calltree__add(t, path, n, 1, S(1), 0), 0);
			want[k]++;
		}
		for (uint32_t k = 0; k < POOL; k++) {
			uint32_t n = pool_path(k, round, path), x;

			if (!want[k])
				continue;
			x = calltree__find(t, path, n, &matched);
			cr_assert_eq(matched, n, "path %u", k);
			cr_assert_float_eq(calltree__self(t, x, CUM, 0), (double)want[k], 0.5,
					   "path %u", k);
		}
		cr_assert_float_eq(calltree__weight(t, CT_ROOT, CUM, 0), 40000, 0.5);
		calltree__reset(t);
	}
	calltree__delete(t);
}

/* -- Windows ------------------------------------------------------------ */

Test(calltree, sliding_window_keeps_the_last_span_seconds)
{
	struct calltree *t = calltree__new(10, 10);

	add(t, P(1, 2), 4, S(100.2), 0);
	add(t, P(1, 3), 2, S(105.5), 0);
	add(t, P(1, 2), 1, S(105.7), 0);	/* merged into the same second's delta */
	cr_assert_float_eq(w(t, P(1), WIN, 0), 7, 1e-9);
	calltree__advance(t, S(109.9));	/* window: seconds 100..109 */
	cr_assert_float_eq(w(t, P(1, 2), WIN, 0), 5, 1e-9);
	calltree__advance(t, S(110.0));	/* second 100 leaves */
	cr_assert_float_eq(w(t, P(1, 2), WIN, 0), 1, 1e-9);
	cr_assert_float_eq(w(t, P(1), WIN, 0), 3, 1e-9);
	cr_assert_float_eq(w(t, P(1, 2), CUM, 0), 5, 1e-9, "cumulative keeps all");
	/* A late sample still inside the window counts; one before it does not. */
	add(t, P(1, 3), 10, S(101.5), 0);
	add(t, P(1, 3), 100, S(99.0), 0);
	cr_assert_float_eq(w(t, P(1, 3), WIN, 0), 12, 1e-9);
	cr_assert_float_eq(w(t, P(1, 3), CUM, 0), 112, 1e-9);
	calltree__advance(t, S(50));	/* the clock never goes back */
	cr_assert_float_eq(w(t, P(1, 3), WIN, 0), 12, 1e-9);
	calltree__advance(t, S(111.0));	/* second 101 leaves */
	cr_assert_float_eq(w(t, P(1, 3), WIN, 0), 2, 1e-9);
	calltree__advance(t, S(500.0));	/* a long gap: everything leaves */
	cr_assert_float_eq(calltree__weight(t, CT_ROOT, WIN, 0), 0, 1e-9);
	cr_assert_float_eq(calltree__weight(t, CT_ROOT, CUM, 0), 117, 1e-9);
	add(t, P(1, 2), 3, S(500.5), 0);
	cr_assert_float_eq(w(t, P(1, 2), WIN, 0), 3, 1e-9);
	calltree__delete(t);
}

Test(calltree, sliding_window_over_many_seconds_matches_a_recount)
{
	struct calltree *t = calltree__new(5, 10);
	uint64_t seed = 7;
	struct { uint32_t f; uint64_t sec; } log[3000];

	for (int i = 0; i < 3000; i++) {
		uint64_t ns = S(1000 + i / 100.0) + rnd(&seed) % 1000;	/* 100 per second */
		uint32_t f = (uint32_t)(rnd(&seed) % 6);

		log[i].f = f;
		log[i].sec = ns / 1000000000u;
		cr_assert_eq(calltree__add(t, (uint32_t[]){ 9, f }, 2, 1, ns, 0), 0);
		if (i % 37 == 0) {
			/* Recount: samples of the last 5 whole seconds, per frame. */
			for (uint32_t g = 0; g < 6; g++) {
				double want = 0;
				uint32_t x = calltree__find(t, (uint32_t[]){ 9, g }, 2, NULL);

				for (int j = 0; j <= i; j++)
					want += log[j].f == g && log[j].sec + 5 > log[i].sec;
				if (calltree__frame(t, x) != g)
					cr_assert_float_eq(want, 0, 1e-9);
				else
					cr_assert_float_eq(calltree__weight(t, x, WIN, 0),
							   want, 1e-9, "frame %u at %d", g, i);
			}
		}
	}
	calltree__delete(t);
}

Test(calltree, decaying_window_halves_every_half_life)
{
	struct calltree *t = calltree__new(10, 10);

	add(t, P(1), 8, S(1000), 0);
	cr_assert_float_eq(w(t, P(1), DEC, 0), 8, 1e-9);
	calltree__advance(t, S(1010));
	cr_assert_float_eq(w(t, P(1), DEC, 0), 4, 1e-9);
	calltree__advance(t, S(1020));
	cr_assert_float_eq(w(t, P(1), DEC, 0), 2, 1e-9);
	add(t, P(1), 8, S(1020), 0);
	cr_assert_float_eq(w(t, P(1), DEC, 0), 10, 1e-9);
	add(t, P(1), 4, S(1010), 0);	/* a late sample is decayed by its age */
	cr_assert_float_eq(w(t, P(1), DEC, 0), 12, 1e-9);
	cr_assert_float_eq(calltree__self(t, at(t, P(1)), DEC, 0), 12, 1e-9);
	/* Far ahead: the sums are rescaled, not overflowed. */
	calltree__advance(t, S(1020 + 10 * 200));
	cr_assert_lt(w(t, P(1), DEC, 0), 1e-50);
	add(t, P(2), 3, S(1020 + 10 * 200), 0);
	add(t, P(2), 3, S(1020 + 10 * 201), 0);
	cr_assert_float_eq(w(t, P(2), DEC, 0), 4.5, 1e-9);
	cr_assert(isfinite(w(t, P(1), DEC, 0)));
	/* A new half-life keeps the current value, then decays at the new rate. */
	cr_assert_eq(calltree__set_span(t, 10, 5), 0);
	cr_assert_float_eq(w(t, P(2), DEC, 0), 4.5, 1e-9);
	calltree__advance(t, S(1020 + 10 * 201 + 5));
	cr_assert_float_eq(w(t, P(2), DEC, 0), 2.25, 1e-9);
	cr_assert_float_eq(calltree__half_life(t), 5, 1e-12);
	calltree__delete(t);
}

Test(calltree, set_span_restarts_the_sliding_window)
{
	struct calltree *t = calltree__new(10, 10);

	add(t, P(1), 5, S(10), 0);
	cr_assert_eq(calltree__set_span(t, 0, 10), -EINVAL);
	cr_assert_eq(calltree__set_span(t, CT_SPAN_MAX + 1, 10), -EINVAL);
	cr_assert_eq(calltree__set_span(t, 10, 0), -EINVAL);
	cr_assert_eq(calltree__set_span(t, 30, 10), 0);
	cr_assert_eq(calltree__span(t), 30);
	cr_assert_float_eq(w(t, P(1), WIN, 0), 0, 1e-9);
	cr_assert_float_eq(w(t, P(1), CUM, 0), 5, 1e-9);
	add(t, P(1), 2, S(30), 0);
	calltree__advance(t, S(39.5));
	cr_assert_float_eq(w(t, P(1), WIN, 0), 2, 1e-9);
	calltree__advance(t, S(60));
	cr_assert_float_eq(w(t, P(1), WIN, 0), 0, 1e-9);
	cr_assert_null(calltree__new(0, 10));
	cr_assert_null(calltree__new(10, -1));
	calltree__delete(t);
}

/* -- Fallback, reset, clone --------------------------------------------- */

Test(calltree, fallback_counts_and_filter)
{
	struct calltree *t = calltree__new(10, 10);

	add(t, P(1, 2), 6, S(1), 0);
	add(t, P(1, 3), 3, S(1), CT_FALLBACK);
	add(t, P(7, 8), 1, S(1), CT_FALLBACK);	/* all at once: decay weighs them alike */
	for (int win = 0; win < CT_WINDOW__COUNT; win++) {
		cr_assert_float_eq(calltree__weight(t, CT_ROOT, win, 1), 4, 1e-9, "window %d", win);
		cr_assert_float_eq(w(t, P(1), win, 1), 3, 1e-9);
		cr_assert_float_eq(w(t, P(1), win, 0), 9, 1e-9);
		cr_assert_float_eq(w(t, P(1, 2), win, 1), 0, 1e-9);
		cr_assert_float_eq(calltree__self(t, at(t, P(1, 3)), win, 1), 3, 1e-9);
	}
	calltree__delete(t);
}

Test(calltree, reset_forgets_samples_and_nodes)
{
	struct calltree *t = calltree__new(10, 10);

	add(t, P(1, 2), 6, S(1), 0);
	calltree__reset(t);
	cr_assert_eq(calltree__nodes(t), 1);
	cr_assert_eq(calltree__first(t, CT_ROOT), CT_NONE);
	for (int win = 0; win < CT_WINDOW__COUNT; win++)
		cr_assert_float_eq(calltree__weight(t, CT_ROOT, win, 0), 0, 1e-9);
	add(t, P(1, 3), 2, S(1.5), 0);
	cr_assert_float_eq(w(t, P(1, 3), WIN, 0), 2, 1e-9);
	calltree__advance(t, S(20));	/* no stale delta of the old nodes comes back */
	cr_assert_float_eq(w(t, P(1, 3), WIN, 0), 0, 1e-9);
	cr_assert_float_eq(w(t, P(1, 3), CUM, 0), 2, 1e-9);
	calltree__delete(t);
}

Test(calltree, clone_is_independent)
{
	struct calltree *t = calltree__new(10, 10), *c;

	add(t, P(1, 2), 6, S(1), 0);
	c = calltree__clone(t);
	cr_assert_not_null(c);
	add(t, P(1, 2), 4, S(2), 0);
	add(c, P(1, 5), 1, S(2), 0);
	cr_assert_float_eq(w(t, P(1), CUM, 0), 10, 1e-9);
	cr_assert_float_eq(w(c, P(1), CUM, 0), 7, 1e-9);
	cr_assert_eq(calltree__child(t, at(t, P(1)), 5), CT_NONE);
	calltree__advance(c, S(30));	/* the copy's window slides on its own */
	cr_assert_float_eq(w(c, P(1), WIN, 0), 0, 1e-9);
	cr_assert_float_eq(w(t, P(1), WIN, 0), 10, 1e-9);
	calltree__delete(c);
	calltree__delete(t);
}

/* -- Export ------------------------------------------------------------- */

Test(calltree, folded_export_of_the_whole_tree)
{
	struct frametab *ft = names(6);
	struct calltree *t = calltree__new(10, 10);
	uint64_t total;
	char *s;

	add(t, P(1, 2, 3), 5, S(1), 0);
	add(t, P(1, 2), 2, S(1), 0);
	add(t, P(1, 4), 3, S(1), 0);
	add(t, P(1, 4), 1, S(2), 0);
	s = folded(t, CT_ROOT, CUM, 0, ft, &total);
	cr_assert_str_eq(s, "f1;f2 2\nf1;f2;f3 5\nf1;f4 4\n");
	cr_assert_eq(total, 11);
	free(s);
	calltree__delete(t);
	frametab__delete(ft);
}

/* Folded text of top's subtree with the fallback samples rooted at [fallback]. */
static char *folded_marked(const struct calltree *t, uint32_t top, int fb, struct frametab *ft)
{
	uint32_t mark = frametab__special(ft, SPECIAL_FALLBACK);
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	cr_assert_not_null(f);
	cr_assert_neq(mark, UINT32_MAX);
	cr_assert_eq(folded__write_tree(f, ft, t, top, CUM, fb, mark, NULL), 0);
	cr_assert_eq(fclose(f), 0);
	return p;
}

/* --mark-fallback in the live view: a snapshot roots the fallback samples at
** [fallback], also those of a node that has merged samples too. */
Test(calltree, snapshot_marks_fallback)
{
	struct frametab *ft = names(10);
	struct calltree *t = calltree__new(10, 10);
	char *s;

	add(t, P(1, 2, 3), 5, S(1), 0);
	add(t, P(1, 2, 3), 2, S(1), CT_FALLBACK);
	add(t, P(1, 4), 3, S(1), CT_FALLBACK);
	add(t, P(1, 2), 1, S(1), 0);
	s = folded_marked(t, CT_ROOT, 0, ft);
	cr_assert_str_eq(s, "[fallback];f1;f2;f3 2\n[fallback];f1;f4 3\nf1;f2 1\nf1;f2;f3 5\n");
	free(s);
	s = folded_marked(t, CT_ROOT, 1, ft);
	cr_assert_str_eq(s, "[fallback];f1;f2;f3 2\n[fallback];f1;f4 3\n");
	free(s);
	s = folded_marked(t, at(t, P(1, 2)), 0, ft);
	cr_assert_str_eq(s, "[fallback];f1;f2;f3 2\nf1;f2 1\nf1;f2;f3 5\n");
	free(s);
	calltree__delete(t);
	frametab__delete(ft);
}

Test(calltree, snapshot_is_what_is_shown)
{
	struct frametab *ft = names(10);
	struct calltree *t = calltree__new(10, 10);
	struct stacktab *st = stacktab__new();
	uint64_t total;
	char *s;

	add(t, P(1, 2, 3), 5, S(1), 0);
	add(t, P(1, 2, 4), 2, S(1), CT_FALLBACK);
	add(t, P(1, 5), 3, S(1), 0);
	add(t, P(1, 2, 3), 4, S(20), 0);
	/* Zoomed: the subtree, as whole stacks from the root. */
	s = folded(t, at(t, P(1, 2)), CUM, 0, ft, &total);
	cr_assert_str_eq(s, "f1;f2;f3 9\nf1;f2;f4 2\n");
	cr_assert_eq(total, 11);
	free(s);
	/* Fallback only. */
	s = folded(t, CT_ROOT, CUM, 1, ft, &total);
	cr_assert_str_eq(s, "f1;f2;f4 2\n");
	free(s);
	/* The sliding window at 20 s holds only the last sample. */
	s = folded(t, CT_ROOT, WIN, 0, ft, &total);
	cr_assert_str_eq(s, "f1;f2;f3 4\n");
	cr_assert_eq(total, 4);
	free(s);
	/* Decaying: rounded, and what rounds to nothing is left out:
	** f3 5 * 2^-2.9 + 4 * 2^-1 = 2.67, f4 2 * 2^-2.9 = 0.27, f5 3 * 2^-2.9 = 0.40. */
	calltree__advance(t, S(30));
	s = folded(t, CT_ROOT, DEC, 0, ft, &total);
	cr_assert_str_eq(s, "f1;f2;f3 3\n");
	free(s);
	/* Into a stacktab: the same counts as the shown weight. */
	cr_assert_eq(calltree__to_stacks(t, CT_ROOT, CUM, 0, UINT32_MAX, st), 0);
	cr_assert_eq(stacktab__total(st), (uint64_t)calltree__weight(t, CT_ROOT, CUM, 0));
	/* A frozen copy exports what it held when frozen. */
	{
		struct calltree *c = calltree__clone(t);

		add(t, P(9), 100, S(31), 0);
		s = folded(c, CT_ROOT, CUM, 0, ft, &total);
		cr_assert_eq(total, 14);
		cr_assert_null(strstr(s, "f9"));
		free(s);
		calltree__delete(c);
	}
	stacktab__delete(st);
	calltree__delete(t);
	frametab__delete(ft);
}

struct fillctx {
	struct calltree *t;
	const struct frametab *ft;
};

/* stacktab__foreach callback: a stack read from a file into the tree. */
static int fill(const uint32_t *fr, uint32_t n, uint64_t count, void *ctx)
{
	struct fillctx *c = ctx;
	const struct frame *r = frametab__get(c->ft, fr[0]);

	return calltree__add(c->t, fr, n, count, 0,
			     !strcmp(r->name, "[fallback]") ? CT_FALLBACK : 0);
}

Test(calltree, folded_round_trip_through_a_file)
{
	const char *in = "[fallback];main;-;handler (app.lua:12) 3\nmain;run;burn 7\n"
			 "main;run;read_[k] 2\n";
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	struct calltree *t = calltree__new(10, 10);
	FILE *f = fmemopen((void *)in, strlen(in), "r");
	char err[128];
	uint64_t total;
	char *s;

	cr_assert_eq(folded__read(f, ft, st, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	/* As luatop -i does: stacks rooted at [fallback] are fallback samples. */
	cr_assert_eq(stacktab__foreach(st, fill, &(struct fillctx){ t, ft }), 0);
	s = folded(t, CT_ROOT, CUM, 0, ft, &total);
	cr_assert_str_eq(s, "[fallback];main;-;handler (app.lua:12) 3\nmain;run;burn 7\n"
			    "main;run;read_[k] 2\n");
	cr_assert_eq(total, 12);
	free(s);
	cr_assert_float_eq(calltree__weight(t, CT_ROOT, CUM, 1), 3, 1e-9);
	calltree__delete(t);
	stacktab__delete(st);
	frametab__delete(ft);
}

/* The columns are the nodes by id, children linked newest first, weightless
** nodes left out (the sliding window has forgotten the old sample). */
Test(calltree, columns_by_node_with_children_of_weight)
{
	struct calltree *t = calltree__new(2, 10.0);
	struct ct_columns c = { 0 };
	uint32_t a, b, d;

	cr_assert_not_null(t);
	cr_assert_eq(calltree__add(t, (uint32_t[]){ 1, 2 }, 2, 1, 1000000000ull, 0), 0);
	cr_assert_eq(calltree__add(t, (uint32_t[]){ 1, 3 }, 2, 2, 5000000000ull, 0), 0);
	cr_assert_eq(calltree__add(t, (uint32_t[]){ 4 }, 1, 3, 5000000000ull, 0), 0);
	a = calltree__child(t, CT_ROOT, 1);
	b = calltree__child(t, a, 2);
	d = calltree__child(t, a, 3);
	cr_assert_eq(calltree__columns(t, CT_CUMULATIVE, 0, &c), 0);
	cr_assert_eq(c.n, calltree__nodes(t));
	cr_assert_eq(c.frame[d], 3);
	cr_assert_eq(c.parent[d], a);
	cr_assert_float_eq(c.weight[a], 3, 1e-9);
	cr_assert_eq(c.kid0[a + 1] - c.kid0[a], 2);
	cr_assert_eq(c.kids[c.kid0[a]], d, "newest first");
	cr_assert_eq(c.kids[c.kid0[a] + 1], b);
	cr_assert_eq(c.kid0[CT_ROOT + 1] - c.kid0[CT_ROOT], 2);
	cr_assert_eq(calltree__columns(t, CT_SLIDING, 0, &c), 0);
	cr_assert_float_eq(c.weight[b], 0, 1e-9);
	cr_assert_eq(c.kid0[a + 1] - c.kid0[a], 1, "b is out of the window");
	cr_assert_eq(c.kids[c.kid0[a]], d);
	cr_assert_eq(c.kid0[c.n], c.n - 2, "every node but the root and b");
	calltree__columns_free(&c);
	calltree__delete(t);
}

/* Adds count at their leaf until the counts are read: the windows and a copy
** made with samples still pending see them all the same. */
Test(calltree, pending_samples_count_in_every_window_and_copy)
{
	struct calltree *t = calltree__new(10, 10), *c;

	add(t, P(1, 2), 4, S(100.2), 0);
	add(t, P(1, 3), 2, S(105.5), CT_FALLBACK);
	add(t, P(1, 2), 1, S(105.7), 0);
	c = calltree__clone(t);	/* nothing read yet */
	cr_assert_not_null(c);
	cr_assert_float_eq(w(c, P(1), CUM, 0), 7, 1e-9);
	cr_assert_float_eq(w(c, P(1), WIN, 0), 7, 1e-9);
	cr_assert_float_eq(w(c, P(1), CUM, 1), 2, 1e-9);
	calltree__delete(c);
	add(t, P(1, 3), 5, S(106.0), 0);
	calltree__advance(t, S(110.0));	/* second 100 leaves, with samples pending */
	cr_assert_float_eq(w(t, P(1), WIN, 0), 8, 1e-9);
	cr_assert_float_eq(w(t, P(1, 2), WIN, 0), 1, 1e-9);
	cr_assert_float_eq(w(t, P(1), CUM, 0), 12, 1e-9);
	cr_assert_float_eq(calltree__self(t, at(t, P(1)), CUM, 0), 0, 1e-9);
	add(t, P(1, 2), 3, S(110.5), 0);
	cr_assert_eq(calltree__set_span(t, 5, 10), 0);	/* the window restarts empty */
	cr_assert_float_eq(w(t, P(1), WIN, 0), 0, 1e-9);
	cr_assert_float_eq(w(t, P(1, 2), CUM, 0), 8, 1e-9);
	calltree__delete(t);
}
