/*
** Unit tests of symbolize/ against binaries built at test time with gcc, strip and
** objcopy: .symtab, separate debug files (debuglink, build-id), compressed
** sections, PIE and non-PIE executables, a dlopen()ed library; perf maps and C++
** demangling. Fixtures live in a fresh temporary directory per test.
*/
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "symbolize/demangle.h"
#include "symbolize/elfsyms.h"
#include "symbolize/perfmap.h"
#include "symbolize/symbolizer.h"

/* A program with a static function (in no .dynsym) and a C++-mangled one. */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) static int fix_hidden(int x)\n"
	"{\n"
	"	__asm__ volatile(\"\" : \"+r\"(x));\n"
	"	return x * 7 + VARIANT;\n"
	"}\n"
	"int fix_mangled(int x) __asm__(\"_ZN3foo3barEv\");\n"
	"__attribute__((noinline)) int fix_mangled(int x)\n"
	"{\n"
	"	__asm__ volatile(\"\" : \"+r\"(x));\n"
	"	return x + 5;\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"	char c = 0;\n"
	"	printf(\"%lx %lx\\n\", (unsigned long)&fix_hidden, (unsigned long)&fix_mangled);\n"
	"	fflush(stdout);\n"
	"	while (read(0, &c, 1) > 0)\n"
	"		;\n"
	"	return fix_hidden(c) + fix_mangled(c) == 12345;\n"
	"}\n";

/* A library with an exported function and a static one. */
static const char lib_src[] =
	"__attribute__((noinline)) static int lib_hidden(int x)\n"
	"{\n"
	"	__asm__ volatile(\"\" : \"+r\"(x));\n"
	"	return x * 3;\n"
	"}\n"
	"int lib_api(int x)\n"
	"{\n"
	"	return lib_hidden(x) + 1;\n"
	"}\n"
	"void *lib_hidden_addr(void)\n"
	"{\n"
	"	return (void *)&lib_hidden;\n"
	"}\n";

/* -- Helpers -------------------------------------------------------------- */

/* The per-test fixture directory and its debug root. */
struct fx {
	char dir[64];
	char root[96];
};

