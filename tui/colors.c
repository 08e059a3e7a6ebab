/*
** Colour schemes: monochrome (NO_COLOR, or a terminal without colours),
** 8 colours, 256 colours. Hue encodes the frame kind
** (research/tui_survey.md c3): JIT green, interpreted Lua aqua, C called from
** Lua yellow, other native code warm red, kernel orange (blue in 8 colours),
** fallback magenta and underlined, so it shows without colour too. Frames the
** JIT inlined are a paler green (256 colours), and marked in every scheme.
*/
#include <stdlib.h>

#include "tui/colors.h"

#define DEF	-1	/* the terminal's default colour */

struct style {
	short fg, bg;
	attr_t attr;
};

static const struct style styles[SCHEME__COUNT][CR__COUNT] = {
	[SCHEME_MONO] = {
		[CR_NORMAL]	  = { DEF, DEF, A_NORMAL },
		[CR_TITLE]	  = { DEF, DEF, A_REVERSE },
		[CR_HEADER]	  = { DEF, DEF, A_NORMAL },
		[CR_BADGE]	  = { DEF, DEF, A_BOLD },
		[CR_LIVE]	  = { DEF, DEF, A_REVERSE | A_BOLD },
		[CR_FROZEN]	  = { DEF, DEF, A_REVERSE | A_BOLD },
		[CR_EXITED]	  = { DEF, DEF, A_REVERSE | A_BOLD },
		[CR_WARN]	  = { DEF, DEF, A_BOLD },
		[CR_BOX_NATIVE]	  = { DEF, DEF, A_REVERSE },
		[CR_BOX_KERNEL]	  = { DEF, DEF, A_REVERSE },
		[CR_BOX_LUA]	  = { DEF, DEF, A_REVERSE },
		[CR_BOX_LUA_JIT]  = { DEF, DEF, A_REVERSE },
		[CR_BOX_LUA_INLINED] = { DEF, DEF, A_REVERSE },
		[CR_BOX_LUA_C]	  = { DEF, DEF, A_REVERSE },
		[CR_BOX_SPECIAL]  = { DEF, DEF, A_REVERSE | A_DIM },
		[CR_BOX_FALLBACK] = { DEF, DEF, A_REVERSE | A_UNDERLINE },
		[CR_BOX_POOL]	  = { DEF, DEF, A_DIM },
		[CR_SELECTED]	  = { DEF, DEF, A_BOLD },
		[CR_MATCH]	  = { DEF, DEF, A_BOLD | A_UNDERLINE },
		[CR_MORE]	  = { DEF, DEF, A_DIM },
		[CR_SELLINE]	  = { DEF, DEF, A_BOLD },
		[CR_CRUMB]	  = { DEF, DEF, A_NORMAL },
		[CR_STATUS]	  = { DEF, DEF, A_NORMAL },
		[CR_ERROR]	  = { DEF, DEF, A_BOLD },
		[CR_KEY]	  = { DEF, DEF, A_BOLD },
		[CR_KEYLABEL]	  = { DEF, DEF, A_REVERSE },
		[CR_HELP_KEY]	  = { DEF, DEF, A_BOLD },
		[CR_HELP]	  = { DEF, DEF, A_NORMAL },
		[CR_BAD]	  = { DEF, DEF, A_BOLD | A_UNDERLINE },
		[CR_GOOD]	  = { DEF, DEF, A_BOLD },
		[CR_DIFF_GREW]	  = { DEF, DEF, A_REVERSE | A_BOLD },
		[CR_DIFF_SHRANK]  = { DEF, DEF, A_DIM },
	},
	[SCHEME_8] = {
		[CR_NORMAL]	  = { DEF, DEF, A_NORMAL },
		[CR_TITLE]	  = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		[CR_HEADER]	  = { DEF, DEF, A_NORMAL },
		[CR_BADGE]	  = { COLOR_BLACK, COLOR_WHITE, A_BOLD },
		[CR_LIVE]	  = { COLOR_BLACK, COLOR_GREEN, A_BOLD },
		[CR_FROZEN]	  = { COLOR_BLACK, COLOR_YELLOW, A_BOLD },
		[CR_EXITED]	  = { COLOR_WHITE, COLOR_RED, A_BOLD },
		[CR_WARN]	  = { COLOR_RED, DEF, A_BOLD },
		[CR_BOX_NATIVE]	  = { COLOR_BLACK, COLOR_RED, A_NORMAL },
		[CR_BOX_KERNEL]	  = { COLOR_WHITE, COLOR_BLUE, A_NORMAL },
		[CR_BOX_LUA]	  = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		[CR_BOX_LUA_JIT]  = { COLOR_BLACK, COLOR_GREEN, A_NORMAL },
		[CR_BOX_LUA_INLINED] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL },
		[CR_BOX_LUA_C]	  = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL },
		[CR_BOX_SPECIAL]  = { COLOR_BLACK, COLOR_WHITE, A_NORMAL },
		[CR_BOX_FALLBACK] = { COLOR_BLACK, COLOR_MAGENTA, A_UNDERLINE },
		[CR_BOX_POOL]	  = { COLOR_WHITE, COLOR_BLACK, A_NORMAL },
		[CR_SELECTED]	  = { COLOR_BLACK, COLOR_WHITE, A_BOLD | A_REVERSE },
		[CR_MATCH]	  = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[CR_MORE]	  = { COLOR_CYAN, DEF, A_NORMAL },
		[CR_SELLINE]	  = { DEF, DEF, A_BOLD },
		[CR_CRUMB]	  = { COLOR_CYAN, DEF, A_NORMAL },
		[CR_STATUS]	  = { DEF, DEF, A_NORMAL },
		[CR_ERROR]	  = { COLOR_RED, DEF, A_BOLD },
		[CR_KEY]	  = { DEF, DEF, A_BOLD },
		[CR_KEYLABEL]	  = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		[CR_HELP_KEY]	  = { COLOR_YELLOW, DEF, A_BOLD },
		[CR_HELP]	  = { DEF, DEF, A_NORMAL },
		[CR_BAD]	  = { COLOR_RED, DEF, A_BOLD },
		[CR_GOOD]	  = { COLOR_GREEN, DEF, A_BOLD },
		[CR_DIFF_GREW]	  = { COLOR_WHITE, COLOR_RED, A_BOLD },
		[CR_DIFF_SHRANK]  = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
	},
	[SCHEME_256] = {
		[CR_NORMAL]	  = { DEF, DEF, A_NORMAL },
		[CR_TITLE]	  = { 231, 24, A_NORMAL },
		[CR_HEADER]	  = { 252, 236, A_NORMAL },
		[CR_BADGE]	  = { 16, 252, A_BOLD },
		[CR_LIVE]	  = { 16, 114, A_BOLD },
		[CR_FROZEN]	  = { 16, 220, A_BOLD },
		[CR_EXITED]	  = { 231, 160, A_BOLD },
		[CR_WARN]	  = { 203, 236, A_BOLD },
		[CR_BOX_NATIVE]	  = { 16, 174, A_NORMAL },
		[CR_BOX_KERNEL]	  = { 16, 214, A_NORMAL },
		[CR_BOX_LUA]	  = { 16, 80, A_NORMAL },
		[CR_BOX_LUA_JIT]  = { 16, 114, A_NORMAL },
		[CR_BOX_LUA_INLINED] = { 16, 157, A_NORMAL },
		[CR_BOX_LUA_C]	  = { 16, 186, A_NORMAL },
		[CR_BOX_SPECIAL]  = { 16, 250, A_NORMAL },
		[CR_BOX_FALLBACK] = { 231, 127, A_UNDERLINE },
		[CR_BOX_POOL]	  = { 250, 238, A_NORMAL },
		[CR_SELECTED]	  = { 16, 231, A_BOLD },
		[CR_MATCH]	  = { 231, 33, A_BOLD },
		[CR_MORE]	  = { 110, DEF, A_NORMAL },
		[CR_SELLINE]	  = { 231, DEF, A_BOLD },
		[CR_CRUMB]	  = { 110, DEF, A_NORMAL },
		[CR_STATUS]	  = { 252, DEF, A_NORMAL },
		[CR_ERROR]	  = { 203, DEF, A_BOLD },
		[CR_KEY]	  = { 231, DEF, A_BOLD },
		[CR_KEYLABEL]	  = { 16, 110, A_NORMAL },
		[CR_HELP_KEY]	  = { 220, DEF, A_BOLD },
		[CR_HELP]	  = { 252, DEF, A_NORMAL },
		[CR_BAD]	  = { 203, DEF, A_BOLD },
		[CR_GOOD]	  = { 114, DEF, A_BOLD },
		[CR_DIFF_GREW]	  = { 231, 160, A_BOLD },
		[CR_DIFF_SHRANK]  = { 16, 75, A_NORMAL },
	},
};

