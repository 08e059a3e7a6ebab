/*
** The Lua frame walk (lua/walk.h) on a made-up Lua stack in a byte buffer: the
** plain walk, and the two windows it recognises (a function returning to Lua
** whose slot already holds its result; lj_ccallback_leave with L->base at
** L->top) against a stack that is just broken.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#define LT_INLINE inline
#define LT_READ_USER(ctx, dst, size, addr) mem_read((ctx), (dst), (size), (addr))

struct mem {
	uint64_t base;
	uint8_t bytes[4096];
};

static int mem_read(void *ctx, void *dst, uint64_t size, uint64_t addr)
{
	struct mem *m = ctx;

	if (addr < m->base || addr + size > m->base + sizeof(m->bytes))
		return -1;
	memcpy(dst, m->bytes + (addr - m->base), size);
	return 0;
}

#include "lua/walk.h"

#define BASE	0x10000ull
#define LS	(BASE + 0x000)	/* lua_State */
#define FN	(BASE + 0x100)	/* one Lua GCfunc for every frame */
#define BC	(BASE + 0x200)	/* its bytecode: a CALL with A = 2 at BC */
#define S	(BASE + 0x400)	/* the Lua stack */
#define TVFN	(LT_LJ_TAG_FUNC << LT_LJ_TAG_SHIFT | FN)

static void put(struct mem *m, uint64_t addr, uint64_t v, unsigned size)
{
	memcpy(m->bytes + (addr - m->base), &v, size);
}

/* Stack: a frame entered from C (protected) at base S+24, its callee (a Lua call,
** A = 2) at base S+56; L->base = base, L->top = top. */
static void setup(struct mem *m, uint64_t base, uint64_t top)
{
	memset(m, 0, sizeof(*m));
	m->base = BASE;
	put(m, LS + LT_LJ_L_STACK, S, 8);
	put(m, LS + LT_LJ_L_STACKSIZE, 64, 4);
	put(m, LS + LT_LJ_L_BASE, base, 8);
	put(m, LS + LT_LJ_L_TOP, top, 8);
	put(m, FN + LT_LJ_FN_FFID, 0, 1);
	put(m, FN + LT_LJ_FN_PC, BC + LT_LJ_PROTO_SIZE, 8);
	put(m, BC, 2u << 8 | 0x42, 4);		/* CALL A=2 (the op does not matter) */
	put(m, S + 8, TVFN, 8);			/* frame 1: entered by lua_pcall */
	put(m, S + 16, 16 | 5, 8);		/* FRAME_CP, back to S + 0: the bottom */
	put(m, S + 40, TVFN, 8);		/* frame 2: called from frame 1 */
	put(m, S + 48, BC + 4, 8);		/* its link: the return pc after the CALL */
}

/* Walk from L->base: how many frames were emitted, *bad when it stopped on garbage. */
static unsigned walk(struct mem *m, struct lt_lua_frame *out, unsigned max, int *bad)
{
	struct lt_lua_walk w;
	struct lt_lj_state ls = { 0 };
	unsigned n = 0;
	int emit, done = 0;

	cr_assert_eq(lt_lua_walk_init(m, &w, &ls, LS, 0, 0), 0);
	while (!done && n < max) {
		done = lt_lua_walk_step(m, &w, &out[n], &emit);
		n += emit;
	}
	*bad = w.bad;
	return n;
}

Test(lua_walk, two_frames)
{
	struct mem m;
	struct lt_lua_frame f[8];
	int bad;

	setup(&m, S + 56, S + 80);
	cr_assert_eq(walk(&m, f, 8, &bad), 2);
	cr_assert_not(bad);
	cr_assert_eq(f[0].link, LT_LINK_LUA);
	cr_assert_eq(f[1].link, LT_LINK_CP);
	cr_assert_eq(f[1].pc, BC + 4, "the caller's pc is its callee's link");
}