/* Run a shell command built from fmt; it must succeed. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < sizeof(cmd));
	rc = system(cmd);
	cr_assert(rc != -1 && WIFEXITED(rc) && !WEXITSTATUS(rc), "failed: %s", cmd);
}

/* Write a string to a file. */
static void put_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* Create the fixture directory with the sources and dir/bin, dir/droot. */
static void fx_init(struct fx *f)
{
	char path[160];

	strcpy(f->dir, "/tmp/luatop-symdbg-XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	snprintf(f->root, sizeof(f->root), "%s/droot", f->dir);
	sh("mkdir -p %s/bin %s", f->dir, f->root);
	snprintf(path, sizeof(path), "%s/prog.c", f->dir);
	put_file(path, prog_src, sizeof(prog_src) - 1);
	snprintf(path, sizeof(path), "%s/lib.c", f->dir);
	put_file(path, lib_src, sizeof(lib_src) - 1);
}

/* Remove the fixture directory. */
static void fx_fini(struct fx *f)
{
	sh("rm -rf %s", f->dir);
}

/* A symbolizer that looks for debug files under the fixture's debug root. */
static struct symbolizer *fx_symbolizer(const struct fx *f)
{
	struct symbolizer *s = symbolizer__new(NULL);

	cr_assert_not_null(s);
	cr_assert_eq(symbolizer__set_debug_root(s, f->root), 0);
	return s;
}

/* A running fixture program and the addresses it printed. */
struct child {
	int pid, in;
	uint64_t hidden, mangled;
};

/* Start exe and read the addresses of its two functions. */
static void child_start(struct child *c, const char *exe)
{
	int in[2], out[2];
	unsigned long h, m;
	FILE *f;

	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%lx %lx", &h, &m), 2, "no addresses from %s", exe);
	fclose(f);
	c->in = in[1];
	c->hidden = h;
	c->mangled = m;
}

/* Let the program exit (EOF on its stdin) and reap it. */
static void child_stop(struct child *c)
{
	close(c->in);
	cr_assert_eq(waitpid(c->pid, NULL, 0), c->pid);
}

/* addr + 1 in pid must resolve to name at offset 1, in module. */
static void expect_sym(struct symbolizer *s, int pid, uint64_t addr, const char *name,
		       const char *module)
{
	struct symbol sym;
	int rc = symbolizer__user(s, pid, addr + 1, &sym);

	cr_assert_eq(rc, 0, "want %s, got rc %d name %s", name, rc, sym.name);
	cr_assert_str_eq(sym.name, name);
	cr_assert_eq(sym.offset, 1);
	if (module)
		cr_assert_str_eq(sym.module, module);
}

/* addr + 1 in pid must be known by its module only ("module+0x..."). */
static void expect_module_only(struct symbolizer *s, int pid, uint64_t addr, const char *module)
{
	struct symbol sym;
	int rc = symbolizer__user(s, pid, addr + 1, &sym);
	size_t ml = strlen(module);

	cr_assert_eq(rc, 1, "want %s+0x.., got rc %d name %s", module, rc, sym.name);
	cr_assert_str_eq(sym.module, module);
	cr_assert(!strncmp(sym.name, module, ml) && !strncmp(sym.name + ml, "+0x", 3),
		  "name %s", sym.name);
}

/* Run the program at exe and check both functions resolve (or not: bare). */
static void check_prog(const struct fx *f, const char *exe, int resolved)
{
	const char *base = strrchr(exe, '/') + 1;
	struct symbolizer *s = fx_symbolizer(f);
	struct child c;

	child_start(&c, exe);
	if (resolved) {
		expect_sym(s, c.pid, c.hidden, "fix_hidden", base);
		expect_sym(s, c.pid, c.mangled, "foo::bar()", base);
	} else {
		expect_module_only(s, c.pid, c.hidden, base);
	}
	child_stop(&c);
	symbolizer__delete(s);
}

/* The build-id of an ELF file as lowercase hex. */
static void build_id_hex(const char *path, char *hex, size_t len)
{
	struct elfsyms *es = elfsyms__load_path(path);
	const uint8_t *id;
	size_t n = 0;

	cr_assert_not_null(es, "%s", path);
	id = elfsyms__build_id(es, &n);
	cr_assert_not_null(id, "%s has no build-id", path);
	cr_assert(2 * n < len);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	elfsyms__delete(es);
}

/* Install debug as the build-id debug file of exe under the fixture's root. */
static void install_build_id(const struct fx *f, const char *exe, const char *debug)
{
	char hex[2 * ELFSYMS_BUILD_ID_MAX + 1];

	build_id_hex(exe, hex, sizeof(hex));
	sh("mkdir -p %s/.build-id/%.2s && cp %s %s/.build-id/%.2s/%s.debug", f->root, hex, debug,
	   f->root, hex, hex + 2);
}

/* Compress the named sections of an ELF file with libelf (zlib); 0 if none found. */
static int compress_scns(const char *path, const char *a, const char *b)
{
	int fd = open(path, O_RDWR), done = 0;
	Elf_Scn *scn = NULL;
	size_t shstr;
	Elf *e;

	cr_assert_geq(fd, 0);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_RDWR, NULL);
	cr_assert_not_null(e);
	cr_assert_eq(elf_getshdrstrndx(e, &shstr), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		cr_assert_not_null(gelf_getshdr(scn, &sh));
		n = elf_strptr(e, shstr, sh.sh_name);
		if (n && (!strcmp(n, a) || !strcmp(n, b))) {
			cr_assert_eq(elf_compress(scn, ELFCOMPRESS_ZLIB, ELF_CHF_FORCE), 1,
				     "%s: %s", n, elf_errmsg(-1));
			done++;
		}
	}
	cr_assert_geq(elf_update(e, ELF_C_WRITE), 0, "%s", elf_errmsg(-1));
	elf_end(e);
	close(fd);
	return done;
}

