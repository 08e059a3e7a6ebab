/*
** Opening the files and memory behind another process's mappings.
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
#include <sys/uio.h>

#include "symbolize/mapfile.h"

#define MAPFILE_MEM_MAX	(1u << 20)	/* the vDSO is a few pages */

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

int mapfile__open_in_root(int pid, const char *path)
{
	char root[64];
	int dfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	fd = openat2_in_root(dfd, path);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))	/* old kernel, seccomp */
		fd = openat(dfd, path + strspn(path, "/"), O_PATH | O_CLOEXEC);
	close(dfd);
	return fd;
}

int mapfile__open(int pid, const struct procmap *m)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid,
		 m->start, m->end);
	fd = mapfile__reopen_regular(open(path, O_PATH | O_CLOEXEC), 0);
	if (fd >= 0)
		return fd;
	fd = mapfile__reopen_regular(mapfile__open_in_root(pid, m->path), m->inode);
	if (fd >= 0)
		return fd;
	return mapfile__reopen_regular(open(m->path, O_PATH | O_CLOEXEC), m->inode);
}

void *mapfile__read_mem(int pid, uint64_t start, uint64_t end, size_t *len)
{
	struct iovec local, remote;
	size_t n = end > start ? (size_t)(end - start) : 0;
	void *buf;

	if (!n || n > MAPFILE_MEM_MAX) {
		errno = EINVAL;
		return NULL;
	}
	buf = malloc(n);
	if (!buf)
		return NULL;
	local = (struct iovec){ .iov_base = buf, .iov_len = n };
	remote = (struct iovec){ .iov_base = (void *)(uintptr_t)start, .iov_len = n };
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)n) {
		free(buf);
		if (!errno)
			errno = EIO;
		return NULL;
	}
	*len = n;
	return buf;
}
