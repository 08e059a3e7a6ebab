/*
** Unit tests of symbolize/: maps parsing, ELF symbols, kallsyms, the symbolizer
** on this very process, and malformed ELF input (run under ASan/UBSan).
*/
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "symbolize/elfsyms.h"
#include "symbolize/kallsyms.h"
#include "proc/procmaps.h"
#include "symbolize/symbolizer.h"
#include "tests/unit/mono.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

/* Global and noinline so it has its own .symtab entry, as perf's dwarf-unwind test does. */
int symbolize_test_target(int x);

__attribute__((noinline, used)) int symbolize_test_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* -- Helpers -------------------------------------------------------------- */

static uint64_t fn_addr(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn;
}

/* qsort as defined in libc itself (ASan interposes its own). */
static void *libc_sym(const char *name)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *p;

	cr_assert_not_null(h, "libc handle: %s", dlerror());
	p = dlsym(h, name);
	dlclose(h);
	return p;
}

/* The file offset of addr in this process, and its mapping. */
static uint64_t self_file_off(uint64_t addr, struct procmaps *pm, const struct procmap **m)
{
	cr_assert_eq(procmaps__read(getpid(), pm), 0);
	*m = procmaps__find(pm, addr);
	cr_assert_not_null(*m, "no mapping for %#llx", (unsigned long long)addr);
	cr_assert((*m)->exec);
	return addr - (*m)->start + (*m)->offset;
}