/* File offset of a section and whether it is SHF_COMPRESSED; -1 if absent. */
static int64_t scn_offset(const char *path, const char *name, int *compressed)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	int64_t off = -1;
	size_t shstr;
	Elf *e;

	cr_assert_geq(fd, 0);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_eq(elf_getshdrstrndx(e, &shstr), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		cr_assert_not_null(gelf_getshdr(scn, &sh));
		n = elf_strptr(e, shstr, sh.sh_name);
		if (n && !strcmp(n, name)) {
			off = (int64_t)sh.sh_offset;
			*compressed = !!(sh.sh_flags & SHF_COMPRESSED);
		}
	}
	elf_end(e);
	close(fd);
	return off;
}

/* -- Executables with .symtab ----------------------------------------------- */

Test(symbolize, debug_symtab_pie)
{
	struct symbolizer *s;
	struct child c;
	struct symbol sym;
	struct fx f;
	char exe[128];

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/pie", f.dir);
	sh("gcc -O1 -g -pie -fPIE -DVARIANT=0 -o %s %s/prog.c", exe, f.dir);
	check_prog(&f, exe, 1);

	/* Demangling off: the mangled name as it is in .symtab. */
	s = fx_symbolizer(&f);
	symbolizer__set_demangle(s, 0);
	child_start(&c, exe);
	cr_assert_eq(symbolizer__user(s, c.pid, c.mangled, &sym), 0);
	cr_assert_str_eq(sym.name, "_ZN3foo3barEv");
	symbolizer__set_demangle(s, 1);
	cr_assert_eq(symbolizer__user(s, c.pid, c.mangled, &sym), 0);
	cr_assert_str_eq(sym.name, "foo::bar()");
	child_stop(&c);
	symbolizer__delete(s);
	fx_fini(&f);
}

Test(symbolize, debug_symtab_nopie)
{
	struct fx f;
	char exe[128];

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/nopie", f.dir);
	sh("gcc -O1 -g -no-pie -fno-PIE -DVARIANT=0 -o %s %s/prog.c", exe, f.dir);
	check_prog(&f, exe, 1);
	fx_fini(&f);
}

/* -- .gnu_debuglink ----------------------------------------------------------- */

Test(symbolize, debug_debuglink_locations)
{
	struct fx f;
	char exe[128];

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/dl", f.dir);
	sh("cd %s && gcc -O1 -g -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full dl.debug && strip -o %s full && "
	   "objcopy --add-gnu-debuglink=dl.debug %s", f.dir, exe, exe);
	check_prog(&f, exe, 0);				/* no debug file anywhere yet */
	sh("cp %s/dl.debug %s/bin/", f.dir, f.dir);	/* the binary's directory */
	check_prog(&f, exe, 1);
	sh("mkdir %s/bin/.debug && mv %s/bin/dl.debug %s/bin/.debug/", f.dir, f.dir, f.dir);
	check_prog(&f, exe, 1);				/* its .debug/ subdirectory */
	sh("mkdir -p %s%s/bin && mv %s/bin/.debug/dl.debug %s%s/bin/", f.root, f.dir, f.dir,
	   f.root, f.dir);
	check_prog(&f, exe, 1);				/* ROOT/<dir>/ */
	sh("mv %s%s/bin/dl.debug %s/", f.root, f.dir, f.root);
	check_prog(&f, exe, 1);				/* ROOT/ */
	fx_fini(&f);
}

Test(symbolize, debug_debuglink_bad_crc)
{
	struct fx f;
	char exe[128];

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/dl", f.dir);
	sh("cd %s && gcc -O1 -g -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full dl.debug && strip -o %s full && "
	   "objcopy --add-gnu-debuglink=dl.debug %s", f.dir, exe, exe);
	/* Still a valid ELF with the right symbols, but not the file the link names. */
	sh("cp %s/dl.debug %s/bin/ && printf x >> %s/bin/dl.debug", f.dir, f.dir, f.dir);
	check_prog(&f, exe, 0);
	/* A debug file of another build with the same name and a forged CRC: still no. */
	sh("cd %s && gcc -O1 -g -DVARIANT=1 -o other prog.c && "
	   "objcopy --only-keep-debug other bin/dl.debug", f.dir);
	check_prog(&f, exe, 0);
	fx_fini(&f);
}

/* -- Build-id ----------------------------------------------------------------- */

