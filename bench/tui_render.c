/*
** Render benchmark of the live view: a call tree of about 100k nodes drawn
** at 200x60 into a curses screen whose output goes to /dev/null. Each frame
** is what a refresh does: lay out the icicle, draw header, icicle and footer,
** and let curses write the changes out. Built and run by bench/tui.sh.
**
**   tui_render [NODES] [FRAMES] [COLS] [ROWS]
*/
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "profile/calltree.h"
#include "profile/frames.h"
#include "tui/colors.h"
#include "tui/ui.h"

#define NAMES	3000	/* distinct functions */

static uint64_t seed = 0x9e3779b97f4a7c15ull;

/* xorshift64: the same tree every run. */
static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A skewed pick in [0, n): small values far more often, like hot functions. */
static uint32_t skewed(uint32_t n)
{
	double u = (double)(rnd() % 1000000) / 1e6;

	return (uint32_t)(n * u * u * u * u);
}

/* CLOCK_MONOTONIC in seconds. */
static double now(void)
{
	return (double)clock__mono_ns() / 1e9;
}

/* Frames with names of every kind, the way a merged LuaJIT profile looks. */
static struct frametab *make_frames(void)
{
	static const enum frame_kind kinds[] = { FRAME_LUA, FRAME_LUA_JIT, FRAME_LUA_C,
						 FRAME_NATIVE, FRAME_KERNEL };
	struct frametab *ft = frametab__new();
	char name[128];

	for (int i = 0; i < NAMES; i++) {
		enum frame_kind k = kinds[i % 5];

		if (k == FRAME_LUA || k == FRAME_LUA_JIT)
			snprintf(name, sizeof(name), "handler_%d (app/module%d.lua:%d)", i, i % 40,
				 i * 7 % 900);
		else
			snprintf(name, sizeof(name), "%s_function_%d",
				 k == FRAME_KERNEL ? "kernel" : "native", i);
		frametab__intern(ft, k, name, NULL);
	}
	frametab__special(ft, SPECIAL_FALLBACK);
	return ft;
}

/*
** A tree shaped like a real profile: a node's samples are split between 1..8
** callees in skewed shares (a tenth stays as its own), down to nodes of a few
** samples, so there are wide frames at the top and long thin tails; 3% of
** the samples sit under [fallback].
*/
static void grow(struct calltree *t, uint32_t *path, uint32_t n, double w, double minw)
{
	double share[8], sum = 0, self = w * 0.1;
	uint32_t k = 1 + (uint32_t)(rnd() % 8);

	if (w < minw || n >= 46) {
		calltree__add(t, path, n, (uint64_t)(w + 0.5), 0,
			      path[0] == NAMES ? CT_FALLBACK : 0);
		return;
	}
	for (uint32_t i = 0; i < k; i++) {
		double u = (double)(rnd() % 1000 + 1) / 1000;

		share[i] = u * u * u;
		sum += share[i];
	}
	if (self >= 1)
		calltree__add(t, path, n, (uint64_t)self, 0, path[0] == NAMES ? CT_FALLBACK : 0);
	for (uint32_t i = 0; i < k; i++) {
		path[n] = skewed(NAMES);
		grow(t, path, n + 1, (w - self) * share[i] / sum, minw);
	}
}

/* Build a tree of about want nodes. */
static void build(struct calltree *t, uint32_t want)
{
	uint32_t path[48] = { 0 };
	double minw = 2;

	for (;;) {
		calltree__reset(t);
		path[0] = 0;
		grow(t, path, 1, 970000, minw);
		path[0] = NAMES;
		grow(t, path, 1, 30000, minw);
		if (calltree__nodes(t) <= want * 11 / 10)
			break;
		minw *= 1.1;
	}
}

