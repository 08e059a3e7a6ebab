/*
** ELF function symbols: .symtab and .dynsym merged into one sorted array.
**
** The file comes from the profiled process and is untrusted. libelf checks
** section and header ranges against the file size; every count, index and
** string is still checked here, names are length-capped and the name arena is
** bounded, so a crafted file can neither crash luatop nor exhaust its memory.
** Files are read with ELF_C_READ (pread), not mmap: a target truncating a mapped
** file under us would otherwise raise SIGBUS.
*/
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "symbolize/elfsyms.h"

#define ES_NAME_MAX	1024		/* longer names are truncated */
#define ES_ARENA_MAX	(256u << 20)	/* names beyond this are dropped */

struct es_sym {
	uint64_t addr;		/* st_value */
	uint64_t size;		/* st_size; 0 = unknown */
	uint32_t name;		/* offset into names */
	uint8_t rank;		/* dedupe preference among same-address symbols */
};

struct es_load {
	uint64_t off;		/* p_offset */
	uint64_t filesz;	/* p_filesz */
	uint64_t vaddr;		/* p_vaddr */
	uint8_t exec;		/* PF_X */
};

struct elfsyms {
	struct es_sym *syms;	/* sorted by addr, one per addr */
	size_t n, cap;
	struct es_load *loads;
	size_t nloads;
	char *names;		/* NUL-terminated names */
	size_t names_len, names_cap;
};

/* -- Building ------------------------------------------------------------- */

/* Higher is better: global/weak over local, no leading '_', known size. */
static uint8_t sym_rank(const GElf_Sym *sym, const char *name)
{
	return (uint8_t)((GELF_ST_BIND(sym->st_info) != STB_LOCAL) << 2 |
			 (name[0] != '_') << 1 | (sym->st_size != 0));
}

/* Copy a name into the arena; returns its offset, or -ENOSPC/-ENOMEM. */
static int64_t arena_add(struct elfsyms *s, const char *name)
{
	size_t len = strnlen(name, ES_NAME_MAX);
	size_t off = s->names_len;

	if (off + len + 1 > ES_ARENA_MAX)
		return -ENOSPC;
	if (off + len + 1 > s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap : 4096;
		char *p;

		while (cap < off + len + 1)
			cap *= 2;
		p = realloc(s->names, cap);
		if (!p)
			return -ENOMEM;
		s->names = p;
		s->names_cap = cap;
	}
	memcpy(s->names + off, name, len);
	s->names[off + len] = '\0';
	s->names_len = off + len + 1;
	return (int64_t)off;
}

/* Append one symbol: 0, or -ENOSPC (arena full) / -ENOMEM. */
static int sym_add(struct elfsyms *s, const GElf_Sym *sym, const char *name)
{
	int64_t off;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct es_sym *p = realloc(s->syms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->syms = p;
		s->cap = cap;
	}
	off = arena_add(s, name);
	if (off < 0)
		return (int)off;
	s->syms[s->n++] = (struct es_sym){
		.addr = sym->st_value,
		.size = sym->st_size,
		.name = (uint32_t)off,
		.rank = sym_rank(sym, name),
	};
	return 0;
}

/* Defined functions only; value 0 is never a real function in a linked file. */
static int sym_wanted(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value != 0;
}

/* Add the functions of one symbol table section. */
static int load_table(struct elfsyms *s, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t n;

	if (!d || !d->d_buf || d->d_type != ELF_T_SYM || !ent)
		return 0;
	n = d->d_size / ent;
	for (size_t i = 1; i < n && i <= INT32_MAX; i++) {	/* 0 is the null symbol */
		GElf_Sym sym;
		const char *name;
		int err;

		if (!gelf_getsym(d, (int)i, &sym) || !sym_wanted(&sym))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		err = sym_add(s, &sym, name);
		if (err)
			return err;
	}
	return 0;
}

/* Add .symtab and .dynsym (both: either may hold functions the other lacks). */
static int load_syms(struct elfsyms *s, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		int err;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		err = load_table(s, elf, scn, &sh);
		if (err == -ENOSPC)
			return 0;	/* keep what fits */
		if (err)
			return err;
	}
	return 0;
}

/* Keep the file-backed PT_LOAD headers. */
static int load_phdrs(struct elfsyms *s, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;	/* no program headers: lookups by vaddr still work */
	s->loads = calloc(n, sizeof(*s->loads));
	if (!s->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n && i <= INT32_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;	/* wraps */
		s->loads[s->nloads++] = (struct es_load){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
			.exec = !!(ph.p_flags & PF_X),
		};
	}
	return 0;
}