/* Write len bytes to a new temp file; returns its malloc'd path. */
static char *write_tmp(const void *buf, size_t len)
{
	char *path = strdup("/tmp/luatop-symtest-XXXXXX");
	int fd;

	cr_assert_not_null(path);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The whole content of a file. */
static void *read_all(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Deterministic xorshift for the fuzz loops. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Exercise an object that came from bad input: every call must be safe. */
static void poke(const struct elfsyms *es)
{
	static const uint64_t probes[] = { 0, 1, 0x1000, 0x2a000, 0x100000, UINT64_MAX };
	uint64_t v, off;

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const char *n = elfsyms__lookup(es, probes[i], &off);

		if (n)
			cr_assert(strlen(n) < 4096);
		if (!elfsyms__file_offset_to_vaddr(es, probes[i], &v))
			(void)elfsyms__lookup(es, v, NULL);
	}
	(void)elfsyms__count(es);
}

/* -- procmaps ------------------------------------------------------------- */

static const char maps_fixture[] =
	"55d4c0a21000-55d4c0a8a000 r-xp 00021000 08:01 1311234                    /usr/bin/luajit\n"
	"55d4c0a00000-55d4c0a21000 r--p 00000000 08:01 1311234                    /usr/bin/luajit\n"
	"55d4c1000000-55d4c1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
	"7f0000100000-7f0000101000 rwxp 00000000 00:00 0\n"
	"7f1c2a000000-7f1c2a021000 r-xp 00002000 fd:01 42                         /opt/my app/lib foo.so\n"
	"7f1c2b000000-7f1c2b001000 r-xp 00000000 00:05 99                         /memfd:jit (deleted)\n"
	"this is not a mapping\n"
	"\n"
	"7f1c2c000000-7f1c2b000000 r-xp 00000000 00:00 0\n"		/* start > end */
	"7f1c2d000000-7f1c2d001000 r-zp 00000000 00:00 0\n"		/* bad perms */
	"17f1c2e000000-7f1c2e001000 r-xp 00000000 00:00 0\n"	/* 17 hex digits */
	"7f1c2f000000-7f1c2f001000 r-xp 00000000 00:00 99999999999999999999999\n" /* inode overflow */
	"7f1c30000000-7f1c30001000 r-xp 00000000 00:00 12abc\n"	/* garbage after inode */
	"7f1c31000000-7f1c31001000 r-xp\n"				/* truncated */
	"7ffd1a3fe000-7ffd1a400000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";

Test(symbolize, procmaps_parse)
{
	struct procmaps pm;
	const struct procmap *m;

	cr_assert_eq(procmaps__parse(maps_fixture, sizeof(maps_fixture) - 1, &pm), 0);
	cr_assert_eq(pm.n, 9);
	for (size_t i = 1; i < pm.n; i++)
		cr_assert_lt(pm.maps[i - 1].start, pm.maps[i].start, "sorted");

	m = &pm.maps[0];
	cr_assert_eq(m->start, 0x55d4c0a00000);
	cr_assert_eq(m->end, 0x55d4c0a21000);
	cr_assert_eq(m->exec, 0);
	cr_assert_str_eq(m->path, "/usr/bin/luajit");
	m = &pm.maps[1];
	cr_assert_eq(m->offset, 0x21000);
	cr_assert_eq(m->dev_major, 8);
	cr_assert_eq(m->dev_minor, 1);
	cr_assert_eq(m->inode, 1311234);
	cr_assert_eq(m->exec, 1);
	cr_assert_str_eq(pm.maps[2].path, "[heap]");
	cr_assert_str_eq(pm.maps[3].path, "");		/* anonymous, trailing blank */
	cr_assert_str_eq(pm.maps[4].path, "");		/* anonymous, no blank */
	cr_assert_eq(pm.maps[4].exec, 1);
	cr_assert_str_eq(pm.maps[5].path, "/opt/my app/lib foo.so");
	cr_assert_eq(pm.maps[5].dev_major, 0xfd);
	cr_assert_eq(pm.maps[5].offset, 0x2000);
	cr_assert_str_eq(pm.maps[6].path, "/memfd:jit (deleted)");
	cr_assert_str_eq(pm.maps[7].path, "[vdso]");
	cr_assert_str_eq(pm.maps[8].path, "[vsyscall]");
	cr_assert_eq(pm.maps[8].end, 0xffffffffff601000);
	procmaps__free(&pm);
	cr_assert_null(pm.maps);
	cr_assert_eq(pm.n, 0);
}

Test(symbolize, procmaps_find_bounds)
{
	struct procmaps pm;
	const struct procmap *m;

	cr_assert_eq(procmaps__parse(maps_fixture, sizeof(maps_fixture) - 1, &pm), 0);
	cr_assert_null(procmaps__find(&pm, 0));
	cr_assert_null(procmaps__find(&pm, 0x55d4c09fffff));
	m = procmaps__find(&pm, 0x55d4c0a00000);
	cr_assert(m && m->start == 0x55d4c0a00000);
	m = procmaps__find(&pm, 0x55d4c0a20fff);
	cr_assert(m && m->start == 0x55d4c0a00000);
	m = procmaps__find(&pm, 0x55d4c0a21000);	/* end is exclusive: next map */
	cr_assert(m && m->start == 0x55d4c0a21000);
	cr_assert_null(procmaps__find(&pm, 0x55d4c0a8a000));	/* gap */
	m = procmaps__find(&pm, 0xffffffffff600fff);
	cr_assert(m && !strcmp(m->path, "[vsyscall]"));
	cr_assert_null(procmaps__find(&pm, 0xffffffffff601000));
	cr_assert_null(procmaps__find(&pm, UINT64_MAX));
	procmaps__free(&pm);
	cr_assert_null(procmaps__find(&pm, 0x55d4c0a00000));
}

Test(symbolize, procmaps_edge_input)
{
	struct procmaps pm;
	char longline[600];
	int n;

	cr_assert_eq(procmaps__parse("", 0, &pm), 0);
	cr_assert_eq(pm.n, 0);
	procmaps__free(&pm);
	cr_assert_eq(procmaps__parse(NULL, 1, &pm), -EINVAL);
	cr_assert_eq(procmaps__parse("x", 1, NULL), -EINVAL);
	/* The length bounds the parse: the path ends where len says, not at a NUL. */
	cr_assert_eq(procmaps__parse(maps_fixture, 40, &pm), 0);
	cr_assert_eq(pm.n, 0);
	procmaps__free(&pm);
	cr_assert_eq(procmaps__parse(maps_fixture,
				     (size_t)(strstr(maps_fixture, "/usr/bin/luajit") - maps_fixture) + 12,
				     &pm), 0);
	cr_assert_eq(pm.n, 1);
	cr_assert_str_eq(pm.maps[0].path, "/usr/bin/lua");
	procmaps__free(&pm);
	/* Over-long paths are truncated, not overflowed. */
	n = snprintf(longline, sizeof(longline), "1000-2000 r-xp 00000000 00:00 1 /");
	memset(longline + n, 'a', sizeof(longline) - (size_t)n);
	cr_assert_eq(procmaps__parse(longline, sizeof(longline), &pm), 0);
	cr_assert_eq(pm.n, 1);
	cr_assert_eq(strlen(pm.maps[0].path), PROCMAP_PATH_MAX - 1);
	procmaps__free(&pm);
}

Test(symbolize, procmaps_read_self)
{
	struct procmaps pm;
	const struct procmap *m;

	cr_assert_eq(procmaps__read(getpid(), &pm), 0);
	cr_assert_gt(pm.n, 5);
	m = procmaps__find(&pm, fn_addr(symbolize_test_target));
	cr_assert_not_null(m);
	cr_assert(m->exec);
	cr_assert_neq(m->inode, 0);
	procmaps__free(&pm);
	cr_assert_eq(procmaps__read(2147483647, &pm), -ENOENT);
	cr_assert_eq(procmaps__read(-1, &pm), -EINVAL);
}

/* -- elfsyms: a hand-built ELF with known symbols ------------------------- */

struct tiny_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	Elf64_Sym sym[12];
	Elf64_Sym dynsym[3];
	char strtab[80];
	char shstrtab[48];
	Elf64_Shdr sh[6];
};

