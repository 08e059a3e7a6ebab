/*
** /proc/kallsyms: "ADDR TYPE NAME[\t[MODULE]]" lines -> sorted text symbols.
**
** Names and module names are copied into one arena sized from the input, so
** each line costs one array entry and no allocation. Module names repeat on
** consecutive lines and are stored once per run.
*/
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hex.h"
#include "base/search.h"
#include "symbolize/kallsyms.h"
#include "symbolize/symorder.h"
#include "proc/readfile.h"

#define KS_NONE		UINT32_MAX	/* no module: the core kernel */
#define KS_NAME_MAX	1024		/* KSYM_NAME_LEN is 512; longer is truncated */
#define KS_READ_MAX	(512u << 20)	/* /proc/kallsyms at or beyond this is refused */

struct ks_sym {
	uint64_t addr;
	uint32_t name;		/* offset into names */
	uint32_t module;	/* offset into names, or KS_NONE */
	uint8_t rank;		/* dedupe preference among same-address symbols */
};

struct kallsyms {
	struct ks_sym *syms;	/* sorted by addr, one per addr */
	size_t n, nsyms_cap;
	char *names;
	size_t len, cap;	/* arena bytes used / allocated */
	uint32_t last_mod;	/* module of the previous line, for sharing */
};

/* A parsed line before copying. */
struct ks_line {
	uint64_t addr;
	char type;
	const char *name, *mod;	/* not NUL-terminated */
	size_t name_len, mod_len;	/* mod_len 0: core kernel */
};

/* -- Parsing -------------------------------------------------------------- */

/* Length of the run of non-blank characters at p. */
static size_t word_len(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return (size_t)(p - s);
}

