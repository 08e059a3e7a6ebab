/*
** Kernel text symbols from /proc/kallsyms, sorted for address lookup.
*/

#ifndef LUATOP_SYMBOLIZE_KALLSYMS_H
#define LUATOP_SYMBOLIZE_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kallsyms;

/*
** Parse text in the /proc/kallsyms format ("ffffffff81000000 T _stext [module]");
** only text symbols (t T w W) are kept, malformed lines are skipped.
** 0, -EINVAL (NULL arguments), -ENOMEM, or -EPERM when every address is 0
** (kptr_restrict hides them).
*/
int kallsyms__parse(const char *text, size_t len, struct kallsyms **out);
/*
** The addresses of the core kernel's symbols names[0..n) of any type, from text
** in the /proc/kallsyms format, into addrs[] (0: not there). Returns how many
** were found.
*/
unsigned kallsyms__find(const char *text, size_t len, const char *const *names, uint64_t *addrs,
			unsigned n);
/* The text of /proc/kallsyms into *text (malloc'd, *len bytes). 0 or -errno. */
int kallsyms__read(char **text, size_t *len);
/* The text symbols of text (kallsyms__parse), at least one; NULL + errno
** (EPERM when addresses are hidden, ENOENT when there is none). */
struct kallsyms *kallsyms__of_text(const char *text, size_t len);
/* Read /proc/kallsyms and parse it; NULL + errno, as kallsyms__of_text. */
struct kallsyms *kallsyms__load(void);
/*
** The nearest text symbol at or below addr, or NULL. When module is not NULL it is
** set to the module name, or NULL for the core kernel. Strings live until delete.
*/
const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr, const char **module);
/* kallsyms__lookup that also sets *sym_off = addr - symbol start when sym_off is not NULL. */
const char *kallsyms__lookup_off(const struct kallsyms *k, uint64_t addr, const char **module,
				 uint64_t *sym_off);
size_t kallsyms__count(const struct kallsyms *k);
void kallsyms__delete(struct kallsyms *k);

#endif
