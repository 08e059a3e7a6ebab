/*
** base/reader.h: reads of target memory that may end early.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "base/reader.h"

#define LO	(MREADER_USER_TOP - 8192)	/* the memory the fake reader has */

/* Any range inside [LO, MREADER_USER_TOP + 4096): a kernel address too, which
** the reader's callers must never ask for. */
static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < LO || len > MREADER_USER_TOP + 4096 - addr)
		return -EFAULT;
	memset(buf, 0x5a, len);
	return 0;
}

Test(base_reader, read_some_stops_at_the_top_of_user_space)
{
	const struct mreader r = { .read = fake_read };
	uint8_t buf[64];

	cr_assert_eq(mreader__read_some(&r, LO, buf, sizeof(buf)), 64);
	cr_assert_eq(mreader__read_some(&r, MREADER_USER_TOP - 8, buf, sizeof(buf)), 8);
	cr_assert_eq(mreader__read_some(&r, MREADER_USER_TOP, buf, sizeof(buf)), -EFAULT);
	cr_assert_eq(mreader__read_some(&r, 0, buf, sizeof(buf)), -EFAULT);
	cr_assert_eq(mreader__read_some(&r, LO - 16, buf, sizeof(buf)), -EFAULT,
		     "unreadable from the first byte");
	cr_assert_eq(mreader__read_some(&r, LO, buf, 0), 0);
}
