/*
** Unit tests of lua/detect (with lua/vmfde, lua/x64scan, lua/bcofs): exact
** results on the LuaJIT builds of this machine, the fd and memory paths agreeing,
** patched images for the refusal paths, live-memory calibration through a host
** program compiled against each flavour, and truncated and mutated binaries
** (run under ASan/UBSan).
**
** The exact values belong to Debian 12's luajit2 2.1-20230119-1 (OpenResty) and
** luajit 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1 (upstream, in .deps, see
** scripts/deps.sh); another package version changes them.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "lua/bcofs.h"
#include "lua/detect.h"
#include "lua/x64scan.h"

#define OR_LUAJIT	"/usr/bin/luajit"
#define OR_LIB		"/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2"
#define OR_A		"/usr/lib/x86_64-linux-gnu/libluajit-5.1.a"
#define OR_INC		"/usr/include/luajit-2.1"
#define UP_DIR		".deps/luajit-upstream"
#define UP_LUAJIT	UP_DIR "/usr/bin/luajit"
#define UP_LIBDIR	UP_DIR "/usr/lib/x86_64-linux-gnu"
#define UP_LIB		UP_LIBDIR "/libluajit-5.1.so.2.1.0"
#define UP_A		UP_LIBDIR "/libluajit-5.1.a"
#define UP_INC		UP_DIR "/usr/include/luajit-2.1"
#define NGX_LUA		"/usr/lib/nginx/modules/ngx_http_lua_module.so"
#define LIBC		"/lib/x86_64-linux-gnu/libc.so.6"
#define CALIB_SRC	"tests/fixtures/lua/calib_host.c"

/* -- Helpers -------------------------------------------------------------- */

/* Read a whole file; NULL when it does not exist. */
static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		cr_assert_gt(n, 0, "read %s", path);
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return buf;
}

/* Detect path through the fd API; skip the test when the file is missing. */
static void detect_path(const char *path, struct luabuild *o)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		cr_skip_test("%s missing (make deps)", path);
	cr_assert_eq(luabuild__detect_fd(fd, o), 0, "%s", path);
	close(fd);
}

/* Run a shell command: its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[3 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The invariants every result keeps, whatever the input. */
static void check_sane(const struct luabuild *o)
{
	cr_assert(memchr(o->why, 0, sizeof(o->why)));
	cr_assert(memchr(o->version, 0, sizeof(o->version)));
	cr_assert(memchr(o->layout, 0, sizeof(o->layout)));
	cr_assert_leq(o->n_entry, LUABUILD_ENTRY_MAX);
	if (!o->found)
		cr_assert(!o->supported);
	if (!o->supported) {
		cr_assert_neq(o->why[0], 0);
		return;
	}
	cr_assert_eq(o->why[0], 0);
	cr_assert_eq(o->gc64, 1);
	cr_assert_eq(o->cframe_size, 80);
	cr_assert_lt(o->vm_start, o->vm_end);
	cr_assert(o->bc_max >= BCOFS_MIN_BC && o->bc_max <= BCOFS_MAX_BC);
	cr_assert_eq(o->n_bc_ofs, o->bc_max + BCOFS_ASMFF);
	cr_assert_lt(o->off_vmstate, o->off_cur_L);
	cr_assert_lt(o->off_cur_L, o->g2disp);
	cr_assert_lt(o->bc_funcc_ofs, o->bc_funcc_ret);
	cr_assert_leq(o->bc_funcc_ret, o->bc_funccw_ofs);
	cr_assert_lt(o->bc_funccw_ofs, o->bc_funccw_ret);
	cr_assert_leq(o->vm_start + o->bc_funccw_ret, o->vm_end);
	cr_assert(o->sizeof_lua_State == 96 || o->sizeof_lua_State == 104 ||
		  o->sizeof_lua_State == 112);
	if (o->leaf_start)
		cr_assert(o->vm_start < o->leaf_start && o->leaf_start < o->leaf_end &&
			  o->leaf_end <= o->vm_end);
	if (o->cpcall_ret)
		cr_assert(o->vm_start < o->cpcall_ret && o->cpcall_ret < o->vm_end);
}

/* -- Exact results on this machine's binaries ----------------------------- */

struct want {
	const char *path;
	uint64_t vm[2], ffi[2], leaf[2], exit[2], ffi_cb, entry[4];
	uint32_t g2disp, cur_L, vmstate, jit_base, jit_trace, sizeof_L;
	uint64_t bc_ofs_vaddr;
	const char *layout;
	int openresty;
};

