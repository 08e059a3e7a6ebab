/*
** Unwind fixture text format, version 1:
**
**   luatop-unwind-fixture 1
**   comment TEXT
**   regs PC SP BP
**   stack BASE LEN            followed by LEN bytes as hex, 64 per line
**   mapping START END BIAS ROW_START ROW_COUNT
**   row PC_OFF RULE           rows indexed in file order
**   rule KIND CFA_REG CFA_OFF RBP_OFF
**   expect STOP NFRAMES       followed by NFRAMES "frame PC HOW" lines
**
** Numbers are hex (with 0x) or decimal. Only the rows the walk touches are kept:
** a binary search over a sorted subset that holds the row it found returns it.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/fixture.h"

#define FX_MAX_STACK	(1u << 20)
#define FX_MAX_ROWS	4096

/* -- Writing --------------------------------------------------------------- */

struct fx_pick {
	long rows[UW_FIXTURE_MAX_FRAMES];	/* full-table row of each frame, or -1 */
};

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The sorted distinct full-table rows of mapping m that frames touch. */
static unsigned rows_of(const struct fx_pick *p, unsigned n, const struct lt_uw_mapping *m,
			long *out)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (p->rows[i] >= (long)m->row_start &&
		    p->rows[i] < (long)m->row_start + (long)m->row_count)
			out[k++] = p->rows[i];
	qsort(out, k, sizeof(*out), cmp_long);
	for (unsigned i = 1, j = 1; i <= k; i++)
		if (i == k)
			k = j;
		else if (out[i] != out[j - 1])
			out[j++] = out[i];
	return k;
}

static void write_stack(FILE *f, const struct uw_snapshot *s)
{
	fprintf(f, "stack 0x%" PRIx64 " %zu\n", s->stack_base, s->stack_len);
	for (size_t i = 0; i < s->stack_len; i++)
		fprintf(f, "%02x%s", s->stack[i], (i % 64 == 63 || i + 1 == s->stack_len) ? "\n" : "");
}

int uw_fixture__write(FILE *f, const struct uw_snapshot *full, const uint64_t *pcs,
		      const uint8_t *hows, unsigned n, int stop, const char *comment)
{
	struct fx_pick p;
	long picked[UW_FIXTURE_MAX_FRAMES];
	unsigned next_row = 0, nrules = 0;
	uint32_t rule_ids[UW_FIXTURE_MAX_FRAMES];

	if (n > UW_FIXTURE_MAX_FRAMES || !full->proc)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		p.rows[i] = uw_replay_row(full, pcs[i], hows[i]);
	fprintf(f, "luatop-unwind-fixture 1\ncomment %s\n", comment ? comment : "");
	fprintf(f, "regs 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 "\n", full->pc, full->sp, full->bp);
	write_stack(f, full);
	/* Every mapping is kept (the mapping search must see the same list). */
	for (unsigned mi = 0; mi < full->proc->n && mi < LT_MAX_MAPPINGS; mi++) {
		const struct lt_uw_mapping *m = &full->proc->m[mi];
		unsigned k = m->row_count ? rows_of(&p, n, m, picked) : 0;

		/* A file with rows none of the frames needed keeps one, so its
		** row_count stays non-zero (zero means the frame-pointer fallback). */
		if (m->row_count && !k)
			picked[k++] = m->row_start;
		fprintf(f, "mapping 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %u %u\n",
			(uint64_t)m->start, (uint64_t)m->end, (uint64_t)m->bias, next_row, k);
		for (unsigned j = 0; j < k; j++) {
			const struct lt_uw_row *r = &full->rows[picked[j]];
			unsigned ri = 0;

			while (ri < nrules && rule_ids[ri] != r->rule)
				ri++;
			if (ri == nrules && nrules < UW_FIXTURE_MAX_FRAMES)
				rule_ids[nrules++] = r->rule;
			fprintf(f, "row 0x%x %u\n", r->pc_off, ri);
		}
		next_row += k;
	}
	for (unsigned ri = 0; ri < nrules; ri++) {
		const struct lt_uw_rule *r = &full->rules[rule_ids[ri]];

		fprintf(f, "rule %u %u %d %d\n", r->kind, r->cfa_reg, r->cfa_off, r->rbp_off);
	}
	fprintf(f, "expect %d %u\n", stop, n);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "frame 0x%" PRIx64 " %u\n", pcs[i], hows[i]);
	return ferror(f) ? -EIO : 0;
}

/* -- Reading --------------------------------------------------------------- */

struct fx_reader {
	FILE *f;
	unsigned line;
	char buf[512];
	char *err;
	size_t errlen;
};