static enum scheme scheme = SCHEME_MONO;
static short role_pair[CR__COUNT];

/* Colour pairs are made on first use: keys are (fg, bg) colour numbers. */
#define MAXCOL	257
static short *pairs;		/* [(fg + 1) * MAXCOL + bg + 1] -> pair, 0 = none yet */
static short npairs;

/* The pair for colours (fg, bg), made if needed; 0 (default) when pairs run out. */
static short pair_of(short fg, short bg)
{
	size_t k;

	if (!pairs || fg >= MAXCOL - 1 || bg >= MAXCOL - 1)
		return 0;
	k = (size_t)(fg + 1) * MAXCOL + (size_t)(bg + 1);
	if (!pairs[k]) {
		if (npairs + 1 >= COLOR_PAIRS || npairs + 1 > 255)
			return 0;
		if (init_pair((short)(npairs + 1), fg, bg) == ERR)
			return 0;
		pairs[k] = ++npairs;
	}
	return pairs[k];
}

/* Pick the scheme and make the pairs of every role. */
enum scheme colors__init(void)
{
	const char *nc = getenv("NO_COLOR");

	scheme = SCHEME_MONO;
	if ((!nc || !*nc) && has_colors() && start_color() != ERR) {
		use_default_colors();
		scheme = COLORS >= 256 ? SCHEME_256 : COLORS >= 8 ? SCHEME_8 : SCHEME_MONO;
	}
	if (scheme != SCHEME_MONO && !pairs)
		pairs = calloc((size_t)MAXCOL * MAXCOL, sizeof(*pairs));
	for (int r = 0; r < CR__COUNT; r++) {
		const struct style *s = &styles[scheme][r];

		role_pair[r] = scheme == SCHEME_MONO ? 0 : pair_of(s->fg, s->bg);
	}
	return scheme;
}

/* The scheme in use. */
enum scheme colors__scheme(void)
{
	return scheme;
}

/* A role's attributes and colour pair. */
void colors__get(enum role r, attr_t *attr, short *pair)
{
	*attr = styles[scheme][r].attr;
	*pair = role_pair[r];
}

/* A role's attributes with its pair folded in. */
attr_t colors__attr(enum role r)
{
	return styles[scheme][r].attr | COLOR_PAIR(role_pair[r]);
}

/* Pair for a cell whose left part shows left's background and the rest right's. */
short colors__split(enum role left, enum role right)
{
	if (scheme == SCHEME_MONO)
		return 0;
	return pair_of(styles[scheme][left].bg, styles[scheme][right].bg);
}

/* The box role of a frame kind. */
enum role colors__kind(enum frame_kind k)
{
	switch (k) {
	case FRAME_KERNEL:	return CR_BOX_KERNEL;
	case FRAME_LUA:		return CR_BOX_LUA;
	case FRAME_LUA_JIT:	return CR_BOX_LUA_JIT;
	case FRAME_LUA_C:	return CR_BOX_LUA_C;
	case FRAME_SPECIAL:	return CR_BOX_SPECIAL;
	default:		return CR_BOX_NATIVE;
	}
}
