/*
** /tmp/perf-PID.map: names of JIT code written by the profiled process itself.
*/

#ifndef LUATOP_SYMBOLIZE_PERFMAP_H
#define LUATOP_SYMBOLIZE_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#define PERFMAP_LINE_MAX	4096		/* longer lines are skipped */
#define PERFMAP_ENTRIES_MAX	(1u << 20)	/* lines past this many entries are ignored */

/*
** Lines are "START SIZE name": START and SIZE in hex (an optional 0x), the name is
** the rest of the line. Where ranges overlap, the later line wins over the part it
** covers (LuaJIT reuses machine code areas after a trace flush). Malformed lines,
** empty names and zero sizes are skipped. Names are copied: nothing refers to the
** input after parsing.
*/
struct perfmap;

/* Parse text (need not be NUL-terminated); NULL + errno (EINVAL, ENOMEM). */
struct perfmap *perfmap__parse(const char *text, size_t len);
/* Read an open file to its end (the fd is not closed); NULL + errno. */
struct perfmap *perfmap__read_fd(int fd);
/*
** Name of the entry covering addr, or NULL. Sets *sym_off = addr - entry start
** when sym_off is not NULL. The name stays valid until perfmap__delete.
*/
const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *sym_off);
/* Number of disjoint address ranges after overrides. */
size_t perfmap__count(const struct perfmap *pm);
void perfmap__delete(struct perfmap *pm);

#endif