/* Append a symbol to the tiny ELF. */
static void tiny_sym(struct tiny_elf *e, int *n, uint32_t name, int bind, int type,
		     uint16_t shndx, uint64_t value, uint64_t size)
{
	e->sym[*n] = (Elf64_Sym){ .st_name = name, .st_info = ELF64_ST_INFO(bind, type),
				  .st_shndx = shndx, .st_value = value, .st_size = size };
	(*n)++;
}

/*
** An ELF image: text PT_LOAD file [0x1000,0x2000) at vaddr 0x600000, a NOBITS
** .text section header [0x600000,0x600800) and a .dynsym besides the .symtab.
*/
static void tiny_build(struct tiny_elf *e)
{
	static const char strs[] =
		"\0foo\0_foo\0bar\0zero\0local_only\0obj\0undef\0ifn\0lbl\0dz\0tail\0dsz";
	static const char shstrs[] = "\0.symtab\0.strtab\0.shstrtab\0.text\0.dynsym";
	int n = 1, nd = 1;

	memset(e, 0, sizeof(*e));
	memcpy(e->eh.e_ident, ELFMAG, SELFMAG);
	e->eh.e_ident[EI_CLASS] = ELFCLASS64;
	e->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	e->eh.e_ident[EI_VERSION] = EV_CURRENT;
	e->eh.e_type = ET_DYN;
	e->eh.e_machine = EM_X86_64;
	e->eh.e_version = EV_CURRENT;
	e->eh.e_ehsize = sizeof(Elf64_Ehdr);
	e->eh.e_phoff = offsetof(struct tiny_elf, ph);
	e->eh.e_phentsize = sizeof(Elf64_Phdr);
	e->eh.e_phnum = 2;
	e->eh.e_shoff = offsetof(struct tiny_elf, sh);
	e->eh.e_shentsize = sizeof(Elf64_Shdr);
	e->eh.e_shnum = 6;
	e->eh.e_shstrndx = 3;
	e->ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0,
				 .p_vaddr = 0x400000, .p_filesz = 0x1000, .p_memsz = 0x1000 };
	e->ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x1000,
				 .p_vaddr = 0x600000, .p_filesz = 0x1000, .p_memsz = 0x1000 };
	memcpy(e->strtab, strs, sizeof(strs));
	memcpy(e->shstrtab, shstrs, sizeof(shstrs));
	tiny_sym(e, &n, 1, STB_GLOBAL, STT_FUNC, 1, 0x600100, 0x10);		/* foo */
	tiny_sym(e, &n, 5, STB_GLOBAL, STT_FUNC, 1, 0x600100, 0x10);		/* _foo: alias */
	tiny_sym(e, &n, 19, STB_LOCAL, STT_FUNC, 1, 0x600100, 0x20);		/* local_only */
	tiny_sym(e, &n, 10, STB_WEAK, STT_FUNC, 1, 0x600200, 0x10);		/* bar */
	tiny_sym(e, &n, 14, STB_GLOBAL, STT_FUNC, 4, 0x600300, 0);		/* zero: no size */
	tiny_sym(e, &n, 30, STB_GLOBAL, STT_OBJECT, 1, 0x600500, 8);		/* obj: not code */
	tiny_sym(e, &n, 34, STB_GLOBAL, STT_FUNC, SHN_UNDEF, 0x600050, 0);	/* undef */
	tiny_sym(e, &n, 40, STB_GLOBAL, STT_GNU_IFUNC, 1, 0x600600, 0x10);	/* ifn */
	tiny_sym(e, &n, 44, STB_LOCAL, STT_FUNC, 1, 0x600700, 0x10);		/* lbl */
	tiny_sym(e, &n, 51, STB_LOCAL, STT_FUNC, 4, 0x600780, 0);		/* tail: no size */
	tiny_sym(e, &n, 56, STB_GLOBAL, STT_FUNC, 1, 0x600900, 0);		/* dsz: no size */
	/* .dynsym: dz, sizeless; dsz, sizeless in both tables, outside .text. */
	e->dynsym[nd++] = (Elf64_Sym){ .st_name = 48, .st_shndx = 4, .st_value = 0x600580,
				       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC) };
	e->dynsym[nd++] = (Elf64_Sym){ .st_name = 56, .st_shndx = 4, .st_value = 0x600900,
				       .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC) };
	e->sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_SYMTAB,
				 .sh_offset = offsetof(struct tiny_elf, sym),
				 .sh_size = (uint64_t)n * sizeof(Elf64_Sym), .sh_link = 2, .sh_info = 1,
				 .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	e->sh[2] = (Elf64_Shdr){ .sh_name = 9, .sh_type = SHT_STRTAB,
				 .sh_offset = offsetof(struct tiny_elf, strtab),
				 .sh_size = sizeof(strs), .sh_addralign = 1 };
	e->sh[3] = (Elf64_Shdr){ .sh_name = 17, .sh_type = SHT_STRTAB,
				 .sh_offset = offsetof(struct tiny_elf, shstrtab),
				 .sh_size = sizeof(shstrs), .sh_addralign = 1 };
	e->sh[4] = (Elf64_Shdr){ .sh_name = 27, .sh_type = SHT_NOBITS,
				 .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = 0x600000,
				 .sh_offset = 0x1000, .sh_size = 0x800, .sh_addralign = 16 };
	e->sh[5] = (Elf64_Shdr){ .sh_name = 33, .sh_type = SHT_DYNSYM,
				 .sh_offset = offsetof(struct tiny_elf, dynsym),
				 .sh_size = (uint64_t)nd * sizeof(Elf64_Sym), .sh_link = 2,
				 .sh_info = 1, .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
}

