/*
** Capture mode: one fixture file per capture record, for the replay tests.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "bpf/tables.h"
#include "cli/capture.h"
#include "unwind/fixture.h"

int capture__write(const char *dir, const struct tables *t, const struct lt_capture *c,
		   unsigned *written)
{
	const struct tables_stats *st = tables__stats(t);
	struct uw_snapshot full = {
		.pc = c->pc, .sp = c->sp, .bp = c->bp,
		.stack_base = c->sp,
		.stack = c->stack,
		.stack_len = c->stack_len < LT_CAPTURE_STACK ? c->stack_len : LT_CAPTURE_STACK,
		.proc = tables__proc(t, (int)c->sample.tgid),
		.rows = tables__rows(t),
		.nrows = st->rows,
		.rules = tables__rules(t),
		.nrules = st->rules,
	};
	unsigned n = c->sample.n_user < LT_MAX_USER ? c->sample.n_user : LT_MAX_USER;
	uint64_t pcs[LT_MAX_USER];
	char path[4096], comment[128];
	FILE *f;
	int fd, rc;

	if (*written >= CAPTURE_MAX_FILES || !full.proc)
		return 0;
	snprintf(path, sizeof(path), "%s/capture-%d-%03u.fixture", dir, (int)c->sample.tgid,
		 *written);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	snprintf(comment, sizeof(comment), "pid %u tid %u, %u frames", c->sample.tgid,
		 c->sample.tid, n);
	for (unsigned i = 0; i < n; i++)
		pcs[i] = c->sample.user[i];
	rc = uw_fixture__write(f, &full, pcs, c->sample.user_how, n,
			       c->sample.user_stop, comment);
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc)
		++*written;
	return rc;
}
