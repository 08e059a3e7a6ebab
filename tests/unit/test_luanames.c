/*
** Unit tests of symbolize/luabc, luaproto and luasym: the call-site decoder on
** hand-built bytecode, fake GCprotos in this process's own memory (layouts,
** revalidation, garbage), and real LuaJIT processes of both flavours (protos,
** lines, call-site names, fast functions) read with process_vm_readv.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "lua/bc.h"
#include "lua/proto.h"
#include "lua/names.h"
#include "lua/detect.h"
#include "lua/vmdef.h"
#include "proc/mem.h"

/* The memory of pid (this process, or a child), read as a target's. */
static const struct mreader *reader_of(int pid)
{
	static struct mreader r;

	r = tmem__reader(pid);
	return &r;
}

/* A build of the given flavour (1 OpenResty, 0 upstream, -1 unknown), new GCstr. */
static const struct luabuild *build_of(int openresty)
{
	static struct luabuild b;

	b = (struct luabuild){ .openresty = openresty, .gcstr_new = 1 };
	return openresty < 0 ? NULL : &b;
}

#define OR_LUAJIT	"/usr/bin/luajit"
#define UP_LUAJIT	".deps/luajit-upstream/usr/bin/luajit"

/* -- Bytecode ------------------------------------------------------------- */

/* Instructions in the two formats (lj_bc.h). */
static uint32_t ins_ad(uint32_t op, uint32_t a, uint32_t d)
{
	return op | a << 8 | d << 16;
}

static uint32_t ins_abc(uint32_t op, uint32_t a, uint32_t b, uint32_t c)
{
	return op | a << 8 | c << 16 | b << 24;
}

#define FUNCF	LVM_BC__COMMON		/* a function header in the 2022-2024 builds */

/* Decode the call at pos of bc[] (bc[0] the header) with a full window. */
static enum luabc_what callee(const uint32_t *bc, uint32_t pos, const uint8_t *vi, size_t vilen,
			      struct luabc_name *nm)
{
	return luabc__callee(bc + 1, 1, pos, vi, vilen, nm);
}

Test(luabc, global_field_method_upvalue)
{
	struct luabc_name nm;
	uint32_t g[] = { FUNCF, ins_ad(LVM_BC_GGET, 0, 5), ins_abc(LVM_BC_CALL, 0, 2, 1) };
	uint32_t f[] = { FUNCF, ins_ad(LVM_BC_GGET, 3, 1), ins_abc(LVM_BC_TGETS, 3, 3, 7),
			 ins_abc(LVM_BC_CALL, 3, 1, 1) };
	/* obj:m(): MOV func+1+FR2, obj; TGETS func, obj, "m" */
	uint32_t m[] = { FUNCF, ins_ad(LVM_BC_GGET, 1, 0), ins_ad(LVM_BC_MOV, 4, 1),
			 ins_abc(LVM_BC_TGETS, 2, 1, 9), ins_abc(LVM_BC_CALL, 2, 1, 2) };
	uint32_t u[] = { FUNCF, ins_ad(LVM_BC_UGET, 0, 2), ins_ad(LVM_BC_KSHORT, 2, 1),
			 ins_abc(LVM_BC_CALL, 0, 1, 2) };

	cr_assert_eq(callee(g, 2, NULL, 0, &nm), LUABC_GLOBAL);
	cr_assert_eq(nm.ref, 5);
	cr_assert_eq(callee(f, 3, NULL, 0, &nm), LUABC_FIELD);
	cr_assert_eq(nm.ref, 7);
	cr_assert_eq(callee(m, 4, NULL, 0, &nm), LUABC_METHOD);
	cr_assert_eq(nm.ref, 9);
	cr_assert_eq(callee(u, 3, NULL, 0, &nm), LUABC_UPVALUE);
	cr_assert_eq(nm.ref, 2);
	/* The MOV is not the self copy of this TGETS: a field. */
	m[2] = ins_ad(LVM_BC_MOV, 5, 1);
	cr_assert_eq(callee(m, 4, NULL, 0, &nm), LUABC_FIELD);
	/* Not a call at pos: nothing; the instruction before is not looked at. */
	cr_assert_eq(callee(g, 1, NULL, 0, &nm), LUABC_META);	/* GGET: __index */
	cr_assert_str_eq(nm.name, "__index");
}

/* varinfo: "f" live in slot 0 over [1, 5), then "(for generator)" etc. */
static const uint8_t vinfo[] = {
	'f', 0, 1, 4,			/* slot 0: startpc 1, length 4 */
	'x', 0, 0, 4,			/* slot 1: startpc 1 (+0), length 4 */
	4, 0, 3,			/* slot 2: (for generator) from 1, length 3 */
	0,				/* end */
};

/* Definition sites: where the instruction after FNEW (kgc 3) stores the closure. */
Test(luabc, definer)
{
	struct luabc_name nm;
	uint32_t at = 0;
	/* bc[1..]: some code, then FNEW 0 3 and its store */
	uint32_t g[] = { ins_ad(LVM_BC_KSHORT, 1, 0), ins_ad(LVM_BC_FNEW, 0, 3),
			 ins_ad(LVM_BC_GSET, 0, 7) };
	uint32_t t[] = { ins_ad(LVM_BC_FNEW, 2, 3), ins_abc(LVM_BC_TSETS, 2, 1, 9) };
	uint32_t u[] = { ins_ad(LVM_BC_FNEW, 1, 3), ins_ad(LVM_BC_USETV, 4, 1) };
	uint32_t l[] = { ins_ad(LVM_BC_FNEW, 0, 3), ins_ad(LVM_BC_KSHORT, 1, 0) };
	uint32_t other[] = { ins_ad(LVM_BC_FNEW, 0, 2), ins_ad(LVM_BC_GSET, 0, 7) };
	uint32_t last[] = { ins_ad(LVM_BC_KSHORT, 1, 0), ins_ad(LVM_BC_FNEW, 0, 3) };
	uint32_t temp[] = { ins_ad(LVM_BC_FNEW, 3, 3), ins_abc(LVM_BC_CALL, 2, 1, 2) };

	cr_assert_eq(luabc__definer(g, 1, 3, 3, NULL, 0, &at, &nm), LUABC_GLOBAL);
	cr_assert_eq(nm.ref, 7);
	cr_assert_eq(at, 2);
	cr_assert_eq(luabc__definer(t, 1, 2, 3, NULL, 0, &at, &nm), LUABC_FIELD);
	cr_assert_eq(nm.ref, 9);
	cr_assert_eq(luabc__definer(u, 1, 2, 3, NULL, 0, &at, &nm), LUABC_UPVALUE);
	cr_assert_eq(nm.ref, 4);
	/* local function f: slot 0 is "f" at the FNEW's successor */
	cr_assert_eq(luabc__definer(l, 1, 2, 3, vinfo, sizeof(vinfo), &at, &nm), LUABC_LOCAL);
	cr_assert_eq(memcmp(nm.name, "f", 1), 0);
	cr_assert_eq(luabc__definer(l, 1, 2, 3, NULL, 0, &at, &nm), LUABC_NONE);	/* stripped */
	cr_assert_eq(luabc__definer(other, 1, 2, 3, NULL, 0, &at, &nm), LUABC_NONE);
	/* the successor is outside the window: not decided here */
	cr_assert_eq(luabc__definer(last, 1, 2, 3, NULL, 0, &at, &nm), LUABC_NONE);
	/* a closure passed as an argument (a temporary slot): no name */
	cr_assert_eq(luabc__definer(temp, 1, 2, 3, vinfo, sizeof(vinfo), &at, &nm), LUABC_NONE);
	cr_assert_eq(luabc__definer(NULL, 1, 2, 3, NULL, 0, &at, &nm), LUABC_NONE);
}

