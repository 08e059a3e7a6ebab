/*
** The loop of the live view: poll() on the terminal and the sampler, take
** samples as soon as they wait, turn keys into actions and act on their
** reactions, and refresh every -d seconds. Nothing here blocks sampling:
** prompts, help and the frozen display are modes of this one loop.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create */
#endif
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "tui/colors.h"
#include "tui/ui.h"

/* -- Setup -------------------------------------------------------------- */

int screen__init(struct ui *u, struct tui_feed *f)
{
	memset(u, 0, sizeof(*u));
	u->feed = f;
	u->event = f->tree[f->event][0] ? f->event : EV_CPU;
	u->raw = f->raw && !ui__one_kind(u);
	u->hidden = CT_NONE;
	u->tfiltered = f->some_threads;
	if (f->base)	/* -i FILE --diff BASE: the feed's, not ours to free */
		u->base[EV_CPU][0] = u->base[EV_CPU][1] = f->base;
	u->window = f->window;
	u->delay = f->delay > 0 ? f->delay : 1;
	u->started = ui__now();
	u->utf8 = 1;
	u->tree = ui__live(u, u->raw);
	return 0;
}

/* Free what u holds. */
void screen__fini(struct ui *u)
{
	ui__thaw(u);
	flat__free(&u->flat);
	free(u->threads);
	free(u->tmark);
	if (u->base_owned)
		ui__free_trees(u->base);
	flat__free(&u->base_flat);
	free(u->dpath);
	calltree__delete(u->callers);
	calltree__delete(u->callees);
	layout__free(&u->lay_up);
	path__free(&u->saved_zoom);
	path__free(&u->saved_sel);
	path__free(&u->zoom);
	path__free(&u->sel_path);
	path__free(&u->memo);
	for (uint32_t i = 0; i < u->capzstack; i++)
		path__free(&u->zstack[i]);
	free(u->zstack);
	layout__free(&u->lay);
	search__clear(u);
	free(u->search.hit);
	for (unsigned i = 0; i < u->nsaved; i++)
		free(u->saved[i]);
}

/* -- Drawing ------------------------------------------------------------ */

/* btop's answer to a small terminal: say what is there and what is needed. */
static void too_small(struct ui *u)
{
	char have[64], need[64];
	int y = LINES / 2 - 1, x;

	snprintf(have, sizeof(have), "Width = %d Height = %d", COLS, LINES);
	snprintf(need, sizeof(need), "Needed: %d x %d", UI_MIN_COLS, UI_MIN_ROWS);
	x = COLS > 24 ? (COLS - 24) / 2 : 0;
	ui__put(u, y > 0 ? y - 1 : 0, x, COLS, CR_NORMAL, "Terminal size too small");
	ui__put(u, y > 0 ? y : 1, x, COLS, COLS < UI_MIN_COLS || LINES < UI_MIN_ROWS ?
		CR_BAD : CR_GOOD, have);
	ui__put(u, y > 0 ? y + 1 : 2, x, COLS, CR_GOOD, need);
	ui__put(u, y > 0 ? y + 2 : 3, x, COLS, CR_NORMAL, "q quits");
}

