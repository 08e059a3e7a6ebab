/*
** What a sample from the ring buffer means, field by field: the addresses
** that name its frames (root first, as the pipeline reads them) and the state
** of its LuaJIT VM. The one place that interprets G->vmstate.
*/
#ifndef LUATOP_COLLECT_SAMPLE_H
#define LUATOP_COLLECT_SAMPLE_H

#include "profile/vm.h"
#include "wire/luatop.h"

/* Frame counts, bounded by the record's arrays. */
unsigned sample__n_user(const struct lt_sample *s);
unsigned sample__n_kernel(const struct lt_sample *s);
unsigned sample__n_lua(const struct lt_sample *s);
/* The address naming user frame i, counted from the root. */
__u64 sample__user_addr(const struct lt_sample *s, unsigned i);
/* The address naming kernel frame i, counted from the root. */
__u64 sample__kernel_addr(const struct lt_sample *s, unsigned i);
/* The VM state (jit.p's groups); VM_NONE outside LuaJIT or without its state. */
enum vm_state sample__vm_state(const struct lt_sample *s);

#endif
