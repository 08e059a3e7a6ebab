/*
** .eh_frame/.debug_frame -> sorted {pc_off, rule} rows and a deduplicated rule table.
**
** add_section walks a section's FDEs (fde.c, which owns the section format and
** its decisions). Each FDE runs its program (cfa.c) into rows of its own, clipped
** to [pc_begin, pc_end). finish then sweeps all FDE ranges in address order and,
** wherever several overlap, takes the rows of the one with the highest priority
** (.eh_frame over .debug_frame, later over earlier), filling every gap and every
** FDE end with LT_UW_INVALID.
**
** Decisions worth knowing:
** - Relocatable objects (ET_REL) are refused: their addresses are unrelocated.
** - SHF_COMPRESSED sections are inflated (elfframe.c: ELFCOMPRESS_ZLIB only);
**   others are skipped and counted in nbad.
*/
#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/search.h"
#include "unwind/cfa.h"
#include "unwind/ehframe.h"
#include "unwind/elfframe.h"
#include "unwind/fde.h"

struct uw_fde {
	uint64_t lo, hi;	/* [pc_begin, pc_end) */
	uint64_t prio;		/* higher wins where FDEs overlap */
	size_t first;		/* its rows: brows[first .. first+n) */
	size_t n;
};

struct uw_brow {		/* a row while building */
	uint64_t pc;		/* ELF vaddr */
	uint32_t rule;		/* index into rules */
};

struct uw_table {
	struct lt_uw_row *rows;	/* the result, after finish */
	size_t nrows, rows_cap;
	struct lt_uw_rule *rules;	/* deduplicated; [0] is LT_UW_INVALID */
	size_t nrules, rules_cap;
	uint32_t *hash;		/* open addressing over rules: index + 1, 0 = empty */
	size_t hash_cap;	/* a power of two */
	struct uw_fde *fdes;	/* building: one per accepted FDE */
	size_t nfdes, fdes_cap;
	struct uw_brow *brows;	/* building: the rows of all FDEs */
	size_t nbrows, brows_cap;
	uint64_t seq;		/* FDEs seen: the priority of the next one */
	size_t nbad;		/* CIEs/FDEs skipped as malformed or unsupported */
	uint64_t dbase;		/* DW_EH_PE_datarel base, if has_dbase */
	uint8_t has_dbase;
	uint8_t finished;
};

/* -- Growth and rule interning -------------------------------------------- */