/* Compare a detection with its expected values. */
static void check_want(const struct want *w)
{
	struct luabuild o;

	detect_path(w->path, &o);
	check_sane(&o);
	cr_assert(o.found && o.supported, "%s: %s", w->path, o.why);
	cr_assert_str_eq(o.version, "LuaJIT 2.1.0-beta3");
	cr_assert_str_eq(o.layout, w->layout);
	cr_assert_eq(o.openresty, w->openresty);
	cr_assert_eq(o.gc64, 1);
	cr_assert_eq(o.jit, 1);
	cr_assert_eq(o.symbols, 0);	/* all four are stripped */
	cr_assert_eq(o.vm_start, w->vm[0], "%#" PRIx64, o.vm_start);
	cr_assert_eq(o.vm_end, w->vm[1], "%#" PRIx64, o.vm_end);
	cr_assert_eq(o.ffi_call_start, w->ffi[0]);
	cr_assert_eq(o.ffi_call_end, w->ffi[1]);
	cr_assert_eq(o.leaf_start, w->leaf[0], "%#" PRIx64, o.leaf_start);
	cr_assert_eq(o.leaf_end, w->leaf[1], "%#" PRIx64, o.leaf_end);
	cr_assert_eq(o.exit_start, w->exit[0], "%#" PRIx64, o.exit_start);
	cr_assert_eq(o.exit_end, w->exit[1]);
	cr_assert_eq(o.ffi_callback, w->ffi_cb);
	cr_assert_eq(o.n_entry, 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(o.entry[i], w->entry[i], "entry %d %#" PRIx64, i, o.entry[i]);
	/* lj_vm_cpcall is the last entry: its call of the C function 0x4d bytes in
	** (objdump of all four: call *%rcx; test %rax,%rax). */
	cr_assert_eq(o.cpcall_ret, w->entry[3] + 0x4d, "%#" PRIx64, o.cpcall_ret);
	/* The windows outside L's cframe chain, the same in all four (objdump):
	** test, jz vm_leave_cp, mov, mov, jmp after the call; vm_leave_cp 0x2c4
	** bytes before, its xor 9 bytes in, then add $40,%rsp, four pops, ret. The
	** entries link their frames 62, 75 (lj_vm_call's), 55 and 64 bytes in. */
	static const uint8_t cfa[] = { 10, 0, 10, 0, 0, 0, 5, 0, 4, 0, 3, 2, 1 };
	static const uint32_t entry_len[] = { 63, 21, 56, 65 };

	cr_assert_eq(o.cpcall_len, 22);
	cr_assert_eq(o.leave_start, o.cpcall_ret - 0x2c4, "%#" PRIx64, o.leave_start);
	cr_assert_eq(o.unw_start, o.leave_start + 9);
	cr_assert_eq(o.unw_len, sizeof(cfa));
	cr_assert_arr_eq(o.unw_cfa, cfa, sizeof(cfa));
	for (int i = 0; i < 4; i++)
		cr_assert_eq(o.entry_len[i], entry_len[i], "entry %d: %u", i, o.entry_len[i]);
	/* mov %rbx,-0x8(%rdx): four BC_CALL-like handlers and vm_call_dispatch. */
	cr_assert_eq(o.n_link_store, 5);
	for (uint32_t i = 0; i < o.n_link_store; i++)
		cr_assert(o.vm_start <= o.link_store[i] && o.link_store[i] < o.vm_end);
	cr_assert_eq(o.g2disp, w->g2disp);
	cr_assert_eq(o.off_cur_L, w->cur_L);
	cr_assert_eq(o.off_vmstate, w->vmstate);
	cr_assert_eq(o.off_jit_base, w->jit_base);
	cr_assert_eq(o.off_jit_trace, w->jit_trace);
	cr_assert_eq(o.off_trace_mcode, 88);
	cr_assert_eq(o.sizeof_lua_State, w->sizeof_L);
	cr_assert_eq(o.bc_ofs_vaddr, w->bc_ofs_vaddr, "%#" PRIx64, o.bc_ofs_vaddr);
	cr_assert_eq(o.bc_max, 97);
	cr_assert_eq(o.n_bc_ofs, 154);
	/* lj_vm.o of both packages: ISLT, ISGE, ... FUNCC 0x1c72, ff assert 0x2541. */
	cr_assert_eq(o.bc_ofs[0], 0);
	cr_assert_eq(o.bc_ofs[1], 92);
	cr_assert_eq(o.bc_ofs[2], 184);
	cr_assert_eq(o.bc_ofs[3], 276);
	cr_assert_eq(o.bc_ofs[97], 0x2541);
	cr_assert_eq(o.bc_funcc_ofs, 0x1c72);
	cr_assert_eq(o.bc_funcc_ret, 0x1cb6);	/* lj_BC_FUNCC+0x44 */
	cr_assert_eq(o.bc_funccw_ofs, 0x1ce0);
	cr_assert_eq(o.bc_funccw_ret, 0x1d2b);
	cr_assert_eq(o.bc_jloop_ofs, 0x1b0b);
}

#define OR_LAYOUT	"OpenResty v2.1-20211210..20240314"
#define UP_LAYOUT	"upstream 2.1 2021-03..2024-04 (Debian 12)"

Test(lua_detect, openresty_luajit)
{
	static const struct want w = {
		OR_LUAJIT, { 0x9b90, 0xdbe2 }, { 0xdbe2, 0xdc82 }, { 0xd8e1, 0xdae2 },
		{ 0xd74b, 0xd8e1 }, 0xdae2, { 0xbab2, 0xbb3e, 0xbb53, 0xbbef },
		4008, 368, 184, 376, 1120, 112, 0x7a200, OR_LAYOUT, 1,
	};

	check_want(&w);
}

Test(lua_detect, openresty_lib)
{
	static const struct want w = {
		OR_LIB, { 0x9e40, 0xde92 }, { 0xde92, 0xdf32 }, { 0xdb91, 0xdd92 },
		{ 0xd9fb, 0xdb91 }, 0xdd92, { 0xbd62, 0xbdee, 0xbe03, 0xbe9f },
		4008, 368, 184, 376, 1120, 112, 0x78d20, OR_LAYOUT, 1,
	};

	check_want(&w);
}

Test(lua_detect, upstream_luajit)
{
	static const struct want w = {
		UP_LUAJIT, { 0x704e0, 0x74525 }, { 0x74525, 0x745c5 }, { 0x74231, 0x7442e },
		{ 0x7409b, 0x74231 }, 0x7442e, { 0x72402, 0x7248e, 0x724a3, 0x7253f },
		3968, 368, 184, 376, 1112, 96, 0x79220, UP_LAYOUT, 0,
	};

	check_want(&w);
}

Test(lua_detect, upstream_lib)
{
	static const struct want w = {
		UP_LIB, { 0x8d70, 0xcdb5 }, { 0xcdb5, 0xce55 }, { 0xcac1, 0xccbe },
		{ 0xc92b, 0xcac1 }, 0xccbe, { 0xac92, 0xad1e, 0xad33, 0xadcf },
		3968, 368, 184, 376, 1112, 96, 0x75d40, UP_LAYOUT, 0,
	};

	check_want(&w);
}

/* A file without the VM: found = 0 and a reason. */
static void check_no_vm(const char *path)
{
	struct luabuild o;

	detect_path(path, &o);
	check_sane(&o);
	cr_assert_eq(o.found, 0);
	cr_assert_eq(o.supported, 0);
	cr_assert_str_eq(o.why, "no LuaJIT VM");
	cr_assert_eq(o.vm_start, 0);
	cr_assert_eq(o.g2disp, 0);
}

Test(lua_detect, nginx_lua_module_has_no_vm)
{
	check_no_vm(NGX_LUA);	/* imports lua_* from libluajit: no VM of its own */
}

Test(lua_detect, libc_has_no_vm)
{
	check_no_vm(LIBC);
}

/* The memory path gives exactly what the fd path gives. */
Test(lua_detect, mem_equals_fd)
{
	static const char *const paths[] = { OR_LUAJIT, OR_LIB, UP_LUAJIT, UP_LIB, NGX_LUA, LIBC };
	int done = 0;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct luabuild a, b;
		uint8_t *buf;
		size_t len;
		int fd = open(paths[i], O_RDONLY);

		if (fd < 0)
			continue;
		memset(&a, 0xa5, sizeof(a));
		memset(&b, 0x5a, sizeof(b));
		cr_assert_eq(luabuild__detect_fd(fd, &a), 0);
		close(fd);
		buf = slurp(paths[i], &len);
		cr_assert_not_null(buf);
		cr_assert_eq(luabuild__detect_mem(buf, len, &b), 0);
		cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "%s", paths[i]);
		free(buf);
		done++;
	}
	if (!done)
		cr_skip_test("no binaries");
}

