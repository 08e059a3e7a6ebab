/*
** The call-frame sections of an ELF file: .eh_frame and .debug_frame, found by
** section header, inflated when compressed. The one place that looks for them:
** the unwind table (ehframe.c) and the function index (funcs.c) both start here.
*/
#ifndef LUATOP_UNWIND_ELFFRAME_H
#define LUATOP_UNWIND_ELFFRAME_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* Called once per section: data[0..len) loaded at vaddr, .eh_frame (is_eh) or
** .debug_frame. 0 to go on, or -errno to stop with that error. */
typedef int (*elfframe_fn)(void *arg, const uint8_t *data, size_t len, uint64_t vaddr,
			   int is_eh);

/*
** Call fn for each call-frame section of elf, an x86-64 executable or shared
** object (ET_REL is refused: its addresses are unrelocated). Compressed sections
** libelf cannot inflate (zstd, or larger than 512 MiB) are skipped and counted
** in *nskipped. 0, -ENOEXEC (not such a file), -ENODATA (no section table), or
** fn's error.
*/
int elfframe__each(Elf *elf, elfframe_fn fn, void *arg, size_t *nskipped);

/* Open the ELF file fd (it stays open) or the image buf (through a private copy),
** and return build's result on it: NULL + errno when it cannot be opened, or as
** build left errno. */
void *elfframe__build_fd(int fd, void *(*build)(Elf *elf));
void *elfframe__build_mem(const void *buf, size_t len, void *(*build)(Elf *elf));

#endif
