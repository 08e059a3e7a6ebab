/*
** lj_bc_ofs[] in a stripped binary: the uint16 table of every bytecode handler
** and ASM fast function entry, as offsets from lj_vm_asm_begin.
*/

#ifndef LUATOP_LUA_BCOFS_H
#define LUATOP_LUA_BCOFS_H

#include <stddef.h>
#include <stdint.h>

#define BCOFS_ASMFF	57	/* GG_NUM_ASMFF: ASM fast functions after BC__MAX (2.1) */
#define BCOFS_MAX_BC	160	/* largest BC__MAX considered (97 in 2022, 104 in 2026) */
#define BCOFS_MIN_BC	64	/* smallest */
#define BCOFS_MAX_EQ	16	/* empty handlers allowed (11 without JIT: J* ops, FUNCV) */

/* What the VM code says a true lj_bc_ofs must agree with. */
struct bcofs_want {
	uint32_t vm_len;	/* every entry is inside the VM */
	uint32_t funcc_call;	/* the call *%r15 lies in handler BC_FUNCC = BC__MAX - 2, */
	uint32_t funcc_end;	/* all of it, up to here */
	uint32_t funccw_call;	/* the call *wrapf lies in BC_FUNCCW = BC__MAX - 1 */
	uint32_t funccw_end;
};

/* The table found. */
struct bcofs {
	uint64_t vaddr;		/* of lj_bc_ofs[0] */
	uint32_t bc_max;	/* BC__MAX; the table has bc_max + BCOFS_ASMFF entries */
	uint16_t ofs[BCOFS_MAX_BC + BCOFS_ASMFF];	/* a copy of it */
};

/*
** Look for the table in read-only data p[0..len) loaded at vaddr. A candidate
** starts at an even address with 0, rises (never falls, at most BCOFS_MAX_EQ
** repeats) over BC__MAX entries, has FUNCC/FUNCCW where want says, and BCOFS_ASMFF
** fast-function entries behind FUNCCW's, all inside the VM. Returns the number
** of candidates in this region and copies the first one to *out when *out is
** still empty (out->bc_max == 0).
*/
uint32_t bcofs__find(const uint8_t *p, size_t len, uint64_t vaddr,
		     const struct bcofs_want *want, struct bcofs *out);

#endif
