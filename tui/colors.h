/*
** Colours by role (htop's CRT_colors): one enum of what things are, one
** [scheme][role] table of how they look. Drawing code names roles only.
*/
#ifndef LUATOP_TUI_COLORS_H
#define LUATOP_TUI_COLORS_H

#include <curses.h>

#include "profile/frames.h"

enum role {
	CR_NORMAL,
	CR_TITLE,		/* header line 1 */
	CR_HEADER,		/* header line 2 */
	CR_BADGE,		/* MERGED, RAW, FALLBACK ONLY */
	CR_LIVE,
	CR_FROZEN,
	CR_EXITED,
	CR_WARN,		/* a share above its threshold */
	CR_BOX_NATIVE,		/* icicle boxes by frame kind ... */
	CR_BOX_KERNEL,
	CR_BOX_LUA,
	CR_BOX_LUA_JIT,
	CR_BOX_LUA_INLINED,	/* a Lua frame the JIT inlined into its caller's trace */
	CR_BOX_LUA_C,
	CR_BOX_SPECIAL,
	CR_BOX_FALLBACK,	/* ... a frame of fallback stacks (also underlined) */
	CR_BOX_POOL,		/* frames under one cell */
	CR_SELECTED,
	CR_MATCH,		/* search hit */
	CR_MORE,		/* "N more levels" */
	CR_SELLINE,		/* footer: selected frame */
	CR_CRUMB,		/* footer: breadcrumb */
	CR_STATUS,
	CR_ERROR,
	CR_KEY,			/* key bar: key */
	CR_KEYLABEL,		/* key bar: label */
	CR_HELP_KEY,
	CR_HELP,
	CR_BAD,			/* too small: what is wrong */
	CR_GOOD,
	CR_DIFF_GREW,		/* live diff: a frame whose share grew since the baseline */
	CR_DIFF_SHRANK,		/* ... shrank */
	CR__COUNT
};

enum scheme { SCHEME_MONO, SCHEME_8, SCHEME_256, SCHEME__COUNT };

/* Pick the scheme (NO_COLOR, has_colors, COLORS) and set up colour pairs; after initscr. */
enum scheme colors__init(void);
enum scheme colors__scheme(void);
/* Attributes and colour pair of a role. */
void colors__get(enum role r, attr_t *attr, short *pair);
/* attr_t with the pair folded in, for wattrset. */
attr_t colors__attr(enum role r);
/* The pair for a cell split between two roles' backgrounds (left as fg, right as bg). */
short colors__split(enum role left, enum role right);
/* The box role of a frame kind. */
enum role colors__kind(enum frame_kind k);

#endif
