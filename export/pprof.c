/*
** pprof export: profile.proto encoded by hand (varints and length-delimited
** fields), gzip'd with zlib. Field numbers are those of
** github.com/google/pprof/proto/profile.proto.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memrchr */
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/grow.h"
#include "base/strpool.h"
#include "export/folded.h"
#include "export/pprof.h"

/* Profile */
#define P_SAMPLE_TYPE	1
#define P_SAMPLE	2
#define P_MAPPING	3
#define P_LOCATION	4
#define P_FUNCTION	5
#define P_STRING	6
#define P_TIME		9
#define P_DURATION	10
#define P_PERIOD_TYPE	11
#define P_PERIOD	12
/* ValueType */
#define VT_TYPE		1
#define VT_UNIT		2
/* Sample */
#define S_LOCATION	1
#define S_VALUE		2
#define S_LABEL		3
/* Label */
#define LB_KEY		1
#define LB_STR		2
#define LB_NUM		3
/* Mapping */
#define M_ID		1
#define M_MEMORY_START	2
#define M_MEMORY_LIMIT	3
#define M_FILE_OFFSET	4
#define M_BUILD_ID	6
#define M_FILENAME	5
#define M_HAS_FUNCTIONS	7
/* Location */
#define L_ID		1
#define L_MAPPING	2
#define L_ADDRESS	3
#define L_LINE		4
/* Line */
#define LN_FUNCTION	1
#define LN_LINE		2
/* Function */
#define F_ID		1
#define F_NAME		2
#define F_SYSTEM_NAME	3
#define F_FILENAME	4
#define F_START_LINE	5

#define WT_VARINT	0
#define WT_LEN		2
#define KERNEL_MAPPING	"[kernel.kallsyms]"

struct pbuf {
	unsigned char *p;
	size_t n, cap;
	int err;		/* -ENOMEM once a put failed; later puts do nothing */
};

static void put_bytes(struct pbuf *b, const void *src, size_t len)
{
	if (b->err)
		return;
	while (b->n + len > b->cap) {
		if (grow__room((void **)&b->p, &b->cap, b->cap, 1)) {
			b->err = -ENOMEM;
			return;
		}
	}
	memcpy(b->p + b->n, src, len);
	b->n += len;
}

static void put_varint(struct pbuf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put_bytes(b, tmp, n);
}

static void put_uint(struct pbuf *b, unsigned field, uint64_t v)
{
	put_varint(b, (uint64_t)field << 3 | WT_VARINT);
	put_varint(b, v);
}

static void put_len(struct pbuf *b, unsigned field, const void *src, size_t len)
{
	put_varint(b, (uint64_t)field << 3 | WT_LEN);
	put_varint(b, len);
	put_bytes(b, src, len);
}

/* Append the message in sub as field of b, and empty sub for the next one. */
static void put_msg(struct pbuf *b, unsigned field, struct pbuf *sub)
{
	if (sub->err)
		b->err = sub->err;
	put_len(b, field, sub->p, sub->n);
	sub->n = 0;
}

/* -- The string table ------------------------------------------------------ */

struct strtab {
	struct strpool pool;	/* the strings, interned: one pointer per content */
	const char **list;	/* index -> string; list[0] is "" */
	size_t n, cap;
	struct { const char *s; uint64_t index; } *slots;	/* pointer -> index */
	size_t nslots;
	int err;		/* -ENOMEM once an index could not be given */
};

static uint64_t ptr_hash(const char *s)
{
	uintptr_t k = (uintptr_t)s;

	return strpool__hash(&k, sizeof(k));
}

static int strtab_rehash(struct strtab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	void *slots = calloc(n, sizeof(*t->slots));

	if (!slots)
		return -ENOMEM;
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = (size_t)ptr_hash(t->list[i]) & (n - 1);

		while (t->slots[j].s)
			j = (j + 1) & (n - 1);
		t->slots[j].s = t->list[i];
		t->slots[j].index = i;
	}
	return 0;
}

