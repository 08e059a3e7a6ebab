/*
** Walk fixture text format:
**
**   luatop-unwind-fixture V   1: native walks over a stack copy; 2: full walks
**   comment TEXT
**   regs PC SP BP [R14 RDX RBX]
**   gcache G                  (2) the thread's cached global_State
**   luacfg ENABLED G2DISP CUR_L VMSTATE JIT_BASE JIT_TRACE VM_LO VM_HI LEAF_LO
**          LEAF_HI FFI_LO FFI_HI [CP_RET]   (2) the process's LuaJIT facts
**   luawin CP_LEN LEAVE_OFS UNW_OFS UNW_CFA ENTRY_OFS LEN (x 4) LINK_OFS (x 8)
**                             (2, after luacfg; later, so optional; offsets from
**                             VM_LO) where a VM
**                             frame is outside L's chain or runs no Lua frame,
**                             and where a frame's link is being stored;
**                             UNW_CFA: its bytes as hex, "-" for none
**   read ADDR SIZE RC DATA    (2) the walk's reads of user memory, in order
**   stack BASE LEN            (1) followed by LEN bytes as hex, 64 per line
**   mapping START END BIAS ROW_START ROW_COUNT
**   row PC_OFF RULE           rows indexed in file order
**   rule KIND CFA_REG CFA_OFF RBP_OFF
**   expect STOP NFRAMES       followed by NFRAMES "frame PC HOW" lines
**   sample FLAGS VMSTATE G L NLUA     (2) followed by NLUA lines
**   lua KIND FFID LINK FLAGS FN ADDR PC
**   trace T HEADER            (2) the running trace's GCtrace and its first bytes
**
** Numbers are hex (with 0x) or decimal. Only the rows the walk touches are kept:
** a binary search over a sorted subset that holds the row it found returns it.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "walk/fixture.h"

#define FX_MAX_STACK	(1u << 20)
#define FX_MAX_ROWS	4096
#define FX_MAX_READS	(4 * LT_CAPTURE_READS)

/* -- Writing --------------------------------------------------------------- */

struct fx_pick {
	long rows[LT_MAX_USER];	/* full-table row of each frame, or -1 */
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

/* The luawin line: the VM's entry and exit windows (lt_lua_cfg). */
static void write_windows(FILE *f, const struct lt_lua_cfg *c)
{
	fprintf(f, "luawin %u 0x%x 0x%x ", c->cp_len, c->leave_ofs, c->unw_ofs);
	for (unsigned i = 0; i < c->unw_len && i < LT_LUA_UNW_MAX; i++)
		fprintf(f, "%02x", c->unw_cfa[i]);
	fputs(c->unw_len ? "" : "-", f);
	for (int k = 0; k < LT_LUA_ENTRIES; k++)
		fprintf(f, " 0x%x %u", c->entry_ofs[k], c->entry_len[k]);
	for (int k = 0; k < LT_LUA_LINK_STORES; k++)
		fprintf(f, " %u", c->link_ofs[k]);
	fputc('\n', f);
}

/* The walk's inputs besides the tables: registers, G cache, LuaJIT, memory. */
static void write_inputs(FILE *f, const struct uw_snapshot *s)
{
	const struct lt_uregs *r = &s->regs;
	const struct lt_lua_cfg *c = s->cfg;

	fprintf(f, "regs 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx\n", (unsigned long long)r->pc,
		(unsigned long long)r->sp, (unsigned long long)r->bp, (unsigned long long)r->r14,
		(unsigned long long)r->rdx, (unsigned long long)r->rbx);
	if (!s->reads) {
		write_stack(f, s);
		return;
	}
	fprintf(f, "gcache 0x%" PRIx64 " %d\n", s->cached_G, s->cached_own);
	if (c)
		fprintf(f, "luacfg %u %u %u %u %u %u 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx\n",
			c->enabled, c->g2disp, c->off_cur_L, c->off_vmstate, c->off_jit_base,
			c->off_jit_trace, (unsigned long long)c->vm_lo, (unsigned long long)c->vm_hi,
			(unsigned long long)c->leaf_lo, (unsigned long long)c->leaf_hi,
			(unsigned long long)c->ffi_lo, (unsigned long long)c->ffi_hi,
			(unsigned long long)c->cp_ret);
	if (c)
		write_windows(f, c);
	for (size_t i = 0; i < s->nreads; i++)
		fprintf(f, "read 0x%llx %u %d 0x%llx\n", (unsigned long long)s->reads[i].addr,
			s->reads[i].size, s->reads[i].rc, (unsigned long long)s->reads[i].data);
}

/* The kernel's result: user frames, then (version 2) flags, VM state, Lua frames. */
static void write_expect(FILE *f, const struct lt_sample *k, int full)
{
	unsigned n = k->n_user < LT_MAX_USER ? k->n_user : LT_MAX_USER;
	unsigned nl = k->n_lua < LT_MAX_LUA ? k->n_lua : LT_MAX_LUA;

	fprintf(f, "expect %d %u\n", k->user_stop, n);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "frame 0x%llx %u\n", (unsigned long long)k->user[i], k->user_how[i]);
	if (!full)
		return;
	fprintf(f, "sample 0x%x %d 0x%llx 0x%llx %u\n", k->flags, k->vmstate,
		(unsigned long long)k->G, (unsigned long long)k->L, nl);
	for (unsigned i = 0; i < nl; i++) {
		const struct lt_lua_frame *l = &k->lua[i];

		fprintf(f, "lua %u %u %u %u 0x%llx 0x%llx 0x%llx\n", l->kind, l->ffid, l->link,
			l->flags, (unsigned long long)l->fn, (unsigned long long)l->addr,
			(unsigned long long)l->pc);
	}
	if (k->trace_T) {
		fprintf(f, "trace 0x%llx ", (unsigned long long)k->trace_T);
		for (unsigned i = 0; i < LT_TRACE_HDR; i++)
			fprintf(f, "%02x", k->trace_hdr[i]);
		fputc('\n', f);
	}
}