Test(luabc, locals_moves_and_clobbers)
{
	struct luabc_name nm;
	size_t len;
	/* slot 0 is the local f; the call copies it up first */
	uint32_t l[] = { FUNCF, ins_ad(LVM_BC_UGET, 0, 0), ins_ad(LVM_BC_MOV, 3, 0),
			 ins_abc(LVM_BC_CALL, 3, 1, 1) };
	/* GGET into 3, then CALLM with base 2 clobbers 2.. : unnamed */
	uint32_t c[] = { FUNCF, ins_ad(LVM_BC_GGET, 3, 0), ins_abc(LVM_BC_CALLM, 2, 1, 0),
			 ins_abc(LVM_BC_CALL, 3, 1, 1) };
	/* KNIL 4..5 does not touch 3 */
	uint32_t k[] = { FUNCF, ins_ad(LVM_BC_GGET, 3, 1), ins_ad(LVM_BC_KNIL, 4, 5),
			 ins_abc(LVM_BC_CALL, 3, 1, 1) };
	/* ITERC A=5: the generator is in slot 2, "(for generator)" */
	uint32_t it[] = { FUNCF, ins_ad(LVM_BC_KPRI, 2, 0), ins_ad(LVM_BC_JMP, 5, 0x8000),
			  ins_abc(LVM_BC_ITERC, 5, 3, 3) };

	cr_assert_eq(callee(l, 3, vinfo, sizeof(vinfo), &nm), LUABC_LOCAL);
	cr_assert_eq(nm.len, 1);
	cr_assert_eq(memcmp(nm.name, "f", 1), 0);
	cr_assert_eq(callee(l, 3, NULL, 0, &nm), LUABC_UPVALUE);	/* stripped: the UGET */
	cr_assert_eq(callee(c, 3, NULL, 0, &nm), LUABC_NONE);
	cr_assert_eq(callee(k, 3, NULL, 0, &nm), LUABC_GLOBAL);
	cr_assert_eq(callee(it, 3, vinfo, sizeof(vinfo), &nm), LUABC_LOCAL);
	cr_assert_str_eq(nm.name, "(for generator)");
	cr_assert_str_eq(luabc__varname(vinfo, sizeof(vinfo), 2, 1, &len), "x");
	cr_assert_null(luabc__varname(vinfo, sizeof(vinfo), 6, 0, &len));
	cr_assert_null(luabc__varname(vinfo, sizeof(vinfo), 0, 0, &len));
	/* A window that stops short of the GGET finds nothing. */
	cr_assert_eq(luabc__callee(k + 2, 2, 3, NULL, 0, &nm), LUABC_NONE);
	cr_assert_eq(luabc__callee(k + 1, 1, 3, NULL, 0, &nm), LUABC_GLOBAL);
}

Test(luabc, metamethods_and_headers)
{
	struct luabc_name nm;
	uint32_t b[] = { FUNCF, ins_abc(LVM_BC_ADDVV, 0, 1, 2), ins_abc(LVM_BC_CAT, 0, 1, 2),
			 ins_abc(LVM_BC_TSETS, 0, 1, 2), ins_ad(LVM_BC_LEN, 0, 1),
			 ins_ad(LVM_BC_RET0, 0, 1), FUNCF + 3 };

	cr_assert_eq(callee(b, 1, NULL, 0, &nm), LUABC_META);
	cr_assert_str_eq(nm.name, "__add");
	callee(b, 2, NULL, 0, &nm);
	cr_assert_str_eq(nm.name, "__concat");
	callee(b, 3, NULL, 0, &nm);
	cr_assert_str_eq(nm.name, "__newindex");
	callee(b, 4, NULL, 0, &nm);
	cr_assert_str_eq(nm.name, "__len");
	cr_assert_eq(callee(b, 5, NULL, 0, &nm), LUABC_NONE);
	cr_assert_eq(callee(b, 6, NULL, 0, &nm), LUABC_NONE);	/* header op: no mm */
	cr_assert(luabc__isheader(FUNCF));
	cr_assert(luabc__isheader(FUNCF + 5));
	cr_assert(!luabc__isheader(LVM_BC_JMP));
	cr_assert(luabc__isret(LVM_BC_RET1) && !luabc__isret(LVM_BC_CALL));
}

Test(luabc, garbage_debug_info)
{
	uint8_t v[64], uv[] = { 'a', 0, 'b', 'c', 0 };
	struct luabc_name nm;
	uint64_t s = 0x1234567887654321ull;
	uint32_t bc[32];
	size_t len;

	cr_assert_str_eq(luabc__uvname(uv, sizeof(uv), 1, &len), "bc");
	cr_assert_null(luabc__uvname(uv, sizeof(uv), 2, &len));
	cr_assert_null(luabc__uvname(uv, 3, 1, &len));		/* no NUL within */
	/* Unterminated names, long ULEB128s: bounded. */
	memset(v, 'a', sizeof(v));
	cr_assert_null(luabc__varname(v, sizeof(v), 1, 0, &len));
	memset(v, 0xff, sizeof(v));
	v[0] = 1;
	cr_assert_null(luabc__varname(v, sizeof(v), 1, 0, &len));
	/* Random bytecode and varinfo at every position: no crash, no overread. */
	for (int r = 0; r < 20000; r++) {
		uint32_t n = 2 + (uint32_t)(s % 31), pos;
		uint8_t *vi;
		size_t vlen = s >> 40 & 63;

		for (uint32_t k = 0; k < n; k++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			bc[k] = (uint32_t)s & (k & 1 ? 0xffffffffu : 0x00ff03ffu);
			if (k % 3 == 0)
				bc[k] = (bc[k] & ~0xffu) |
					(uint32_t)(s >> 32) % (LVM_BC__COMMON + 10);
		}
		vi = malloc(vlen ? vlen : 1);
		cr_assert_not_null(vi);
		for (size_t k = 0; k < vlen; k++)
			vi[k] = (uint8_t)(s >> (k % 8 * 8)) % 9;
		pos = 1 + (uint32_t)(s >> 20) % (n - 1);
		luabc__callee(bc + 1, 1, pos, vlen ? vi : NULL, vlen, &nm);
		free(vi);
	}
}

/* -- Fake protos in this process ---------------------------------------------- */

/*
** A GCproto laid out as lj_parse does it ([GCproto][bc][kgc][kn][lineinfo]
** [uvinfo][varinfo]) in this process's memory, and its strings; luasym reads it
** with process_vm_readv on getpid() like any target.
*/
struct fake {
	_Alignas(16) uint8_t m[16384];
	uint64_t pt;		/* the proto */
};

/* Make a GC64 GCstr (new layout) at m + off; returns its address. */
static uint64_t fake_str(struct fake *f, size_t off, const char *s)
{
	uint8_t *p = f->m + off;
	uint32_t len = (uint32_t)strlen(s), hash = 2166136261u;	/* FNV-1a, as a hash differs */

	for (const char *c = s; *c; c++)
		hash = (hash ^ (uint8_t)*c) * 16777619u;

	memset(p, 0, 24);
	p[9] = 4;
	memcpy(p + 16, &hash, 4);
	memcpy(p + 20, &len, 4);
	memcpy(p + 24, s, len + 1);
	return (uint64_t)(uintptr_t)p;
}

