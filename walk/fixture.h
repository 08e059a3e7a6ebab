/*
** Walk fixtures: what a captured walk depended on (registers, cached G, LuaJIT
** facts, its reads of user memory, the unwind rows its frames touched) and the
** sample the kernel's walk produced, as a text file. luatop --capture writes
** them; the replay tests read them and run the shared driver over them.
*/
#ifndef LUATOP_WALK_FIXTURE_H
#define LUATOP_WALK_FIXTURE_H

#include <stdio.h>

#include "walk/replay.h"
#include "wire/luatop.h"

struct uw_fixture {
	struct uw_snapshot snap;	/* arrays owned by the fixture */
	struct lt_lua_cfg cfg;		/* snap.cfg points here when the file has one */
	struct lt_sample *expect;	/* the kernel's result (user and Lua part) */
	int version;			/* of the file: 1 stack copy, 2 read log */
	char comment[256];		/* e.g. the frames' symbols, for readers */
};

/*
** Write a fixture of the kernel's sample over the snapshot full (against the
** complete tables; only the rows the sample's frames touch are kept), with the
** read log when full has one, else its stack copy. 0 or -errno.
*/
int uw_fixture__write(FILE *f, const struct uw_snapshot *full, const struct lt_sample *kernel,
		      const char *comment);
/* Parse a fixture (either version). 0, or -EINVAL with a line in err, -ENOMEM. */
int uw_fixture__read(FILE *f, struct uw_fixture *out, char *err, size_t errlen);
void uw_fixture__free(struct uw_fixture *fx);

#endif
