/*
** State of the live view, shared by its parts: the loop (screen.c), the
** actions, and the drawing of header, icicle, footer and help.
*/
#ifndef LUATOP_TUI_UI_H
#define LUATOP_TUI_UI_H

#include <regex.h>
#include <stdint.h>

#include "tui/keys.h"
#include "tui/layout.h"
#include "tui/tui.h"
#include "profile/flat.h"

#define UI_MIN_COLS	40	/* below this size: the "too small" screen */
#define UI_MIN_ROWS	10
#define UI_HEADER_ROWS	2
#define UI_MAX_SAVED	32	/* snapshot paths remembered for the exit message */

/* Reactions: what an action asks of the loop (htop's Htop_Reaction). */
enum {
	RE_NONE		= 0,
	RE_REDRAW	= 0x1,	/* lay out again and draw now */
	RE_CLEAR	= 0x2,	/* repaint the whole terminal */
	RE_QUIT		= 0x4,
};

/* A node's identity: its frame ids from the root. */
struct path {
	uint32_t *v;
	uint32_t n, cap;
};

enum prompt_kind { PROMPT_NONE, PROMPT_SEARCH, PROMPT_DELAY };

/* What the body shows. */
enum ui_mode {
	UI_ICICLE,		/* the call tree */
	UI_TOP,			/* the Top table: one row per function */
	UI_FOCUS,		/* one function's callers (above) and callees (below) */
};

struct search {
	int on;			/* a pattern is set */
	regex_t re;
	char text[256];		/* the pattern as typed */
	unsigned char *hit;	/* per frame id: 0 not tested yet, 1 no match, 2 match */
	uint32_t nhit;		/* entries in hit */
	double weight;		/* samples under matching frames (not counted twice) */
};

struct ui {
	struct tui_feed *feed;
	struct tui_stats st;		/* from the feed, at the last refresh */
	struct calltree *frozen[EV__COUNT][2];	/* copies shown while frozen, else NULL */
	enum prof_event event;		/* the event shown */
	int raw;			/* showing raw stacks */
	int hide_idle;			/* leave out the off-CPU "[idle]" stacks */
	uint32_t hidden;		/* their node under the root, CT_NONE: none */
	enum ct_window window;
	int fb_only;			/* showing fallback stacks only */
	double frozen_at;		/* monotonic seconds; 0: not frozen */
	double started;			/* start, or the last R */
	double exited_at;		/* when every target was seen gone; 0: running */
	double delay;			/* refresh interval, seconds */
	int help;			/* the help screen is up */
	int tlist;			/* the thread list is up */
	struct tui_thread *threads;	/* ... what it lists */
	uint8_t *tmark;			/* ... which are marked to be shown */
	size_t nthreads, capthreads;
	uint32_t trow, tfirst;		/* ... the selected row, the first one shown */
	int tfiltered;			/* some threads only are profiled */
	struct calltree *base[EV__COUNT][2];	/* the live diff's baseline (b), else NULL */
	int base_owned;			/* ... ours to free (not the feed's --diff tree) */
	struct flat base_flat;		/* ... its Top table, of base_flat_of */
	const struct calltree *base_flat_of;
	uint32_t *dpath;		/* scratch: a node's path, to find it in the baseline */
	uint32_t ndpath;
	int utf8;			/* the terminal takes UTF-8: glyphs, else ASCII */

	enum ui_mode mode;
	enum ui_mode back;		/* the mode Esc leaves the focus view for */
	struct flat flat;		/* UI_TOP: the table, built at each refresh */
	enum flat_sort sort;		/* ... its order */
	uint32_t row, row_first;	/* ... the selected row, the first one shown */
	uint32_t focus;			/* UI_FOCUS: the function's frame */
	struct calltree *callers, *callees;	/* ... its trees, built at each refresh */
	struct layout lay_up;		/* ... the callers' icicle, drawn upwards */
	int up_h;			/* ... rows of it */
	struct path saved_zoom, saved_sel;	/* the icicle's, while focused */
	struct built { const struct calltree *t; uint32_t nodes, frame; double weight;
		       enum ct_window w; int fb, sort; } built_top, built_focus;
					/* what the table and the focus trees were
					   built of: rebuilt only when it changed */
	uint32_t focus_zdepth;		/* ... and its zoom stack's depth */
	double focus_min;		/* the focus trees' lightest share expanded */

	/* What is on screen, worked out again at every refresh (ui__relayout). */
	const struct calltree *tree;	/* shown: live or frozen, merged or raw; the
					   focus view's callees */
	enum ct_window win;		/* the window of tree's counts (the focus
					   view's trees hold the window's counts) */
	int fb;				/* ... and the fallback filter */
	uint32_t top;			/* zoom root node */
	uint32_t sel;			/* selected node (the path's deepest visible) */
	int lines, cols;		/* terminal size */
	int body_y, body_h;		/* icicle rows */
	int crumb;			/* the breadcrumb line is shown */
	int scroll;			/* depth below top on the first icicle row */
	struct layout lay;

	/* Identity, kept across refreshes as frame paths. */
	struct path zoom;		/* zoom root */
	struct path sel_path;		/* selection */
	struct path memo;		/* the callee left with k, for j */
	struct path *zstack;		/* earlier zoom roots, for Esc */
	uint32_t nzstack, capzstack;