Test(lua_detect, bad_arguments)
{
	static const uint8_t junk[64] = "not an ELF file at all";
	struct luabuild o;
	int p[2];

	cr_assert_eq(luabuild__detect_mem(NULL, 1, &o), -EINVAL);
	cr_assert_eq(luabuild__detect_mem(junk, sizeof(junk), NULL), -EINVAL);
	cr_assert_eq(luabuild__detect_fd(-1, &o), -EINVAL);
	cr_assert_eq(luabuild__detect_mem(NULL, 0, &o), 0);
	cr_assert_eq(o.found, 0);
	cr_assert_eq(luabuild__detect_mem(junk, sizeof(junk), &o), 0);
	cr_assert_eq(o.found, 0);
	cr_assert_str_eq(o.why, "not an x86-64 ELF executable or shared object");
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(luabuild__detect_fd(p[0], &o), -EINVAL);	/* not a regular file */
	close(p[0]);
	close(p[1]);
	cr_assert_eq(luabuild__detect_fd(p[0], &o), -EBADF);
	p[0] = open(".", O_RDONLY | O_DIRECTORY);
	cr_assert_eq(luabuild__detect_fd(p[0], &o), -EINVAL);
	close(p[0]);
}

/* -- Refusals, from patched images of a real binary ----------------------- */

/*
** Read and detect one of this machine's binaries. In all four, the segments the
** tests patch (code, .rodata, .eh_frame) have vaddr == file offset; check it.
*/
static uint8_t *image(const char *path, size_t *len, struct luabuild *o)
{
	uint8_t *buf = slurp(path, len);

	if (!buf)
		cr_skip_test("%s missing", path);
	cr_assert_eq(luabuild__detect_mem(buf, *len, o), 0);
	cr_assert(o->supported, "%s", o->why);
	cr_assert_eq(buf[o->entry[0]], 0x55);	/* push rbp */
	cr_assert_eq(buf[o->bc_ofs_vaddr + 2], o->bc_ofs[1] & 0xff);
	return buf;
}

/* The VM FDE's program: def_cfa_offset 80, rbp/rbx/r15/r14 at cfa-16..-40. */
static const uint8_t vm_prog[] = { 0x0e, 0x50, 0x86, 0x02, 0x83, 0x03, 0x8f, 0x04, 0x8e, 0x05 };

/* Replace every n-byte pattern from in [lo, hi) with to: the count. */
static int patch(uint8_t *b, uint64_t lo, uint64_t hi, const void *from, const void *to, size_t n)
{
	int k = 0;

	for (uint64_t i = lo; i + n <= hi; i++) {
		if (!memcmp(b + i, from, n)) {
			memcpy(b + i, to, n);
			k++;
		}
	}
	return k;
}

/* Detect a patched image; returns the result. */
static struct luabuild redetect(const uint8_t *b, size_t len)
{
	struct luabuild o;

	cr_assert_eq(luabuild__detect_mem(b, len, &o), 0);
	check_sane(&o);
	return o;
}

Test(lua_detect, refuses_non_gc64)
{
	struct luabuild o, r;
	size_t len;
	uint8_t *b = image(UP_LUAJIT, &len, &o);

	/* Turn the glref loads and G2DISP adds into vm_x86.dasc's 32-bit forms. */
	cr_assert_eq(patch(b, o.vm_start, o.vm_end, "\x4c\x8b\x75\x10", "\x44\x8b\x75\x08", 4), 4);
	cr_assert_eq(patch(b, o.vm_start, o.vm_end, "\x49\x81\xc6", "\x41\x81\xc6", 3), 4);
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert_eq(r.gc64, 0);
	cr_assert_str_eq(r.why, "LuaJIT 2.1.0-beta3 non-GC64 build: not supported");
	free(b);
}

