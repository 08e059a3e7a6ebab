/*
** The per-frame unwind step and the replay of the BPF walk: synthetic stacks
** for every rule kind, then fixtures captured from live processes
** (the .fixture files in tests/fixtures/unwind, written by luatop --capture).
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wire/luatop.h"
#include "walk/fixture.h"
#include "unwind/sigframe.h"
#include "walk/replay.h"
#include "lua/layout.h"

#define BASE	0x7ffd00000000ull	/* address of the synthetic stack's first byte */

static uint8_t stack[4096];

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(stack + (addr - BASE), &v, 8);
}

/* One mapping [0x400000, 0x500000) with bias 0 and the given rows and rules. */
static struct lt_uw_proc one_proc(unsigned nrows)
{
	struct lt_uw_proc p = { .n = 1 };

	p.m[0] = (struct lt_uw_mapping){ .start = 0x400000, .end = 0x500000, .bias = 0,
					 .row_start = 0, .row_count = nrows };
	return p;
}

static struct uw_snapshot snap(const struct lt_uw_proc *p, const struct lt_uw_row *rows,
			       size_t nrows, const struct lt_uw_rule *rules, size_t nrules,
			       uint64_t pc, uint64_t sp, uint64_t bp)
{
	return (struct uw_snapshot){ .regs = { .pc = pc, .sp = sp, .bp = bp }, .stack_base = BASE,
				     .stack = stack, .stack_len = sizeof(stack), .proc = p,
				     .rows = rows, .nrows = nrows, .rules = rules,
				     .nrules = nrules };
}

/* leaf (rsp+16, rbp saved at CFA-16) -> mid (rbp-based) -> outer (STOP). */
Test(unwind, cfa_rsp_rbp_and_stop)
{
	const struct lt_uw_rule rules[] = {
		{ .kind = LT_UW_INVALID },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 16, .rbp_off = -16 },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RBP, .cfa_off = 16, .rbp_off = -16 },
		{ .kind = LT_UW_STOP },
	};
	const struct lt_uw_row rows[] = {
		{ 0x401000, 1 }, { 0x401100, 0 },	/* leaf function */
		{ 0x402000, 2 }, { 0x402100, 0 },	/* mid */
		{ 0x403000, 3 }, { 0x403100, 0 },	/* outer */
	};
	struct lt_uw_proc p = one_proc(6);
	uint64_t sp = BASE + 0x100, pcs[8];
	uint8_t hows[8];
	unsigned n;
	struct uw_snapshot s;

	memset(stack, 0, sizeof(stack));
	put64(sp + 0, 0xbb);			/* leaf saved rbp = mid's frame base */
	put64(sp + 8, 0x402050);		/* return into mid */
	/* mid: rbp = BASE+0x200 holds the caller's rbp, [rbp+8] the return address */
	put64(sp + 0, BASE + 0x200);
	put64(BASE + 0x200, 0xcc);
	put64(BASE + 0x208, 0x403010);
	s = snap(&p, rows, 6, rules, 4, 0x401010, sp, 0x1);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_COMPLETE);
	cr_assert_eq(n, 3);
	cr_assert_eq(pcs[0], 0x401010);
	cr_assert_eq(hows[0], LT_HOW_LEAF);
	cr_assert_eq(pcs[1], 0x402050);
	cr_assert_eq(hows[1], LT_HOW_CFI);
	cr_assert_eq(pcs[2], 0x403010);
}

/* A return address that is the first byte after a function is looked up at pc-1. */
Test(unwind, return_address_looks_up_pc_minus_one)
{
	const struct lt_uw_rule rules[] = {
		{ .kind = LT_UW_INVALID },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 8 },
		{ .kind = LT_UW_STOP },
	};
	/* caller ends with a call at 0x4020ff; its return address 0x402100 starts
	** the next function, which has no rule */
	const struct lt_uw_row rows[] = { { 0x401000, 1 }, { 0x401100, 0 },
					  { 0x402000, 2 }, { 0x402100, 0 } };
	struct lt_uw_proc p = one_proc(4);
	uint64_t sp = BASE + 0x100, pcs[8];
	uint8_t hows[8];
	unsigned n;
	struct uw_snapshot s;

	put64(sp, 0x402100);
	s = snap(&p, rows, 4, rules, 3, 0x401000, sp, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_COMPLETE);
	cr_assert_eq(n, 2);
}