Test(symbolize, elfsyms_semantics)
{
	struct tiny_elf e;
	struct elfsyms *es;
	uint64_t off = 99, v;

	tiny_build(&e);
	es = elfsyms__load_mem(&e, sizeof(e));
	cr_assert_not_null(es, "load_mem: %s", strerror(errno));
	cr_assert_eq(elfsyms__count(es), 8);	/* foo bar zero dz ifn lbl tail dsz */
	cr_assert(elfsyms__has_symtab(es));
	cr_assert_null(elfsyms__build_id(es, NULL));
	cr_assert_null(elfsyms__debuglink(es, NULL));

	cr_assert_null(elfsyms__lookup(es, 0x600050, &off));	/* before all; undef ignored */
	cr_assert_str_eq(elfsyms__lookup(es, 0x600100, &off), "foo");	/* over _foo, local */
	cr_assert_eq(off, 0);
	cr_assert_str_eq(elfsyms__lookup(es, 0x60011f, &off), "foo");	/* largest alias size */
	cr_assert_eq(off, 0x1f);
	cr_assert_null(elfsyms__lookup(es, 0x600120, NULL));
	cr_assert_str_eq(elfsyms__lookup(es, 0x60020f, &off), "bar");
	cr_assert_eq(off, 0xf);
	cr_assert_null(elfsyms__lookup(es, 0x600210, NULL));		/* past bar's size */
	cr_assert_str_eq(elfsyms__lookup(es, 0x600555, &off), "zero");	/* obj ignored */
	cr_assert_eq(off, 0x255);
	/* Sizeless .dynsym: exact match only; it also ends zero's reach. */
	cr_assert_str_eq(elfsyms__lookup(es, 0x600580, &off), "dz");
	cr_assert_eq(off, 0);
	cr_assert_null(elfsyms__lookup(es, 0x600581, NULL));
	cr_assert_str_eq(elfsyms__lookup(es, 0x600600, NULL), "ifn");
	cr_assert_str_eq(elfsyms__lookup(es, 0x600705, NULL), "lbl");
	cr_assert_null(elfsyms__lookup(es, 0x600710, NULL));
	/* Sizeless .symtab: up to the end of its section. */
	cr_assert_str_eq(elfsyms__lookup(es, 0x6007ff, &off), "tail");
	cr_assert_eq(off, 0x7f);
	cr_assert_null(elfsyms__lookup(es, 0x600800, NULL));
	/* Sizeless in both tables, section not containing it: to the next symbol only. */
	cr_assert_str_eq(elfsyms__lookup(es, 0x600fff, NULL), "dsz");
	cr_assert_str_eq(elfsyms__lookup(es, UINT64_MAX - 1, NULL), "dsz");
	cr_assert_null(elfsyms__lookup(es, UINT64_MAX, NULL));	/* ends are exclusive */

	cr_assert_eq(elfsyms__file_offset_to_vaddr(es, 0x1800, &v), 0);
	cr_assert_eq(v, 0x600800);
	cr_assert_eq(elfsyms__file_offset_to_vaddr(es, 0x10, &v), 0);
	cr_assert_eq(v, 0x400010);
	cr_assert_eq(elfsyms__file_offset_to_vaddr(es, 0x2000, &v), -ENOENT);
	cr_assert_eq(elfsyms__file_offset_to_vaddr(es, UINT64_MAX, &v), -ENOENT);
	elfsyms__delete(es);
}

Test(symbolize, elfsyms_self)
{
	uint64_t addr = fn_addr(symbolize_test_target), foff, vaddr, off = 99;
	const struct procmap *m;
	struct procmaps pm;
	struct elfsyms *es;

	cr_assert_eq(symbolize_test_target(1), 4);
	foff = self_file_off(addr, &pm, &m);
	es = elfsyms__load_path("/proc/self/exe");
	cr_assert_not_null(es);
	cr_assert_gt(elfsyms__count(es), 10);
	cr_assert_eq(elfsyms__file_offset_to_vaddr(es, foff, &vaddr), 0);
	cr_assert_str_eq(elfsyms__lookup(es, vaddr, &off), "symbolize_test_target");
	cr_assert_eq(off, 0);
	cr_assert_str_eq(elfsyms__lookup(es, vaddr + 1, &off), "symbolize_test_target");
	cr_assert_eq(off, 1);
	elfsyms__delete(es);
	procmaps__free(&pm);
}

