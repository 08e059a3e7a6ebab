/*
** Folded stacks ("collapsed", Brendan Gregg): export and import.
**
** The format has no escaping, so names are made safe for every consumer
** (flamegraph.pl, inferno, speedscope, flamelens) instead; see
** research/tui_survey.md d1 for the rules this follows.
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memrchr, strchrnul, qsort_r, even when built without -D */
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "export/folded.h"

#define KSUFFIX		"_[k]"
#define JSUFFIX		"_[j]"
#define SUFFIX_LEN	4
#define COUNT_MAX	(UINT64_C(1) << 63)	/* largest count folded__read takes */

/* -- Sanitizing --------------------------------------------------------- */

/* Replacement for an ASCII byte: ';' splits frames, controls break lines. */
static char ascii_safe(unsigned char c)
{
	if (c == ';')
		return ':';
	if (c < 0x20 || c == 0x7f)
		return '?';
	return (char)c;
}

/* Turn a trailing " 12" or " 1.5" into "_12": flamegraph.pl and inferno read it as a count. */
static void unnumber(char *s, size_t len)
{
	size_t i = len, d;

	while (i && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i && s[i - 1] == '.') {	/* "\d+\.\d*" */
		d = --i;
		while (i && s[i - 1] >= '0' && s[i - 1] <= '9')
			i--;
		if (i == d)
			return;
	} else if (i == len) {
		return;
	}
	if (i && s[i - 1] == ' ')
		s[i - 1] = '_';
}

/* Sanitize one frame name into out; returns the length written. */
size_t folded__sanitize(const char *name, char *out, size_t outsz)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)name;
	size_t len = 0, n, w;
	char tmp[4];

	if (!outsz)
		return 0;
	if (!s || !*s)
		s = (const unsigned char *)"[unknown]";
	for (; *s; s += n) {
		const char *src = tmp;

		n = w = 1;
		if (*s < 0x80) {
			tmp[0] = ascii_safe(*s);
		} else if ((n = utf8_len(s))) {
			src = (const char *)s;
			w = n;
		} else {
			tmp[0] = '\\', tmp[1] = 'x';
			tmp[2] = hex[*s >> 4], tmp[3] = hex[*s & 15];
			n = 1, w = 4;
		}
		if (w > outsz - 1 - len)
			break;	/* never split a character or an escape */
		memcpy(out + len, src, w);
		len += w;
	}
	out[len] = '\0';
	unnumber(out, len);
	return len;
}

/* -- Writing ------------------------------------------------------------ */

size_t folded__frame_name(const struct frame *fr, char *out, size_t outsz)
{
	size_t n;

	if (outsz < SUFFIX_LEN + 1)
		return 0;
	n = folded__sanitize(fr ? fr->name : NULL, out, outsz - SUFFIX_LEN);
	if (fr && fr->kind == FRAME_KERNEL) {
		memcpy(out + n, KSUFFIX, SUFFIX_LEN + 1);
		n += SUFFIX_LEN;
	}
	/* Anything ending "_[k]" reads back as a kernel frame named by the rest,
	** and that name will be unnumbered: do it now, so the output reads and
	** writes back to the same bytes. */
	if (n > SUFFIX_LEN && !memcmp(out + n - SUFFIX_LEN, KSUFFIX, SUFFIX_LEN))
		unnumber(out, n - SUFFIX_LEN);
	return n;
}

struct buf {
	char *p;
	size_t n, cap;
};

struct line {
	size_t off;		/* into the text buffer */
	size_t len;		/* without the '\n' */
	uint64_t count;
};

struct wr {
	const struct frametab *ft;
	uint32_t nframes;	/* frames in ft; id nframes stands for any bad id */
	size_t *name_off;	/* id -> offset + 1 of its name in names, 0 = not rendered */
	size_t *name_len;
	struct buf names;	/* rendered frame names, back to back */
	struct buf text;	/* stack texts, then whole lines */
	struct line *lines;
	size_t nlines, cap;
};

/* Append n bytes to b. */
static int buf_put(struct buf *b, const void *s, size_t n)
{
	if (!n)
		return 0;
	if (n > b->cap - b->n) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap - b->n < n) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	return 0;
}

