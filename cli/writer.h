/*
** The -o side of a session: the output file opened before sampling, the
** profile written in -o's format at the end, or with --every one file per
** interval; and luatop -i FILE -o FILE2, a conversion.
*/
#ifndef LUATOP_CLI_WRITER_H
#define LUATOP_CLI_WRITER_H

#include <stdint.h>

#include "cli/options.h"
#include "cli/session.h"

/* Open -o (or --every's first file) as sampling starts at s->start_ns: 0, or
** -1 with the reason said. */
int writer__open(struct session *s);
/* A sample taken at t (CLOCK_MONOTONIC) is about to be added: with --every,
** close the intervals that ended before it. 0, or -1 (said) if a file failed. */
int writer__before(struct session *s, uint64_t t);
/* With --every, close an interval that ended with no sample after it (an
** idle target), once its samples have surely arrived. 0, or -1 (said). */
int writer__tick(struct session *s);
/* Write what is left (the whole profile, or the last interval) as sampling
** ended at end_ns: 0, or -1 (said). */
int writer__finish(struct session *s, uint64_t end_ns);
/* luatop -i FILE -o FILE2: the exit status. */
int writer__convert(const struct options *o);

#endif
