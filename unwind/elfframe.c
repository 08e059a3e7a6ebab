/*
** The call-frame sections of an ELF file (elfframe.h).
*/
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "proc/elffile.h"
#include "unwind/elfframe.h"

#define UW_INFLATE_MAX	(512u << 20)	/* largest compressed section we inflate */

/* Is elf an x86-64 executable or shared object, little-endian, 64-bit? */
static int is_x86_64_image(Elf *elf)
{
	GElf_Ehdr eh;

	return elf_kind(elf) == ELF_K_ELF && gelf_getclass(elf) == ELFCLASS64 &&
	       gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64 &&
	       eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	       (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
}

/* Hand one section to fn, inflated if need be. */
static int one_section(Elf_Scn *scn, const GElf_Shdr *sh, int is_eh, elfframe_fn fn,
		       void *arg, size_t *nskipped)
{
	Elf_Data *d;

	if ((sh->sh_flags & SHF_COMPRESSED) && elffile__plain(scn, UW_INFLATE_MAX)) {
		++*nskipped;
		return 0;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return 0;
	return fn(arg, d->d_buf, d->d_size, sh->sh_addr, is_eh);
}

int elfframe__each(Elf *elf, elfframe_fn fn, void *arg, size_t *nskipped)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = 0;

	if (!is_x86_64_image(elf))
		return -ENOEXEC;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENODATA;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (!(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".eh_frame"))
			err = one_section(scn, &sh, 1, fn, arg, nskipped);
		else if (!strcmp(name, ".debug_frame"))
			err = one_section(scn, &sh, 0, fn, arg, nskipped);
	}
	return err;
}

/* build on an opened elffile, which is closed after; errno survives the close. */
static void *build_on(struct elffile *f, int err, void *(*build)(Elf *elf))
{
	void *out;
	int e;

	if (err) {
		errno = -err;
		return NULL;
	}
	out = build(f->elf);
	e = errno;
	elffile__close(f);
	errno = e;
	return out;
}

void *elfframe__build_fd(int fd, void *(*build)(Elf *elf))
{
	struct elffile f;

	return build_on(&f, elffile__open_fd(&f, fd), build);
}

void *elfframe__build_mem(const void *buf, size_t len, void *(*build)(Elf *elf))
{
	struct elffile f;

	return build_on(&f, elffile__open_mem(&f, buf, len), build);
}