Test(symbolize, debug_build_id)
{
	char exe[128], dbg[128], bad[128];
	struct fx f;

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/bid", f.dir);
	snprintf(dbg, sizeof(dbg), "%s/bid.debug", f.dir);
	snprintf(bad, sizeof(bad), "%s/bad.debug", f.dir);
	sh("cd %s && gcc -O1 -g -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full bid.debug && strip -o %s full", f.dir, exe);
	check_prog(&f, exe, 0);

	/* Malformed files at the build-id path: no extra symbols, no crash. */
	put_file(bad, "\x7f" "ELF\2\1\1 garbage", 16);
	install_build_id(&f, exe, bad);
	check_prog(&f, exe, 0);
	sh("head -c 3000 %s > %s", dbg, bad);
	install_build_id(&f, exe, bad);
	check_prog(&f, exe, 0);
	/* Another build's debug file at this build-id's path: build-ids differ. */
	sh("cd %s && gcc -O1 -g -DVARIANT=1 -o other prog.c && "
	   "objcopy --only-keep-debug other bad.debug", f.dir);
	install_build_id(&f, exe, bad);
	check_prog(&f, exe, 0);

	install_build_id(&f, exe, dbg);
	check_prog(&f, exe, 1);
	fx_fini(&f);
}

Test(symbolize, debug_root_env)
{
	char exe[128], dbg[128];
	struct symbolizer *s;
	struct child c;
	struct fx f;

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/bid", f.dir);
	snprintf(dbg, sizeof(dbg), "%s/bid.debug", f.dir);
	sh("cd %s && gcc -O1 -g -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full bid.debug && strip -o %s full", f.dir, exe);
	install_build_id(&f, exe, dbg);
	cr_assert_eq(setenv("LUATOP_DEBUG_ROOT", f.root, 1), 0);
	s = symbolizer__new(NULL);
	unsetenv("LUATOP_DEBUG_ROOT");
	cr_assert_not_null(s);
	cr_assert_eq(symbolizer__set_debug_root(s, "relative/dir"), -EINVAL);
	child_start(&c, exe);
	expect_sym(s, c.pid, c.hidden, "fix_hidden", "bid");
	child_stop(&c);
	symbolizer__delete(s);
	fx_fini(&f);
}

/* -- Compressed sections ------------------------------------------------------ */

Test(symbolize, debug_compressed)
{
	char exe[128], dbg[128], path[160];
	int comp = 0;
	int64_t off;
	struct fx f;

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/gz", f.dir);
	snprintf(dbg, sizeof(dbg), "%s/gz.debug", f.dir);

	/* gcc -gz: .debug_* compressed, .symtab not (checked, as the test depends on it). */
	sh("cd %s && gcc -O1 -g -gz -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full gz.debug && strip -o %s full && "
	   "objcopy --add-gnu-debuglink=gz.debug %s && cp gz.debug bin/", f.dir, exe, exe);
	snprintf(path, sizeof(path), "%s/bin/gz.debug", f.dir);
	cr_assert_geq(scn_offset(path, ".debug_info", &comp), 0);
	cr_assert(comp, "gcc -gz left .debug_info uncompressed");
	cr_assert_geq(scn_offset(path, ".symtab", &comp), 0);
	cr_assert(!comp);
	check_prog(&f, exe, 1);

	/* objcopy --compress-debug-sections on a plain debug file. */
	sh("cd %s && rm bin/gz.debug && gcc -O1 -g -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full gz.debug && "
	   "objcopy --compress-debug-sections=zlib gz.debug && strip -o %s full", f.dir, exe);
	cr_assert_geq(scn_offset(dbg, ".debug_info", &comp), 0);
	cr_assert(comp);
	install_build_id(&f, exe, dbg);
	check_prog(&f, exe, 1);

	/* Compressed .symtab and .strtab (nothing makes these, but the format allows it). */
	cr_assert_eq(compress_scns(dbg, ".symtab", ".strtab"), 2);
	cr_assert_geq(scn_offset(dbg, ".symtab", &comp), 0);
	cr_assert(comp);
	install_build_id(&f, exe, dbg);
	check_prog(&f, exe, 1);

	/* The same claiming ZSTD: unsupported, so the table counts as absent. */
	off = scn_offset(dbg, ".symtab", &comp);
	{
		uint32_t zstd = 2;	/* ELFCOMPRESS_ZSTD, newer than this elf.h */
		int fd = open(dbg, O_WRONLY);

		cr_assert_geq(fd, 0);
		cr_assert_eq(pwrite(fd, &zstd, sizeof(zstd), off), (ssize_t)sizeof(zstd));
		close(fd);
	}
	install_build_id(&f, exe, dbg);
	check_prog(&f, exe, 0);
	fx_fini(&f);
}

