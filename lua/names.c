/*
** Lua frame names: per-process caches of prototypes and call-site names,
** revalidated once per sample or per epoch (luanames__epoch), jit.p's naming
** rules and interned strings.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/bc.h"
#include "lua/detect.h"
#include "lua/proto.h"
#include "lua/names.h"
#include "base/grow.h"
#include "base/strpool.h"

#define LS_BATCH_MAX	128	/* frames named as one batch: a sample's, with inlined ones */
_Static_assert(LS_BATCH_MAX % 64 == 0 && LS_BATCH_MAX >= LT_MAX_LUA, "served is 64-bit words");

#define LS_PROTOS_MAX	65536u		/* protos cached per process (then all dropped) */
#define LS_SITES_MAX	256u		/* named call sites cached per proto */
#define LS_WINDOW	65536u		/* instructions looked back from a call */
#define LS_NAME_MAX	256u		/* bytes of a variable or key name kept */
#define LS_SRC_SCAN	48		/* source text shown whole in [string "..."] */
#define LS_SRC_CUT	45		/* or cut to this, then "..." (LUA_IDSIZE - 15) */
#define LS_FMT_MAX	4096
#define LS_MEMO		4		/* frame names remembered per proto */
#define LS_KGC_MAX	4096u		/* GC constants searched for a child proto */
#define LS_DEF_BC_MAX	(1u << 20)	/* instructions searched for its FNEW */
#define LS_SLOTS_MIN	256u
#define LS_ERROR	"[lua:?]"
#define LS_COROUTINE	"[coroutine]"

/* -- State ----------------------------------------------------------------- */

/* A call site of a cached proto and the name it gives its callee. */
struct ls_site {
	uint32_t pos;		/* bytecode position of the call instruction */
	uint8_t what;		/* enum luabc_what */
	const char *name;	/* interned; NULL when unnamed */
};

/* A frame name given before: the same function name and line give the same. */
struct ls_memo {
	const char *func;	/* interned; NULL: empty */
	int line;
	const char *name;
};

/* A cached proto of one process. */
struct ls_proto {
	uint64_t addr;		/* key: the GCproto address */
	int ok;			/* p is loaded (else: reload on next use) */
	uint64_t seen;		/* batch it was last validated in */
	uint8_t died;		/* found dead in batch seen: reload in the next */
	struct luaproto p;
	const char *chunk;	/* display chunk name (interned) */
	const char *unnamed;	/* "chunk:firstline", or chunk for a builtin (interned) */
	struct ls_site *sites;
	uint32_t nsites, capsites;
	struct ls_memo memo[LS_MEMO];	/* names given lately, round robin */
	unsigned memo_next;
	const char *def_name;	/* definition-site name (interned); NULL: none found */
	uint8_t def_what;	/* enum luabc_what of def_name */
	uint8_t def_done;	/* def_name is final (found, or the proto has no parent) */
	size_t def_tried;	/* candidates of its chunk when last looked for (retry when more) */
	uint8_t in_chunk;	/* listed among its chunk's candidates */
};


/* The protos of one chunk that may be the parent of another (they have GC
** constants and a line range): where a definition-site name is looked for. */
struct ls_chunk {
	uint64_t chunkname;	/* the GCstr of the chunk's name in the target */
	struct ls_proto **v;
	size_t n, cap;
};

struct ls_proc {
	int pid;
	const char *const *ffnames;	/* fast function names by ffid */
	unsigned nffnames;
	int gcstr;		/* enum luastr_layout */
	struct ls_proto **slots;	/* open addressing on addr; NULL: empty */
	size_t nslots, used;
	struct ls_chunk *chunks;	/* by chunk, in the order first seen */
	size_t nchunks, capchunks;
};

/* The frames array named last: its protos were validated once for all of it. */
struct ls_batch {
	int pid;
	const struct lt_lua_frame *frames;
	unsigned n;
	uint64_t served[LS_BATCH_MAX / 64];	/* bit i: frames[i] was named in this batch */
	struct lt_lua_frame copy[LS_BATCH_MAX];
};