/* Split one line (without '\n'); -EINVAL for a line to skip. */
static int parse_line(const char *p, const char *end, struct ks_line *l)
{
	if (hex__parse(&p, end, &l->addr) || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return -EINVAL;
	l->type = p[1];
	p += 3;
	l->name = p;
	l->name_len = word_len(p, end);
	if (!l->name_len || memchr(l->name, '\0', l->name_len))
		return -EINVAL;	/* names are C strings: a NUL would cut one short */
	p += l->name_len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	l->mod = NULL;
	l->mod_len = 0;
	if (p == end)
		return 0;
	if (*p != '[' || end[-1] != ']' || end - p < 3)
		return -EINVAL;
	l->mod = p + 1;
	l->mod_len = (size_t)(end - p - 2);
	if (memchr(l->mod, '\0', l->mod_len))
		return -EINVAL;
	return 0;
}

/* Text symbols only: code addresses are what stacks contain. */
static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* -- Building ------------------------------------------------------------- */

/* Copy len bytes plus a NUL into the arena; the offset, or KS_NONE if full. */
static uint32_t arena_add(struct kallsyms *k, const char *s, size_t len)
{
	size_t off = k->len;

	if (len > KS_NAME_MAX)
		len = KS_NAME_MAX;
	if (len + 1 > k->cap - off)
		return KS_NONE;	/* cannot happen: the arena is sized from the text */
	memcpy(k->names + off, s, len);
	k->names[off + len] = '\0';
	k->len = off + len + 1;
	return (uint32_t)off;
}

/* The arena offset of a module name, shared with the previous line when equal. */
static uint32_t module_add(struct kallsyms *k, const struct ks_line *l)
{
	size_t len = l->mod_len < KS_NAME_MAX ? l->mod_len : KS_NAME_MAX;

	if (k->last_mod != KS_NONE && strlen(k->names + k->last_mod) == len &&
	    !memcmp(k->names + k->last_mod, l->mod, len))
		return k->last_mod;
	k->last_mod = arena_add(k, l->mod, len);
	return k->last_mod;
}

/* Append a parsed text symbol. */
static int sym_add(struct kallsyms *k, const struct ks_line *l)
{
	struct ks_sym *sym;

	if (grow__room((void **)&k->syms, &k->nsyms_cap, k->n, sizeof(*k->syms)))
		return -ENOMEM;
	sym = &k->syms[k->n];
	sym->addr = l->addr;
	sym->module = l->mod_len ? module_add(k, l) : KS_NONE;
	sym->name = arena_add(k, l->name, l->name_len);
	if (sym->name == KS_NONE || (l->mod_len && sym->module == KS_NONE))
		return -ENOMEM;
	sym->rank = (uint8_t)((l->type == 'T' || l->type == 'W') << 1 | (l->name[0] != '_'));
	k->n++;
	return 0;
}

/* qsort_r order: address, then best rank first, then name for a stable result. */
static int cmp_sym(const void *a, const void *b, void *arg)
{
	const struct ks_sym *x = a, *y = b;
	const char *names = arg;

	return symorder__cmp(x->addr, x->rank, names + x->name, y->addr, y->rank, names + y->name);
}

/* Are the addresses in order already? The kernel lists its own by address
** (modules, when loaded, follow with theirs). */
static int by_address(const struct kallsyms *k)
{
	for (size_t i = 1; i < k->n; i++)
		if (k->syms[i - 1].addr > k->syms[i].addr)
			return 0;
	return 1;
}

/* Keep the best symbol of each address (the first in cmp_sym's order): a sort
** only when the addresses are out of order, else a pass over runs of one
** address (the parse of the kernel's 120k symbols took half the time). */
static void sort_dedupe(struct kallsyms *k)
{
	size_t j = 0;

	if (!by_address(k))
		qsort_r(k->syms, k->n, sizeof(*k->syms), cmp_sym, k->names);
	for (size_t i = 0; i < k->n; i++)
		if (!j || k->syms[j - 1].addr != k->syms[i].addr)
			k->syms[j++] = k->syms[i];
		else if (cmp_sym(&k->syms[i], &k->syms[j - 1], k->names) < 0)
			k->syms[j - 1] = k->syms[i];
	k->n = j;
}

/* Allocate the arena for text of len bytes (the symbols grow as parsed). */
static struct kallsyms *ks_alloc(size_t len)
{
	struct kallsyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->last_mod = KS_NONE;
	k->cap = len + 1;	/* each name/module is followed by a byte it can't use */
	k->names = malloc(k->cap);
	if (!k->names) {
		kallsyms__delete(k);
		return NULL;
	}
	return k;
}

/* Parse every line into k; sets *nonzero when some address (any type) is not 0. */
static int parse_all(struct kallsyms *k, const char *text, size_t len, int *nonzero)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct ks_line l;

		if (!parse_line(p, eol, &l)) {
			*nonzero |= l.addr != 0;
			if (is_text(l.type) && l.addr && sym_add(k, &l))
				return -ENOMEM;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* Parse kallsyms text into a sorted table. */
int kallsyms__parse(const char *text, size_t len, struct kallsyms **out)
{
	struct kallsyms *k;
	int nonzero = 0, err;

	if (!out || (!text && len))
		return -EINVAL;
	*out = NULL;
	if (len > UINT32_MAX - 2)	/* arena offsets are 32-bit */
		return -ENOMEM;
	k = ks_alloc(len);
	if (!k)
		return -ENOMEM;
	err = parse_all(k, text, len, &nonzero);
	if (!err && !nonzero && len)
		err = -EPERM;	/* kptr_restrict: every address reads as 0 */
	if (err) {
		kallsyms__delete(k);
		return err;
	}
	sort_dedupe(k);
	*out = k;
	return 0;
}

/* -- Loading -------------------------------------------------------------- */

/* A pass of its own: the table keeps text symbols only, and the names asked for
** may be data (the ORC tables' bounds). */
unsigned kallsyms__find(const char *text, size_t len, const char *const *names, uint64_t *addrs,
			unsigned n)
{
	const char *p = text, *end = text + len;
	unsigned found = 0;

	for (unsigned i = 0; i < n; i++)
		addrs[i] = 0;
	while (p < end && found < n) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		struct ks_line l;

		if (!parse_line(p, eol, &l) && !l.mod_len)
			for (unsigned i = 0; i < n; i++)
				if (!addrs[i] && strlen(names[i]) == l.name_len &&
				    !memcmp(names[i], l.name, l.name_len)) {
					addrs[i] = l.addr;
					found++;
				}
		p = eol + 1;
	}
	return found;
}

int kallsyms__read(char **text, size_t *len)
{
	return readfile__all("/proc/kallsyms", KS_READ_MAX, text, len);
}

struct kallsyms *kallsyms__of_text(const char *text, size_t len)
{
	struct kallsyms *k = NULL;
	int err = kallsyms__parse(text, len, &k);

	if (!err && !k->n) {
		kallsyms__delete(k);
		err = -ENOENT;
	}
	if (err) {
		errno = -err;
		return NULL;
	}
	return k;
}

struct kallsyms *kallsyms__load(void)
{
	struct kallsyms *k;
	char *buf = NULL;
	size_t len = 0;
	int err = kallsyms__read(&buf, &len);

	if (err) {
		errno = -err;
		return NULL;
	}
	k = kallsyms__of_text(buf, len);
	err = errno;
	free(buf);
	errno = err;
	return k;
}

/* Nearest text symbol at or below addr. */
const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr, const char **module)
{
	return kallsyms__lookup_off(k, addr, module, NULL);
}

/* Nearest text symbol at or below addr, with the offset into it. */
const char *kallsyms__lookup_off(const struct kallsyms *k, uint64_t addr, const char **module,
				 uint64_t *sym_off)
{
	const struct ks_sym *sym;
	size_t lo;

	if (module)
		*module = NULL;
	if (!k || !k->n)
		return NULL;
	lo = search__upper(k->syms, k->n, sizeof(*k->syms), offsetof(struct ks_sym, addr), addr);
	if (!lo)
		return NULL;
	sym = &k->syms[lo - 1];
	if (module && sym->module != KS_NONE)
		*module = k->names + sym->module;
	if (sym_off)
		*sym_off = addr - sym->addr;
	return k->names + sym->name;
}

/* Number of distinct text symbol addresses. */
size_t kallsyms__count(const struct kallsyms *k)
{
	return k ? k->n : 0;
}

/* Free everything; NULL is fine. */
void kallsyms__delete(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}