Test(symbolize, elfsyms_libc_dynsym)
{
	uint64_t addr = (uint64_t)(uintptr_t)libc_sym("qsort"), foff, vaddr, off = 99;
	const struct procmap *m;
	struct procmaps pm;
	struct elfsyms *es;
	const char *name;

	cr_assert_neq(addr, 0);
	foff = self_file_off(addr, &pm, &m);
	cr_assert(strstr(m->path, "libc.so.6"), "qsort in %s", m->path);
	es = elfsyms__load_path(LIBC_PATH);
	cr_assert_not_null(es);
	cr_assert_gt(elfsyms__count(es), 1000);
	cr_assert_eq(elfsyms__file_offset_to_vaddr(es, foff, &vaddr), 0);
	name = elfsyms__lookup(es, vaddr, &off);
	cr_assert_not_null(name);
	cr_assert_eq(off, 0);
	cr_assert_eq((uint64_t)(uintptr_t)libc_sym(name), addr, "%s is no alias of qsort", name);
	elfsyms__delete(es);
	procmaps__free(&pm);
}

/* -- elfsyms: malformed input --------------------------------------------- */

Test(symbolize, elfsyms_malformed_files)
{
	static const size_t cuts[] = { 4096, 100000 };
	size_t len;
	char *libc = read_all(LIBC_PATH, &len), *path;
	unsigned char rb[65536];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct elfsyms *es;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		path = write_tmp(libc, cuts[i]);
		es = elfsyms__load_path(path);	/* NULL or an object: both fine */
		poke(es);
		elfsyms__delete(es);
		unlink(path);
		free(path);
	}
	for (size_t i = 0; i < sizeof(rb); i++)
		rb[i] = (unsigned char)rnd(&seed);
	path = write_tmp(rb, sizeof(rb));
	es = elfsyms__load_path(path);
	cr_assert_null(es);
	unlink(path);
	free(path);
	memcpy(rb, ELFMAG "\2\1\1", 7);		/* ELF magic, then noise */
	path = write_tmp(rb, sizeof(rb));
	es = elfsyms__load_path(path);
	poke(es);
	elfsyms__delete(es);
	unlink(path);
	free(path);
	path = write_tmp("", 0);
	errno = 0;
	cr_assert_null(elfsyms__load_path(path));
	cr_assert_neq(errno, 0);
	unlink(path);
	free(path);
	cr_assert_null(elfsyms__load_path("/nonexistent/luatop"));
	cr_assert_null(elfsyms__load_path("/dev/null"));	/* not a regular file */
	cr_assert_null(elfsyms__load_path("/tmp"));
	cr_assert_null(elfsyms__load_mem(NULL, 10));
	cr_assert_null(elfsyms__load_mem(rb, 0));
	free(libc);
}

Test(symbolize, elfsyms_fuzz_tiny)
{
	struct tiny_elf e, m;
	uint64_t seed = 12345;

	tiny_build(&e);
	for (size_t cut = 0; cut <= sizeof(e); cut++)	/* every truncation */
		elfsyms__delete(elfsyms__load_mem(&e, cut));
	for (int it = 0; it < 20000; it++) {
		struct elfsyms *es;
		int flips = 1 + (int)(rnd(&seed) % 8);

		m = e;
		for (int f = 0; f < flips; f++)
			((unsigned char *)&m)[rnd(&seed) % sizeof(m)] = (unsigned char)rnd(&seed);
		es = elfsyms__load_mem(&m, sizeof(m));
		poke(es);
		elfsyms__delete(es);
	}
}

Test(symbolize, elfsyms_fuzz_libc_headers)
{
	size_t len;
	unsigned char *libc = (unsigned char *)read_all(LIBC_PATH, &len), *m;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)libc;
	uint64_t seed = 777;

	cr_assert_gt(len, eh->e_shoff);
	m = malloc(len);
	cr_assert_not_null(m);
	for (int it = 0; it < 150; it++) {
		struct elfsyms *es;

		memcpy(m, libc, len);
		for (int f = 0; f < 4; f++) {	/* hit headers and section headers */
			size_t at = rnd(&seed) & 1 ? rnd(&seed) % 4096 :
				    eh->e_shoff + rnd(&seed) % (len - eh->e_shoff);

			m[at] = (unsigned char)rnd(&seed);
		}
		es = elfsyms__load_mem(m, len);
		poke(es);
		elfsyms__delete(es);
	}
	free(m);
	free(libc);
}

/* -- kallsyms ------------------------------------------------------------- */

