/*
** Search: an extended regular expression over frame names (smart case: a
** pattern without capitals ignores case), highlighted in the icicle; n and N
** walk the matches on screen in reading order (row by row, left to right).
*/
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"

/* Forget the pattern. */
void search__clear(struct ui *u)
{
	struct search *s = &u->search;

	if (s->on)
		regfree(&s->re);
	s->on = 0;
	s->text[0] = '\0';
	s->weight = 0;
	if (s->hit)
		memset(s->hit, 0, s->nhit);
}

/* Set the pattern; "" clears it. */
int search__set(struct ui *u, const char *text)
{
	struct search *s = &u->search;
	int flags = REG_EXTENDED | REG_NOSUB, rc;
	regex_t re;

	if (!*text) {
		search__clear(u);
		return 0;
	}
	flags |= REG_ICASE;
	for (const char *p = text; *p; p++)
		if (isupper((unsigned char)*p))
			flags &= ~REG_ICASE;
	rc = regcomp(&re, text, flags);
	if (rc) {
		char why[128];

		regerror(rc, &re, why, sizeof(why));
		ui__status(u, 1, "bad pattern /%s/: %s", text, why);
		return -EINVAL;
	}
	search__clear(u);
	s->re = re;
	s->on = 1;
	snprintf(s->text, sizeof(s->text), "%s", text);
	return 0;
}

/* Whether node's frame matches (memoized per frame id). */
int search__hit(struct ui *u, uint32_t node)
{
	if (!u->search.on || node == CT_ROOT)
		return 0;
	return search__frame(u, calltree__frame(u->tree, node));
}

int search__frame(struct ui *u, uint32_t f)
{
	struct search *s = &u->search;
	const struct frame *fr;

	if (!s->on)
		return 0;
	if (f >= s->nhit) {
		uint32_t n = frametab__count(u->feed->frames);
		unsigned char *h;

		if (f >= n)
			return 0;
		n += n / 2 + 64;
		h = realloc(s->hit, n);
		if (!h)
			return 0;
		memset(h + s->nhit, 0, n - s->nhit);
		s->hit = h;
		s->nhit = n;
	}
	if (!s->hit[f]) {
		fr = frametab__get(u->feed->frames, f);
		s->hit[f] = regexec(&s->re, fr && fr->name ? fr->name : "?", 0, NULL, 0) ? 1 : 2;
	}
	return s->hit[f] == 2;
}

/* Samples under matching frames of the zoomed subtree, each sample once. */
void search__update(struct ui *u)
{
	const struct calltree *t = u->tree;
	uint32_t x = u->top;
	double w = 0;

	u->search.weight = 0;
	if (!u->search.on)
		return;
	for (;;) {	/* preorder, not descending below a match */
		int hit = search__hit(u, x);

		if (hit)
			w += ui__weight(u, x);
		if (!hit && calltree__first(t, x) != CT_NONE) {
			x = calltree__first(t, x);
			continue;
		}
		while (x != u->top && calltree__next(t, x) == CT_NONE)
			x = calltree__parent(t, x);
		if (x == u->top)
			break;
		x = calltree__next(t, x);
	}
	u->search.weight = w;
}

/* The Top table's next or previous matching row, wrapping. */
static int step_rows(struct ui *u, int dir)
{
	long n = (long)u->flat.n;

	for (long k = 1; k <= n; k++) {
		long i = (((long)u->row + (dir > 0 ? k : -k)) % n + n) % n;

		if (search__frame(u, u->flat.rows[i].frame)) {
			u->row = (uint32_t)i;
			return 0;
		}
	}
	return -ENOENT;
}

/* Select the next or previous match on screen, in reading order, wrapping
** (in the Top table: the next matching row). */
int search__step(struct ui *u, int dir)
{
	const struct layout *l = &u->lay;
	int cur = layout__find(l, u->sel), n = (int)l->n;

	if (u->search.on && u->mode == UI_TOP)
		return step_rows(u, dir);
	if (!u->search.on || !n)
		return -ENOENT;
	if (cur < 0)
		cur = dir > 0 ? -1 : n;
	for (int k = 1; k <= n; k++) {
		int i = ((cur + (dir > 0 ? k : -k)) % n + n) % n;

		if (!(l->box[i].flags & BOX_POOL) && search__hit(u, l->box[i].node)) {
			ui__select(u, l->box[i].node);
			return 0;
		}
	}
	return -ENOENT;
}
