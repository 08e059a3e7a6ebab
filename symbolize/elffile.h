/*
** Untrusted ELF files through libelf: a handle that cannot SIGBUS or block, and
** sections made plain (SHF_COMPRESSED inflated in place) under a size limit.
*/
#ifndef LUATOP_SYMBOLIZE_ELFFILE_H
#define LUATOP_SYMBOLIZE_ELFFILE_H

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
/* Make scn plain so elf_getdata/elf_strptr see its bytes: 0 (also when it is not
** compressed), or -1 when it must count as absent (see elffile.c). */
int elffile__plain(Elf_Scn *scn, uint64_t max);

#endif