Test(lua_detect, refuses_2_0)
{
	struct luabuild o, r;
	size_t len;
	uint8_t *b = image(UP_LUAJIT, &len, &o);

	/* jit.version and lib_jit's init blob both carry LUAJIT_VERSION. */
	cr_assert_eq(patch(b, 0, len, "LuaJIT 2.1.0-beta3", "LuaJIT 2.0.5\0\0\0\0\0\0", 18), 2);
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert_str_eq(r.version, "LuaJIT 2.0.5");
	cr_assert_str_eq(r.why, "LuaJIT 2.0.5 build (no cur_L, non-GC64): not supported");
	/* Without the string, the missing cur_L store gives it away. */
	cr_assert_eq(patch(b, 0, len, "LuaJIT 2.0.5", "LuaJTT 2.0.5", 12), 2);
	cr_assert_gt(patch(b, o.entry[0], o.entry[3] + 128, "\x49\x89\xae", "\x49\x89\xaf", 3), 0);
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert_str_eq(r.version, "");
	cr_assert_str_eq(r.why, "no cur_L store in the VM entry code (LuaJIT 2.0?): not supported");
	free(b);
}

Test(lua_detect, refuses_disagreeing_entries)
{
	struct luabuild o, r;
	size_t len;
	uint8_t *b = image(OR_LIB, &len, &o);
	uint8_t *add = memmem(b + o.entry[3], 64, "\x49\x81\xc6", 3);

	cr_assert_not_null(add);
	add[3] ^= 8;	/* lj_vm_cpcall's G2DISP differs from the others' */
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert(strstr(r.why, "VM entry code ambiguous"), "%s", r.why);
	free(b);
}

Test(lua_detect, refuses_ambiguous_funcc)
{
	struct luabuild o, r;
	size_t len;
	uint8_t *b = image(OR_LUAJIT, &len, &o);

	/* A second vmstate=C store + call *%r15 elsewhere in the VM. */
	memcpy(b + o.vm_start + 16, b + o.vm_start + o.bc_funcc_ret - 14, 14);
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert_str_eq(r.why, "BC_FUNCC/FUNCCW handlers ambiguous");
	free(b);
}

Test(lua_detect, refuses_two_bc_ofs_tables)
{
	struct luabuild o, r;
	size_t len, n = 154 * 2;
	uint8_t *b = image(UP_LIB, &len, &o);
	uint8_t *z = b + 0x72100;	/* .rodata starts at 0x72000 */

	/* Copy lj_bc_ofs over some other even stretch of .rodata. */
	cr_assert_lt(0x72100 + n, o.bc_ofs_vaddr);
	memcpy(z, b + o.bc_ofs_vaddr, n);
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert_str_eq(r.why, "2 lj_bc_ofs[] candidates in read-only data: ambiguous");
	/* And none at all. */
	memset(z, 0xff, n);
	memset(b + o.bc_ofs_vaddr, 0xff, 4);
	r = redetect(b, len);
	cr_assert_str_eq(r.why, "lj_bc_ofs[] not found in read-only data");
	free(b);
}

Test(lua_detect, refuses_other_vm_frames)
{
	struct luabuild o, r;
	size_t len;
	uint8_t *b = image(UP_LUAJIT, &len, &o);
	uint8_t *p = memmem(b, len, vm_prog, sizeof(vm_prog));

	cr_assert_not_null(p);
	cr_assert_null(memmem(p + 1, len - (size_t)(p + 1 - b), vm_prog, sizeof(vm_prog)));
	p[1] = 0x60;	/* CFRAME_SIZE 96: LUAJIT_NO_UNWIND's frame (or Tarantool's) */
	r = redetect(b, len);
	cr_assert(r.found && !r.supported);
	cr_assert_eq(r.cframe_size, 96);
	cr_assert_str_eq(r.why, "VM frame of 96 bytes (LUAJIT_NO_UNWIND or Tarantool build): "
			 "not supported");
	p[5] = 0x04;	/* rbx at cfa-32: not the VM */
	r = redetect(b, len);
	cr_assert_eq(r.found, 0);
	free(b);
}

/* Without section headers: .eh_frame via PT_GNU_EH_FRAME, data via PT_LOADs. */
Test(lua_detect, no_section_headers)
{
	struct luabuild o, r;
	size_t len;
	uint8_t *b = image(UP_LIB, &len, &o);
	uint64_t zero = 0;

	memcpy(b + 0x28, &zero, 8);	/* e_shoff */
	memcpy(b + 0x3c, &zero, 4);	/* e_shnum, e_shstrndx */
	r = redetect(b, len);
	cr_assert(r.supported, "%s", r.why);
	cr_assert_str_eq(r.version, o.version);
	cr_assert_eq(r.vm_start, o.vm_start);
	cr_assert_eq(r.vm_end, o.vm_end);
	cr_assert_eq(r.ffi_call_end, o.ffi_call_end);
	cr_assert_eq(r.bc_ofs_vaddr, o.bc_ofs_vaddr);
	cr_assert_eq(r.g2disp, o.g2disp);
	cr_assert_eq(r.off_jit_trace, o.off_jit_trace);
	cr_assert_eq(r.sizeof_lua_State, o.sizeof_lua_State);
	free(b);
}

/* -- Pure pieces ---------------------------------------------------------- */

/* A synthetic lj_bc_ofs: 97 handlers of 40 bytes (two empty), then 57 ffs. */
static void fake_bc_ofs(uint8_t *p)
{
	uint16_t v[154];

	for (int i = 0; i < 97; i++)
		v[i] = (uint16_t)(40 * i - (i > 80 ? 40 : 0) - (i > 82 ? 40 : 0));
	for (int k = 0; k < 57; k++)
		v[97 + k] = (uint16_t)(5000 + 37 * ((k * 11) % 57));
	memcpy(p, v, sizeof(v));
}

