/*
** The Lua frame walk of one lua_State, one frame per step (luajit_internals.md
** §3.1, §3.7; GC64 two-slot frames). Shared by the BPF sampler and user-space
** tests. The includer defines LT_INLINE and LT_READ_USER(ctx, dst, size, addr),
** and may define (the sampler does, to read the Lua stack's top once):
**   LT_LUA_WINDOW(ctx, lo, end)        a walk starts: its frames are in [lo, end)
**   LT_READ_LUA(ctx, dst, size, addr)  size bytes (8 or 16) of a frame's slots
**                                      at addr (its function and link, a
**                                      continuation's), as LT_READ_USER would
**
**   base-2: function TValue   base-1: link (ftsz)   base: first argument
**
** A link whose low 2 bits are 0 is a return PC into a Lua caller, found
** 16 + 8*A bytes below (A = the CALL's A operand); otherwise the low 3 bits are
** the frame type and the rest the distance to the previous frame.
*/
#ifndef LUATOP_LUA_WALK_H
#define LUATOP_LUA_WALK_H

#include "wire/luatop.h"
#include "lua/layout.h"
#include "lua/state.h"

#ifndef LT_LUA_WINDOW
#define LT_LUA_WINDOW(ctx, lo, end) ((void)0)
#endif
#ifndef LT_READ_LUA
#define LT_READ_LUA(ctx, dst, size, addr) LT_READ_USER((ctx), (dst), (size), (addr))
#endif

struct lt_lua_walk {
	__u64 f;		/* address of the next frame's link slot (its base - 8) */
	__u64 pc;		/* that frame's current pc (0: unknown) */
	__u64 lo, hi;		/* the Lua stack: [L->stack, + 8 * stacksize) */
	__u64 link;		/* the next frame's link, when it is not stored yet
				   (a call storing it: the caller knows), else 0 */
	__u8 flags;		/* LT_LUAF_* for the next frame emitted */
	__u8 skip;		/* the next frame repeats a vararg function: don't emit */
	__u8 bad;		/* stopped on something that is not a frame */
	__u8 pad[5];
};

#define LT_LUA_CB_SCAN	4	/* slots below L->top searched for a callback's frame */

/*
** The window of lj_ccallback_leave: while it converts an FFI callback's results,
** L->base is L->top, where no frame is. The callback's frame (its continuation,
** marked LT_LJ_CONT_FFI_CALLBACK) is the one a few slots below, above the results:
** its base, or base itself when a frame is there or none is found.
*/
static LT_INLINE __u64 lt_lua_cb_leave_base(void *ctx, const struct lt_lj_state *ls, __u64 base)
{
	__u64 fv = 0, ft = 0, cont = 0;

	if (lt_lj_state_u64(ls, LT_LJ_L_TOP) != base ||
	    LT_READ_USER(ctx, &fv, sizeof(fv), base - 16))
		return base;
	if ((fv >> LT_LJ_TAG_SHIFT) == LT_LJ_TAG_FUNC || (fv >> LT_LJ_TAG_SHIFT) == LT_LJ_TAG_THREAD)
		return base;	/* a frame is there */
	for (int k = 1; k <= LT_LUA_CB_SCAN; k++) {
		__u64 f = base - 8 - 8ull * k;

		if (LT_READ_USER(ctx, &ft, sizeof(ft), f) ||
		    LT_READ_USER(ctx, &fv, sizeof(fv), f - 8) ||
		    LT_READ_USER(ctx, &cont, sizeof(cont), f - 24))
			return base;
		if ((ft & LT_LJ_FRAME_TYPEP) == LT_LJ_FRAME_CONT &&
		    (fv >> LT_LJ_TAG_SHIFT) == LT_LJ_TAG_FUNC && cont == LT_LJ_CONT_FFI_CALLBACK)
			return f + 8;
	}
	return base;
}

/*
** Start walking L at base with the top frame's pc. 0, or -1 if L is unreadable.
** L's fields come through ls (lua/state.h).
*/
static LT_INLINE int lt_lua_walk_init(void *ctx, struct lt_lua_walk *w, struct lt_lj_state *ls,
				      __u64 L, __u64 base, __u64 pc)
{
	w->lo = 0;
	if (lt_lj_state_get(ctx, ls, L))
		return -1;
	w->lo = lt_lj_state_u64(ls, LT_LJ_L_STACK);
	if (!base)
		base = lt_lua_cb_leave_base(ctx, ls, lt_lj_state_u64(ls, LT_LJ_L_BASE));
	w->hi = w->lo + 8ull * lt_lj_state_stacksize(ls);
	w->f = base - 8;
	LT_LUA_WINDOW(ctx, w->lo, base);	/* the top frame's slots end at base */
	w->pc = pc;
	w->link = 0;
	w->flags = LT_LUAF_PC_TOP;
	w->skip = 0;
	w->bad = 0;
	return 0;
}