int uw_fixture__write(FILE *f, const struct uw_snapshot *full, const struct lt_sample *kernel,
		      const char *comment)
{
	unsigned n = kernel->n_user < LT_MAX_USER ? kernel->n_user : LT_MAX_USER;
	unsigned next_row = 0, nrules = 0;
	uint32_t rule_ids[LT_MAX_USER];
	long picked[LT_MAX_USER];
	struct fx_pick p;

	if (!full->proc)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		p.rows[i] = uw_replay_row(full, kernel->user[i], kernel->user_how[i]);
	fprintf(f, "luatop-unwind-fixture %d\ncomment %s\n", full->reads ? 2 : 1,
		comment ? comment : "");
	write_inputs(f, full);
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
			if (ri == nrules && nrules < LT_MAX_USER)
				rule_ids[nrules++] = r->rule;
			fprintf(f, "row 0x%x %u\n", r->pc_off, ri);
		}
		next_row += k;
	}
	for (unsigned ri = 0; ri < nrules; ri++) {
		const struct lt_uw_rule *r = &full->rules[rule_ids[ri]];

		fprintf(f, "rule %u %u %d %d\n", r->kind, r->cfa_reg, r->cfa_off, r->rbp_off);
	}
	write_expect(f, kernel, full->reads != NULL);
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

/* "regs PC SP BP" (version 1) or with R14 RDX RBX (version 2). */
static int parse_regs(struct fx_reader *r, struct uw_fixture *fx)
{
	unsigned long long v[6] = { 0 };
	int n = sscanf(r->buf, "regs %llx %llx %llx %llx %llx %llx", &v[0], &v[1], &v[2], &v[3],
		       &v[4], &v[5]);

	if (n != 3 && n != 6)
		return fx_fail(r, "bad regs");
	fx->snap.regs = (struct lt_uregs){ .pc = v[0], .sp = v[1], .bp = v[2], .r14 = v[3],
					   .rdx = v[4], .rbx = v[5] };
	return 0;
}

