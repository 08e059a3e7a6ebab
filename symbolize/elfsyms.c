/*
** ELF function symbols: .symtab and .dynsym merged into one sorted array, plus
** the build-id and .gnu_debuglink that name a separate debug file.
**
** The file comes from the profiled process and is untrusted. libelf checks
** section and header ranges against the file size; every count, index and
** string is still checked here, names are length-capped and the name arena is
** bounded, so a crafted file can neither crash luatop nor exhaust its memory.
** Files are opened through elffile.c (pread, not mmap). Only the symbol, string
** and note sections are read, so a debug file's .debug_* sections cost nothing.
**
** SHF_COMPRESSED symbol and string tables (seen only in hand-made files: gcc -gz
** and objcopy --compress-debug-sections compress .debug_* alone) are inflated by
** elffile__plain: ZLIB only (ZSTD and unknown types count as absent) and a
** declared size up to ES_INFLATE_MAX.
*/
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/search.h"
#include "proc/elffile.h"
#include "symbolize/elfsyms.h"
#include "symbolize/symorder.h"

#define ES_NAME_MAX	1024		/* longer names are truncated */
#define ES_ARENA_MAX	(256u << 20)	/* names beyond this are dropped */
#define ES_INFLATE_MAX	(256u << 20)	/* larger compressed tables count as absent */
#define ES_NOTE_MAX	(64u << 10)	/* PT_NOTE segments read for the build-id */

struct es_sym {
	uint64_t addr;		/* st_value */
	uint64_t end;		/* exclusive end of the symbol's reach, see sym_end() */
	uint32_t name;		/* offset into names */
	uint8_t rank;		/* dedupe preference among same-address symbols */
	uint8_t sized;		/* end comes from st_size */
};

struct elfsyms {
	struct es_sym *syms;	/* sorted by addr, one per addr */
	size_t n, cap;
	struct elf_loads loads;	/* its PT_LOAD headers */
	struct arena names;	/* NUL-terminated names (max ES_ARENA_MAX) */
	uint8_t build_id[ELFSYMS_BUILD_ID_MAX];	/* NT_GNU_BUILD_ID descriptor */
	size_t build_id_len;	/* 0: none */
	char debuglink[ELFSYMS_DEBUGLINK_MAX];	/* .gnu_debuglink file name; "" if none */
	uint32_t debuglink_crc;	/* CRC-32 of that file, from the section */
	uint8_t has_symtab;	/* a .symtab contributed functions */
};

/* -- Building ------------------------------------------------------------- */

/* Higher is better: global/weak over local, no leading '_', known size. */
static uint8_t sym_rank(const GElf_Sym *sym, const char *name)
{
	return (uint8_t)((GELF_ST_BIND(sym->st_info) != STB_LOCAL) << 2 |
			 (name[0] != '_') << 1 | (sym->st_size != 0));
}

