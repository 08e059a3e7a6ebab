/*
** Merging Lua and native stacks (DESIGN §6).
**
** 1. The Lua frames split into segments where Lua was entered from native code:
**    a frame called by lua_call (C link), lua_pcall/lua_cpcall/lua_resume or a
**    coroutine's first frame (CP link), or an FFI callback. pcall/xpcall run
**    inside the VM and do not split. A coroutine marker only separates.
** 2. Native frames root to leaf: the k-th VM activation takes the k-th segment.
** 3. Lua frames of C functions are left out: their native frames show them.
** 4. A VM frame in lj_vm_cpcall's call of a C function that runs without a Lua
**    frame (LT_HOW_F_CP: the parser, the trace recorder) is no activation: it
**    is left out.
** 5. The call/return window: the innermost VM activation has no segment yet
**    (or no longer) while the Lua stack ends in a function written in C (a C
**    function or fast function: lua_call, table.sort, gsub, an FFI call), or
**    it is the only one, at the leaf, and there is no Lua frame at all (a C
**    host's lua_pcall). That is a call from C into the VM being entered, or a
**    return being left: LuaJIT pushes the callee's frame (lj_vm_call,
**    lj_ccallback_enter) after the native frame exists and pops it before the
**    native frame goes. The stacks still pair up exactly: the outer
**    activations take the segments, the innermost stands for no Lua frame and
**    is left out.
** Anything else that does not pair up exactly falls back, with a reason.
*/
#include <string.h>

#include "merge/merge.h"

static const char *const reason_texts[] = {
#define MG_REASON(name, text) text,
#include "merge/reasons.def"
#undef MG_REASON
};

const char *merge__reason_text(int reason)
{
	return reason >= 0 && reason < MG_REASON__COUNT ? reason_texts[reason] : "unknown";
}

/* A VM activation that ran Lua frames, or runs them now: not a cpcall's C
** function, which runs without one (LT_HOW_F_CP: the parser, the trace
** recorder, a finalizer). */
static int is_vm(uint8_t how)
{
	return (how & (LT_HOW_F_VM | LT_HOW_F_TRACE)) != 0 && !(how & LT_HOW_F_CP);
}

/* Such a cpcall frame: it stands for no Lua frame and is left out. */
static int is_cp(uint8_t how)
{
	return (how & LT_HOW_F_CP) != 0;
}

/* Does Lua frame f start a segment (was it entered from native code)? */
static int starts_segment(const struct lt_lua_frame *f)
{
	return f->link == LT_LINK_C || f->link == LT_LINK_CP ||
	       (f->link == LT_LINK_CONT && (f->flags & LT_LUAF_FFI_CB));
}

static void put(struct mg_ref *out, unsigned *n, uint8_t source, unsigned index)
{
	out[*n].source = source;
	out[*n].index = (uint16_t)index;
	++*n;
}

/* Segment starts in lua[]; returns how many (at most max). */
static unsigned split(const struct mg_input *in, unsigned *starts, unsigned max)
{
	unsigned ns = 0;

	for (unsigned i = 0; i < in->n_lua && ns < max; i++) {
		const struct lt_lua_frame *f = &in->lua[i];

		if (f->kind == LT_LUA_COROUTINE)
			continue;
		if (ns == 0 || starts_segment(f) ||
		    (i > 0 && in->lua[i - 1].kind == LT_LUA_COROUTINE))
			starts[ns++] = i;
	}
	return ns;
}

/* The Lua frames of segment [from, to) that stand for themselves. */
static void put_segment(const struct mg_input *in, unsigned from, unsigned to,
			struct mg_ref *out, unsigned *n)
{
	for (unsigned i = from; i < to; i++)
		if (in->lua[i].kind != LT_LUA_C && in->lua[i].kind != LT_LUA_COROUTINE)
			put(out, n, MG_LUA, i);
}

static void fallback(const struct mg_input *in, struct mg_ref *out, unsigned *n)
{
	*n = 0;
	for (unsigned i = 0; i < in->n_native; i++)
		put(out, n, MG_NATIVE, i);
	for (unsigned i = 0; i < in->n_lua; i++)
		put(out, n, MG_LUA, i);
	for (unsigned i = 0; i < in->n_kernel; i++)
		put(out, n, MG_KERNEL, i);
}

