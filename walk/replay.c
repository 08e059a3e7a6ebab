/*
** Replay of the BPF walk (see replay.h): the shared driver with reads served
** from the snapshot.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "walk/replay.h"

static int replay_read(void *walk, void *dst, size_t size, uint64_t addr);
static void *replay_snapshot(void *walk);

static const struct lt_uw_row *snap_row(const struct uw_snapshot *s, uint32_t idx)
{
	return idx < s->nrows ? &s->rows[idx] : NULL;
}

static const struct lt_uw_rule *snap_rule(const struct uw_snapshot *s, uint32_t idx)
{
	return idx < s->nrules ? &s->rules[idx] : NULL;
}

/* Reads get the walk, which is the first member of its replay. */
#define LT_INLINE inline
#define LT_READ_USER(ctx, dst, size, addr) replay_read((ctx), (dst), (size), (addr))
#define LT_UW_ROW(ctx, idx) snap_row((ctx), (idx))
#define LT_UW_RULE(ctx, idx) snap_rule((ctx), (idx))
#define LT_UW_PROC(ctx, slot) (((const struct uw_snapshot *)(ctx))->proc)
#define LT_UW_LOOP(n, cb, state) \
	do { for (__u32 _i = 0; _i < (n) && !(cb)(_i, (state)); _i++) ; } while (0)
#define LT_WALK_STATE(arg) ((struct lt_walk *)(arg))
#define LT_WALK_ARG(w) ((void *)(w))
#define LT_LOOKUP_CTX(w) replay_snapshot(w)
#include "walk/driver.h"

/* A walk and where its reads come from. */
struct replay {
	struct lt_walk w;		/* first: the driver hands &w to the reads */
	const struct uw_snapshot *s;
	size_t next;			/* the next read of the log to match */
	int diverged;			/* a read the kernel's walk did not make */
};

static void *replay_snapshot(void *walk)
{
	return (void *)((struct replay *)walk)->s;
}

/*
** A read of the walk: the next entry of the kernel walk's log, which must be a
** read of the same bytes; or, without a log, the stack copy (anything else
** faults, as an unmapped page would in the kernel).
*/
static int replay_read(void *walk, void *dst, size_t size, uint64_t addr)
{
	struct replay *rp = walk;
	const struct uw_snapshot *s = rp->s;
	const struct lt_read *e;

	if (!s->reads) {
		if (addr < s->stack_base || addr - s->stack_base > s->stack_len ||
		    size > s->stack_len - (addr - s->stack_base))
			return -EFAULT;
		memcpy(dst, s->stack + (addr - s->stack_base), size);
		return 0;
	}
	int rc = 0;

	for (size_t off = 0; off < size; off += LT_READ_CHUNK) {	/* the kernel's chunks */
		size_t len = size - off < LT_READ_CHUNK ? size - off : LT_READ_CHUNK;

		if (rp->next >= s->nreads || s->reads[rp->next].addr != addr + off ||
		    s->reads[rp->next].size != len) {
			rp->diverged = 1;
			return -EFAULT;
		}
		e = &s->reads[rp->next++];
		rc = e->rc;
		if (!rc)
			memcpy((char *)dst + off, &e->data, len);
	}
	return rc;
}

int walk__replay(const struct uw_snapshot *s, struct lt_sample *out)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	int diverged;

	if (!rp)
		return -ENOMEM;
	rp->s = s;
	lt_walk_begin(&rp->w, &s->regs, s->cfg, s->cached_G, s->cached_own);
	lt_walk_user(&rp->w);
	*out = rp->w.s;
	diverged = rp->diverged;
	free(rp);
	return diverged ? -EIO : 0;
}

int uw_replay(const struct uw_snapshot *s, uint64_t *pcs, uint8_t *hows, unsigned max,
	      unsigned *n)
{
	struct lt_sample *smp = malloc(sizeof(*smp));
	int stop;

	*n = 0;
	if (!smp)
		return LT_STOP_READ_FAULT;
	walk__replay(s, smp);
	stop = smp->user_stop;
	for (unsigned i = 0; i < smp->n_user && i < LT_MAX_USER; i++) {
		if (*n == max) {
			stop = LT_STOP_MAX_DEPTH;
			break;
		}
		pcs[*n] = smp->user[i];
		hows[(*n)++] = smp->user_how[i];
	}
	free(smp);
	return stop;
}

long uw_replay_row(const struct uw_snapshot *s, uint64_t pc, uint8_t how)
{
	struct lt_uw_rule rule;
	__s64 row;

	lt_uw_find_rule((void *)s, 0, lt_frame_pc(pc, how), &rule, &row);
	return (long)row;
}