/* Make room for want more symbols: 0 or -ENOMEM. */
static int syms_reserve(struct elfsyms *s, size_t want)
{
	size_t cap = s->cap ? s->cap : 256;
	struct es_sym *p;

	if (want > SIZE_MAX / sizeof(*p) - s->n)
		return -ENOMEM;
	if (s->n + want <= s->cap)
		return 0;
	while (cap < s->n + want)
		cap *= 2;
	p = realloc(s->syms, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->syms = p;
	s->cap = cap;
	return 0;
}

/* Append one symbol: 0, or -ENOSPC (arena full) / -ENOMEM. */
static int sym_add(struct elfsyms *s, const struct es_sym *sym, const char *name)
{
	int64_t off;
	int err = syms_reserve(s, 1);

	if (err)
		return err;
	off = arena__add(&s->names, name, strnlen(name, ES_NAME_MAX));
	if (off < 0)
		return (int)off;
	s->syms[s->n] = *sym;
	s->syms[s->n++].name = (uint32_t)off;
	return 0;
}

/* Defined functions only; value 0 is never a real function in a linked file. */
static int sym_wanted(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value != 0;
}

/*
** End of the section holding a sizeless .symtab symbol, or UINT64_MAX when the
** symbol's section is special (SHN_ABS, SHN_XINDEX), not loaded, or does not
** contain it (an inconsistent file: then only the next symbol bounds it).
*/
static uint64_t sec_end(Elf *elf, uint16_t shndx, uint64_t addr)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !(scn = elf_getscn(elf, shndx)) ||
	    !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return UINT64_MAX;
	if (addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size;		/* no wrap: addr - sh_addr < sh_size */
}

/*
** Exclusive end of a symbol's reach. With a size: start + size. Without one
** (hand-written assembly, some linker-made stubs) we choose, per table:
**  - .symtab: nearest-preceding, as perf does, since a stripped-down alternative
**    would leave whole assembly routines (LuaJIT's lj_vm_* among them) nameless.
**    The reach is capped by the next symbol (the lookup does that) and by the end
**    of the symbol's section, so it never runs into .fini, padding or the PLT.
**  - .dynsym: exact match only, as blazesym does. A stripped file has no names
**    for the local functions between its exports, so a sizeless export would
**    otherwise claim every one of them; "module+0xOFF" is better than a wrong
**    name. When .symtab (or a debug file) has the same address, dedupe() takes
**    its larger reach.
*/
static void sym_end(Elf *elf, const GElf_Sym *sym, int dyn, struct es_sym *out)
{
	uint64_t a = sym->st_value;

	out->sized = sym->st_size != 0;
	if (sym->st_size)
		out->end = a + sym->st_size < a ? UINT64_MAX : a + sym->st_size;
	else if (dyn)
		out->end = a + 1 ? a + 1 : UINT64_MAX;
	else
		out->end = sec_end(elf, sym->st_shndx, a);
}

/* Add the functions of one symbol table section. */
static int load_table(struct elfsyms *s, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	size_t ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *str = elf_getscn(elf, sh->sh_link);
	int dyn = sh->sh_type == SHT_DYNSYM, got = 0;
	Elf_Data *d;
	size_t n;

	if (!str || !sh->sh_link || elffile__plain(scn, ES_INFLATE_MAX) || elffile__plain(str, ES_INFLATE_MAX))
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_type != ELF_T_SYM || !ent)
		return 0;
	n = d->d_size / ent;
	for (size_t i = 1; i < n && i <= INT32_MAX; i++) {	/* 0 is the null symbol */
		struct es_sym es = { 0 };
		GElf_Sym sym;
		const char *name;
		int err;

		if (!gelf_getsym(d, (int)i, &sym) || !sym_wanted(&sym))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		es.addr = sym.st_value;
		es.rank = sym_rank(&sym, name);
		sym_end(elf, &sym, dyn, &es);
		err = sym_add(s, &es, name);
		if (err)
			return err;
		got = 1;
	}
	if (got && !dyn)
		s->has_symtab = 1;
	return 0;
}

/* Take the first GNU build-id note of a note data block. */
static void load_build_id(struct elfsyms *s, Elf_Data *d)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d || !d->d_buf || (d->d_type != ELF_T_NHDR && d->d_type != ELF_T_NHDR8))
		return;
	while (!s->build_id_len && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp((char *)d->d_buf + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) &&
		    nh.n_descsz && nh.n_descsz <= ELFSYMS_BUILD_ID_MAX) {
			memcpy(s->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
			s->build_id_len = nh.n_descsz;
		}
		off = next;
	}
}

/*
** Parse .gnu_debuglink: a NUL-terminated file name, padding to 4 bytes, then the
** CRC-32 in the file's byte order. Names with a '/' (or "." and "..") are refused:
** the name is joined to directories, and must not climb out of them.
*/
static void load_debuglink(struct elfsyms *s, Elf *elf, Elf_Scn *scn)
{
	const unsigned char *b, *ident;
	size_t len, crc_off;
	Elf_Data *d;

	if (elffile__plain(scn, ES_INFLATE_MAX) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return;
	b = d->d_buf;
	len = strnlen((const char *)b, d->d_size);
	if (!len || len >= ELFSYMS_DEBUGLINK_MAX || len >= d->d_size)
		return;
	crc_off = (len + 4) & ~(size_t)3;
	if (crc_off > d->d_size || d->d_size - crc_off < 4 || memchr(b, '/', len) ||
	    !strcmp((const char *)b, ".") || !strcmp((const char *)b, ".."))
		return;
	ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!ident)
		return;
	b += crc_off;
	s->debuglink_crc = ident[EI_DATA] == ELFDATA2MSB ?
		(uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3] :
		(uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	memcpy(s->debuglink, d->d_buf, len);
	s->debuglink[len] = '\0';
}

/* Build-id from PT_NOTE segments, for files without section headers. */
static void load_build_id_phdrs(struct elfsyms *s, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && i <= INT32_MAX && !s->build_id_len; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    !ph.p_filesz || ph.p_filesz > ES_NOTE_MAX)
			continue;
		load_build_id(s, elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						      ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR));
	}
}

