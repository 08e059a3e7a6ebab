/*
** Unit tests for the pure parts of tui/: the icicle layout, text fitting,
** and the key table (checked against the man page's LIVE VIEW section).
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <criterion/criterion.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "profile/calltree.h"
#include "tui/keys.h"
#include "tui/layout.h"
#include "tui/text.h"

#define P(...)	((const uint32_t[]){ __VA_ARGS__, UINT32_MAX })
#define MAN	"man/luatop.1"	/* unit tests run from the top of the tree */

static void add(struct calltree *t, const uint32_t *ids, uint64_t count, unsigned flags)
{
	uint32_t n = 0;

	while (ids[n] != UINT32_MAX)
		n++;
	cr_assert_eq(calltree__add(t, ids, n, count, 0, flags), 0);
}

static uint32_t at(const struct calltree *t, const uint32_t *ids)
{
	uint32_t n = 0, matched, x;

	while (ids[n] != UINT32_MAX)
		n++;
	x = calltree__find(t, ids, n, &matched);
	cr_assert_eq(matched, n);
	return x;
}

/* The box of a node, which must be on screen. */
static const struct box *box_of(const struct layout *l, uint32_t node)
{
	int i = layout__find(l, node);

	cr_assert_geq(i, 0, "node %u not laid out", node);
	return &l->box[i];
}

static int build(struct layout *l, const struct calltree *t, uint32_t top, int fb, int cols,
		 int rows, int scroll)
{
	struct layout_req r = {
		.tree = t, .top = top, .window = CT_CUMULATIVE, .fallback_only = fb,
		.cols = cols, .rows = rows, .scroll = scroll,
	};

	return layout__build(l, &r);
}

/* -- Layout ------------------------------------------------------------- */

Test(layout, widths_follow_samples_heaviest_first)
{
	struct calltree *t = calltree__new(10, 10);
	struct layout l = { 0 };
	const struct box *b;

	add(t, P(1, 3), 1, 0);		/* lighter, added first */
	add(t, P(1, 2), 2, 0);
	add(t, P(1, 2, 4), 1, 0);
	cr_assert_eq(build(&l, t, CT_ROOT, 0, 30, 5, 0), 0);
	cr_assert_eq(l.n, 5);
	cr_assert_eq(l.more, 0);
	/* Row 0: the root, the full width in eighths. */
	b = box_of(&l, CT_ROOT);
	cr_assert(b->row == 0 && b->e0 == 0 && b->e1 == 240);
	b = box_of(&l, at(t, P(1)));
	cr_assert(b->row == 1 && b->e0 == 0 && b->e1 == 240);
	/* Row 2: 1;2 (3 of 4 samples) left of 1;3 (1 of 4). */
	b = box_of(&l, at(t, P(1, 2)));
	cr_assert(b->row == 2 && b->e0 == 0 && b->e1 == 180, "%d..%d", b->e0, b->e1);
	b = box_of(&l, at(t, P(1, 3)));
	cr_assert(b->row == 2 && b->e0 == 180 && b->e1 == 240);
	b = box_of(&l, at(t, P(1, 2, 4)));
	cr_assert(b->row == 3 && b->e0 == 0 && b->e1 == 60);
	/* Rows are in order, left to right; step moves along a row. */
	cr_assert_eq(l.row[2], 2);
	cr_assert_eq(l.row[3], 4);
	cr_assert_eq(layout__step(&l, layout__find(&l, at(t, P(1, 2))), 1),
		     layout__find(&l, at(t, P(1, 3))));
	cr_assert_eq(layout__step(&l, layout__find(&l, at(t, P(1, 3))), 1), -1);
	cr_assert_eq(layout__step(&l, layout__find(&l, at(t, P(1, 3))), -1),
		     layout__find(&l, at(t, P(1, 2))));
	layout__free(&l);
	calltree__delete(t);
}

Test(layout, sub_cell_edges)
{
	struct calltree *t = calltree__new(10, 10);
	struct layout l = { 0 };
	const struct box *b;

	add(t, P(1), 7, 0);
	add(t, P(2), 3, 0);
	cr_assert_eq(build(&l, t, CT_ROOT, 0, 13, 3, 0), 0);
	/* 13 cells * 8 = 104 eighths: 7/10 -> 72.8 -> 73, not a whole cell. */
	b = box_of(&l, at(t, P(1)));
	cr_assert_eq(b->e1, 73);
	b = box_of(&l, at(t, P(2)));
	cr_assert(b->e0 == 73 && b->e1 == 104);
	layout__free(&l);
	calltree__delete(t);
}

