/*
** The .eh_frame/.debug_frame walker: every FDE of a raw section with its CIE
** and its CFA program. The only parser of these sections: the unwind table
** compiler (ehframe.c) runs each program into rows, the LuaJIT VM detection
** (lua/vmfde.c) looks at the shape of each program's final state.
**
** The bytes are untrusted: a malformed CIE or FDE is skipped and counted;
** nothing read from the section is used unchecked.
*/
#ifndef LUATOP_UNWIND_FDE_H
#define LUATOP_UNWIND_FDE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/cfa.h"

/* One FDE. */
struct fde {
	uint64_t lo, hi;		/* [lo, hi): the code it describes; lo > 0, hi > lo */
	const struct cfa_cie *cie;	/* its CIE: encodings, initial state */
	const uint8_t *insns;		/* its CFA program, in the section */
	size_t len;
};

struct fde_cie;

struct fde_iter {
	const uint8_t *data;		/* the section */
	size_t len;
	uint8_t is_eh;			/* .eh_frame, or .debug_frame */
	uint8_t stop_at_zero;		/* end at the first terminator (no known end) */
	struct dw_ptrctx x;		/* pointer context of the section */
	struct fde_cie *cies;		/* its CIEs, sorted by offset */
	size_t ncies;
	size_t pos;			/* next entry */
	size_t nbad;			/* CIEs/FDEs skipped as malformed or unsupported */
};

/*
** Start walking a section loaded at vaddr: .eh_frame (is_eh) or .debug_frame.
** datarel: the DW_EH_PE_datarel base, NULL when there is none (then FDEs that
** use it are skipped). stop_at_zero: a section found through PT_GNU_EH_FRAME
** has no known length; its first terminator ends it. 0, -EINVAL or -ENOMEM.
*/
int fde_iter__init(struct fde_iter *it, const uint8_t *data, size_t len, uint64_t vaddr,
		   int is_eh, int stop_at_zero, const uint64_t *datarel);
/* The next FDE: 1 and *out (valid until fde_iter__fini), 0 at the end. FDEs of
** code a linker discarded (address 0, tombstones, empty ranges) are passed over. */
int fde_iter__next(struct fde_iter *it, struct fde *out);
void fde_iter__fini(struct fde_iter *it);
/* Walk a whole section (as fde_iter__init, no known end only when stop_at_zero),
** calling fn for each FDE until it returns non-zero; skipped entries are added to
** *nbad. 0, fn's error, or fde_iter__init's. */
int fde__each(const uint8_t *data, size_t len, uint64_t vaddr, int is_eh,
	      const uint64_t *datarel, int (*fn)(void *arg, const struct fde *f), void *arg,
	      size_t *nbad);
/* Where .eh_frame starts, from the .eh_frame_hdr at hdr_vaddr (PT_GNU_EH_FRAME,
** for files without section headers): 0 and *vaddr, or -1 when malformed. */
int fde__eh_frame_of_hdr(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t *vaddr);

#endif