/* Add one more sample along an existing heavy path, as live sampling does. */
static void add_stack(struct calltree *t, uint64_t ns)
{
	uint32_t path[48], n = 0, x = CT_ROOT;

	while (n < 48) {
		uint32_t c = calltree__first(t, x), pick = CT_NONE;

		for (; c != CT_NONE; c = calltree__next(t, c))
			if (pick == CT_NONE || rnd() % 3 == 0)
				pick = c;
		if (pick == CT_NONE || rnd() % 10 == 0)
			break;
		path[n++] = calltree__frame(t, pick);
		x = pick;
	}
	calltree__add(t, path, n, 1, ns, 0);
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Draw frames times; print mean, median, p99 and max in ms. */
static void run(const char *what, struct ui *u, struct calltree *t, int frames, int full,
		int grow)
{
	double *ms = calloc((size_t)frames, sizeof(*ms)), sum = 0;
	static uint64_t ns = 1000000000ull;

	screen__draw(u);	/* the first paint is not a refresh */
	for (int i = 0; i < frames; i++) {
		double t0;

		for (int k = 0; k < grow; k++)
			add_stack(t, ns += 1000000);
		if (full)
			clearok(curscr, TRUE);
		t0 = now();
		screen__draw(u);
		ms[i] = (now() - t0) * 1e3;
		sum += ms[i];
	}
	qsort(ms, (size_t)frames, sizeof(*ms), cmp_double);
	fprintf(stderr, "%-40s %5u boxes  mean %5.2f  median %5.2f  p99 %5.2f  max %5.2f ms\n",
		what, u->lay.n, sum / frames, ms[frames / 2], ms[frames * 99 / 100],
		ms[frames - 1]);
	free(ms);
}

/* Build the tree, time each kind of frame. */
int main(int argc, char **argv)
{
	uint32_t want = argc > 1 ? (uint32_t)atoi(argv[1]) : 100000;
	int frames = argc > 2 ? atoi(argv[2]) : 200;
	int cols = argc > 3 ? atoi(argv[3]) : 200, rows = argc > 4 ? atoi(argv[4]) : 60;
	struct frametab *ft = make_frames();
	struct calltree *t = calltree__new(10, 10);
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	struct tui_feed f = { .who = "bench", .snapname = "bench", .live = 1, .freq = 99,
			      .delay = 1, .frames = ft, .tree = { [EV_CPU] = { t, t } }, .fd = -1 };
	struct ui u;
	SCREEN *scr;

	build(t, want);
	fprintf(stderr, "tree: %u nodes, max depth %u, %.0f samples; screen %dx%d; %d frames\n",
		calltree__nodes(t), calltree__max_depth(t),
		calltree__weight(t, CT_ROOT, CT_CUMULATIVE, 0), cols, rows, frames);
	setlocale(LC_CTYPE, "");
	scr = newterm(NULL, out, in);
	if (!scr) {
		fprintf(stderr, "tui_render: newterm failed (TERM?)\n");
		return 1;
	}
	set_term(scr);
	resizeterm(rows, cols);
	colors__init();
	screen__init(&u, &f);
	run("icicle, unchanged tree", &u, t, frames, 0, 0);
	run("icicle, full repaint every frame", &u, t, frames, 1, 0);
	run("icicle, 300 new samples per frame", &u, t, frames, 0, 300);
	search__set(&u, "handler_1");
	run("search /handler_1/ highlighted", &u, t, frames, 0, 0);
	search__clear(&u);
	u.fb_only = 1;
	run("fallback stacks only", &u, t, frames, 0, 0);
	u.fb_only = 0;
	u.window = CT_DECAY;
	run("decaying window", &u, t, frames, 0, 0);
	u.window = CT_CUMULATIVE;
	u.help = 1;
	run("help screen", &u, t, frames, 0, 0);
	u.help = 0;
	u.base[EV_CPU][0] = u.base[EV_CPU][1] = calltree__clone(t);	/* as b does */
	u.base_owned = 0;
	run("icicle with a diff baseline", &u, t, frames, 0, 0);
	run("diff, 300 new samples per frame", &u, t, frames, 0, 300);
	u.mode = UI_TOP;
	run("Top table with a diff baseline", &u, t, frames, 0, 0);
	calltree__delete(u.base[EV_CPU][0]);
	u.base[EV_CPU][0] = u.base[EV_CPU][1] = NULL;
	u.base_flat_of = NULL;
	run("Top table", &u, t, frames, 0, 0);
	run("Top table, 300 new samples per frame", &u, t, frames, 0, 300);
	/* The callers and callees of the frame with the most self time. */
	actions__focus(&u, u.flat.n ? u.flat.rows[0].frame : 1);
	run("callers/callees of the top function", &u, t, frames, 0, 0);
	run("callers/callees, 300 new samples per frame", &u, t, frames, 0, 300);
	/* Zoomed two levels into those callees: the trees are built finer. */
	for (int i = 0; i < 2; i++) {
		actions__do(&u, ACT_DOWN);
		screen__draw(&u);
	}
	actions__do(&u, ACT_ZOOM_IN);
	run("... zoomed 2 levels into the callees, 300 new", &u, t, frames, 0, 300);
	actions__focus(&u, 1);	/* a frame on many paths */
	run("callers/callees of frame 1", &u, t, frames, 0, 0);
	run("callers/callees of frame 1, 300 new samples", &u, t, frames, 0, 300);
	u.mode = UI_ICICLE;
	/* Worst case for the layout: one frame with 100k callees, all scanned each frame. */
	{
		struct calltree *w = calltree__new(10, 10);
		uint32_t p[3] = { 0, 1, 0 };

		for (uint32_t i = 0; calltree__nodes(w) < want; i++) {
			p[2] = i % NAMES;
			p[1] = 1 + i / NAMES;
			calltree__add(w, p, 3, 1 + (i % 7 == 0) * 50, 0, 0);
		}
		f.tree[EV_CPU][0] = f.tree[EV_CPU][1] = w;
		run("one frame with ~100k callees", &u, w, frames, 0, 0);
		f.tree[EV_CPU][0] = f.tree[EV_CPU][1] = t;
		calltree__delete(w);
	}
	endwin();
	delscreen(scr);
	screen__fini(&u);
	calltree__delete(t);
	frametab__delete(ft);
	return 0;
}