Test(lua_walk, return_window_goes_to_the_caller)
{
	struct mem m;
	struct lt_lua_frame f[8];
	int bad;

	setup(&m, S + 56, S + 80);
	put(&m, S + 40, 0x4045000000000000ull, 8);	/* the result (42.0) over the function */
	cr_assert_eq(walk(&m, f, 8, &bad), 1);
	cr_assert_not(bad);
	cr_assert_eq(f[0].link, LT_LINK_CP, "the returning frame is left out, its caller stays");
	cr_assert_eq(f[0].pc, BC + 4);
}

Test(lua_walk, return_to_C_window_goes_to_the_caller)
{
	struct mem m;
	struct lt_lua_frame f[8];
	int bad;

	/* vm_return, back to lua_pcall: frame 1's result over its function. */
	setup(&m, S + 24, S + 40);
	put(&m, S + 8, 0x4045000000000000ull, 8);
	cr_assert_eq(walk(&m, f, 8, &bad), 0, "the returning frame is left out");
	cr_assert_not(bad, "and the bottom is reached");
	/* Back to a lua_call from frame 1's C callee: frame 1 stays. */
	setup(&m, S + 56, S + 80);
	put(&m, S + 40, 0x4045000000000000ull, 8);
	put(&m, S + 48, 32 | 1, 8);		/* FRAME_C, back to frame 1 */
	cr_assert_eq(walk(&m, f, 8, &bad), 1);
	cr_assert_not(bad);
	cr_assert_eq(f[0].link, LT_LINK_CP);
	/* A second result over the link: a distance past the stack's start ends
	** the walk as bad, one to no function there too. */
	put(&m, S + 48, 0x4000000000000001ull, 8);
	cr_assert_eq(walk(&m, f, 8, &bad), 0);
	cr_assert(bad);
	put(&m, S + 48, 24 | 1, 8);		/* to S + 24: frame 1's base, a number */
	cr_assert_eq(walk(&m, f, 8, &bad), 0);
	cr_assert(bad);
}

Test(lua_walk, a_link_being_stored_comes_from_the_caller)
{
	struct mem m;
	struct lt_lua_frame f[8];
	struct lt_lua_walk w;
	struct lt_lj_state ls = { 0 };
	unsigned n = 0;
	int emit, done = 0;

	/* A call storing frame 2's link: the slot still holds an old value. */
	setup(&m, S + 56, S + 80);
	put(&m, S + 48, 0x4045000000000000ull, 8);
	cr_assert_eq(lt_lua_walk_init(&m, &w, &ls, LS, 0, 0), 0);
	w.link = BC + 4;	/* what the interpreter holds in PC, about to store */
	while (!done && n < 8) {
		done = lt_lua_walk_step(&m, &w, &f[n], &emit);
		n += emit;
	}
	cr_assert_not(w.bad);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].link, LT_LINK_LUA);
	cr_assert_eq(f[1].pc, BC + 4, "the caller's pc is the link given");
}

Test(lua_walk, garbage_below_the_top_frame_is_bad)
{
	struct mem m;
	struct lt_lua_frame f[8];
	int bad;

	setup(&m, S + 56, S + 80);
	put(&m, S + 8, 0x4045000000000000ull, 8);	/* not a function, and not the top */
	cr_assert_eq(walk(&m, f, 8, &bad), 1);
	cr_assert(bad);
}

Test(lua_walk, callback_leave_window)
{
	struct mem m;
	struct lt_lua_frame f[8];
	int bad;

	/* An FFI callback's frame above frame 1: continuation, rid, function, link
	** (FRAME_CONT, back to frame 1), one result; L->base = L->top past it. */
	setup(&m, S + 80, S + 80);
	put(&m, S + 40, LT_LJ_CONT_FFI_CALLBACK, 8);
	put(&m, S + 48, 0, 8);
	put(&m, S + 56, TVFN, 8);
	put(&m, S + 64, 48 | LT_LJ_FRAME_CONT, 8);
	put(&m, S + 72, 0x4045000000000000ull, 8);
	cr_assert_eq(walk(&m, f, 8, &bad), 2);
	cr_assert_not(bad);
	cr_assert(f[0].flags & LT_LUAF_FFI_CB, "the callback's frame is found below L->top");
	cr_assert_eq(f[1].link, LT_LINK_CP);
}
