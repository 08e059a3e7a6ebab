/*
** Footer: the selected frame (full name, kind, total and self share), the
** breadcrumb from the root, the status line (prompt, message or search),
** and the key bar generated from the key table.
*/
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/colors.h"
#include "tui/keys.h"
#include "tui/text.h"
#include "tui/ui.h"

#define CRUMB_MAX	16384	/* bytes of breadcrumb text */
#define CRUMB_DEPTH	64	/* frames named in it, nearest the selection */

static const char *kind_name(enum frame_kind k)
{
	switch (k) {
	case FRAME_KERNEL:	return "kernel";
	case FRAME_LUA:		return "Lua";
	case FRAME_LUA_JIT:	return "Lua JIT";
	case FRAME_LUA_C:	return "C from Lua";
	case FRAME_SPECIAL:	return "marker";
	default:		return "native";
	}
}

/* ", JIT 63% (trace 12, inlined), interpreted 37%" for a Lua frame that ran in a
** trace: one frame per function, the share of each state an attribute. */
static void jit_note(struct ui *u, char *out, size_t len)
{
	uint32_t tr = calltree__trace(u->tree, u->sel);
	double jit = ui__jit_share(u, u->sel);
	char trace[48] = "";

	out[0] = '\0';
	if (u->sel == CT_ROOT || jit <= 0)
		return;
	if (tr)
		snprintf(trace, sizeof(trace), " (trace %u%s)", tr,
			 ui__is_inlined(u, u->sel) ? ", inlined" : "");
	if (jit >= 0.9995)
		snprintf(out, len, ", JIT%s", trace);
	else
		snprintf(out, len, ", JIT %.0f%%%s, interpreted %.0f%%", 100 * jit, trace,
			 100 * (1 - jit));
}

/* The selected frame: name, kind, total and self. */
static void selection(struct ui *u, int y)
{
	const struct frame *f = frametab__get(u->feed->frames, calltree__frame(u->tree, u->sel));
	double all = ui__weight(u, CT_ROOT), tot = ui__weight(u, u->sel);
	double self = calltree__self(u->tree, u->sel, u->win, u->fb);
	double zoom = ui__weight(u, u->top);
	char buf[512], n1[32], n2[32], jit[96];
	int x;

	jit_note(u, jit, sizeof(jit));
	ui__fill(y, 0, COLS, CR_SELLINE);
	snprintf(buf, sizeof(buf), " %s ", u->utf8 ? "\xe2\x96\xb6" : ">");
	x = ui__put(u, y, 0, COLS, CR_SELLINE, buf);
	x += ui__put(u, y, x, COLS - x, CR_SELLINE, ui__name(u, u->sel));
	ui__amount(u, n1, sizeof(n1), tot);
	ui__amount(u, n2, sizeof(n2), self);
	snprintf(buf, sizeof(buf), " [%s%s%s]  total %.1f%% (%s)  self %.1f%% (%s)",
		 u->sel == CT_ROOT ? "root" : kind_name(f ? f->kind : FRAME_NATIVE), jit,
		 u->sel != CT_ROOT && ui__is_fallback(u, u->sel) ? ", fallback" : "",
		 all > 0 ? 100 * tot / all : 0, n1, all > 0 ? 100 * self / all : 0, n2);
	x += ui__put(u, y, x, COLS - x, CR_SELLINE, buf);
	if (ui__base(u) && u->sel != CT_ROOT) {
		snprintf(buf, sizeof(buf), "  diff %+.1f%%", ui__diff(u, u->sel, NULL));
		x += ui__put(u, y, x, COLS - x, CR_SELLINE, buf);
	}
	if (u->top != CT_ROOT) {
		snprintf(buf, sizeof(buf), "%s%.1f%% of zoom", u->utf8 ? "  \xe2\x94\x82 " : "  | ",
			 zoom > 0 ? 100 * tot / zoom : 0);
		ui__put(u, y, x, COLS - x, CR_SELLINE, buf);
	}
}

/* all › a › b › selected, cut at the left when too long. */
static void breadcrumb(struct ui *u, int y)
{
	static char buf[CRUMB_MAX];
	const char *arrow = u->utf8 ? " \xe2\x80\xba " : " > ";
	uint32_t chain[CRUMB_DEPTH], n = 0, x = u->sel;
	size_t len = 0;
	wchar_t w[CRUMB_MAX];
	size_t nw;

	while (x != CT_NONE && n < CRUMB_DEPTH) {
		chain[n++] = x;
		x = calltree__parent(u->tree, x);
	}
	buf[0] = '\0';
	if (x != CT_NONE)
		len += (size_t)snprintf(buf, sizeof(buf), "%s", u->utf8 ? "\xe2\x80\xa6" : "...");
	while (n-- && len < sizeof(buf))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					len ? arrow : " ", ui__name(u, chain[n]));
	ui__fill(y, 0, COLS, CR_CRUMB);
	nw = text__wide(buf, w, CRUMB_MAX - 1, u->utf8);
	w[nw] = 0;
	if ((int)nw > COLS) {
		/* Keep the end, where the selection is. */
		size_t cut = nw - (size_t)COLS + 1;

		w[cut] = u->utf8 ? 0x2026 : '<';
		attrset(colors__attr(CR_CRUMB));
		mvaddnwstr(y, 0, w + cut, COLS);
		attrset(A_NORMAL);
		return;
	}
	ui__put(u, y, 0, COLS, CR_CRUMB, buf);
}

/* Prompt, message, or what the search finds. */
static void status(struct ui *u, int y)
{
	char buf[600];

	ui__fill(y, 0, COLS, CR_STATUS);
	if (u->prompt) {
		snprintf(buf, sizeof(buf), "%s%s_", u->prompt == PROMPT_SEARCH ? "/" :
			 "refresh every (seconds): ", u->line);
		ui__put(u, y, 0, COLS, CR_STATUS, buf);
		return;
	}
	if (u->status[0] && (!u->status_until || ui__now() < u->status_until)) {
		ui__put(u, y, 0, COLS, u->status_err ? CR_ERROR : CR_STATUS, u->status);
		return;
	}
	u->status[0] = '\0';
	if (u->search.on) {
		double all = ui__weight(u, u->top);

		snprintf(buf, sizeof(buf), "match /%s/ %.1f%% of %s (n next, N previous)",
			 u->search.text, all > 0 ? 100 * u->search.weight / all : 0,
			 u->top == CT_ROOT ? "all" : "zoom");
		ui__put(u, y, 0, COLS, CR_STATUS, buf);
	}
}

/* The key bar: keys and labels of the table entries that have one. */
static void keybar(struct ui *u, int y)
{
	int x = 0, short_bar = COLS < 80;

	ui__fill(y, 0, COLS, CR_NORMAL);
	for (size_t i = 0; i < keys__count && x < COLS; i++) {
		const struct keydef *k = &keys__table[i];

		if (!k->bar)
			continue;
		x += ui__put(u, y, x, COLS - x, CR_KEY, k->barkey);
		if (!short_bar)
			x += ui__put(u, y, x, COLS - x, CR_KEYLABEL, k->bar);
		x += ui__put(u, y, x, COLS - x, CR_NORMAL, " ");
	}
}

/* Draw the footer lines under the icicle. */
void footer__draw(struct ui *u)
{
	int y = u->body_y + u->body_h;

	if (u->mode == UI_TOP)
		top__footer(u, y++);
	else
		selection(u, y++);
	if (u->crumb && u->mode != UI_TOP)
		breadcrumb(u, y);
	y += u->crumb;
	status(u, y++);
	keybar(u, y);
}