/* Multiplicative hash of a rule's 8 bytes into cap (a power of two) slots. */
static size_t rule_hash(const struct lt_uw_rule *r, size_t cap)
{
	uint64_t k;

	memcpy(&k, r, sizeof(k));
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* Double the hash table and reinsert every rule. */
static int rehash(struct uw_table *t)
{
	size_t cap = t->hash_cap ? t->hash_cap * 2 : 256;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrules; i++) {
		size_t j = rule_hash(&t->rules[i], cap);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hash_cap = cap;
	return 0;
}

/* The index of rule r, added if new: >= 0, or -ENOMEM. */
static int64_t rule_intern(struct uw_table *t, struct lt_uw_rule r)
{
	size_t j;

	if ((t->nrules + 1) * 2 > t->hash_cap && rehash(t))
		return -ENOMEM;
	for (j = rule_hash(&r, t->hash_cap); t->hash[j]; j = (j + 1) & (t->hash_cap - 1)) {
		if (!memcmp(&t->rules[t->hash[j] - 1], &r, sizeof(r)))
			return t->hash[j] - 1;
	}
	if (t->nrules >= UINT32_MAX - 1 ||
	    grow__room((void **)&t->rules, &t->rules_cap, t->nrules, sizeof(r)))
		return -ENOMEM;
	t->rules[t->nrules] = r;
	t->hash[j] = (uint32_t)++t->nrules;
	return (int64_t)t->nrules - 1;
}

/* -- Section walking ------------------------------------------------------ */

/* cfa_row_fn: append a row to the FDE being built (the last one). */
static int push_row(void *arg, uint64_t loc, struct lt_uw_rule rule)
{
	struct uw_table *t = arg;
	struct uw_fde *f = &t->fdes[t->nfdes - 1];
	int64_t idx = rule_intern(t, rule);

	if (idx < 0)
		return (int)idx;
	if (f->n) {
		struct uw_brow *last = &t->brows[t->nbrows - 1];

		if (last->pc == loc) {	/* an advance by 0: the later row wins */
			last->rule = (uint32_t)idx;
			if (f->n > 1 && last[-1].rule == last->rule) {
				t->nbrows--;
				f->n--;
			}
			return 0;
		}
		if (last->rule == (uint32_t)idx)
			return 0;
	}
	if (grow__room((void **)&t->brows, &t->brows_cap, t->nbrows, sizeof(*t->brows)))
		return -ENOMEM;
	t->brows[t->nbrows++] = (struct uw_brow){ .pc = loc, .rule = (uint32_t)idx };
	f->n++;
	return 0;
}

/* Run one FDE's program into rows of its own: 0 (added or skipped), or -errno. */
static int add_fde(void *arg, const struct fde *fd)
{
	struct uw_table *t = arg;
	struct cfa_state st = fd->cie->init;
	struct uw_fde *f;
	int err;

	if (fd->hi > UINT32_MAX)
		return -EOVERFLOW;	/* pc_off is a u32 */
	if (grow__room((void **)&t->fdes, &t->fdes_cap, t->nfdes, sizeof(*t->fdes)))
		return -ENOMEM;
	f = &t->fdes[t->nfdes++];
	*f = (struct uw_fde){ .lo = fd->lo, .hi = fd->hi, .first = t->nbrows,
			      .prio = (uint64_t)fd->cie->is_eh << 63 | t->seq++ };
	err = cfa__run(fd->cie, fd->insns, fd->len, f->lo, f->hi, push_row, t, &st);
	if (!err && f->n)	/* push_row grows brows, never fdes: f stays valid */
		return 0;
	t->nbrows = f->first;	/* drop its rows */
	t->nfdes--;
	if (err && err != -EBADMSG)
		return err;
	t->nbad++;
	return 0;
}

/* Parse a raw .eh_frame or .debug_frame (see ehframe.h). */
int uw_table__add_section(struct uw_table *t, const uint8_t *data, size_t len,
			  uint64_t section_vaddr, int is_eh)
{
	if (!t || t->finished || (!data && len))
		return -EINVAL;
	return fde__each(data, len, section_vaddr, is_eh, t->has_dbase ? &t->dbase : NULL,
			 add_fde, t, &t->nbad);
}

/* -- Finishing: overlaps, gaps, merging ----------------------------------- */

/* qsort: by start address, the higher priority first. */
static int cmp_fde(const void *a, const void *b)
{
	const struct uw_fde *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->prio > y->prio ? -1 : x->prio < y->prio;
}

/* Append an output row, merging with the previous one where possible. */
static int out_row(struct uw_table *t, uint64_t pc, uint32_t rule)
{
	if (t->nrows) {
		struct lt_uw_row *last = &t->rows[t->nrows - 1];

		if (last->pc_off == pc) {
			last->rule = rule;
			if (t->nrows > 1 && last[-1].rule == rule)
				t->nrows--;
			return 0;
		}
		if (last->rule == rule)
			return 0;
	}
	if (grow__room((void **)&t->rows, &t->rows_cap, t->nrows, sizeof(*t->rows)))
		return -ENOMEM;
	t->rows[t->nrows++] = (struct lt_uw_row){ .pc_off = (__u32)pc, .rule = rule };
	return 0;
}

/* Max-heap on FDE priority: restore order after h[i] moved up. */
static void heap_up(uint32_t *h, size_t i, const struct uw_fde *f)
{
	while (i && f[h[(i - 1) / 2]].prio < f[h[i]].prio) {
		uint32_t tmp = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

/* Max-heap: restore order after h[0] was replaced. */
static void heap_down(uint32_t *h, size_t n, const struct uw_fde *f)
{
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t tmp;

		if (l < n && f[h[l]].prio > f[h[m]].prio)
			m = l;
		if (l + 1 < n && f[h[l + 1]].prio > f[h[m]].prio)
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* Emit the rows of FDE f that cover [from, to). */
static int out_fde(struct uw_table *t, const struct uw_fde *f, uint64_t from, uint64_t to)
{
	const struct uw_brow *r = t->brows + f->first;
	size_t lo = 0, hi = f->n;
	int err;

	while (lo < hi) {	/* first row past from */
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].pc <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Rows start at f->lo <= from, so lo >= 1. */
	if ((err = out_row(t, from, r[lo - 1].rule)))
		return err;
	for (; lo < f->n && r[lo].pc < to; lo++)
		if ((err = out_row(t, r[lo].pc, r[lo].rule)))
			return err;
	return 0;
}

/* The sweep: at every point, the rows of the highest-priority FDE covering it. */
static int sweep(struct uw_table *t)
{
	const struct uw_fde *f = t->fdes;
	size_t n = t->nfdes, i = 0, nh = 0;
	uint32_t *h;
	uint64_t pos;
	int err = 0;

	if (!n)
		return 0;
	if (n > UINT32_MAX || !(h = malloc(n * sizeof(*h))))
		return -ENOMEM;
	qsort(t->fdes, n, sizeof(*t->fdes), cmp_fde);
	pos = f[0].lo;
	while (!err) {
		uint64_t end;

		for (; i < n && f[i].lo <= pos; i++) {
			h[nh] = (uint32_t)i;
			heap_up(h, nh++, f);
		}
		while (nh && f[h[0]].hi <= pos) {	/* lazily drop ended FDEs */
			h[0] = h[--nh];
			heap_down(h, nh, f);
		}
		if (!nh) {	/* a gap, or past the last FDE */
			err = out_row(t, pos, 0);
			if (i == n)
				break;
			pos = f[i].lo;
			continue;
		}
		end = f[h[0]].hi;
		if (i < n && f[i].lo < end)
			end = f[i].lo;
		err = out_fde(t, &f[h[0]], pos, end);
		pos = end;
	}
	free(h);
	return err;
}

/* Keep the rules rows use, INVALID first, in order of first use. */
static int compact_rules(struct uw_table *t)
{
	uint32_t *map = malloc(t->nrules * sizeof(*map));
	struct lt_uw_rule *rules;
	size_t n = 1;

	if (!map)
		return -ENOMEM;
	rules = malloc(t->nrules * sizeof(*rules));
	if (!rules) {
		free(map);
		return -ENOMEM;
	}
	memset(map, 0xff, t->nrules * sizeof(*map));
	map[0] = 0;
	rules[0] = t->rules[0];
	for (size_t i = 0; i < t->nrows; i++) {
		uint32_t r = t->rows[i].rule;

		if (map[r] == UINT32_MAX) {
			map[r] = (uint32_t)n;
			rules[n++] = t->rules[r];
		}
		t->rows[i].rule = map[r];
	}
	free(map);
	free(t->rules);
	t->rules = rules;
	t->nrules = t->rules_cap = n;
	return 0;
}

/* Resolve overlaps, merge, dedupe; the building state is freed. */
int uw_table__finish(struct uw_table *t)
{
	int err;

	if (!t || t->finished)
		return -EINVAL;
	err = sweep(t);
	if (!err)
		err = compact_rules(t);
	if (err)
		return err;
	t->finished = 1;
	free(t->fdes);
	free(t->brows);
	free(t->hash);
	t->fdes = NULL;
	t->brows = NULL;
	t->hash = NULL;
	t->nfdes = t->nbrows = t->fdes_cap = t->brows_cap = t->hash_cap = 0;
	return 0;
}

/* -- Public API ----------------------------------------------------------- */

/* An empty table whose rule 0 is LT_UW_INVALID. */
struct uw_table *uw_table__new(void)
{
	struct uw_table *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	if (rule_intern(t, (struct lt_uw_rule){ .kind = LT_UW_INVALID }) != 0) {
		uw_table__delete(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

/* Set the DW_EH_PE_datarel base. */
void uw_table__set_datarel_base(struct uw_table *t, uint64_t vaddr)
{
	if (!t)
		return;
	t->dbase = vaddr;
	t->has_dbase = 1;
}

/* Free everything; NULL is fine. */
void uw_table__delete(struct uw_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->rules);
	free(t->hash);
	free(t->fdes);
	free(t->brows);
	free(t);
}

/* Rows (0 before finish). */
size_t uw_table__nrows(const struct uw_table *t)
{
	return t && t->finished ? t->nrows : 0;
}

/* The row array, or NULL before finish. */
const struct lt_uw_row *uw_table__rows(const struct uw_table *t)
{
	return t && t->finished ? t->rows : NULL;
}

/* Rules (0 before finish). */
size_t uw_table__nrules(const struct uw_table *t)
{
	return t && t->finished ? t->nrules : 0;
}

/* The rule array, or NULL before finish. */
const struct lt_uw_rule *uw_table__rules(const struct uw_table *t)
{
	return t && t->finished ? t->rules : NULL;
}

/* Skipped CIEs/FDEs. */
size_t uw_table__nbad(const struct uw_table *t)
{
	return t ? t->nbad : 0;
}

/* Binary search for the last row at or below vaddr. */
const struct lt_uw_rule *uw_table__lookup(const struct uw_table *t, uint64_t vaddr)
{
	size_t lo;

	if (!t || !t->finished || !t->nrows)
		return NULL;
	lo = search__upper_w(t->rows, t->nrows, sizeof(*t->rows), offsetof(struct lt_uw_row, pc_off),
			     4, vaddr);
	return lo ? &t->rules[t->rows[lo - 1].rule] : NULL;
}

/* -- ELF files ------------------------------------------------------------ */

/* elfframe__each's callback: add one section. */
static int add_elf_section(void *arg, const uint8_t *data, size_t len, uint64_t vaddr, int is_eh)
{
	return uw_table__add_section(arg, data, len, vaddr, is_eh);
}

/* Build the table of an open libelf handle: NULL + errno. */
static struct uw_table *from_elf(Elf *elf)
{
	struct uw_table *t = uw_table__new();
	int err;

	if (!t)
		return NULL;
	err = elfframe__each(elf, add_elf_section, t, &t->nbad);
	if (!err)
		err = uw_table__finish(t);
	if (!err && !t->nrows)
		err = -ENODATA;
	if (err) {
		uw_table__delete(t);
		errno = -err;
		return NULL;
	}
	return t;
}

static void *build(Elf *elf)
{
	return from_elf(elf);
}

/* Build from an open regular file; the fd stays open. */
struct uw_table *uw_table__from_elf_fd(int fd)
{
	return elfframe__build_fd(fd, build);
}

/* Build from an image in memory, through a private copy libelf may modify. */
struct uw_table *uw_table__from_elf_mem(const void *buf, size_t len)
{
	return elfframe__build_mem(buf, len, build);
}
