/*
** The .eh_frame/.debug_frame walker (see fde.h).
**
** Decisions worth knowing:
** - A zero length word is a terminator entry; walking goes on after it, as
**   readelf does and as the eh_frame_hdr-driven runtime lookup effectively does
**   (unless the section's end is unknown: stop_at_zero).
** - In .eh_frame a 64-bit length (0xffffffff) keeps a 4-byte CIE id/pointer
**   (LSB spec, LLVM); in .debug_frame it widens them to 8 bytes (DWARF).
** - FDEs at address 0 (or the ~0/~1 tombstones in .debug_frame) describe code a
**   linker discarded: passed over, never counted as bad.
** - DW_EH_PE_indirect for pc_begin would need a relocated GOT read: unsupported,
**   the FDE is skipped (counted), as are textrel/funcrel/aligned, and datarel
**   without a base.
** - CIE augmentations z, R, P, L, S; any other letter rejects the CIE (its
**   meaning is unknown, so its rows cannot be trusted).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/fde.h"

#define FDE_CIES_MAX	65536		/* CIEs per section; FDEs using more are skipped */

struct fde_cie {		/* a parsed CIE of the section */
	size_t off;		/* its offset in the section */
	uint8_t ok;		/* 0: malformed, FDEs using it are skipped */
	uint8_t aug_z;		/* 'z': FDEs carry augmentation data */
	struct cfa_cie c;
};

struct fde_ent {		/* one CIE or FDE entry of a section */
	size_t off;		/* offset of its length field */
	size_t cie_off;		/* FDE: offset of its CIE */
	uint8_t is_cie;
	uint8_t bad_ptr;	/* FDE: its CIE pointer points outside the section */
	struct dw_cur body;	/* after the id field up to the entry's end */
};

/* -- Entries --------------------------------------------------------------- */

/*
** The entry at *pos: 1 and *e, 2 for an entry to skip (a terminator, or too
** short: counted by the caller when bad is set), 0 at the end, or -1 when its
** length runs past the section (nothing after it can be found).
*/
static int next_entry(const uint8_t *d, size_t len, size_t *pos, int is_eh,
		      struct fde_ent *e, int *bad)
{
	struct dw_cur c;
	uint64_t n, id;
	size_t idsz = 4;

	*bad = 0;
	if (*pos >= len)
		return 0;
	c = (struct dw_cur){ .p = d + *pos, .end = d + len };
	n = dw_un(&c, 4);
	if (n == 0xffffffff) {
		n = dw_un(&c, 8);	/* 64-bit DWARF */
		if (!is_eh)
			idsz = 8;
	} else if (n >= 0xfffffff0) {
		return -1;		/* reserved lengths */
	}
	if (c.err || n > dw_left(&c))
		return -1;
	e->off = *pos;
	*pos = (size_t)(c.p - d) + (size_t)n;
	if (n == 0)
		return 2;		/* terminator */
	if (n < idsz) {
		*bad = 1;
		return 2;
	}
	e->body = (struct dw_cur){ .p = c.p + idsz, .end = c.p + n };
	id = dw_un(&c, idsz);
	e->bad_ptr = 0;
	if (is_eh) {
		e->is_cie = id == 0;
		/* The CIE pointer counts back from the pointer field itself. */
		e->bad_ptr = id > (uint64_t)(c.p - d) - idsz;
		e->cie_off = e->bad_ptr ? 0 : (size_t)((uint64_t)(c.p - d) - idsz - id);
	} else {
		e->is_cie = id == (idsz == 8 ? UINT64_MAX : 0xffffffffu);
		e->bad_ptr = id >= len;
		e->cie_off = e->bad_ptr ? 0 : (size_t)id;
	}
	return 1;
}

/* Parse a CIE body into *ce; ce->ok says whether it is usable. */
static void parse_cie(const struct fde_ent *e, const struct dw_ptrctx *x, int is_eh,
		      struct fde_cie *ce)
{
	struct dw_cur c = e->body;
	struct cfa_cie *cie = &ce->c;
	const char *aug;
	uint64_t ver, ra;
	size_t alen;

