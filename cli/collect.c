/*
** Collector: lt_sample -> frame ids (root first) -> stacktab.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/collect.h"
#include "merge/merge.h"
#include "profile/calltree.h"
#include "profile/frames.h"
#include "profile/stacks.h"
#include "lua/names.h"
#include "symbolize/symbolizer.h"
#include "target/mem.h"

/* Address -> frame id cache, so each address is symbolized once. */
struct addr_slot {
	uint64_t addr;
	int32_t pid;		/* 0 for kernel addresses */
	uint32_t frame;		/* frame id + 1; 0 marks an empty slot */
};

struct collector {
	struct symbolizer *sym;
	struct luanames *luasym;	/* names of Lua frames */
	int lines;		/* Lua frames per line */
	int mark_fallback;	/* export: root fallback stacks at "[fallback]" */
	struct frametab *frames;
	struct stacktab *stacks[COLLECT_VIEW__COUNT];	/* merged, raw: for export */
	struct calltree *tree[COLLECT_VIEW__COUNT];	/* merged, raw: for the live view */
	struct addr_slot *slots;
	size_t nslots, used;	/* nslots is a power of two */
	struct collector_stats stats;
	uint32_t pathbuf[MG_MAX_OUT + 2];	/* [0]: room for "[fallback]" */
	uint32_t *path;		/* pathbuf + 1: the stack being added */
	/* One sample's frames by source, root first. */
	uint32_t nat[LT_MAX_USER], ker[LT_MAX_KERNEL], lua[LT_MAX_LUA];
	uint8_t nat_how[LT_MAX_USER];
	struct lt_lua_frame lua_root_first[LT_MAX_LUA];
	struct mg_ref refs[MG_MAX_OUT];
};

struct collector *collector__new(struct tmodel *model)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->path = c->pathbuf + 1;
	c->sym = symbolizer__new(model);
	c->luasym = luanames__new();
	c->frames = frametab__new();
	c->stacks[COLLECT_MERGED] = stacktab__new();
	c->stacks[COLLECT_RAW] = stacktab__new();
	c->tree[COLLECT_MERGED] = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT);
	c->tree[COLLECT_RAW] = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT);
	c->nslots = 4096;
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	if (!c->sym || !c->luasym || !c->frames || !c->stacks[COLLECT_MERGED] || !c->stacks[COLLECT_RAW] ||
	    !c->slots || !c->tree[COLLECT_MERGED] ||
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
	luanames__delete(c->luasym);
	frametab__delete(c->frames);
	stacktab__delete(c->stacks[COLLECT_MERGED]);
	stacktab__delete(c->stacks[COLLECT_RAW]);
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
#define LT_STOP(name, text) text,
#include "wire/stops.def"
#undef LT_STOP
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

/* The interned frame of one Lua frame (lua[i] of the sample, leaf first). */
static uint32_t lua_frame(struct collector *c, const struct lt_sample *s, unsigned nl,
			  unsigned i, int jit)
{
	const struct lt_lua_frame *f = &s->lua[i];
	struct luaname ln = { 0 };

	if (f->kind == LT_LUA_COROUTINE)
		return frametab__intern(c->frames, FRAME_SPECIAL, "[coroutine]", NULL);
	if (f->kind == LT_LUA_C)
		return symbolize(c, (int32_t)s->tgid, f->addr);
	struct mreader rd = tmem__reader((int)s->tgid);

	luanames__frame(c->luasym, (int)s->tgid, &rd, s->lua, nl, i, c->lines, &ln);
	if (!ln.name)
		ln.name = "[lua:?]";
	return frametab__intern(c->frames, f->kind == LT_LUA_FAST ? FRAME_LUA_C :
				jit ? FRAME_LUA_JIT : FRAME_LUA, ln.name, ln.chunk);
}

void collector__set_lines(struct collector *c, int on)
{
	c->lines = on;
}

void collector__set_mark_fallback(struct collector *c, int on)
{
	c->mark_fallback = on;
}

void collector__set_luajit(struct collector *c, int pid, const struct luabuild *b)
{
	luanames__set_build(c->luasym, pid, b);
}

/* Symbolize the sample's frames per source, root first; fill the merge input. */
static void gather(struct collector *c, const struct lt_sample *s, struct mg_input *in)
{
	unsigned nu = s->n_user < LT_MAX_USER ? s->n_user : LT_MAX_USER;
	unsigned nk = s->n_kernel < LT_MAX_KERNEL ? s->n_kernel : LT_MAX_KERNEL;
	unsigned nl = s->n_lua < LT_MAX_LUA ? s->n_lua : LT_MAX_LUA, seg_end = nl;

	for (unsigned i = 0; i < nu; i++) {
		c->nat[i] = symbolize(c, (int32_t)s->tgid, user_addr(s, nu - 1 - i));
		c->nat_how[i] = s->user_how[nu - 1 - i];
	}
	for (unsigned i = 0; i < nk; i++)
		c->ker[i] = symbolize(c, 0, kernel_addr(s, nk - 1 - i));
	/* The running coroutine's frames (before any resumer) are in the trace
	** when vmstate >= 0. */
	for (unsigned i = 0; i < nl; i++)
		if (s->lua[i].kind == LT_LUA_COROUTINE) {
			seg_end = i;
			break;
		}
	for (unsigned i = 0; i < nl; i++) {
		c->lua_root_first[i] = s->lua[nl - 1 - i];
		c->lua[i] = lua_frame(c, s, nl, nl - 1 - i, s->vmstate >= 0 && nl - 1 - i < seg_end);
	}
	*in = (struct mg_input){
		.native_how = c->nat_how, .n_native = nu, .n_kernel = nk,
		.lua = c->lua_root_first, .n_lua = nl,
		.native_complete = s->user_stop == LT_STOP_COMPLETE,
		.lua_complete = !(s->flags & LT_SAMPLE_LUA_TRUNC),
		.lua_process = (s->flags & LT_SAMPLE_LUA) != 0,
		.have_G = s->G != 0,
	};
}

/* Frame ids of a merge result; 0 or -ENOMEM. */
static int resolve(struct collector *c, unsigned n, uint32_t *len)
{
	uint32_t sep = frametab__intern(c->frames, FRAME_SPECIAL, "[lua]", NULL);

	*len = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct mg_ref *r = &c->refs[i];
		uint32_t id = r->source == MG_NATIVE ? c->nat[r->index] :
			      r->source == MG_KERNEL ? c->ker[r->index] :
			      r->source == MG_LUA ? c->lua[r->index] : sep;

		if (id == UINT32_MAX)
			return -ENOMEM;
		c->path[(*len)++] = id;
	}
	if (!*len) {
		c->stats.empty++;
		c->path[(*len)++] = frametab__intern(c->frames, FRAME_SPECIAL, "[unknown]", NULL);
	}
	return c->path[0] == UINT32_MAX ? -ENOMEM : 0;
}

