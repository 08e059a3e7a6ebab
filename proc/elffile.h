/*
** Untrusted ELF files through libelf: a handle that cannot SIGBUS or block, and
** sections made plain (SHF_COMPRESSED inflated in place) under a size limit.
*/
#ifndef LUATOP_PROC_ELFFILE_H
#define LUATOP_PROC_ELFFILE_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct elffile {
	Elf *elf;		/* NULL: not open */
	char *copy;		/* elffile__open_mem: the private image libelf reads */
};

/* Open a regular file read with pread (ELF_C_READ, not mmap); the fd stays
** open. 0, or -errno: fstat's, EINVAL (not regular), ELIBBAD, ENOEXEC. */
int elffile__open_fd(struct elffile *f, int fd);
/* Open an image in memory through a private copy libelf may convert in place.
** 0, or -ENOEXEC (empty), -ELIBBAD, -ENOMEM. */
int elffile__open_mem(struct elffile *f, const void *buf, size_t len);
/* End the handle and free the copy; errno is kept. */
void elffile__close(struct elffile *f);
/* The file-backed PT_LOAD headers of an ELF file: file offsets <-> vaddrs. */
struct elf_load {
	uint64_t off;		/* p_offset */
	uint64_t filesz;	/* p_filesz */
	uint64_t vaddr;		/* p_vaddr */
	uint8_t exec;		/* PF_X */
};

struct elf_loads {
	struct elf_load *l;
	size_t n;
};

/* Read the PT_LOAD headers with file bytes into *out (empty without any). 0 or -ENOMEM. */
int elf_loads__read(Elf *elf, struct elf_loads *out);
void elf_loads__free(struct elf_loads *ls);
/* The vaddr of file offset off, through the PT_LOAD holding it (code preferred
** where headers overlap): 0 and *vaddr, or -ENOENT. */
int elf_loads__vaddr(const struct elf_loads *ls, uint64_t off, uint64_t *vaddr);
/*
** Load bias of a mapping of the file at start with file offset offset (pc -
** bias = vaddr). The mapping may start on the page below its segment's offset.
** 0 and *bias, or -ENOENT when no PT_LOAD holds the offset.
*/
int elf_loads__bias(const struct elf_loads *ls, uint64_t start, uint64_t offset, uint64_t *bias);

/* Make scn plain so elf_getdata/elf_strptr see its bytes: 0 (also when it is not
** compressed), or -1 when it must count as absent (see elffile.c). */
int elffile__plain(Elf_Scn *scn, uint64_t max);

#endif
