/*
** Reading a sample record.
*/
#include "collect/sample.h"
#include "lua/layout.h"

unsigned sample__n_user(const struct lt_sample *s)
{
	return s->n_user < LT_MAX_USER ? s->n_user : LT_MAX_USER;
}

unsigned sample__n_kernel(const struct lt_sample *s)
{
	return s->n_kernel < LT_MAX_KERNEL ? s->n_kernel : LT_MAX_KERNEL;
}

unsigned sample__n_lua(const struct lt_sample *s)
{
	return s->n_lua < LT_MAX_LUA ? s->n_lua : LT_MAX_LUA;
}

__u64 sample__user_addr(const struct lt_sample *s, unsigned i)
{
	unsigned leaf_i = sample__n_user(s) - 1 - i;	/* the record is leaf first */

	return lt_frame_pc(s->user[leaf_i], s->user_how[leaf_i]);
}

/* Kernel frames past the first are return addresses: look up addr - 1. */
__u64 sample__kernel_addr(const struct lt_sample *s, unsigned i)
{
	unsigned leaf_i = sample__n_kernel(s) - 1 - i;

	return leaf_i == 0 ? s->kernel[0] : s->kernel[leaf_i] - 1;
}

enum vm_state sample__vm_state(const struct lt_sample *s)
{
	if (!(s->flags & LT_SAMPLE_LUA) || !s->G)
		return VM_NONE;
	if (s->vmstate >= 0)
		return VM_JIT;		/* the number of the trace running */
	switch (s->vmstate) {
	case LT_LJ_VMST_INTERP:
		return VM_INTERP;
	case LT_LJ_VMST_C:
		return VM_C;
	case LT_LJ_VMST_GC:
		return VM_GC;
	default:
		return VM_COMPILER;	/* exit handler, recorder, optimizer, assembler */
	}
}
