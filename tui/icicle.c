/*
** Icicle drawing: the layout's boxes into terminal cells, row by row.
**
** Box edges are in eighths of a cell. A cell wholly inside a box shows the
** box's colour and a character of its label. A cell that an edge cuts shows
** a left-block glyph (▏▎▍▌▋▊▉) whose foreground is the left box's colour and
** whose background is the right box's: widths keep sub-cell precision.
** Where colour cannot tell two touching boxes apart (same colour, or no
** colour at all) the right one starts with a thin bar. Fallback frames are
** magenta, underlined, and marked ▚ ('!' in ASCII) before their name; frames
** a JIT trace inlined are marked » ('>').
*/
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "tui/colors.h"
#include "tui/text.h"
#include "tui/ui.h"

#define MAXCOLS		1024	/* widest row drawn */
#define NAME_MAX_CH	512	/* characters of a name considered for a label */
#define DIFF_MIN	0.5	/* points of share a frame must change by to be marked */

/* What a cell shows. */
struct cell {
	short left;		/* box index owning the cell's left part, -1: none */
	short right;		/* box index of the right part of a cut cell, -1: none */
	unsigned char k;	/* eighths of the cell that belong to left (8: all) */
	wchar_t ch;		/* character when k == 8 */
	attr_t extra;		/* attributes added to the owner's (underline) */
};

static const wchar_t blocks[8] = { L' ', 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a,
				   0x2589 };	/* 0..7 eighths from the left */

/* The role a box is drawn in. */
static enum role box_role(struct ui *u, const struct box *b)
{
	const struct frame *f;

	if (b->flags & BOX_POOL)
		return CR_BOX_POOL;
	if (b->node == u->sel)
		return CR_SELECTED;
	if (search__hit(u, b->node))
		return CR_MATCH;
	if (ui__is_fallback(u, b->node))
		return CR_BOX_FALLBACK;
	if (b->node == CT_ROOT)
		return CR_BOX_SPECIAL;
	if (ui__base(u)) {	/* the live diff: grew or shrank by half a point or more */
		double d = ui__diff(u, b->node, NULL);

		if (d >= DIFF_MIN || d <= -DIFF_MIN)
			return d > 0 ? CR_DIFF_GREW : CR_DIFF_SHRANK;
	}
	if (ui__is_inlined(u, b->node))
		return CR_BOX_LUA_INLINED;
	f = frametab__get(u->feed->frames, calltree__frame(u->tree, b->node));
	if (f && f->kind == FRAME_LUA && ui__jit_share(u, b->node) * 2 > 1)
		return CR_BOX_LUA_JIT;	/* coloured by how it mostly ran */
	return colors__kind(f ? f->kind : FRAME_NATIVE);
}

/* Write box i's label into its whole cells [c0, c1). */
static void label(struct ui *u, const struct box *b, struct cell *row, int c0, int c1,
		  int fallback)
{
	wchar_t name[NAME_MAX_CH], out[MAXCOLS];
	size_t n = 0, m;
	int cells = c1 - c0;

	if (cells <= 0)
		return;
	if (!(b->flags & BOX_POOL) && b->node != CT_ROOT && ui__base(u)) {
		double d = ui__diff(u, b->node, NULL);	/* marked without colour too */

		if (d >= DIFF_MIN)
			name[n++] = u->utf8 ? 0x25b2 : '+';	/* ▲ */
		else if (d <= -DIFF_MIN)
			name[n++] = u->utf8 ? 0x25bc : '-';	/* ▼ */
	}
	if (fallback)
		name[n++] = u->utf8 ? 0x259a : '!';	/* ▚ */
	else if (!(b->flags & BOX_POOL) && ui__is_inlined(u, b->node))
		name[n++] = u->utf8 ? 0x00bb : '>';	/* » */
	if (b->flags & BOX_POOL)
		name[n++] = u->utf8 ? 0x2026 : '.';
	else
		n += text__wide(ui__name(u, b->node), name + n, NAME_MAX_CH - n, u->utf8);
	if (u->mode == UI_FOCUS && !(b->flags & BOX_POOL) && n + 16 < NAME_MAX_CH) {
		/* The focus view: each caller's and callee's share of the function. */
		double all = calltree__weight(u->tree, CT_ROOT, CT_CUMULATIVE, 0);
		char pct[16];

		snprintf(pct, sizeof(pct), " %.1f%%", all > 0 ? 100 * calltree__weight(u->tree,
			 b->node, CT_CUMULATIVE, 0) / all : 0);
		n += text__wide(pct, name + n, NAME_MAX_CH - n, u->utf8);
	}
	m = text__fit(name, n, out, (size_t)cells, u->utf8);
	for (size_t i = 0; i < m; i++)
		row[c0 + (int)i].ch = out[i];
}

/* Lay the boxes [from, to) of layout l onto one row of cells. */
static void fill_row(struct ui *u, const struct layout *l, uint32_t from, uint32_t to,
		     struct cell *row, int cols, enum role *roles)
{
	int mono = colors__scheme() == SCHEME_MONO;
	int32_t prev_e1 = -1;
	enum role prev_role = CR_NORMAL;

