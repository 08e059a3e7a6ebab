/*
** libFuzzer entry point for perfmap__parse: lines, overrides, lookups.
**
**   make fuzz
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse, then probe addresses near the numbers in the input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *pm = perfmap__parse((const char *)data, size);
	uint64_t probes[8] = { 0, 1, 0x1000, 0xfff, UINT64_MAX };

	if (!pm)
		return 0;
	if (size >= 24)
		memcpy(&probes[5], data, 24);
	for (size_t i = 0; i < 8; i++) {
		uint64_t off = 0;
		const char *n = perfmap__lookup(pm, probes[i], &off);

		if (n && (strlen(n) > PERFMAP_LINE_MAX || off > probes[i]))
			abort();
	}
	perfmap__delete(pm);
	return 0;
}
