/*
** The functions of a stripped binary: every FDE of .eh_frame/.debug_frame
** describes one function (or one cold part of it), so the FDE an address lies in
** names it by its start ("luajit+0x33600") when no symbol does. One function is
** then one frame, wherever in it the samples fall.
*/
#ifndef LUATOP_UNWIND_FUNCS_H
#define LUATOP_UNWIND_FUNCS_H

#include <stddef.h>
#include <stdint.h>

struct uw_funcs;

/* From an ELF file (the fd stays open) or an image in memory: NULL + errno
** (ENOEXEC, ENODATA: no FDE, ENOMEM). */
struct uw_funcs *uw_funcs__from_elf_fd(int fd);
struct uw_funcs *uw_funcs__from_elf_mem(const void *buf, size_t len);
void uw_funcs__delete(struct uw_funcs *f);

/* The start of the function containing vaddr: 0 and *start, or -ENOENT when no
** FDE covers it. Where FDEs nest or overlap, the innermost start wins. */
int uw_funcs__start_of(const struct uw_funcs *f, uint64_t vaddr, uint64_t *start);
size_t uw_funcs__count(const struct uw_funcs *f);

/* -- The pure core: no I/O ------------------------------------------------ */

struct uw_funcs *uw_funcs__new(void);
/* Add the FDEs of one raw section (as uw_table__add_section): 0, -EINVAL, -ENOMEM. */
int uw_funcs__add_section(struct uw_funcs *f, const uint8_t *data, size_t len,
			  uint64_t section_vaddr, int is_eh);
/* Sort and drop repeats; then lookups work. 0 or -EINVAL. */
int uw_funcs__finish(struct uw_funcs *f);

#endif