struct luanames {
	struct ls_proc **procs;
	size_t nprocs, capprocs;
	struct strpool strs;
	uint64_t seq;		/* current batch, or epoch */
	int epochs;		/* luanames__epoch was called: seq counts epochs */
	int told;		/* luanames__sample was called: it marks every sample */
	struct ls_batch batch;
	uint32_t *win;		/* LS_WINDOW instructions of a caller */
	const struct mreader *rd;	/* the target's memory, during luanames__frame */
};

/* Create an empty symbolizer. NULL + errno. */
struct luanames *luanames__new(void)
{
	struct luanames *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return NULL;
	ls->win = malloc(LS_WINDOW * sizeof(*ls->win));
	if (!ls->win) {
		free(ls);
		errno = ENOMEM;
		return NULL;
	}
	strpool__init(&ls->strs, LS_SLOTS_MIN);
	ls->seq = 1;
	return ls;
}

/* Free a cached proto. */
static void proto_free(struct ls_proto *e)
{
	if (!e)
		return;
	luaproto__free(&e->p);
	free(e->sites);
	free(e);
}

/* Drop every cached proto of a process. */
static void proc_flush(struct ls_proc *pr)
{
	for (size_t i = 0; i < pr->nslots; i++)
		proto_free(pr->slots[i]);
	free(pr->slots);
	pr->slots = NULL;
	pr->nslots = pr->used = 0;
	for (size_t i = 0; i < pr->nchunks; i++)
		free(pr->chunks[i].v);
	free(pr->chunks);
	pr->chunks = NULL;
	pr->nchunks = pr->capchunks = 0;
}

/* Free everything. */
void luanames__delete(struct luanames *ls)
{
	if (!ls)
		return;
	for (size_t i = 0; i < ls->nprocs; i++) {
		proc_flush(ls->procs[i]);
		free(ls->procs[i]);
	}
	free(ls->procs);
	strpool__free(&ls->strs);
	free(ls->win);
	free(ls);
}

/* The state of pid, created when create is set. NULL if none (or ENOMEM). */
static struct ls_proc *proc_get(struct luanames *ls, int pid, int create)
{
	struct ls_proc *pr;

	for (size_t i = 0; i < ls->nprocs; i++)
		if (ls->procs[i]->pid == pid)
			return ls->procs[i];
	if (!create)
		return NULL;
	if (ls->nprocs == ls->capprocs) {
		size_t cap = ls->capprocs ? ls->capprocs * 2 : 8;
		struct ls_proc **p = realloc(ls->procs, cap * sizeof(*p));

		if (!p)
			return NULL;
		ls->procs = p;
		ls->capprocs = cap;
	}
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->pid = pid;
	pr->ffnames = luabuild__ffnames(-1, &pr->nffnames);
	pr->gcstr = LUASTR_AUTO;
	ls->procs[ls->nprocs++] = pr;
	return pr;
}

/* Set what is known of pid's LuaJIT build. */
void luanames__set_build(struct luanames *ls, int pid, const struct luabuild *b)
{
	struct ls_proc *pr = proc_get(ls, pid, 1);
	int gcstr = !b || b->gcstr_new < 0 ? LUASTR_AUTO : b->gcstr_new ? LUASTR_NEW : LUASTR_OLD;
	const char *const *ff;
	unsigned nff;

	ff = luabuild__ffnames(b ? !!b->openresty : -1, &nff);
	if (!pr || (pr->ffnames == ff && pr->nffnames == nff && pr->gcstr == gcstr))
		return;
	proc_flush(pr);
	pr->ffnames = ff;
	pr->nffnames = nff;
	pr->gcstr = gcstr;
	ls->batch.frames = NULL;
}

/* Drop everything cached for pid. */
void luanames__forget(struct luanames *ls, int pid)
{
	for (size_t i = 0; i < ls->nprocs; i++) {
		if (ls->procs[i]->pid != pid)
			continue;
		proc_flush(ls->procs[i]);
		free(ls->procs[i]);
		ls->procs[i] = ls->procs[--ls->nprocs];
		break;
	}
	ls->batch.frames = NULL;
}

/* -- Proto cache ----------------------------------------------------------- */

/* The slot of addr in pr, or the empty slot where it belongs. */
static struct ls_proto **slot_of(const struct ls_proc *pr, uint64_t addr)
{
	size_t mask = pr->nslots - 1;
	size_t i = (size_t)((addr >> 3) * 0x9e3779b97f4a7c15ull >> 20) & mask;

