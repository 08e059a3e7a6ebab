/*
** Safe creation of output files.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "export/output.h"

#define STAMP_TRIES	100	/* name-2 ... name-99 when the plain name exists */

int output__create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	return fd >= 0 ? fd : -errno;
}

int output__create_stamped(const char *stem, const char *ext, char *path, size_t pathsz)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 1; i < STAMP_TRIES; i++) {
		int fd;

		if (i == 1)
			snprintf(path, pathsz, "%s-%s.%s", stem, stamp, ext);
		else
			snprintf(path, pathsz, "%s-%s-%d.%s", stem, stamp, i, ext);
		fd = output__create_new(path);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}