/* The index of str[0..len) in the table, added if new; on ENOMEM 0 and t->err set. */
static uint64_t strtab_index(struct strtab *t, const char *str, size_t len)
{
	const char *s = strpool__intern(&t->pool, str, len);
	size_t j;

	if (!s || ((t->n + 1) * 2 > t->nslots && strtab_rehash(t))) {
		t->err = -ENOMEM;
		return 0;
	}
	for (j = (size_t)ptr_hash(s) & (t->nslots - 1); t->slots[j].s; j = (j + 1) & (t->nslots - 1))
		if (t->slots[j].s == s)
			return t->slots[j].index;
	if (grow__room((void **)&t->list, &t->cap, t->n, sizeof(*t->list))) {
		t->err = -ENOMEM;
		return 0;
	}
	t->slots[j].s = s;
	t->slots[j].index = t->n;
	t->list[t->n] = s;
	return t->n++;
}

static uint64_t strtab_str(struct strtab *t, const char *s)
{
	return strtab_index(t, s ? s : "", s ? strlen(s) : 0);
}

static void strtab_free(struct strtab *t)
{
	strpool__free(&t->pool);
	free(t->list);
	free(t->slots);
}

/* -- Functions, locations, mappings -------------------------------------- */

struct writer {
	const struct frametab *ft;
	struct strtab strs;
	struct pbuf out, sub, line;
	uint32_t nframes;
	uint64_t *mapping_of;	/* frame id -> mapping id (0: none) */
	uint64_t *addr_of;	/* frame id -> its address in its mapping (0: none) */
	uint64_t nmappings;
	uint64_t period;	/* ns per count: per sample, or 1000 (counts in us) */
	const char *timed;	/* the one sample type of an off-CPU or wall profile; NULL: CPU */
	const struct pprof_meta *meta;
	struct pbuf label;
};

/*
** A Lua frame's name "f (chunk:N)" split into the function "f" and line N;
** anything else is its own function name with no line.
*/
static void lua_split(const char *name, size_t *fn_len, uint64_t *line)
{
	size_t len = strlen(name), i;
	const char *open = NULL, *colon;

	*fn_len = len;
	*line = 0;
	if (len < 5 || name[len - 1] != ')')
		return;
	for (i = len - 1; i-- > 1;)
		if (name[i] == '(' && name[i - 1] == ' ') {
			open = name + i;
			break;
		}
	if (!open)
		return;
	colon = memrchr(open, ':', (size_t)(name + len - open));
	if (!colon || colon + 1 >= name + len - 1)
		return;
	for (const char *d = colon + 1; d < name + len - 1; d++) {
		if (*d < '0' || *d > '9' || *line > UINT32_MAX)
			return;
		*line = *line * 10 + (uint64_t)(*d - '0');
	}
	*fn_len = (size_t)(open - 1 - name);
}

static int is_lua(enum frame_kind k)
{
	return k == FRAME_LUA || k == FRAME_LUA_JIT;
}

