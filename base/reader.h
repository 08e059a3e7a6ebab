/*
** Memory of a traced process, read through a callback: decoders of target
** memory (LuaJIT prototypes, strings, traces) take a reader, so that they do
** no I/O themselves and tests can feed them byte buffers. Also what every
** such decoder needs: the user address range that bounds each address it is
** given, and little-endian loads from the bytes it read.
*/
#ifndef LUATOP_BASE_READER_H
#define LUATOP_BASE_READER_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MREADER_USER_TOP	(1ull << 47)	/* x86-64 user addresses lie below */

/* One range to read in a batch. */
struct mspan {
	uint64_t addr;
	void *buf;
	size_t len;
};

struct mreader {
	/* Copy len bytes at addr into buf: 0, or -errno (-EFAULT for unmapped or
	** partly mapped memory, -ESRCH once the process is gone). */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	/* Read n spans at once: how many leading spans were read whole, or -errno
	** when none was. NULL: the spans are read one by one. */
	int (*readv)(void *ctx, const struct mspan *spans, unsigned n);
	void *ctx;
};

/* Is [addr, addr + len) a user address range: not at 0, below the top? Every
** address read from a target is checked so before it is read or followed. */
static inline int user_range(uint64_t addr, uint64_t len)
{
	return addr && addr < MREADER_USER_TOP && len <= MREADER_USER_TOP - addr;
}

/* Little-endian loads at byte offset off of a copy of target memory (any
** alignment; the caller bounds off). */
static inline uint16_t le16_at(const uint8_t *b, size_t off)
{
	uint16_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static inline uint32_t le32_at(const uint8_t *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static inline uint64_t le64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Read one range; as r->read. */
static inline int mreader__read(const struct mreader *r, uint64_t addr, void *buf, size_t len)
{
	return len ? r->read(r->ctx, addr, buf, len) : 0;
}

/* Read spans in one go when the reader can; as readv. */
static inline int mreader__readv(const struct mreader *r, const struct mspan *spans, unsigned n)
{
	unsigned i;
	int err = 0;

	if (r->readv)
		return r->readv(r->ctx, spans, n);
	for (i = 0; i < n && !(err = r->read(r->ctx, spans[i].addr, spans[i].buf, spans[i].len)); i++)
		;
	return i ? (int)i : n ? err : 0;
}

/*
** Read up to len bytes at addr, stopping early at the end of readable memory
** (a string at the end of a mapping, the top of user space): the count read, or
** -errno when not even the first byte is readable (-EFAULT for an address that
** is no user one). Tries the whole range, then up to each page end.
*/
static inline long mreader__read_some(const struct mreader *r, uint64_t addr, void *buf,
				      size_t len)
{
	size_t got = 0;

	if (!user_range(addr, 1))
		return -EFAULT;
	if (len > MREADER_USER_TOP - addr)
		len = MREADER_USER_TOP - addr;
	if (!len)
		return 0;
	if (!mreader__read(r, addr, buf, len))
		return (long)len;
	while (got < len) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		int err;

		if (chunk > len - got)
			chunk = len - got;
		err = mreader__read(r, addr + got, (char *)buf + got, chunk);
		if (err)
			return got ? (long)got : err;
		got += chunk;
	}
	return (long)got;
}

#endif