static const char kallsyms_fixture[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t do_one_initcall\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 W weak_fn\n"
	"ffffffff81000400 T __x64_sys_read\n"
	"garbage\n"
	"ffffffff81000500 T\n"
	"ffffffffc0b00000 t other_fn\t[nf_tables]\n"
	"ffffffffc0a00000 t mod_init_one\t[e1000e]\n"
	"ffffffffc0a00100 T mod_xmit\t[e1000e]\n"
	"ffffffffc0a00200 T broken_mod\t[e1000e\n"
	"ffffffffc0c00000 t bpf_prog_6deef7357e7b4530_sd_fw_ingress\t[bpf]";

Test(symbolize, kallsyms_parse)
{
	struct kallsyms *k;
	const char *mod = "x";
	uint64_t off;

	cr_assert_eq(kallsyms__parse(kallsyms_fixture, sizeof(kallsyms_fixture) - 1, &k), 0);
	cr_assert_eq(kallsyms__count(k), 8);
	cr_assert_null(kallsyms__lookup(k, 0xffffffff80ffffff, &mod));
	cr_assert_null(mod);
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000000, &mod), "_stext");
	cr_assert_null(mod);
	cr_assert_str_eq(kallsyms__lookup_off(k, 0xffffffff81000150, &mod, &off),
			 "do_one_initcall");
	cr_assert_eq(off, 0x50);
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000250, NULL), "do_one_initcall");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000350, NULL), "weak_fn");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000fff, NULL), "__x64_sys_read");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffffc0a00000, &mod), "mod_init_one");
	cr_assert_str_eq(mod, "e1000e");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffffc0a00150, &mod), "mod_xmit");
	cr_assert_str_eq(mod, "e1000e");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffffc0b00010, &mod), "other_fn");
	cr_assert_str_eq(mod, "nf_tables");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffffc0c00001, &mod),
			 "bpf_prog_6deef7357e7b4530_sd_fw_ingress");
	cr_assert_str_eq(mod, "bpf");
	kallsyms__delete(k);
}

Test(symbolize, kallsyms_edge_input)
{
	static const char zeros[] = "0000000000000000 T _text\n0000000000000000 t foo [m]\n";
	struct kallsyms *k = (struct kallsyms *)1;

	cr_assert_eq(kallsyms__parse(zeros, sizeof(zeros) - 1, &k), -EPERM);
	cr_assert_null(k);
	cr_assert_eq(kallsyms__parse("", 0, &k), 0);
	cr_assert_eq(kallsyms__count(k), 0);
	cr_assert_null(kallsyms__lookup(k, 0xffffffff81000000, NULL));
	kallsyms__delete(k);
	cr_assert_eq(kallsyms__parse(NULL, 3, &k), -EINVAL);
	cr_assert_eq(kallsyms__parse("x", 1, NULL), -EINVAL);
	cr_assert_null(kallsyms__lookup(NULL, 1, NULL));
	/* Bounded by len: the fixture cut in the middle of a line. */
	cr_assert_eq(kallsyms__parse(kallsyms_fixture, (size_t)(strstr(kallsyms_fixture, "_text\n") -
							  kallsyms_fixture) + 5, &k), 0);
	cr_assert_eq(kallsyms__count(k), 1);
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000000, NULL), "_text");
	kallsyms__delete(k);
}

/* Listed by address, as the kernel lists its own: no sort, and the best name of
** each address kept wherever it stands in its run (global, then without '_',
** then the first by name). */
Test(symbolize, kallsyms_in_order_best_of_each_address)
{
	static const char listed[] =
		"ffffffff81000000 t __pfx_start\n"
		"ffffffff81000000 t _start_local\n"
		"ffffffff81000000 T start\n"
		"ffffffff81000010 T __x64_sys_read\n"
		"ffffffff81000010 T ksys_read\n"
		"ffffffff81000020 t zeta\n"
		"ffffffff81000020 t alpha\n"
		"ffffffff81000030 W weak_only\n";
	struct kallsyms *k;

	cr_assert_eq(kallsyms__parse(listed, sizeof(listed) - 1, &k), 0);
	cr_assert_eq(kallsyms__count(k), 4);
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000000, NULL), "start");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000018, NULL), "ksys_read");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000020, NULL), "alpha");
	cr_assert_str_eq(kallsyms__lookup(k, 0xffffffff81000031, NULL), "weak_only");
	kallsyms__delete(k);
}

/* The address of a core kernel text symbol from /proc/kallsyms, or 0. */
static uint64_t kernel_sym_addr(const char *want)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && type == 'T' &&
		    !strcmp(name, want) && !strchr(line, '['))
			found = a;
	fclose(f);
	return found;
}

Test(symbolize, kallsyms_load_real)
{
	uint64_t addr = kernel_sym_addr("schedule"), off;
	struct kallsyms *k = kallsyms__load();
	const char *mod = "x", *name;

	if (!k) {
		cr_assert(errno == EPERM || errno == EACCES || errno == ENOENT, "%s",
			  strerror(errno));
		cr_skip_test("kallsyms not readable: %s", strerror(errno));
	}
	cr_assert_gt(kallsyms__count(k), 1000);
	cr_assert_neq(addr, 0);
	name = kallsyms__lookup_off(k, addr + 4, &mod, &off);
	cr_assert_not_null(name);
	cr_assert_eq(kernel_sym_addr(name), addr, "%s is no alias of schedule", name);
	cr_assert_eq(off, 4);
	cr_assert_null(mod);
	kallsyms__delete(k);
}

