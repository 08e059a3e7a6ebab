/*
** Whole small files (/proc ones report st_size 0) read into a malloc'd buffer.
*/
#ifndef LUATOP_PROC_READFILE_H
#define LUATOP_PROC_READFILE_H

#include <stddef.h>

/* Read all of path into *buf (malloc'd, not NUL-terminated) and its length into
** *len: 0, -ENOMEM when it reaches max bytes, or -errno. */
int readfile__all(const char *path, size_t max, char **buf, size_t *len);

#endif
