/*
** /proc/PID/maps parser.
**
** Line format: "start-end perms offset major:minor inode   path". The path is
** everything after the blanks that follow the inode, so it may contain spaces.
** The text is untrusted in tests and fixtures: every read is bounded by the line end.
*/
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/search.h"
#include "proc/procmaps.h"
#include "proc/readfile.h"

#define MAPS_READ_MAX	(256u << 20)	/* ~65536 mappings * ~4 KiB paths is far less */

/* A cursor over one line, without its '\n'. */
struct cur {
	const char *p, *end;
};

/* Parse 1..16 hex digits. */
static int cur_hex(struct cur *c, uint64_t *v)
{
	return hex__parse(&c->p, c->end, v);
}

/* Parse a decimal number that fits in uint64_t. */
static int cur_dec(struct cur *c, uint64_t *v)
{
	const char *s = c->p;
	uint64_t x = 0;

	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
		unsigned d = (unsigned)(*c->p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	if (c->p == s)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Consume one expected character. */
static int cur_char(struct cur *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EINVAL;
	c->p++;
	return 0;
}

/* Parse a hex number that fits in uint32_t. */
static int cur_hex32(struct cur *c, uint32_t *v)
{
	uint64_t x;

	if (cur_hex(c, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* Parse the four permission characters; only 'x' is kept. */
static int cur_perms(struct cur *c, struct procmap *m)
{
	if (c->end - c->p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++)
		if (!c->p[i] || !strchr("rwxps-", c->p[i]))
			return -EINVAL;
	m->exec = c->p[2] == 'x';
	c->p += 4;
	return 0;
}

/* Copy the optional path field: blanks, then the rest of the line. */
static int cur_path(struct cur *c, struct procmap *m)
{
	size_t n;

	m->path[0] = '\0';
	if (c->p == c->end)
		return 0;
	if (*c->p != ' ' && *c->p != '\t')
		return -EINVAL;		/* garbage glued to the inode */
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	n = (size_t)(c->end - c->p);
	if (n >= sizeof(m->path))
		n = sizeof(m->path) - 1;
	memcpy(m->path, c->p, n);
	m->path[n] = '\0';
	return 0;
}

/* Parse one line into *m: 0, or -EINVAL for a line to skip. */
static int parse_line(const char *s, const char *end, struct procmap *m)
{
	struct cur c = { s, end };

	if (cur_hex(&c, &m->start) || cur_char(&c, '-') || cur_hex(&c, &m->end) ||
	    cur_char(&c, ' ') || cur_perms(&c, m) || cur_char(&c, ' ') ||
	    cur_hex(&c, &m->offset) || cur_char(&c, ' ') ||
	    cur_hex32(&c, &m->dev_major) || cur_char(&c, ':') ||
	    cur_hex32(&c, &m->dev_minor) || cur_char(&c, ' ') ||
	    cur_dec(&c, &m->inode) || cur_path(&c, m))
		return -EINVAL;
	return m->start < m->end ? 0 : -EINVAL;
}

/* qsort order: by start address. */
static int cmp_start(const void *a, const void *b)
{
	const struct procmap *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The kernel emits sorted maps; sort anyway so find() holds for any input. */
static void sort_maps(struct procmaps *out)
{
	for (size_t i = 1; i < out->n; i++)
		if (out->maps[i].start < out->maps[i - 1].start) {
			qsort(out->maps, out->n, sizeof(*out->maps), cmp_start);
			return;
		}
}

/* Parse maps text, skipping malformed lines; sorted by start. */
int procmaps__parse(const char *text, size_t len, struct procmaps *out)
{
	const char *p = text, *end = text + len;
	size_t cap = 1;

	if (!out || (!text && len))
		return -EINVAL;
	out->maps = NULL;
	out->n = 0;
	for (size_t i = 0; i < len; i++)	/* lines <= newlines + 1 */
		cap += text[i] == '\n';
	if (!len)
		return 0;
	out->maps = calloc(cap, sizeof(*out->maps));
	if (!out->maps)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if (out->n < cap && !parse_line(p, eol, &out->maps[out->n]))
			out->n++;
		p = nl ? nl + 1 : end;
	}
	sort_maps(out);
	return 0;
}

/* Read and parse /proc/PID/maps. */
int procmaps__read(int pid, struct procmaps *out)
{
	char path[64], *buf = NULL;
	size_t len = 0;
	int err;

	if (!out || pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	err = readfile__all(path, MAPS_READ_MAX, &buf, &len);
	if (err)
		return err;
	err = procmaps__parse(buf, len, out);
	free(buf);
	return err;
}

/* Binary search for the mapping holding addr. */
const struct procmap *procmaps__find(const struct procmaps *m, uint64_t addr)
{
	size_t lo;

	if (!m || !m->maps)
		return NULL;
	lo = search__upper(m->maps, m->n, sizeof(*m->maps), offsetof(struct procmap, start), addr);
	if (lo == 0 || addr >= m->maps[lo - 1].end)
		return NULL;
	return &m->maps[lo - 1];
}

/* Free the array; *m becomes empty. */
void procmaps__free(struct procmaps *m)
{
	if (!m)
		return;
	free(m->maps);
	m->maps = NULL;
	m->n = 0;
}