Test(lua_detect, bcofs_find)
{
	uint8_t reg[1024 + 2 * 308];
	struct bcofs_want w = { .vm_len = 8000 };
	struct bcofs *out = calloc(1, sizeof(*out));

	cr_assert_not_null(out);
	memset(reg, 0x11, sizeof(reg));
	fake_bc_ofs(reg + 100);
	w.funcc_call = 40 * 95 - 80 + 10;	/* inside handler 95 */
	w.funcc_end = w.funcc_call + 3;
	w.funccw_call = 40 * 96 - 80 + 10;	/* inside handler 96 */
	w.funccw_end = w.funccw_call + 7;
	cr_assert_eq(bcofs__find(reg, sizeof(reg), 0x1000, &w, out), 1);
	cr_assert_eq(out->bc_max, 97);
	cr_assert_eq(out->vaddr, 0x1000 + 100);
	cr_assert_eq(out->ofs[97], 5000);
	/* Odd addresses are never the table; a second copy makes two. */
	memset(out, 0, sizeof(*out));
	cr_assert_eq(bcofs__find(reg, sizeof(reg), 0x1001, &w, out), 0);
	fake_bc_ofs(reg + 1024);
	cr_assert_eq(bcofs__find(reg, sizeof(reg), 0x1000, &w, out), 2);
	/* FUNCC where the table says FUNCCW: no match. */
	memset(out, 0, sizeof(*out));
	w.funcc_call = w.funccw_call;
	w.funcc_end = w.funccw_end;
	cr_assert_eq(bcofs__find(reg, sizeof(reg), 0x1000, &w, out), 0);
	/* A call that runs past its handler's end is in none (found by fuzzing:
	** FUNCC's return address after FUNCCW's start). */
	w.funcc_call = 40 * 96 - 80 - 2;
	w.funcc_end = w.funcc_call + 3;
	cr_assert_eq(bcofs__find(reg, sizeof(reg), 0x1000, &w, out), 0);
	w.funcc_call = 40 * 95 - 80 + 10;
	w.funcc_end = w.funcc_call + 3;
	w.funccw_call = 5000 - 4;	/* FUNCCW ends where the fast functions start */
	w.funccw_end = w.funccw_call + 7;
	cr_assert_eq(bcofs__find(reg, sizeof(reg), 0x1000, &w, out), 0);
	w.funccw_call = 40 * 96 - 80 + 10;
	w.funccw_end = w.funccw_call + 7;
	/* Cut short: no room for the fast functions. */
	cr_assert_eq(bcofs__find(reg + 100, 2 * 150, 0x1000, &w, out), 0);
	free(out);
}

