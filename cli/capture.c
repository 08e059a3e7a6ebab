/*
** Capture mode: one fixture file per capture record, for the replay tests.
*/
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bpf/tables.h"
#include "cli/capture.h"
#include "export/output.h"
#include "walk/fixture.h"

int capture__check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

int capture__write(const char *dir, const struct tables *t, const struct lt_capture *c,
		   unsigned *written)
{
	const struct tables_stats *st = tables__stats(t);
	struct uw_snapshot full = {
		.regs = c->regs,
		.cached_G = c->cached_G,
		.cached_own = (int)c->cached_own,
		.cfg = tables__lua_cfg(t, (int)c->sample.tgid),
		.reads = c->reads,
		.nreads = c->n_reads < LT_CAPTURE_READS ? c->n_reads : LT_CAPTURE_READS,
		.proc = tables__proc(t, (int)c->sample.tgid),
		.rows = tables__rows(t),
		.nrows = st->rows,
		.rules = tables__rules(t),
		.nrules = st->rules,
	};
	char path[4096], comment[128];
	FILE *f;
	int fd, rc;

	/* A capture whose log overflowed cannot be replayed: not a fixture. */
	if (*written >= CAPTURE_MAX_FILES || !full.proc || c->reads_lost)
		return 0;
	snprintf(path, sizeof(path), "%s/capture-%d-%03u.fixture", dir, (int)c->sample.tgid,
		 *written);
	fd = output__create_new(path);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	snprintf(comment, sizeof(comment), "pid %u tid %u, %u frames, %u Lua frames",
		 c->sample.tgid, c->sample.tid, c->sample.n_user, c->sample.n_lua);
	rc = uw_fixture__write(f, &full, &c->sample, comment);
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc)
		++*written;
	return rc;
}
