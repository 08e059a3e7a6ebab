/*
** Whole small files: into a bounded malloc'd buffer, doubling as it fills, or
** in one read into the caller's buffer.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "proc/readfile.h"

#define RF_CHUNK	(64 * 1024)	/* first buffer; doubled up to max */

/* Read a whole file (its size is unknown in advance) into a malloc'd buffer. */
int readfile__all(const char *path, size_t max, char **buf, size_t *len)
{
	size_t cap = RF_CHUNK < max ? RF_CHUNK : max, n = 0;
	char *b = malloc(cap ? cap : 1);
	int fd = -1, err = 0;

	if (!b)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {	/* full: grow, or give up at max */
			size_t ncap = cap < max / 2 ? cap * 2 : max;
			char *nb = cap < max ? realloc(b, ncap) : NULL;

			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			b = nb;
			cap = ncap;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(b);
	return err;
}

ssize_t readfile__into(const char *path, char *buf, size_t bufsz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, bufsz - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}