static int parse_cfg(struct fx_reader *r, struct uw_fixture *fx)
{
	struct lt_lua_cfg *c = &fx->cfg;
	unsigned long long v[7] = { 0 };
	int n;

	/* cp_ret, the last, came later: fixtures captured before have 12 fields. */
	n = sscanf(r->buf, "luacfg %u %u %u %u %u %u %llx %llx %llx %llx %llx %llx %llx",
		   &c->enabled, &c->g2disp, &c->off_cur_L, &c->off_vmstate, &c->off_jit_base,
		   &c->off_jit_trace, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
	if (n != 12 && n != 13)
		return fx_fail(r, "bad luacfg");
	c->vm_lo = v[0], c->vm_hi = v[1], c->leaf_lo = v[2], c->leaf_hi = v[3];
	c->ffi_lo = v[4], c->ffi_hi = v[5], c->cp_ret = v[6];
	fx->snap.cfg = c;
	return 0;
}

/* UNW_CFA of a luawin line: two hex digits a byte, "-" for none. */
static int parse_unw(struct lt_lua_cfg *c, const char *hex)
{
	size_t len = strlen(hex);

	c->unw_len = 0;
	if (!strcmp(hex, "-"))
		return 0;
	if (len % 2 || len / 2 > LT_LUA_UNW_MAX)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		const char *p = hex + 2 * i;
		uint64_t b;

		if (hex__parse(&p, hex + 2 * i + 2, &b) || p != hex + 2 * i + 2)
			return -1;
		c->unw_cfa[i] = (__u8)b;
	}
	c->unw_len = (__u16)(len / 2);
	return 0;
}

static int parse_windows(struct fx_reader *r, struct uw_fixture *fx)
{
	struct lt_lua_cfg *c = &fx->cfg;
	unsigned long long lo[2 + LT_LUA_ENTRIES];
	unsigned len[1 + LT_LUA_ENTRIES + LT_LUA_LINK_STORES];
	char hex[2 * LT_LUA_UNW_MAX + 2];

	_Static_assert(LT_LUA_ENTRIES == 4 && LT_LUA_LINK_STORES == 8,
		       "luawin has four entries and eight link stores");
	if (!fx->snap.cfg ||
	    sscanf(r->buf, "luawin %u %llx %llx %41s %llx %u %llx %u %llx %u %llx %u"
		   " %u %u %u %u %u %u %u %u", &len[0], &lo[0], &lo[1], hex, &lo[2], &len[1],
		   &lo[3], &len[2], &lo[4], &len[3], &lo[5], &len[4], &len[5], &len[6],
		   &len[7], &len[8], &len[9], &len[10], &len[11], &len[12]) != 20 ||
	    parse_unw(c, hex))
		return fx_fail(r, "bad luawin");
	for (int i = 0; i < 1 + LT_LUA_ENTRIES + LT_LUA_LINK_STORES; i++)
		if (len[i] > 0xffff)
			return fx_fail(r, "bad luawin");
	for (int i = 0; i < 2 + LT_LUA_ENTRIES; i++)
		if (lo[i] > 0xffffffffull)
			return fx_fail(r, "bad luawin");
	for (int k = 0; k < LT_LUA_LINK_STORES; k++)
		c->link_ofs[k] = (__u16)len[1 + LT_LUA_ENTRIES + k];
	c->cp_len = (__u16)len[0], c->leave_ofs = (__u32)lo[0], c->unw_ofs = (__u32)lo[1];
	for (int k = 0; k < LT_LUA_ENTRIES; k++)
		c->entry_ofs[k] = (__u32)lo[2 + k], c->entry_len[k] = (__u16)len[1 + k];
	return 0;
}

static int parse_read(struct fx_reader *r, struct uw_fixture *fx)
{
	unsigned long long addr, data;
	struct lt_read *reads;
	unsigned size;
	int rc;

	if (sscanf(r->buf, "read %llx %u %d %llx", &addr, &size, &rc, &data) != 4 || !size ||
	    size > 8 || rc > 0 || fx->snap.nreads >= FX_MAX_READS)
		return fx_fail(r, "bad read");
	reads = grow((void *)fx->snap.reads, fx->snap.nreads, sizeof(*reads));
	if (!reads)
		return -ENOMEM;
	reads[fx->snap.nreads++] = (struct lt_read){ .addr = addr, .size = size, .rc = rc,
						     .data = data };
	fx->snap.reads = reads;
	return 0;
}

