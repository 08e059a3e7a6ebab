/*
** Creating output files safely: luatop runs as root in directories other users
** may write to, so a file is created new, never through a symbolic link and
** never over a file that exists.
*/
#ifndef LUATOP_EXPORT_OUTPUT_H
#define LUATOP_EXPORT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

/* Create path as a new file (mode 0644 less the umask): its fd, or -errno
** (-EEXIST when something, a link included, is already there). */
int output__create_new(const char *path);
/*
** Create "STEM-YYYYmmdd-HHMMSS.EXT" in the current directory, or with "-2" ...
** "-99" after the time when that name is taken: its fd, the name in path; or
** -errno.
*/
int output__create_stamped(const char *stem, const char *ext, char *path, size_t pathsz);

/*
** The -o file, opened before sampling starts so that a bad path fails at once:
**   "-"                      standard output (an error if it is closed);
**   nothing there            a new file;
**   a regular file of ours   replaced atomically at the end (same mode);
**   a character device/FIFO  written as it is (/dev/null);
**   anything else            an error: a symbolic link is never followed, a
**                            file of another user never replaced, a directory
**                            never written.
** The profile goes to a temporary file next to path, renamed onto it by
** output__commit, so a failed or interrupted run leaves path as it was.
*/
struct output_file {
	FILE *f;		/* write the profile here; NULL when closed */
	int is_stdout;
	int mode;		/* of the replaced file, or -1 for the default */
	int no_replace;		/* output__open_new: never over anything */
	const char *path;
	char tmp[4096];		/* the temporary file, "" when writing path itself */
};

/* Open; on failure a one-line reason in err and -errno. */
int output__open(const char *path, struct output_file *o, char *err, size_t errlen);
/* The same for a name that must be new: -EEXIST (err untouched) when anything
** is at path, now or when output__commit renames the file into place. */
int output__open_new(const char *path, struct output_file *o, char *err, size_t errlen);
/* Flush, close and rename into place: 0, or -errno with the reason in err
** (a write error of f's included); on failure the temporary file is removed. */
int output__commit(struct output_file *o, char *err, size_t errlen);
/* Give up: close and remove the temporary file. Safe to call twice. */
void output__discard(struct output_file *o);

#endif
