/*
** Header: line 1 names the target and the sampler state, line 2 the window,
** the counts, the health of the sample stream and the mode badges.
**
**  luatop 0.1.0 │ PID 4242 (nginx) │ LuaJIT 2.1 │ 99 Hz │ ● LIVE          ?:help
**  cumulative 01:02 │ 9,870 samples │ lost 0.0% │ fallback 2.9% │ MERGED │ VM …
*/
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/colors.h"
#include "tui/text.h"
#include "tui/ui.h"

#define WARN_LOST	1.0	/* % of lost samples shown as a warning */
#define WARN_FALLBACK	5.0	/* % of fallback samples shown as a warning */
#define VM_MIN_COLS	100	/* the VM split only from this width */

/* Write s at the cursor column *x of row y, advancing *x. */
static void add(const struct ui *u, int y, int *x, int role, const char *s)
{
	*x += ui__put(u, y, *x, COLS - *x, role, s);
}

/* The separator between fields. */
static const char *sep(const struct ui *u)
{
	return u->utf8 ? " \xe2\x94\x82 " : " | ";
}

/* Line 1: tool, target, LuaJIT, rate, state. */
static void line1(struct ui *u)
{
	const struct tui_feed *f = u->feed;
	char buf[256], n[32];
	int x = 0, role = CR_LIVE;
	const char *help = "?:help ";

	ui__fill(0, 0, COLS, CR_TITLE);
	snprintf(buf, sizeof(buf), " luatop %s%s%s%s", LUATOP_VERSION, sep(u),
		 f->live ? "" : "file ", f->who);
	add(u, 0, &x, CR_TITLE, buf);
	if (f->live) {
		snprintf(buf, sizeof(buf), "%s%s%s%u Hz%s", sep(u),
			 u->st.luajit ? u->st.luajit : (u->utf8 ? "LuaJIT \xe2\x80\x93" : "LuaJIT -"),
			 sep(u), f->freq, sep(u));
	} else {
		snprintf(buf, sizeof(buf), "%s", sep(u));
	}
	add(u, 0, &x, CR_TITLE, buf);
	if (u->frozen_at) {
		double cur = calltree__weight(ui__live(u, u->raw), CT_ROOT, CT_CUMULATIVE, 0);
		double was = calltree__weight(u->frozen[u->event][u->raw], CT_ROOT, CT_CUMULATIVE, 0);
		char age[16];

		text__clock(age, sizeof(age), ui__now() - u->frozen_at);
		ui__amount(u, n, sizeof(n), cur > was ? cur - was : 0);
		snprintf(buf, sizeof(buf), " %s FROZEN %s (+%s new) ", u->utf8 ?
			 "\xe2\x9d\x9a\xe2\x9d\x9a" : "||", age, n);
		role = CR_FROZEN;
	} else if (!f->live) {
		snprintf(buf, sizeof(buf), " FILE ");
		role = CR_BADGE;
	} else if (u->exited_at) {
		snprintf(buf, sizeof(buf), " %s EXITED ", u->utf8 ? "\xe2\x9c\x95" : "x");
		role = CR_EXITED;
	} else {
		snprintf(buf, sizeof(buf), " %s LIVE ", u->utf8 ? "\xe2\x97\x8f" : "*");
	}
	add(u, 0, &x, role, buf);
	if (u->st.failed)
		add(u, 0, &x, CR_EXITED, " SAMPLING STOPPED: out of memory ");
	if (x + (int)strlen(help) < COLS)
		ui__put(u, 0, COLS - (int)strlen(help), (int)strlen(help), CR_TITLE, help);
}

/* The window in words. */
static void window_text(const struct ui *u, char *out, size_t outsz)
{
	char clock[16];
	double end = u->frozen_at ? u->frozen_at : u->exited_at ? u->exited_at : ui__now();

	switch (u->window) {
	case CT_SLIDING:
		snprintf(out, outsz, "last %us", calltree__span(u->tree));
		break;
	case CT_DECAY:
		snprintf(out, outsz, "decaying %s %gs", u->utf8 ? "t\xc2\xbd" : "half-life",
			 calltree__half_life(u->tree));
		break;
	default:
		if (!u->feed->live) {
			snprintf(out, outsz, "cumulative");
			break;
		}
		text__clock(clock, sizeof(clock), end - u->started);
		snprintf(out, outsz, "cumulative %s", clock);
	}
}

/* The VM-state split, or a dash until LuaJIT's states are known. */
static void vm_text(const struct ui *u, char *out, size_t outsz)
{
	static const char *const names[VM_STATE__COUNT] = {
		[VM_JIT] = "JIT", [VM_INTERP] = "INT", [VM_C] = "C", [VM_GC] = "GC",
		[VM_COMPILER] = "CMP",
	};
	uint64_t sum = 0;
	size_t len;

	for (int i = 0; i < VM_STATE__COUNT; i++)
		sum += u->st.vm[u->event][i];
	if (!sum) {
		snprintf(out, outsz, "VM %s", u->utf8 ? "\xe2\x80\x93" : "-");
		return;
	}
	len = (size_t)snprintf(out, outsz, "VM");
	for (int i = 0; i < VM_STATE__COUNT && len < outsz; i++)
		len += (size_t)snprintf(out + len, outsz - len, " %s %.0f%%", names[i],
					100.0 * u->st.vm[u->event][i] / sum);
}