/* Add one view's stack to its stacktab and call tree. */
static int add_view(struct collector *c, enum collect_view v, uint32_t n, uint64_t t, int fb)
{
	int err;

	/* The export may root fallback stacks at a marker (path has a spare slot
	** in front); the live view marks them by flag instead. */
	if (fb && c->mark_fallback) {
		c->pathbuf[0] = frametab__intern(c->frames, FRAME_SPECIAL, "[fallback]", NULL);
		err = c->pathbuf[0] == UINT32_MAX ? -ENOMEM :
		      stacktab__add(c->stacks[v], c->pathbuf, n + 1, 1);
	} else {
		err = stacktab__add(c->stacks[v], c->path, n, 1);
	}

	return err ? err : calltree__add(c->tree[v], c->path, n, 1, t, fb ? CT_FALLBACK : 0);
}

int collector__add(struct collector *c, const struct lt_sample *s)
{
	struct mg_input in;
	unsigned nref;
	uint32_t n;
	int reason, fb, err;

	gather(c, s, &in);
	count_vmstate(c, s);
	if (s->flags & LT_SAMPLE_USER_ERR)
		c->stats.user_err++;
	if (s->flags & LT_SAMPLE_FP_USED)
		c->stats.fp_used++;
	c->stats.stop[s->user_stop < LT_STOP__COUNT ? s->user_stop : LT_STOP_BAD_RULE]++;
	if (in.lua_process)
		c->stats.lua_samples++;

	fb = merge__stacks(&in, c->refs, &nref, &reason);
	c->stats.with_lua += in.n_lua > 0;
	c->stats.with_lua_fallback += in.n_lua > 0 && fb;
	if (fb) {
		c->stats.fallback++;
		if (reason >= 0 && reason < MG_REASON__COUNT)
			c->stats.fallback_why[reason]++;
	}
	err = resolve(c, nref, &n);
	if (!err)
		err = add_view(c, COLLECT_MERGED, n, s->time_ns, fb);
	merge__raw(&in, c->refs, &nref);
	if (!err)
		err = resolve(c, nref, &n);
	if (!err)
		err = add_view(c, COLLECT_RAW, n, s->time_ns, fb);
	c->stats.samples++;
	return err;
}

void collector__forget(struct collector *c, int pid)
{
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].pid == pid)
			c->slots[i].pid = -1;	/* tombstone: keeps probe chains intact */
	symbolizer__forget(c->sym, pid);
	luanames__forget(c->luasym, pid);
}

struct frametab *collector__frames(const struct collector *c)
{
	return c->frames;
}

struct stacktab *collector__stacks(const struct collector *c, enum collect_view v)
{
	return v < COLLECT_VIEW__COUNT ? c->stacks[v] : NULL;
}

struct calltree *collector__tree(const struct collector *c, enum collect_view v)
{
	return v < COLLECT_VIEW__COUNT ? c->tree[v] : NULL;
}

const struct collector_stats *collector__stats(const struct collector *c)
{
	return &c->stats;
}
