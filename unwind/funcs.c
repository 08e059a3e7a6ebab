/*
** Function ranges from FDEs (funcs.h). Only the FDE headers are read (fde.c):
** no CFA program runs, so indexing a file costs a walk over its sections.
*/
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/search.h"
#include "unwind/elfframe.h"
#include "unwind/fde.h"
#include "unwind/funcs.h"

struct uw_range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct uw_funcs {
	struct uw_range *r;	/* by lo, then by hi descending; after finish, one per lo */
	size_t n, cap;
	size_t nbad;		/* CIEs/FDEs skipped as malformed */
	int finished;
};

struct uw_funcs *uw_funcs__new(void)
{
	return calloc(1, sizeof(struct uw_funcs));
}

void uw_funcs__delete(struct uw_funcs *f)
{
	if (f)
		free(f->r);
	free(f);
}

size_t uw_funcs__count(const struct uw_funcs *f)
{
	return f ? f->n : 0;
}

/* fde__each's callback: one more range. */
static int push(void *arg, const struct fde *fd)
{
	struct uw_funcs *f = arg;

	if (grow__room((void **)&f->r, &f->cap, f->n, sizeof(*f->r)))
		return -ENOMEM;
	f->r[f->n++] = (struct uw_range){ fd->lo, fd->hi };
	return 0;
}

int uw_funcs__add_section(struct uw_funcs *f, const uint8_t *data, size_t len,
			  uint64_t section_vaddr, int is_eh)
{
	if (!f || f->finished || (!data && len))
		return -EINVAL;
	return fde__each(data, len, section_vaddr, is_eh, NULL, push, f, &f->nbad);
}

static int cmp_range(const void *a, const void *b)
{
	const struct uw_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi > y->hi ? -1 : x->hi < y->hi;
}

int uw_funcs__finish(struct uw_funcs *f)
{
	size_t k = 0;

	if (!f || f->finished)
		return -EINVAL;
	if (f->n)
		qsort(f->r, f->n, sizeof(*f->r), cmp_range);
	for (size_t i = 0; i < f->n; i++)	/* one per start: the widest */
		if (!k || f->r[k - 1].lo != f->r[i].lo)
			f->r[k++] = f->r[i];
	f->n = k;
	f->finished = 1;
	return 0;
}

/* Nested or overlapping FDEs are rare (hand-written assembly); a few steps back
** from the last start at or below vaddr find the innermost range covering it. */
#define UW_FUNCS_BACK	8

int uw_funcs__start_of(const struct uw_funcs *f, uint64_t vaddr, uint64_t *start)
{
	size_t i;

	if (!f || !f->finished)
		return -ENOENT;
	i = search__upper(f->r, f->n, sizeof(*f->r), offsetof(struct uw_range, lo), vaddr);
	for (size_t back = 0; i > 0 && back < UW_FUNCS_BACK; i--, back++)
		if (vaddr < f->r[i - 1].hi) {
			*start = f->r[i - 1].lo;
			return 0;
		}
	return -ENOENT;
}

/* -- ELF files ------------------------------------------------------------ */

static int add_elf_section(void *arg, const uint8_t *data, size_t len, uint64_t vaddr, int is_eh)
{
	return uw_funcs__add_section(arg, data, len, vaddr, is_eh);
}

static void *from_elf(Elf *elf)
{
	struct uw_funcs *f = uw_funcs__new();
	size_t skipped = 0;
	int err = f ? elfframe__each(elf, add_elf_section, f, &skipped) : -ENOMEM;

	if (!err)
		err = uw_funcs__finish(f);
	if (!err && !f->n)
		err = -ENODATA;
	if (err) {
		uw_funcs__delete(f);
		errno = -err;
		return NULL;
	}
	return f;
}

struct uw_funcs *uw_funcs__from_elf_fd(int fd)
{
	return elfframe__build_fd(fd, from_elf);
}

struct uw_funcs *uw_funcs__from_elf_mem(const void *buf, size_t len)
{
	return elfframe__build_mem(buf, len, from_elf);
}