Test(unwind, plt_rule)
{
	const struct lt_uw_rule rules[] = { { .kind = LT_UW_INVALID }, { .kind = LT_UW_PLT },
					    { .kind = LT_UW_STOP } };
	const struct lt_uw_row rows[] = { { 0x401000, 1 }, { 0x401100, 2 }, { 0x401200, 0 } };
	struct lt_uw_proc p = one_proc(3);
	uint64_t sp = BASE + 0x100, pcs[8];
	uint8_t hows[8];
	unsigned n;
	struct uw_snapshot s;

	/* Before the stub's push (pc & 15 < 11): RA at [sp]. */
	put64(sp, 0x401150);
	s = snap(&p, rows, 3, rules, 3, 0x401020, sp, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_COMPLETE);
	cr_assert_eq(pcs[1], 0x401150);
	cr_assert_eq(hows[1], LT_HOW_PLT);
	/* After it (pc & 15 >= 11): RA at [sp+8]. */
	put64(sp + 8, 0x401160);
	s = snap(&p, rows, 3, rules, 3, 0x40102b, sp, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_COMPLETE);
	cr_assert_eq(pcs[1], 0x401160);
}

/* A handler returned into __restore_rt: the interrupted regs come from the
** ucontext, and the interrupted pc is exact (not looked up at pc-1). */
Test(unwind, signal_frame)
{
	const struct lt_uw_rule rules[] = {
		{ .kind = LT_UW_INVALID },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 8 },
		{ .kind = LT_UW_SIGNAL },
		{ .kind = LT_UW_STOP },
	};
	/* glibc's __restore_rt FDE starts one byte early, for the pc-1 lookup */
	const struct lt_uw_row rows[] = { { 0x401000, 1 }, { 0x401100, 0 },
					  { 0x401fff, 2 }, { 0x402010, 0 },
					  { 0x403000, 3 }, { 0x403100, 0 } };
	struct lt_uw_proc p = one_proc(6);
	uint64_t sp = BASE + 0x100, uc = sp + 8, pcs[8];
	uint8_t hows[8];
	unsigned n;
	struct uw_snapshot s;

	memset(stack, 0, sizeof(stack));
	put64(sp, 0x402000);				/* handler returns to __restore_rt */
	put64(uc + LT_SIGFRAME_MCTX + LT_SIGCTX_RIP, 0x403000);	/* first byte: exact */
	put64(uc + LT_SIGFRAME_MCTX + LT_SIGCTX_RSP, BASE + 0x800);
	put64(uc + LT_SIGFRAME_MCTX + LT_SIGCTX_RBP, 0x1234);
	s = snap(&p, rows, 6, rules, 4, 0x401000, sp, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_COMPLETE);
	cr_assert_eq(n, 3);
	cr_assert_eq(pcs[2], 0x403000);
	cr_assert_eq(hows[2], LT_HOW_SIGNAL);
}

Test(unwind, frame_pointer_fallback_for_code_without_tables)
{
	const struct lt_uw_rule rules[] = { { .kind = LT_UW_INVALID }, { .kind = LT_UW_STOP } };
	const struct lt_uw_row rows[] = { { 0x401000, 1 }, { 0x401100, 0 } };
	struct lt_uw_proc p = { .n = 2 };
	uint64_t bp = BASE + 0x300, pcs[8];
	uint8_t hows[8];
	unsigned n;
	struct uw_snapshot s;

	p.m[0] = (struct lt_uw_mapping){ .start = 0x400000, .end = 0x500000, .row_count = 2 };
	p.m[1] = (struct lt_uw_mapping){ .start = 0x7f0000000000, .end = 0x7f0000100000 };
	put64(bp, 0);
	put64(bp + 8, 0x401010);
	s = snap(&p, rows, 2, rules, 2, 0x7f0000000100, BASE + 0x100, bp);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_COMPLETE);
	cr_assert_eq(n, 2);
	cr_assert_eq(hows[1], LT_HOW_FP);
}