Test(symbolize, parsers_fuzz)
{
	char mbuf[sizeof(maps_fixture)], kbuf[sizeof(kallsyms_fixture)];
	uint64_t seed = 4242;

	for (int it = 0; it < 5000; it++) {
		struct procmaps pm;
		struct kallsyms *k;
		size_t ml = rnd(&seed) % sizeof(mbuf), kl = rnd(&seed) % sizeof(kbuf);

		memcpy(mbuf, maps_fixture, sizeof(mbuf));
		memcpy(kbuf, kallsyms_fixture, sizeof(kbuf));
		for (int f = 0; f < 6; f++) {
			mbuf[rnd(&seed) % sizeof(mbuf)] = (char)rnd(&seed);
			kbuf[rnd(&seed) % sizeof(kbuf)] = "0f -:[]\t\nTtx/"[rnd(&seed) % 14];
		}
		cr_assert_eq(procmaps__parse(mbuf, ml, &pm), 0);
		for (size_t i = 0; i < pm.n; i++) {
			cr_assert_lt(pm.maps[i].start, pm.maps[i].end);
			cr_assert(i == 0 || pm.maps[i - 1].start <= pm.maps[i].start);
			cr_assert_lt(strnlen(pm.maps[i].path, PROCMAP_PATH_MAX), PROCMAP_PATH_MAX);
			cr_assert_eq(procmaps__find(&pm, pm.maps[i].start) != NULL, 1);
		}
		procmaps__free(&pm);
		if (kallsyms__parse(kbuf, kl, &k) == 0) {
			const char *mod;

			(void)kallsyms__lookup(k, 0xffffffff81000123, &mod);
			(void)kallsyms__lookup(k, UINT64_MAX, &mod);
			kallsyms__delete(k);
		}
	}
}

/* -- symbolizer ----------------------------------------------------------- */

/* Basename of this test binary. */
static const char *self_name(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	const char *b;

	cr_assert_gt(n, 0);
	buf[n] = '\0';
	b = strrchr(buf, '/');
	return b ? b + 1 : buf;
}

Test(symbolize, symbolizer_self)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t fn = fn_addr(symbolize_test_target);
	uint64_t qs = (uint64_t)(uintptr_t)libc_sym("qsort");
	struct symbol sym, again;
	char exe[4096];

	cr_assert_not_null(s);
	cr_assert_eq(symbolizer__user(s, getpid(), fn + 2, &sym), 0);
	cr_assert_str_eq(sym.name, "symbolize_test_target");
	cr_assert_str_eq(sym.module, self_name(exe, sizeof(exe)));
	cr_assert_eq(sym.offset, 2);

	cr_assert_eq(symbolizer__user(s, getpid(), qs, &sym), 0);
	cr_assert_eq((uint64_t)(uintptr_t)libc_sym(sym.name), qs, "%s", sym.name);
	cr_assert_str_eq(sym.module, "libc.so.6");
	cr_assert_eq(sym.offset, 0);
	cr_assert_eq(symbolizer__user(s, getpid(), qs, &again), 0);
	cr_assert_eq(again.name, sym.name);		/* cached: same pointers */
	cr_assert_eq(again.module, sym.module);

	cr_assert_eq(symbolizer__user(s, getpid(), 0x10, &sym), -EAGAIN);	/* in no mapping */
	cr_assert_str_eq(sym.name, "[unknown]");
	cr_assert_null(sym.module);
	cr_assert_eq(symbolizer__user(s, 2147483647, fn, &sym), -EAGAIN);	/* no maps */
	cr_assert_str_eq(sym.name, "[unknown]");

	symbolizer__forget(s, getpid());
	cr_assert_eq(symbolizer__user(s, getpid(), fn, &sym), 0);
	cr_assert_str_eq(sym.name, "symbolize_test_target");
	symbolizer__forget(s, 12345);		/* unknown pid: no-op */
	symbolizer__delete(s);
	symbolizer__delete(NULL);
}

