/*
** Capture mode: write unwind fixtures from the sampler's capture records.
*/
#ifndef LUATOP_CLI_CAPTURE_H
#define LUATOP_CLI_CAPTURE_H

#include "wire/luatop.h"

struct tables;

#define CAPTURE_MAX_FILES	20	/* fixtures per run */
#define CAPTURE_EVERY		13	/* capture every Nth sample per CPU */

/* Is dir a directory to write fixtures into? 0 or -errno (-ENOTDIR). Asked
** before sampling, so that a wrong --capture fails the run at once. */
int capture__check_dir(const char *dir);
/* Write one fixture file into dir (up to CAPTURE_MAX_FILES); *written counts
** them. 0 or -errno. */
int capture__write(const char *dir, const struct tables *t, const struct lt_capture *c,
		   unsigned *written);

#endif