/*
** Walk the sections once: .symtab and .dynsym (both: either may hold functions
** the other lacks), the build-id note and .gnu_debuglink.
*/
static int load_scns(struct elfsyms *s, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int full = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;
		int err;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_NOTE && !s->build_id_len && !(sh.sh_flags & SHF_COMPRESSED)) {
			load_build_id(s, elf_getdata(scn, NULL));
			continue;
		}
		if (sh.sh_type == SHT_PROGBITS && !s->debuglink[0] && shstrndx &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".gnu_debuglink")) {
			load_debuglink(s, elf, scn);
			continue;
		}
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || full)
			continue;
		err = load_table(s, elf, scn, &sh);
		if (err == -ENOSPC)
			full = 1;	/* keep what fits */
		else if (err)
			return err;
	}
	if (!s->build_id_len)
		load_build_id_phdrs(s, elf);
	return 0;
}

/* qsort_r order: address, then best rank first, then name for a stable result. */
static int cmp_sym(const void *a, const void *b, void *arg)
{
	const struct es_sym *x = a, *y = b;
	const char *names = arg;

	return symorder__cmp(x->addr, x->rank, names + x->name, y->addr, y->rank, names + y->name);
}

/*
** Keep the best symbol per address. Aliases share the largest known size; a real
** size beats any sizeless reach, and among sizeless ones the largest reach wins.
*/
static void dedupe(struct elfsyms *s)
{
	size_t j = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct es_sym *x = &s->syms[i];

		if (j && s->syms[j - 1].addr == x->addr) {
			struct es_sym *k = &s->syms[j - 1];

			if (x->sized != k->sized ? x->sized : x->end > k->end) {
				k->end = x->end;
				k->sized = x->sized;
			}
			continue;
		}
		s->syms[j++] = *x;
	}
	s->n = j;
}

/* Rebuild the arena with the surviving names only (.dynsym mostly repeats .symtab). */
static void compact(struct elfsyms *s)
{
	size_t len = 0, off = 0;
	char *p;

	for (size_t i = 0; i < s->n; i++)
		len += strlen(s->names.buf + s->syms[i].name) + 1;
	if (len == s->names.len || !(p = malloc(len ? len : 1)))
		return;		/* nothing to gain, or keep the old arena */
	for (size_t i = 0; i < s->n; i++) {
		size_t l = strlen(s->names.buf + s->syms[i].name) + 1;

		memcpy(p + off, s->names.buf + s->syms[i].name, l);
		s->syms[i].name = (uint32_t)off;
		off += l;
	}
	free(s->names.buf);
	s->names.buf = p;
	s->names.len = s->names.cap = len;
}

/* Sort, dedupe and shrink the arena after symbols were added. */
static void finish(struct elfsyms *s)
{
	if (s->n)
		qsort_r(s->syms, s->n, sizeof(*s->syms), cmp_sym, s->names.buf);
	dedupe(s);
	compact(s);
}

/* Build the object from an open libelf handle; NULL + errno. */
static struct elfsyms *load_elf(Elf *elf)
{
	struct elfsyms *s;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) == ELFCLASSNONE) {
		errno = ENOEXEC;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->names.max = ES_ARENA_MAX;
	err = elf_loads__read(elf, &s->loads);
	if (!err)
		err = load_scns(s, elf);
	if (err) {
		elfsyms__delete(s);
		errno = -err;
		return NULL;
	}
	finish(s);
	return s;
}