	memset(ce, 0, sizeof(*ce));
	ce->off = e->off;
	cie->is_eh = (uint8_t)is_eh;
	cie->x = *x;
	cie->ptr_enc = 0;	/* DW_EH_PE_absptr unless 'R' */
	ver = dw_un(&c, 1);
	if (c.err || !(ver == 1 || ver == 3 || (!is_eh && ver == 4)))
		return;
	aug = (const char *)c.p;
	alen = strnlen(aug, dw_left(&c));
	if (alen == dw_left(&c))
		return;		/* unterminated */
	dw_skip(&c, alen + 1);
	if (ver == 4) {
		uint64_t asz = dw_un(&c, 1), seg = dw_un(&c, 1);

		if (c.err || (asz != 4 && asz != 8) || seg != 0)
			return;
		cie->x.addr_size = (uint8_t)asz;
	}
	cie->caf = dw_uleb(&c);
	cie->daf = dw_sleb(&c);
	ra = ver == 1 ? dw_un(&c, 1) : dw_uleb(&c);
	if (c.err || ra != CFA_REG_RA)
		return;
	if (aug[0] == 'z') {
		uint64_t n = dw_uleb(&c);
		struct dw_cur a = { .p = c.p, .end = c.p + (n <= dw_left(&c) ? n : 0) };

		if (c.err || n > dw_left(&c))
			return;
		dw_skip(&c, n);
		ce->aug_z = 1;
		for (size_t i = 1; i < alen; i++) {
			switch (aug[i]) {
			case 'R':
				cie->ptr_enc = (uint8_t)dw_un(&a, 1);
				break;
			case 'P': {
				uint8_t enc = (uint8_t)dw_un(&a, 1);

				if (a.err || dw_skip_ptr(&a, enc, cie->x.addr_size))
					return;
				break;
			}
			case 'L':
				dw_un(&a, 1);	/* the LSDA itself is in FDE data we skip */
				break;
			case 'S':
				cie->signal = 1;
				break;
			default:
				return;		/* unknown meaning: do not guess */
			}
			if (a.err)
				return;
		}
	} else if (alen) {
		return;		/* "eh" and other pre-'z' augmentations */
	}
	if (cfa__run(cie, c.p, dw_left(&c), 0, 0, NULL, NULL, &cie->init))
		return;
	ce->ok = 1;
}