/* Fill out from the function object at fn; 0, or -1 when unreadable. Its
** words from LT_LJ_FN_HEAD on, in one read: ffid, pc (Lua), cfunc (C). */
static LT_INLINE int lt_lua_describe(void *ctx, __u64 fn, struct lt_lua_frame *out)
{
	__u64 head[(LT_LJ_FN_HEAD_END - LT_LJ_FN_HEAD) / 8];
	__u8 ffid;

	if (LT_READ_USER(ctx, head, sizeof(head), fn + LT_LJ_FN_HEAD))
		return -1;
	ffid = (__u8)(head[(LT_LJ_FN_FFID - LT_LJ_FN_HEAD) / 8] >>
		      8 * ((LT_LJ_FN_FFID - LT_LJ_FN_HEAD) % 8));
	out->fn = fn;
	out->ffid = ffid;
	if (ffid == 0) {
		out->kind = LT_LUA_LUA;
		out->addr = head[(LT_LJ_FN_PC - LT_LJ_FN_HEAD) / 8] - LT_LJ_PROTO_SIZE;
	} else if (ffid == 1) {
		out->kind = LT_LUA_C;
		out->addr = head[(LT_LJ_FN_CFUNC - LT_LJ_FN_HEAD) / 8];
	} else {
		out->kind = LT_LUA_FAST;
		out->addr = 0;
	}
	return 0;
}

/*
** The link ft of the top frame at f, whose slot holds a result: can the walk
** follow it? A return to Lua (BC_RET*, a fast function's return) leaves the
** caller's pc there. A return to C (vm_return, back to lua_call or lua_pcall)
** leaves a C link, unless a second result was copied over it: its distance
** must lead to the bottom frame or into the stack, where the next step checks
** for a function.
*/
static LT_INLINE int lt_lua_return_link(const struct lt_lua_walk *w, __u64 f, __u64 ft)
{
	__u64 delta = ft & ~(__u64)LT_LJ_FRAME_TYPEP;

	if ((ft & LT_LJ_FRAME_TYPE) == 0)
		return 1;
	return (ft & LT_LJ_FRAME_TYPE) == LT_LJ_FRAME_C && delta && delta <= f - w->lo;
}

/*
** One frame: fill *out and set *emit when it is to be recorded (vararg
** repeats and dummy frames are not). Returns 1 when the walk is over.
*/
static LT_INLINE int lt_lua_walk_step(void *ctx, struct lt_lua_walk *w,
				      struct lt_lua_frame *out, int *emit)
{
	__u64 fv, ft, f = w->f, next_pc = 0, tag, slot[2];
	__u32 ins;
	__u8 link;

	*emit = 0;
	if (f < w->lo + 16 || f >= w->hi || (f & 7))
		return 1;	/* the bottom frame (at stack + 8), or off the stack */
	if (LT_READ_LUA(ctx, slot, 16, f - 8)) {	/* function and link at once */
		w->bad = 1;
		return 1;
	}
	fv = slot[0];
	ft = w->link ? w->link : slot[1];
	w->link = 0;
	tag = fv >> LT_LJ_TAG_SHIFT;
	/* A function returning moves its first result into its function slot
	** before it restores BASE: in that window the top frame is gone but its
	** link still leads to the caller, which the return belongs to. Anywhere
	** else, no function here ends the walk. */
	if (tag != LT_LJ_TAG_FUNC && tag != LT_LJ_TAG_THREAD &&
	    (!(w->flags & LT_LUAF_PC_TOP) || !lt_lua_return_link(w, f, ft))) {
		w->bad = 1;
		return 1;
	}
	if ((ft & LT_LJ_FRAME_TYPE) == 0) {
		/* Called from Lua: ft is the return pc; the CALL's A locates the caller. */
		link = LT_LINK_LUA;
		if (LT_READ_USER(ctx, &ins, sizeof(ins), ft - 4)) {
			w->bad = 1;
			return 1;
		}
		next_pc = ft;
		w->f = f - 16 - 8ull * ((ins >> 8) & 0xff);
	} else {
		link = ft & LT_LJ_FRAME_TYPEP;
		if (link == LT_LJ_FRAME_CONT) {
			__u64 cont = 0;

			if (LT_READ_LUA(ctx, &next_pc, 8, f - 16) ||
			    LT_READ_LUA(ctx, &cont, 8, f - 24)) {
				w->bad = 1;
				return 1;
			}
			if (cont == LT_LJ_CONT_FFI_CALLBACK)
				w->flags |= LT_LUAF_FFI_CB;
		}
		w->f = f - (ft & ~(__u64)LT_LJ_FRAME_TYPEP);
	}
	out->link = link;	/* also when not emitted: a vararg repeat carries the real link */
	if (tag == LT_LJ_TAG_FUNC && !w->skip) {
		if (lt_lua_describe(ctx, fv & LT_LJ_GCPTR_MASK, out)) {
			w->bad = 1;
			return 1;
		}
		out->pc = w->pc;
		out->flags = w->flags;
		*emit = 1;
	}
	w->skip = link == LT_LJ_FRAME_VARG;
	w->pc = next_pc;
	w->flags = 0;
	return w->f >= f;	/* frames go down the stack: anything else is a loop */
}

#endif
