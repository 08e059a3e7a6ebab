/*
** Snapshots (s): what is shown (tree, window, merged or raw, fallback
** filter, zoomed subtree) saved by the feed's save() (as folded stacks in the
** current directory, created new, never through a symlink, never over a file).
*/
#include <stdlib.h>
#include <string.h>

#include "tui/text.h"
#include "tui/ui.h"

/* Write what is shown; the outcome goes to the status line. */
int snapshot__save(struct ui *u)
{
	char path[256] = "", n[32];
	uint64_t total = 0;
	int err;

	if (!u->feed->save) {
		ui__status(u, 1, "snapshot failed: nowhere to save");
		return -1;
	}
	/* What is shown: the Top table is of the whole tree; the focus view's
	** callees hold their window's counts already (u->win). */
	err = u->feed->save(u->feed, u->tree, u->mode == UI_TOP ? CT_ROOT : u->top, u->win, u->fb,
			    path, sizeof(path), &total);
	if (err) {
		ui__status(u, 1, "snapshot failed: %s%s%s", path, path[0] ? ": " : "",
			   strerror(-err));
		return err;
	}
	if (u->nsaved < UI_MAX_SAVED)
		u->saved[u->nsaved++] = strdup(path);
	ui__amount(u, n, sizeof(n), (double)total);
	ui__status(u, 0, "saved %s (%s%s)", path, n, u->event == EV_CPU ? " samples" :
		   u->event == EV_OFFCPU ? " off-CPU, counts in us" : " wall, counts in us");
	return 0;
}