/* Render frame id into w->names on first use; its offset and length there. */
static int wr_name(struct wr *w, uint32_t id, size_t *off, size_t *len)
{
	char tmp[FOLDED_NAME_MAX + 1 + SUFFIX_LEN];
	uint32_t k = id < w->nframes ? id : w->nframes;
	size_t n;

	if (!w->name_off[k]) {
		n = folded__frame_name(frametab__get(w->ft, id), tmp, sizeof(tmp));
		if (buf_put(&w->names, tmp, n))
			return -ENOMEM;
		w->name_off[k] = w->names.n - n + 1;
		w->name_len[k] = n;
	}
	*off = w->name_off[k] - 1;
	*len = w->name_len[k];
	return 0;
}

/* Make room for one more line record. */
static int wr_reserve(struct wr *w)
{
	size_t cap = w->cap ? w->cap * 2 : 1024;
	struct line *l;

	if (w->nlines < w->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(*l))
		return -ENOMEM;
	l = realloc(w->lines, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	w->lines = l;
	w->cap = cap;
	return 0;
}

/* stacktab__foreach callback: append the stack's text to w->text. */
static int wr_stack(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	struct wr *w = ctx;
	size_t start = w->text.n, off, len;
	uint32_t i;

	if (!n || !count)	/* no empty stacks, no zero counts */
		return 0;
	if (wr_reserve(w))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (i && buf_put(&w->text, ";", 1))
			return -ENOMEM;
		if (wr_name(w, frames[i], &off, &len) ||
		    buf_put(&w->text, w->names.p + off, len))
			return -ENOMEM;
	}
	w->lines[w->nlines++] = (struct line){ start, w->text.n - start, count };
	return 0;
}

