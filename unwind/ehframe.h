/*
** .eh_frame/.debug_frame -> the compact unwind table of unwind/rule.h.
*/

#ifndef LUATOP_UNWIND_EHFRAME_H
#define LUATOP_UNWIND_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "wire/luatop.h"

/*
** Rows {pc_off, rule} sorted by pc_off, strictly increasing, no two neighbours
** with the same rule; rules deduplicated, rules[0] is always LT_UW_INVALID.
** A row covers [pc_off, next pc_off); the last row is LT_UW_INVALID (the end of
** the last FDE), as is every gap between FDEs.
**
** Overlapping FDEs: .eh_frame wins over .debug_frame, and within one kind the
** FDE added later (later in its section, or from a later add_section) wins,
** over the whole range of the winner.
**
** Input is untrusted: a malformed CIE or FDE is skipped (counted in nbad) and
** its range left to the others; only allocation failure and an address that
** does not fit the u32 pc_off (EOVERFLOW) are errors.
*/
struct uw_table;

/* Build from an ELF file (fd stays open). NULL + errno: ENOEXEC not an x86-64
   executable or shared object, ENODATA no usable CFI, EOVERFLOW an address
   >= 4 GiB, EINVAL not a regular file, ENOMEM. */
struct uw_table *uw_table__from_elf_fd(int fd);
/* Same from an ELF image in memory (e.g. the vDSO); buf is not kept. */
struct uw_table *uw_table__from_elf_mem(const void *buf, size_t len);
void uw_table__delete(struct uw_table *t);

size_t uw_table__nrows(const struct uw_table *t);
const struct lt_uw_row *uw_table__rows(const struct uw_table *t);
size_t uw_table__nrules(const struct uw_table *t);
const struct lt_uw_rule *uw_table__rules(const struct uw_table *t);
/* The rule covering vaddr (last row with pc_off <= vaddr), or NULL. */
const struct lt_uw_rule *uw_table__lookup(const struct uw_table *t, uint64_t vaddr);
/* CIEs and FDEs skipped as malformed or unsupported (diagnostics, tests). */
size_t uw_table__nbad(const struct uw_table *t);

/* -- The pure core: no I/O ------------------------------------------------ */

struct uw_table *uw_table__new(void);
/*
** Base for DW_EH_PE_datarel pointers. x86-64 defines none and no toolchain emits
** them, so by default (and from the ELF loaders) FDEs that use it are skipped.
*/
void uw_table__set_datarel_base(struct uw_table *t, uint64_t vaddr);
/*
** Parse one raw section: .eh_frame (is_eh = 1) or .debug_frame (is_eh = 0),
** loaded at section_vaddr (for pcrel pointers). data is not kept.
** 0, or -EINVAL (already finished), -ENOMEM, -EOVERFLOW.
*/
int uw_table__add_section(struct uw_table *t, const uint8_t *data, size_t len,
			  uint64_t section_vaddr, int is_eh);
/* Resolve overlaps, add end-of-FDE rows, merge and dedupe. Once: 0, -EINVAL, -ENOMEM. */
int uw_table__finish(struct uw_table *t);

#endif
