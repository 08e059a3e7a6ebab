/*
** libFuzzer entry point for the decoders of LuaJIT objects in target memory:
** lua/proto.c (GCproto, its debug info, GCstr, the trace behind a JLOOP exit
** PC), lua/bc.c (call-site and definition-site names from bytecode and
** varinfo/uvinfo) and lua/names.c (frame names, with its proto cache).
**
**   make fuzz-run-luaproto FUZZ_SECONDS=60
**   make .output/fuzz/fuzz_luaproto && .output/fuzz/fuzz_luaproto tests/fuzz/corpus/luaproto
**
** (names.c pulls in much of the core through detect.c: build it with make, which
** links every core source.)
**
** Input: a 33-byte header, then the target's memory, mapped at MEM_BASE and
** zero-filled up to a page boundary (memory is mapped by pages: readers such as
** mreader__read_some rely on it); reads outside fail with -EFAULT.
**
**   byte 0        bits 0-1: frames - 1; bit 2: line granularity; bits 3-4: build
**                 told to names.c (0 none, 1 OpenResty/new GCstr, 2 upstream/old
**                 GCstr, 3 unknown layout); bit 5: epochs; bit 6: the reader has
**                 readv; bit 7: name every frame twice more (cache revalidation)
**   bytes 1-32    four frames of 8 bytes: kind (% 6: 1..4 valid), link (& 7),
**                 flags (& 3), ffid, GCproto at MEM_BASE + 8 * u16, pc u16:
**                 0 none, bit 15 set: GCproto + (pc & 0x7fff) (any alignment),
**                 else GCproto + 100 + 4 * pc (2: after bc[0], 3: after bc[1] ...)
**
** Seeds: tests/fuzz/corpus/luaproto (fake protos laid out as lj_parse does, as in
** tests/unit/test_luanames.c). Besides memory safety, checked: what proto.h
** promises of a proto read (bounds of sizebc, the debug info copy and its three
** parts, line numbers, positions), GCstr reads NUL-terminated within the buffer,
** names from uvinfo/varinfo inside their buffers, and frame names as names.h
** describes them (printable, bounded, "[lua:?]" on error).
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lua/bc.h"
#include "lua/detect.h"
#include "lua/names.h"
#include "lua/proto.h"
#include "lua/vmdef.h"

#define MEM_BASE	0x10000000ull	/* where the input's memory is mapped */
#define HDR		33		/* input bytes before the memory */
#define NFRAMES		4
#define FMT_MAX		4096		/* LS_FMT_MAX in names.c: names are cut to this */
#define PID		4242

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target's memory: one flat mapping. */
struct mem {
	const uint8_t *p;
	size_t len;
};

/* mreader read: all of [addr, addr + len) inside the mapping, or -EFAULT. */
static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = ctx;

	if (addr < MEM_BASE || addr - MEM_BASE > m->len || len > m->len - (addr - MEM_BASE))
		return -EFAULT;
	memcpy(buf, m->p + (addr - MEM_BASE), len);
	return 0;
}

/* mreader readv: leading spans read whole, as process_vm_readv reports them. */
static int mem_readv(void *ctx, const struct mspan *sp, unsigned n)
{
	unsigned i = 0;

	while (i < n && !mem_read(ctx, sp[i].addr, sp[i].buf, sp[i].len))
		i++;
	return i || !n ? (int)i : -EFAULT;
}

/* The bytes of memory at addr, or NULL when [addr, addr + len) is not all mapped. */
static const uint8_t *at(const struct mem *m, uint64_t addr, size_t len)
{
	if (addr < MEM_BASE || addr - MEM_BASE > m->len || len > m->len - (addr - MEM_BASE))
		return NULL;
	return m->p + (addr - MEM_BASE);
}