struct fake_spec {
	const char *chunk;
	int32_t firstline, numline;
	const uint32_t *bc;
	uint32_t nbc;
	const char *const *keys;	/* string constants, kgc index order */
	uint32_t nkeys;
	const void *lineinfo;		/* (nbc - 1) << shift bytes */
	const void *uvinfo;
	size_t nuvinfo;
	uint32_t sizeuv;
	const void *varinfo;
	size_t nvarinfo;
};

/* Unaligned stores into the fake objects. */
static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, 4);
}

/* Lay out a proto at f->m + 0 and its strings from f->m + 8192. */
static void fake_proto(struct fake *f, const struct fake_spec *s)
{
	uint8_t *p = f->m;
	uint64_t base = (uint64_t)(uintptr_t)p;
	size_t off = 104 + 4 * (size_t)s->nbc, soff = 8192;
	size_t shift = s->numline < 256 ? 0 : s->numline < 65536 ? 1 : 2;
	size_t k, li = 0, uvi = 0, vi = 0;

	memset(f->m, 0, sizeof(f->m));
	f->pt = base;
	p[9] = 7;
	put32(p, 12, s->nbc);
	memcpy(p + 104, s->bc, 4 * (size_t)s->nbc);
	off = (off + 7) & ~(size_t)7;
	for (uint32_t i = 0; i < s->nkeys; i++) {
		/* kgc[~i]: the key strings, below k */
		uint64_t str = fake_str(f, soff, s->keys[i]);

		soff += (24 + strlen(s->keys[i]) + 1 + 7) & ~(size_t)7;
		put64(p, off + 8 * (s->nkeys - 1 - i), str);
	}
	k = off + 8 * (size_t)s->nkeys;
	off = k;
	if (s->lineinfo) {
		li = off;
		memcpy(p + off, s->lineinfo, (size_t)(s->nbc - 1) << shift);
		off += (size_t)(s->nbc - 1) << shift;
	}
	if (s->uvinfo) {
		uvi = off;
		memcpy(p + off, s->uvinfo, s->nuvinfo);
		off += s->nuvinfo;
	}
	if (s->varinfo) {
		vi = off;
		memcpy(p + off, s->varinfo, s->nvarinfo);
		off += s->nvarinfo;
	}
	put64(p, 32, base + k);
	put32(p, 48, s->nkeys);
	put32(p, 56, (uint32_t)off);
	p[60] = (uint8_t)s->sizeuv;
	put64(p, 64, fake_str(f, 12288, s->chunk));
	put32(p, 72, (uint32_t)s->firstline);
	put32(p, 76, (uint32_t)s->numline);
	put64(p, 80, li ? base + li : 0);
	put64(p, 88, uvi ? base + uvi : 0);
	put64(p, 96, vi ? base + vi : 0);
}

/* A Lua frame. */
static struct lt_lua_frame lua_fr(uint64_t pt, uint64_t pc, uint8_t link)
{
	return (struct lt_lua_frame){ .fn = pt ? pt - 64 : 0, .addr = pt, .pc = pc,
				      .kind = LT_LUA_LUA, .link = link };
}

/* The PC after the instruction at pos. */
static uint64_t pc_after(uint64_t pt, uint32_t pos)
{
	return pt + 104 + 4ull * (pos + 1);
}

/* The callee is a fake proto too: a tiny function. */
static void fake_leaf(struct fake *f, const char *chunk, int firstline)
{
	const uint32_t bc[] = { FUNCF, ins_ad(LVM_BC_RET0, 0, 1) };
	static const uint8_t li[] = { 1 };
	struct fake_spec s = { .chunk = chunk, .firstline = firstline, .numline = 1,
			       .bc = bc, .nbc = 2, .lineinfo = li };

	fake_proto(f, &s);
}

Test(luasym, fake_names_and_lines)
{
	static struct fake callee, caller;
	static const char *const keys[] = { "handler", "M", "run" };
	static const uint8_t uv[] = { 'c', 'f', 'g', 0, 'u', 'p', 0 };
	static const uint8_t vi[] = { 'l', 'f', 0, 1, 9, 0 };
	static const uint8_t li[] = { 0, 1, 1, 2, 3, 3, 4, 5, 6 };
	/* 1 GGET handler; 2 CALL; 3 GGET M; 4 MOV; 5 TGETS run; 6 CALL; 7 UGET up; 8 CALL;
	   9 RET0 */
	const uint32_t bc[] = { FUNCF,
		ins_ad(LVM_BC_GGET, 2, 0), ins_abc(LVM_BC_CALL, 2, 1, 1),
		ins_ad(LVM_BC_GGET, 3, 1), ins_ad(LVM_BC_MOV, 6, 3),
		ins_abc(LVM_BC_TGETS, 4, 3, 2), ins_abc(LVM_BC_CALL, 4, 1, 2),
		ins_ad(LVM_BC_UGET, 2, 1), ins_abc(LVM_BC_CALL, 2, 1, 1),
		ins_ad(LVM_BC_RET0, 0, 1) };
	struct fake_spec s = { .chunk = "@/srv/app/main.lua", .firstline = 40, .numline = 7,
			       .bc = bc, .nbc = 10, .keys = keys, .nkeys = 3, .lineinfo = li,
			       .uvinfo = uv, .nuvinfo = sizeof(uv), .sizeuv = 2,
			       .varinfo = vi, .nvarinfo = sizeof(vi) };
	struct lt_lua_frame fr[2];
	struct luanames *ls = luanames__new();
	struct luaname nm;
	int pid = getpid();

	cr_assert_not_null(ls);
	fake_proto(&caller, &s);
	fake_leaf(&callee, "@lib/util.lua", 12);
	fr[0] = lua_fr(callee.pt, pc_after(callee.pt, 1), LT_LINK_LUA);
	fr[1] = lua_fr(caller.pt, pc_after(caller.pt, 2), LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "handler (util.lua:12)");
	cr_assert_str_eq(nm.func, "handler");
	cr_assert_str_eq(nm.what, "global");
	cr_assert_str_eq(nm.chunk, "util.lua");
	cr_assert_eq(nm.line, 12);
	cr_assert_eq(nm.firstline, 12);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 1, &nm), 0);
	cr_assert_str_eq(nm.name, "handler (util.lua:13)");	/* lines: bc[1] is line +1 */
	/* The caller itself: called from C, unnamed; its line at the CALL (pos 2). */
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 1, &nm), 0);
	cr_assert_str_eq(nm.name, "main.lua:40 (main.lua:41)");
	cr_assert_str_eq(nm.func, "main.lua:40");
	cr_assert_null(nm.what);
	cr_assert_eq(nm.line, 41);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "main.lua:40");
	/* M:run() and the upvalue "up" */
	fr[1].pc = pc_after(caller.pt, 6);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.func, "run");
	cr_assert_str_eq(nm.what, "method");
	fr[1].pc = pc_after(caller.pt, 8);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.func, "up");
	cr_assert_str_eq(nm.what, "upvalue");
	/* Every position's line; the end; a PC at bc (pretend pos 1); before bc. */
	for (uint32_t pos = 0; pos < 10; pos++) {
		fr[1].pc = pc_after(caller.pt, pos);
		cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 1, &nm), 0);
		cr_assert_eq(nm.line, pos ? 40 + li[pos - 1] : 40, "pos %u", pos);
	}
	fr[1].pc = caller.pt + 104;
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 1, &nm), 0);
	cr_assert_eq(nm.line, 40);
	fr[1].pc = caller.pt + 100;
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 1, &nm), 0);
	cr_assert_eq(nm.line, 40);
	fr[1].pc = pc_after(caller.pt, 10);		/* pos == sizebc: firstline + numline */
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 1, &nm), 0);
	cr_assert_eq(nm.line, 47);
	/* Link types that give no name: pcall, C; and a caller frame that is not Lua. */
	fr[1].pc = pc_after(caller.pt, 2);
	fr[0].link = LT_LINK_PCALL;
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "util.lua:12");
	cr_assert_null(nm.what);
	fr[0].link = LT_LINK_LUA;
	fr[1].kind = LT_LUA_C;
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.func, "util.lua:12");
	/* A C function called from Lua: no name, but the call site's. */
	fr[1].kind = LT_LUA_LUA;
	fr[0] = (struct lt_lua_frame){ .fn = 1, .addr = 0x401000, .kind = LT_LUA_C,
				       .ffid = 1, .link = LT_LINK_LUA };
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_null(nm.name);
	cr_assert_str_eq(nm.func, "handler");
	luanames__delete(ls);
}

