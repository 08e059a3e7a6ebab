/*
** Snapshots (s): what is shown (tree, window, merged or raw, fallback
** filter, zoomed subtree) as folded stacks in the current directory. The file
** is created new, never through a symlink, never over an existing file.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/text.h"
#include "tui/ui.h"

#define TRIES	100	/* name-2 ... name-99 when the plain name exists */

/* Create a new file for the snapshot; its fd, its name in path, or -errno. */
static int create(const struct ui *u, char *path, size_t pathsz)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 1; i < TRIES; i++) {
		int fd;

		if (i == 1)
			snprintf(path, pathsz, "luatop-%s-%s.folded", u->feed->snapname, stamp);
		else
			snprintf(path, pathsz, "luatop-%s-%s-%d.folded", u->feed->snapname, stamp,
				 i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Write what is shown; the outcome goes to the status line. */
int snapshot__save(struct ui *u)
{
	char path[256], n[32];
	uint64_t total = 0;
	int fd, err;
	FILE *f;

	fd = create(u, path, sizeof(path));
	if (fd < 0) {
		ui__status(u, 1, "snapshot failed: cannot create %s: %s", path, strerror(-fd));
		return fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(path);
		ui__status(u, 1, "snapshot failed: %s", strerror(-err));
		return err;
	}
	err = calltree__write_folded(u->tree, u->top, u->window, u->fb_only,
				     u->feed->frames, f, &total);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		unlink(path);
		ui__status(u, 1, "snapshot failed: %s: %s", path, strerror(-err));
		return err;
	}
	if (u->nsaved < UI_MAX_SAVED)
		u->saved[u->nsaved++] = strdup(path);
	text__count(n, sizeof(n), (double)total);
	ui__status(u, 0, "saved %s (%s samples)", path, n);
	return 0;
}