static int fx_fail(struct fx_reader *r, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(r->err, r->errlen, "line %u: ", r->line);

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < r->errlen)
		vsnprintf(r->err + k, r->errlen - k, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int fx_line(struct fx_reader *r)
{
	if (!fgets(r->buf, sizeof(r->buf), r->f))
		return 0;
	r->line++;
	r->buf[strcspn(r->buf, "\n")] = 0;
	return 1;
}

static int read_stack(struct fx_reader *r, struct uw_fixture *fx, size_t len)
{
	uint8_t *st = malloc(len ? len : 1);
	size_t got = 0;

	if (!st)
		return -ENOMEM;
	fx->snap.stack = st;
	while (got < len && fx_line(r)) {
		for (char *p = r->buf; p[0] && p[1] && got < len; p += 2) {
			unsigned v;

			if (sscanf(p, "%2x", &v) != 1)
				return fx_fail(r, "bad stack byte");
			st[got++] = (uint8_t)v;
		}
	}
	if (got != len)
		return fx_fail(r, "stack has %zu of %zu bytes", got, len);
	fx->snap.stack_len = len;
	return 0;
}

/* Append to a growing array of fixed-size items. */
static void *grow(void *arr, size_t n, size_t item)
{
	return (n & (n - 1)) ? arr : realloc(arr, (n ? 2 * n : 1) * item);
}

static int parse_line(struct fx_reader *r, struct uw_fixture *fx, struct lt_uw_proc *proc)
{
	const char *b = r->buf;
	uint64_t a, c, d;
	unsigned u, v;
	int x, y;

	if (!strncmp(b, "comment ", 8)) {
		snprintf(fx->comment, sizeof(fx->comment), "%s", b + 8);
	} else if (sscanf(b, "regs %" SCNi64 " %" SCNi64 " %" SCNi64, &a, &c, &d) == 3) {
		fx->snap.pc = a;
		fx->snap.sp = c;
		fx->snap.bp = d;
	} else if (sscanf(b, "stack %" SCNi64 " %" SCNi64, &a, &c) == 2) {
		if (c > FX_MAX_STACK || fx->snap.stack)
			return fx_fail(r, "bad stack");
		fx->snap.stack_base = a;
		return read_stack(r, fx, (size_t)c);
	} else if (sscanf(b, "mapping %" SCNi64 " %" SCNi64 " %" SCNi64 " %u %u",
			  &a, &c, &d, &u, &v) == 5) {
		if (proc->n >= LT_MAX_MAPPINGS || c <= a)
			return fx_fail(r, "bad mapping");
		proc->m[proc->n++] = (struct lt_uw_mapping){ .start = a, .end = c, .bias = d,
							     .row_start = u, .row_count = v };
	} else if (sscanf(b, "row %" SCNi64 " %u", &a, &u) == 2) {
		struct lt_uw_row *rows;

		if (fx->snap.nrows >= FX_MAX_ROWS || a > 0xffffffffull)
			return fx_fail(r, "bad row");
		rows = grow((void *)fx->snap.rows, fx->snap.nrows, sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		rows[fx->snap.nrows++] = (struct lt_uw_row){ .pc_off = (uint32_t)a, .rule = u };
		fx->snap.rows = rows;
	} else if (sscanf(b, "rule %u %u %d %d", &u, &v, &x, &y) == 4) {
		struct lt_uw_rule *rules;

		if (fx->snap.nrules >= FX_MAX_ROWS || u >= LT_UW_KIND__COUNT || v > 255 ||
		    y < INT16_MIN || y > INT16_MAX)
			return fx_fail(r, "bad rule");
		rules = grow((void *)fx->snap.rules, fx->snap.nrules, sizeof(*rules));
		if (!rules)
			return -ENOMEM;
		rules[fx->snap.nrules++] = (struct lt_uw_rule){ .kind = (uint8_t)u,
			.cfa_reg = (uint8_t)v, .rbp_off = (int16_t)y, .cfa_off = x };
		fx->snap.rules = rules;
	} else if (sscanf(b, "expect %d %u", &x, &u) == 2) {
		if (x < 0 || x >= LT_STOP__COUNT || u > UW_FIXTURE_MAX_FRAMES)
			return fx_fail(r, "bad expect");
		fx->stop = x;
		for (unsigned i = 0; i < u; i++) {
			if (!fx_line(r) ||
			    sscanf(r->buf, "frame %" SCNi64 " %u", &a, &v) != 2 || v > 255)
				return fx_fail(r, "bad frame");
			fx->pcs[i] = a;
			fx->hows[i] = (uint8_t)v;
		}
		fx->nframes = u;
	} else if (b[0]) {
		return fx_fail(r, "unknown line '%.40s'", b);
	}
	return 0;
}

int uw_fixture__read(FILE *f, struct uw_fixture *out, char *err, size_t errlen)
{
	struct fx_reader r = { .f = f, .err = err, .errlen = errlen };
	struct lt_uw_proc *proc = calloc(1, sizeof(*proc));
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!proc)
		return -ENOMEM;
	out->snap.proc = proc;
	if (!fx_line(&r) || strcmp(r.buf, "luatop-unwind-fixture 1"))
		return fx_fail(&r, "not an unwind fixture");
	while (!rc && fx_line(&r))
		rc = parse_line(&r, out, proc);
	for (unsigned i = 0; !rc && i < proc->n; i++)
		if ((uint64_t)proc->m[i].row_start + proc->m[i].row_count > out->snap.nrows)
			rc = fx_fail(&r, "mapping %u rows out of range", i);
	return rc;
}

void uw_fixture__free(struct uw_fixture *fx)
{
	free((void *)fx->snap.proc);
	free((void *)fx->snap.stack);
	free((void *)fx->snap.rows);
	free((void *)fx->snap.rules);
	memset(fx, 0, sizeof(*fx));
}
