/*
** Capture mode: write unwind fixtures from the sampler's capture records.
*/
#ifndef LUATOP_CLI_CAPTURE_H
#define LUATOP_CLI_CAPTURE_H

#include "wire/luatop.h"

struct tables;

#define CAPTURE_MAX_FILES	20	/* fixtures per run */
#define CAPTURE_EVERY		13	/* capture every Nth sample per CPU */

/* Write one fixture file into dir (up to CAPTURE_MAX_FILES); *written counts
** them. 0 or -errno. */
int capture__write(const char *dir, const struct tables *t, const struct lt_capture *c,
		   unsigned *written);

#endif
