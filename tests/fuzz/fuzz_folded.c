/*
** libFuzzer entry point for folded__read (and, on success, folded__write).
**
**   clang -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_folded.c \
**         profile/frames.c profile/stacks.c profile/folded.c -o ff
**   ./ff -max_total_time=60 tests/fuzz/corpus/folded
**
** Seeds: tests/fuzz/corpus/folded (CRLF and blank lines, kernel/JIT/special
** frames, long and UTF-8 names, invalid UTF-8, malformed counts).
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, open_memstream: the build passes it, a bare clang does not */
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write ft/st to a malloc'd string; NULL if the writer fails. */
static char *dump(const struct frametab *ft, const struct stacktab *st, size_t *len)
{
	char *p = NULL;
	FILE *f = open_memstream(&p, len);

	if (!f)
		abort();
	if (folded__write(f, ft, st))
		abort();
	fclose(f);
	return p;
}

/* Read n bytes of folded text into fresh tables and write them back; NULL if unreadable. */
static char *cycle(const void *data, size_t n, size_t *len)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	FILE *f = fmemopen((void *)data, n, "r");
	char err[128], *out = NULL;

	if (!ft || !st || !f)
		abort();
	if (!folded__read(f, ft, st, err, sizeof(err)))
		out = dump(ft, st, len);
	else if (strncmp(err, "line ", 5))
		abort();	/* every error names its line */
	fclose(f);
	frametab__delete(ft);
	stacktab__delete(st);
	return out;
}

/* Read must not crash; what it accepts must write, reread and rewrite identically. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t alen = 0, blen = 0;
	char *a, *b;

	if (!size)
		return 0;	/* fmemopen rejects size 0 on older glibc */
	a = cycle(data, size, &alen);
	if (!a)
		return 0;
	b = alen ? cycle(a, alen, &blen) : strdup("");
	/* read strips "_[j]" and write does not add it back, so skip those. */
	if (!b || (!memmem(a, alen, "_[j]", 4) && (alen != blen || memcmp(a, b, alen))))
		abort();
	free(a);
	free(b);
	return 0;
}
