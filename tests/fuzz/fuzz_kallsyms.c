/*
** libFuzzer entry point for the /proc/kallsyms parser (symbolize/kallsyms.c):
** kallsyms__parse on arbitrary text, then lookups.
**
**   make .output/fuzz/fuzz_kallsyms && .output/fuzz/fuzz_kallsyms tests/fuzz/corpus/kallsyms
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE \
**         tests/fuzz/fuzz_kallsyms.c symbolize/kallsyms.c symbolize/symorder.c \
**         proc/readfile.c -o /tmp/fk
**
** Input: kallsyms text. Besides memory safety: names and module names are
** NUL-terminated, bounded, one word; the table has at most one symbol per line;
** every line that is a text symbol on its own is found at its address (offset 0)
** in the whole table, and offsets never exceed the address looked up.
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* qsort_r in kallsyms.c: the build passes it, a bare clang does not */
#endif

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/kallsyms.h"

#define NAME_MAX_KS	1024	/* KS_NAME_MAX in kallsyms.c: longer names are cut */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Look addr up and abort() unless the answer keeps the promises of kallsyms.h. */
static const char *probe(const struct kallsyms *k, uint64_t addr, uint64_t *off)
{
	const char *mod = (const char *)1, *name;
	uint64_t o = UINT64_MAX;

	name = kallsyms__lookup_off(k, addr, &mod, &o);
	if (!name) {
		if (mod)
			abort();	/* cleared on a miss */
		return NULL;
	}
	/* Lines with NUL bytes are skipped: a name is never "" or cut short. */
	if (!*name || strlen(name) > NAME_MAX_KS || strpbrk(name, " \t\n") || o > addr)
		abort();
	if (mod && (strlen(mod) > NAME_MAX_KS || strchr(mod, '\n')))
		abort();
	if (kallsyms__lookup(k, addr, NULL) != name)
		abort();
	if (off)
		*off = o;
	return name;
}

/* Parse the whole text, probe it, then each line alone against it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *p = text, *end = text + size;
	static const uint64_t fixed[] = { 0, 1, 0xffffffff81000000ull, UINT64_MAX };
	struct kallsyms *k = NULL, *one;
	size_t lines = 1;
	uint64_t off;
	int err;

	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	err = kallsyms__parse(text, size, &k);
	if (err == -EPERM || err == -ENOMEM) {
		if (k)
			abort();
		return 0;
	}
	if (err || !k || kallsyms__count(k) > lines)
		abort();
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		probe(k, fixed[i], NULL);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		one = NULL;
		err = kallsyms__parse(p, len, &one);
		if (err && err != -EPERM)
			abort();
		if (!err && kallsyms__count(one) > 1)
			abort();
		if (!err && kallsyms__count(one) == 1) {
			/* Its address: the offset from the top of the address space. */
			const char *name = probe(one, UINT64_MAX, &off);
			uint64_t addr = UINT64_MAX - off;

			if (!name || probe(one, addr, &off) != name || off)
				abort();
			if (addr && probe(one, addr - 1, NULL))
				abort();	/* nothing below the only symbol */
			if (!probe(k, addr, &off) || off)
				abort();	/* some symbol of the whole table starts there */
			probe(k, addr - 1, NULL);
			probe(k, addr + 1, NULL);
		}
		kallsyms__delete(one);
		p = nl ? nl + 1 : end;
	}
	kallsyms__delete(k);
	return 0;
}