/* -- A shared library at a random base ------------------------------------------ */

Test(symbolize, debug_shared_library)
{
	char lib[128], slib[128], dbg[128];
	void *h, *hs, *hc, *(*hidden_addr)(void);
	struct symbolizer *s;
	uint64_t api, hid;
	struct fx f;

	fx_init(&f);
	snprintf(lib, sizeof(lib), "%s/bin/libfix.so", f.dir);
	snprintf(slib, sizeof(slib), "%s/bin/libfixs.so", f.dir);
	snprintf(dbg, sizeof(dbg), "%s/libfix.debug", f.dir);
	sh("cd %s && gcc -O1 -g -shared -fPIC -o %s lib.c && "
	   "objcopy --only-keep-debug %s libfix.debug && strip -o %s %s",
	   f.dir, lib, lib, slib, lib);

	/* With .symtab. */
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(h, "%s", dlerror());
	api = (uint64_t)(uintptr_t)dlsym(h, "lib_api");
	*(void **)&hidden_addr = dlsym(h, "lib_hidden_addr");
	cr_assert(api && hidden_addr);
	hid = (uint64_t)(uintptr_t)hidden_addr();
	s = fx_symbolizer(&f);
	expect_sym(s, getpid(), api, "lib_api", "libfix.so");
	expect_sym(s, getpid(), hid, "lib_hidden", "libfix.so");
	symbolizer__delete(s);

	/* Stripped: exports from .dynsym, the static one only with the debug file. */
	hs = dlopen(slib, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(hs, "%s", dlerror());
	api = (uint64_t)(uintptr_t)dlsym(hs, "lib_api");
	*(void **)&hidden_addr = dlsym(hs, "lib_hidden_addr");
	cr_assert(api && hidden_addr);
	hid = (uint64_t)(uintptr_t)hidden_addr();
	s = fx_symbolizer(&f);
	expect_sym(s, getpid(), api, "lib_api", "libfixs.so");
	expect_module_only(s, getpid(), hid, "libfixs.so");
	symbolizer__delete(s);
	install_build_id(&f, slib, dbg);
	s = fx_symbolizer(&f);
	expect_sym(s, getpid(), api, "lib_api", "libfixs.so");
	expect_sym(s, getpid(), hid, "lib_hidden", "libfixs.so");

	/* A copy (another inode, same build-id) shares the table: no debug file needed. */
	sh("cp %s %s/bin/libfixc.so && rm -r %s/.build-id", slib, f.dir, f.root);
	snprintf(lib, sizeof(lib), "%s/bin/libfixc.so", f.dir);
	hc = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(hc, "%s", dlerror());
	*(void **)&hidden_addr = dlsym(hc, "lib_hidden_addr");
	cr_assert_not_null(hidden_addr);
	usleep(110 * 1000);	/* let the symbolizer re-read maps */
	expect_sym(s, getpid(), (uint64_t)(uintptr_t)hidden_addr(), "lib_hidden", "libfixc.so");
	symbolizer__delete(s);
	s = fx_symbolizer(&f);	/* a fresh one has nothing to share: not resolved */
	expect_module_only(s, getpid(), (uint64_t)(uintptr_t)hidden_addr(), "libfixc.so");
	symbolizer__delete(s);
	dlclose(hc);
	dlclose(hs);
	dlclose(h);
	fx_fini(&f);
}

/* -- elfsyms: merge and a real distribution debug file ------------------------ */

Test(symbolize, debug_merge_api)
{
	char exe[128], dbg[128];
	struct elfsyms *rt, *d;
	uint32_t crc = 0;
	size_t n0, n1;
	struct fx f;

	fx_init(&f);
	snprintf(exe, sizeof(exe), "%s/bin/m", f.dir);
	snprintf(dbg, sizeof(dbg), "%s/m.debug", f.dir);
	sh("cd %s && gcc -O1 -g -DVARIANT=0 -o full prog.c && "
	   "objcopy --only-keep-debug full m.debug && strip -o %s full && "
	   "objcopy --add-gnu-debuglink=m.debug %s", f.dir, exe, exe);
	rt = elfsyms__load_path(exe);
	d = elfsyms__load_path(dbg);
	cr_assert(rt && d);
	cr_assert_not(elfsyms__has_symtab(rt));
	cr_assert(elfsyms__has_symtab(d));
	cr_assert_str_eq(elfsyms__debuglink(rt, &crc), "m.debug");
	cr_assert_neq(crc, 0);
	cr_assert_not_null(elfsyms__build_id(rt, NULL));
	n0 = elfsyms__count(rt);
	cr_assert_eq(elfsyms__merge(rt, d), 0);
	n1 = elfsyms__count(rt);
	cr_assert_gt(n1, n0);
	cr_assert(elfsyms__has_symtab(rt));
	cr_assert_eq(elfsyms__merge(rt, rt), -EINVAL);
	cr_assert_eq(elfsyms__merge(NULL, d), -EINVAL);
	cr_assert_eq(elfsyms__merge(rt, d), 0);		/* twice: duplicates fold */
	cr_assert_eq(elfsyms__count(rt), n1);
	elfsyms__delete(d);
	elfsyms__delete(rt);
	fx_fini(&f);
}

Test(symbolize, debug_libc_dbgsym)
{
	static const char libc[] = "/lib/x86_64-linux-gnu/libc.so.6";
	char path[256], hex[2 * ELFSYMS_BUILD_ID_MAX + 1];
	struct elfsyms *rt, *d;
	size_t n0;

	build_id_hex(libc, hex, sizeof(hex));
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (access(path, R_OK))
		cr_skip_test("no libc6-dbg (%s)", path);
	rt = elfsyms__load_path(libc);
	d = elfsyms__load_path(path);
	cr_assert(rt && d);
	n0 = elfsyms__count(rt);
	cr_assert_eq(elfsyms__merge(rt, d), 0);
	cr_assert_gt(elfsyms__count(rt), n0 + 500, "%zu -> %zu", n0, elfsyms__count(rt));
	elfsyms__delete(d);
	elfsyms__delete(rt);
}

/* -- Perf maps ---------------------------------------------------------------- */

static const char perfmap_fixture[] =
	"1000 100 first\n"
	"0x1080 0x40 second override\n"
	"2000 10 a\r\n"
	"zzzz 10 bad\n"
	"3000 0 zero size\n"
	"3000 10\n"
	"3000 10   \n"
	"ffffffffffffffff 2 wraps\n"
	"12345678901234567 10 too many digits\n"
	"  4000\t20\tspaced name  \n"
	"1000 10 late\n"
	"5000 10 no newline";

Test(symbolize, perfmap_parse)
{
	struct perfmap *pm = perfmap__parse(perfmap_fixture, sizeof(perfmap_fixture) - 1);
	uint64_t off = 99;

	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__count(pm), 7);
	cr_assert_null(perfmap__lookup(pm, 0xfff, NULL));
	cr_assert_str_eq(perfmap__lookup(pm, 0x1000, &off), "late");
	cr_assert_eq(off, 0);
	cr_assert_str_eq(perfmap__lookup(pm, 0x100f, NULL), "late");
	cr_assert_str_eq(perfmap__lookup(pm, 0x1010, &off), "first");
	cr_assert_eq(off, 0x10);	/* offsets are from the entry's own start */
	cr_assert_str_eq(perfmap__lookup(pm, 0x1080, &off), "second override");
	cr_assert_eq(off, 0);
	cr_assert_str_eq(perfmap__lookup(pm, 0x10c0, &off), "first");
	cr_assert_eq(off, 0xc0);
	cr_assert_str_eq(perfmap__lookup(pm, 0x10ff, NULL), "first");
	cr_assert_null(perfmap__lookup(pm, 0x1100, NULL));
	cr_assert_str_eq(perfmap__lookup(pm, 0x200f, NULL), "a");
	cr_assert_null(perfmap__lookup(pm, 0x3000, NULL));
	cr_assert_str_eq(perfmap__lookup(pm, 0x4005, NULL), "spaced name  ");
	cr_assert_str_eq(perfmap__lookup(pm, 0x5000, NULL), "no newline");
	cr_assert_null(perfmap__lookup(pm, UINT64_MAX, NULL));
	perfmap__delete(pm);

	pm = perfmap__parse("", 0);
	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__count(pm), 0);
	cr_assert_null(perfmap__lookup(pm, 0x1000, NULL));
	perfmap__delete(pm);
	cr_assert_null(perfmap__parse(NULL, 1));
	cr_assert_null(perfmap__lookup(NULL, 1, NULL));
	perfmap__delete(NULL);
}

