/*
** Minimal live view: functions by self and total samples.
*/
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/loader.h"
#include "cli/collect.h"
#include "cli/session.h"
#include "profile/frames.h"
#include "profile/stacks.h"
#include "tui/live.h"

struct row {
	uint32_t frame;
	uint64_t self, total;
};

struct tally {
	struct row *rows;	/* indexed by frame id while counting */
	uint32_t *seen;		/* per frame: last stack that counted it, for recursion */
	uint32_t nframes, stack_no;
};

static int tally_stack(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	struct tally *t = ctx;

	if (!n)
		return 0;
	t->stack_no++;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = frames[i];

		if (f >= t->nframes || t->seen[f] == t->stack_no)
			continue;
		t->seen[f] = t->stack_no;
		t->rows[f].total += count;
	}
	if (frames[n - 1] < t->nframes)
		t->rows[frames[n - 1]].self += count;
	return 0;
}

static int by_self(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void draw_header(struct session *s, uint64_t total, int alive)
{
	uint64_t lost = session__lost(s);
	double lost_pct = total + lost ? 100.0 * lost / (total + lost) : 0;
	char who[128];

	session__describe(s, who, sizeof(who));
	attron(A_REVERSE);
	mvprintw(0, 0, " luatop %s | %s | %u Hz | %llu samples | lost %.1f%% | %s | %s",
		 LUATOP_VERSION, who, s->opt->freq, (unsigned long long)total, lost_pct,
		 s->opt->raw ? "RAW" : "NATIVE", alive ? "LIVE" : "EXITED");
	clrtoeol();
	attroff(A_REVERSE);
	mvprintw(1, 0, " %6s %6s  %s", "SELF%", "TOTAL%", "FUNCTION");
}

static void draw(struct session *s, int alive)
{
	struct frametab *ft = collector__frames(s->collector);
	struct stacktab *st = collector__stacks(s->collector);
	uint64_t total = stacktab__total(st);
	struct tally t = { .nframes = frametab__count(ft) };
	int h = LINES, w = COLS;

	erase();
	draw_header(s, total, alive);
	t.rows = calloc(t.nframes + 1, sizeof(*t.rows));
	t.seen = calloc(t.nframes + 1, sizeof(*t.seen));
	if (t.rows && t.seen) {
		for (uint32_t i = 0; i < t.nframes; i++)
			t.rows[i].frame = i;
		stacktab__foreach(st, tally_stack, &t);
		qsort(t.rows, t.nframes, sizeof(*t.rows), by_self);
		for (int y = 2, i = 0; y < h - 1 && (uint32_t)i < t.nframes; y++, i++) {
			const struct frame *f = frametab__get(ft, t.rows[i].frame);

			if (!t.rows[i].total)
				break;
			mvprintw(y, 0, " %6.1f %6.1f  %.*s%s", 100.0 * t.rows[i].self / total,
				 100.0 * t.rows[i].total / total, w > 18 ? w - 18 : 0,
				 f ? f->name : "?", f && f->kind == FRAME_KERNEL ? " [k]" : "");
		}
	}
	free(t.rows);
	free(t.seen);
	attron(A_REVERSE);
	mvprintw(h - 1, 0, " q quit%s", alive ? "" : "   target exited: data kept");
	clrtoeol();
	attroff(A_REVERSE);
	refresh();
}

/* Keys; returns 1 to quit. */
static int on_keys(void)
{
	int ch;

	while ((ch = getch()) != ERR)
		if (ch == 'q' || ch == 'Q' || ch == KEY_F(10) || ch == 3)
			return 1;
	return 0;
}

int live__run(struct session *s)
{
	double next = 0;
	int quit = 0, alive = 1;

	if (!initscr())
		return 1;
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	while (!quit && !*s->stop && !s->alloc_failed) {
		struct pollfd p[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = sampler__fd(s->sampler), .events = POLLIN },
		};
		double t = now_s();
		int timeout = next > t ? (int)((next - t) * 1000) + 1 : 0;

		if (timeout == 0) {
			alive = alive && session__alive(s);
			draw(s, alive);
			next = t + s->opt->delay;
			continue;
		}
		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			session__pump(s, 0);
		if (p[0].revents) {
			quit = on_keys();
			next = 0;	/* redraw at once after a key */
		}
	}
	endwin();
	return 0;
}
