/*
** Native symbolizer: user addresses of live processes and kernel addresses -> names.
*/

#ifndef _LUATOP_SYMBOLIZE_SYMBOLIZER_H
#define _LUATOP_SYMBOLIZE_SYMBOLIZER_H

#include <stdint.h>

/*
** Per pid it keeps the parsed /proc/PID/maps (read on first use, re-read at most
** every 100 ms when an address falls in no mapping) and, per mapping, the ELF
** symbols of the mapped file, shared across processes by (dev, inode).
** Kernel symbols are loaded once, on first use. Not thread-safe.
*/
struct symbolizer;

struct symbolizer *symbolizer__new(void);
void symbolizer__delete(struct symbolizer *s);

struct symbol {
	const char *name;	/* function name, or "module+0xOFF" when no symbol covers it,
				   or "[unknown]" for an address in no mapping */
	const char *module;	/* basename of the mapped file ("libc.so.6"), "[kernel]" or a
				   kernel module name, or NULL */
	uint64_t offset;	/* into the symbol, or into the module when no symbol */
};

/*
** Look up one address; pass pc - 1 for return addresses. Strings stay valid until
** symbolizer__delete. Returns 0 when a symbol was found, 1 when only the module is
** known (name "module+0xOFF", the offset is the ELF virtual address when the file
** could be read, else the file offset), -ENOENT when unknown (name "[unknown]";
** also for anonymous mappings such as JIT code).
*/
int symbolizer__user(struct symbolizer *s, int pid, uint64_t addr, struct symbol *out);
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct symbol *out);
/* Forget a process's mappings (it exited or exec'd); cached ELF files stay. */
void symbolizer__forget(struct symbolizer *s, int pid);

#endif
