/*
** The pipeline: one sample from the ring buffer becomes two stacks of frame
** ids in the profile, merged and raw.
**
**   1. gather: name every frame of the sample, root first, by source: native
**      frames (symbolize/, cached per address), kernel frames, Lua frames
**      (lua/names); note how each native frame was reached (VM activations).
**   2. merge/: the merged stack (or a fallback stack and its reason) and the
**      raw stack, as references into those arrays.
**   3. resolve each into frame ids and add it to its view's stacktab (export)
**      and call tree (live view).
**
** Symbolization happens as samples arrive, so the profile stays complete after
** the target exits.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/idmap.h"
#include "collect/collect.h"
#include "collect/labels.h"
#include "collect/threads.h"
#include "collect/framecache.h"
#include "collect/sample.h"
#include "lua/detect.h"
#include "lua/names.h"
#include "lua/trace.h"
#include "merge/merge.h"
#include "profile/calltree.h"
#include "profile/frames.h"
#include "profile/stacks.h"
#include "symbolize/symbolizer.h"
#include "proc/mem.h"

_Static_assert(LT_MAX_LUA + LUATRACE_FRAMES_MAX <= MG_MAX_LUA,
	       "a sample's Lua frames with a trace's inlined ones fit the merge");

/* What the collector knows of one LuaJIT process. */
struct lproc {
	int pid;
	uint32_t off_jit_trace;		/* G-relative address of J->trace; 0: no JIT */
	struct luatraces *traces;	/* its JIT traces, decoded */
};

#define COLLECT_LUA_IDS	512	/* Lua frame ids remembered by name address */

struct lua_id {
	const char *name, *chunk;	/* interned by luanames; name NULL: empty */
	enum frame_kind kind;
	uint32_t id;
};

struct proc_root {
	uint32_t pid;		/* the idmap's id */
	uint32_t frame;		/* "[PID comm]" */
};

struct collector {
	struct symbolizer *sym;
	struct luanames *names;	/* names of Lua frames */
	struct framecache *cache;	/* (pid, address) -> frame */
	int lines;		/* Lua frames per line */
	int mark_fallback;	/* export: root fallback stacks at "[fallback]" */
	struct lproc *lprocs;
	size_t nlprocs, caplprocs;
	enum luatrace_rule trace_rule;	/* which snapshot a sample between two stands for */
	struct lua_id lua_ids[COLLECT_LUA_IDS];
	uint64_t epoch_ns;	/* checks of target memory since are newer than samples
				   up to this time (collector__epoch) */
	struct frametab *frames;
	/* Per event and view (merged, raw); NULL for the events not built. */
	struct stacktab *stacks[EV__COUNT][COLLECT_VIEW__COUNT];	/* for export */
	struct stacktab *labelled[EV__COUNT][COLLECT_VIEW__COUNT];	/* ... keyed [label set, frames] */
	struct calltree *tree[EV__COUNT][COLLECT_VIEW__COUNT];	/* for the live view */
	unsigned events;	/* 1 << enum prof_event: the events built */
	uint64_t period_us;	/* wall: what a CPU sample weighs */
	uint64_t weight[EV__COUNT];	/* this sample's count in each event; 0: none */
	uint8_t *class;		/* frame id -> FC_* (frame_class), 0: not known yet */
	size_t class_cap;
	struct labelsets labels;	/* the sets of labelled */
	struct threads threads;	/* the threads seen, and the ones profiled */
	int proc_roots;		/* root every stack at its process's frame */
	struct idmap roots;	/* struct proc_root by pid: "[PID comm]", kept
				   after the process exits */
	uint32_t root;		/* this sample's, UINT32_MAX: none */
	struct collect_site *sites;	/* frame id -> where its code is mapped */
	size_t sites_cap;
	int labels_on;		/* keep labelled */
	unsigned views;		/* 1 << enum collect_view: the views built */
	int want_stacks, want_trees;	/* keep stacks[], tree[] of those views */
	uint32_t label;		/* this sample's set */
	struct collector_stats stats;
	unsigned jit_top;	/* this sample's first Lua frames that ran in its trace */
	unsigned n_inlined;	/* ... of which the trace inlined the first ones */
	uint32_t lbuf[MG_MAX_OUT + 3];	/* [label set, (marker,) path] */
	uint32_t pathbuf[MG_MAX_OUT + 2];	/* [0]: room for "[idle]" or "[fallback]" */
	uint32_t *path;		/* pathbuf + 1: the stack being added */
	uint8_t markbuf[MG_MAX_OUT + 2];	/* marks of pathbuf */
	int idle;		/* this sample waits for events: rooted at "[idle]" */
	uint8_t *marks;		/* markbuf + 1: CT_MARK_* of each frame of path */
	/* One sample's frames by source, root first. */
	uint32_t nat[LT_MAX_USER], ker[LT_MAX_KERNEL], lua[MG_MAX_LUA];
	uint8_t nat_how[LT_MAX_USER];
	uint8_t lua_marks[MG_MAX_LUA];	/* CT_MARK_* of each Lua frame, root first */
	uint32_t traceno;	/* the trace the sample ran in, 0: none or unknown */
	struct lt_lua_frame lua_leaf_first[MG_MAX_LUA];	/* with a trace's inlined frames */
	struct lt_lua_frame lua_root_first[MG_MAX_LUA];
	struct mg_ref refs[MG_MAX_OUT];
};