Test(layout, narrow_frames_are_pooled)
{
	struct calltree *t = calltree__new(10, 10);
	struct layout l = { 0 };
	int pools = 0;

	add(t, P(1, 2), 900, 0);
	for (uint32_t f = 10; f < 60; f++)	/* 50 callees of 2 samples: 0.2 cell each */
		add(t, P(1, f), 2, 0);
	cr_assert_eq(build(&l, t, CT_ROOT, 0, 100, 5, 0), 0);
	for (uint32_t i = 0; i < l.n; i++) {
		if (!(l.box[i].flags & BOX_POOL))
			continue;
		pools++;
		cr_assert_eq(l.box[i].node, at(t, P(1)), "pooled under their parent");
		cr_assert_eq(l.box[i].row, 2);
		cr_assert_eq(l.box[i].e0, 720);	/* right after 1;2 (900 of 1000) */
		cr_assert_eq(l.box[i].e1, 800);
	}
	cr_assert_eq(pools, 1);
	cr_assert_eq(l.row[3] - l.row[2], 2, "1;2 and the pool");
	cr_assert_eq(layout__find(&l, at(t, P(1, 10))), -1);
	layout__free(&l);
	calltree__delete(t);
}

Test(layout, zoom_scroll_and_more_levels)
{
	struct calltree *t = calltree__new(10, 10);
	struct layout l = { 0 };
	const struct box *b;

	add(t, P(1, 2, 3, 4, 5, 6, 7), 4, 0);
	add(t, P(1, 8), 4, 0);
	/* Zoomed on 1;2: it spans the width on row 0 though it has half the samples. */
	cr_assert_eq(build(&l, t, at(t, P(1, 2)), 0, 20, 3, 0), 0);
	b = box_of(&l, at(t, P(1, 2)));
	cr_assert(b->row == 0 && b->e0 == 0 && b->e1 == 160);
	cr_assert_eq(layout__find(&l, at(t, P(1, 8))), -1, "outside the zoom");
	cr_assert_eq(l.more, 3, "rows for 5, 6, 7 are below");
	cr_assert_float_eq(l.total, 4, 1e-9);
	/* Scrolled by 2: row 0 is depth 2 below the zoom root. */
	cr_assert_eq(build(&l, t, at(t, P(1, 2)), 0, 20, 3, 2), 0);
	cr_assert_eq(box_of(&l, at(t, P(1, 2, 3, 4)))->row, 0);
	cr_assert_eq(l.more, 1);
	layout__free(&l);
	calltree__delete(t);
}

Test(layout, fallback_only_and_empty)
{
	struct calltree *t = calltree__new(10, 10);
	struct layout l = { 0 };

	cr_assert_eq(build(&l, t, CT_ROOT, 0, 20, 3, 0), 0);
	cr_assert_eq(l.n, 0, "no samples: nothing drawn");
	add(t, P(1, 2), 9, 0);
	add(t, P(3, 4), 1, CT_FALLBACK);
	cr_assert_eq(build(&l, t, CT_ROOT, 1, 20, 3, 0), 0);
	cr_assert_eq(layout__find(&l, at(t, P(1))), -1);
	cr_assert_eq(box_of(&l, at(t, P(3)))->e1, 160, "the fallback stacks fill the width");
	cr_assert_eq(box_of(&l, at(t, P(3, 4)))->row, 2);
	layout__free(&l);
	calltree__delete(t);
}

Test(layout, big_tree_lays_out_only_what_shows)
{
	struct calltree *t = calltree__new(10, 10);
	struct layout l = { 0 };
	uint64_t s = 99;
	uint32_t path[20];

	for (int i = 0; i < 100000; i++) {
		for (int k = 0; k < 20; k++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			path[k] = (uint32_t)(s % (k < 4 ? 3 : 30));
		}
		cr_assert_eq(calltree__add(t, path, 20, 1, 0, 0), 0);
	}
	cr_assert_eq(build(&l, t, CT_ROOT, 0, 200, 54, 0), 0);
	cr_assert_lt(l.n, 200 * 54 * 2);
	for (uint32_t i = 0; i < l.n; i++) {
		cr_assert_lt(l.box[i].e0, l.box[i].e1);
		cr_assert_leq(l.box[i].e1, 200 * LAYOUT_SUB);
		if (i && l.box[i].row == l.box[i - 1].row)
			cr_assert_geq(l.box[i].e0, l.box[i - 1].e1, "boxes overlap on row %d",
				      l.box[i].row);
	}
	layout__free(&l);
	calltree__delete(t);
}

/* -- Text --------------------------------------------------------------- */

static char *fit(const char *s, size_t cells, int utf8)
{
	wchar_t in[256], out[256];
	static char buf[257];
	size_t n = text__wide(s, in, 256, utf8), m = text__fit(in, n, out, cells, utf8);

	cr_assert_leq(m, cells);
	for (size_t i = 0; i < m; i++)
		buf[i] = out[i] < 128 ? (char)out[i] : '#';
	buf[m] = '\0';
	return buf;
}