/* One Function and one Location (same id: frame id + 1) for frame id. */
static void put_frame(struct writer *w, uint32_t id)
{
	const struct frame *fr = frametab__get(w->ft, id);
	char printed[FOLDED_NAME_MAX + 8];
	size_t fn_len = strlen(fr->name);
	uint64_t line = 0, name;

	if (is_lua(fr->kind))
		lua_split(fr->name, &fn_len, &line);
	name = strtab_index(&w->strs, fr->name, fn_len);
	put_uint(&w->sub, F_ID, (uint64_t)id + 1);
	put_uint(&w->sub, F_NAME, name);
	/* The name as the folded export prints it: what pprof__read takes back,
	** so that folded -> pprof -> folded gives the same bytes. */
	put_uint(&w->sub, F_SYSTEM_NAME, strtab_index(&w->strs, printed,
			folded__frame_name(fr, printed, sizeof(printed))));
	put_uint(&w->sub, F_FILENAME, strtab_str(&w->strs, fr->kind == FRAME_KERNEL ?
						 KERNEL_MAPPING : fr->module));
	if (line)
		put_uint(&w->sub, F_START_LINE, line);
	put_msg(&w->out, P_FUNCTION, &w->sub);

	put_uint(&w->sub, L_ID, (uint64_t)id + 1);
	if (w->mapping_of[id])
		put_uint(&w->sub, L_MAPPING, w->mapping_of[id]);
	if (w->addr_of[id])
		put_uint(&w->sub, L_ADDRESS, w->addr_of[id]);
	put_uint(&w->line, LN_FUNCTION, (uint64_t)id + 1);
	if (line)
		put_uint(&w->line, LN_LINE, line);
	put_msg(&w->sub, L_LINE, &w->line);
	put_msg(&w->out, P_LOCATION, &w->sub);
}

/* A Mapping per mapped file (or module) of native code, in the order of their
** first frames, then one for the kernel. */
static int put_mappings(struct writer *w)
{
	uint64_t *by_name = NULL;	/* string index of the file -> mapping id */
	size_t cap = 0;

	/* Native code first: pprof takes the first mapping for the main binary. */
	for (uint64_t k = 0; k < 2 * (uint64_t)w->nframes; k++) {
		uint32_t id = (uint32_t)(k % w->nframes);
		const struct frame *fr = frametab__get(w->ft, id);
		struct pprof_site site = { 0 };
		int has_site = fr->kind == FRAME_NATIVE && w->meta->site &&
			       w->meta->site(id, &site, w->meta->site_ctx) && site.path;
		const char *file = has_site ? site.path : fr->kind == FRAME_KERNEL ? KERNEL_MAPPING :
				   fr->kind == FRAME_NATIVE ? fr->module : NULL;
		uint64_t name;

		if (!file || (k < w->nframes) != (fr->kind == FRAME_NATIVE))
			continue;
		w->addr_of[id] = has_site ? site.addr : 0;
		name = strtab_str(&w->strs, file);
		if (w->strs.err)
			name = UINT64_MAX;
		while (name != UINT64_MAX && (size_t)name >= cap) {
			size_t old = cap;

			if (grow__room((void **)&by_name, &cap, cap, sizeof(*by_name)))
				name = UINT64_MAX;
			else
				memset(by_name + old, 0, (cap - old) * sizeof(*by_name));
		}
		if (name == UINT64_MAX) {
			free(by_name);
			return -ENOMEM;
		}
		if (!by_name[name]) {
			by_name[name] = ++w->nmappings;
			put_uint(&w->sub, M_ID, w->nmappings);
			if (has_site) {	/* the first frame's process's view of it */
				put_uint(&w->sub, M_MEMORY_START, site.start);
				put_uint(&w->sub, M_MEMORY_LIMIT, site.limit);
				put_uint(&w->sub, M_FILE_OFFSET, site.offset);
				if (site.build_id && *site.build_id)
					put_uint(&w->sub, M_BUILD_ID,
						 strtab_str(&w->strs, site.build_id));
			}
			put_uint(&w->sub, M_FILENAME, name);
			put_uint(&w->sub, M_HAS_FUNCTIONS, 1);
			put_msg(&w->out, P_MAPPING, &w->sub);
		}
		w->mapping_of[id] = by_name[name];
	}
	free(by_name);
	return 0;
}

/* -- Samples and the profile ---------------------------------------------- */

static void put_value_type(struct writer *w, unsigned field, const char *type, const char *unit)
{
	put_uint(&w->sub, VT_TYPE, strtab_str(&w->strs, type));
	put_uint(&w->sub, VT_UNIT, strtab_str(&w->strs, unit));
	put_msg(&w->out, field, &w->sub);
}

