/*
** The fields of a lua_State the walk uses, read in one read of user memory and
** kept for the rest of the walk: its G (glref), the Lua stack's bounds, base
** and top, the head of its cframe chain. A LuaJIT sample asked for them six to
** eight times, one read each (the G check, the walk's start, every VM frame's
** chain search and SAVE_L check); a read costs ~130 ns on this VM whatever its
** size up to a page. The thread is stopped while it is walked, so what was read
** stays true for the walk.
**
** Shared by the BPF sampler and user space. The includer defines LT_INLINE and
** LT_READ_USER(ctx, dst, size, addr), and may define LT_READ_G(ctx, dst, size,
** addr), a read that is likely inside the VM's GG_State (G's fields, the main
** lua_State's: the sampler copies that part once, lt_lj_gwin in lua/layout.h).
*/
#ifndef LUATOP_LUA_STATE_H
#define LUATOP_LUA_STATE_H

#include "lua/layout.h"

#ifndef LT_READ_G
#define LT_READ_G(ctx, dst, size, addr) LT_READ_USER((ctx), (dst), (size), (addr))
#endif


/* Words, not bytes: a BPF copy or load of bytes whose alignment clang cannot
** see is one instruction per byte (a third of the sampler's walk was such). */
struct lt_lj_state {
	__u64 L;			/* whose fields raw holds; 0: none */
	__u64 raw[LT_LJ_L_SPAN / 8];	/* lua_State words from glref on */
};

/* One 8-byte field of the state read last, at its lua_State offset. */
static LT_INLINE __u64 lt_lj_state_u64(const struct lt_lj_state *ls, __u32 off)
{
	return ls->raw[(off - LT_LJ_L_GLREF) / 8];
}

/* Its stack size, in slots (x86-64: little-endian, the low half of its word). */
static LT_INLINE __u32 lt_lj_state_stacksize(const struct lt_lj_state *ls)
{
	return (__u32)(ls->raw[(LT_LJ_L_STACKSIZE - LT_LJ_L_GLREF) / 8] >>
		       8 * ((LT_LJ_L_STACKSIZE - LT_LJ_L_GLREF) % 8));
}

/* Make ls hold Lx's fields, reading them unless it does. 0, or -1 if unreadable. */
static LT_INLINE int lt_lj_state_get(void *ctx, struct lt_lj_state *ls, __u64 Lx)
{
	if (Lx && ls->L == Lx)
		return 0;
	ls->L = 0;
	if (!Lx || LT_READ_G(ctx, ls->raw, LT_LJ_L_SPAN, Lx + LT_LJ_L_GLREF))
		return -1;
	ls->L = Lx;
	return 0;
}

/* Is Lx a lua_State of the VM G? (glref points back to G) */
static LT_INLINE int lt_lj_is_L(void *ctx, struct lt_lj_state *ls, __u64 Lx, __u64 G)
{
	return !lt_lj_state_get(ctx, ls, Lx) && lt_lj_state_u64(ls, LT_LJ_L_GLREF) == G;
}

#endif
