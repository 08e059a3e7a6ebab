/*
** Function symbols of one ELF file (.symtab and .dynsym) and its PT_LOAD headers.
*/

#ifndef _LUATOP_SYMBOLIZE_ELFSYMS_H
#define _LUATOP_SYMBOLIZE_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

/*
** Sorted STT_FUNC/STT_GNU_IFUNC symbols, deduplicated by address, with names
** copied into an arena: no ELF handle or file stays open after loading.
** The file is untrusted: malformed headers or tables are skipped, never trusted.
*/
struct elfsyms;

/* Load from an open file (the fd is not closed). NULL + errno on non-ELF/unreadable;
   a valid ELF without symbols gives an empty object. */
struct elfsyms *elfsyms__load_fd(int fd);
struct elfsyms *elfsyms__load_path(const char *path);
/* Load from an ELF image in memory (e.g. a vDSO copied out of a process); buf is copied. */
struct elfsyms *elfsyms__load_mem(const void *buf, size_t len);
void elfsyms__delete(struct elfsyms *s);
/*
** Map a file offset (addr - map start + map offset) to the ELF virtual address
** through the PT_LOAD that holds it: 0 and *vaddr, or -ENOENT.
*/
int elfsyms__file_offset_to_vaddr(const struct elfsyms *s, uint64_t file_off,
				  uint64_t *vaddr);
/*
** Name of the function containing vaddr: the symbol with the largest start <= vaddr,
** or NULL if it has a size and vaddr is past its end (zero-size symbols extend to the
** next one). Sets *sym_off = vaddr - start when sym_off is not NULL.
** The name stays valid until elfsyms__delete.
*/
const char *elfsyms__lookup(const struct elfsyms *s, uint64_t vaddr, uint64_t *sym_off);
size_t elfsyms__count(const struct elfsyms *s);

#endif
