/*
** Safe creation of output files.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

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

/* -- The -o file --------------------------------------------------------- */

/* "WHAT PATH: strerror(e)" into err; -e. */
static int fail(char *err, size_t errlen, int e, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
	return -e;
}

/* "PATH WHY" into err; -e. */
static int refuse(char *err, size_t errlen, int e, const char *path, const char *why)
{
	snprintf(err, errlen, "%s %s", path, why);
	return -e;
}

/* The directory part of path ("." for a bare name) into dir. */
static int dir_of(const char *path, char *dir, size_t dirsz)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 1;

	if (slash == path)
		n = 1;	/* "/x" */
	if (n + 1 > dirsz)
		return -ENAMETOOLONG;
	memcpy(dir, slash ? path : ".", n);
	dir[n] = '\0';
	return 0;
}

/* An existing path is replaced by a new file renamed over it: where no file
** can be made (/proc, /sys), the reason is its directory's. -e. */
static int fail_replace(char *err, size_t errlen, int e, const char *path)
{
	char dir[sizeof(((struct output_file *)0)->tmp)];

	if (dir_of(path, dir, sizeof(dir)))
		return fail(err, errlen, e, "cannot replace", path);
	snprintf(err, errlen, "cannot replace %s: no new file can be made in %s (%s)", path, dir,
		 strerror(e));
	return -e;
}

/* A new temporary file in path's directory (O_EXCL: never an existing one). */
static int open_tmp(struct output_file *o)
{
	char dir[sizeof(o->tmp)];
	int fd, rc = dir_of(o->path, dir, sizeof(dir));

	if (rc)
		return rc;
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s/.luatop-XXXXXX", dir) >= sizeof(o->tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		o->tmp[0] = '\0';
		return -errno;
	}
	return fd;
}

/* What may stand where the profile goes: 0, or -errno with the reason. */
static int check_existing(const struct stat *st, struct output_file *o, char *err,
			  size_t errlen)
{
	if (S_ISLNK(st->st_mode))
		return refuse(err, errlen, ELOOP, o->path, "is a symbolic link: not followed "
			      "(name the file it points to)");
	if (S_ISDIR(st->st_mode))
		return refuse(err, errlen, EISDIR, o->path, "is a directory");
	if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
		return 0;
	if (!S_ISREG(st->st_mode))
		return refuse(err, errlen, EINVAL, o->path, "is not a regular file");
	if (st->st_uid != geteuid())
		return refuse(err, errlen, EPERM, o->path, "belongs to another user: not replaced");
	o->mode = (int)(st->st_mode & 07777);
	return 0;
}

/* Open path (or the temporary file) as o->f. */
static int open_file(struct output_file *o, const struct stat *st, char *err, size_t errlen)
{
	int fd;

	if (st && (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))) {
		fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return fail(err, errlen, errno, "cannot write", o->path);
	} else if ((fd = open_tmp(o)) < 0) {
		return st ? fail_replace(err, errlen, -fd, o->path)
			  : fail(err, errlen, -fd, "cannot create", o->path);
	}
	if (!(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		output__discard(o);
		return fail(err, errlen, e, "cannot write", o->path);
	}
	return 0;
}

int output__open(const char *path, struct output_file *o, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	memset(o, 0, sizeof(*o));
	o->mode = -1;
	o->path = path;
	if (!strcmp(path, "-")) {
		if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
			return refuse(err, errlen, EBADF, "standard output", "is closed: "
				      "nowhere to write the profile");
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	if (lstat(path, &st) == 0) {
		if ((rc = check_existing(&st, o, err, errlen)))
			return rc;
		return open_file(o, &st, err, errlen);
	}
	if (errno != ENOENT)
		return fail(err, errlen, errno, "cannot write", path);
	return open_file(o, NULL, err, errlen);
}

int output__open_new(const char *path, struct output_file *o, char *err, size_t errlen)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->mode = -1;
	o->path = path;
	o->no_replace = 1;
	if (lstat(path, &st) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return fail(err, errlen, errno, "cannot write", path);
	return open_file(o, NULL, err, errlen);
}

/* Flush and close f: 0 or -errno of the first failure. */
static int close_file(struct output_file *o)
{
	int rc = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		rc = -(errno ? errno : EIO);
	if (!o->is_stdout && fclose(o->f) && !rc)
		rc = -errno;
	o->f = NULL;
	return rc;
}

int output__commit(struct output_file *o, char *err, size_t errlen)
{
	struct stat st;
	mode_t um;
	int rc;

	errno = 0;
	if ((rc = close_file(o))) {
		output__discard(o);
		return fail(err, errlen, -rc, "cannot write", o->path);
	}
	if (!o->tmp[0])
		return 0;
	/* Whatever appeared at path while sampling is replaced only if it is ours. */
	if (!o->no_replace && lstat(o->path, &st) == 0 &&
	    (rc = check_existing(&st, o, err, errlen))) {
		output__discard(o);
		return rc;
	}
	if (o->mode < 0) {
		um = umask(0);
		umask(um);
		o->mode = (int)(0666 & ~um);
	}
	if (chmod(o->tmp, (mode_t)o->mode) ||
	    (o->no_replace ? renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) :
			     rename(o->tmp, o->path))) {
		rc = fail(err, errlen, errno, "cannot write", o->path);
		output__discard(o);
		return rc;
	}
	o->tmp[0] = '\0';
	return 0;
}

void output__discard(struct output_file *o)
{
	if (o->f && !o->is_stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}