Test(symbolize, perfmap_read_long_lines)
{
	char path[] = "/tmp/luatop-perfmap-XXXXXX";
	size_t big = 3 * 65536 + 17;
	char *line = malloc(big);
	struct perfmap *pm;
	int fd = mkstemp(path);

	cr_assert(line && fd >= 0);
	memset(line, 'x', big);
	memcpy(line, "7000 10 ", 8);
	cr_assert_eq(write(fd, "6000 10 before\n", 15), 15);
	cr_assert_eq(write(fd, line, big), (ssize_t)big);		/* over PERFMAP_LINE_MAX */
	cr_assert_eq(write(fd, "\n8000 10 after\n", 15), 15);
	memset(line, 'y', PERFMAP_LINE_MAX);
	memcpy(line, "9000 10 ", 8);
	cr_assert_eq(write(fd, line, PERFMAP_LINE_MAX), PERFMAP_LINE_MAX);	/* just fits */
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	pm = perfmap__read_fd(fd);
	cr_assert_not_null(pm);
	cr_assert_str_eq(perfmap__lookup(pm, 0x6000, NULL), "before");
	cr_assert_null(perfmap__lookup(pm, 0x7000, NULL));
	cr_assert_str_eq(perfmap__lookup(pm, 0x8000, NULL), "after");
	cr_assert_eq(strlen(perfmap__lookup(pm, 0x9000, NULL)), PERFMAP_LINE_MAX - 8);
	perfmap__delete(pm);
	close(fd);
	unlink(path);
	free(line);
}

