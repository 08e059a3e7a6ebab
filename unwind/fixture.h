/*
** Unwind fixtures: a captured snapshot (registers, stack copy, the unwind rows
** its walk touches) plus what the in-kernel walk produced, as a text file.
** luatop's capture mode writes them; the replay tests read them.
*/
#ifndef LUATOP_UNWIND_FIXTURE_H
#define LUATOP_UNWIND_FIXTURE_H

#include <stdio.h>

#include "wire/luatop.h"
#include "unwind/replay.h"

#define UW_FIXTURE_MAX_FRAMES	LT_MAX_USER

struct uw_fixture {
	struct uw_snapshot snap;	/* arrays owned by the fixture */
	unsigned nframes;		/* the kernel's result */
	uint64_t pcs[UW_FIXTURE_MAX_FRAMES];
	uint8_t hows[UW_FIXTURE_MAX_FRAMES];
	int stop;
	char comment[256];		/* e.g. the frames' symbols, for readers */
};

/* Write a fixture: the snapshot reduced to the rows the kernel's frames touch.
** full is the snapshot against the complete tables. 0 or -errno. */
int uw_fixture__write(FILE *f, const struct uw_snapshot *full, const uint64_t *pcs,
		      const uint8_t *hows, unsigned n, int stop, const char *comment);
/* Parse a fixture written by uw_fixture__write. 0, or -EINVAL with a line in err. */
int uw_fixture__read(FILE *f, struct uw_fixture *out, char *err, size_t errlen);
void uw_fixture__free(struct uw_fixture *fx);

#endif