Test(unwind, stops_with_a_reason)
{
	const struct lt_uw_rule rules[] = {
		{ .kind = LT_UW_INVALID },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 4096 },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 0 },
		{ .kind = LT_UW_CFA, .cfa_reg = 0, .cfa_off = 8 },
	};
	const struct lt_uw_row rows[] = { { 0x401000, 1 }, { 0x402000, 2 },
					  { 0x403000, 3 }, { 0x404000, 0 } };
	struct lt_uw_proc p = one_proc(4);
	uint64_t pcs[8];
	uint8_t hows[8];
	unsigned n;
	struct uw_snapshot s;

	s = snap(&p, rows, 4, rules, 4, 0x401000, BASE + 0x100, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_READ_FAULT);
	s = snap(&p, rows, 4, rules, 4, 0x402000, BASE + 0x100, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_BAD_FRAME);
	s = snap(&p, rows, 4, rules, 4, 0x403000, BASE + 0x100, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_BAD_RULE);
	s = snap(&p, rows, 4, rules, 4, 0x404000, BASE + 0x100, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_NO_RULE);
	s = snap(&p, rows, 4, rules, 4, 0x300000, BASE + 0x100, 0);
	cr_assert_eq(uw_replay(&s, pcs, hows, 8, &n), LT_STOP_NO_MAPPING);
	cr_assert_eq(n, 1);
}

/* A frame that points at itself loops until the sample is full. */
Test(unwind, max_depth)
{
	const struct lt_uw_rule rules[] = { { .kind = LT_UW_INVALID }, { .kind = LT_UW_FP } };
	const struct lt_uw_row rows[] = { { 0x401000, 1 }, { 0x402000, 0 } };
	struct lt_uw_proc p = one_proc(2);
	uint64_t pcs[LT_MAX_USER];
	uint8_t hows[LT_MAX_USER];
	unsigned n;
	struct uw_snapshot s;

	for (uint64_t a = BASE; a < BASE + sizeof(stack) - 16; a += 16) {
		put64(a, a + 16);
		put64(a + 8, 0x401010);
	}
	s = snap(&p, rows, 2, rules, 2, 0x401000, BASE, BASE);
	cr_assert_eq(uw_replay(&s, pcs, hows, 16, &n), LT_STOP_MAX_DEPTH);
	cr_assert_eq(n, 16);
}

/* The replay's result against the kernel's: the user walk, and (fixtures of
** version 2) the flags, VM state and every Lua frame. */
static void check_replay(const char *path, const struct uw_fixture *fx, const struct lt_sample *r)
{
	const struct lt_sample *k = fx->expect;

	cr_expect_eq(r->user_stop, k->user_stop, "%s: stop %d, kernel %d", path, r->user_stop,
		     k->user_stop);
	cr_expect_eq(r->n_user, k->n_user, "%s: %u frames, kernel %u", path, r->n_user, k->n_user);
	for (unsigned i = 0; i < r->n_user && i < k->n_user; i++) {
		cr_expect_eq(r->user[i], k->user[i], "%s: frame %u", path, i);
		cr_expect_eq(r->user_how[i], k->user_how[i], "%s: frame %u how", path, i);
	}
	if (fx->version < 2)
		return;
	cr_expect_eq(r->flags, k->flags, "%s: flags %#x, kernel %#x", path, r->flags, k->flags);
	cr_expect_eq(r->vmstate, k->vmstate, "%s: vmstate", path);
	cr_expect_eq(r->G, k->G, "%s: G", path);
	cr_expect_eq(r->L, k->L, "%s: L", path);
	cr_expect_eq(r->trace_T, k->trace_T, "%s: trace", path);
	cr_expect_eq(memcmp(r->trace_hdr, k->trace_hdr, LT_TRACE_HDR), 0, "%s: trace header", path);
	cr_expect_eq(r->n_lua, k->n_lua, "%s: %u Lua frames, kernel %u", path, r->n_lua, k->n_lua);
	for (unsigned i = 0; i < r->n_lua && i < k->n_lua; i++)
		cr_expect_eq(memcmp(&r->lua[i], &k->lua[i], sizeof(r->lua[i])), 0,
			     "%s: Lua frame %u", path, i);
}