/* Lay out and draw the whole screen. */
void screen__draw(struct ui *u)
{
	erase();
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_ROWS) {
		too_small(u);
	} else {
		ui__relayout(u);
		header__draw(u);
		if (u->help)
			help__draw(u);
		else if (u->tlist)
			tlist__draw(u);
		else
			u->mode == UI_TOP ? top__draw(u) : icicle__draw(u);
		footer__draw(u);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* -- Refresh ------------------------------------------------------------ */

static void pump(struct ui *u);

/* New statistics; move the live trees' clocks (not once every target is gone). */
static void tick(struct ui *u, double now)
{
	struct tui_feed *f = u->feed;

	if (f->stats) {
		f->stats(f->ctx, &u->st);
		/* Just gone: samples it sent after the last pump still wait. Take them
		** and count again, so that the count shown with EXITED is final. */
		if (u->st.exited && !u->exited_at) {
			pump(u);
			f->stats(f->ctx, &u->st);
		}
	}
	if (u->st.exited && !u->exited_at)
		u->exited_at = now;
	if (f->live && !u->exited_at) {
		uint64_t ns = clock__mono_ns();

		for (int e = 0; e < EV__COUNT; e++)
			for (int v = 0; v < 2 && f->tree[e][v]; v++)
				if (!v || f->tree[e][1] != f->tree[e][0])
					calltree__advance(f->tree[e][v], ns);
	}
}

/* Take the samples that wait. */
static void pump(struct ui *u)
{
	struct tui_feed *f = u->feed;

	if (f->fd < 0 || !f->pump)
		return;
	if (f->pump(f->ctx) < 0) {
		f->fd = -1;
		u->st.failed = 1;
		ui__status(u, 1, "sampling stopped: out of memory; the data so far stays");
	}
}

/* One key: to the prompt, the help screen, or the key table. */
static int on_key(struct ui *u, int ch)
{
	enum action a;

	if (ch == KEY_RESIZE)
		return RE_REDRAW | RE_CLEAR;
	if (u->prompt)
		return prompt__key(u, ch);
	a = keys__lookup(ch);
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_ROWS)
		return a == ACT_QUIT ? RE_QUIT : RE_NONE;
	if (u->help) {
		u->help = 0;	/* any key closes it */
		return RE_REDRAW;
	}
	if (u->tlist)
		return tlist__key(u, ch);
	return actions__do(u, a);
}

/* -- Terminal ----------------------------------------------------------- */

/* A message for the user, after the terminal is restored. */
static void say(const struct tui_feed *f, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(const struct tui_feed *f, int error, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (f->say)
		f->say(error, msg);
}

/* While curses owns the terminal, stderr goes to a memory file (htop's way). */
static int stderr_hold(int *saved)
{
	int fd = memfd_create("luatop-stderr", MFD_CLOEXEC);

	*saved = -1;
	if (fd < 0)
		return -1;
	fflush(stderr);
	*saved = dup(STDERR_FILENO);
	if (*saved < 0 || dup2(fd, STDERR_FILENO) < 0) {
		if (*saved >= 0)
			close(*saved);
		*saved = -1;
		close(fd);
		return -1;
	}
	return fd;
}

/* Put stderr back and replay what was written meanwhile. */
static void stderr_release(int fd, int saved)
{
	char buf[4096];
	ssize_t n;

	if (fd < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, (size_t)n) < 0)
			break;
	close(fd);
}

/* Run the view until q or a signal. */
int tui__run(struct tui_feed *f)
{
	struct ui u;
	SCREEN *scr;
	double next = 0;
	int quit = 0, held, saved;
	char *cs;

	screen__init(&u, f);
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	u.utf8 = cs && !strcmp(cs, "UTF-8");
	held = stderr_hold(&saved);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		stderr_release(held, saved);
		say(f, 1, "cannot use the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
		screen__fini(&u);
		return 1;
	}
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colors__init();

	while (!quit && !(f->stop && *f->stop)) {
		struct pollfd p[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = f->fd, .events = POLLIN },
		};
		double now = ui__now();
		int react = RE_NONE, ch, timeout;

		if (now >= next) {
			pump(&u);
			tick(&u, now);
			screen__draw(&u);
			next = now + u.delay;
		}
		timeout = (int)((next - now) * 1000) + 1;
		if (poll(p, f->fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
			break;
		if (f->fd >= 0 && p[1].revents)
			pump(&u);
		while ((ch = getch()) != ERR) {
			int r = on_key(&u, ch);

			react |= r;
			if (r & RE_QUIT)
				break;
			if (r & RE_REDRAW && COLS >= UI_MIN_COLS && LINES >= UI_MIN_ROWS)
				ui__relayout(&u);	/* the next key sees what this one did */
		}
		if (react & RE_QUIT)
			quit = 1;
		else if (react & RE_CLEAR)
			clearok(curscr, TRUE);
		if (!quit && react & RE_REDRAW)
			screen__draw(&u);
	}
	endwin();
	delscreen(scr);
	stderr_release(held, saved);
	for (unsigned i = 0; i < u.nsaved; i++) {
		char *abs = realpath(u.saved[i], NULL);

		say(f, 0, "snapshot saved to %s", abs ? abs : u.saved[i]);
		free(abs);
	}
	screen__fini(&u);
	return 0;
}
