/*
** Function symbols of one ELF file (.symtab and .dynsym), its PT_LOAD headers,
** and the build-id and .gnu_debuglink that lead to a separate debug file.
*/

#ifndef LUATOP_SYMBOLIZE_ELFSYMS_H
#define LUATOP_SYMBOLIZE_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

#define ELFSYMS_BUILD_ID_MAX	64	/* longer build-id notes are ignored */
#define ELFSYMS_DEBUGLINK_MAX	256	/* longer .gnu_debuglink names are ignored */

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
** or NULL if vaddr is past its reach: its size when it has one; for a zero-size
** .symtab symbol, the end of its section (so at most the next symbol); for a
** zero-size .dynsym symbol, its first byte only. Sets *sym_off = vaddr - start
** when sym_off is not NULL. The name stays valid until elfsyms__delete.
*/
const char *elfsyms__lookup(const struct elfsyms *s, uint64_t vaddr, uint64_t *sym_off);
size_t elfsyms__count(const struct elfsyms *s);
/*
** Add the functions of from (typically a separate debug file of the same build)
** to s. s keeps its own program headers: a debug file's PT_LOADs may be NOBITS.
** 0, -EINVAL or -ENOMEM (then s is unchanged).
*/
int elfsyms__merge(struct elfsyms *s, const struct elfsyms *from);
/* The NT_GNU_BUILD_ID descriptor and its length, or NULL when there is none. */
const uint8_t *elfsyms__build_id(const struct elfsyms *s, size_t *len);
/* The .gnu_debuglink file name (a bare name, no '/') and its CRC-32, or NULL. */
const char *elfsyms__debuglink(const struct elfsyms *s, uint32_t *crc);
/* Nonzero when a .symtab (the file's own or a merged one) contributed functions. */
int elfsyms__has_symtab(const struct elfsyms *s);

#endif