/* A PC past the bytecode: &T->startins + 1 of a trace that starts at a RET. */
Test(luasym, trace_exit_pc)
{
	static struct fake f;
	static const uint8_t li[] = { 1, 2, 3, 4 };
	const uint32_t bc[] = { FUNCF, ins_ad(LVM_BC_KSHORT, 0, 1), ins_ad(LVM_BC_KSHORT, 1, 1),
				ins_ad(LVM_BC_KSHORT, 2, 1), ins_ad(LVM_BC_RET1, 0, 2) };
	struct fake_spec sp = { .chunk = "@t.lua", .firstline = 7, .numline = 4, .bc = bc,
				.nbc = 5, .lineinfo = li };
	uint8_t *t = f.m + 6000;
	struct lt_lua_frame fr;
	struct luanames *ls = luanames__new();
	struct luaname nm;

	fake_proto(&f, &sp);
	t[9] = 9;
	put64(t, 64, f.pt);
	put64(t, 72, f.pt + 104 + 4 * 3);	/* startpc: pos 3 */
	put32(t, 80, ins_ad(LVM_BC_RET1, 0, 2));
	fr = lua_fr(f.pt, (uint64_t)(uintptr_t)(t + 84), LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, getpid(), reader_of(getpid()), &fr, 1, 0, 1, &nm), 0);
	cr_assert_eq(nm.line, 7 + 3);
	put32(t, 80, ins_ad(LVM_BC_CALL, 0, 2));	/* not after a RET: unknown, firstline */
	cr_assert_eq(luanames__frame(ls, getpid(), reader_of(getpid()), &fr, 1, 0, 1, &nm), 0);
	cr_assert_eq(nm.line, 7);
	put32(t, 80, ins_ad(LVM_BC_RET1, 0, 2));
	put64(t, 64, f.pt + 8);			/* another proto's trace */
	cr_assert_eq(luanames__frame(ls, getpid(), reader_of(getpid()), &fr, 1, 0, 1, &nm), 0);
	cr_assert_eq(nm.line, 7);
	luanames__delete(ls);
}

/* luastr__read of the string at m in this process. */
static int str_at(const uint8_t *m, int *lay, size_t off, char *buf, size_t cap, size_t *len)
{
	return luastr__read(reader_of(getpid()), (uint64_t)(uintptr_t)m, lay, off, buf, cap, len);
}

/* Both GCstr layouts, told or found out. */
Test(luasym, string_layouts)
{
	static _Alignas(8) uint8_t m[4096];
	char buf[16];
	size_t len;
	uint32_t n = 5, h = 3;
	int lay;

	m[9] = 4;
	memcpy(m + 16, &n, 4);		/* old: len at +16 (and junk at +20) */
	memcpy(m + 20, &h, 4);
	memcpy(m + 24, "hello", 6);
	lay = LUASTR_AUTO;
	cr_assert_eq(str_at(m, &lay, 0, buf, sizeof(buf), &len), 0);
	cr_assert_eq(lay, LUASTR_OLD);
	cr_assert_eq(len, 5);
	cr_assert_str_eq(buf, "hello");
	lay = LUASTR_NEW;		/* told wrong: the NUL is not where len says */
	cr_assert_eq(str_at(m, &lay, 0, buf, sizeof(buf), &len),
		     -EINVAL);
	memcpy(m + 16, &h, 4);		/* new: hash at +16, len at +20 */
	memcpy(m + 20, &n, 4);
	lay = LUASTR_AUTO;
	cr_assert_eq(str_at(m, &lay, 0, buf, sizeof(buf), &len), 0);
	cr_assert_eq(lay, LUASTR_NEW);
	cr_assert_eq(str_at(m, &lay, 2, buf, 3, &len), 0);
	cr_assert_str_eq(buf, "ll");	/* an offset, cut to the buffer */
	n = 4000;			/* longer than a read: the NUL far away decides */
	memcpy(m + 20, &n, 4);
	memset(m + 24, 'x', 4000);
	m[24 + 4000] = 0;
	lay = LUASTR_AUTO;
	cr_assert_eq(str_at(m, &lay, 0, buf, sizeof(buf), &len), 0);
	cr_assert_eq(lay, LUASTR_NEW);
	cr_assert_eq(len, 4000);
	cr_assert_str_eq(buf, "xxxxxxxxxxxxxxx");
	m[9] = 5;
	cr_assert_eq(str_at(m, &lay, 0, buf, sizeof(buf), &len),
		     -EINVAL);
}

/* More protos than the cache keeps: it starts over, names stay right. */
Test(luasym, many_protos)
{
	enum { N = 70000, SZ = 128 };
	uint8_t *m = aligned_alloc(16, (size_t)N * SZ + 64);
	uint8_t str[40] = { 0 };
	struct lt_lua_frame fr[2];
	struct luanames *ls = luanames__new();
	struct luaname nm;
	uint32_t len = 5;

	cr_assert_not_null(m);
	str[9] = 4;
	memcpy(str + 20, &len, 4);
	memcpy(str + 24, "@m.lua", 7);
	len = 6;
	memcpy(str + 20, &len, 4);
	for (uint32_t i = 0; i < N; i++) {
		uint8_t *p = m + (size_t)i * SZ;

		memset(p, 0, SZ);
		p[9] = 7;
		put32(p, 12, 2);
		put64(p, 32, (uint64_t)(uintptr_t)p + 112);
		put32(p, 56, 112);
		put64(p, 64, (uint64_t)(uintptr_t)str);
		put32(p, 72, i + 1);
		put32(p, 104, FUNCF);
		put32(p, 108, ins_ad(LVM_BC_RET0, 0, 1));
	}
	for (uint32_t i = 0; i < N; i++) {
		fr[0] = lua_fr((uint64_t)(uintptr_t)(m + (size_t)i * SZ), 0, LT_LINK_LUA);
		fr[1] = lua_fr((uint64_t)(uintptr_t)(m + (size_t)(N - 1 - i) * SZ), 0, LT_LINK_C);
		cr_assert_eq(luanames__frame(ls, getpid(), reader_of(getpid()), fr, 2, i % 2, 0, &nm), 0);
		cr_assert_eq(nm.firstline, (int)(i % 2 ? N - i : i + 1), "%u", i);
	}
	luanames__delete(ls);
	free(m);
}

