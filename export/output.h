/*
** Creating output files safely: luatop runs as root in directories other users
** may write to, so a file is created new, never through a symbolic link and
** never over a file that exists.
*/
#ifndef LUATOP_EXPORT_OUTPUT_H
#define LUATOP_EXPORT_OUTPUT_H

#include <stddef.h>

/* Create path as a new file (mode 0644 less the umask): its fd, or -errno
** (-EEXIST when something, a link included, is already there). */
int output__create_new(const char *path);
/*
** Create "STEM-YYYYmmdd-HHMMSS.EXT" in the current directory, or with "-2" ...
** "-99" after the time when that name is taken: its fd, the name in path; or
** -errno.
*/
int output__create_stamped(const char *stem, const char *ext, char *path, size_t pathsz);

#endif