Test(lua_detect, x64scan_entry_windows)
{
	/* Two entries in the GC64 shape; the second stores a different cur_L. */
	static const uint8_t e[] = {
		0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x48, 0x83, 0xec, 0x28,	/* prologue */
		0x4c, 0x8b, 0x75, 0x10,						/* glref */
		0x49, 0x81, 0xc6, 0x80, 0x0f, 0x00, 0x00,			/* add $3968 */
		0x49, 0x89, 0xae, 0xf0, 0xf1, 0xff, 0xff,			/* cur_L -0xe10 */
		0x41, 0xc7, 0x86, 0x38, 0xf1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	uint8_t code[2 * sizeof(e)];
	struct x64_entry en;

	memcpy(code, e, sizeof(e));
	memcpy(code + sizeof(e), e, sizeof(e));
	cr_assert_eq(x64scan__entry(code, sizeof(code), &en), 0);
	cr_assert_eq(en.n, 2);
	cr_assert_eq(en.gc64, 1);
	cr_assert_eq(en.g2disp, 3968);
	cr_assert_eq(en.d_cur_L, -0xe10);
	cr_assert_eq(en.d_vmstate, -0xec8);
	cr_assert_eq(en.ncur_L, 2);
	code[sizeof(e) + 24] = 0xf8;
	cr_assert_eq(x64scan__entry(code, sizeof(code), &en), -EBADMSG);
	/* Truncated inside the add: nothing read past the end. */
	cr_assert_eq(x64scan__entry(code, 18, &en), -ENOENT);
	cr_assert_eq(x64scan__entry(code, 0, &en), -ENOENT);
}

/* lj_vm_cpcall's call: found once, its return address just past it. */
Test(lua_detect, x64scan_cpcall)
{
	uint8_t code[64] = { 0 };
	static const uint8_t call[] = { 0xff, 0xd1, 0x48, 0x85, 0xc0, 0x0f, 0x84 };
	uint32_t ret = 0;

	cr_assert_eq(x64scan__cpcall(code, sizeof(code), &ret), -ENOENT);
	memcpy(code + 20, call, sizeof(call));
	cr_assert_eq(x64scan__cpcall(code, sizeof(code), &ret), 0);
	cr_assert_eq(ret, 22);
	cr_assert_eq(x64scan__cpcall(code, 24, &ret), -ENOENT);	/* cut inside it */
	memcpy(code + 40, call, sizeof(call));
	cr_assert_eq(x64scan__cpcall(code, sizeof(code), &ret), -EBADMSG);
}

/* vm_leave_cp and its epilogue, read from lj_vm_cpcall's test after its call. */
Test(lua_detect, x64scan_leave)
{
	static const uint8_t cp[] = {	/* test; jz -0x20 (to 8); mov; mov $5; jmp */
		0x48, 0x85, 0xc0, 0x0f, 0x84, 0xe0, 0xff, 0xff, 0xff,
		0x48, 0x89, 0xc1, 0xbb, 0x05, 0, 0, 0, 0xeb, 0x10
	};
	static const uint8_t leave[] = {	/* vm_leave_cp: restore, xor, restoreregs */
		0x48, 0x8b, 0x4c, 0x24, 0x20, 0x48, 0x89, 0x4d, 0x50, 0x31, 0xc0,
		0x48, 0x83, 0xc4, 0x28, 0x41, 0x5e, 0x41, 0x5f, 0x5b, 0x5d, 0xc3
	};
	static const uint8_t cfa[] = { 10, 0, 10, 0, 0, 0, 5, 0, 4, 0, 3, 2, 1 };
	uint8_t code[64] = { 0 };
	struct x64_leave lv;

	memcpy(code + 8, leave, sizeof(leave));
	memcpy(code + 31, cp, sizeof(cp));	/* jz ends at 40: 40 - 32 = 8 */
	cr_assert_eq(x64scan__leave(code, sizeof(code), 31, 80, &lv), 0);
	cr_assert_eq(lv.cp_len, sizeof(cp));
	cr_assert_eq(lv.leave, 8);
	cr_assert_eq(lv.unw, 17);
	cr_assert_eq(lv.len, sizeof(cfa));
	cr_assert_arr_eq(lv.cfa, cfa, sizeof(cfa));
	/* The pops must add up to the cframe, and the code must not be cut. */
	cr_assert_eq(x64scan__leave(code, sizeof(code), 31, 96, &lv), -ENOENT);
	cr_assert_eq(x64scan__leave(code, 29, 31, 80, &lv), -ENOENT);
	cr_assert_eq(x64scan__leave(code, sizeof(code), 30, 80, &lv), -ENOENT);
	code[8 + 6] = 0x8b;	/* a load before the xor, not the store of L->cframe */
	cr_assert_eq(x64scan__leave(code, sizeof(code), 31, 80, &lv), -ENOENT);
}

/* The interpreter's link stores: all of them, or none when there are too many. */
Test(lua_detect, x64scan_link_stores)
{
	static const uint8_t store[] = { 0x48, 0x89, 0x5a, 0xf8 };
	uint8_t code[64] = { 0 };
	uint32_t ofs[2], n;

	cr_assert_eq(x64scan__link_stores(code, sizeof(code), ofs, 2, &n), -ENOENT);
	memcpy(code + 5, store, sizeof(store));
	memcpy(code + 30, store, sizeof(store));
	cr_assert_eq(x64scan__link_stores(code, sizeof(code), ofs, 2, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(ofs[0], 5);
	cr_assert_eq(ofs[1], 30);
	cr_assert_eq(x64scan__link_stores(code, 33, ofs, 2, &n), 0);	/* the second cut */
	cr_assert_eq(n, 1);
	memcpy(code + 50, store, sizeof(store));
	cr_assert_eq(x64scan__link_stores(code, sizeof(code), ofs, 2, &n), -EBADMSG);
}

/* Each entry's link: the first store of L->cframe after its prologue. */
Test(lua_detect, x64scan_links)
{
	static const uint8_t pro[] = { 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x48, 0x83, 0xec, 0x28 };
	static const uint8_t link[] = { 0x48, 0x89, 0x65, 0x50 };	/* mov %rsp,0x50(%rbp) */
	uint8_t code[128] = { 0 };
	struct x64_entry en = { .n = 2, .ofs = { 0, 40 } };
	uint32_t at[X64_ENTRY_MAX];

	memcpy(code, pro, sizeof(pro));
	memcpy(code + 40, pro, sizeof(pro));
	memcpy(code + 70, link, sizeof(link));
	cr_assert_eq(x64scan__links(code, sizeof(code), &en, 0x50, at), 0);
	cr_assert_eq(at[0], 70);	/* the first entry runs on into the second */
	cr_assert_eq(at[1], 70);
	cr_assert_eq(x64scan__links(code, sizeof(code), &en, 0x58, at), -ENOENT);
	cr_assert_eq(x64scan__links(code, 72, &en, 0x50, at), -ENOENT);	/* cut */
}

/* -- Live calibration ----------------------------------------------------- */

/* What the calibration host printed ("key value" lines, see calib_host.c). */
struct calib {
	char lib[512];
	uint64_t disp[400];
	uint32_t ndisp;
	int64_t base, main_L, G, g_minus_L, idle_vmstate, bc_cfunc_int;
	int64_t main_glref, main_vmstate, main_cur_L, co_L, co_glref, co_vmstate, co_cur_L;
	int64_t ffi_vmstate, ffi_jit_base_in_stack, ffi_sizetrace, ffi_trace_gct, ffi_trace_no;
	int64_t ffi_ret_in_mcode, ffi_called;
};

/* Run the host with the derived offsets and parse its lines. */
static void calib_run(const char *host, const struct luabuild *o, struct calib *c)
{
	const struct { const char *key; int64_t *v; } keys[] = {
		{ "base", &c->base }, { "main_L", &c->main_L }, { "G", &c->G },
		{ "G_minus_L", &c->g_minus_L }, { "idle_vmstate", &c->idle_vmstate },
		{ "bc_cfunc_int", &c->bc_cfunc_int }, { "main_glref", &c->main_glref },
		{ "main_vmstate", &c->main_vmstate }, { "main_cur_L", &c->main_cur_L },
		{ "co_L", &c->co_L }, { "co_glref", &c->co_glref },
		{ "co_vmstate", &c->co_vmstate }, { "co_cur_L", &c->co_cur_L },
		{ "ffi_vmstate", &c->ffi_vmstate },
		{ "ffi_jit_base_in_stack", &c->ffi_jit_base_in_stack },
		{ "ffi_sizetrace", &c->ffi_sizetrace }, { "ffi_trace_gct", &c->ffi_trace_gct },
		{ "ffi_trace_no", &c->ffi_trace_no }, { "ffi_ret_in_mcode", &c->ffi_ret_in_mcode },
		{ "ffi_called", &c->ffi_called },
	};
	char cmd[1024], line[1024], key[64], val[512];
	FILE *p;

	memset(c, 0, sizeof(*c));
	c->ffi_trace_gct = c->ffi_trace_no = c->ffi_ret_in_mcode = -1;
	snprintf(cmd, sizeof(cmd), "%s %u %u %u %u %u %u %u", host, o->sizeof_lua_State,
		 o->g2disp, o->off_vmstate, o->off_cur_L, o->off_jit_base, o->off_jit_trace,
		 o->bc_max);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned idx;
		uint64_t v;

		if (sscanf(line, "disp %u %" SCNx64, &idx, &v) == 2) {
			cr_assert_lt(idx, 400);
			c->disp[idx] = v;
			c->ndisp = idx + 1;
		} else if (sscanf(line, "%63s %511s", key, val) == 2) {
			if (!strcmp(key, "lib"))
				snprintf(c->lib, sizeof(c->lib), "%s", val);
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				/* %p prints hex, (nil) for 0; vmstates are signed. */
				if (!strcmp(key, keys[i].key))
					*keys[i].v = val[0] == '-' ? strtoll(val, NULL, 0) :
						     (int64_t)strtoull(val, NULL, 0);
			}
		}
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
}

/* Check what the host saw against the offsets derived from the binary. */
static void calib_check(const struct luabuild *o, const struct calib *c, const char *want_lib)
{
	uint32_t nd = o->bc_max + 57, ns = o->bc_max - 8, bad = 0, same = 0;
	uint64_t lo = (uint64_t)c->base + o->vm_start, hi = (uint64_t)c->base + o->vm_end;
	char real_want[PATH_MAX], real_got[PATH_MAX];

	cr_assert_not_null(realpath(want_lib, real_want));
	cr_assert_not_null(realpath(c->lib, real_got), "%s", c->lib);
	cr_assert_str_eq(real_got, real_want, "the host loaded another LuaJIT");
	/* GG_State: G right after the main lua_State, glref at L+16. */
	cr_assert_eq(c->g_minus_L, (int64_t)o->sizeof_lua_State);
	cr_assert_eq(c->main_glref, c->G);
	cr_assert_eq(c->co_glref, c->G);
	/* vmstate: C inside lua_CFunctions; an interpreter/C state when idle. */
	cr_assert_eq(c->main_vmstate, -2);
	cr_assert_eq(c->co_vmstate, -2);
	cr_assert(c->idle_vmstate >= -7 && c->idle_vmstate <= -1, "%" PRId64, c->idle_vmstate);
	/* cur_L: the running thread, also inside a coroutine (not mainthref). */
	cr_assert_eq(c->main_cur_L, c->main_L);
	cr_assert_eq(c->co_cur_L, c->co_L);
	cr_assert_neq(c->co_L, c->main_L);
	/* bc_cfunc_int sits before cur_L in every known build: BC_FUNCC | 20 << 8. */
	cr_assert_eq(c->bc_cfunc_int, (int64_t)((o->bc_max - 2) | 20u << 8));
	/* DISPATCH = G + g2disp: handlers inside the VM, static part == lj_bc_ofs. */
	cr_assert_eq(c->ndisp, nd + ns);
	for (uint32_t i = 0; i < nd; i++)
		cr_assert(c->disp[i] >= lo && c->disp[i] < hi, "dispatch[%u] %#" PRIx64, i,
			  c->disp[i]);
	for (uint32_t i = 0; i < ns; i++)
		bad += c->disp[nd + i] != lo + o->bc_ofs[i];
	cr_assert_leq(bad, 4, "static dispatch differs in %u entries (FORL/ITERL/ITERN/LOOP)", bad);
	for (uint32_t i = 0; i < nd; i++)
		same += c->disp[i] == lo + o->bc_ofs[i];
	cr_assert_gt(same, nd / 2);	/* the rest: JIT counting variants, hooks */
	/* JIT: FFI call from a trace sees vmstate = trace number, jit_base, J->trace. */
	cr_assert_eq(c->ffi_called, 1);
	cr_assert_gt(c->ffi_vmstate, 0, "ffi call not from a trace (vmstate %" PRId64 ")",
		     c->ffi_vmstate);
	cr_assert_eq(c->ffi_jit_base_in_stack, 1);
	cr_assert_gt(c->ffi_sizetrace, c->ffi_vmstate);
	cr_assert_eq(c->ffi_trace_gct, 9);
	cr_assert_eq(c->ffi_trace_no, c->ffi_vmstate);
	cr_assert_eq(c->ffi_ret_in_mcode, 1);
}

/* Compile the host in a fresh directory: its path (malloc'd). */
static char *calib_build(const char *inc, const char *link)
{
	char *dir = strdup("/tmp/luatop-ljcal-XXXXXX"), *host;

	if (access(CALIB_SRC, R_OK) || sh("command -v gcc >/dev/null 2>&1"))
		cr_skip_test("gcc or " CALIB_SRC " missing");
	if (access(inc, R_OK))
		cr_skip_test("%s missing", inc);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_gt(asprintf(&host, "%s/host", dir), 0);
	cr_assert_eq(sh("gcc -O1 -g -rdynamic -I%s -o %s " CALIB_SRC " %s -ldl -lm", inc, host,
			link), 0, "gcc %s", link);
	free(dir);
	return host;
}

/* Remove the host and its directory. */
static void calib_clean(char *host)
{
	unlink(host);
	*strrchr(host, '/') = 0;
	rmdir(host);
	free(host);
}

/* Calibrate the offsets derived from lib_path with a host linked by link. */
static void calibrate(const char *inc, const char *link, const char *lib_path, int is_static)
{
	char *host = calib_build(inc, link);
	struct luabuild o;
	struct calib c;

	detect_path(is_static ? host : lib_path, &o);
	cr_assert(o.supported, "%s", o.why);
	if (is_static)
		cr_assert_eq(o.symbols, 1);	/* unstripped: cross-checked with .symtab */
	calib_run(host, &o, &c);
	calib_check(&o, &c, is_static ? host : lib_path);
	calib_clean(host);
}

Test(lua_detect, calibrate_openresty_so)
{
	if (access(OR_LIB, R_OK))
		cr_skip_test(OR_LIB " missing");
	calibrate(OR_INC, "-lluajit-5.1", OR_LIB, 0);
}

Test(lua_detect, calibrate_openresty_static)
{
	if (access(OR_A, R_OK))
		cr_skip_test(OR_A " missing");
	calibrate(OR_INC, OR_A, NULL, 1);
}

Test(lua_detect, calibrate_upstream_so)
{
	char link[2 * PATH_MAX + 64], dir[PATH_MAX];

	if (access(UP_LIB, R_OK) || !realpath(UP_LIBDIR, dir))
		cr_skip_test(UP_LIB " missing");
	snprintf(link, sizeof(link), "%s/libluajit-5.1.so.2 -Wl,-rpath,%s", dir, dir);
	calibrate(UP_INC, link, UP_LIB, 0);
}

Test(lua_detect, calibrate_upstream_static)
{
	if (access(UP_A, R_OK))
		cr_skip_test(UP_A " missing");
	calibrate(UP_INC, UP_A, NULL, 1);
}

/* -- Robustness ----------------------------------------------------------- */

/* xorshift64*: a fixed-seed generator for reproducible mutations. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

Test(lua_detect, truncated_copies)
{
	struct luabuild o, full;
	size_t len, cut;
	uint8_t *b = slurp(OR_LUAJIT, &len), *c;
	uint64_t s = 0x6c7561746f70ull;

	if (!b)
		cr_skip_test(OR_LUAJIT " missing");
	cr_assert_eq(luabuild__detect_mem(b, len, &full), 0);
	cr_assert(full.supported);
	for (int i = 0; i < 1200; i++) {
		if (i < 256)
			cut = (size_t)i;			/* inside the headers */
		else if (i < 700)
			cut = (size_t)(i - 256) * (len / 444);	/* everywhere */
		else
			cut = rnd(&s) % len;
		/* An exact-size copy: ASan sees any read past the end. */
		c = malloc(cut ? cut : 1);
		cr_assert_not_null(c);
		memcpy(c, b, cut);
		cr_assert_eq(luabuild__detect_mem(c, cut, &o), 0);
		check_sane(&o);
		if (o.supported)
			cr_assert_eq(o.vm_start, full.vm_start);
		if (i % 16 == 0) {	/* the fd path reads the same truncated file */
			struct luabuild f;
			int fd = memfd_create("lt-trunc", 0);

			cr_assert_geq(fd, 0);
			cr_assert_eq(write(fd, c, cut), (ssize_t)cut);
			cr_assert_eq(luabuild__detect_fd(fd, &f), 0);
			cr_assert_eq(memcmp(&f, &o, sizeof(f)), 0, "cut %zu", cut);
			close(fd);
		}
		free(c);
	}
	free(b);
}

