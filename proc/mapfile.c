/*
** Opening the files behind another process's mappings.
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "proc/mapfile.h"

/*
** Turn an O_PATH fd into a readable fd, only for a regular file with the mapped
** inode: opening a device or FIFO could block or have side effects. The inode
** alone is checked because overlayfs reports a different st_dev than maps does.
*/
int mapfile__reopen_regular(int pfd, uint64_t ino)
{
	char path[64];
	struct stat st;
	int fd = -1;

	if (pfd < 0)
		return -1;
	if (!fstat(pfd, &st) && S_ISREG(st.st_mode) && (!ino || (uint64_t)st.st_ino == ino)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	close(pfd);
	return fd;
}

/* openat2(O_PATH) with RESOLVE_IN_ROOT: absolute symlinks stay inside dfd. */
static int openat2_in_root(int dfd, const char *path)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
#else
	errno = ENOSYS;
	return -1;
#endif
}

int mapfile__open_root(int pid)
{
	char root[64];

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	return open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int mapfile__open_at_root(int root, const char *path)
{
	int fd;

	if (root < 0) {
		errno = EBADF;
		return -1;
	}
	fd = openat2_in_root(root, path);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))	/* old kernel, seccomp */
		fd = openat(root, path + strspn(path, "/"), O_PATH | O_CLOEXEC);
	return fd;
}

int mapfile__open_in_root(int pid, const char *path)
{
	int dfd = mapfile__open_root(pid), fd;

	if (dfd < 0)
		return -1;
	fd = mapfile__open_at_root(dfd, path);
	close(dfd);
	return fd;
}

/* pfd if it is an O_PATH fd of a regular file with inode ino (0: any), else -1. */
static int regular_path(int pfd, uint64_t ino)
{
	struct stat st;

	if (pfd < 0)
		return -1;
	if (!fstat(pfd, &st) && S_ISREG(st.st_mode) && (!ino || (uint64_t)st.st_ino == ino))
		return pfd;
	close(pfd);
	return -1;
}

int mapfile__open_path(int pid, const struct procmap *m)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid,
		 m->start, m->end);
	fd = regular_path(open(path, O_PATH | O_CLOEXEC), 0);
	if (fd >= 0)
		return fd;
	fd = regular_path(mapfile__open_in_root(pid, m->path), m->inode);
	if (fd >= 0)
		return fd;
	return regular_path(open(m->path, O_PATH | O_CLOEXEC), m->inode);
}

int mapfile__open(int pid, const struct procmap *m)
{
	return mapfile__reopen_regular(mapfile__open_path(pid, m), 0);
}