static uint64_t u64_of(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

/* A name from uvinfo/varinfo: inside [buf, buf + len), or a static name of n bytes. */
static void check_name(const char *name, size_t n, const uint8_t *buf, size_t len)
{
	const char *lo = (const char *)buf, *hi = lo + len;

	if (!name)
		return;
	if (buf && name >= lo && name < hi) {
		if (n > (size_t)(hi - name))
			abort();
	} else if (strlen(name) != n) {
		abort();	/* not in the buffer: one of bc.c's own strings */
	}
}

/* Read the GCstr at addr every way and abort() unless the results keep proto.h's word. */
static void check_str(const struct mreader *r, uint64_t addr)
{
	static const size_t caps[] = { 1, 2, 17, LUAPROTO_STR_MAX };
	static const int lays[] = { LUASTR_AUTO, LUASTR_OLD, LUASTR_NEW };
	char buf[LUAPROTO_STR_MAX];

	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
		for (size_t l = 0; l < sizeof(lays) / sizeof(lays[0]); l++) {
			size_t len = 1234567, off = c == 2 ? 5 : 0;
			int lay = lays[l], err;

			memset(buf, 'x', sizeof(buf));
			err = luastr__read(r, addr, &lay, off, buf, caps[c], &len);
			if (lay < LUASTR_AUTO || lay > LUASTR_NEW ||
			    (lays[l] != LUASTR_AUTO && lay != lays[l]))
				abort();
			if (err)
				continue;
			if (!memchr(buf, 0, caps[c]) || len > UINT32_MAX)
				abort();
			/* Nothing past the end: "" from off >= len on. */
			if (off >= len && buf[0])
				abort();
		}
}

/* Does the check of a proto against what was read at its load say "the same"? */
static int same_as_read(const struct luaproto *p)
{
	uint8_t h[LUAPROTO_PEEK_SIZE] = { 0 };

	memcpy(h, p->hdr, LUAPROTO_SIZE);
	memcpy(h + LUAPROTO_SIZE + 9, p->chunkid, LUAPROTO_STRID);
	return luaproto__check(p, h) == LUAPROTO_SAME;
}

/* Read the proto at addr directly and check everything proto.h promises of it. */
static void check_proto(const struct mreader *r, const struct mem *m, uint64_t addr,
			uint64_t pc, uint32_t kidx)
{
	struct luaproto p;
	const uint8_t *src;
	uint64_t obj, dbg;
	uint32_t win[64];
	int64_t pos;
	int err = luaproto__read(r, addr, &p);

	if (err) {
		if (err != -EINVAL && err != -EFAULT && err != -ENOMEM)
			abort();
		if (p.dbg || p.ndbg)
			abort();
		return;
	}
	if (p.addr != addr || p.sizebc < 2 || p.sizebc > LUAPROTO_SIZEBC_MAX || p.k % 8 ||
	    !p.chunkname || p.chunkname % 8 || p.firstline < -1 || p.numline < 0 ||
	    p.lineshift > 2 || !same_as_read(&p))
		abort();
	if (p.ndbg > LUAPROTO_DBG_MAX || !p.ndbg != !p.dbg || p.nline > p.ndbg ||
	    (p.nline && p.nline != (size_t)(p.sizebc - 1) << p.lineshift) ||
	    (p.nuv && (p.uvofs > p.ndbg || p.nuv > p.ndbg - p.uvofs)) ||
	    (p.nvar && (p.varofs > p.ndbg || p.nvar > p.ndbg - p.varofs)))
		abort();
	/* The debug info is a faithful copy of the target's. */
	dbg = u64_of(p.hdr + 80);
	if (!dbg)
		dbg = u64_of(p.hdr + 88);
	if (!dbg)
		dbg = u64_of(p.hdr + 96);
	if (p.ndbg && (!(src = at(m, dbg, p.ndbg)) || memcmp(src, p.dbg, p.ndbg)))
		abort();
	/* Lines of every position (the first ones and the last ones of a long proto). */
	for (int64_t i = -1; i <= (int64_t)p.sizebc + 1; i++) {
		int line = luaproto__line(&p, i);

		if (line < -1 || (line >= 0 && (i < 0 || i > p.sizebc || !p.nline)))
			abort();
		if (i == 64 && p.sizebc > 128)
			i = p.sizebc - 64;
	}
	pos = luaproto__pos(r, &p, pc);
	if (pos < -1 || pos > p.sizebc)
		abort();
	/* Bytecode copies match memory; out-of-range copies are refused. */
	for (uint32_t lo = 0; lo < 3; lo++) {
		uint32_t hi = p.sizebc < 64 + lo ? p.sizebc : 64 + lo;

		if (hi < lo)
			break;
		err = luaproto__bc(r, &p, lo, hi, win);
		if (!err && memcmp(win, at(m, addr + LUAPROTO_SIZE + 4ull * lo, 4ull * (hi - lo)),
				   4ull * (hi - lo)))
			abort();
		if (err && err != -EFAULT)
			abort();
	}
	if (luaproto__bc(r, &p, 1, p.sizebc + 1, win) != -EINVAL ||
	    luaproto__bc(r, &p, 2, 1, win) != -EINVAL)
		abort();
	for (uint32_t i = 0; i < 4 && i <= p.sizekgc; i++) {
		err = luaproto__kgc(r, &p, i, &obj);
		if (i == p.sizekgc ? err != -EINVAL : !err && (!obj || obj % 8))
			abort();
		if (!err && i < 2)
			check_str(r, obj);
	}
	check_str(r, p.chunkname);
	/* Names out of the debug info copy. */
	if (p.nuv)
		for (uint32_t i = 0; i < 8 && i <= p.sizeuv; i++) {
			size_t n = 0;
			const char *s = luabc__uvname(p.dbg + p.uvofs, p.nuv, i, &n);

			if (s && (s < (const char *)p.dbg + p.uvofs ||
				  n >= p.nuv - (size_t)(s - (const char *)p.dbg - p.uvofs) ||
				  s[n] || memchr(s, 0, n)))
				abort();
		}
	if (p.nvar)
		for (uint32_t i = 0; i < 4; i++) {
			size_t n = 0;
			const char *s = luabc__varname(p.dbg + p.varofs, p.nvar,
						       (uint32_t)(pos > 0 ? pos : 1), i, &n);

			check_name(s, n, p.dbg + p.varofs, p.nvar);
		}
	/* Call-site and definition-site decoding on the copied bytecode window. */
	if (p.sizebc > 2 && !luaproto__bc(r, &p, 1, p.sizebc < 65 ? p.sizebc : 65, win)) {
		uint32_t n = (p.sizebc < 65 ? p.sizebc : 65) - 1, defpos = 0;
		const uint8_t *vi = p.nvar ? p.dbg + p.varofs : NULL;
		struct luabc_name nm;

		for (uint32_t q = 1; q <= n; q++) {
			enum luabc_what w = luabc__callee(win, 1, q, vi, p.nvar, &nm);

			if (w != nm.what && w != LUABC_NONE)
				abort();
			if ((w == LUABC_LOCAL || w == LUABC_META) &&
			    (!nm.name || (w == LUABC_META && strlen(nm.name) != nm.len)))
				abort();
			if (w == LUABC_LOCAL)
				check_name(nm.name, nm.len, vi, p.nvar);
		}
		if (luabc__definer(win, 1, n, kidx, vi, p.nvar, &defpos, &nm) != LUABC_NONE) {
			if (defpos < 1 || defpos >= n || luabc_op(win[defpos - 1]) != LVM_BC_FNEW ||
			    luabc_d(win[defpos - 1]) != kidx)
				abort();	/* the FNEW of kidx, its successor in the window */
			if (nm.what == LUABC_LOCAL)
				check_name(nm.name, nm.len, vi, p.nvar);
		}
	}
	luaproto__free(&p);
	if (p.dbg || p.ndbg || p.nline || p.nuv || p.nvar)
		abort();
}

/* abort() unless a frame name is what names.h describes. */
static void check_name_out(int err, const struct lt_lua_frame *f, const struct luaname *nm)
{
	static const char *const whats[] = { "global", "local", "method", "field", "upvalue",
					     "metamethod" };
	const char *s[] = { nm->name, nm->func, nm->chunk };
	size_t k;

	if (err) {
		if (err != -EINVAL && err != -EFAULT && err != -ENOMEM && err != -EAGAIN)
			abort();
		if (!nm->name || strcmp(nm->name, "[lua:?]") || nm->func || nm->chunk || nm->what)
			abort();
		return;
	}
	if (f->kind != LT_LUA_C && !nm->name)
		abort();
	if (f->kind == LT_LUA_LUA && (!nm->chunk || !nm->func || nm->line < 0 || nm->firstline < -1))
		abort();
	for (size_t i = 0; i < 3; i++) {
		if (!s[i])
			continue;
		if (strlen(s[i]) >= FMT_MAX)
			abort();
		for (const char *c = s[i]; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				abort();	/* target bytes reach a terminal sanitized */
	}
	if (nm->what) {
		for (k = 0; k < sizeof(whats) / sizeof(whats[0]) && strcmp(nm->what, whats[k]); k++)
			;
		if (k == sizeof(whats) / sizeof(whats[0]) || !nm->func)
			abort();
	}
}

/* Decode the header, check the protos on their own, then name every frame. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_lua_frame fr[NFRAMES], copy[NFRAMES];
	struct mem m;
	struct mreader r = { .read = mem_read, .ctx = &m };
	struct luanames *ls;
	struct luabuild b;
	struct luaname nm;
	uint8_t hdr[LUAPROTO_PEEK_MAX * LUAPROTO_PEEK_SIZE];
	struct luaproto peek[NFRAMES];
	const struct luaproto *ps[NFRAMES];
	unsigned n, flags, passes;

	if (size < HDR)
		return 0;
	flags = data[0];
	n = 1 + (flags & 3);
	passes = flags & 0x80 ? 3 : 1;
	if (flags & 0x40)
		r.readv = mem_readv;
	/* Whole pages, as a process maps them; an exact-size copy (ASan). */
	m.len = (size - HDR + 4095) & ~(size_t)4095;
	m.p = calloc(1, m.len ? m.len : 1);
	if (!m.p)
		abort();
	memcpy((void *)m.p, data + HDR, size - HDR);
	for (unsigned i = 0; i < NFRAMES; i++) {
		const uint8_t *d = data + 1 + 8 * i;
		uint16_t pt = (uint16_t)(d[4] | d[5] << 8), pc = (uint16_t)(d[6] | d[7] << 8);
		uint64_t a = MEM_BASE + 8ull * pt;

		fr[i] = (struct lt_lua_frame){ .fn = a - 64, .addr = a, .kind = (uint8_t)(d[0] % 6),
					       .link = d[1] & 7, .flags = d[2] & 3, .ffid = d[3] };
		fr[i].pc = !pc ? 0 : pc & 0x8000 ? a + (pc & 0x7fff) : a + 100 + 4ull * pc;
		peek[i] = (struct luaproto){ .addr = a, .chunkname = a + 8ull * d[3] };
		ps[i] = &peek[i];
		if (i < n)
			check_proto(&r, &m, a, fr[i].pc, d[3]);
	}
	if (luaproto__peek(&r, ps, n, hdr) > (int)n)
		abort();
	ls = luanames__new();
	if (!ls)
		abort();
	if (flags & 0x18) {
		b = (struct luabuild){ .openresty = (flags >> 3 & 3) == 1,
				       .gcstr_new = (flags >> 3 & 3) == 1 ? 1 :
						    (flags >> 3 & 3) == 2 ? 0 : -1 };
		luanames__set_build(ls, PID, &b);
	}
	for (unsigned pass = 0; pass < passes; pass++) {
		if (flags & 0x20)
			luanames__epoch(ls);
		for (unsigned i = 0; i < n; i++) {
			int err = luanames__frame(ls, PID, &r, fr, n, i, !!(flags & 4), &nm);

			check_name_out(err, &fr[i], &nm);
		}
		/* The same frames from another array: a new batch. */
		memcpy(copy, fr, sizeof(copy));
		check_name_out(luanames__frame(ls, PID, &r, copy, n, n - 1, !(flags & 4), &nm),
			       &copy[n - 1], &nm);
		if (pass == 1)
			luanames__set_build(ls, PID, NULL);	/* drops the cache */
	}
	luanames__forget(ls, PID);
	luanames__delete(ls);
	free((void *)m.p);
	return 0;
}
