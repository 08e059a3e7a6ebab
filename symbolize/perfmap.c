/*
** perf map files: "START SIZE name" lines -> disjoint sorted address ranges.
**
** The file lives in the target's /tmp and anyone may have written it: lines are
** length-capped, entries and name bytes are bounded, and every number is checked.
** Overrides are resolved once, at load: a sweep over all range boundaries keeps,
** for each elementary interval, the covering entry that came last in the file.
** Lookups are then a binary search over disjoint segments.
*/
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/hex.h"
#include "base/search.h"
#include "symbolize/perfmap.h"

#define PM_ARENA_MAX	(128u << 20)	/* name bytes; lines beyond are ignored */
#define PM_READ_CHUNK	(64 * 1024)
#define PM_READ_MAX	(1ull << 30)	/* stop reading a file after 1 GiB */

/* One line as read. */
struct pm_ent {
	uint64_t start, end;	/* [start, end) */
	uint32_t name;		/* offset into the build arena */
	uint32_t seq;		/* line order: higher wins */
};

/* One disjoint range after overrides. */
struct pm_seg {
	uint64_t start, end;	/* [start, end) */
	uint64_t base;		/* start of the entry it belongs to */
	uint32_t name;		/* offset into names */
};

struct perfmap {
	struct pm_seg *segs;	/* sorted, disjoint */
	size_t n;
	char *names;
};

/* Entries being collected. */
struct pm_build {
	struct pm_ent *e;
	size_t n, cap;
	struct arena names;	/* every line's name (max PM_ARENA_MAX) */
	int err;		/* first -ENOMEM */
	uint8_t full;		/* entry or arena limit reached: ignore the rest */
};

/* -- Parsing -------------------------------------------------------------- */

/* Skip blanks; returns how many. */
static size_t skip_blanks(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	return (size_t)(*p - s);
}

/* Parse an optional 0x and 1..16 hex digits. */
static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	if (end - *p > 2 && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	return hex__parse(p, end, v);
}

/* Add one line (without its '\n'); malformed lines are skipped. */
static void add_line(struct pm_build *b, const char *p, const char *end)
{
	uint64_t start, size;
	int64_t name;

	if (b->full || b->err || end - p > PERFMAP_LINE_MAX)
		return;
	if (end > p && end[-1] == '\r')
		end--;
	skip_blanks(&p, end);
	if (parse_hex(&p, end, &start) || !skip_blanks(&p, end) ||
	    parse_hex(&p, end, &size) || !skip_blanks(&p, end) || p == end)
		return;
	if (!size || start + size < start || start + size == 0)
		return;		/* empty or wrapping range */
	if (b->n == PERFMAP_ENTRIES_MAX) {
		b->full = 1;
		return;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		struct pm_ent *e = realloc(b->e, cap * sizeof(*e));

		if (!e) {
			b->err = -ENOMEM;
			return;
		}
		b->e = e;
		b->cap = cap;
	}
	name = arena__add(&b->names, p, (size_t)(end - p));
	if (name == -ENOSPC)
		b->full = 1;	/* keep what fits */
	else if (name < 0)
		b->err = (int)name;
	if (name < 0)
		return;
	b->e[b->n] = (struct pm_ent){ start, start + size, (uint32_t)name, (uint32_t)b->n };
	b->n++;
}

/* -- Resolving overrides -------------------------------------------------- */

/* qsort order of entries: by start. */
static int cmp_ent(const void *a, const void *b)
{
	const struct pm_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* qsort order of addresses. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Push entry i on a max-heap of entry indices ordered by seq. */
static void heap_push(uint32_t *h, size_t *n, const struct pm_ent *e, uint32_t i)
{
	size_t at = (*n)++;

	while (at) {
		size_t up = (at - 1) / 2;

		if (e[h[up]].seq >= e[i].seq)
			break;
		h[at] = h[up];
		at = up;
	}
	h[at] = i;
}

/* Remove the top of the heap. */
static void heap_pop(uint32_t *h, size_t *n, const struct pm_ent *e)
{
	uint32_t last = h[--(*n)];
	size_t at = 0;

	for (;;) {
		size_t c = 2 * at + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && e[h[c + 1]].seq > e[h[c]].seq)
			c++;
		if (e[h[c]].seq <= e[last].seq)
			break;
		h[at] = h[c];
		at = c;
	}
	if (*n)
		h[at] = last;
}

/* Copy the names still referenced into a fresh arena owned by pm. */
static int keep_names(struct perfmap *pm, const struct pm_build *b)
{
	size_t len = 0, off = 0;
	uint32_t prev = UINT32_MAX, prev_new = 0;

	for (size_t i = 0; i < pm->n; i++)
		len += strlen(b->names.buf + pm->segs[i].name) + 1;
	pm->names = malloc(len ? len : 1);
	if (!pm->names)
		return -ENOMEM;
	for (size_t i = 0; i < pm->n; i++) {
		uint32_t old = pm->segs[i].name;

		if (old != prev) {	/* an entry split by an override repeats */
			size_t l = strlen(b->names.buf + old) + 1;

			memcpy(pm->names + off, b->names.buf + old, l);
			prev_new = (uint32_t)off;
			off += l;
			prev = old;
		}
		pm->segs[i].name = prev_new;
	}
	return 0;
}