/* Mutate b in place: a few random edits, mostly in the zones detection reads. */
static void mutate(uint8_t *b, size_t len, const uint64_t (*zones)[2], uint64_t *s)
{
	int n = 1 + (int)(rnd(s) % 8);

	for (int k = 0; k < n; k++) {
		uint64_t z = rnd(s) % 6, lo, hi, at;

		if (z == 5) {
			lo = 0;
			hi = len;
		} else {
			lo = zones[z][0];
			hi = zones[z][1] < len ? zones[z][1] : len;
		}
		if (hi <= lo + 8)
			continue;
		at = lo + rnd(s) % (hi - lo - 8);
		switch (rnd(s) % 5) {
		case 0: b[at] ^= (uint8_t)(1u << (rnd(s) % 8)); break;
		case 1: b[at] = (uint8_t)rnd(s); break;
		case 2: memset(b + at, rnd(s) & 1 ? 0xff : 0, 1 + rnd(s) % 8); break;
		case 3: { uint32_t v = (uint32_t)rnd(s); memcpy(b + at, &v, 4); break; }
		default: { uint64_t v = len - (rnd(s) % 64); memcpy(b + at, &v, 8); break; }
		}
	}
}

Test(lua_detect, random_mutations)
{
	struct luabuild o, full;
	size_t len;
	uint8_t *b = slurp(OR_LUAJIT, &len), *c;
	uint64_t s = 0x5eed1234abcdull, z[5][2];
	int supported = 0, found = 0;
	uint8_t *fde;

	if (!b)
		cr_skip_test(OR_LUAJIT " missing");
	cr_assert_eq(luabuild__detect_mem(b, len, &full), 0);
	cr_assert(full.supported);
	fde = memmem(b, len, vm_prog, sizeof(vm_prog));
	cr_assert_not_null(fde);
	{
		/* Where detection reads (vaddr == file offset in this binary). */
		uint64_t f = (uint64_t)(fde - b), zones[5][2] = {
			{ 0, 4096 },				/* ELF and program headers */
			{ len - 4096, len },			/* section headers */
			{ full.vm_start, full.vm_end },		/* VM code */
			{ full.bc_ofs_vaddr - 64, full.bc_ofs_vaddr + 2 * full.n_bc_ofs },
			{ f > 2048 ? f - 2048 : 0, f + 2048 },	/* .eh_frame, VM FDE */
		};

		memcpy(z, zones, sizeof(z));
	}
	c = malloc(len);
	cr_assert_not_null(c);
	for (int i = 0; i < 3000; i++) {
		memcpy(c, b, len);
		mutate(c, len, (const uint64_t (*)[2])z, &s);
		cr_assert_eq(luabuild__detect_mem(c, len, &o), 0);
		check_sane(&o);
		found += o.found;
		supported += o.supported;
	}
	cr_assert_gt(found, 0);
	cr_assert_gt(supported, 0);
	free(c);
	free(b);
}
