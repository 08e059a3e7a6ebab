/*
** Process memory through process_vm_readv: read-only, bounds-checked against
** the user address range before the system call.
*/
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "proc/mem.h"

#define READV_MAX	64	/* spans per system call */

int tmem__read(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!len)
		return 0;
	if (!user_range(addr, len))
		return -EFAULT;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static int pid_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return tmem__read((int)(intptr_t)ctx, addr, buf, len);
}

/* All spans in one system call; a short read tells how many came whole. */
static int pid_readv(void *ctx, const struct mspan *spans, unsigned n)
{
	struct iovec l[READV_MAX], r[READV_MAX];
	unsigned m = 0;
	size_t want = 0;
	ssize_t got;

	if (n > READV_MAX)
		n = READV_MAX;
	for (; m < n && user_range(spans[m].addr, spans[m].len); m++) {
		l[m] = (struct iovec){ spans[m].buf, spans[m].len };
		r[m] = (struct iovec){ (void *)(uintptr_t)spans[m].addr, spans[m].len };
		want += spans[m].len;
	}
	if (!m)
		return n ? -EFAULT : 0;
	got = process_vm_readv((int)(intptr_t)ctx, l, m, r, m, 0);
	if (got < 0)
		return -errno;
	if ((size_t)got == want)
		return (int)m;
	for (unsigned i = 0; i < m; i++) {
		if ((size_t)got < spans[i].len)
			return i ? (int)i : -EFAULT;
		got -= (ssize_t)spans[i].len;
	}
	return (int)m;
}

struct mreader tmem__reader(int pid)
{
	return (struct mreader){ .read = pid_read, .readv = pid_readv,
				 .ctx = (void *)(intptr_t)pid };
}

void *tmem__copy(int pid, uint64_t start, uint64_t end, size_t *len)
{
	size_t n = end > start ? (size_t)(end - start) : 0;
	void *buf;
	int err;

	if (!n || n > TMEM_COPY_MAX) {
		errno = EINVAL;
		return NULL;
	}
	buf = malloc(n);
	if (!buf)
		return NULL;
	err = tmem__read(pid, start, buf, n);
	if (err) {
		free(buf);
		errno = err == -EFAULT ? EIO : -err;
		return NULL;
	}
	*len = n;
	return buf;
}
