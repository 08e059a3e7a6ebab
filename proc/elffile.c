/*
** Untrusted ELF files through libelf. Files are read with ELF_C_READ (pread),
** not mmap: a target truncating a mapped file under us would raise SIGBUS.
** Images in memory go through a private copy, since libelf may convert in place.
**
** SHF_COMPRESSED sections are inflated by libelf after the Elf_Chdr has been
** checked here: ZLIB only (ZSTD and unknown types count as absent), a declared
** size of 1..max bytes within zlib's 1032:1 ratio of the stored size, and an
** inflated size equal to the declared one.
*/
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc/elffile.h"

/* Open a regular file through pread. */
int elffile__open_fd(struct elffile *f, int fd)
{
	struct stat st;

	f->elf = NULL;
	f->copy = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))	/* a FIFO or device could block or misbehave */
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	f->elf = elf_begin(fd, ELF_C_READ, NULL);
	return f->elf ? 0 : -ENOEXEC;
}

/* Open an image in memory through a private copy. */
int elffile__open_mem(struct elffile *f, const void *buf, size_t len)
{
	f->elf = NULL;
	f->copy = NULL;
	if (!buf || !len)
		return -ENOEXEC;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	f->copy = malloc(len);	/* keep the caller's buffer intact */
	if (!f->copy)
		return -ENOMEM;
	memcpy(f->copy, buf, len);
	f->elf = elf_memory(f->copy, len);
	if (!f->elf) {
		free(f->copy);
		f->copy = NULL;
		return -ENOEXEC;
	}
	return 0;
}

/* End the handle, then free the image it read; errno survives. */
void elffile__close(struct elffile *f)
{
	int e = errno;

	elf_end(f->elf);
	free(f->copy);
	f->elf = NULL;
	f->copy = NULL;
	errno = e;
}

/*
** Inflate a SHF_COMPRESSED section in place: 0, or -1 when it must count as
** absent (no header, SHT_NOBITS, not ZLIB, a declared size of 0, over max or
** beyond zlib's 1032:1 ratio, a corrupt stream or one of another size).
*/
int elffile__plain(Elf_Scn *scn, uint64_t max)
{
	GElf_Shdr sh;
	GElf_Chdr ch;

	if (!gelf_getshdr(scn, &sh))
		return -1;
	if (!(sh.sh_flags & SHF_COMPRESSED))
		return 0;
	if (sh.sh_type == SHT_NOBITS || !gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB)
		return -1;
	if (!ch.ch_size || ch.ch_size > max || ch.ch_size / 1032 > sh.sh_size)
		return -1;
	if (elf_compress(scn, 0, 0) != 1 || !gelf_getshdr(scn, &sh) || sh.sh_size != ch.ch_size)
		return -1;
	return 0;
}

/* -- PT_LOAD headers ------------------------------------------------------- */

#define PAGE_MASK_4K	4095ull	/* mappings start on page boundaries */

int elf_loads__read(Elf *elf, struct elf_loads *out)
{
	size_t n;

	out->l = NULL;
	out->n = 0;
	if (elf_getphdrnum(elf, &n) || !n)
		return 0;	/* no program headers: lookups by vaddr still work */
	out->l = calloc(n, sizeof(*out->l));
	if (!out->l)
		return -ENOMEM;
	for (size_t i = 0; i < n && i <= INT32_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;	/* wraps */
		out->l[out->n++] = (struct elf_load){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
			.exec = !!(ph.p_flags & PF_X),
		};
	}
	return 0;
}

void elf_loads__free(struct elf_loads *ls)
{
	free(ls->l);
	ls->l = NULL;
	ls->n = 0;
}

/* The PT_LOAD holding file offset off, code preferred; page_down: also the
** bytes of the page below its offset. */
static const struct elf_load *load_of(const struct elf_loads *ls, uint64_t off, int page_down)
{
	const struct elf_load *hit = NULL;

	for (size_t i = 0; i < ls->n; i++) {
		const struct elf_load *l = &ls->l[i];
		uint64_t lo = page_down ? l->off & ~PAGE_MASK_4K : l->off;

		if (off < lo || off >= l->off + l->filesz)	/* the sum never wraps */
			continue;
		if (!hit || (l->exec && !hit->exec))	/* overlapping headers: prefer code */
			hit = l;
	}
	return hit;
}

int elf_loads__vaddr(const struct elf_loads *ls, uint64_t off, uint64_t *vaddr)
{
	const struct elf_load *l = ls ? load_of(ls, off, 0) : NULL;

	if (!l)
		return -ENOENT;
	*vaddr = l->vaddr + (off - l->off);
	return 0;
}

int elf_loads__bias(const struct elf_loads *ls, uint64_t start, uint64_t offset, uint64_t *bias)
{
	const struct elf_load *l = ls ? load_of(ls, offset, 1) : NULL;

	if (!l)
		return -ENOENT;
	*bias = start - (l->vaddr + offset - l->off);
	return 0;
}