/* Turn collected entries into disjoint segments, the latest line winning. */
static struct perfmap *resolve(struct pm_build *b)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));
	uint64_t *pts = NULL;
	uint32_t *heap = NULL;
	size_t np = 0, hn = 0, k = 0;

	if (!pm)
		return NULL;
	if (b->n) {
		pts = malloc(2 * b->n * sizeof(*pts));
		heap = malloc(b->n * sizeof(*heap));
		pm->segs = malloc(2 * b->n * sizeof(*pm->segs));
		if (!pts || !heap || !pm->segs)
			goto fail;
		qsort(b->e, b->n, sizeof(*b->e), cmp_ent);
		for (size_t i = 0; i < b->n; i++) {
			pts[np++] = b->e[i].start;
			pts[np++] = b->e[i].end;
		}
		qsort(pts, np, sizeof(*pts), cmp_u64);
	}
	for (size_t i = 0, all = np; i < all; i++) {	/* each boundary once */
		if (!i)
			np = 0;
		if (!np || pts[np - 1] != pts[i])
			pts[np++] = pts[i];
	}
	for (size_t i = 0; i + 1 < np; i++) {	/* [pts[i], pts[i + 1]) has one owner */
		const struct pm_ent *top;
		struct pm_seg *last;

		while (k < b->n && b->e[k].start <= pts[i])
			heap_push(heap, &hn, b->e, (uint32_t)k++);
		while (hn && b->e[heap[0]].end <= pts[i])
			heap_pop(heap, &hn, b->e);
		if (!hn)
			continue;	/* a gap */
		top = &b->e[heap[0]];
		last = pm->n ? &pm->segs[pm->n - 1] : NULL;
		if (last && last->end == pts[i] && last->base == top->start &&
		    last->name == top->name)
			last->end = pts[i + 1];
		else
			pm->segs[pm->n++] = (struct pm_seg){ pts[i], pts[i + 1], top->start,
							     top->name };
	}
	free(pts);
	free(heap);
	pts = NULL;
	heap = NULL;
	if (keep_names(pm, b))
		goto fail;
	return pm;
fail:
	free(pts);
	free(heap);
	perfmap__delete(pm);
	return NULL;
}

/* Free the build state. */
static void build_free(struct pm_build *b)
{
	free(b->e);
	arena__free(&b->names);
}

/* Resolve and free the build state; NULL + errno. */
static struct perfmap *build_done(struct pm_build *b)
{
	struct perfmap *pm = b->err ? NULL : resolve(b);

	build_free(b);
	if (!pm)
		errno = ENOMEM;
	return pm;
}

/* -- Public API ----------------------------------------------------------- */

/* Parse perf map text. */
struct perfmap *perfmap__parse(const char *text, size_t len)
{
	struct pm_build b = { .names.max = PM_ARENA_MAX };
	const char *p = text, *end = text + len;

	if (!text && len) {
		errno = EINVAL;
		return NULL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		add_line(&b, p, eol);
		p = nl ? nl + 1 : end;
	}
	return build_done(&b);
}

/*
** Read a perf map file in chunks. A partial line longer than PERFMAP_LINE_MAX is
** dropped together with the rest of it, up to the next newline.
*/
struct perfmap *perfmap__read_fd(int fd)
{
	size_t cap = PM_READ_CHUNK + PERFMAP_LINE_MAX + 1, have = 0;
	struct pm_build b = { .names.max = PM_ARENA_MAX };
	uint64_t total = 0;
	char *buf = malloc(cap);
	int skip = 0;

	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	while (!b.full && !b.err && total < PM_READ_MAX) {
		ssize_t r = read(fd, buf + have, cap - have);
		const char *p = buf, *nl;
		size_t rest;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			build_free(&b);
			errno = e;
			return NULL;
		}
		if (r == 0) {
			if (have && !skip)
				add_line(&b, buf, buf + have);
			break;
		}
		total += (uint64_t)r;
		have += (size_t)r;
		while ((nl = memchr(p, '\n', (size_t)(buf + have - p)))) {
			if (!skip)
				add_line(&b, p, nl);
			skip = 0;
			p = nl + 1;
		}
		rest = (size_t)(buf + have - p);
		if (rest > PERFMAP_LINE_MAX) {
			skip = 1;
			rest = 0;
		}
		memmove(buf, p, rest);
		have = rest;
	}
	free(buf);
	return build_done(&b);
}

/* Binary search for the segment holding addr. */
const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *sym_off)
{
	size_t lo;

	if (!pm || !pm->n)
		return NULL;
	lo = search__upper(pm->segs, pm->n, sizeof(*pm->segs), offsetof(struct pm_seg, start),
			   addr);
	if (!lo || addr >= pm->segs[lo - 1].end)
		return NULL;
	if (sym_off)
		*sym_off = addr - pm->segs[lo - 1].base;
	return pm->names + pm->segs[lo - 1].name;
}

/* Number of disjoint ranges. */
size_t perfmap__count(const struct perfmap *pm)
{
	return pm ? pm->n : 0;
}

/* Free everything; NULL is fine. */
void perfmap__delete(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->segs);
	free(pm->names);
	free(pm);
}