Test(text, fit_keeps_the_name_and_elides_the_place)
{
	cr_assert_str_eq(fit("handler (app.lua:12)", 30, 0), "handler (app.lua:12)");
	cr_assert_str_eq(fit("handler (app.lua:12)", 13, 0), "handler (..)");
	cr_assert_str_eq(fit("handler (app.lua:12)", 10, 0), "handler..");
	cr_assert_str_eq(fit("burn_alpha", 6, 0), "burn..");
	cr_assert_str_eq(fit("burn_alpha", 2, 0), "..");
	cr_assert_str_eq(fit("burn_alpha", 1, 0), ".");
	cr_assert_str_eq(fit("burn_alpha", 0, 0), "");
	cr_assert_str_eq(fit("a\tb\x01" "c", 10, 0), "a?b?c", "controls");
	cr_assert_str_eq(fit("caf\xc3\xa9 \xff", 10, 0), "caf? ?", "no UTF-8: one '?' a char");
	{
		wchar_t in[64], out[64];
		size_t n = text__wide("handler (app.lua:12)", in, 64, 1);

		cr_assert_eq(text__fit(in, n, out, 11, 1), 11);
		cr_assert(!wmemcmp(out, L"handler (\x2026)", 11));
		cr_assert_eq(text__fit(in, n, out, 5, 1), 5);
		cr_assert(!wmemcmp(out, L"hand\x2026", 5));
	}
}

Test(text, numbers)
{
	char b[32];

	text__count(b, sizeof(b), 0);
	cr_assert_str_eq(b, "0");
	text__count(b, sizeof(b), 999);
	cr_assert_str_eq(b, "999");
	text__count(b, sizeof(b), 1234567.4);
	cr_assert_str_eq(b, "1,234,567");
	text__clock(b, sizeof(b), 75.9);
	cr_assert_str_eq(b, "01:15");
	text__clock(b, sizeof(b), 3 * 3600 + 62);
	cr_assert_str_eq(b, "3:01:02");
}

/* -- Keys --------------------------------------------------------------- */

Test(keys, one_action_per_key_and_every_action_bound)
{
	int bound[ACT__COUNT] = { 0 };

	for (size_t i = 0; i < keys__count; i++) {
		const struct keydef *k = &keys__table[i];

		cr_assert(k->act > ACT_NONE && k->act < ACT__COUNT);
		cr_assert(k->name && *k->name && k->help && *k->help);
		cr_assert_eq(!k->bar, !k->barkey, "%s: a bar label needs its key", k->name);
		bound[k->act]++;
		for (int j = 0; j < KEYS_MAX_CODES && k->code[j]; j++) {
			cr_assert_eq(keys__lookup(k->code[j]), k->act, "key %s bound twice",
				     k->name);
			for (size_t i2 = i + 1; i2 < keys__count; i2++)
				for (int j2 = 0; j2 < KEYS_MAX_CODES; j2++)
					cr_assert_neq(keys__table[i2].code[j2], k->code[j],
						      "%s and %s share a key", k->name,
						      keys__table[i2].name);
		}
	}
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++)
		cr_assert_eq(bound[a], 1, "action %d has %d table entries", a, bound[a]);
	cr_assert_eq(keys__lookup('q'), ACT_QUIT);
	cr_assert_eq(keys__lookup(KEY_F(1)), ACT_HELP);
	cr_assert_eq(keys__lookup('x'), ACT_NONE);
}

/* The key words of the .TP terms in the man page's LIVE VIEW section. */
static size_t man_keys(char words[][32], size_t max)
{
	FILE *f = fopen(MAN, "r");
	char line[512];
	int in = 0, term = 0;
	size_t n = 0;

	cr_assert_not_null(f, "cannot open " MAN " (run the tests from the top of the tree)");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ".SH", 3)) {
			in = !strcmp(line, ".SH LIVE VIEW");
			continue;
		}
		if (!in)
			continue;
		if (!strcmp(line, ".TP")) {
			term = 1;
			continue;
		}
		if (!term)
			continue;
		term = 0;
		/* ".B x" or ".BR a ", " b ...": the words outside quotes are keys. */
		for (char *p = strchr(line, ' '), *tok; p && *p;) {
			while (*p == ' ')
				p++;
			if (*p == '"') {
				p = strchr(p + 1, '"');
				p = p ? p + 1 : NULL;
				continue;
			}
			tok = p;
			p += strcspn(p, " ");
			if (p > tok && n < max) {
				size_t k = 0;

				for (char *q = tok; q < p && k < 31; q++)
					if (!(*q == '\\' && q[1] == '-'))	/* \- is - */
						words[n][k++] = *q;
				words[n++][k] = '\0';
			}
		}
	}
	fclose(f);
	return n;
}

Test(keys, man_page_lists_exactly_the_key_table)
{
	static char words[256][32];
	size_t n = man_keys(words, 256), used = 0;

	cr_assert_gt(n, 0, "no keys found in LIVE VIEW of " MAN);
	for (size_t i = 0; i < keys__count; i++) {
		char name[64], *save = NULL;

		snprintf(name, sizeof(name), "%s", keys__table[i].name);
		for (char *w = strtok_r(name, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			size_t j;

			for (j = 0; j < n && strcmp(words[j], w); j++)
				;
			cr_assert_lt(j, n, "key '%s' (%s) is not in LIVE VIEW of " MAN, w,
				     keys__table[i].help);
			used++;
		}
	}
	cr_assert_eq(used, n, "LIVE VIEW of " MAN " lists %zu keys, the table %zu", n, used);
}
