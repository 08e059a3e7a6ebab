/*
** libFuzzer entry point for the pprof reader (export/pprof.c, pprof__read_mem):
** a profile from anyone (luatop -i FILE) is bytes we never trust.
**
**   make .output/fuzz/fuzz_pprof && .output/fuzz/fuzz_pprof tests/fuzz/corpus/pprof
**
** Besides memory safety: on success every stack's frames are frames of the
** table, the stacks write out as folded text and read back with the same total;
** on failure the reason is one NUL-terminated line.
*/
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/folded.h"
#include "export/pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_stack(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	const struct frametab *ft = ctx;

	(void)count;
	for (uint32_t i = 0; i < n; i++)
		if (!frametab__get(ft, frames[i]))
			abort();
	return 0;
}

/* Write the stacks as folded text and read them back: same total (of the
** non-empty stacks, which is what folded keeps). */
static void check_folded(const struct frametab *ft, const struct stacktab *st)
{
	struct frametab *ft2 = frametab__new();
	struct stacktab *st2 = stacktab__new();
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f || !ft2 || !st2 || folded__write(f, ft, st))
		abort();
	fclose(f);
	f = fmemopen(text, len ? len : 1, "r");
	if (!f || (len && folded__read(f, ft2, st2, err, sizeof(err))))
		abort();
	fclose(f);
	if (len && stacktab__total(st2) > stacktab__total(st))
		abort();
	free(text);
	frametab__delete(ft2);
	stacktab__delete(st2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	char err[256];
	int rc;

	if (!ft || !st)
		abort();
	memset(err, 'x', sizeof(err));
	rc = pprof__read_mem(data, size, ft, st, err, sizeof(err));
	if (rc == -EINVAL && (!memchr(err, 0, sizeof(err)) || strchr(err, '\n')))
		abort();
	if (!rc) {
		stacktab__foreach(st, check_stack, ft);
		check_folded(ft, st);
	}
	frametab__delete(ft);
	stacktab__delete(st);
	return 0;
}