/* "trace T HEADER": the running trace as the kernel walk read it. */
static int parse_trace(struct fx_reader *r, struct uw_fixture *fx)
{
	unsigned long long T;
	int at = 0;
	const char *p;

	if (sscanf(r->buf, "trace %llx %n", &T, &at) != 1 || !at)
		return fx_fail(r, "bad trace");
	p = r->buf + at;
	for (unsigned i = 0; i < LT_TRACE_HDR; i++, p += 2) {
		unsigned v;

		if (!p[0] || !p[1] || sscanf(p, "%2x", &v) != 1)
			return fx_fail(r, "bad trace header");
		fx->expect->trace_hdr[i] = (uint8_t)v;
	}
	fx->expect->trace_T = T;
	return 0;
}

/* "sample FLAGS VMSTATE G L NLUA" and its NLUA "lua" lines. */
static int parse_sample(struct fx_reader *r, struct uw_fixture *fx)
{
	struct lt_sample *k = fx->expect;
	unsigned long long G, L, fn, addr, pc;
	unsigned flags, n, kind, ffid, link, lflags;
	int vmstate;

	if (sscanf(r->buf, "sample %x %d %llx %llx %u", &flags, &vmstate, &G, &L, &n) != 5 ||
	    flags > 0xffff || n > LT_MAX_LUA)
		return fx_fail(r, "bad sample");
	k->flags = (uint16_t)flags;
	k->vmstate = vmstate;
	k->G = G;
	k->L = L;
	for (unsigned i = 0; i < n; i++) {
		if (!fx_line(r) || sscanf(r->buf, "lua %u %u %u %u %llx %llx %llx", &kind, &ffid,
					  &link, &lflags, &fn, &addr, &pc) != 7 ||
		    kind > 255 || ffid > 255 || link > 255 || lflags > 255)
			return fx_fail(r, "bad lua frame");
		k->lua[i] = (struct lt_lua_frame){ .kind = (uint8_t)kind, .ffid = (uint8_t)ffid,
						   .link = (uint8_t)link, .flags = (uint8_t)lflags,
						   .fn = fn, .addr = addr, .pc = pc };
	}
	k->n_lua = (uint16_t)n;
	return 0;
}

static int parse_line(struct fx_reader *r, struct uw_fixture *fx, struct lt_uw_proc *proc)
{
	const char *b = r->buf;
	uint64_t a, c, d;
	unsigned u, v;
	int x, y;

	if (!strncmp(b, "comment ", 8)) {
		snprintf(fx->comment, sizeof(fx->comment), "%s", b + 8);
	} else if (!strncmp(b, "regs ", 5)) {
		return parse_regs(r, fx);
	} else if (sscanf(b, "gcache %" SCNx64, &a) == 1) {
		fx->snap.cached_G = a;
		fx->snap.cached_own = sscanf(b, "gcache %" SCNx64 " %d", &a, &x) == 2 && x;
	} else if (!strncmp(b, "luacfg ", 7)) {
		return parse_cfg(r, fx);
	} else if (!strncmp(b, "luawin ", 7)) {
		return parse_windows(r, fx);
	} else if (!strncmp(b, "read ", 5)) {
		return parse_read(r, fx);
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
		if (x < 0 || x >= LT_STOP__COUNT || u > LT_MAX_USER)
			return fx_fail(r, "bad expect");
		fx->expect->user_stop = (uint8_t)x;
		for (unsigned i = 0; i < u; i++) {
			if (!fx_line(r) ||
			    sscanf(r->buf, "frame %" SCNi64 " %u", &a, &v) != 2 || v > 255)
				return fx_fail(r, "bad frame");
			fx->expect->user[i] = a;
			fx->expect->user_how[i] = (uint8_t)v;
		}
		fx->expect->n_user = (uint16_t)u;
	} else if (!strncmp(b, "sample ", 7)) {
		return parse_sample(r, fx);
	} else if (!strncmp(b, "trace ", 6)) {
		return parse_trace(r, fx);
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
	out->expect = calloc(1, sizeof(*out->expect));
	if (!proc || !out->expect) {
		free(proc);
		return -ENOMEM;
	}
	out->snap.proc = proc;
	if (!fx_line(&r) || sscanf(r.buf, "luatop-unwind-fixture %d", &out->version) != 1 ||
	    (out->version != 1 && out->version != 2))
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
	free((void *)fx->snap.reads);
	free(fx->expect);
	memset(fx, 0, sizeof(*fx));
}