Test(luasym, chunk_names)
{
	static struct fake f;
	static const struct { const char *chunk; int first; const char *want; } t[] = {
		{ "@app.lua", 3, "app.lua:3" },
		{ "@/a/b\\c.lua", 3, "c.lua:3" },
		{ "=stdin", 0, "stdin:0" },
		{ "return function() return 1 end", 1,
		  "[string \"return function() return 1 end\"]:1" },
		{ "local x = 1\nreturn x", 1, "[string \"local x = 1...\"]:1" },
		{ "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij", 2,
		  "[string \"abcdefghijabcdefghijabcdefghijabcdefghijabcde...\"]:2" },
		{ "abcdefghijabcdefghijabcdefghijabcdefghijabcdefgh", 2,
		  "[string \"abcdefghijabcdefghijabcdefghijabcdefghijabcdefgh\"]:2" },
		{ "@bad\x1b[2Jname.lua", 5, "bad?[2Jname.lua:5" },
		{ "table.lua", -1, "[builtin:table.lua]" },
	};
	struct lt_lua_frame fr;
	struct luanames *ls = luanames__new();
	struct luaname nm;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		fake_leaf(&f, t[i].chunk, t[i].first);
		fr = lua_fr(f.pt, 0, LT_LINK_C);
		luanames__forget(ls, getpid());	/* same address, so drop the cache */
		cr_assert_eq(luanames__frame(ls, getpid(), reader_of(getpid()), &fr, 1, 0, 0, &nm), 0, "%zu", i);
		cr_assert_str_eq(nm.name, t[i].want);
		cr_assert_str_eq(nm.func, t[i].want);
	}
	luanames__delete(ls);
}

/* A namer and one frame of a fake prototype "@one.lua", line 10. */
static struct luanames *one_leaf(struct fake *f, struct lt_lua_frame *fr)
{
	fake_leaf(f, "@one.lua", 10);
	fr[0] = lua_fr(f->pt, 0, LT_LINK_C);
	return luanames__new();
}

/* Name the one frame fr as a sample of its own (marked: told so). */
static int name_one(struct luanames *ls, const struct lt_lua_frame *fr, int marked,
		    struct luaname *out)
{
	int pid = getpid();

	if (marked)
		luanames__sample(ls);
	return luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, out);
}

/* Without epochs a proto is checked at every sample: the same script with the
** samples marked (luanames__sample) or told apart by their contents. */
static void revalidation_script(int marked)
{
	static struct fake f;
	struct lt_lua_frame fr[1];
	struct luanames *ls = one_leaf(&f, fr);
	struct luaname a, b;

	cr_assert_eq(name_one(ls, fr, marked, &a), 0);
	cr_assert_str_eq(a.name, "one.lua:10");
	/* The GC freed it and put another proto at the same address. */
	fake_leaf(&f, "@two.lua", 20);
	cr_assert_eq(name_one(ls, fr, marked, &b), 0);	/* index 0 again */
	cr_assert_str_eq(b.name, "two.lua:20");
	cr_assert_str_eq(a.name, "one.lua:10");		/* names handed out stay valid */
	/* Now garbage at that address: the proto died after its last check. The
	** sample checked now was taken before and keeps the name; the next one is
	** an error; a proto there again is good again. */
	f.m[9] = 8;
	cr_assert_eq(name_one(ls, fr, marked, &b), 0);
	cr_assert_str_eq(b.name, "two.lua:20");
	cr_assert_eq(name_one(ls, fr, marked, &b), -EINVAL);
	cr_assert_str_eq(b.name, "[lua:?]");
	f.m[9] = 7;
	cr_assert_eq(name_one(ls, fr, marked, &b), 0);
	cr_assert_str_eq(b.name, "two.lua:20");
	/* A gc mark or a trace number changing is not a new proto. */
	f.m[8] ^= 3;
	f.m[62] = 5;
	cr_assert_eq(name_one(ls, fr, marked, &b), 0);
	cr_assert_str_eq(b.name, "two.lua:20");
	luanames__delete(ls);
}

Test(luasym, revalidation)
{
	revalidation_script(0);
}

Test(luasym, revalidation_with_samples_marked)
{
	revalidation_script(1);
}

/* With epochs, a proto is checked once per epoch: a replacement shows from the
** next epoch on, and the frames named before keep their names. */
Test(luasym, revalidation_per_epoch)
{
	static struct fake f;
	struct lt_lua_frame fr[1];
	struct luanames *ls = one_leaf(&f, fr);
	struct luaname a, b;
	int pid = getpid();

	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &a), 0);
	cr_assert_str_eq(a.name, "one.lua:10");
	fake_leaf(&f, "@two.lua", 20);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &b), 0);
	cr_assert_str_eq(b.name, "one.lua:10", "checked once in this epoch");
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &b), 0);
	cr_assert_str_eq(b.name, "two.lua:20");
	cr_assert_str_eq(a.name, "one.lua:10");
	/* Garbage: the proto died. This epoch's samples were taken before the
	** check and keep its name; the next epoch's cannot be of it. */
	f.m[9] = 8;
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &b), 0);
	cr_assert_str_eq(b.name, "two.lua:20");
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &b), -EINVAL);
	luanames__delete(ls);
}

/* A reader whose process has gone (-ESRCH) or whose memory is unmapped (-EFAULT). */
static int failing_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)addr, (void)buf, (void)len;
	return -(int)(intptr_t)ctx;
}

/* The last samples of a process that exited name what was cached, as checked
** last (its memory can no longer change), in every epoch; a proto never read
** cannot be named. */
Test(luasym, process_gone)
{
	static struct fake f, g;
	struct lt_lua_frame fr[1], other[1];
	struct luanames *ls = one_leaf(&f, fr);
	const struct mreader gone = { .read = failing_read, .ctx = (void *)(intptr_t)ESRCH };
	struct luaname nm;
	int pid = getpid();

	fake_leaf(&g, "@two.lua", 20);
	other[0] = lua_fr(g.pt, 0, LT_LINK_C);
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, &gone, fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");
	cr_assert_eq(luanames__frame(ls, pid, &gone, other, 1, 0, 0, &nm), -ESRCH);
	cr_assert_str_eq(nm.name, "[lua:?]");
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, &gone, fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");
	luanames__delete(ls);
}

/*
** The GC freed a proto and its chunk name, and put a proto just like it (the
** same sizes and lines) at the same address, with another chunk name at the
** same address as the first: the header alone cannot tell them apart, the
** chunk name's hash and length can. When the chunk name is no string any more,
** the proto died with it.
*/
Test(luasym, same_header_other_chunk)
{
	static struct fake f;
	struct lt_lua_frame fr[1];
	struct luanames *ls = one_leaf(&f, fr);
	struct luaname nm;
	int pid = getpid();

	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");
	fake_leaf(&f, "@eno.lua", 10);
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "eno.lua:10");
	f.m[12288 + 9] = 5;	/* the chunk name freed: the proto was freed too */
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "eno.lua:10", "stands for the samples before the check");
	luanames__epoch(ls);
	cr_assert_lt(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	luanames__delete(ls);
}