/* stacktab__foreach callback: one Sample, locations leaf first. */
static int put_sample(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	struct writer *w = ctx;
	struct pbuf *packed = &w->line;

	struct pprof_label lab[PPROF_LABELS_MAX];
	unsigned nlab = 0;

	if (w->meta->labels && n) {
		nlab = w->meta->labels(frames[0], lab, w->meta->labels_ctx);
		frames++;
		n--;
	}
	if (!n || !count)
		return 0;
	if (count > INT64_MAX)
		count = INT64_MAX;	/* values are int64 */
	for (unsigned i = 0; i < nlab && i < PPROF_LABELS_MAX; i++) {
		put_uint(&w->label, LB_KEY, strtab_str(&w->strs, lab[i].key));
		if (lab[i].str)
			put_uint(&w->label, LB_STR, strtab_str(&w->strs, lab[i].str));
		else
			put_uint(&w->label, LB_NUM, (uint64_t)lab[i].num);
		put_msg(&w->sub, S_LABEL, &w->label);
	}
	for (uint32_t i = n; i-- > 0;)
		put_varint(packed, frames[i] < w->nframes ? (uint64_t)frames[i] + 1 : 0);
	put_msg(&w->sub, S_LOCATION, packed);
	if (!w->timed)
		put_varint(packed, count);
	put_varint(packed, w->period && count > INT64_MAX / w->period ? INT64_MAX :
			   count * w->period);
	put_msg(&w->sub, S_VALUE, packed);
	put_msg(&w->out, P_SAMPLE, &w->sub);
	return w->out.err;
}

/* gzip (RFC 1952) of src into f. */
static int write_gzip(FILE *f, const unsigned char *src, size_t len)
{
	z_stream z = { 0 };
	unsigned char *dst;
	uLong bound;
	int rc;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, (uLong)len);
	dst = malloc(bound);
	if (!dst) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)src;
	z.avail_in = (uInt)len;
	z.next_out = dst;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH) == Z_STREAM_END ? 0 : -EIO;
	if (!rc && fwrite(dst, 1, z.total_out, f) != z.total_out)
		rc = -(errno ? errno : EIO);
	deflateEnd(&z);
	free(dst);
	return rc;
}

static int encode(struct writer *w, const struct stacktab *st, const struct pprof_meta *m)
{
	int rc;

	strtab_str(&w->strs, "");	/* index 0, as the format requires */
	if (!w->timed)
		put_value_type(w, P_SAMPLE_TYPE, "samples", "count");
	put_value_type(w, P_SAMPLE_TYPE, w->timed ? w->timed : "cpu", "nanoseconds");
	put_value_type(w, P_PERIOD_TYPE, w->timed ? w->timed : "cpu", "nanoseconds");
	put_uint(&w->out, P_PERIOD, w->period);
	if (m->time_ns)
		put_uint(&w->out, P_TIME, m->time_ns);
	if (m->duration_ns)
		put_uint(&w->out, P_DURATION, m->duration_ns);
	if ((rc = put_mappings(w)))
		return rc;
	for (uint32_t id = 0; id < w->nframes; id++)
		put_frame(w, id);
	if ((rc = stacktab__foreach(st, put_sample, w)))
		return rc;
	for (size_t i = 0; i < w->strs.n; i++)
		put_len(&w->out, P_STRING, w->strs.list[i], strlen(w->strs.list[i]));
	return w->strs.err ? w->strs.err : w->out.err ? w->out.err :
	       w->sub.err ? w->sub.err : w->line.err ? w->line.err : w->label.err;
}

