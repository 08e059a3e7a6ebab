/*
** Replay of the BPF user-stack walk, for tests and fixtures.
*/
#include <string.h>

#include "wire/luatop.h"
#include "unwind/replay.h"

/* Memory reads are served from the stack copy only; anything else faults,
** as an unmapped page would in the kernel. */
static int snap_read(const struct uw_snapshot *s, void *dst, size_t size, uint64_t addr)
{
	if (addr < s->stack_base || addr - s->stack_base > s->stack_len ||
	    size > s->stack_len - (addr - s->stack_base))
		return -1;
	memcpy(dst, s->stack + (addr - s->stack_base), size);
	return 0;
}

static const struct lt_uw_row *snap_row(const struct uw_snapshot *s, uint32_t idx)
{
	return idx < s->nrows ? &s->rows[idx] : NULL;
}

static const struct lt_uw_rule *snap_rule(const struct uw_snapshot *s, uint32_t idx)
{
	return idx < s->nrules ? &s->rules[idx] : NULL;
}

#define LT_INLINE inline
#define LT_READ_USER(ctx, dst, size, addr) snap_read((ctx), (dst), (size), (addr))
#define LT_UW_ROW(ctx, idx) snap_row((ctx), (idx))
#define LT_UW_RULE(ctx, idx) snap_rule((ctx), (idx))
#define LT_UW_PROC(ctx, slot) (((const struct uw_snapshot *)(ctx))->proc)
#define LT_UW_LOOP(n, cb, state) \
	do { for (__u32 _i = 0; _i < (n) && !(cb)(_i, (state)); _i++) ; } while (0)
#include "unwind/step.h"
#include "unwind/lookup.h"

int uw_replay(const struct uw_snapshot *s, uint64_t *pcs, uint8_t *hows, unsigned max,
	      unsigned *n)
{
	struct lt_uw_regs r = { .pc = s->pc, .sp = s->sp, .bp = s->bp };
	__u8 how = LT_HOW_LEAF;
	void *ctx = (void *)s;

	*n = 0;
	/* Same order as walk_step() in bpf/sampler.bpf.c: record, look up, step. */
	for (;;) {
		struct lt_uw_rule rule;
		__s64 row;
		int rc;

		if (*n >= max || *n >= LT_MAX_USER)
			return LT_STOP_MAX_DEPTH;
		pcs[*n] = r.pc;
		hows[*n] = how;
		++*n;
		rc = lt_uw_find_rule(ctx, 0, lt_frame_pc(r.pc, how), &rule, &row);
		if (rc == LT_STOP__COUNT)
			rc = lt_uw_step(ctx, &rule, &r, &how);
		if (rc != LT_STOP__COUNT)
			return rc;
	}
}

long uw_replay_row(const struct uw_snapshot *s, uint64_t pc, uint8_t how)
{
	struct lt_uw_rule rule;
	__s64 row;

	lt_uw_find_rule((void *)s, 0, lt_frame_pc(pc, how), &rule, &row);
	return (long)row;
}