	while (pr->slots[i] && pr->slots[i]->addr != addr)
		i = (i + 1) & mask;
	return &pr->slots[i];
}

/* The cached entry of addr, NULL if none. */
static struct ls_proto *proto_find(const struct ls_proc *pr, uint64_t addr)
{
	return pr->nslots ? *slot_of(pr, addr) : NULL;
}

/* A new, unloaded entry for addr. NULL on ENOMEM. */
static struct ls_proto *proto_add(struct ls_proc *pr, uint64_t addr)
{
	struct ls_proto *e;

	if ((pr->used + 1) * 2 > pr->nslots) {
		struct ls_proc n = { .nslots = pr->nslots ? pr->nslots * 2 : LS_SLOTS_MIN };

		n.slots = calloc(n.nslots, sizeof(*n.slots));
		if (!n.slots)
			return NULL;
		for (size_t i = 0; i < pr->nslots; i++)
			if (pr->slots[i])
				*slot_of(&n, pr->slots[i]->addr) = pr->slots[i];
		free(pr->slots);
		pr->slots = n.slots;
		pr->nslots = n.nslots;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->addr = addr;
	*slot_of(pr, addr) = e;
	pr->used++;
	return e;
}

/* Replace control bytes of a target string with '?' (it ends up on a terminal). */
static void sanitize(char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
}

/* Intern a printf-formatted string. NULL on ENOMEM. */
static const char *intern_fmt(struct luanames *ls, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *intern_fmt(struct luanames *ls, const char *fmt, ...)
{
	char buf[LS_FMT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	return strpool__intern(&ls->strs, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* The display chunk name of e (jit.p's, with Lua's [string "..."] for source). */
static int chunk_name(struct luanames *ls, struct ls_proc *pr, struct ls_proto *e)
{
	char buf[LUAPROTO_STR_MAX], tail[LUAPROTO_STR_MAX], *s = buf;
	const char *pre = "";
	int err, lay = pr->gcstr;
	size_t len, n;

	err = luastr__read(ls->rd, e->p.chunkname, &lay, 0, buf, sizeof(buf), &len);
	if (err == -EAGAIN) {	/* layout still unknown: read this one the modern way */
		lay = LUASTR_NEW;
		err = luastr__read(ls->rd, e->p.chunkname, &lay, 0, buf, sizeof(buf), &len);
	} else if (!err) {
		pr->gcstr = lay;	/* decided, if it was not */
	}
	if (err)
		return err;
	n = strlen(buf);	/* what was read, up to an embedded NUL */
	if (e->p.firstline == -1) {
		sanitize(buf, n);
		e->chunk = intern_fmt(ls, "[builtin:%s%s]", buf, n < len ? "..." : "");
	} else if (buf[0] == '@' || buf[0] == '=') {
		if (n < len && n == sizeof(buf) - 1) {	/* long: the basename is at the end */
			size_t off = len - (sizeof(tail) - 1);

			err = luastr__read(ls->rd, e->p.chunkname, &lay, off, tail,
					   sizeof(tail), &len);
			if (err)
				return err;
			s = tail;
			n = strlen(tail);
			pre = "...";
		} else {
			s = buf + 1;
			n--;
		}
		for (size_t m = n; m > 0; m--)
			if (s[m - 1] == '/' || s[m - 1] == '\\') {
				s += m;
				n -= m;
				pre = "";
				break;
			}
		sanitize(s, n);
		e->chunk = intern_fmt(ls, "%s%.*s", pre, (int)n, s);
	} else {	/* source text up to a control byte, cut as lj_debug_shortname does */
		size_t m = 0;

		while (m < n && m < LS_SRC_SCAN && (unsigned char)buf[m] >= ' ' && buf[m] != 0x7f)
			m++;
		if (m < len && m > LS_SRC_CUT)
			m = LS_SRC_CUT;
		e->chunk = intern_fmt(ls, "[string \"%.*s%s\"]", (int)m, buf,
				      m < len ? "..." : "");
	}
	if (!e->chunk)
		return -ENOMEM;
	if (e->p.firstline == -1)
		e->unnamed = e->chunk;
	else
		e->unnamed = intern_fmt(ls, "%s:%d", e->chunk, e->p.firstline);
	return e->unnamed ? 0 : -ENOMEM;
}

/* The candidates of chunk chunkname (created when create is set), or NULL. */
static struct ls_chunk *chunk_of(struct ls_proc *pr, uint64_t chunkname, int create)
{
	for (size_t i = 0; i < pr->nchunks; i++)
		if (pr->chunks[i].chunkname == chunkname)
			return &pr->chunks[i];
	if (!create || grow__room((void **)&pr->chunks, &pr->capchunks, pr->nchunks,
				  sizeof(*pr->chunks)))
		return NULL;
	pr->chunks[pr->nchunks] = (struct ls_chunk){ .chunkname = chunkname };
	return &pr->chunks[pr->nchunks++];
}

/* List a loaded proto among its chunk's candidate parents, if it can be one. A
** failure to list it only costs names. */
static void chunk_add(struct ls_proc *pr, struct ls_proto *e)
{
	struct ls_chunk *c;

	if (e->in_chunk || !e->p.sizekgc || (e->p.firstline != 0 && e->p.numline <= 0) ||
	    !(c = chunk_of(pr, e->p.chunkname, 1)) ||
	    grow__room((void **)&c->v, &c->cap, c->n, sizeof(*c->v)))
		return;
	c->v[c->n++] = e;
	e->in_chunk = 1;
}

/* (Re)load entry e from the target. 0 or -errno. */
static int proto_load(struct luanames *ls, struct ls_proc *pr, struct ls_proto *e)
{
	int err;

	luaproto__free(&e->p);
	free(e->sites);
	e->sites = NULL;
	e->nsites = e->capsites = 0;
	memset(e->memo, 0, sizeof(e->memo));
	e->def_name = NULL;
	e->def_done = 0;
	e->def_tried = 0;
	e->ok = 0;
	e->died = 0;
	if ((err = luaproto__read(ls->rd, e->addr, &e->p)))
		return err;
	if ((err = chunk_name(ls, pr, e))) {
		luaproto__free(&e->p);
		return err;
	}
	e->ok = 1;
	e->seen = ls->seq;
	chunk_add(pr, e);
	return 0;
}

/*
** Settle cached proto e for this batch by what its address holds now (hdr, a
** fresh read, or NULL when the read failed with err). 0 or the read's -errno.
** A proto alive at its last check and dead at this one (its memory unmapped,
** or no longer a proto) names this batch's samples still: they were taken
** between the two checks, as a live proto's are. What its address holds at the
** next check is new, and loaded then. Another proto in its place is loaded now.
** Once the process is gone (the last samples of a command that exited), its
** memory can no longer change: the proto as last checked stands.
*/
static int settle(struct luanames *ls, struct ls_proto *e, const uint8_t *hdr, int err)
{
	enum luaproto_now now;

	if (hdr)
		now = luaproto__check(&e->p, hdr);
	else if (err == -ESRCH)
		now = LUAPROTO_SAME;
	else if (err == -EFAULT)
		now = LUAPROTO_FREED;
	else
		return err;
	if (now == LUAPROTO_OTHER) {
		e->ok = 0;
		return 0;
	}
	e->died = now == LUAPROTO_FREED;
	e->seen = ls->seq;
	return 0;
}

/* Is e to be reloaded before use: found dead at an earlier check? */
static int died_before(struct luanames *ls, struct ls_proto *e)
{
	if (e->died && e->seen != ls->seq)
		e->ok = 0;
	return !e->ok;
}

/* The valid proto at addr: cached and validated in this batch, or (re)loaded. */
static int proto_get(struct luanames *ls, struct ls_proc *pr, uint64_t addr, struct ls_proto **out)
{
	struct ls_proto *e = proto_find(pr, addr);
	uint8_t hdr[LUAPROTO_PEEK_SIZE];
	int err;

	*out = NULL;
	if (!addr)
		return -EINVAL;
	if (e && !died_before(ls, e) && e->seen != ls->seq) {
		const struct luaproto *one = &e->p;

		err = luaproto__peek(ls->rd, &one, 1, hdr);
		if ((err = settle(ls, e, err == 1 ? hdr : NULL, err < 0 ? err : -EFAULT)))
			return err;
	}
	if (!e && !(e = proto_add(pr, addr)))
		return -ENOMEM;
	if (!e->ok && (err = proto_load(ls, pr, e)))
		return err;
	*out = e;
	return 0;
}

/* Start a batch for a frames array: validate every cached proto in it at once. */
static void batch_begin(struct luanames *ls, struct ls_proc *pr,
			const struct lt_lua_frame *frames, unsigned n)
{
	const struct luaproto *p[LS_BATCH_MAX];
	struct ls_proto *ent[LS_BATCH_MAX];
	uint8_t hdr[LUAPROTO_PEEK_MAX * LUAPROTO_PEEK_SIZE];
	unsigned m = 0;

	if (!ls->epochs)
		ls->seq++;
	ls->batch.pid = pr->pid;
	ls->batch.frames = frames;
	ls->batch.n = n;
	memset(ls->batch.served, 0, sizeof(ls->batch.served));
	if (!ls->told)	/* the copy tells a new sample in the same array */
		memcpy(ls->batch.copy, frames, n * sizeof(*frames));
	for (unsigned i = 0; i < n; i++) {
		struct ls_proto *e;

		if (frames[i].kind != LT_LUA_LUA || !frames[i].addr)
			continue;
		e = proto_find(pr, frames[i].addr);
		if (!e || died_before(ls, e) || e->seen == ls->seq)
			continue;
		e->seen = ls->seq;	/* also dedups; cleared below unless read back */
		ent[m] = e;
		p[m++] = &e->p;
	}
	for (unsigned at = 0; at < m; at += LUAPROTO_PEEK_MAX) {	/* a system call each */
		unsigned k, part = m - at < LUAPROTO_PEEK_MAX ? m - at : LUAPROTO_PEEK_MAX;
		int got = luaproto__peek(ls->rd, p + at, part, hdr);

		for (k = 0; k < part; k++) {
			struct ls_proto *e = ent[at + k];

			if (got >= 0 && k < (unsigned)got)
				settle(ls, e, hdr + (size_t)k * LUAPROTO_PEEK_SIZE, 0);
			else
				e->seen = 0;	/* unread: proto_get checks it alone */
		}
	}
}

/* Is this call part of the current batch (same array and contents, new index)? */
static int batch_same(const struct luanames *ls, int pid, const struct lt_lua_frame *frames,
		      unsigned n, unsigned i)
{
	const struct ls_batch *b = &ls->batch;

	if (ls->told)	/* luanames__sample ended the last sample's batch */
		return b->frames == frames && b->pid == pid && b->n == n;
	return b->frames == frames && b->pid == pid && b->n == n &&
	       !(b->served[i / 64] >> (i % 64) & 1) &&
	       !memcmp(b->copy, frames, n * sizeof(*frames));
}

/* -- Naming ---------------------------------------------------------------- */

/* lj_debug_funcname's "namewhat" for each way of naming. */
static const char *const what_str[] = {
	[LUABC_GLOBAL] = "global", [LUABC_FIELD] = "field", [LUABC_METHOD] = "method",
	[LUABC_UPVALUE] = "upvalue", [LUABC_LOCAL] = "local", [LUABC_META] = "metamethod",
};

/* Intern a name of len bytes from the target, sanitized, "..." if cut at LS_NAME_MAX. */
static const char *intern_name(struct luanames *ls, const char *s, size_t len, int cut)
{
	char buf[LS_NAME_MAX + 4];

	if (len > LS_NAME_MAX) {
		len = LS_NAME_MAX;
		cut = 1;
	}
	memcpy(buf, s, len);
	sanitize(buf, len);
	if (cut) {
		memcpy(buf + len, "...", 3);
		len += 3;
	}
	return strpool__intern(&ls->strs, buf, len);
}

/* Work out the name the call at pos of caller c gives its callee. */
static void site_decode(struct luanames *ls, struct ls_proc *pr, struct ls_proto *c,
			uint32_t pos, struct ls_site *site)
{
	const struct luaproto *p = &c->p;
	uint32_t lo = pos >= LS_WINDOW ? pos - LS_WINDOW + 1 : 1;
	struct luabc_name nm;
	char key[LUAPROTO_STR_MAX];
	uint64_t str;
	size_t len;

	site->pos = pos;
	site->what = LUABC_NONE;
	site->name = NULL;
	if (luaproto__bc(ls->rd, p, lo, pos + 1, ls->win))
		return;
	switch (luabc__callee(ls->win, lo, pos, p->nvar ? p->dbg + p->varofs : NULL, p->nvar,
			      &nm)) {
	case LUABC_NONE:
		return;
	case LUABC_GLOBAL: case LUABC_FIELD: case LUABC_METHOD:
		if (luaproto__kgc(ls->rd, p, nm.ref, &str) ||
		    luastr__read(ls->rd, str, &pr->gcstr, 0, key, LS_NAME_MAX + 1, &len))
			return;
		site->name = intern_name(ls, key, strlen(key), strlen(key) < len);
		break;
	case LUABC_UPVALUE:
		if (nm.ref >= p->sizeuv || !p->nuv)
			return;
		nm.name = luabc__uvname(p->dbg + p->uvofs, p->nuv, nm.ref, &nm.len);
		if (!nm.name)
			return;
		site->name = intern_name(ls, nm.name, nm.len, 0);
		break;
	case LUABC_LOCAL: case LUABC_META:
		site->name = intern_name(ls, nm.name, nm.len, 0);
		break;
	}
	if (site->name)
		site->what = (uint8_t)nm.what;
}

/* The name the call at pos of caller c gives its callee (cached per proto). */
static const struct ls_site *site_get(struct luanames *ls, struct ls_proc *pr, struct ls_proto *c,
				      uint32_t pos, struct ls_site *tmp)
{
	for (uint32_t k = 0; k < c->nsites; k++)
		if (c->sites[k].pos == pos)
			return &c->sites[k];
	site_decode(ls, pr, c, pos, tmp);
	if (c->nsites < LS_SITES_MAX) {
		if (c->nsites == c->capsites) {
			uint32_t cap = c->capsites ? c->capsites * 2 : 4;
			struct ls_site *s = realloc(c->sites, cap * sizeof(*s));

			if (!s)
				return tmp;
			c->sites = s;
			c->capsites = cap;
		}
		c->sites[c->nsites] = *tmp;
		return &c->sites[c->nsites++];
	}
	return tmp;
}

/* Name frames[i] from its caller frames[i + 1], if the caller is Lua code. */
static const struct ls_site *callee_name(struct luanames *ls, struct ls_proc *pr,
					 const struct lt_lua_frame *frames, unsigned n,
					 unsigned i, struct ls_site *tmp)
{
	const struct lt_lua_frame *f = &frames[i], *cf;
	struct ls_proto *c;
	int64_t pos;

	if (i + 1 >= n)
		return NULL;
	cf = &frames[i + 1];
	if (f->link != LT_LINK_LUA && (f->link != LT_LINK_CONT || (f->flags & LT_LUAF_FFI_CB)))
		return NULL;
	if (cf->kind != LT_LUA_LUA || !cf->pc || proto_get(ls, pr, cf->addr, &c))
		return NULL;
	pos = luaproto__pos(ls->rd, &c->p, cf->pc);
	if (pos < 1 || pos >= c->p.sizebc)
		return NULL;
	return site_get(ls, pr, c, (uint32_t)pos, tmp);
}

/* Name of a fast function by ffid for this build. */
static const char *ff_name(struct luanames *ls, const struct ls_proc *pr, unsigned ffid)
{
	if (ffid >= 2 && ffid < pr->nffnames)
		return pr->ffnames[ffid];
	return intern_fmt(ls, "[builtin#%u]", ffid);
}

/* "func (chunk:line)", or the location alone for an unnamed function at function
** granularity or a builtin; remembered per proto (a sample names every frame).
** NULL on ENOMEM. */
static const char *frame_name(struct luanames *ls, struct ls_proto *e, const char *func,
			      int line, int lines)
{
	struct ls_memo *m;
	const char *loc, *name;

	for (unsigned k = 0; k < LS_MEMO; k++)
		if (e->memo[k].func == func && e->memo[k].line == line && func)
			return e->memo[k].name;
	if (e->p.firstline == -1)
		loc = e->chunk;
	else if (!(loc = intern_fmt(ls, "%s:%d", e->chunk, line)))
		return NULL;
	if (loc == func && (!lines || e->p.firstline == -1))
		name = loc;
	else if (!(name = intern_fmt(ls, "%s (%s)", func, loc)))
		return NULL;
	m = &e->memo[e->memo_next++ % LS_MEMO];
	*m = (struct ls_memo){ func, line, name };
	return name;
}

/* -- Definition-site names ---------------------------------------------------- */

/* Could proto c lexically enclose proto e (same chunk, e's lines inside c's)? */
static int may_enclose(const struct ls_proto *c, const struct ls_proto *e)
{
	const struct luaproto *cp = &c->p, *ep = &e->p;

	if (c == e || !c->ok || cp->chunkname != ep->chunkname || ep->firstline <= 0 ||
	    !cp->sizekgc)
		return 0;
	if (cp->firstline == 0)		/* the main chunk encloses everything in it */
		return 1;
	return cp->firstline > 0 && cp->firstline <= ep->firstline &&
	       (int64_t)ep->firstline + ep->numline <= (int64_t)cp->firstline + cp->numline;
}

/* The index of e among c's GC constants (a child proto is one), or -1. */
static int64_t kgc_index(struct luanames *ls, const struct ls_proto *c, uint64_t addr)
{
	uint32_t n = c->p.sizekgc < LS_KGC_MAX ? c->p.sizekgc : LS_KGC_MAX;
	uint64_t *k = malloc(n * sizeof(*k));
	int64_t found = -1;

	/* kgc[idx] is at k - 8 * (idx + 1): read them all at once, lowest address first */
	if (k && !mreader__read(ls->rd, c->p.k - 8ull * n, k, n * sizeof(*k)))
		for (uint32_t i = 0; i < n && found < 0; i++)
			if (k[n - 1 - i] == addr)
				found = i;
	free(k);
	return found;
}

/* Name e by the FNEW in its parent c that creates it (kgc index kidx). */
static int def_in_parent(struct luanames *ls, struct ls_proc *pr, struct ls_proto *c,
			 struct ls_proto *e, uint32_t kidx)
{
	const struct luaproto *p = &c->p;
	uint32_t end = p->sizebc < LS_DEF_BC_MAX ? p->sizebc : LS_DEF_BC_MAX;
	char key[LUAPROTO_STR_MAX];
	struct luabc_name nm;
	uint32_t at;
	uint64_t str;
	size_t len;

	/* windows overlap by one: an FNEW's successor is always in its window */
	for (uint32_t lo = 1; lo + 1 < end; lo += LS_WINDOW - 1) {
		uint32_t hi = end - lo > LS_WINDOW ? lo + LS_WINDOW : end;

		if (luaproto__bc(ls->rd, p, lo, hi, ls->win))
			return 0;
		switch (luabc__definer(ls->win, lo, hi - lo, kidx, p->nvar ? p->dbg + p->varofs : NULL,
				       p->nvar, &at, &nm)) {
		case LUABC_GLOBAL: case LUABC_FIELD:
			if (luaproto__kgc(ls->rd, p, nm.ref, &str) ||
			    luastr__read(ls->rd, str, &pr->gcstr, 0, key, LS_NAME_MAX + 1, &len))
				return 1;	/* found, but its name is unreadable */
			e->def_name = intern_name(ls, key, strlen(key), strlen(key) < len);
			break;
		case LUABC_UPVALUE:
			if (nm.ref < p->sizeuv && p->nuv &&
			    (nm.name = luabc__uvname(p->dbg + p->uvofs, p->nuv, nm.ref, &nm.len)))
				e->def_name = intern_name(ls, nm.name, nm.len, 0);
			break;
		case LUABC_LOCAL:
			e->def_name = intern_name(ls, nm.name, nm.len, 0);
			break;
		default:
			if (hi == end)
				return 0;
			continue;	/* not in this window */
		}
		e->def_what = (uint8_t)nm.what;
		return 1;
	}
	return 0;
}

/* Look for e's parent among the candidates: 1 when found (named or not). */
static int def_search(struct luanames *ls, struct ls_proc *pr, struct ls_proto *e,
		      struct ls_proto *c)
{
	int64_t kidx;

	if (!may_enclose(c, e) || (kidx = kgc_index(ls, c, e->addr)) < 0)
		return 0;
	def_in_parent(ls, pr, c, e, (uint32_t)kidx);
	return 1;
}

/*
** The definition-site name of proto e: how its parent stores the closure it
** creates. The parent is looked for among the loaded protos of e's chunk (every
** proto a sample named is loaded, so the outer frames' are there); a module's
** main chunk may have run long ago: when it was never on a sampled stack, there
** is no name. Looked for again only when the chunk has more candidates.
*/
static const char *def_name(struct luanames *ls, struct ls_proc *pr, struct ls_proto *e)
{
	struct ls_chunk *ch;

	if (e->def_done || e->p.firstline <= 0 ||
	    !(ch = chunk_of(pr, e->p.chunkname, 0)) || ch->n == e->def_tried)
		return e->def_name;
	e->def_tried = ch->n;
	for (size_t k = 0; k < ch->n && !e->def_done; k++)
		e->def_done = (uint8_t)def_search(ls, pr, e, ch->v[k]);
	return e->def_name;
}

/* Name a Lua function frame. */
static int lua_frame(struct luanames *ls, struct ls_proc *pr, const struct lt_lua_frame *frames,
		     unsigned n, unsigned i, int lines, struct luaname *out)
{
	const struct lt_lua_frame *f = &frames[i];
	const struct ls_site *site;
	struct ls_site tmp;
	struct ls_proto *e;
	int err, line = -1;

	if ((err = proto_get(ls, pr, f->addr, &e)))
		return err;
	if (lines && f->pc)
		line = luaproto__line(&e->p, luaproto__pos(ls->rd, &e->p, f->pc));
	if (line < 0)
		line = e->p.firstline > 0 ? e->p.firstline : 0;
	out->line = line;
	out->firstline = e->p.firstline;
	out->chunk = e->chunk;
	out->func = e->unnamed;
	if (def_name(ls, pr, e)) {	/* the function's own name first */
		out->func = e->def_name;
		out->what = what_str[e->def_what];
	} else if ((site = callee_name(ls, pr, frames, n, i, &tmp)) && site->name) {
		out->func = site->name;
		out->what = what_str[site->what];
	}
	out->name = frame_name(ls, e, out->func, line, lines);
	return out->name ? 0 : -ENOMEM;
}

void luanames__epoch(struct luanames *ls)
{
	ls->epochs = 1;
	ls->seq++;
}

void luanames__sample(struct luanames *ls)
{
	ls->told = 1;
	ls->batch.frames = NULL;
}

/* Name frames[i] of a sample's Lua frames. */
int luanames__frame(struct luanames *ls, int pid, const struct mreader *rd,
		    const struct lt_lua_frame *frames, unsigned n, unsigned i, int lines,
		    struct luaname *out)
{
	const struct lt_lua_frame *f;
	const struct ls_site *site;
	struct ls_site tmp;
	struct ls_proc *pr;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->name = LS_ERROR;
	if (!ls || !rd || !frames || i >= n || pid <= 0)
		return -EINVAL;
	ls->rd = rd;
	f = &frames[i];
	if (!(pr = proc_get(ls, pid, 1)))
		return -ENOMEM;
	if (pr->used >= LS_PROTOS_MAX) {	/* full: start over (never mid-call) */
		proc_flush(pr);
		ls->batch.frames = NULL;
	}
	if (n <= LS_BATCH_MAX && !batch_same(ls, pid, frames, n, i))
		batch_begin(ls, pr, frames, n);
	else if (n > LS_BATCH_MAX)
		ls->seq += !ls->epochs;	/* no batch: validate each proto on use */
	if (n <= LS_BATCH_MAX)
		ls->batch.served[i / 64] |= 1ull << (i % 64);
	switch (f->kind) {
	case LT_LUA_LUA:
		err = lua_frame(ls, pr, frames, n, i, lines, out);
		break;
	case LT_LUA_FAST:
		out->name = out->func = ff_name(ls, pr, f->ffid);
		err = out->name ? 0 : -ENOMEM;
		break;
	case LT_LUA_C:
		out->name = NULL;
		site = callee_name(ls, pr, frames, n, i, &tmp);
		if (site && site->name) {
			out->func = site->name;
			out->what = what_str[site->what];
		}
		break;
	case LT_LUA_COROUTINE:
		out->name = out->func = LS_COROUTINE;
		break;
	default:
		err = -EINVAL;
	}
	if (err) {
		memset(out, 0, sizeof(*out));
		out->name = LS_ERROR;
	}
	return err;
}