int pprof__write(FILE *f, const struct frametab *ft, const struct stacktab *st,
		 const struct pprof_meta *meta)
{
	struct writer w = { .ft = ft, .nframes = frametab__count(ft), .meta = meta };
	int rc;

	strpool__init(&w.strs.pool, 1024);
	w.timed = meta->event == EV_OFFCPU ? "off-cpu" : meta->event == EV_WALL ? "wall" : NULL;
	w.period = w.timed ? 1000 : meta->freq ? 1000000000u / meta->freq : 0;
	w.mapping_of = calloc((size_t)w.nframes + 1, sizeof(*w.mapping_of));
	w.addr_of = calloc((size_t)w.nframes + 1, sizeof(*w.addr_of));
	rc = w.mapping_of && w.addr_of ? encode(&w, st, meta) : -ENOMEM;
	if (!rc)
		rc = write_gzip(f, w.out.p, w.out.n);
	strtab_free(&w.strs);
	free(w.mapping_of);
	free(w.addr_of);
	free(w.out.p);
	free(w.sub.p);
	free(w.line.p);
	free(w.label.p);
	return rc;
}

/* -- Reading ---------------------------------------------------------------- */

#define WT_I64		1
#define WT_I32		5
#define READ_DEPTH_MAX	65536	/* frames of one sample */

struct pb {
	const unsigned char *p, *end;
};

/* A varint; 0 with *ok cleared when truncated or longer than 10 bytes. */
static uint64_t pb_varint(struct pb *b, int *ok)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (b->p >= b->end)
			break;
		unsigned char c = *b->p++;

		v |= (uint64_t)(c & 0x7f) << (shift < 64 ? shift : 63);
		if (!(c & 0x80))
			return v;
	}
	*ok = 0;
	return 0;
}

/* The next field: its number and wire type, and for WT_LEN its bytes in sub,
** for WT_VARINT its value; 0 at the end or on a malformed field (*ok = 0). */
static int pb_field(struct pb *b, unsigned *field, unsigned *wt, uint64_t *v, struct pb *sub,
		    int *ok)
{
	uint64_t tag, len;

	if (b->p >= b->end || !*ok)
		return 0;
	tag = pb_varint(b, ok);
	*field = (unsigned)(tag >> 3);
	*wt = (unsigned)(tag & 7);
	if (!*ok || !*field || tag >> 3 > UINT32_MAX)
		return *ok = 0;
	switch (*wt) {
	case WT_VARINT:
		*v = pb_varint(b, ok);
		break;
	case WT_I64:
	case WT_I32:
		len = *wt == WT_I64 ? 8 : 4;
		if ((uint64_t)(b->end - b->p) < len)
			return *ok = 0;
		b->p += len;
		break;
	case WT_LEN:
		len = pb_varint(b, ok);
		if (!*ok || len > (uint64_t)(b->end - b->p))
			return *ok = 0;
		sub->p = b->p;
		sub->end = b->p + len;
		b->p += len;
		break;
	default:
		return *ok = 0;	/* groups are not in profile.proto */
	}
	return *ok;
}

/* A repeated integer field: packed (WT_LEN) or one value; calls add per value. */
static int pb_repeated(unsigned wt, uint64_t v, struct pb *sub, int (*add)(void *, uint64_t),
		       void *ctx, int *ok)
{
	if (wt == WT_VARINT)
		return add(ctx, v);
	if (wt != WT_LEN)
		return 0;
	while (*ok && sub->p < sub->end) {
		uint64_t x = pb_varint(sub, ok);
		int rc;

		if (*ok && (rc = add(ctx, x)))
			return rc;
	}
	return 0;
}

struct u64s {
	uint64_t *v;
	size_t n, cap;
};

static int u64s_add(void *ctx, uint64_t x)
{
	struct u64s *a = ctx;

	if (grow__room((void **)&a->v, &a->cap, a->n, sizeof(*a->v)))
		return -ENOMEM;
	a->v[a->n++] = x;
	return 0;
}

struct rfunc {
	uint64_t id, name, sysname;	/* string indices */
	uint32_t frame;			/* interned frame + 1; 0: not yet */
};

