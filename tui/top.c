/*
** The Top table: one row per function (per line with --lines) of the shown
** tree, self and total share and weight, name and module; sorted by self or
** total (o); the selected row opens its callers and callees (Enter).
*/
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/colors.h"
#include "tui/text.h"
#include "tui/ui.h"

#define NUMS_W	42	/* "  SELF%  TOTAL%        SELF       TOTAL  " */

/* The text of a frame: its name, and its module or chunk when it has one. */
static void frame_text(const struct ui *u, uint32_t frame, char *out, size_t outsz)
{
	const struct frame *f = frametab__get(u->feed->frames, frame);

	if (!f)
		snprintf(out, outsz, "?");
	else if (f->module && *f->module && f->kind != FRAME_LUA)
		snprintf(out, outsz, "%s  (%s)", f->name ? f->name : "?", f->module);
	else
		snprintf(out, outsz, "%s", f->name ? f->name : "?");
}

/* One row of the table at screen row y. */
static void draw_row(struct ui *u, int y, const struct flat_row *r, int selected)
{
	double all = u->flat.all > 0 ? u->flat.all : 1;
	char self[32], total[32], nums[96], name[1100];
	const struct frame *f = frametab__get(u->feed->frames, r->frame);
	enum role role = selected ? CR_SELECTED : search__frame(u, r->frame) ? CR_MATCH :
			 CR_NORMAL;
	int x;

	ui__amount(u, self, sizeof(self), r->self);
	ui__amount(u, total, sizeof(total), r->total);
	snprintf(nums, sizeof(nums), " %6.1f%% %6.1f%% %11s %11s  ", 100 * r->self / all,
		 100 * r->total / all, self, total);
	if (u->base_flat_of) {	/* the diff: the change of its self share since the baseline */
		double ball = u->base_flat.all > 0 ? u->base_flat.all : 1;
		double d = 100 * r->self / all - 100 * flat__self_of(&u->base_flat, r->frame) / ball;
		size_t len = strlen(nums);

		snprintf(nums + len, sizeof(nums) - len, "%+6.1f%%  ", d);
	}
	ui__fill(y, 0, COLS, role);
	x = ui__put(u, y, 0, COLS, role, nums);
	frame_text(u, r->frame, name, sizeof(name));
	/* The name in the colour of its kind, as in the icicle. */
	ui__put(u, y, x, COLS - x, selected || role == CR_MATCH ? role :
		colors__kind(f ? f->kind : FRAME_NATIVE), name);
}

void top__draw(struct ui *u)
{
	static const char *const by[FLAT_SORT__COUNT] = { "self", "total" };
	const struct calltree *base = ui__base(u);
	char head[160];
	int rows = u->body_h - 1;

	/* The diff's column: the baseline's table, built once per baseline shown. */
	if (base && u->base_flat_of != base &&
	    !flat__build(&u->base_flat, base, u->win, u->fb, FLAT_BY_SELF))
		u->base_flat_of = base;
	if (!base)
		u->base_flat_of = NULL;

	snprintf(head, sizeof(head), "   SELF%%  TOTAL%%        SELF       TOTAL  %sFUNCTION"
		 "  (sorted by %s; o: sort, Enter: callers/callees, t: icicle)",
		 u->base_flat_of ? "  DIFF   " : "", by[u->sort]);
	ui__fill(u->body_y, 0, COLS, CR_HEADER);
	ui__put(u, u->body_y, 0, COLS, CR_HEADER, head);
	if (!u->flat.n) {
		ui__put(u, u->body_y + 2, 2, COLS - 2, CR_MORE, "no samples yet");
		return;
	}
	for (int i = 0; i < rows && u->row_first + (uint32_t)i < u->flat.n; i++) {
		uint32_t k = u->row_first + (uint32_t)i;

		draw_row(u, u->body_y + 1 + i, &u->flat.rows[k], k == u->row);
	}
}

void top__footer(struct ui *u, int y)
{
	char buf[1200], name[1100];
	const struct flat_row *r = u->flat.n ? &u->flat.rows[u->row] : NULL;

	ui__fill(y, 0, COLS, CR_SELLINE);
	if (!r) {
		ui__put(u, y, 0, COLS, CR_SELLINE, " Top: no functions yet");
		return;
	}
	frame_text(u, r->frame, name, sizeof(name));
	snprintf(buf, sizeof(buf), " %s %s  row %u of %u", u->utf8 ? "\xe2\x96\xb6" : ">",
		 name, u->row + 1, u->flat.n);
	ui__put(u, y, 0, COLS, CR_SELLINE, buf);
}