static const char *const stop_texts[] = {
#define LT_STOP(name, text) text,
#include "wire/stops.def"
#undef LT_STOP
};

const char *collector__stop_text(unsigned stop)
{
	return stop < LT_STOP__COUNT ? stop_texts[stop] : "unknown";
}

/* -- Life ---------------------------------------------------------------- */

struct collector *collector__new(struct tmodel *model)
{
	struct collector *c = calloc(1, sizeof(*c));
	int ok;

	if (!c)
		return NULL;
	c->path = c->pathbuf + 1;
	c->marks = c->markbuf + 1;
	c->views = (1u << COLLECT_VIEW__COUNT) - 1;
	c->want_stacks = c->want_trees = 1;
	c->sym = symbolizer__new(model);
	c->names = luanames__new();
	c->cache = framecache__new();
	threads__init(&c->threads);
	idmap__init(&c->roots, sizeof(struct proc_root));
	c->frames = frametab__new();
	ok = c->sym && c->names && c->cache && c->frames;
	if (!ok || collector__set_events(c, 1u << EV_CPU, 0)) {
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
	luanames__delete(c->names);
	framecache__delete(c->cache);
	for (size_t i = 0; i < c->nlprocs; i++)
		luatraces__delete(c->lprocs[i].traces);
	free(c->lprocs);
	frametab__delete(c->frames);
	for (int e = 0; e < EV__COUNT; e++)
		for (int v = 0; v < COLLECT_VIEW__COUNT; v++) {
			stacktab__delete(c->stacks[e][v]);
			stacktab__delete(c->labelled[e][v]);
			calltree__delete(c->tree[e][v]);
		}
	free(c->class);
	labelsets__free(&c->labels);
	threads__free(&c->threads);
	idmap__free(&c->roots);
	free(c->sites);
	free(c);
}

int collector__set_labels(struct collector *c, int on)
{
	for (int e = 0; on && e < EV__COUNT; e++)
		for (int v = 0; (c->events & 1u << e) && v < COLLECT_VIEW__COUNT; v++)
			if (!c->labelled[e][v] && !(c->labelled[e][v] = stacktab__new()))
				return -ENOMEM;
	c->labels_on = on;
	return 0;
}

int collector__set_events(struct collector *c, unsigned events, unsigned freq)
{
	for (int e = 0; e < EV__COUNT; e++)
		for (int v = 0; (events & 1u << e) && v < COLLECT_VIEW__COUNT; v++) {
			if (!c->stacks[e][v] && !(c->stacks[e][v] = stacktab__new()))
				return -ENOMEM;
			if (!c->tree[e][v] &&
			    !(c->tree[e][v] = calltree__new(CT_SPAN_DEFAULT, CT_HALF_DEFAULT)))
				return -ENOMEM;
			if (c->labels_on && !c->labelled[e][v] &&
			    !(c->labelled[e][v] = stacktab__new()))
				return -ENOMEM;
		}
	c->events = events & ((1u << EV__COUNT) - 1);
	c->period_us = freq ? (1000000 + freq / 2) / freq : 0;
	return 0;
}

unsigned collector__events(const struct collector *c)
{
	return c->events;
}

void collector__set_outputs(struct collector *c, unsigned views, int stacks, int trees)
{
	c->views = views & ((1u << COLLECT_VIEW__COUNT) - 1);
	c->want_stacks = stacks;
	c->want_trees = trees;
}

struct stacktab *collector__labelled(const struct collector *c, enum prof_event e,
				     enum collect_view v)
{
	return e < EV__COUNT && v < COLLECT_VIEW__COUNT && c->labels_on ? c->labelled[e][v] : NULL;
}

const struct collect_labels *collector__label_set(const struct collector *c, uint32_t id)
{
	return labelsets__get(&c->labels, id);
}

void collector__set_process_roots(struct collector *c, int on)
{
	c->proc_roots = on;
}

int collector__set_process_name(struct collector *c, int pid, const char *comm)
{
	struct proc_root *r;
	char name[96];
	uint32_t frame;

	snprintf(name, sizeof(name), "[%d %s]", pid, comm && *comm ? comm : "?");
	frame = frametab__intern(c->frames, FRAME_SPECIAL, name, NULL);
	if (frame == UINT32_MAX || !(r = idmap__add(&c->roots, (uint32_t)pid, NULL)))
		return -ENOMEM;
	r->frame = frame;	/* a reused PID takes its new name */
	return 0;
}

/* The "[PID comm]" frame of pid (named "[PID ?]" if never told its name). */
static uint32_t root_of(struct collector *c, int pid)
{
	const struct proc_root *r = idmap__get(&c->roots, (uint32_t)pid);

	if (r)
		return r->frame;
	if (collector__set_process_name(c, pid, NULL))
		return UINT32_MAX;
	return ((const struct proc_root *)idmap__get(&c->roots, (uint32_t)pid))->frame;
}

void collector__cut(struct collector *c)
{
	for (int e = 0; e < EV__COUNT; e++)
		for (int v = 0; v < COLLECT_VIEW__COUNT; v++) {
			if (c->stacks[e][v])
				stacktab__reset(c->stacks[e][v]);
			if (c->labelled[e][v])
				stacktab__reset(c->labelled[e][v]);
		}
}

void collector__set_lines(struct collector *c, int on)
{
	c->lines = on;
}

void collector__set_trace_rule(struct collector *c, enum luatrace_rule rule)
{
	c->trace_rule = rule;
}

void collector__set_exact_addresses(struct collector *c, int on)
{
	symbolizer__set_exact(c->sym, on);
}

void collector__set_kallsyms(struct collector *c, struct kallsyms *k)
{
	symbolizer__set_kallsyms(c->sym, k);
}

void collector__set_mark_fallback(struct collector *c, int on)
{
	c->mark_fallback = on;
}

/* The collector's state of LuaJIT process pid; created when create is set. */
static struct lproc *lproc_of(struct collector *c, int pid, int create)
{
	struct lproc *p;