/* Every committed fixture replays to exactly what the kernel produced. */
Test(unwind, captured_fixtures_replay_identically)
{
	const char *dir = "tests/fixtures/unwind";
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned checked = 0, with_lua = 0, with_cp = 0;

	cr_assert_not_null(d, "run from the source tree: %s missing", dir);
	while ((e = readdir(d))) {
		char path[512], err[256] = "";
		struct lt_sample *r = calloc(1, sizeof(*r));
		struct uw_fixture fx;
		FILE *f;

		if (!strstr(e->d_name, ".fixture")) {
			free(r);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		cr_assert_not_null(f);
		cr_assert_eq(uw_fixture__read(f, &fx, err, sizeof(err)), 0, "%s: %s", path, err);
		fclose(f);
		cr_expect_eq(walk__replay(&fx.snap, r), 0, "%s: the replay diverged", path);
		check_replay(path, &fx, r);
		with_lua += fx.expect->n_lua > 0;
		for (unsigned i = 0; i < fx.expect->n_user && i < LT_MAX_USER; i++)
			if (fx.expect->user_how[i] & LT_HOW_F_CP) {
				with_cp++;
				break;
			}
		uw_fixture__free(&fx);
		free(r);
		checked++;
	}
	closedir(d);
	cr_assert_geq(checked, 3, "want at least 3 fixtures, found %u", checked);
	cr_assert_geq(with_lua, 4, "want LuaJIT fixtures (JIT on, both flavours), found %u",
		      with_lua);
	cr_assert_geq(with_cp, 2, "want a VM frame in lj_vm_cpcall's C call (the trace "
		      "recorder, both flavours), found %u", with_cp);
}

/* A replay that reads what the kernel's walk did not is told, not trusted. */
Test(unwind, diverging_replay_is_detected)
{
	const char *path = "tests/fixtures/unwind/luajit2-jit-000.fixture";
	struct lt_sample *r = calloc(1, sizeof(*r));
	struct lt_read *reads;
	struct uw_fixture fx;
	char err[256] = "";
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s missing", path);
	cr_assert_eq(uw_fixture__read(f, &fx, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	cr_assert_gt(fx.snap.nreads, 4);
	reads = (struct lt_read *)fx.snap.reads;
	reads[2].addr += 8;
	cr_assert_eq(walk__replay(&fx.snap, r), -EIO);
	fx.snap.nreads = 1;		/* a log cut short */
	reads[2].addr -= 8;
	cr_assert_eq(walk__replay(&fx.snap, r), -EIO);
	uw_fixture__free(&fx);
	free(r);
}

/* Malformed fixtures are rejected with a line number, never a crash. */
Test(unwind, fixture_errors)
{
	static const char *bad[] = {
		"nonsense\n",
		"luatop-unwind-fixture 1\nstack 0x1000 4\nzz\n",
		"luatop-unwind-fixture 1\nmapping 0x2000 0x1000 0 0 0\n",
		"luatop-unwind-fixture 1\nmapping 0x1000 0x2000 0 0 5\n",
		"luatop-unwind-fixture 1\nrule 99 0 0 0\n",
		"luatop-unwind-fixture 1\nexpect 0 3\nframe 0x1 0\n",
		"luatop-unwind-fixture 1\nwhat\n",
		"luatop-unwind-fixture 3\n",
		"luatop-unwind-fixture 2\nregs 0x1 0x2\n",
		"luatop-unwind-fixture 2\nread 0x1000 9 0 0x0\n",
		"luatop-unwind-fixture 2\nread 0x1000 8 1 0x0\n",
		"luatop-unwind-fixture 2\nluacfg 1 2 3\n",
		"luatop-unwind-fixture 2\nsample 0x8 -1 0x0 0x0 2\nlua 1 0 0 0 0x1 0x2 0x3\n",
		"luatop-unwind-fixture 2\nsample 0x8 -1 0x0 0x0 65\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
		struct uw_fixture fx;
		char err[256] = "";

		cr_assert_eq(uw_fixture__read(f, &fx, err, sizeof(err)), -EINVAL, "case %zu", i);
		cr_assert(strncmp(err, "line ", 5) == 0, "case %zu: '%s'", i, err);
		uw_fixture__free(&fx);
		fclose(f);
	}
}

/*
** Which VM a sample outside the VM's code is taken for: two VMs in the
** stack buffer (each G with its main lua_State below it), r14 naming the
** second, the thread's cache the first.
*/
#define VM_G2DISP	0x100
#define VM_VMSTATE	0x20
#define VM_CUR_L	0x40

static uint64_t vm_G(int i)
{
	return BASE + 0x200 + 0x400 * (uint64_t)i + 96;
}

static uint64_t walk_G(uint64_t pc, uint64_t r14_G, uint64_t cached, int own)
{
	const struct lt_lua_cfg cfg = { .enabled = 1, .g2disp = VM_G2DISP, .off_vmstate = VM_VMSTATE,
					.off_cur_L = VM_CUR_L, .off_jit_base = VM_CUR_L + 8,
					.vm_lo = 0x600000, .vm_hi = 0x610000 };
	struct lt_uw_proc p = one_proc(0);
	struct lt_sample out;
	struct uw_snapshot s;

	memset(stack, 0, sizeof(stack));
	for (int i = 0; i < 2; i++) {
		uint64_t G = vm_G(i), L = G - 96;

		put64(G + VM_CUR_L, L);
		put64(G + VM_VMSTATE, (uint64_t)(int64_t)LT_LJ_VMST_C);
		put64(L + LT_LJ_L_GLREF, G);
	}
	s = snap(&p, NULL, 0, NULL, 0, pc, BASE + 0x100, 0);
	s.regs.r14 = r14_G + VM_G2DISP;
	s.cfg = &cfg;
	s.cached_G = cached;
	s.cached_own = own;
	cr_assert_eq(walk__replay(&s, &out), 0);
	return out.G;
}

Test(unwind, the_vm_of_a_sample_outside_its_code)
{
	cr_assert_eq(walk_G(0x401000, vm_G(1), vm_G(0), 1), vm_G(0),
		     "C code: the thread's own VM first (r14 may be anything there)");
	cr_assert_eq(walk_G(0x401000, vm_G(1), vm_G(0), 0), vm_G(1),
		     "the process's only VM is a guess: r14 first");
	cr_assert_eq(walk_G(0x600100, vm_G(1), vm_G(0), 1), vm_G(1),
		     "VM code: r14 is DISPATCH");
	cr_assert_eq(walk_G(0x401000, 0x1234, vm_G(0), 0), vm_G(0), "r14 wrong: the guess");
	cr_assert_eq(walk_G(0x401000, vm_G(1), 0, 0), vm_G(1), "no cache: r14");
}

/*
** lj_vm_cpcall's VM frame after the call of its C function (cp_ret): flagged
** LT_HOW_F_CP as a caller's frame, and as the leaf too, where that function has
** just returned and no Lua frame belongs to the activation (the recorder's
** NULL, or lua_cpcall's function not called yet). Elsewhere in the VM: not.
*/
static uint8_t vm_how(uint64_t leaf_pc, unsigned frame)
{
	const struct lt_uw_rule rules[] = {
		{ .kind = LT_UW_INVALID },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 8 },
		{ .kind = LT_UW_STOP },
	};
	const struct lt_uw_row rows[] = {
		{ 0x401000, 1 }, { 0x401100, 0 },	/* the VM */
		{ 0x402000, 1 }, { 0x402100, 0 },	/* a C function it calls */
		{ 0x403000, 2 }, { 0x403100, 0 },	/* the outermost frame */
	};
	const struct lt_lua_cfg cfg = { .enabled = 1, .g2disp = VM_G2DISP,
					.off_vmstate = VM_VMSTATE, .off_cur_L = VM_CUR_L,
					.vm_lo = 0x401000, .vm_hi = 0x401100, .cp_ret = 0x401040 };
	struct lt_uw_proc p = one_proc(6);
	uint64_t sp = BASE + 0x100;
	struct lt_sample out;
	struct uw_snapshot s;

	memset(stack, 0, sizeof(stack));
	if (leaf_pc >= cfg.vm_lo && leaf_pc < cfg.vm_hi) {
		put64(sp, 0x403010);
	} else {
		put64(sp, cfg.cp_ret);
		put64(sp + 8, 0x403010);
	}
	s = snap(&p, rows, 6, rules, 3, leaf_pc, sp, 0);
	s.cfg = &cfg;	/* G unknown (r14 0): the VM's frames are unwound by their rows */
	cr_assert_eq(walk__replay(&s, &out), 0);
	cr_assert_gt(out.n_user, frame);
	return out.user_how[frame];
}

Test(unwind, cpcall_frame_flagged_as_leaf_and_caller)
{
	cr_assert_eq(vm_how(0x401040, 0) & (LT_HOW_F_VM | LT_HOW_F_CP), LT_HOW_F_VM | LT_HOW_F_CP,
		     "the leaf at cp_ret");
	cr_assert_eq(vm_how(0x402010, 1) & (LT_HOW_F_VM | LT_HOW_F_CP), LT_HOW_F_VM | LT_HOW_F_CP,
		     "returning to cp_ret from the C function");
	cr_assert_eq(vm_how(0x401020, 0) & (LT_HOW_F_VM | LT_HOW_F_CP), LT_HOW_F_VM,
		     "elsewhere in the VM");
}

/*
** A leaf in a VM entry before its frame is linked into L->cframe, or in
** vm_leave_cp's epilogue after it was unlinked: unwound with the CFA its
** pushes and pops give (the VM's FDE says rsp+80 throughout), and flagged as
** running no Lua frame. d: CFA - rsp the walk must take at pc.
*/
static struct lt_sample vm_window_walk(uint64_t pc, uint64_t d)
{
	const struct lt_uw_rule rules[] = {
		{ .kind = LT_UW_INVALID },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 80, .rbp_off = -16 },
		{ .kind = LT_UW_CFA, .cfa_reg = LT_UW_REG_RSP, .cfa_off = 8,
		  .rbp_off = LT_UW_RBP_SAME },
		{ .kind = LT_UW_STOP },
	};
	const struct lt_uw_row rows[] = {
		{ 0x401000, 1 }, { 0x401100, 0 },	/* the VM: its FDE */
		{ 0x402000, 2 }, { 0x402100, 0 },	/* lua_call, say */
		{ 0x403000, 3 }, { 0x403100, 0 },	/* the outermost frame */
	};
	struct lt_lua_cfg cfg = { .enabled = 1, .g2disp = VM_G2DISP, .off_vmstate = VM_VMSTATE,
				  .off_cur_L = VM_CUR_L, .vm_lo = 0x401000, .vm_hi = 0x401100,
				  .entry_ofs = { 0x10, 0, 0, 0 }, .entry_len = { 0x30, 0, 0, 0 },
				  .leave_ofs = 0x78, .unw_ofs = 0x81, .unw_len = 13,
				  .unw_cfa = { 10, 0, 10, 0, 0, 0, 5, 0, 4, 0, 3, 2, 1 } };
	struct lt_uw_proc p = one_proc(6);
	uint64_t sp = BASE + 0x100;
	struct lt_sample out;
	struct uw_snapshot s;

	memset(stack, 0, sizeof(stack));
	if (d != 80)
		put64(sp + 72, 0x7777);	/* where the FDE's rule would look */
	put64(sp + d - 8, 0x402010);	/* the leaf's return address */
	put64(sp + d, 0x403010);	/* and its caller's */
	s = snap(&p, rows, 6, rules, 4, pc, sp, 0);
	s.cfg = &cfg;
	cr_assert_eq(walk__replay(&s, &out), 0);
	return out;
}

Test(unwind, vm_entry_and_exit_windows)
{
	static const struct { uint64_t pc, d; } at[] = {
		{ 0x401010, 8 },	/* push rbp */
		{ 0x401011, 16 },	/* push rbx */
		{ 0x401012, 24 },
		{ 0x401014, 32 },
		{ 0x401016, 40 },	/* sub $40,%rsp */
		{ 0x40101a, 80 },	/* the frame is whole, not linked yet */
		{ 0x40103f, 80 },	/* the store that links it */
		{ 0x401081, 80 },	/* xor %eax,%eax: unlinked */
		{ 0x401083, 80 },	/* add $40,%rsp */
		{ 0x401087, 40 },	/* pop r14 */
		{ 0x401089, 32 },
		{ 0x40108b, 24 },
		{ 0x40108c, 16 },	/* pop rbp */
		{ 0x40108d, 8 },	/* ret */
	};

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct lt_sample out = vm_window_walk(at[i].pc, at[i].d);

		cr_assert_eq(out.n_user, 3, "pc %#" PRIx64 ": %u frames", at[i].pc, out.n_user);
		cr_assert_eq(out.user[1], 0x402010, "pc %#" PRIx64, at[i].pc);
		cr_assert_eq(out.user[2], 0x403010, "pc %#" PRIx64, at[i].pc);
		cr_assert_eq(out.user_how[0] & (LT_HOW_F_VM | LT_HOW_F_CP),
			     LT_HOW_F_VM | LT_HOW_F_CP, "pc %#" PRIx64, at[i].pc);
	}
	/* vm_leave_cp before the restore: still linked, but no Lua frame either. */
	cr_assert_eq(vm_window_walk(0x401078, 80).user_how[0] & LT_HOW_F_CP, LT_HOW_F_CP);
	/* Past the link: the VM's own rules, and an activation. */
	cr_assert_eq(vm_window_walk(0x401040, 80).user_how[0] & LT_HOW_F_CP, 0);
}