/* -- Public API ----------------------------------------------------------- */

/* Load from f as elffile__open_* left it (err: what it returned); closes f. */
static struct elfsyms *load_opened(struct elffile *f, int err)
{
	struct elfsyms *s;

	if (err) {
		errno = -err;
		return NULL;
	}
	s = load_elf(f->elf);
	elffile__close(f);
	return s;
}

/* Load from an open regular file; the fd stays open. */
struct elfsyms *elfsyms__load_fd(int fd)
{
	struct elffile f;

	return load_opened(&f, elffile__open_fd(&f, fd));
}

/* Load from a path (O_NONBLOCK: a FIFO must not hang us). */
struct elfsyms *elfsyms__load_path(const char *path)
{
	struct elfsyms *s;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	s = elfsyms__load_fd(fd);
	e = errno;
	close(fd);
	errno = e;
	return s;
}

/* Load from an image in memory, through a private copy. */
struct elfsyms *elfsyms__load_mem(const void *buf, size_t len)
{
	struct elffile f;

	return load_opened(&f, elffile__open_mem(&f, buf, len));
}

/* Free everything; NULL is fine. */
void elfsyms__delete(struct elfsyms *s)
{
	if (!s)
		return;
	free(s->syms);
	elf_loads__free(&s->loads);
	arena__free(&s->names);
	free(s);
}

/* File offset -> virtual address through the PT_LOAD holding it. */
int elfsyms__file_offset_to_vaddr(const struct elfsyms *s, uint64_t file_off,
				  uint64_t *vaddr)
{
	if (!s || !vaddr)
		return -EINVAL;
	return elf_loads__vaddr(&s->loads, file_off, vaddr);
}

/* Binary search for the function containing vaddr. */
const char *elfsyms__lookup(const struct elfsyms *s, uint64_t vaddr, uint64_t *sym_off)
{
	const struct es_sym *sym;
	size_t lo;

	if (!s || !s->n)
		return NULL;
	lo = search__upper(s->syms, s->n, sizeof(*s->syms), offsetof(struct es_sym, addr), vaddr);
	if (!lo)
		return NULL;
	sym = &s->syms[lo - 1];
	if (vaddr >= sym->end)
		return NULL;
	if (sym_off)
		*sym_off = vaddr - sym->addr;
	return s->names.buf + sym->name;
}

/* Number of distinct function addresses. */
size_t elfsyms__count(const struct elfsyms *s)
{
	return s ? s->n : 0;
}

/* Merge the functions of another object (a debug file) into s. */
int elfsyms__merge(struct elfsyms *s, const struct elfsyms *from)
{
	size_t n0;
	int err = 0;

	if (!s || !from || s == from)
		return -EINVAL;
	if (!from->n)
		return 0;
	n0 = s->n;
	if (syms_reserve(s, from->n))
		return -ENOMEM;
	for (size_t i = 0; i < from->n && !err; i++)
		err = sym_add(s, &from->syms[i], from->names.buf + from->syms[i].name);
	if (err == -ENOMEM) {
		s->n = n0;	/* still sorted; finish() drops the orphaned names */
		compact(s);
		return err;
	}
	s->has_symtab |= from->has_symtab;	/* -ENOSPC: keep what fits */
	finish(s);
	return 0;
}

/* The NT_GNU_BUILD_ID bytes, or NULL. */
const uint8_t *elfsyms__build_id(const struct elfsyms *s, size_t *len)
{
	if (!s || !s->build_id_len)
		return NULL;
	if (len)
		*len = s->build_id_len;
	return s->build_id;
}

/* The .gnu_debuglink file name and CRC, or NULL. */
const char *elfsyms__debuglink(const struct elfsyms *s, uint32_t *crc)
{
	if (!s || !s->debuglink[0])
		return NULL;
	if (crc)
		*crc = s->debuglink_crc;
	return s->debuglink;
}

/* Whether a .symtab (own or merged) contributed functions. */
int elfsyms__has_symtab(const struct elfsyms *s)
{
	return s && s->has_symtab;
}