/*
** A proto that died between a sample and its epoch's check (its memory
** unmapped, or freed: no longer a proto) names the samples of that epoch, as
** when it was alive at the check; a Lua program that runs code once, drops it
** and collects it, or a command's VM closed at its exit. The next epoch's
** samples cannot be of it: they get what is there then, or no name. Checked
** alone and in a batch of frames (one system call for the headers of all).
*/
Test(luasym, proto_died)
{
	static struct fake f, g;
	struct lt_lua_frame fr[1], two[2];
	struct luanames *ls = one_leaf(&f, fr);
	const struct mreader unmapped = { .read = failing_read, .ctx = (void *)(intptr_t)EFAULT };
	struct luaname nm;
	int pid = getpid();

	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, &unmapped, fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");
	cr_assert_eq(luanames__frame(ls, pid, &unmapped, fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10", "the same epoch");
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, &unmapped, fr, 1, 0, 0, &nm), -EFAULT);
	cr_assert_str_eq(nm.name, "[lua:?]");
	luanames__epoch(ls);	/* mapped again, the same proto: loaded afresh */
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");

	fake_leaf(&g, "@two.lua", 20);
	two[0] = lua_fr(f.pt, 0, LT_LINK_LUA);
	two[1] = lua_fr(g.pt, 0, LT_LINK_C);
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), two, 2, 1, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "two.lua:20");
	g.m[9] = 8;	/* freed: its memory holds another kind of object */
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), two, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "one.lua:10");
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), two, 2, 1, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "two.lua:20");
	luanames__epoch(ls);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), two, 2, 1, 0, &nm), -EINVAL);
	cr_assert_str_eq(nm.name, "[lua:?]");
	luanames__delete(ls);
}

Test(luasym, garbage)
{
	static struct fake f;
	static uint8_t junk[4096];
	struct lt_lua_frame fr[2];
	struct luanames *ls = luanames__new();
	struct luaname nm;
	int pid = getpid();
	uint64_t s = 0x9e3779b97f4a7c15ull;
	static const uint64_t bad[] = { 0, 8, 0x10, 0xdeadbeef000ull, 0x7ffffffff000ull,
					0xffffffff81000000ull, 0xfffffffffffffff8ull };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fr[0] = lua_fr(bad[i], bad[i] + 108, LT_LINK_LUA);
		cr_assert_lt(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 1, &nm), 0, "%#" PRIx64, bad[i]);
		cr_assert_str_eq(nm.name, "[lua:?]");
	}
	fr[0] = lua_fr((uint64_t)(uintptr_t)junk, 0, LT_LINK_LUA);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), -EINVAL);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 0, 0, 0, &nm), -EINVAL);	/* i >= n */
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), NULL, 1, 0, 0, &nm), -EINVAL);
	fr[0].kind = 99;
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), -EINVAL);
	/* Absurd sizebc, sizept, debug pointers, chunk name, header op. */
	for (int c = 0; c < 9; c++) {
		fake_leaf(&f, "@x.lua", 1);
		switch (c) {
		case 0: put32(f.m, 12, 0xffffffffu); break;
		case 1: put32(f.m, 12, 1u << 27); break;
		case 2: put32(f.m, 56, 64); break;
		case 3: put64(f.m, 80, f.pt + 8); break;
		case 4: put64(f.m, 80, f.pt + 1000000); break;
		case 5: put64(f.m, 64, 0); break;
		case 6: put64(f.m, 64, f.pt + 3); break;
		case 7: put32(f.m, 104, LVM_BC_MOV); break;
		case 8: put32(f.m, 76, 0x80000000u); break;
		}
		luanames__forget(ls, pid);
		fr[0] = lua_fr(f.pt, pc_after(f.pt, 1), LT_LINK_C);
		cr_assert_lt(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 1, &nm), 0, "case %d", c);
	}
	/* A chunk name that is not a string. */
	fake_leaf(&f, "@x.lua", 1);
	f.m[12288 + 9] = 5;
	luanames__forget(ls, pid);
	cr_assert_eq(luanames__frame(ls, pid, reader_of(pid), fr, 1, 0, 0, &nm), -EINVAL);
	/* Random header bytes, random PCs, caller pairs: 0 or -errno, never a crash. */
	for (int r = 0; r < 3000; r++) {
		struct fake_spec sp;
		const uint32_t bc[] = { FUNCF, LVM_BC_GGET, ins_abc(LVM_BC_CALL, 0, 1, 1),
					ins_ad(LVM_BC_RET0, 0, 1) };
		static const uint8_t li[] = { 0, 1, 2 };
		static const char *const keys[] = { "k" };
		int err;

		sp = (struct fake_spec){ .chunk = "@r.lua", .firstline = 1, .numline = 3, .bc = bc,
					 .nbc = 4, .keys = keys, .nkeys = 1, .lineinfo = li };
		fake_proto(&f, &sp);
		for (int k = 0; k < 1 + r % 4; k++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			if (s & 1)
				f.m[s >> 8 & 127] = (uint8_t)(s >> 16);
			else
				put32(f.m, (s >> 8 & 127) & ~3u, (uint32_t)(s >> 24) % 512);
		}
		luanames__forget(ls, pid);
		fr[0] = lua_fr(f.pt + (s >> 60 == 0 ? 8 : 0), f.pt + (s >> 40) % 160, LT_LINK_LUA);
		fr[1] = lua_fr(f.pt, pc_after(f.pt, (uint32_t)(s >> 50) % 5), LT_LINK_C);
		err = luanames__frame(ls, pid, reader_of(pid), fr, 2, 0, (int)(s >> 33 & 1), &nm);
		cr_assert(err == 0 || (err < 0 && !strcmp(nm.name, "[lua:?]")));
		err = luanames__frame(ls, pid, reader_of(pid), fr, 2, 1, 1, &nm);
		cr_assert(err <= 0);
	}
	luanames__delete(ls);
}

Test(luasym, fast_functions)
{
	struct lt_lua_frame fr = { .kind = LT_LUA_FAST, .ffid = 89, .link = LT_LINK_LUA };
	struct luanames *ls = luanames__new();
	struct luaname nm;

	luanames__set_build(ls, 100, build_of(0));
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "string.format");
	luanames__set_build(ls, 100, build_of(1));
	fr.ffid = 91;
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "string.format");
	fr.ffid = 38;
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "thread.exdata");
	luanames__set_build(ls, 100, build_of(-1));	/* unknown flavour: only the common names */
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "[builtin#38]");
	fr.ffid = 29;
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "print");
	fr.ffid = 250;
	luanames__set_build(ls, 100, build_of(1));
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "[builtin#250]");
	fr.kind = LT_LUA_COROUTINE;
	cr_assert_eq(luanames__frame(ls, 100, reader_of(100), &fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "[coroutine]");
	luanames__forget(ls, 100);
	luanames__delete(ls);
}

/* -- Live LuaJIT processes ------------------------------------------------------ */

