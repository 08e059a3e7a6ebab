/*
** libFuzzer entry point for elfsyms__load_mem (ELF parsing, compressed sections,
** notes, .gnu_debuglink) followed by lookups, address translation and a merge.
**
**   make fuzz                       (seeds: a few small ELF files of this system)
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* qsort_r: the build passes it, a bare clang does not */
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/elfsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read a little-endian word from the input tail, for probe addresses. */
static uint64_t word(const uint8_t *data, size_t size, size_t i)
{
	uint64_t v = 0;

	if (size >= 8 * (i + 1))
		memcpy(&v, data + size - 8 * (i + 1), 8);
	return v;
}

/* Every call on an object built from bad input must be safe. */
static void poke(struct elfsyms *es, const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = { 0, 1, 0x1000, 0x400000, UINT64_MAX };
	uint64_t v, off;
	size_t n;
	uint32_t crc;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 4; i++) {
		uint64_t a = i < sizeof(fixed) / sizeof(fixed[0]) ? fixed[i] : word(data, size, i);
		const char *name = elfsyms__lookup(es, a, &off);

		if (name && strlen(name) > 4096)
			abort();
		if (!elfsyms__file_offset_to_vaddr(es, a, &v))
			(void)elfsyms__lookup(es, v, NULL);
	}
	if (elfsyms__build_id(es, &n) && (!n || n > ELFSYMS_BUILD_ID_MAX))
		abort();
	if (elfsyms__debuglink(es, &crc) && strchr(elfsyms__debuglink(es, NULL), '/'))
		abort();
	(void)elfsyms__has_symtab(es);
	(void)elfsyms__count(es);
}

/* Load, look up, merge into a copy of itself. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsyms *a = elfsyms__load_mem(data, size), *b;

	if (!a)
		return 0;
	poke(a, data, size);
	b = elfsyms__load_mem(data, size);
	if (b) {
		size_t n = elfsyms__count(a);

		if (elfsyms__merge(a, b) == 0 && elfsyms__count(a) != n)
			abort();	/* merging the same symbols adds none */
		poke(a, data, size);
		elfsyms__delete(b);
	}
	elfsyms__delete(a);
	return 0;
}