/* How many samples in traces were placed by their snapshots, and why not the rest. */
static void trace_text(const struct ui *u, char *out, size_t outsz)
{
	double mapped = 100.0 * u->st.trace_mapped / u->st.trace_samples;

	if (u->st.trace_mapped < u->st.trace_samples && u->st.trace_why)
		snprintf(out, outsz, "traces %.1f%% mapped (%s)", mapped, u->st.trace_why);
	else
		snprintf(out, outsz, "traces %.1f%% mapped", mapped);
}

/* Line 2: window, samples, lost and fallback shares, badges, VM split. */
static void line2(struct ui *u)
{
	const struct calltree *t = ui__tree(u, u->raw);	/* the focus view's too */
	double all = calltree__weight(t, CT_ROOT, u->window, 0);
	double fb = calltree__weight(t, CT_ROOT, u->window, 1);
	static const char *const unit[EV__COUNT] = { " samples", " off-CPU", " wall" };
	double lost = u->st.received + u->st.lost ?
		      100.0 * u->st.lost / (u->st.received + u->st.lost) : 0;
	double fbp = all > 0 ? 100.0 * fb / all : 0;
	char buf[256], win[64], n[32];
	int x = 0;

	ui__fill(1, 0, COLS, CR_HEADER);
	window_text(u, win, sizeof(win));
	ui__amount(u, n, sizeof(n), all);
	snprintf(buf, sizeof(buf), " %s%s%s%s%s%s", win, sep(u),
		 u->window == CT_DECAY ? "~" : "", n, unit[u->event], sep(u));
	add(u, 1, &x, CR_HEADER, buf);
	if (u->feed->live) {
		snprintf(buf, sizeof(buf), "lost %.1f%%", lost);
		add(u, 1, &x, lost >= WARN_LOST ? CR_WARN : CR_HEADER, buf);
		add(u, 1, &x, CR_HEADER, sep(u));
	}
	if (fb > 0 && u->st.fallback_why)
		snprintf(buf, sizeof(buf), "fallback %.1f%% (%s)", fbp, u->st.fallback_why);
	else
		snprintf(buf, sizeof(buf), "fallback %.1f%%", fbp);
	add(u, 1, &x, fbp >= WARN_FALLBACK ? CR_WARN : CR_HEADER, buf);
	if (!ui__one_kind(u)) {	/* a file has one kind of stack */
		add(u, 1, &x, CR_HEADER, sep(u));
		add(u, 1, &x, CR_BADGE, u->raw ? " RAW " : " MERGED ");
	}
	if (u->feed->tree[EV_OFFCPU][0]) {	/* the event, when there is a choice */
		static const char *const badge[EV__COUNT] = { " CPU ", " OFF-CPU ", " WALL " };

		add(u, 1, &x, CR_HEADER, " ");
		add(u, 1, &x, CR_BADGE, badge[u->event]);
	}
	if (u->mode != UI_ICICLE) {
		add(u, 1, &x, CR_HEADER, " ");
		add(u, 1, &x, CR_BADGE, u->mode == UI_TOP ? " TOP " : " CALLERS / CALLEES ");
	}
	if (ui__base(u)) {
		add(u, 1, &x, CR_HEADER, " ");
		add(u, 1, &x, CR_BADGE, " DIFF ");
	}
	if (u->tfiltered) {
		add(u, 1, &x, CR_HEADER, " ");
		add(u, 1, &x, CR_BADGE, " SOME THREADS ");
	}
	if (u->hidden != CT_NONE) {
		add(u, 1, &x, CR_HEADER, " ");
		add(u, 1, &x, CR_BADGE, " IDLE HIDDEN ");
	}
	if (u->fb_only) {
		add(u, 1, &x, CR_HEADER, " ");
		add(u, 1, &x, CR_BADGE, " FALLBACK ONLY ");
	}
	if (COLS >= VM_MIN_COLS && u->feed->live) {
		vm_text(u, buf, sizeof(buf));
		add(u, 1, &x, CR_HEADER, sep(u));
		add(u, 1, &x, CR_HEADER, buf);
	}
	if (COLS >= VM_MIN_COLS && u->st.trace_samples) {
		trace_text(u, buf, sizeof(buf));
		add(u, 1, &x, CR_HEADER, sep(u));
		add(u, 1, &x, CR_HEADER, buf);
	}
}

/* Draw both header lines. */
void header__draw(struct ui *u)
{
	line1(u);
	line2(u);
}