Test(symbolize, symbolizer_new_mapping_and_deleted)
{
	struct symbolizer *s = symbolizer__new(NULL);
	char page[8192], *path, want[128];
	const char *base;
	struct symbol sym;
	double t0;
	void *p;
	int fd, rc;

	memset(page, 0x90, sizeof(page));
	path = write_tmp(page, sizeof(page));
	base = strrchr(path, '/') + 1;
	t0 = mono_ms();
	cr_assert_eq(symbolizer__user(s, getpid(), fn_addr(symbolize_test_target), &sym), 0);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	p = mmap(NULL, sizeof(page), PROT_READ, MAP_PRIVATE, fd, 0x1000 * 0);
	cr_assert_neq(p, MAP_FAILED);
	close(fd);
	unlink(path);		/* maps now says "... (deleted)" */

	rc = symbolizer__user(s, getpid(), (uint64_t)(uintptr_t)p + 0x10, &sym);
	if (mono_ms() - t0 < 90)
		cr_assert_eq(rc, -EAGAIN, "maps re-read within 100 ms");
	usleep(120 * 1000);
	rc = symbolizer__user(s, getpid(), (uint64_t)(uintptr_t)p + 0x10, &sym);
	cr_assert_eq(rc, 1);
	cr_assert_str_eq(sym.module, base);	/* " (deleted)" stripped */
	snprintf(want, sizeof(want), "%s+0x10", base);
	cr_assert_str_eq(sym.name, want);
	cr_assert_eq(sym.offset, 0x10);
	munmap(p, sizeof(page));
	/* Mapping gone, maps re-read at most once per 100 ms: the old answer may stay; no crash. */
	(void)symbolizer__user(s, getpid(), (uint64_t)(uintptr_t)p + 0x10, &sym);
	symbolizer__delete(s);
	free(path);
}

/* State letter of pid from /proc/PID/stat, or 0. */
static char proc_state(int pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

Test(symbolize, symbolizer_exited_process)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t fn = fn_addr(symbolize_test_target);
	struct symbol sym;
	int pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		for (;;)
			pause();
	}
	cr_assert_eq(symbolizer__user(s, pid, fn, &sym), 0);	/* same layout after fork */
	cr_assert_str_eq(sym.name, "symbolize_test_target");
	kill(pid, SIGKILL);
	for (int i = 0; i < 500 && proc_state(pid) != 'Z'; i++)
		usleep(2000);
	cr_assert_eq(proc_state(pid), 'Z');
	usleep(110 * 1000);
	cr_assert_eq(symbolizer__user(s, pid, 0x10, &sym), -EAGAIN);	/* re-read: empty maps */
	cr_assert_eq(symbolizer__user(s, pid, fn + 1, &sym), 0);	/* old maps kept */
	cr_assert_str_eq(sym.name, "symbolize_test_target");
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	usleep(110 * 1000);
	cr_assert_eq(symbolizer__user(s, pid, 0x10, &sym), -EAGAIN);	/* re-read: ENOENT */
	cr_assert_eq(symbolizer__user(s, pid, fn + 2, &sym), 0);
	cr_assert_str_eq(sym.name, "symbolize_test_target");
	cr_assert_eq(sym.offset, 2);
	symbolizer__delete(s);
}

Test(symbolize, symbolizer_anon_exec)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct symbol sym;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(p, MAP_FAILED);
	cr_assert_eq(symbolizer__user(s, getpid(), (uint64_t)(uintptr_t)p + 8, &sym), -ENOENT);
	cr_assert_str_eq(sym.name, "[unknown]");
	munmap(p, 4096);
	symbolizer__delete(s);
}

Test(symbolize, symbolizer_vdso)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), off, v;
	struct symbolizer *s;
	const struct procmap *m;
	struct procmaps pm;
	struct elfsyms *es;
	struct symbol sym;
	int checked = 0;

	if (!base)
		cr_skip_test("no vDSO");
	cr_assert_eq(procmaps__read(getpid(), &pm), 0);
	m = procmaps__find(&pm, base);
	cr_assert(m && !strcmp(m->path, "[vdso]"));
	es = elfsyms__load_mem((const void *)(uintptr_t)m->start, m->end - m->start);
	cr_assert_not_null(es);
	cr_assert_gt(elfsyms__count(es), 0);
	s = symbolizer__new(NULL);
	for (off = 0; off < m->end - m->start && checked < 4; off += 8) {
		const char *name;

		if (elfsyms__file_offset_to_vaddr(es, off, &v) ||
		    !(name = elfsyms__lookup(es, v, NULL)))
			continue;
		cr_assert_eq(symbolizer__user(s, getpid(), m->start + off, &sym), 0);
		cr_assert_str_eq(sym.name, name);
		cr_assert_str_eq(sym.module, "[vdso]");
		checked++;
	}
	cr_assert_gt(checked, 0);
	symbolizer__delete(s);
	elfsyms__delete(es);
	procmaps__free(&pm);
}

Test(symbolize, symbolizer_kernel)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t addr = kernel_sym_addr("schedule");
	struct symbol sym;
	int rc = symbolizer__kernel(s, addr + 1, &sym);

	if (!addr) {
		cr_assert_eq(rc, -ENOENT);
		cr_assert_str_eq(sym.name, "[unknown]");
	} else {
		cr_assert_eq(rc, 0);
		cr_assert_eq(kernel_sym_addr(sym.name), addr, "%s", sym.name);
		cr_assert_str_eq(sym.module, "[kernel]");
		cr_assert_eq(sym.offset, 1);
	}
	cr_assert_eq(symbolizer__kernel(s, 0x1000, &sym), -ENOENT);
	cr_assert_str_eq(sym.name, "[unknown]");
	symbolizer__delete(s);
}