/* Bytewise order of two lines, as LC_ALL=C sort; base is the text buffer. */
static int line_cmp(const void *pa, const void *pb, void *base)
{
	const struct line *a = pa, *b = pb;
	int c = memcmp((char *)base + a->off, (char *)base + b->off,
		       a->len < b->len ? a->len : b->len);

	if (c)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

/* Sort the stack texts and merge those that print the same. */
static void wr_merge(struct wr *w)
{
	size_t i, k = 0;

	qsort_r(w->lines, w->nlines, sizeof(*w->lines), line_cmp, w->text.p);
	for (i = 0; i < w->nlines; i++) {
		struct line *l = &w->lines[i];

		if (k && !line_cmp(&w->lines[k - 1], l, w->text.p)) {
			uint64_t *c = &w->lines[k - 1].count;

			*c = *c > UINT64_MAX - l->count ? UINT64_MAX : *c + l->count;
		} else {
			w->lines[k++] = *l;
		}
	}
	w->nlines = k;
}

/* Replace the stack texts by whole lines "stack count\n", sorted. */
static int wr_lines(struct wr *w)
{
	struct buf text = { 0 };
	char num[24];
	size_t i;

	for (i = 0; i < w->nlines; i++) {
		struct line *l = &w->lines[i];
		size_t off = text.n;
		/* Clamped so that folded__read can take back whatever we write. */
		uint64_t count = l->count > COUNT_MAX ? COUNT_MAX : l->count;
		int n = snprintf(num, sizeof(num), " %" PRIu64, count);

		if (buf_put(&text, w->text.p + l->off, l->len) ||
		    buf_put(&text, num, (size_t)n) || buf_put(&text, "\n", 1)) {
			free(text.p);
			return -ENOMEM;
		}
		l->off = off;
		l->len = text.n - off - 1;
	}
	free(w->text.p);
	w->text = text;
	/* "a 5" vs "a 1x 3": the count takes part in the order, so sort again. */
	qsort_r(w->lines, w->nlines, sizeof(*w->lines), line_cmp, w->text.p);
	return 0;
}

/* Write the sorted lines out; 0 or -errno. */
static int wr_out(struct wr *w, FILE *f)
{
	size_t i;

	errno = 0;
	for (i = 0; i < w->nlines; i++) {
		const struct line *l = &w->lines[i];

		if (fwrite(w->text.p + l->off, 1, l->len + 1, f) != l->len + 1)
			return errno ? -errno : -EIO;
	}
	if (fflush(f))
		return errno ? -errno : -EIO;
	return 0;
}

/* Write every non-empty stack of st as one folded line. */
int folded__write(FILE *f, const struct frametab *ft, const struct stacktab *st)
{
	struct wr w = { .ft = ft, .nframes = frametab__count(ft) };
	int err = -ENOMEM;

	w.name_off = calloc((size_t)w.nframes + 1, sizeof(*w.name_off));
	w.name_len = calloc((size_t)w.nframes + 1, sizeof(*w.name_len));
	if (!w.name_off || !w.name_len)
		goto out;
	err = stacktab__foreach(st, wr_stack, &w);
	if (err)
		goto out;
	free(w.names.p);	/* every name is in the texts now */
	w.names.p = NULL;
	if (!w.nlines)
		goto flush;	/* qsort_r and memcmp want non-NULL pointers */
	wr_merge(&w);
	err = wr_lines(&w);
	if (err)
		goto out;
flush:
	err = wr_out(&w, f);
out:
	free(w.name_off);
	free(w.name_len);
	free(w.names.p);
	free(w.text.p);
	free(w.lines);
	return err;
}

/* -- Reading ------------------------------------------------------------ */

struct rd {
	FILE *f;
	struct frametab *ft;
	struct stacktab *st;
	char *line;		/* the current line, not NUL-terminated */
	size_t size;		/* bytes allocated for line, up to FOLDED_LINE_MAX + 1 */
	uint32_t *ids;		/* frame ids of the current line */
	size_t nids, cap;
	const char *why;	/* what is wrong with the line, for -EINVAL */
	uint64_t total;		/* of the counts so far, below 2^64 */
};

/* Double the line buffer; it starts small because most lines are. */
static int rd_grow(struct rd *r)
{
	size_t size = r->size ? r->size * 2 : 4096;
	char *p;

	if (size > FOLDED_LINE_MAX + 1)
		size = FOLDED_LINE_MAX + 1;
	p = realloc(r->line, size);
	if (!p)
		return -ENOMEM;
	r->line = p;
	r->size = size;
	return 0;
}

/* Next line into r->line without its EOL; 1, 0 at end of file, -E2BIG, -EIO or -ENOMEM. */
static int rd_line(struct rd *r, size_t *len)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
		if (n > FOLDED_LINE_MAX)	/* even a '\r' here leaves it too long */
			return -E2BIG;
		if (n == r->size && rd_grow(r))
			return -ENOMEM;
		r->line[n++] = (char)c;
	}
	if (c == EOF && ferror(r->f))
		return -EIO;
	if (c == EOF && !n)
		return 0;
	if (n && r->line[n - 1] == '\r')
		n--;
	if (n > FOLDED_LINE_MAX)
		return -E2BIG;
	*len = n;
	return 1;
}

/* Whether the line is only spaces and tabs. */
static int rd_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/* Parse the count in [p, end): a positive decimal integer up to 2^63. */
static int rd_count(struct rd *r, const char *p, const char *end, uint64_t *count)
{
	uint64_t v = 0;

	r->why = "count is not a positive integer";
	if (p == end)
		return -EINVAL;
	for (; p < end; p++) {
		unsigned d = (unsigned char)*p - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (COUNT_MAX - d) / 10) {
			r->why = "count is above 2^63";
			return -EINVAL;
		}
		v = v * 10 + d;
	}
	*count = v;
	return v ? 0 : -EINVAL;
}

uint32_t folded__intern(struct frametab *ft, char *name, size_t len)
{
	enum frame_kind kind = FRAME_NATIVE;

	if (len > SUFFIX_LEN && !memcmp(name + len - SUFFIX_LEN, KSUFFIX, SUFFIX_LEN))
		kind = FRAME_KERNEL;
	else if (len > SUFFIX_LEN && !memcmp(name + len - SUFFIX_LEN, JSUFFIX, SUFFIX_LEN))
		kind = FRAME_LUA_JIT;
	else if (!strcmp(name, frame__special_name(SPECIAL_FALLBACK)) ||
		 !strcmp(name, frame__special_name(SPECIAL_IDLE)) || !strcmp(name, "-"))
		kind = FRAME_SPECIAL;
	if (kind == FRAME_KERNEL || kind == FRAME_LUA_JIT)
		name[len - SUFFIX_LEN] = '\0';
	return frametab__intern(ft, kind, name, NULL);
}