/* Why these stacks cannot be merged, or -1 if they can be tried. */
static int precheck(const struct mg_input *in, unsigned nvm)
{
	if (!in->native_complete)
		return MG_NATIVE_TRUNCATED;
	if (!in->have_G)
		return nvm ? MG_NO_G : -1;
	if (!in->lua_complete)
		return MG_LUA_TRUNCATED;
	return -1;
}

/* Is the one VM activation the innermost native frame (VM code, or a trace
** that has returned its function's results to C: a function trace's end)? */
static int vm_is_leaf(const struct mg_input *in)
{
	return in->n_native && is_vm(in->native_how[in->n_native - 1]);
}

/* Rule 5: one VM activation more than segments, and the Lua stack ends in a
** function written in C: the innermost activation is a call or return in
** progress. So is a lone VM activation at the leaf with no Lua frame at all:
** the VM between C's call and its first frame, or after its last frame
** returned (6-12% of the samples of a C host calling lua_pcall in a loop). */
static int in_call_window(const struct mg_input *in, unsigned nvm, unsigned ns)
{
	const struct lt_lua_frame *top;

	if (nvm != ns + 1)
		return 0;
	if (!in->n_lua)
		return nvm == 1 && vm_is_leaf(in);
	top = &in->lua[in->n_lua - 1];
	return top->kind == LT_LUA_C || top->kind == LT_LUA_FAST;
}

int merge__stacks(const struct mg_input *in, struct mg_ref *out, unsigned *n, int *reason)
{
	unsigned starts[MG_MAX_LUA + 1], nvm = 0, ns, seg = 0;
	int window = 0;

	*n = 0;
	for (unsigned i = 0; i < in->n_native; i++)
		nvm += is_vm(in->native_how[i]);
	/* Nothing to merge: no LuaJIT, or a whole native stack that met neither a
	** VM activation nor Lua (a VM frame that runs no Lua frame is left out, as
	** below). A cut one may have stopped short of them (code without tables at
	** the leaf: new JIT code, a thread whose VM is not known yet). */
	if (!in->lua_process || (!nvm && !in->n_lua && in->native_complete)) {
		*reason = -1;
		for (unsigned i = 0; i < in->n_native; i++)
			if (!is_cp(in->native_how[i]))
				put(out, n, MG_NATIVE, i);
		for (unsigned i = 0; i < in->n_kernel; i++)
			put(out, n, MG_KERNEL, i);
		return 0;
	}
	*reason = precheck(in, nvm);
	ns = split(in, starts, MG_MAX_LUA);
	if (*reason < 0 && ns != nvm) {
		window = in_call_window(in, nvm, ns);
		if (!window)
			*reason = in->n_lua ? MG_SEGMENT_MISMATCH : MG_VM_WITHOUT_LUA;
	}
	if (*reason >= 0) {
		fallback(in, out, n);
		return MG_FALLBACK;
	}
	starts[ns] = in->n_lua;
	for (unsigned i = 0; i < in->n_native; i++) {
		if (is_cp(in->native_how[i]))
			continue;
		if (!is_vm(in->native_how[i])) {
			put(out, n, MG_NATIVE, i);
			continue;
		}
		if (seg < ns)	/* in a window, the innermost has none */
			put_segment(in, starts[seg], starts[seg + 1], out, n);
		seg++;
	}
	for (unsigned i = 0; i < in->n_kernel; i++)
		put(out, n, MG_KERNEL, i);
	return window ? MG_MERGED_WINDOW : MG_MERGED;
}

void merge__raw(const struct mg_input *in, struct mg_ref *out, unsigned *n)
{
	*n = 0;
	for (unsigned i = 0; i < in->n_native; i++)
		put(out, n, MG_NATIVE, i);
	for (unsigned i = 0; i < in->n_kernel; i++)
		put(out, n, MG_KERNEL, i);
	if (!in->n_lua)
		return;
	put(out, n, MG_SEPARATOR, 0);
	for (unsigned i = 0; i < in->n_lua; i++)
		put(out, n, MG_LUA, i);
}