	for (size_t i = 0; i < c->nlprocs; i++)
		if (c->lprocs[i].pid == pid)
			return &c->lprocs[i];
	if (!create)
		return NULL;
	if (c->nlprocs == c->caplprocs) {
		size_t cap = c->caplprocs ? 2 * c->caplprocs : 8;

		p = realloc(c->lprocs, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->lprocs = p;
		c->caplprocs = cap;
	}
	p = &c->lprocs[c->nlprocs];
	*p = (struct lproc){ .pid = pid, .traces = luatraces__new() };
	if (!p->traces)
		return NULL;
	c->nlprocs++;
	return p;
}

void collector__set_luajit(struct collector *c, int pid, const struct luabuild *b)
{
	struct lproc *p = lproc_of(c, pid, 1);

	luanames__set_build(c->names, pid, b);
	if (p)
		p->off_jit_trace = b && b->jit ? b->off_jit_trace : 0;
}

void collector__forget(struct collector *c, int pid)
{
	struct lproc *p = lproc_of(c, pid, 0);

	if (p)
		luatraces__flush(p->traces);
	framecache__forget(c->cache, pid);
	symbolizer__forget(c->sym, pid);
	luanames__forget(c->names, pid);
}

/* -- 1. Frames ------------------------------------------------------------ */

/* Where a native frame's code is mapped, and at (its function's start when a
** symbol named it, else the code's own address): the first address seen. */
static int note_site(struct collector *c, uint32_t id, const struct symbol *sym, uint64_t at)
{
	struct collect_site *st;

	while (id >= c->sites_cap) {
		size_t old = c->sites_cap;

		if (grow__room((void **)&c->sites, &c->sites_cap, c->sites_cap, sizeof(*c->sites)))
			return -ENOMEM;
		memset(c->sites + old, 0, (c->sites_cap - old) * sizeof(*c->sites));
	}
	st = &c->sites[id];
	if (st->path)
		return 0;
	*st = (struct collect_site){
		.path = sym->path, .build_id = sym->build_id, .start = sym->map_start,
		.limit = sym->map_end, .offset = sym->map_offset, .addr = at,
	};
	return 0;
}

const struct collect_site *collector__site(const struct collector *c, uint32_t frame)
{
	return frame < c->sites_cap && c->sites[frame].path ? &c->sites[frame] : NULL;
}

/*
** The frame of a native address of pid (0: a kernel address), named once. An
** address in no mapping the model knows is asked again each time: a sample
** can come before the maps are re-read after a library was mapped (the dynamic
** loader's first calls into libc), and caching it would leave that address
** [unknown] for the rest of the run.
*/
static uint32_t native_frame(struct collector *c, int32_t pid, uint64_t addr)
{
	struct symbol sym;
	uint32_t id;
	int rc;

	if (framecache__get(c->cache, pid, addr, &id))
		return id;
	memset(&sym, 0, sizeof(sym));	/* not before: most frames are known */
	rc = pid ? symbolizer__user(c->sym, pid, addr, &sym) : symbolizer__kernel(c->sym, addr, &sym);
	id = frametab__intern(c->frames, pid ? FRAME_NATIVE : FRAME_KERNEL,
			      sym.name ? sym.name : "[unknown]", sym.module);
	if (rc == -EAGAIN)
		return id;
	if (id == UINT32_MAX || framecache__put(c->cache, pid, addr, id) ||
	    (sym.path && note_site(c, id, &sym, rc == 0 && sym.offset <= addr - sym.map_start ?
						   addr - sym.offset : addr)))
		return UINT32_MAX;
	return id;
}

/* The frame id of a Lua frame's name: luanames hands out interned strings, so
** their addresses stand for them (a frame table lookup hashes the text). */
static uint32_t lua_frame_id(struct collector *c, enum frame_kind kind, const char *name,
			     const char *chunk)
{
	uintptr_t h = ((uintptr_t)name >> 3) * 31 + ((uintptr_t)chunk >> 3) + (uintptr_t)kind;
	struct lua_id *e = &c->lua_ids[(h ^ h >> 9) % COLLECT_LUA_IDS];

	if (e->name != name || e->chunk != chunk || e->kind != kind || e->id == UINT32_MAX) {
		e->name = name;
		e->chunk = chunk;
		e->kind = kind;
		e->id = frametab__intern(c->frames, kind, name, chunk);
	}
	return e->id;
}

/* The frame of Lua frame i of lua[] (nl of them, leaf first). Whether it ran in a
** trace is a mark of the sample (CT_MARK_JIT), not part of the frame: a function
** is one frame however it ran. */
static uint32_t lua_frame(struct collector *c, int pid, const struct lt_lua_frame *lua,
			  unsigned nl, unsigned i)
{
	const struct lt_lua_frame *f = &lua[i];
	struct mreader rd = tmem__reader(pid);
	struct luaname ln = { 0 };

	if (f->kind == LT_LUA_COROUTINE)
		return frametab__special(c->frames, SPECIAL_COROUTINE);
	if (f->kind == LT_LUA_C)
		return native_frame(c, pid, f->addr);
	luanames__frame(c->names, pid, &rd, lua, nl, i, c->lines, &ln);
	if (!ln.name)
		ln.name = "[lua:?]";
	return lua_frame_id(c, f->kind == LT_LUA_FAST ? FRAME_LUA_C : FRAME_LUA, ln.name, ln.chunk);
}

/* The machine-code address of the sample's frame in a trace, 0 if none. */
static uint64_t trace_frame_pc(const struct lt_sample *s)
{
	for (unsigned i = 0; i < sample__n_user(s); i++)
		if (s->user_how[i] & LT_HOW_F_TRACE)
			return lt_frame_pc(s->user[i], s->user_how[i]);
	return 0;
}

/*
** The sample's Lua frames (leaf first) into c->lua_leaf_first, with the frames
** of the snapshot its trace pc lies in: the inlined frames on top of the trace's
** base frame, whose pc the snapshot gives too. Returns how many.
*/
static unsigned lua_frames(struct collector *c, const struct lt_sample *s)
{
	unsigned nl = sample__n_lua(s), k = 0;
	const struct luatrace_snap *snap;
	struct luatrace_hdr h, *hp = NULL;
	enum luatrace_why why;
	struct lproc *p;
	struct mreader rd;
	uint64_t pc;

	memcpy(c->lua_leaf_first, s->lua, nl * sizeof(s->lua[0]));
	if (sample__vm_state(s) != VM_JIT || !nl || s->lua[0].kind != LT_LUA_LUA ||
	    c->trace_rule == LUATRACE_RULE_OFF)
		return nl;
	pc = trace_frame_pc(s);
	if (!pc && sample__n_user(s) && s->user_how[0] & LT_HOW_F_VM) {
		/* A trace that ends without linking jumps to vm_exit_interp, which
		** resets vmstate only as it dispatches the next bytecode: the Lua
		** frames are the walk's, right per function. */
		c->stats.trace_left++;
		return nl;
	}
	c->stats.trace_samples++;
	p = lproc_of(c, (int)s->tgid, 1);
	if (!pc || !p) {
		c->stats.trace_why[LUATRACE_WHY_NO_FRAME]++;
		return nl;
	}
	if (s->trace_T && !luatraces__header(p->traces, s->trace_hdr, s->trace_T, &h))
		hp = &h;
	rd = tmem__reader((int)s->tgid);
	if (luatraces__snapshot(p->traces, &rd, hp, p->off_jit_trace ? s->G + p->off_jit_trace : 0,
				pc, c->trace_rule, &snap, &why)) {
		c->stats.trace_why[why]++;
		return nl;
	}
	c->stats.trace_mapped++;
	c->stats.trace_inlined += snap->n > 0;
	c->traceno = snap->traceno;
	c->n_inlined = snap->n;
	for (k = 0; k < snap->n && k + nl < MG_MAX_LUA; k++)
		c->lua_leaf_first[k] = snap->frames[k];
	memcpy(c->lua_leaf_first + k, s->lua, nl * sizeof(s->lua[0]));
	c->lua_leaf_first[k].pc = snap->base_pc;
	c->lua_leaf_first[k].flags &= (uint8_t)~LT_LUAF_PC_TOP;
	if (snap->base_pt) {	/* a tail call replaced the base frame's function */
		c->lua_leaf_first[k].fn = snap->base_fn;
		c->lua_leaf_first[k].addr = snap->base_pt;
	}
	c->jit_top = k + 1;	/* the frames that ran in the trace */
	return k + nl;
}

/* What the collector needs to know of some frames, by name (frame_class). */
enum {
	FC_WAITS = 0x1,		/* waits for events: an event loop's idle wait, without Lua */
	FC_TRACER = 0x2,	/* the tracing that took an off-CPU sample's kernel stack */
	FC_KNOWN = 0x80,	/* classified */
};

static const char *const wait_names[] = {
	"ep_poll", "do_epoll_wait", "do_sys_poll", "do_select", "core_sys_select",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect",
};

/* The FC_* of frame id, worked out once per frame. */
static unsigned frame_class(struct collector *c, uint32_t id)
{
	const struct frame *fr;

	if (id >= c->class_cap) {
		size_t old = c->class_cap;

		if (grow__room((void **)&c->class, &c->class_cap, (size_t)id + 1, 1))
			return 0;
		memset(c->class + old, 0, c->class_cap - old);
	}
	if (c->class[id])
		return c->class[id];
	fr = frametab__get(c->frames, id);
	c->class[id] = FC_KNOWN;
	if (!fr || !fr->name)
		return c->class[id];
	for (size_t i = 0; i < sizeof(wait_names) / sizeof(*wait_names); i++)
		if (!strcmp(fr->name, wait_names[i]))
			c->class[id] |= FC_WAITS;
	if (fr->kind == FRAME_KERNEL && (!strncmp(fr->name, "bpf_", 4) ||
					 !strncmp(fr->name, "__bpf_", 6) ||
					 !strncmp(fr->name, "__traceiter_", 12)))
		c->class[id] |= FC_TRACER;
	return c->class[id];
}

/* Name the sample's frames per source, root first; fill the merge input. */
static void gather(struct collector *c, const struct lt_sample *s, struct mg_input *in)
{
	unsigned nu = sample__n_user(s), nk = sample__n_kernel(s), nl;
	unsigned seg_end;

	for (unsigned i = 0; i < nu; i++) {
		c->nat[i] = native_frame(c, (int32_t)s->tgid, sample__user_addr(s, i));
		c->nat_how[i] = s->user_how[nu - 1 - i];
	}
	for (unsigned i = 0; i < nk; i++)
		c->ker[i] = native_frame(c, 0, sample__kernel_addr(s, i));
	/* An off-CPU sample's kernel stack was taken by luatop's program in the
	** scheduler: its leaf frames are the tracing's, not the thread's. */
	while (s->event == LT_EVENT_OFFCPU && nk && c->ker[nk - 1] != UINT32_MAX &&
	       (frame_class(c, c->ker[nk - 1]) & FC_TRACER))
		nk--;
	c->jit_top = c->n_inlined = c->traceno = 0;
	nl = lua_frames(c, s);
	/* The running coroutine's frames (before any resumer) are in the trace
	** when vmstate >= 0. */
	seg_end = nl;
	for (unsigned i = 0; i < nl; i++)
		if (c->lua_leaf_first[i].kind == LT_LUA_COROUTINE) {
			seg_end = i;
			break;
		}
	luanames__sample(c->names);
	for (unsigned i = 0, in_trace = sample__vm_state(s) == VM_JIT; i < nl; i++) {
		unsigned leaf_i = nl - 1 - i;
		int jit = in_trace && leaf_i < seg_end;

		c->lua_root_first[i] = c->lua_leaf_first[leaf_i];
		c->lua[i] = lua_frame(c, (int)s->tgid, c->lua_leaf_first, nl, leaf_i);
		c->lua_marks[i] = (jit ? CT_MARK_JIT : 0) | (leaf_i < c->n_inlined ? CT_MARK_INLINED : 0);
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

/* -- 3. Stacks ------------------------------------------------------------ */

/* Frame ids of a merge result into c->path; 0 or -ENOMEM. */
static int resolve(struct collector *c, unsigned n, uint32_t *len)
{
	uint32_t sep = frametab__special(c->frames, SPECIAL_LUA);

	*len = 0;
	if (c->proc_roots) {
		if (c->root == UINT32_MAX)
			return -ENOMEM;
		c->marks[*len] = 0;
		c->path[(*len)++] = c->root;
	}
	for (unsigned i = 0; i < n && *len < MG_MAX_OUT + 1; i++) {
		const struct mg_ref *r = &c->refs[i];
		uint32_t id = r->source == MG_NATIVE ? c->nat[r->index] :
			      r->source == MG_KERNEL ? c->ker[r->index] :
			      r->source == MG_LUA ? c->lua[r->index] : sep;

		if (id == UINT32_MAX)
			return -ENOMEM;
		c->marks[*len] = r->source == MG_LUA ? c->lua_marks[r->index] : 0;
		c->path[(*len)++] = id;
	}
	if (*len == (c->proc_roots ? 1u : 0u)) {
		c->stats.empty++;
		c->marks[*len] = 0;
		c->path[(*len)++] = frametab__special(c->frames, SPECIAL_UNKNOWN);
	}
	return c->path[0] == UINT32_MAX ? -ENOMEM : 0;
}

/*
** Add one view's stack to the stack table and call tree of each event the
** sample counts in, with its weight there. Off-CPU stacks waiting for events
** are rooted at "[idle]" everywhere (the live view can hide them); the export
** may root fallback stacks at "[fallback]", the live view marks them by flag.
*/
static int add_view(struct collector *c, enum collect_view v, uint32_t n, uint64_t t, int fb)
{
	enum frame_special mark = c->idle ? SPECIAL_IDLE : SPECIAL_FALLBACK;
	const uint32_t *stack = c->path, *tpath = c->path;
	const uint8_t *tmarks = c->marks;
	uint32_t len = n, tlen = n;
	int err = 0;

	if (c->idle || (fb && c->mark_fallback)) {
		c->path[-1] = frametab__special(c->frames, mark);
		c->marks[-1] = 0;
		if (c->path[-1] == UINT32_MAX)
			return -ENOMEM;
		stack = c->path - 1;
		len++;
		if (c->idle) {
			tpath = stack;
			tmarks = c->marks - 1;
			tlen = len;
		}
	}
	for (int e = 0; !err && e < EV__COUNT; e++) {
		if (!c->weight[e])
			continue;
		err = c->want_stacks ? stacktab__add(c->stacks[e][v], stack, len, c->weight[e]) : 0;
		if (!err && c->want_stacks && c->labels_on) {
			c->lbuf[0] = c->label;
			memcpy(c->lbuf + 1, stack, len * sizeof(*stack));
			err = c->label == UINT32_MAX ? -ENOMEM :
			      stacktab__add(c->labelled[e][v], c->lbuf, len + 1, c->weight[e]);
		}
		if (!err && c->want_trees)
			err = calltree__add_marked(c->tree[e][v], tpath, tmarks, tlen, c->weight[e],
						   t, fb ? CT_FALLBACK : 0, c->traceno);
	}
	return err;
}

/* The sample's count in each event built (c->weight): a CPU sample is one
** sample, and its period in wall time; an off-CPU one its time blocked, in us. */
static void weigh(struct collector *c, const struct lt_sample *s)
{
	int off = s->event == LT_EVENT_OFFCPU;
	uint64_t us = off ? (s->weight_ns + 500) / 1000 : c->period_us;

	c->weight[EV_CPU] = !off && (c->events & 1u << EV_CPU);
	c->weight[EV_OFFCPU] = off && (c->events & 1u << EV_OFFCPU) ? us : 0;
	c->weight[EV_WALL] = c->events & 1u << EV_WALL ? us : 0;
	if (off) {
		c->stats.offcpu_samples++;
		c->stats.offcpu_us += us;
	}
}

/* An off-CPU sample of an idle wait: no Lua frame in its merged stack, and a
** frame that waits for events (nginx's epoll_wait between requests). */
static int is_idle(struct collector *c, const struct lt_sample *s, unsigned nref, int fb)
{
	if (s->event != LT_EVENT_OFFCPU || fb)
		return 0;
	for (unsigned i = 0; i < nref; i++)
		if (c->refs[i].source == MG_LUA)
			return 0;
	for (unsigned i = 0; i < nref; i++) {
		const struct mg_ref *r = &c->refs[i];
		uint32_t id = r->source == MG_NATIVE ? c->nat[r->index] :
			      r->source == MG_KERNEL ? c->ker[r->index] : UINT32_MAX;

		if (id != UINT32_MAX && (frame_class(c, id) & FC_WAITS))
			return 1;
	}
	return 0;
}

/* What the sample says of itself, counted. */
static void count(struct collector *c, const struct lt_sample *s, const struct mg_input *in)
{
	enum vm_state vm = sample__vm_state(s);

	if (vm != VM_NONE) {
		c->stats.vm[vm]++;
		for (int e = 0; e < EV__COUNT; e++)
			c->stats.vm_weight[e][vm] += c->weight[e];
	}
	if (s->flags & LT_SAMPLE_USER_ERR)
		c->stats.user_err++;
	if (s->flags & LT_SAMPLE_FP_USED)
		c->stats.fp_used++;
	c->stats.stop[s->user_stop < LT_STOP__COUNT ? s->user_stop : LT_STOP_BAD_RULE]++;
	if (in->lua_process)
		c->stats.lua_samples++;
}

int collector__add(struct collector *c, const struct lt_sample *s)
{
	struct thread_info *th;
	struct mg_input in;
	unsigned nref;
	uint32_t n;
	int reason, result, fb, err;

	weigh(c, s);
	if (!c->weight[EV_CPU] && !c->weight[EV_OFFCPU] && !c->weight[EV_WALL])
		return 0;	/* counts in no profile built */
	th = threads__get(&c->threads, s->tid, s->tgid);
	if (!th)
		return -ENOMEM;
	for (int e = 0; e < EV__COUNT; e++)
		th->weight[e] += c->weight[e];
	if (!th->kept)
		return 0;	/* a thread not asked for (--tid, the thread list) */
	if (s->time_ns > c->epoch_ns) {	/* taken after the last checks: check anew */
		luanames__epoch(c->names);
		c->epoch_ns = s->time_ns;	/* the checks come later than this */
	}
	gather(c, s, &in);
	count(c, s, &in);
	c->root = c->proc_roots ? root_of(c, (int)s->tgid) : UINT32_MAX;
	result = merge__stacks(&in, c->refs, &nref, &reason);
	fb = result == MG_FALLBACK;
	c->idle = is_idle(c, s, nref, fb);
	c->stats.merged_window += result == MG_MERGED_WINDOW;
	c->stats.with_lua += in.n_lua > 0;
	c->stats.with_lua_fallback += in.n_lua > 0 && fb;
	if (fb) {
		c->stats.fallback++;
		if (reason >= 0 && reason < MG_REASON__COUNT)
			c->stats.fallback_why[reason]++;
	}
	if (c->labels_on) {
		struct collect_labels l = {
			.pid = s->tgid, .tid = s->tid, .vm = (int8_t)sample__vm_state(s),
			.merge = !in.lua_process ? COLLECT_MERGE_NONE :
				 fb ? COLLECT_MERGE_FALLBACK : COLLECT_MERGE_OK,
			.reason = (int16_t)(fb ? reason : -1),
		};

		c->label = labelsets__intern(&c->labels, &l);
	}
	err = 0;
	if (c->views & (1u << COLLECT_MERGED)) {
		err = resolve(c, nref, &n);
		if (!err)
			err = add_view(c, COLLECT_MERGED, n, s->time_ns, fb);
	}
	if (!err && (c->views & (1u << COLLECT_RAW))) {
		merge__raw(&in, c->refs, &nref);
		err = resolve(c, nref, &n);
		if (!err)
			err = add_view(c, COLLECT_RAW, n, s->time_ns, fb);
	}
	c->stats.samples++;
	return err;
}

/* -- The profile ---------------------------------------------------------- */

struct frametab *collector__frames(const struct collector *c)
{
	return c->frames;
}

struct stacktab *collector__stacks(const struct collector *c, enum prof_event e,
				   enum collect_view v)
{
	return e < EV__COUNT && v < COLLECT_VIEW__COUNT ? c->stacks[e][v] : NULL;
}

struct calltree *collector__tree(const struct collector *c, enum prof_event e,
				 enum collect_view v)
{
	return e < EV__COUNT && v < COLLECT_VIEW__COUNT ? c->tree[e][v] : NULL;
}

int collector__keep_threads(struct collector *c, const uint32_t *tids, size_t n)
{
	return threads__keep(&c->threads, tids, n);
}

size_t collector__threads(const struct collector *c, struct thread_info *out, size_t max)
{
	return threads__list(&c->threads, out, max);
}

void collector__epoch(struct collector *c, uint64_t now_ns)
{
	luanames__epoch(c->names);
	c->epoch_ns = now_ns;
}

const struct collector_stats *collector__stats(const struct collector *c)
{
	return &c->stats;
}

void collector__trace_cache(const struct collector *c, struct luatraces_stats *out)
{
	*out = (struct luatraces_stats){ 0 };
	for (size_t i = 0; i < c->nlprocs; i++) {
		const struct luatraces_stats *s = luatraces__stats(c->lprocs[i].traces);

		out->lookups += s->lookups;
		out->loads += s->loads;
		out->scans += s->scans;
		out->restarts += s->restarts;
	}
}
