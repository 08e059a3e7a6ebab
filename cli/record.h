/*
** --record FILE: every sample, as the sampler sent it, appended to FILE
** (wire/record.h). The file is created new (export/output.h).
*/
#ifndef LUATOP_CLI_RECORD_H
#define LUATOP_CLI_RECORD_H

#include <stdio.h>

#include "wire/luatop.h"

/* Create path and write the header: the stream, or NULL and errno. */
FILE *record__open(const char *path);
/* Append one sample: 0, or -errno. */
int record__write(FILE *f, const struct lt_sample *s);
/* Flush and close: 0, or -errno. */
int record__close(FILE *f);

#endif
