/*
** libFuzzer entry point for the /proc/PID/maps parser (proc/procmaps.c):
** procmaps__parse on arbitrary text, then procmaps__find.
**
**   make .output/fuzz/fuzz_procmaps && .output/fuzz/fuzz_procmaps tests/fuzz/corpus/procmaps
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE \
**         tests/fuzz/fuzz_procmaps.c proc/procmaps.c proc/readfile.c -o /tmp/fp
**
** Input: maps text. Besides memory safety: every mapping kept is sane (start < end,
** a NUL-terminated path without blanks in front or a newline), the table is sorted,
** find() only returns a mapping holding the address, the lines are parsed alone as
** they are in the whole text, and a mapping written back in the kernel's format
** parses to the same fields.
*/

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Are two mappings the same, field by field (perms: only exec is kept)? */
static int same(const struct procmap *a, const struct procmap *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && a->exec == b->exec && !strcmp(a->path, b->path);
}

/* abort() unless one mapping keeps the promises of procmaps.h. */
static void check_map(const struct procmap *m)
{
	const char *nul = memchr(m->path, 0, sizeof(m->path));

	if (m->start >= m->end || m->exec > 1 || !nul)
		abort();
	if (m->path[0] == ' ' || m->path[0] == '\t' || memchr(m->path, '\n', (size_t)(nul - m->path)))
		abort();
}

/* find() answers: only a mapping holding addr, and the only one when none overlap. */
static void check_find(const struct procmaps *pm, int disjoint)
{
	for (size_t i = 0; i < pm->n; i++) {
		const struct procmap *m = &pm->maps[i];
		const uint64_t probe[] = { m->start, m->end - 1, m->end, m->start - 1,
					   m->start + (m->end - m->start) / 2 };

		for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++) {
			const struct procmap *f = procmaps__find(pm, probe[k]);

			if (f && (probe[k] < f->start || probe[k] >= f->end))
				abort();
			if (disjoint && k < 2 && f != m)
				abort();
		}
	}
}

/* Write m back as the kernel does and parse it again: the same fields. */
static void roundtrip(const struct procmap *m)
{
	char line[PROCMAP_PATH_MAX + 160];
	struct procmaps back;
	int n = snprintf(line, sizeof(line), "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64
			 " %02x:%02x %" PRIu64 "%s%s\n", m->start, m->end, m->exec ? "r-xp" : "rw-p",
			 m->offset, m->dev_major, m->dev_minor, m->inode,
			 m->path[0] ? "                          " : "", m->path);

	if (n <= 0 || (size_t)n >= sizeof(line))
		abort();
	if (procmaps__parse(line, (size_t)n, &back) || back.n != 1 || !same(&back.maps[0], m))
		abort();
	procmaps__free(&back);
}

/* Parse the whole text, then each line alone: the same mappings, in order. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *p = text, *end = text + size;
	struct procmaps pm, one;
	size_t lines = 1, got = 0;
	struct procmap *each;
	int err, disjoint = 1;

	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	err = procmaps__parse(text, size, &pm);
	if (err == -ENOMEM)
		return 0;
	if (err || pm.n > lines || (size && !pm.maps))
		abort();
	for (size_t i = 0; i < pm.n; i++) {
		check_map(&pm.maps[i]);
		if (i && pm.maps[i - 1].start > pm.maps[i].start)
			abort();	/* sorted by start */
		if (i && pm.maps[i - 1].end > pm.maps[i].start)
			disjoint = 0;
	}
	check_find(&pm, disjoint);
	/* Line by line: every line the whole parse kept, and no other. */
	each = calloc(pm.n + 1, sizeof(*each));
	if (!each)
		abort();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (procmaps__parse(p, len, &one))
			abort();
		if (one.n > 1 || got + one.n > pm.n)
			abort();
		if (one.n) {
			each[got++] = one.maps[0];
			roundtrip(&one.maps[0]);
		}
		procmaps__free(&one);
		p = nl ? nl + 1 : end;
	}
	if (got != pm.n)
		abort();
	for (size_t i = 0; i < got; i++) {	/* the same set: each one is in pm */
		size_t k = 0;

		while (k < pm.n && !same(&each[i], &pm.maps[k]))
			k++;
		if (k == pm.n)
			abort();
	}
	free(each);
	procmaps__free(&pm);
	procmaps__free(&pm);	/* safe on a freed table */
	if (pm.maps || pm.n)
		abort();
	return 0;
}