/* Intern one frame of a folded line, decoding the kind from its suffix. */
static int rd_frame(struct rd *r, char *name, size_t len)
{
	uint32_t id, *ids;
	if (r->nids == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;

		ids = realloc(r->ids, cap * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		r->ids = ids;
		r->cap = cap;
	}
	id = folded__intern(r->ft, name, len);
	if (id == UINT32_MAX)
		return -ENOMEM;
	r->ids[r->nids++] = id;
	return 0;
}

/* Parse one line (len bytes, no EOL) and add its stack. */
static int rd_parse(struct rd *r, char *s, size_t len)
{
	char *sp, *p, *end;
	uint64_t count;
	int err, last;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;	/* what other tools leave after the count */
	if (rd_blank(s, len))
		return 0;
	r->why = "NUL byte";
	if (memchr(s, '\0', len))
		return -EINVAL;	/* names are C strings */
	r->why = "no space before the count";
	sp = memrchr(s, ' ', len);
	if (!sp)
		return -EINVAL;
	err = rd_count(r, sp + 1, s + len, &count);
	if (err)
		return err;
	/* A sum that wraps or saturates would lose stacks or shares unseen. */
	r->why = "the counts add up to 2^64 or more";
	if (count > UINT64_MAX - r->total)
		return -EINVAL;
	r->total += count;
	*sp = '\0';
	r->nids = 0;
	for (p = s;; p = end + 1) {
		end = strchrnul(p, ';');
		r->why = "empty frame";
		if (end == p)
			return -EINVAL;
		last = !*end;
		*end = '\0';
		err = rd_frame(r, p, (size_t)(end - p));
		if (err || last)
			break;
	}
	if (!err)
		err = stacktab__add(r->st, r->ids, (uint32_t)r->nids, count);
	return err;
}

/* Read folded lines from f into ft and st. */
int folded__read(FILE *f, struct frametab *ft, struct stacktab *st, char *err, size_t errlen)
{
	struct rd r = { .f = f, .ft = ft, .st = st };
	size_t lineno = 0, len;
	int ret;

	flockfile(f);	/* once, so getc_unlocked is safe */
	while (++lineno, (ret = rd_line(&r, &len)) > 0) {
		ret = rd_parse(&r, r.line, len);
		if (ret)
			break;
	}
	funlockfile(f);
	if (ret == -E2BIG) {
		ret = -EINVAL;
		r.why = "longer than 1 MiB";
	} else if (ret == -EIO) {
		r.why = "read error";
	} else if (ret == -ENOMEM) {
		r.why = "out of memory";
	}
	if (err && errlen) {
		if (ret)
			snprintf(err, errlen, "line %zu: %s", lineno, r.why);
		else
			err[0] = '\0';
	}
	free(r.line);
	free(r.ids);
	return ret;
}

/* stacktab__foreach callback: sum the counts of non-empty stacks. */
static int sum_stacks(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	uint64_t *total = ctx;

	(void)frames;
	if (n && (*total += count) < count)
		*total = UINT64_MAX;
	return 0;
}

/* Top's subtree of a call tree as folded stacks to f. */
int folded__write_tree(FILE *f, const struct frametab *ft, const struct calltree *t,
		       uint32_t top, enum ct_window w, int fallback_only, uint32_t fb_root,
		       uint64_t *total)
{
	struct stacktab *st = stacktab__new();
	uint64_t sum = 0;
	int err;

	if (!st)
		return -ENOMEM;
	err = calltree__to_stacks(t, top, w, fallback_only, fb_root, st);
	if (!err)
		err = folded__write(f, ft, st);
	if (!err)
		stacktab__foreach(st, sum_stacks, &sum);
	if (total)
		*total = sum;
	stacktab__delete(st);
	return err;
}