/*
** The script prints the GCfunc address of known functions ("fn.NAME"), the
** bytecode position of interesting call sites ("pos.NAME"), their first lines,
** and every position's line for a few functions, then waits on stdin.
*/
static const char script[] =
	"local ju = require('jit.util')\n"
	"local CALL = tonumber(os.getenv('LT_CALL'))\n"
	"local TGETS = tonumber(os.getenv('LT_TGETS'))\n"
	"local ITERC = tonumber(os.getenv('LT_ITERC'))\n"
	"local function out(k, v) io.write(k, ' ', tostring(v), '\\n') end\n"
	"local function addr(f) return string.format('%p', f) end\n"
	"local function find(f, op)\n"
	"  for pc = 1, 100000 do\n"
	"    local ins = ju.funcbc(f, pc)\n"
	"    if not ins then return -1 end\n"
	"    if bit.band(ins, 255) == op then return pc end\n"
	"  end\n"
	"  return -1\n"
	"end\n"
	"function inner() local s = 0; for i = 1, 3 do s = s + i end; return s end\n"
	"local function linner() return 1 end\n"
	"local up = function() return 2 end\n"
	"local M = {}\n"
	"function M.field() return 3 end\n"
	"function M:meth() return 4 end\n"
	"local mt = setmetatable({}, { __index = function(t, k) return k end })\n"
	"local function gen(s, c) if c == nil then return 1 end end\n"
	"function outer_g() local x = inner(); return x end\n"
	"function outer_l() local fl = linner; local x = fl(); return x end\n"
	"function outer_u() local x = up(); return x end\n"
	"function outer_f() local x = M.field(); return x end\n"
	"function outer_m() local x = M:meth(); return x end\n"
	"function outer_mm() local x = mt.foo; return x end\n"
	"function outer_it() local n = 0; for k in gen, nil, nil do n = n + 1 end; return n end\n"
	"function outer_c() local x = string.format('%d', 1); return x end\n"
	"local function lines_fn(a)\n"
	"  local b = a + 1\n"
	"  if b > 2 then\n"
	"    b = b * 2\n"
	"  end\n"
	"\n"
	"  return b\n"
	"end\n"
	"local big16 = loadstring('return function(a)\\n' .. string.rep('\\n', 300) ..\n"
	"  'local b = a + 1\\n' .. string.rep('\\n', 7) .. 'return b\\nend', '@/x/y/big16.lua')()\n"
	"local big32 = loadstring('return function(a)\\n' .. string.rep('\\n', 70000) ..\n"
	"  'local b = a + 1\\nreturn b\\nend', '=big32')()\n"
	"local src = loadstring('return function() return 5 end')()\n"
	"local long = loadstring('return function() return 6 end',\n"
	"  '@' .. string.rep('d/', 700) .. 'long.lua')()\n"
	"local fns = { inner = inner, linner = linner, up = up, field = M.field, meth = M.meth,\n"
	"  index = getmetatable(mt).__index, gen = gen, outer_g = outer_g, outer_l = outer_l,\n"
	"  outer_u = outer_u, outer_f = outer_f, outer_m = outer_m, outer_mm = outer_mm,\n"
	"  outer_it = outer_it, outer_c = outer_c, lines_fn = lines_fn, big16 = big16,\n"
	"  big32 = big32, src = src, long = long, format = string.format, print = print }\n"
	"for k, f in pairs(fns) do\n"
	"  out('fn.' .. k, addr(f))\n"
	"  local i = ju.funcinfo(f)\n"
	"  if i.linedefined then out('first.' .. k, i.linedefined) end\n"
	"  if i.ffid then out('ffid.' .. k, i.ffid) end\n"
	"  if i.bytecodes then\n"
	"    out('nbc.' .. k, i.bytecodes)\n"
	"    for pc = 0, i.bytecodes - 1 do\n"
	"      out('line.' .. k .. '.' .. pc, ju.funcinfo(f, pc).currentline)\n"
	"    end\n"
	"  end\n"
	"end\n"
	"for _, k in ipairs({ 'outer_g', 'outer_l', 'outer_u', 'outer_f', 'outer_m',\n"
	"                     'outer_c' }) do\n"
	"  out('pos.' .. k, find(fns[k], CALL))\n"
	"end\n"
	"out('pos.outer_mm', find(outer_mm, TGETS))\n"
	"out('pos.outer_it', find(outer_it, ITERC))\n"
	"out('tostring.format', tostring(string.format))\n"
	"out('READY', 1)\n"
	"io.stdout:flush()\n"
	"io.read('*l')\n";

#define KV_MAX	4096

struct child {
	pid_t pid;
	int in;			/* its stdin: closing it ends the script */
	char dir[64];
	size_t nkv;
	char *kv[KV_MAX][2];
};

/* Kill the script, reap it, remove its files. */
static void child_stop(struct child *c)
{
	char path[128];

	if (c->in >= 0)
		close(c->in);
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	for (size_t i = 0; i < c->nkv; i++) {
		free(c->kv[i][0]);
		free(c->kv[i][1]);
	}
	snprintf(path, sizeof(path), "%s/app.lua", c->dir);
	unlink(path);
	rmdir(c->dir);
}