Test(symbolize, perfmap_fuzz)
{
	char buf[sizeof(perfmap_fixture)];
	uint64_t seed = 99;

	for (int it = 0; it < 5000; it++) {
		struct perfmap *pm;
		size_t len;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		len = seed % sizeof(buf);
		memcpy(buf, perfmap_fixture, sizeof(buf));
		for (int f = 0; f < 6; f++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			buf[seed % sizeof(buf)] = "0f1 x\n\t"[(seed >> 32) % 7];
		}
		pm = perfmap__parse(buf, len);
		cr_assert_not_null(pm);
		for (uint64_t a = 0xff0; a < 0x1120; a += 7) {
			const char *n = perfmap__lookup(pm, a, NULL);

			cr_assert(!n || strlen(n) <= PERFMAP_LINE_MAX);
		}
		perfmap__delete(pm);
	}
}

Test(symbolize, perfmap_symbolizer)
{
	struct symbolizer *s = symbolizer__new(NULL);
	char path[64], text[256];
	struct symbol sym;
	uint64_t base;
	void *p = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int n;

	cr_assert_neq(p, MAP_FAILED);
	base = (uint64_t)(uintptr_t)p;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());	/* NSpid, as seen here */
	n = snprintf(text, sizeof(text), "%llx 100 TRACE_1::a.lua:10\n%llx 80 _ZN3foo3barEv\n",
		     (unsigned long long)base, (unsigned long long)base + 0x100);
	put_file(path, text, (size_t)n);

	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x10, &sym), 0);
	cr_assert_str_eq(sym.name, "TRACE_1::a.lua:10");
	cr_assert_str_eq(sym.module, "[jit]");
	cr_assert_eq(sym.offset, 0x10);
	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x17f, &sym), 0);
	cr_assert_str_eq(sym.name, "foo::bar()");
	cr_assert_eq(sym.offset, 0x7f);
	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x180, &sym), -ENOENT);
	cr_assert_str_eq(sym.name, "[unknown]");

	/* A later line overrides part of an earlier one; the file is re-read. */
	n += snprintf(text + n, sizeof(text) - (size_t)n, "%llx 40 TRACE_2::b.lua:5\n",
		      (unsigned long long)base);
	put_file(path, text, (size_t)n);
	usleep(120 * 1000);
	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x10, &sym), 0);
	cr_assert_str_eq(sym.name, "TRACE_2::b.lua:5");
	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x50, &sym), 0);
	cr_assert_str_eq(sym.name, "TRACE_1::a.lua:10");
	cr_assert_eq(sym.offset, 0x50);

	/* The file vanishes: what was read stays (samples taken before need it). */
	unlink(path);
	usleep(120 * 1000);
	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x10, &sym), 0);
	cr_assert_str_eq(sym.name, "TRACE_2::b.lua:5");
	munmap(p, 8192);
	symbolizer__delete(s);
}