	struct search search;
	enum prompt_kind prompt;	/* a line being typed in the status line */
	char line[256];
	size_t len;
	char status[512];		/* message on the status line */
	int status_err;
	double status_until;		/* monotonic seconds; 0: until replaced */
	char *saved[UI_MAX_SAVED];	/* snapshots written, for the exit message */
	unsigned nsaved;
};

/* -- ui.c: shared helpers ----------------------------------------------- */

double ui__now(void);			/* CLOCK_MONOTONIC, seconds */
int path__of(struct path *p, const struct calltree *t, uint32_t node);	/* 0 or -ENOMEM */
int path__copy(struct path *dst, const struct path *src);
void path__free(struct path *p);
/* The tree to show for raw (0/1): the frozen copy while frozen. */
const struct calltree *ui__tree(const struct ui *u, int raw);
/* The live tree of the event shown, for raw (0/1). */
struct calltree *ui__live(const struct ui *u, int raw);
/* Does the feed hold one kind of stack (a file)? */
int ui__one_kind(const struct ui *u);
/* Free the frozen copies. */
void ui__thaw(struct ui *u);
/* Copies of every event's live trees into dst[EV__COUNT][2] (a file's one tree
** once); 0, or -ENOMEM with dst freed. (Pointer-to-row parameters: gcc -O1 took
** the sized array parameters for a smaller region.) */
int ui__copy_trees(const struct ui *u, struct calltree *(*dst)[2]);
/* Free trees t[EV__COUNT][2] taken by ui__copy_trees and set them to NULL. */
void ui__free_trees(struct calltree *(*t)[2]);
/* The live diff: the change of node's share (of the root) since the baseline,
** in points (+3.2: grew 3.2 points); 0 without a baseline. *has (may be
** NULL) is set when there is a baseline. */
double ui__diff(struct ui *u, uint32_t node, int *has);
/* The baseline of the tree shown, or NULL. */
const struct calltree *ui__base(const struct ui *u);
/* An amount of the event shown: samples ("1,234"), or a time ("12.3 ms"). */
void ui__amount(const struct ui *u, char *out, size_t outsz, double v);
/* Weight of node in the shown tree under the current window and filter. */
double ui__weight(const struct ui *u, uint32_t node);
/* Resolve zoom and selection in the shown tree, then lay out the icicle. */
void ui__relayout(struct ui *u);
/* Select node (of the shown tree): it becomes the selection's identity. */
void ui__select(struct ui *u, uint32_t node);
/* Show a message on the status line for a few seconds. */
void ui__status(struct ui *u, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A frame's name as text (kernel frames get no suffix here), never NULL. */
const char *ui__name(const struct ui *u, uint32_t node);
/* A node drawn as a fallback frame: most of its samples are fallback. */
int ui__is_fallback(const struct ui *u, uint32_t node);
/* Was the node's frame inlined into a JIT trace in most of its samples? */
int ui__is_inlined(const struct ui *u, uint32_t node);
double ui__jit_share(const struct ui *u, uint32_t node);
/* Write UTF-8 s at (y, x) in role r, at most w cells; returns the cells written. */
int ui__put(const struct ui *u, int y, int x, int w, int role, const char *s);
/* Paint cells [x, x + w) of row y blank in role r. */
void ui__fill(int y, int x, int w, int role);

/* -- Parts -------------------------------------------------------------- */

int actions__do(struct ui *u, enum action a);		/* reactions */
void header__draw(struct ui *u);
void icicle__draw(struct ui *u);
void top__draw(struct ui *u);			/* UI_TOP's body */
void top__footer(struct ui *u, int y);		/* ... its selected row */
/* Open the focus view on frame (from the icicle or the Top table). */
int actions__focus(struct ui *u, uint32_t frame);
void footer__draw(struct ui *u);
void help__draw(struct ui *u);
/* The thread list: open it, draw it, take a key while it is up (reactions). */
int tlist__open(struct ui *u);
void tlist__draw(struct ui *u);
int tlist__key(struct ui *u, int ch);
void prompt__open(struct ui *u, enum prompt_kind kind, const char *text);
int prompt__key(struct ui *u, int ch);			/* reactions */
/* Set the search pattern ("" clears it); 0, or -EINVAL with the reason on the status line. */
int search__set(struct ui *u, const char *text);
void search__clear(struct ui *u);
int search__hit(struct ui *u, uint32_t node);		/* node's frame matches */
int search__frame(struct ui *u, uint32_t frame);	/* ... frame matches */
void search__update(struct ui *u);			/* the matched share, after a relayout */
/* Select the next (dir > 0) or previous match on screen after the selection; 0 or -ENOENT. */
int search__step(struct ui *u, int dir);
/* Write what is shown to luatop-<name>-<time>.folded; 0 or -errno. */
int snapshot__save(struct ui *u);
/* Lay out and draw everything (also used by bench/tui_render.c). */
void screen__draw(struct ui *u);
/* Set up u for feed f (no terminal work); 0 or -ENOMEM. */
int screen__init(struct ui *u, struct tui_feed *f);
void screen__fini(struct ui *u);

#endif