/* qsort_r order: address, then best rank first, then name for a stable result. */
static int cmp_sym(const void *a, const void *b, void *arg)
{
	const struct es_sym *x = a, *y = b;
	const char *names = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return strcmp(names + x->name, names + y->name);
}

/* Keep the best symbol per address; aliases share the largest known size. */
static void dedupe(struct elfsyms *s)
{
	size_t j = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (j && s->syms[j - 1].addr == s->syms[i].addr) {
			if (s->syms[i].size > s->syms[j - 1].size)
				s->syms[j - 1].size = s->syms[i].size;
			continue;
		}
		s->syms[j++] = s->syms[i];
	}
	s->n = j;
}

/* Rebuild the arena with the surviving names only (.dynsym mostly repeats .symtab). */
static void compact(struct elfsyms *s)
{
	size_t len = 0, off = 0;
	char *p;

	for (size_t i = 0; i < s->n; i++)
		len += strlen(s->names + s->syms[i].name) + 1;
	if (len == s->names_len || !(p = malloc(len ? len : 1)))
		return;		/* nothing to gain, or keep the old arena */
	for (size_t i = 0; i < s->n; i++) {
		size_t l = strlen(s->names + s->syms[i].name) + 1;

		memcpy(p + off, s->names + s->syms[i].name, l);
		s->syms[i].name = (uint32_t)off;
		off += l;
	}
	free(s->names);
	s->names = p;
	s->names_len = s->names_cap = len;
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
	err = load_phdrs(s, elf);
	if (!err)
		err = load_syms(s, elf);
	if (err) {
		elfsyms__delete(s);
		errno = -err;
		return NULL;
	}
	if (s->n)
		qsort_r(s->syms, s->n, sizeof(*s->syms), cmp_sym, s->names);
	dedupe(s);
	compact(s);
	return s;
}

/* -- Public API ----------------------------------------------------------- */

/* Load from an open regular file; the fd stays open. */
struct elfsyms *elfsyms__load_fd(int fd)
{
	struct elfsyms *s;
	struct stat st;
	Elf *elf;

	if (fstat(fd, &st))
		return NULL;
	if (!S_ISREG(st.st_mode)) {	/* a FIFO or device could block or misbehave */
		errno = EINVAL;
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ELIBBAD;
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		errno = ENOEXEC;
		return NULL;
	}
	s = load_elf(elf);
	elf_end(elf);
	return s;
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
	struct elfsyms *s;
	char *copy;
	Elf *elf;

	if (!buf || !len) {
		errno = ENOEXEC;
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ELIBBAD;
		return NULL;
	}
	copy = malloc(len);	/* libelf may convert in place; keep the caller's buffer intact */
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, buf, len);
	elf = elf_memory(copy, len);
	if (!elf) {
		free(copy);
		errno = ENOEXEC;
		return NULL;
	}
	s = load_elf(elf);
	elf_end(elf);
	free(copy);
	return s;
}

/* Free everything; NULL is fine. */
void elfsyms__delete(struct elfsyms *s)
{
	if (!s)
		return;
	free(s->syms);
	free(s->loads);
	free(s->names);
	free(s);
}

/* File offset -> virtual address through the PT_LOAD holding it. */
int elfsyms__file_offset_to_vaddr(const struct elfsyms *s, uint64_t file_off,
				  uint64_t *vaddr)
{
	const struct es_load *hit = NULL;

	if (!s || !vaddr)
		return -EINVAL;
	for (size_t i = 0; i < s->nloads; i++) {
		const struct es_load *l = &s->loads[i];

		if (file_off < l->off || file_off - l->off >= l->filesz)
			continue;
		if (!hit || (l->exec && !hit->exec))	/* overlapping headers: prefer code */
			hit = l;
	}
	if (!hit)
		return -ENOENT;
	*vaddr = hit->vaddr + (file_off - hit->off);
	return 0;
}

/* Binary search for the function containing vaddr. */
const char *elfsyms__lookup(const struct elfsyms *s, uint64_t vaddr, uint64_t *sym_off)
{
	const struct es_sym *sym;
	size_t lo = 0, hi;

	if (!s || !s->n)
		return NULL;
	hi = s->n;
	while (lo < hi) {	/* first symbol with addr > vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = &s->syms[lo - 1];
	if (sym->size && vaddr - sym->addr >= sym->size)
		return NULL;
	if (sym_off)
		*sym_off = vaddr - sym->addr;
	return s->names + sym->name;
}

/* Number of distinct function addresses. */
size_t elfsyms__count(const struct elfsyms *s)
{
	return s ? s->n : 0;
}
