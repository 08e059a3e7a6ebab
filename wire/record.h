/*
** luatop --record files: the samples of a run as the sampler sent them, for
** bug reports and for replaying into the collector (bench/ingest_replay.c).
**
**   struct lt_record_hdr, then per sample: a __u32 length, then that many
**   bytes of the packed sample record (wire/pack.h).
**
** Native byte order; a file is read only by the build whose wire format
** (LT_WIRE_SAMPLE) wrote it.
*/
#ifndef LUATOP_WIRE_RECORD_H
#define LUATOP_WIRE_RECORD_H

#include "wire/luatop.h"

#define LT_RECORD_MAGIC	"LTRECORD"

struct lt_record_hdr {
	char magic[8];		/* LT_RECORD_MAGIC, no NUL */
	__u32 wire;		/* LT_WIRE_SAMPLE of the writer */
	__u32 sample_size;	/* sizeof(struct lt_sample) of the writer */
};

_Static_assert(sizeof(struct lt_record_hdr) == 16, "lt_record_hdr layout");

#endif
