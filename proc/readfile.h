/*
** Whole small files (/proc ones report st_size 0): into a malloc'd buffer that
** grows, or in one read into the caller's buffer.
*/
#ifndef LUATOP_PROC_READFILE_H
#define LUATOP_PROC_READFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Read all of path into *buf (malloc'd, not NUL-terminated) and its length into
** *len: 0, -ENOMEM when it reaches max bytes, or -errno. */
int readfile__all(const char *path, size_t max, char **buf, size_t *len);
/* Read path into buf (bufsz > 0) with one read, NUL-terminated, cut to bufsz - 1
** bytes: the length read, or -errno. For /proc files of a few hundred bytes,
** which the kernel hands over whole (stat, status, comm, sysctls). */
ssize_t readfile__into(const char *path, char *buf, size_t bufsz);

#endif
