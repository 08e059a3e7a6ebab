/*
** --record FILE: the samples of a run, as the sampler sent them.
*/
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/record.h"
#include "export/output.h"
#include "wire/pack.h"
#include "wire/record.h"

FILE *record__open(const char *path)
{
	struct lt_record_hdr h = { .wire = LT_WIRE_SAMPLE, .sample_size = sizeof(struct lt_sample) };
	int fd = output__create_new(path), err;
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	memcpy(h.magic, LT_RECORD_MAGIC, sizeof(h.magic));
	if (fwrite(&h, sizeof(h), 1, f) != 1) {
		err = errno ? errno : EIO;
		fclose(f);
		errno = err;
		return NULL;
	}
	return f;
}

int record__write(FILE *f, const struct lt_sample *s)
{
	__u8 rec[sizeof(struct lt_sample)];
	__u32 len = lt_sample_pack(rec, s);	/* as the sampler sent it */

	if (fwrite(&len, sizeof(len), 1, f) != 1 || fwrite(rec, len, 1, f) != 1)
		return errno ? -errno : -EIO;
	return 0;
}

int record__close(FILE *f)
{
	int err = ferror(f) ? EIO : 0;

	if (fclose(f) && !err)
		err = errno;
	return -err;
}