/* The CIE at section offset off (the array is sorted by offset), or NULL. */
static const struct fde_cie *find_cie(const struct fde_cie *cies, size_t n, size_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cies[mid].off == off)
			return cies[mid].ok ? &cies[mid] : NULL;
		if (cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Is lo a discarded-code address rather than code? */
static int discarded(uint64_t lo, const struct cfa_cie *cie)
{
	if (lo == 0)
		return 1;
	if (cie->is_eh)
		return 0;
	if (cie->x.addr_size == 4)
		return lo >= 0xfffffffeu;
	return lo >= UINT64_MAX - 1;
}

/* The header of FDE e of CIE ce: 1 and *out, 0 to pass it over, -1 when malformed. */
static int parse_fde(const struct fde_ent *e, const struct fde_cie *ce, struct fde *out)
{
	const struct cfa_cie *cie = &ce->c;
	struct dw_cur c = e->body;
	uint64_t lo, range;

	if (cie->is_eh) {
		if (cie->ptr_enc & DW_EH_PE_indirect ||
		    dw_read_ptr(&c, cie->ptr_enc, &cie->x, &lo) ||
		    dw_read_ptr(&c, cie->ptr_enc & 0x0f, &cie->x, &range))
			return -1;
	} else {
		lo = dw_un(&c, cie->x.addr_size);
		range = dw_un(&c, cie->x.addr_size);
	}
	if (ce->aug_z)
		dw_skip(&c, dw_uleb(&c));
	if (c.err)
		return -1;
	if (!range || discarded(lo, cie))
		return 0;
	if (lo + range < lo)
		return -1;
	*out = (struct fde){ .lo = lo, .hi = lo + range, .cie = cie, .insns = c.p,
			     .len = dw_left(&c) };
	return 1;
}

/* -- The walk ---------------------------------------------------------------- */

/* Collect the section's CIEs, so an FDE may point at one anywhere (.debug_frame). */
static int read_cies(struct fde_iter *it)
{
	size_t cap = 0, pos = 0;
	struct fde_ent e;
	int r, bad;

	while ((r = next_entry(it->data, it->len, &pos, it->is_eh, &e, &bad)) > 0) {
		it->nbad += (size_t)bad;
		if (r == 2 && it->stop_at_zero)
			break;
		if (r != 1 || !e.is_cie)
			continue;
		if (it->ncies == FDE_CIES_MAX) {
			it->nbad++;
			continue;
		}
		if (it->ncies == cap) {
			size_t n = cap ? 2 * cap : 16;
			struct fde_cie *p = realloc(it->cies, n * sizeof(*p));

			if (!p)
				return -ENOMEM;
			it->cies = p;
			cap = n;
		}
		parse_cie(&e, &it->x, it->is_eh, &it->cies[it->ncies]);
		it->nbad += !it->cies[it->ncies].ok;
		it->ncies++;
	}
	if (r < 0)
		it->nbad++;	/* the entry whose length overran */
	return 0;
}

int fde_iter__init(struct fde_iter *it, const uint8_t *data, size_t len, uint64_t vaddr,
		   int is_eh, int stop_at_zero, const uint64_t *datarel)
{
	memset(it, 0, sizeof(*it));
	if (!data && len)
		return -EINVAL;
	it->data = data;
	it->len = len;
	it->is_eh = !!is_eh;
	it->stop_at_zero = !!stop_at_zero;
	it->x = (struct dw_ptrctx){ .sec = data, .sec_vaddr = vaddr, .addr_size = 8 };
	if (datarel) {
		it->x.dbase = *datarel;
		it->x.has_dbase = 1;
	}
	if (read_cies(it)) {
		fde_iter__fini(it);
		return -ENOMEM;
	}
	return 0;
}

int fde_iter__next(struct fde_iter *it, struct fde *out)
{
	struct fde_ent e;
	int r, bad;

	while ((r = next_entry(it->data, it->len, &it->pos, it->is_eh, &e, &bad)) > 0) {
		const struct fde_cie *ce;

		if (r == 2 && it->stop_at_zero)
			break;
		if (r != 1 || e.is_cie)
			continue;
		ce = e.bad_ptr ? NULL : find_cie(it->cies, it->ncies, e.cie_off);
		r = ce ? parse_fde(&e, ce, out) : -1;
		if (r > 0)
			return 1;
		it->nbad += r < 0;
	}
	it->pos = it->len;	/* an overrun or a terminator ends the section */
	return 0;
}

void fde_iter__fini(struct fde_iter *it)
{
	free(it->cies);
	it->cies = NULL;
	it->ncies = 0;
}

int fde__each(const uint8_t *data, size_t len, uint64_t vaddr, int is_eh,
	      const uint64_t *datarel, int (*fn)(void *arg, const struct fde *f), void *arg,
	      size_t *nbad)
{
	struct fde_iter it;
	struct fde fd;
	int err = fde_iter__init(&it, data, len, vaddr, is_eh, 0, datarel);

	while (!err && fde_iter__next(&it, &fd))
		err = fn(arg, &fd);
	*nbad += it.nbad;
	fde_iter__fini(&it);
	return err;
}

int fde__eh_frame_of_hdr(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t *vaddr)
{
	struct dw_ptrctx x = { .sec = hdr, .sec_vaddr = hdr_vaddr, .addr_size = 8 };
	struct dw_cur cur;

	if (!hdr || len < 8 || hdr[0] != 1 || hdr[1] & DW_EH_PE_indirect)
		return -1;	/* version 1; an indirect pointer would need a relocated read */
	cur = (struct dw_cur){ .p = hdr + 4, .end = hdr + len };
	return dw_read_ptr(&cur, hdr[1], &x, vaddr) ? -1 : 0;
}
