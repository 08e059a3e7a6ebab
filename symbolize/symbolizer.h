/*
** Native symbolizer: user addresses of live processes and kernel addresses -> names.
*/

#ifndef LUATOP_SYMBOLIZE_SYMBOLIZER_H
#define LUATOP_SYMBOLIZE_SYMBOLIZER_H

#include <stdint.h>

/*
** Addresses are looked up in the target model (proc/model.h: each process's
** maps, re-read at most every 100 ms when an address falls in no mapping, and
** the files behind them by identity); the ELF symbols of a file are kept as its
** TF_SYMBOLS part, shared by every process that maps it. A file
** without .symtab is completed from its separate debug file, found by build-id
** or .gnu_debuglink under the debug root and next to the file, inside the
** process's root directory; tables that found one are shared by build-id.
** Addresses in anonymous executable memory are named from the process's
** /tmp/perf-NSPID.map when it writes one (re-read when it changes, checked at most
** every 100 ms). C++ names are demangled when libstdc++.so.6 can be dlopen()ed.
** Kernel symbols are loaded once, on first use. Not thread-safe.
*/
struct symbolizer;

struct tmodel;
/* A symbolizer of the processes of model (which outlives it), or of a model of
** its own when model is NULL. NULL + errno. Reads LUATOP_DEBUG_ROOT (see
** symbolizer__set_debug_root). */
struct symbolizer *symbolizer__new(struct tmodel *model);
void symbolizer__delete(struct symbolizer *s);
/*
** Look for separate debug files under dir (an absolute path, taken inside each
** process's root) instead of /usr/lib/debug; NULL restores the default. Applies to
** files loaded afterwards. 0, -EINVAL or -ENOMEM.
*/
int symbolizer__set_debug_root(struct symbolizer *s, const char *dir);
/* Demangle C++ names (on by default); applies to lookups made afterwards. */
void symbolizer__set_demangle(struct symbolizer *s, int on);
/* Code no symbol covers is named by the function it lies in ("module+0xSTART",
** its FDE's start: one frame per function) unless on, then by its exact
** address ("module+0xADDR"). Default off. */
void symbolizer__set_exact(struct symbolizer *s, int on);
/* Name kernel frames from k (owned from now on) instead of reading
** /proc/kallsyms at the first one; NULL: none. */
struct kallsyms;
void symbolizer__set_kallsyms(struct symbolizer *s, struct kallsyms *k);

struct symbol {
	const char *name;	/* function name (C++ demangled), or "module+0xOFF" when no
				   symbol covers it, or "[unknown]" for an address in no
				   mapping */
	const char *module;	/* basename of the mapped file ("libc.so.6"), "[jit]" for a
				   perf map entry, "[kernel]" or a kernel module name, or NULL */
	uint64_t offset;	/* into the symbol, or into the module when no symbol */
	/* Where it is mapped, for exports that keep addresses (pprof): the
	** mapping's path and range, its file offset and the file's GNU build ID
	** in hex ("" if none). path NULL: not a file mapping (JIT code, kernel). */
	const char *path;
	const char *build_id;
	uint64_t map_start, map_end, map_offset;
};

/*
** Look up one address; pass pc - 1 for return addresses. Strings stay valid until
** symbolizer__delete. Returns 0 when a symbol was found, 1 when only the module is
** known (name "module+0xOFF", the offset is the ELF virtual address when the file
** could be read, else the file offset), -ENOENT when unknown (name "[unknown]";
** also for anonymous mappings such as JIT code that no perf map entry covers),
** -EAGAIN when no mapping of pid covers it as its maps were last read (also
** "[unknown]"): a library mapped since then is found once the maps are read again
** (a miss re-reads them at most every TPROC_REREAD_NS), so do not keep the answer.
*/
int symbolizer__user(struct symbolizer *s, int pid, uint64_t addr, struct symbol *out);
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct symbol *out);
/* Forget a process (it exited or exec'd) when the model is the symbolizer's own;
** the owner of a shared model forgets its processes there. Cached ELF files stay. */
void symbolizer__forget(struct symbolizer *s, int pid);

#endif