struct rloc {
	uint64_t id;
	size_t first, n;		/* function ids in lines.v[first..first+n) */
};

struct reader {
	struct frametab *ft;
	struct stacktab *st;
	struct pb *strs;		/* string table entries */
	size_t nstrs, strs_cap;
	struct rfunc *funcs;
	size_t nfuncs, funcs_cap;
	struct rloc *locs;
	size_t nlocs, locs_cap;
	struct u64s lines;		/* function ids of every location's lines */
	struct u64s types;		/* sample types' type string indices */
	uint64_t div;			/* the counts: the values read / div */
	uint64_t total;
	const char *why;
};

static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Pass 1: the string table, functions, locations and sample types. */
static int rd_tables(struct reader *r, struct pb top, int *ok)
{
	struct pb sub, in;
	unsigned field, wt, f2, w2;
	uint64_t v, v2;

	while (pb_field(&top, &field, &wt, &v, &sub, ok)) {
		if (field == P_STRING && wt == WT_LEN) {
			if (grow__room((void **)&r->strs, &r->strs_cap, r->nstrs, sizeof(*r->strs)))
				return -ENOMEM;
			r->strs[r->nstrs++] = sub;
		} else if (field == P_SAMPLE_TYPE && wt == WT_LEN) {
			uint64_t type = 0;

			while (pb_field(&sub, &f2, &w2, &v2, &in, ok))
				if (f2 == VT_TYPE && w2 == WT_VARINT)
					type = v2;
			if (u64s_add(&r->types, type))
				return -ENOMEM;
		} else if (field == P_FUNCTION && wt == WT_LEN) {
			struct rfunc fn = { 0 };

			while (pb_field(&sub, &f2, &w2, &v2, &in, ok)) {
				if (w2 != WT_VARINT)
					continue;
				if (f2 == F_ID)
					fn.id = v2;
				else if (f2 == F_NAME)
					fn.name = v2;
				else if (f2 == F_SYSTEM_NAME)
					fn.sysname = v2;
			}
			if (grow__room((void **)&r->funcs, &r->funcs_cap, r->nfuncs, sizeof(fn)))
				return -ENOMEM;
			r->funcs[r->nfuncs++] = fn;
		} else if (field == P_LOCATION && wt == WT_LEN) {
			struct rloc loc = { .first = r->lines.n };
			struct pb ln;

			while (pb_field(&sub, &f2, &w2, &v2, &in, ok)) {
				if (f2 == L_ID && w2 == WT_VARINT) {
					loc.id = v2;
				} else if (f2 == L_LINE && w2 == WT_LEN) {
					uint64_t fid = 0;

					while (pb_field(&in, &field, &wt, &v, &ln, ok))
						if (field == LN_FUNCTION && wt == WT_VARINT)
							fid = v;
					if (u64s_add(&r->lines, fid))
						return -ENOMEM;
				}
			}
			loc.n = r->lines.n - loc.first;
			if (grow__room((void **)&r->locs, &r->locs_cap, r->nlocs, sizeof(loc)))
				return -ENOMEM;
			r->locs[r->nlocs++] = loc;
		}
	}
	if (!*ok)
		return 0;
	if (r->nfuncs)
		qsort(r->funcs, r->nfuncs, sizeof(*r->funcs), by_id);
	if (r->nlocs)
		qsort(r->locs, r->nlocs, sizeof(*r->locs), by_id);
	return 0;
}

/* String i of the table, or the empty string when out of range. */
static struct pb rd_str(const struct reader *r, uint64_t i)
{
	struct pb none = { NULL, NULL };

	return i < r->nstrs ? r->strs[i] : none;
}

