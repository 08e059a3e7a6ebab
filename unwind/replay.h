/*
** User-space replay of the BPF user-stack walk over a captured snapshot:
** registers, a copy of the stack, and the unwind rows the lookup touches.
** The same lookup and step code as the BPF program (unwind/lookup.h, step.h).
*/
#ifndef LUATOP_UNWIND_REPLAY_H
#define LUATOP_UNWIND_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "wire/luatop.h"

struct uw_snapshot {
	uint64_t pc, sp, bp;		/* user registers at the sample */
	uint64_t stack_base;		/* address of stack[0] (= sp) */
	const uint8_t *stack;		/* copy of [stack_base, stack_base + stack_len) */
	size_t stack_len;
	const struct lt_uw_proc *proc;	/* mappings; row_start indexes rows[] below */
	const struct lt_uw_row *rows;
	size_t nrows;
	const struct lt_uw_rule *rules;
	size_t nrules;
};

/* Walk like the BPF program: fills pcs/hows (leaf first) and *n; returns the
** enum lt_stop the walk ended with. */
int uw_replay(const struct uw_snapshot *s, uint64_t *pcs, uint8_t *hows, unsigned max,
	      unsigned *n);
/* Which row the lookup of a frame's pc uses (-1 when none). */
long uw_replay_row(const struct uw_snapshot *s, uint64_t pc, uint8_t how);

#endif
