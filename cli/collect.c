/*
** Collector: lt_sample -> frame ids (root first) -> stacktab.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/collect.h"
#include "profile/calltree.h"
#include "profile/frames.h"
#include "profile/stacks.h"
#include "symbolize/symbolizer.h"

/* Address -> frame id cache, so each address is symbolized once. */
struct addr_slot {
	uint64_t addr;
	int32_t pid;		/* 0 for kernel addresses */
	uint32_t frame;		/* frame id + 1; 0 marks an empty slot */
};

struct collector {
	struct symbolizer *sym;
	struct frametab *frames;
	struct stacktab *stacks;
	struct calltree *tree[COLLECT_VIEW__COUNT];	/* merged, raw: for the live view */
	struct addr_slot *slots;
	size_t nslots, used;	/* nslots is a power of two */
	struct collector_stats stats;
	uint32_t path[LT_MAX_USER + LT_MAX_KERNEL + LT_MAX_LUA + 2];
};

struct collector *collector__new(void)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sym = symbolizer__new();
	c->frames = frametab__new();
	c->stacks = stacktab__new();
	c->tree[COLLECT_MERGED] = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT);
	c->tree[COLLECT_RAW] = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT);
	c->nslots = 4096;
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	if (!c->sym || !c->frames || !c->stacks || !c->slots || !c->tree[COLLECT_MERGED] ||
	    !c->tree[COLLECT_RAW]) {
		collector__delete(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void collector__delete(struct collector *c)
{
	if (!c)
		return;
	symbolizer__delete(c->sym);
	frametab__delete(c->frames);
	stacktab__delete(c->stacks);
	calltree__delete(c->tree[COLLECT_MERGED]);
	calltree__delete(c->tree[COLLECT_RAW]);
	free(c->slots);
	free(c);
}

static size_t slot_hash(int32_t pid, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17);
}

static int grow(struct collector *c)
{
	size_t n = c->nslots * 2;
	struct addr_slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++) {
		struct addr_slot *o = &c->slots[i];
		size_t j;

		if (!o->frame)
			continue;
		for (j = slot_hash(o->pid, o->addr) & (n - 1); s[j].frame; j = (j + 1) & (n - 1))
			;
		s[j] = *o;
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

/* The interned frame of one address. */
static uint32_t symbolize(struct collector *c, int32_t pid, uint64_t addr)
{
	struct symbol sym = { 0 };
	size_t i;
	uint32_t id;

	for (i = slot_hash(pid, addr) & (c->nslots - 1); c->slots[i].frame;
	     i = (i + 1) & (c->nslots - 1))
		if (c->slots[i].addr == addr && c->slots[i].pid == pid)
			return c->slots[i].frame - 1;
	if (pid)
		symbolizer__user(c->sym, pid, addr, &sym);
	else
		symbolizer__kernel(c->sym, addr, &sym);
	id = frametab__intern(c->frames, pid ? FRAME_NATIVE : FRAME_KERNEL,
			      sym.name ? sym.name : "[unknown]", sym.module);
	if (id == UINT32_MAX)
		return id;
	c->slots[i] = (struct addr_slot){ .addr = addr, .pid = pid, .frame = id + 1 };
	if (++c->used * 2 > c->nslots && grow(c))
		return UINT32_MAX;
	return id;
}

static const char *const stop_texts[] = {
#define STOP_TEXT(name, text) text,
	LT_STOP_LIST(STOP_TEXT)
#undef STOP_TEXT
};

const char *collector__stop_text(unsigned stop)
{
	return stop < LT_STOP__COUNT ? stop_texts[stop] : "unknown";
}

/*
** Return addresses point after the call; look up addr-1 so a call that ends a
** function is not named after the next one. The leaf and frames interrupted
** by a signal carry exact pcs; kernel frames past the first are returns.
*/
static uint64_t user_addr(const struct lt_sample *s, unsigned i)
{
	uint8_t how = s->user_how[i & (LT_MAX_USER - 1)] & LT_HOW_MASK;

	return (how == LT_HOW_LEAF || how == LT_HOW_SIGNAL) ? s->user[i] : s->user[i] - 1;
}

static uint64_t kernel_addr(const struct lt_sample *s, unsigned i)
{
	return i == 0 ? s->kernel[0] : s->kernel[i] - 1;
}

/* VM state counts, as jit.p's vmstate profile groups them. */
static void count_vmstate(struct collector *c, const struct lt_sample *s)
{
	int st = s->vmstate;

	if (!(s->flags & LT_SAMPLE_LUA) || !s->G)
		return;
	if (st >= 0)
		c->stats.vm[COLLECT_VM_JIT]++;
	else if (st == -1)
		c->stats.vm[COLLECT_VM_INTERP]++;
	else if (st == -2)
		c->stats.vm[COLLECT_VM_C]++;
	else if (st == -3)
		c->stats.vm[COLLECT_VM_GC]++;
	else
		c->stats.vm[COLLECT_VM_COMPILER]++;	/* exit handler, recorder, optimizer, asm */
}

/* The interned frame of one Lua frame (lua[i] of the sample). */
static uint32_t lua_frame(struct collector *c, const struct lt_sample *s, unsigned i, int jit)
{
	const struct lt_lua_frame *f = &s->lua[i];
	char buf[64];

	switch (f->kind) {
	case LT_LUA_C:
		return symbolize(c, (int32_t)s->tgid, f->addr);
	case LT_LUA_FAST:
		snprintf(buf, sizeof(buf), "[builtin#%u]", f->ffid);
		return frametab__intern(c->frames, FRAME_LUA_C, buf, NULL);
	case LT_LUA_COROUTINE:
		return frametab__intern(c->frames, FRAME_SPECIAL, "[coroutine]", NULL);
	default:
		snprintf(buf, sizeof(buf), "lua:%#llx", (unsigned long long)f->addr);
		return frametab__intern(c->frames, jit ? FRAME_LUA_JIT : FRAME_LUA, buf, NULL);
	}
}

int collector__add(struct collector *c, const struct lt_sample *s)
{
	unsigned nl = s->n_lua < LT_MAX_LUA ? s->n_lua : LT_MAX_LUA, seg_end = nl;
	unsigned nu = s->n_user < LT_MAX_USER ? s->n_user : LT_MAX_USER;
	unsigned nk = s->n_kernel < LT_MAX_KERNEL ? s->n_kernel : LT_MAX_KERNEL;
	uint32_t n = 0;
	int err;

	/* Root first: user frames outermost to leaf, then kernel frames. */
	for (unsigned i = nu; i-- > 0;)
		c->path[n++] = symbolize(c, (int32_t)s->tgid, user_addr(s, i));
	for (unsigned i = nk; i-- > 0;)
		c->path[n++] = symbolize(c, 0, kernel_addr(s, i));
	/* Raw: the Lua frames as their own block, root first, after a separator.
	** Frames of the running coroutine run in the trace when vmstate >= 0. */
	if (nl) {
		for (unsigned i = 0; i < nl; i++)
			if (s->lua[i].kind == LT_LUA_COROUTINE) {
				seg_end = i;
				break;
			}
		c->path[n++] = frametab__intern(c->frames, FRAME_SPECIAL, "[lua]", NULL);
		for (unsigned i = nl; i-- > 0;)
			c->path[n++] = lua_frame(c, s, i, s->vmstate >= 0 && i < seg_end);
	}
	count_vmstate(c, s);
	if (s->flags & LT_SAMPLE_USER_ERR)
		c->stats.user_err++;
	if (s->flags & LT_SAMPLE_FP_USED)
		c->stats.fp_used++;
	c->stats.stop[s->user_stop < LT_STOP__COUNT ? s->user_stop : LT_STOP_BAD_RULE]++;
	if (!n) {
		c->stats.empty++;
		c->path[n++] = frametab__intern(c->frames, FRAME_SPECIAL, "[unknown]", NULL);
	}
	for (uint32_t i = 0; i < n; i++)
		if (c->path[i] == UINT32_MAX)
			return -ENOMEM;
	c->stats.samples++;
	err = stacktab__add(c->stacks, c->path, n, 1);
	/* Merging is not there yet: the merged and the raw stack are the same. */
	if (!err)
		err = calltree__add(c->tree[COLLECT_MERGED], c->path, n, 1, s->time_ns, 0);
	if (!err)
		err = calltree__add(c->tree[COLLECT_RAW], c->path, n, 1, s->time_ns, 0);
	return err;
}

void collector__forget(struct collector *c, int pid)
{
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].pid == pid)
			c->slots[i].pid = -1;	/* tombstone: keeps probe chains intact */
	symbolizer__forget(c->sym, pid);
}

struct frametab *collector__frames(const struct collector *c)
{
	return c->frames;
}

struct stacktab *collector__stacks(const struct collector *c)
{
	return c->stacks;
}

struct calltree *collector__tree(const struct collector *c, enum collect_view v)
{
	return v < COLLECT_VIEW__COUNT ? c->tree[v] : NULL;
}

const struct collector_stats *collector__stats(const struct collector *c)
{
	return &c->stats;
}