/* The frame of function id: interned from its system_name (else its name). */
static uint32_t rd_func_frame(struct reader *r, uint64_t fid)
{
	struct rfunc *fn = r->nfuncs ? bsearch(&fid, r->funcs, r->nfuncs, sizeof(*r->funcs),
					       by_id) : NULL;
	char name[FOLDED_NAME_MAX + 8];
	struct pb s;
	size_t len;
	uint32_t id;

	if (!fn)
		return folded__intern(r->ft, strcpy(name, "[unknown]"), 9);
	if (fn->frame)
		return fn->frame - 1;
	s = rd_str(r, fn->sysname);
	if (s.p == s.end)
		s = rd_str(r, fn->name);
	len = (size_t)(s.end - s.p);
	if (len > FOLDED_NAME_MAX)
		len = FOLDED_NAME_MAX;
	if (len)
		memcpy(name, s.p, len);
	name[len] = '\0';
	if (strlen(name) != len || !len)	/* a NUL inside: names are C strings */
		len = strlen(strcpy(name, "[unknown]"));
	id = folded__intern(r->ft, name, len);
	if (id != UINT32_MAX)
		fn->frame = id + 1;
	return id;
}

/* Whether the string at s is text. */
static int pb_is(struct pb s, const char *text)
{
	size_t n = strlen(text);

	return (size_t)(s.end - s.p) == n && !memcmp(s.p, text, n);
}

/* The index of the sample type counts come from: "samples", else the time of
** an off-cpu or wall profile (nanoseconds, read as microseconds: r->div), else
** the first. */
static size_t rd_value_index(struct reader *r)
{
	size_t timed = SIZE_MAX;

	r->div = 1;
	for (size_t i = 0; i < r->types.n; i++) {
		struct pb s = rd_str(r, r->types.v[i]);

		if (pb_is(s, "samples"))
			return i;
		if (timed == SIZE_MAX && (pb_is(s, "off-cpu") || pb_is(s, "wall")))
			timed = i;
	}
	if (timed == SIZE_MAX)
		return 0;
	r->div = 1000;
	return timed;
}

/* One Sample: its stack, root first, added with its count. */
static int rd_sample(struct reader *r, struct pb sub, size_t vi, struct u64s *locs,
		     struct u64s *vals, uint32_t **stack, size_t *cap, int *ok)
{
	unsigned field, wt;
	uint64_t v, count;
	struct pb in;
	size_t n = 0;
	int rc;

	locs->n = vals->n = 0;
	while (pb_field(&sub, &field, &wt, &v, &in, ok)) {
		if (field == S_LOCATION && (rc = pb_repeated(wt, v, &in, u64s_add, locs, ok)))
			return rc;
		if (field == S_VALUE && (rc = pb_repeated(wt, v, &in, u64s_add, vals, ok)))
			return rc;
	}
	if (!*ok || vi >= vals->n || (int64_t)vals->v[vi] <= 0 || vals->v[vi] / r->div == 0)
		return 0;	/* no count: nothing to add */
	count = vals->v[vi] / r->div;
	r->why = "the counts add up to 2^64 or more";
	if (count > UINT64_MAX - r->total)
		return -EINVAL;
	r->total += count;
	for (size_t i = locs->n; i-- > 0;) {
		const struct rloc *loc = r->nlocs ? bsearch(&locs->v[i], r->locs, r->nlocs,
							    sizeof(*r->locs), by_id) : NULL;

		r->why = "a location id that no location has";
		if (!loc)
			return -EINVAL;
		for (size_t k = loc->n; k-- > 0;) {
			uint32_t id = rd_func_frame(r, r->lines.v[loc->first + k]);

			r->why = "a sample deeper than 65536 frames";
			if (n >= READ_DEPTH_MAX)
				return -EINVAL;
			if (id == UINT32_MAX || grow__room((void **)stack, cap, n, sizeof(**stack)))
				return -ENOMEM;
			(*stack)[n++] = id;
		}
	}
	return stacktab__add(r->st, *stack, (uint32_t)n, count);
}