/* A perf map anyone could have written is not believed (as perf): writable by
** group or others, or (when we can chown) owned by another user than the
** process's and root. */
static void untrusted_map(void (*spoil)(const char *path))
{
	struct symbolizer *s = symbolizer__new(NULL);
	char path[64], text[128];
	struct symbol sym;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t base = (uint64_t)(uintptr_t)p;
	int n;

	cr_assert_neq(p, MAP_FAILED);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	n = snprintf(text, sizeof(text), "%llx 100 injected_name\n", (unsigned long long)base);
	put_file(path, text, (size_t)n);
	spoil(path);
	cr_assert_eq(symbolizer__user(s, getpid(), base + 0x10, &sym), -ENOENT);
	cr_assert_str_neq(sym.name, "injected_name");
	unlink(path);
	munmap(p, 4096);
	symbolizer__delete(s);
}

static void world_writable(const char *path)
{
	cr_assert_eq(chmod(path, 0666), 0);
}

static void group_writable(const char *path)
{
	cr_assert_eq(chmod(path, 0664), 0);
}

static void other_owner(const char *path)
{
	if (chown(path, 65534, 65534))
		cr_skip_test("cannot chown (not root): %s", strerror(errno));
}

Test(symbolize, perfmap_world_writable_ignored) { untrusted_map(world_writable); }
Test(symbolize, perfmap_group_writable_ignored) { untrusted_map(group_writable); }
Test(symbolize, perfmap_other_owner_ignored) { untrusted_map(other_owner); }

/* -- Demangling ----------------------------------------------------------------- */

Test(symbolize, demangle_cxx)
{
	struct demangler *d = demangler__new();
	char longname[DEMANGLE_IN_MAX + 8];
	char *r;

	cr_assert_not_null(d, "libstdc++.so.6: %s", strerror(errno));
	r = demangler__demangle(d, "_ZN3foo3barEv");
	cr_assert_str_eq(r, "foo::bar()");
	free(r);
	r = demangler__demangle(d, "_ZN3foo3barEv.cold");
	cr_assert_str_eq(r, "foo::bar() [clone .cold]");
	free(r);
	r = demangler__demangle(d, "_ZNSt6vectorIiSaIiEE9push_backERKi");
	cr_assert_str_eq(r, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	free(r);
	cr_assert_null(demangler__demangle(d, "_Zgarbage!"));
	cr_assert_null(demangler__demangle(d, "main"));
	cr_assert_null(demangler__demangle(d, ""));
	cr_assert_null(demangler__demangle(d, NULL));
	cr_assert_null(demangler__demangle(NULL, "_ZN3foo3barEv"));
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "_ZN3foo", 7);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_null(demangler__demangle(d, longname));
	demangler__delete(d);
	demangler__delete(NULL);
}