/* Start luajit on the script; read what it prints. 0, or -1 if it did not start. */
static int child_start(struct child *c, const char *luajit)
{
	int in[2], out[2];
	char path[128], line[512], env[3][32];
	FILE *f;

	memset(c, 0, sizeof(*c));
	c->in = -1;
	strcpy(c->dir, "/tmp/luatop-luasym-XXXXXX");
	cr_assert_not_null(mkdtemp(c->dir));
	snprintf(path, sizeof(path), "%s/app.lua", c->dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(env[0], sizeof(env[0]), "LT_CALL=%d", LVM_BC_CALL);
	snprintf(env[1], sizeof(env[1]), "LT_TGETS=%d", LVM_BC_TGETS);
	snprintf(env[2], sizeof(env[2]), "LT_ITERC=%d", LVM_BC_ITERC);
	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		char *argv[] = { (char *)luajit, path, NULL };
		char *envp[] = { env[0], env[1], env[2], NULL };

		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execve(luajit, argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	f = fdopen(out[0], "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (!sp || c->nkv == KV_MAX)
			continue;
		*sp = '\0';
		if (!strcmp(line, "READY")) {
			fclose(f);
			return 0;
		}
		c->kv[c->nkv][0] = strdup(line);
		c->kv[c->nkv][1] = strdup(sp + 1);
		c->nkv++;
	}
	fclose(f);
	return -1;
}

/* The value printed for key (the test fails if there is none). */
static const char *kv(const struct child *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *kv(const struct child *c, const char *fmt, ...)
{
	char key[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < c->nkv; i++)
		if (!strcmp(c->kv[i][0], key))
			return c->kv[i][1];
	cr_assert_fail("the script printed no %s", key);
	return NULL;
}

/* The value printed for key, as a number (0x... or decimal). */
static uint64_t kv_num(const struct child *c, const char *key)
{
	return strtoull(kv(c, "%s", key), NULL, 0);
}

/* Read a u64 from the child. */
static uint64_t peek64(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;
	struct iovec l = { &v, 8 }, r = { (void *)(uintptr_t)addr, 8 };

	cr_assert_eq(process_vm_readv(pid, &l, 1, &r, 1, 0), 8);
	return v;
}

/* The GCproto of the Lua function whose GCfunc the script printed as fn.name. */
static uint64_t proto_of(const struct child *c, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "fn.%s", name);
	return peek64(c->pid, kv_num(c, key) + 32) - 104;	/* fn->pc - sizeof(GCproto) */
}

/* Name callee as called from the call site pos.caller_name. */
static void check_call(struct luanames *ls, const struct child *c, const char *callee_name,
		       const char *caller_name, uint8_t link, const char *func, const char *what)
{
	struct lt_lua_frame fr[2];
	uint64_t cpt = proto_of(c, caller_name), pt = proto_of(c, callee_name);
	char key[64], want[256];
	struct luaname nm;
	long pos;

	snprintf(key, sizeof(key), "pos.%s", caller_name);
	pos = (long)kv_num(c, key);
	cr_assert_gt(pos, 0, "%s", key);
	fr[0] = lua_fr(pt, 0, link);
	fr[1] = lua_fr(cpt, pc_after(cpt, (uint32_t)pos), LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c->pid, reader_of(c->pid), fr, 2, 0, 0, &nm), 0, "%s", callee_name);
	cr_assert_str_eq(nm.func, func, "%s from %s", callee_name, caller_name);
	cr_assert_str_eq(nm.what, what, "%s from %s", callee_name, caller_name);
	snprintf(want, sizeof(want), "%s (app.lua:%s)", func, kv(c, "first.%s", callee_name));
	cr_assert_str_eq(nm.name, want);
}

/* Check every position's line of a function against jit.util.funcinfo's. */
static void check_lines(struct luanames *ls, const struct child *c, const char *name,
			const char *chunk)
{
	uint64_t pt = proto_of(c, name);
	long nbc = strtol(kv(c, "nbc.%s", name), NULL, 10);
	struct lt_lua_frame fr;
	struct luaname nm;
	char want[128];

	cr_assert_gt(nbc, 1);
	for (long pos = 0; pos < nbc; pos++) {
		fr = lua_fr(pt, pc_after(pt, (uint32_t)pos), LT_LINK_C);
		cr_assert_eq(luanames__frame(ls, c->pid, reader_of(c->pid), &fr, 1, 0, 1, &nm), 0);
		cr_assert_eq(nm.line, atoi(kv(c, "line.%s.%ld", name, pos)), "%s pos %ld", name,
			     pos);
		cr_assert_str_eq(nm.chunk, chunk);
		snprintf(want, sizeof(want), "%s:%s (%s:%d)", chunk, kv(c, "first.%s", name),
			 chunk, nm.line);
		cr_assert_str_eq(nm.name, want);
		cr_assert_eq(nm.firstline, atoi(kv(c, "first.%s", name)));
	}
}

/* The whole live check against one LuaJIT binary. */
static void live(const char *luajit, int openresty)
{
	struct child c;
	struct luanames *ls;
	struct lt_lua_frame fr[2];
	struct luaname nm;
	uint64_t v, fn;
	uint8_t ffid;
	struct iovec l = { &v, 8 }, r;

	if (access(luajit, X_OK))
		cr_skip_test("%s missing (make deps)", luajit);
	if (child_start(&c, luajit)) {
		child_stop(&c);
		cr_assert_fail("%s did not run the script", luajit);
	}
	r = (struct iovec){ (void *)(uintptr_t)kv_num(&c, "fn.inner"), 8 };
	if (process_vm_readv(c.pid, &l, 1, &r, 1, 0) != 8) {
		int e = errno;

		child_stop(&c);
		cr_skip_test("process_vm_readv on a child: %s", strerror(e));
	}
	ls = luanames__new();
	cr_assert_not_null(ls);
	luanames__set_build(ls, c.pid, build_of(openresty));

	/* Call sites, as jit.p names them. */
	check_call(ls, &c, "inner", "outer_g", LT_LINK_LUA, "inner", "global");
	check_call(ls, &c, "linner", "outer_l", LT_LINK_LUA, "fl", "local");
	check_call(ls, &c, "up", "outer_u", LT_LINK_LUA, "up", "upvalue");
	check_call(ls, &c, "field", "outer_f", LT_LINK_LUA, "field", "field");
	check_call(ls, &c, "meth", "outer_m", LT_LINK_LUA, "meth", "method");
	check_call(ls, &c, "index", "outer_mm", LT_LINK_CONT, "__index", "metamethod");
	check_call(ls, &c, "gen", "outer_it", LT_LINK_LUA, "(for generator)", "local");

	/* A Lua function on its own: chunk:firstline. */
	fr[0] = lua_fr(proto_of(&c, "outer_g"), 0, LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.chunk, "app.lua");
	cr_assert_eq(nm.firstline, atoi(kv(&c, "first.outer_g")));
	cr_assert_eq(nm.line, nm.firstline);
	cr_assert_null(nm.what);

	/* Lines: u8, u16 and u32 lineinfo, every position. */
	check_lines(ls, &c, "lines_fn", "app.lua");
	check_lines(ls, &c, "big16", "big16.lua");
	check_lines(ls, &c, "big32", "big32");
	check_lines(ls, &c, "inner", "app.lua");

	/* Chunk names: source text, a path longer than a read. */
	fr[0] = lua_fr(proto_of(&c, "src"), 0, LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "[string \"return function() return 5 end\"]:1");
	fr[0] = lua_fr(proto_of(&c, "long"), 0, LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "long.lua:1");

	/* Fast functions: the ffid read from the GCfunc, named for this flavour. */
	fn = kv_num(&c, "fn.format");
	ffid = (uint8_t)(peek64(c.pid, fn + 8) >> 16);	/* GCfunc.ffid at +10 */
	cr_assert_eq(ffid, atoi(kv(&c, "ffid.format")));
	cr_assert_eq(ffid, openresty ? 91 : 89);
	cr_assert(strstr(kv(&c, "tostring.format"), "builtin#") != NULL);
	fr[0] = (struct lt_lua_frame){ .fn = fn, .kind = LT_LUA_FAST, .ffid = ffid,
				       .link = LT_LINK_LUA };
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "string.format");
	fn = kv_num(&c, "fn.print");
	fr[0].ffid = (uint8_t)(peek64(c.pid, fn + 8) >> 16);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "print");
	/* A fast function's call site (a TGETS of "format") names C functions too. */
	fr[0] = (struct lt_lua_frame){ .fn = 1, .addr = 0x1000, .kind = LT_LUA_C, .ffid = 1,
				       .link = LT_LINK_LUA };
	fr[1] = lua_fr(proto_of(&c, "outer_c"),
		       pc_after(proto_of(&c, "outer_c"), (uint32_t)kv_num(&c, "pos.outer_c")),
		       LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_null(nm.name);
	cr_assert_str_eq(nm.func, "format");

	/* Not protos: a GCfunc, an address inside a proto. */
	fr[0] = lua_fr(kv_num(&c, "fn.inner"), 0, LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), -EINVAL);
	fr[0] = lua_fr(proto_of(&c, "inner") + 8, 0, LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 1, 0, 0, &nm), -EINVAL);

	/* The GCstr layout found from the first chunk name. */
	luanames__forget(ls, c.pid);
	fr[0] = lua_fr(proto_of(&c, "inner"), 0, LT_LINK_LUA);
	fr[1] = lua_fr(proto_of(&c, "outer_g"),
		       pc_after(proto_of(&c, "outer_g"), (uint32_t)kv_num(&c, "pos.outer_g")),
		       LT_LINK_C);
	cr_assert_eq(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.func, "inner");
	cr_assert_str_eq(nm.chunk, "app.lua");

	/* A process that is gone. */
	luanames__forget(ls, c.pid);
	kill(c.pid, SIGKILL);
	waitpid(c.pid, NULL, 0);
	cr_assert_lt(luanames__frame(ls, c.pid, reader_of(c.pid), fr, 2, 0, 0, &nm), 0);
	cr_assert_str_eq(nm.name, "[lua:?]");
	c.pid = 0;
	child_stop(&c);
	luanames__delete(ls);
}

Test(luasym, live_openresty)
{
	live(OR_LUAJIT, 1);
}

Test(luasym, live_upstream)
{
	live(UP_LUAJIT, 0);
}