/* Pass 2: the samples. */
static int rd_samples(struct reader *r, struct pb top, int *ok)
{
	struct u64s locs = { 0 }, vals = { 0 };
	size_t vi = rd_value_index(r), cap = 0;
	uint32_t *stack = NULL;
	unsigned field, wt;
	uint64_t v;
	struct pb sub;
	int rc = 0;

	while (!rc && pb_field(&top, &field, &wt, &v, &sub, ok))
		if (field == P_SAMPLE && wt == WT_LEN)
			rc = rd_sample(r, sub, vi, &locs, &vals, &stack, &cap, ok);
	free(locs.v);
	free(vals.v);
	free(stack);
	return rc;
}

/* Inflate gzip (or zlib) data, at most PPROF_RAW_MAX bytes: 0 or -errno. */
static int inflate_all(const unsigned char *src, size_t len, unsigned char **out, size_t *outlen,
		       const char **why)
{
	z_stream z = { 0 };
	size_t cap = len * 4 + 4096, n = 0;
	unsigned char *buf = NULL;
	int zr = Z_OK, rc = 0;

	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)src;
	z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
	while (zr != Z_STREAM_END) {
		if (n == cap || !buf) {
			unsigned char *nb;

			cap = buf ? cap * 2 : cap;
			if (cap > PPROF_RAW_MAX + 1)
				cap = PPROF_RAW_MAX + 1;
			*why = "it inflates to more than 256 MiB";
			if (n >= PPROF_RAW_MAX + 1) {
				rc = -EINVAL;
				goto fail;
			}
			if (!(nb = realloc(buf, cap))) {
				rc = -ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		*why = "corrupt gzip data";
		if (zr != Z_OK && zr != Z_STREAM_END) {
			rc = -EINVAL;
			goto fail;
		}
		if (zr == Z_OK && !z.avail_in && z.avail_out) {
			*why = "truncated gzip data";
			rc = -EINVAL;
			goto fail;
		}
	}
	inflateEnd(&z);
	*out = buf;
	*outlen = n;
	return 0;
fail:
	free(buf);
	inflateEnd(&z);
	return rc;
}

int pprof__sniff(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* gzip: a folded file, being text, never starts with 0x1f */
	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int pprof__read_mem(const void *buf, size_t len, struct frametab *ft, struct stacktab *st,
		    char *err, size_t errlen)
{
	struct reader r = { .ft = ft, .st = st, .why = "" };
	unsigned char *raw = NULL;
	struct pb top = { buf, (const unsigned char *)buf + len };
	int ok = 1, rc = 0;

	if (len >= 2 && top.p[0] == 0x1f && top.p[1] == 0x8b) {
		size_t n;

		if ((rc = inflate_all(buf, len, &raw, &n, &r.why)))
			goto out;
		top.p = raw;
		top.end = raw + n;
	}
	rc = rd_tables(&r, top, &ok);
	if (!rc && ok)
		rc = rd_samples(&r, top, &ok);
	if (!rc && !ok) {
		r.why = "a malformed protobuf field";
		rc = -EINVAL;
	}
out:
	if (rc == -EINVAL && err)
		snprintf(err, errlen, "not a valid pprof profile: %s", r.why);
	free(raw);
	free(r.strs);
	free(r.funcs);
	free(r.locs);
	free(r.lines.v);
	free(r.types.v);
	return rc;
}

int pprof__read(FILE *f, struct frametab *ft, struct stacktab *st, char *err, size_t errlen)
{
	unsigned char *buf = NULL, *nb;
	size_t n = 0, cap = 0, got;
	int rc;

	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			if (cap > PPROF_RAW_MAX) {
				free(buf);
				if (err)
					snprintf(err, errlen, "not a valid pprof profile: larger "
						 "than 256 MiB");
				return -EINVAL;
			}
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	rc = ferror(f) ? -(errno ? errno : EIO) : pprof__read_mem(buf, n, ft, st, err, errlen);
	free(buf);
	return rc;
}
