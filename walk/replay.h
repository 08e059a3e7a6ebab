/*
** The walk of a sampled thread replayed in user space by the same driver as
** the BPF sampler (walk/driver.h), over a snapshot of what the kernel walk saw:
** the registers, the thread's cached global_State, the LuaJIT facts, the unwind
** tables it looked rows up in, and its memory: the log of every read it made
** (captures), or a copy of the stack (older fixtures, synthetic tests).
*/
#ifndef LUATOP_WALK_REPLAY_H
#define LUATOP_WALK_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "wire/luatop.h"

struct uw_snapshot {
	struct lt_uregs regs;		/* user registers at the sample */
	uint64_t cached_G;		/* the thread's G cache entry, 0: none */
	int cached_own;			/* ... the thread's own, not its process's */
	const struct lt_lua_cfg *cfg;	/* the process's LuaJIT facts; NULL: none */
	const struct lt_read *reads;	/* the kernel walk's reads, in order; NULL: */
	size_t nreads;
	uint64_t stack_base;		/* ... memory is the stack copy at stack_base */
	const uint8_t *stack;
	size_t stack_len;
	const struct lt_uw_proc *proc;	/* mappings; row_start indexes rows[] below */
	const struct lt_uw_row *rows;
	size_t nrows;
	const struct lt_uw_rule *rules;
	size_t nrules;
};

/*
** Walk like the BPF program, into out (user frames, Lua frames, flags, stop,
** vmstate, G, L; the kernel part and the header are left zero). 0, or -EIO when
** the walk read memory the kernel's did not (in order): the walks diverged.
*/
int walk__replay(const struct uw_snapshot *s, struct lt_sample *out);
/* The user frames only, at most max (then LT_STOP_MAX_DEPTH): pcs and hows
** leaf first and *n; returns the enum lt_stop the walk ended with. */
int uw_replay(const struct uw_snapshot *s, uint64_t *pcs, uint8_t *hows, unsigned max,
	      unsigned *n);
/* Which row the lookup of a frame's pc uses (-1 when none). */
long uw_replay_row(const struct uw_snapshot *s, uint64_t pc, uint8_t how);

#endif