	for (int c = 0; c < cols; c++)
		row[c] = (struct cell){ -1, -1, 8, L' ', 0 };
	for (uint32_t i = from; i < to; i++) {
		const struct box *b = &l->box[i];
		int bi = (int)(i - from);
		int fb = !(b->flags & BOX_POOL) && ui__is_fallback(u, b->node);
		int cf = (b->e0 + LAYOUT_SUB - 1) / LAYOUT_SUB;	/* first whole cell */
		int ce = b->e1 / LAYOUT_SUB;				/* after the last */
		enum role r = box_role(u, b);
		int c;

		roles[bi] = r;
		if (ce > cols)
			ce = cols;
		/* A cut cell at the left edge: its left part is whatever was there. */
		if (b->e0 % LAYOUT_SUB && b->e0 / LAYOUT_SUB < cols) {
			struct cell *x = &row[b->e0 / LAYOUT_SUB];

			if (x->left < 0 || x->k == 8)
				x->k = (unsigned char)(b->e0 % LAYOUT_SUB);
			x->right = (short)bi;
		}
		for (c = cf; c < ce; c++)
			row[c] = (struct cell){ (short)bi, -1, 8, L' ', fb ? A_UNDERLINE : 0 };
		/* A cut cell at the right edge: this box owns its left part. */
		if (b->e1 % LAYOUT_SUB && b->e1 / LAYOUT_SUB < cols && ce >= cf) {
			struct cell *x = &row[b->e1 / LAYOUT_SUB];

			*x = (struct cell){ (short)bi, -1, (unsigned char)(b->e1 % LAYOUT_SUB),
					    L' ', 0 };
		}
		/* Touching a box that colour does not tell apart: a thin bar first. */
		if (cf < ce && prev_e1 == b->e0 && (mono || prev_role == r)) {
			row[cf].ch = u->utf8 ? 0x258f : '|';
			cf++;
		}
		label(u, b, row, cf, ce, fb);
		prev_e1 = b->e1;
		prev_role = r;
	}
}

/* Put one row of cells on the screen. */
static void put_row(struct ui *u, int y, const struct cell *row, int cols,
		    const enum role *roles)
{
	int mono = colors__scheme() == SCHEME_MONO;

	for (int c = 0; c < cols; c++) {
		const struct cell *x = &row[c];
		wchar_t wc[2] = { L' ', 0 };
		attr_t attr = A_NORMAL;
		short pair = 0;
		cchar_t cc;

		if (x->k == 8 || (x->left < 0 && x->right < 0)) {
			if (x->left >= 0)
				colors__get(roles[x->left], &attr, &pair);
			wc[0] = x->ch;
			attr |= x->extra;
		} else if (mono || !u->utf8) {
			/* No colours or no block glyphs: the cell goes to the larger part. */
			int owner = x->k >= LAYOUT_SUB / 2 || x->right < 0 ? x->left : x->right;

			if (owner >= 0)
				colors__get(roles[owner], &attr, &pair);
		} else {
			enum role l = x->left >= 0 ? roles[x->left] : CR_NORMAL;
			enum role r = x->right >= 0 ? roles[x->right] : CR_NORMAL;

			wc[0] = blocks[x->k];
			pair = colors__split(l, r);
		}
		setcchar(&cc, wc, attr, pair, NULL);
		mvadd_wch(y, c, &cc);
	}
}

/* The message in an empty icicle. */
static void empty(struct ui *u)
{
	char msg[96];

	if (u->fb_only)
		snprintf(msg, sizeof(msg), "no fallback stacks in this window");
	else if (u->window == CT_SLIDING)
		snprintf(msg, sizeof(msg), "no samples in the last %u s",
			 calltree__span(u->tree));
	else
		snprintf(msg, sizeof(msg), "no samples yet");
	ui__put(u, u->body_y + u->body_h / 2, (COLS - (int)strlen(msg)) / 2 > 0 ?
		(COLS - (int)strlen(msg)) / 2 : 0, COLS, CR_MORE, msg);
}

/* Draw the rows of layout l from screen row y0, downwards (dir 1) or upwards
** (dir -1), at most n of them. */
static void draw_rows(struct ui *u, const struct layout *l, int y0, int dir, int n)
{
	static struct cell row[MAXCOLS];
	static enum role roles[MAXCOLS * 2];
	int cols = COLS < MAXCOLS ? COLS : MAXCOLS;

	for (int r = 0; r < l->rows && r < n; r++) {
		uint32_t from = l->row[r], to = l->row[r + 1];

		if (to - from > MAXCOLS * 2)
			to = from + MAXCOLS * 2;
		fill_row(u, l, from, to, row, cols, roles);
		put_row(u, y0 + dir * r, row, cols, roles);
	}
}

/* The focus view's callers: an icicle upwards from the function, drawn with
** the callers' tree as the one shown (names, colours) and nothing selected. */
static void draw_callers(struct ui *u)
{
	const struct calltree *t = u->tree;
	uint32_t sel = u->sel;

	u->tree = u->callers;
	u->sel = CT_NONE;
	if (!u->lay_up.n)
		ui__put(u, u->body_y + u->up_h - 1, 1, COLS - 1, CR_MORE,
			"no callers: the stacks begin with it");
	draw_rows(u, &u->lay_up, u->body_y + u->up_h - 1, -1, u->up_h);
	u->tree = t;
	u->sel = sel;
}

/* Draw the icicle rows (in the focus view, the callers above them). */
void icicle__draw(struct ui *u)
{
	const struct layout *l = &u->lay;
	int cols = COLS < MAXCOLS ? COLS : MAXCOLS;

	if (u->mode == UI_FOCUS && u->callers)
		draw_callers(u);
	if (!l->n) {
		empty(u);
		return;
	}
	draw_rows(u, l, u->body_y + u->up_h, 1, u->body_h - u->up_h);
	if (l->more) {
		char more[64];
		int w;

		snprintf(more, sizeof(more), " %s %d more level%s (j, PgDn) ",
			 u->utf8 ? "\xe2\x96\xbc" : "v", l->more, l->more == 1 ? "" : "s");
		w = (int)strlen(more) - (u->utf8 ? 2 : 0);
		ui__put(u, u->body_y + u->body_h - 1, cols - w > 0 ? cols - w : 0, w, CR_MORE,
			more);
	}
}
