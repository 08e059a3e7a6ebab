/*
** JIT traces: snapshot regions and the frames of snapshots (see trace.h).
**
** A GCtrace is one allocation [GCtrace][IRIns x (nins - nk)][SnapShot x nsnap]
** [SnapEntry x nsnapmap] (lj_trace.c, trace_save). What is read of it:
**
**   snap[]     the snapshots: mcofs (where its region of the machine code
**              starts, non-decreasing from 0), mapofs and nent (its entries)
**   snapmap[]  per snapshot nent entries slot << 24 | flags | ref, then one
**              u64 pcbase = PC << 8 | (baseslot - 2): the bytecode it resumes
**              at and the base slot of the innermost frame
**   ir[]       the constants the entries refer to: the functions of inlined
**              frames (KGC, IRT_FUNC) and their frame links (KNUM bits), with
**              their 64-bit values in the next IRIns
**
** Slot s of a snapshot is the stack slot jit_base - 16 + 8 s. A frame with base
** slot b has its function in slot b - 2 and its link in slot b - 1 (SNAP_FRAME):
** the return pc into the caller (link & 3 == 0: the caller's base is
** b - 2 - A of the CALL before it), or a continuation (link & 7 == 2: the
** caller's pc in slot b - 3, delta link >> 3), or a vararg frame (link & 7 ==
** 3: the same function's real frame is delta below). The walk goes down from
** the innermost base to slot 2, the trace's base frame.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lua/bc.h"
#include "lua/layout.h"
#include "lua/trace.h"
#include "lua/vmdef.h"

#define TR_CACHE_MAX	1024	/* traces cached per process (then all forgotten) */
#define TR_KCONST_MAX	(64u << 10)	/* bytes of IR constants read per trace */
#define TR_SLOTS	256	/* snapshot slots are u8 */
#define TR_LEVELS	(LUATRACE_FRAMES_MAX + 1)	/* the base frame and the inlined ones */
#define TR_SCAN_MAX	512	/* instructions scanned for a function's return */

static const char *const why_texts[] = {
#define LUATRACE_WHY_TEXT(name, text) text,
	LUATRACE_WHY_LIST(LUATRACE_WHY_TEXT)
#undef LUATRACE_WHY_TEXT
};

const char *luatrace__why_text(int why)
{
	return why >= 0 && why < LUATRACE_WHY__COUNT ? why_texts[why] : "unknown";
}

static const char *const rule_names[] = {
#define LUATRACE_RULE_NAME(name, str, text) str,
	LUATRACE_RULE_LIST(LUATRACE_RULE_NAME)
#undef LUATRACE_RULE_NAME
};

int luatrace__rule_of(const char *name)
{
	for (int r = 0; name && r < LUATRACE_RULE__COUNT; r++)
		if (!strcmp(name, rule_names[r]))
			return r;
	return -1;
}

const char *luatrace__rule_name(int rule)
{
	return rule >= 0 && rule < LUATRACE_RULE__COUNT ? rule_names[rule] : "?";
}

/* -- Headers ------------------------------------------------------------------ */

int luatrace__hdr(const uint8_t *raw, size_t len, uint64_t T, struct luatrace_hdr *h)
{
	if (len < LT_TRACE_HDR || raw[9] != LT_LJ_GCT_TRACE || !user_range(T, LT_TRACE_HDR))
		return -EINVAL;
	*h = (struct luatrace_hdr){
		.T = T,
		.nsnap = le16_at(raw, LT_LJ_TRACE_NSNAP),
		.nins = le32_at(raw, LT_LJ_TRACE_NINS),
		.ir = le64_at(raw, LT_LJ_TRACE_IR),
		.nk = le32_at(raw, LT_LJ_TRACE_NK),
		.nsnapmap = le32_at(raw, LT_LJ_TRACE_NSNAPMAP),
		.snap = le64_at(raw, LT_LJ_TRACE_SNAP),
		.snapmap = le64_at(raw, LT_LJ_TRACE_SNAPMAP),
		.startpt = le64_at(raw, LT_LJ_TRACE_STARTPT),
		.startpc = le64_at(raw, LT_LJ_TRACE_STARTPC),
		.szmcode = le32_at(raw, LT_LJ_TRACE_SZMCODE),
		.mcode = le64_at(raw, LT_LJ_TRACE_MCODE),
		.mcloop = le32_at(raw, LT_LJ_TRACE_MCLOOP),
		.spadjust = le16_at(raw, LT_LJ_TRACE_SPADJUST),
		.traceno = le16_at(raw, LT_LJ_TRACE_TRACENO),
		.link = le16_at(raw, LT_LJ_TRACE_LINK),
		.root = le16_at(raw, LT_LJ_TRACE_ROOT),
		.linktype = raw[LT_LJ_TRACE_LINKTYPE],
	};
	if (!h->nsnap || h->nsnap > LUATRACE_SNAPS_MAX || !h->traceno ||
	    h->nk >= LT_LJ_REF_BIAS || h->nins <= LT_LJ_REF_BIAS || h->nins < h->nk ||
	    !user_range(h->snap, (uint64_t)h->nsnap * LT_LJ_SNAP_SIZE) ||
	    !user_range(h->snapmap, 4ull * h->nsnapmap) || !h->ir || !user_range(h->mcode, h->szmcode) ||
	    !h->szmcode || h->mcloop > h->szmcode || !user_range(h->startpc, 4))
		return -EINVAL;
	return 0;
}

int luatrace__same(const struct luatrace_hdr *a, const struct luatrace_hdr *b)
{
	return a->T == b->T && a->traceno == b->traceno && a->mcode == b->mcode &&
	       a->szmcode == b->szmcode && a->startpc == b->startpc && a->nsnap == b->nsnap &&
	       a->nins == b->nins && a->nk == b->nk && a->nsnapmap == b->nsnapmap &&
	       a->snap == b->snap && a->snapmap == b->snapmap && a->ir == b->ir &&
	       a->mcloop == b->mcloop && a->spadjust == b->spadjust;
}

/* -- One trace ---------------------------------------------------------------- */

/*
** The bytecode a region runs, from snapshot i's frames to snapshot i+1's, as
** segments of instructions (the path rule): first the rest of each frame of i
** below the frames both share (leaf up, each to its return), then the deepest
** shared frame from i's pc to i+1's, then each frame of i+1 below it from its
** start to its pc (outermost down).
*/
struct rpath {
	uint8_t state;			/* 0 not computed, 1 a path, 2 none (region rule) */
	uint8_t m;			/* levels both share (level 0: the base frame) */
	uint8_t di, dj;			/* levels of snapshot i and i+1 */
	uint8_t nseg;
	uint16_t nins;			/* instructions on the path */
	uint16_t start[2 * TR_LEVELS + 2];	/* first instruction of each segment */
	uint16_t cost[TR_SCAN_MAX];	/* machine-code cost after each instruction, summed */
};

/* A trace as read once: its snapshots' regions and entries, its constants. */
struct ctrace {
	struct luatrace_hdr h;
	uint32_t *mcofs;		/* per snapshot */
	uint32_t *mapofs;
	uint8_t *nent;
	uint8_t *kconst;		/* IR [nk, REF_BIAS + 1) as read: 8 bytes each */
	struct luatrace_snap **snaps;	/* per snapshot, decoded on first use */
	struct rpath *paths;		/* per region, computed on first use */
	uint64_t seq;			/* when it was last used */
};

/* A header as a sample carried it, parsed (most samples repeat one of a few). */
struct hdr_memo {
	uint64_t T;			/* 0: empty */
	int ok;				/* it parsed */
	uint8_t raw[LT_TRACE_HDR];
	struct luatrace_hdr h;
};

#define TR_HDR_MEMO	16		/* direct-mapped by T */
#define TR_FAILED	32		/* traces that could not be loaded, remembered */

/* A trace that could not be loaded: a flushed one never comes back, and every
** sample that ran in it (traces churn: jit.flush, a full mcode area) needs no
** read to tell. */
struct failed {
	struct luatrace_hdr h;
	int why;			/* enum luatrace_why + 1; 0: empty */
};

struct luatraces {
	struct ctrace **t;
	size_t n, cap;
	struct ctrace *last;		/* the trace found last (one compare, mostly) */
	struct hdr_memo memo[TR_HDR_MEMO];
	struct failed failed[TR_FAILED];
	unsigned nfailed;
	uint64_t seq;
	struct luatraces_stats stats;
	struct luatrace_snap out;	/* a sample's frames placed on a region's path */
};

static void ctrace_free(struct ctrace *t)
{
	if (!t)
		return;
	if (t->snaps)
		for (unsigned i = 0; i < t->h.nsnap; i++)
			free(t->snaps[i]);
	free(t->snaps);
	free(t->paths);
	free(t->mcofs);
	free(t->mapofs);
	free(t->nent);
	free(t->kconst);
	free(t);
}

/* Parse the snapshot table read into raw: -errno, -ENOTSUP when mcofs is not
** there (builds before 2021-03 put nslots where mcofs is). */
static int parse_snaps(struct ctrace *t, const uint8_t *raw)
{
	const struct luatrace_hdr *h = &t->h;

	t->mcofs = calloc(h->nsnap, sizeof(*t->mcofs));
	t->mapofs = calloc(h->nsnap, sizeof(*t->mapofs));
	t->nent = calloc(h->nsnap, sizeof(*t->nent));
	t->snaps = calloc(h->nsnap, sizeof(*t->snaps));
	t->paths = calloc(h->nsnap, sizeof(*t->paths));
	if (!t->mcofs || !t->mapofs || !t->nent || !t->snaps || !t->paths)
		return -ENOMEM;
	for (unsigned i = 0; i < h->nsnap; i++) {
		const uint8_t *s = raw + (size_t)i * LT_LJ_SNAP_SIZE;

		t->mcofs[i] = le16_at(s, LT_LJ_SNAP_MCOFS);
		t->mapofs[i] = le32_at(s, LT_LJ_SNAP_MAPOFS);
		t->nent[i] = s[LT_LJ_SNAP_NENT];
		/* Entries plus the u64 pcbase must lie inside the map. */
		if ((uint64_t)t->mapofs[i] + t->nent[i] + 2 > h->nsnapmap)
			return -EINVAL;
		if ((i == 0 && t->mcofs[0]) || (i && t->mcofs[i] < t->mcofs[i - 1]) ||
		    t->mcofs[i] >= h->szmcode)
			return -ENOTSUP;
	}
	return 0;
}

/* Does raw (a header read at h->T) still say trace h? */
static int same_hdr(const struct luatrace_hdr *h, const uint8_t *raw)
{
	struct luatrace_hdr now;

	return !luatrace__hdr(raw, LT_TRACE_HDR, h->T, &now) && luatrace__same(h, &now);
}

/* Re-read T's header: does the trace still live at T as h says? */
static int still_there(const struct mreader *r, const struct luatrace_hdr *h)
{
	uint8_t raw[LT_TRACE_HDR];

	return !mreader__read(r, h->T, raw, sizeof(raw)) && same_hdr(h, raw);
}

/*
** Load trace h: 0 and *out, or -errno (-ENOTSUP: no mcofs; -ESTALE: gone). One
** read of four spans, copied in order: the header, the snapshots, the IR
** constants [nk, REF_BIAS] (the 64-bit value of the last is the next), the
** header again. What lies between two reads of an unchanged header is the
** live trace's. A first read of the header alone turns away a trace flushed
** before its sample was read, cheaply (it pins one page, not all of them).
*/
static int ctrace_load(const struct mreader *r, const struct luatrace_hdr *h, struct ctrace **out)
{
	size_t nsnap = (size_t)h->nsnap * LT_LJ_SNAP_SIZE;
	size_t nk = (size_t)(LT_LJ_REF_BIAS + 1 - h->nk) * 8;
	uint8_t hdr0[LT_TRACE_HDR], hdr1[LT_TRACE_HDR], *snaps = malloc(nsnap);
	struct ctrace *t = calloc(1, sizeof(*t));
	struct mspan sp[4];
	int err = -ENOMEM, got;

	if (!t || !snaps || nk > TR_KCONST_MAX || !(t->kconst = malloc(nk)))
		goto out;
	err = -EINVAL;
	if (!user_range(h->snap, nsnap) || !user_range(h->ir + 8ull * h->nk, nk))
		goto out;
	t->h = *h;
	err = -ESTALE;
	if (!still_there(r, h))	/* flushed: the common case when traces churn */
		goto out;
	sp[0] = (struct mspan){ h->T, hdr0, sizeof(hdr0) };
	sp[1] = (struct mspan){ h->snap, snaps, nsnap };
	sp[2] = (struct mspan){ h->ir + 8ull * h->nk, t->kconst, nk };
	sp[3] = (struct mspan){ h->T, hdr1, sizeof(hdr1) };
	got = mreader__readv(r, sp, 4);
	if (got < 0 && got != -EFAULT) {
		err = got;
		goto out;
	}
	err = -ESTALE;
	if (got < 1 || !same_hdr(h, hdr0))
		goto out;
	if (got < 4) {	/* the header was there, not all of the rest */
		err = -EFAULT;
		goto out;
	}
	if (!same_hdr(h, hdr1))
		goto out;
	err = parse_snaps(t, snaps);
out:
	free(snaps);
	if (err) {
		ctrace_free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* The constant ref: its opcode, type and 64-bit value. -1 if not a constant. */
static int konst(const struct ctrace *t, uint32_t ref, uint8_t *o, uint8_t *type, uint64_t *v)
{
	const uint8_t *ir;

	if (ref < t->h.nk || ref >= LT_LJ_REF_BIAS)
		return -1;
	ir = t->kconst + 8 * (size_t)(ref - t->h.nk);
	*o = ir[LT_LJ_IR_O];
	*type = ir[LT_LJ_IR_T] & 31;
	*v = le64_at(ir, 8);	/* ir[ref + 1]: ref + 1 <= REF_BIAS was read too */
	return 0;
}

/* -- The frames of a snapshot ------------------------------------------------- */

/* The entries of one snapshot by slot. */
struct slots {
	uint32_t e[TR_SLOTS];		/* the entry, valid when has[slot] */
	uint8_t has[TR_SLOTS];
};

/* A frame link (SNAP_FRAME|CONT entry with a KNUM constant), or -1. */
static int link_of(const struct ctrace *t, const struct slots *sl, int s, uint32_t flag,
		   uint64_t *link)
{
	uint8_t o, type;

	if (s < 0 || !sl->has[s] || !(sl->e[s] & flag) ||
	    konst(t, sl->e[s] & 0xffff, &o, &type, link) || o != LT_LJ_IR_KNUM)
		return -1;
	return 0;
}

/* Fill f from the function object fn, as the sampler's walk does: 0, or -1. */
static int describe(const struct mreader *r, uint64_t fn, struct lt_lua_frame *f)
{
	uint8_t ffid;
	uint64_t v = 0;

	if (!user_range(fn, 48) || mreader__read(r, fn + LT_LJ_FN_FFID, &ffid, 1))
		return -1;
	f->fn = fn;
	f->ffid = ffid;
	if (ffid == 0) {
		if (mreader__read(r, fn + LT_LJ_FN_PC, &v, 8) || v < LT_LJ_PROTO_SIZE)
			return -1;
		f->kind = LT_LUA_LUA;
		f->addr = v - LT_LJ_PROTO_SIZE;
	} else if (ffid == 1) {
		if (mreader__read(r, fn + LT_LJ_FN_CFUNC, &v, 8))
			return -1;
		f->kind = LT_LUA_C;
		f->addr = v;
	} else {
		f->kind = LT_LUA_FAST;	/* pcall, xpcall: their frames are recorded */
		f->addr = 0;
	}
	return 0;
}

/* The prototype among the trace's IRT_PROTO constants whose bytecode holds pc
** (a function slot that is not a constant: a closure of many). */
static uint64_t proto_of_pc(const struct ctrace *t, const struct mreader *r, uint64_t pc)
{
	for (uint32_t ref = t->h.nk; ref < LT_LJ_REF_BIAS; ref++) {
		uint8_t o, type;
		uint64_t pt;
		uint32_t sizebc;

		if (konst(t, ref, &o, &type, &pt) || o != LT_LJ_IR_KGC || type != LT_LJ_IRT_PROTO ||
		    !user_range(pt, LT_LJ_PROTO_SIZE) || mreader__read(r, pt + 12, &sizebc, 4))
			continue;
		if (pc > pt + LT_LJ_PROTO_SIZE && pc <= pt + LT_LJ_PROTO_SIZE + 4ull * sizebc)
			return pt;
	}
	return 0;
}

/* The function in slot s, for a frame whose current pc is pc (0: unknown). */
static int frame_fn(const struct ctrace *t, const struct mreader *r, const struct slots *sl,
		    int s, uint64_t pc, struct lt_lua_frame *f)
{
	uint8_t o, type;
	uint64_t v;

	if (s < 0 || !sl->has[s])
		return -1;
	if (!konst(t, sl->e[s] & 0xffff, &o, &type, &v)) {
		if (o != LT_LJ_IR_KGC || type != LT_LJ_IRT_FUNC)
			return -1;
		return describe(r, v & LT_LJ_GCPTR_MASK, f);
	}
	v = pc ? proto_of_pc(t, r, pc) : 0;	/* a run-time function value */
	if (!v)
		return -1;
	f->kind = LT_LUA_LUA;
	f->fn = 0;
	f->addr = v;
	return 0;
}

/* The A operand of the CALL before return pc link (its callee's base is A + 2 above). */
static int call_a(const struct mreader *r, uint64_t link, unsigned *a)
{
	uint32_t ins;

	if (!user_range(link - 4, 4) || mreader__read(r, link - 4, &ins, 4))
		return -1;
	*a = (ins >> 8) & 0xff;
	return 0;
}

/* Walk the frames of snapshot i from its innermost base down to the base frame. */
static int decode(const struct ctrace *t, const struct mreader *r, unsigned i,
		  struct luatrace_snap *out)
{
	uint32_t map[TR_SLOTS + 2];
	unsigned nent = t->nent[i];
	struct slots sl;
	uint64_t pcbase, link, pc, cont_pc;
	int b, varg = 0;

	memset(out, 0, sizeof(*out));
	memset(sl.has, 0, sizeof(sl.has));
	out->index = i;
	out->traceno = t->h.traceno;
	out->mcofs = t->mcofs[i];
	if (mreader__read(r, t->h.snapmap + 4ull * t->mapofs[i], map, 4 * (nent + 2)))
		return -1;
	for (unsigned k = 0; k < nent; k++) {
		sl.e[map[k] >> 24] = map[k];
		sl.has[map[k] >> 24] = 1;
	}
	memcpy(&pcbase, &map[nent], sizeof(pcbase));
	out->pc = pcbase >> 8;
	b = (int)(pcbase & 0xff) + 2;
	pc = out->pc + 4;	/* the frame's pc is after its current instruction */
	while (b > 2) {
		struct lt_lua_frame f = { .pc = pc };

		if (out->n == LUATRACE_FRAMES_MAX || link_of(t, &sl, b - 1, LT_LJ_SNAPE_FRAME, &link))
			return -1;
		if (!varg) {
			if (frame_fn(t, r, &sl, b - 2, pc, &f))
				return -1;
			out->frames[out->n++] = f;
		}
		varg = 0;
		out->frames[out->n - 1].link = (uint8_t)(link & LT_LJ_FRAME_TYPEP);
		if ((link & LT_LJ_FRAME_TYPE) == 0) {	/* called from Lua: link is the return pc */
			unsigned a;

			if (call_a(r, link, &a))
				return -1;
			out->frames[out->n - 1].link = LT_LINK_LUA;
			pc = link;
			b -= 2 + (int)a;
		} else if ((link & LT_LJ_FRAME_TYPEP) == LT_LJ_FRAME_CONT) {
			if (link_of(t, &sl, b - 3, LT_LJ_SNAPE_CONT, &cont_pc))
				return -1;
			pc = cont_pc;
			b -= (int)(link >> 3);
		} else if ((link & LT_LJ_FRAME_TYPEP) == LT_LJ_FRAME_VARG) {
			varg = 1;	/* the same function's real frame, with its real link */
			b -= (int)(link >> 3);
		} else if ((link & LT_LJ_FRAME_TYPEP) >= LT_LINK_PCALL) {
			pc = 0;		/* called by pcall/xpcall, whose frame is below */
			b -= (int)(link >> 3);
		} else {
			return -1;	/* a C frame cannot be inside a trace */
		}
	}
	if (b != 2)
		return -1;
	out->base_pc = pc;
	if (sl.has[0]) {	/* the trace replaced the base frame's function: a tail call */
		struct lt_lua_frame f;

		if (frame_fn(t, r, &sl, 0, pc, &f) || f.kind != LT_LUA_LUA)
			return -1;
		out->base_fn = f.fn;
		out->base_pt = f.addr;
	}
	return 0;
}

/* -- The cache ---------------------------------------------------------------- */

struct luatraces *luatraces__new(void)
{
	return calloc(1, sizeof(struct luatraces));
}

void luatraces__flush(struct luatraces *c)
{
	for (size_t i = 0; i < c->n; i++)
		ctrace_free(c->t[i]);
	c->n = 0;
	c->last = NULL;
}

int luatraces__header(struct luatraces *c, const uint8_t *raw, uint64_t T, struct luatrace_hdr *out)
{
	struct hdr_memo *m = &c->memo[(T >> 6) % TR_HDR_MEMO];

	if (m->T != T || memcmp(m->raw, raw, LT_TRACE_HDR)) {
		m->T = T;
		memcpy(m->raw, raw, LT_TRACE_HDR);
		m->ok = !luatrace__hdr(raw, LT_TRACE_HDR, T, &m->h);
	}
	if (!m->ok)
		return -EINVAL;
	*out = m->h;
	return 0;
}

const struct luatraces_stats *luatraces__stats(const struct luatraces *c)
{
	return &c->stats;
}

void luatraces__delete(struct luatraces *c)
{
	if (!c)
		return;
	luatraces__flush(c);
	free(c->t);
	free(c);
}

/* The cached trace of header h, loaded when new: 0, or -1 and *why. */
static int trace_of(struct luatraces *c, const struct mreader *r, const struct luatrace_hdr *h,
		    struct ctrace **out, enum luatrace_why *why)
{
	struct ctrace *t;
	int err;

	if (c->last && luatrace__same(&c->last->h, h)) {
		*out = c->last;
		return 0;
	}
	for (size_t i = 0; i < c->n; i++)
		if (luatrace__same(&c->t[i]->h, h)) {
			c->t[i]->seq = ++c->seq;
			*out = c->last = c->t[i];
			return 0;
		}
	for (unsigned k = 0; k < TR_FAILED; k++)
		if (c->failed[k].why && luatrace__same(&c->failed[k].h, h)) {
			*why = c->failed[k].why - 1;
			return -1;
		}
	c->stats.loads++;
	err = ctrace_load(r, h, &t);
	if (err) {
		*why = err == -ENOTSUP ? LUATRACE_WHY_NO_MCOFS :
		       err == -ESTALE || err == -EFAULT ? LUATRACE_WHY_GONE : LUATRACE_WHY_BAD;
		c->failed[c->nfailed++ % TR_FAILED] = (struct failed){ *h, (int)*why + 1 };
		return -1;
	}
	if (c->n == TR_CACHE_MAX) {
		luatraces__flush(c);	/* many flushes: start over */
		c->stats.restarts++;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct ctrace **p = realloc(c->t, cap * sizeof(*p));

		if (!p) {
			ctrace_free(t);
			*why = LUATRACE_WHY_BAD;
			return -1;
		}
		c->t = p;
		c->cap = cap;
	}
	t->seq = ++c->seq;
	c->t[c->n++] = t;
	*out = c->last = t;
	return 0;
}

/*
** The live trace whose machine code holds pc: each slot of J->trace in turn
** (only when the sample's own trace does not hold it).
*/
static int find_by_pc(const struct mreader *r, uint64_t jtrace, uint64_t pc, struct luatrace_hdr *h)
{
	uint64_t arr, T;
	uint32_t size;

	if (!jtrace || mreader__read(r, jtrace, &arr, 8) ||
	    mreader__read(r, jtrace + LT_LJ_J_SIZETRACE, &size, 4) || size > LT_LJ_TRACE_MAX ||
	    !user_range(arr, 8ull * size))
		return -1;
	for (uint32_t n = 1; n < size; n++) {
		uint8_t raw[LT_TRACE_HDR];

		if (mreader__read(r, arr + 8ull * n, &T, 8) || !T ||
		    mreader__read(r, T, raw, sizeof(raw)) || luatrace__hdr(raw, sizeof(raw), T, h))
			continue;
		if (pc >= h->mcode && pc - h->mcode < h->szmcode)
			return 0;
	}
	return -1;
}

/* The decoded snapshot i of t (cached). */
static const struct luatrace_snap *snap_of(struct luatraces *c, struct ctrace *t,
					   const struct mreader *r, unsigned i)
{
	if (!t->snaps[i]) {
		struct luatrace_snap *s = malloc(sizeof(*s));

		if (!s || decode(t, r, i, s)) {
			free(s);
			return NULL;
		}
		t->snaps[i] = s;
	}
	(void)c;
	return t->snaps[i];
}

/* The snapshot whose region holds machine-code offset off. */
static unsigned region_of(const struct ctrace *t, uint32_t off)
{
	unsigned lo = 0, hi = t->h.nsnap;	/* the last with mcofs <= off */

	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (t->mcofs[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* -- The path rule ------------------------------------------------------------ */

/* Level k of snapshot s (0: the base frame): its prototype (0 for the base,
** which both snapshots of a trace share unless a tail call replaced it) and pc. */
static uint64_t level_pt(const struct luatrace_snap *s, unsigned k)
{
	return k ? s->frames[s->n - k].addr : s->base_pt;
}

static uint64_t level_pc(const struct luatrace_snap *s, unsigned k)
{
	return k ? s->frames[s->n - k].pc : s->base_pc;
}

/*
** What one bytecode instruction costs in a trace, roughly: data structure
** accesses several instructions, arithmetic and guards one, and moves,
** constants, calls and returns nothing (registers and inlining make them
** disappear). Ops past JMP (function headers) differ between builds: none.
*/
static unsigned bc_cost(uint32_t op)
{
	switch (op) {
	case LVM_BC_GGET: case LVM_BC_GSET: case LVM_BC_TGETV: case LVM_BC_TGETS:
	case LVM_BC_TGETB: case LVM_BC_TGETR: case LVM_BC_TSETV: case LVM_BC_TSETS:
	case LVM_BC_TSETB: case LVM_BC_TSETM: case LVM_BC_TSETR: case LVM_BC_TNEW:
	case LVM_BC_TDUP: case LVM_BC_FNEW: case LVM_BC_CAT: case LVM_BC_ITERC:
	case LVM_BC_ITERN:
		return 4;
	case LVM_BC_USETV: case LVM_BC_USETS: case LVM_BC_USETN: case LVM_BC_USETP:
	case LVM_BC_LEN: case LVM_BC_POW:
		return 2;
	case LVM_BC_MOV: case LVM_BC_KSTR: case LVM_BC_KCDATA: case LVM_BC_KSHORT:
	case LVM_BC_KNUM: case LVM_BC_KPRI: case LVM_BC_KNIL: case LVM_BC_UGET:
	case LVM_BC_UCLO: case LVM_BC_CALLM: case LVM_BC_CALL: case LVM_BC_CALLMT:
	case LVM_BC_CALLT: case LVM_BC_VARG: case LVM_BC_ISNEXT: case LVM_BC_RETM:
	case LVM_BC_RET: case LVM_BC_RET0: case LVM_BC_RET1: case LVM_BC_FORI:
	case LVM_BC_JFORI: case LVM_BC_LOOP: case LVM_BC_ILOOP: case LVM_BC_JLOOP:
	case LVM_BC_JMP:
		return 0;
	default:
		return op < LVM_BC__COMMON ? 1 : 0;
	}
}

#define TR_BC_CHUNK	64	/* instructions read at once along a path */

/*
** Append the instructions [from, from + 4 n) to the path as one segment (n 0:
** up to and with the function's next return), read in chunks. 0, or -1 when
** unreadable.
*/
static int add_segment(const struct mreader *r, struct rpath *p, uint64_t from, uint32_t n)
{
	uint32_t buf[TR_BC_CHUNK], total = p->nins ? p->cost[p->nins - 1] : 0;
	uint32_t want = n ? n : TR_SCAN_MAX, k = 0;

	p->start[p->nseg++] = p->nins;
	while (k < want && p->nins < TR_SCAN_MAX) {
		uint32_t len = want - k < TR_BC_CHUNK ? want - k : TR_BC_CHUNK;
		long got;

		got = mreader__read_some(r, from + 4ull * k, buf, 4 * len);
		if (got < 4)
			return -1;
		for (uint32_t j = 0; j < (uint32_t)got / 4 && p->nins < TR_SCAN_MAX; j++, k++) {
			total += bc_cost(buf[j] & 0xff);
			p->cost[p->nins++] = (uint16_t)(total < UINT16_MAX ? total : UINT16_MAX);
			if (!n && luabc__isret(buf[j] & 0xff))
				return 0;
		}
		if ((uint32_t)got < 4 * len && k < want)
			return -1;	/* readable memory ended first */
	}
	return 0;
}

/* Lay out region i's path (see struct rpath): 0, or -1 when there is none to
** follow (a loop back edge, frames that cannot be compared, unreadable code). */
static int path_of(const struct mreader *r, const struct luatrace_snap *a,
		   const struct luatrace_snap *b, struct rpath *p)
{
	unsigned m = 1, k;
	uint64_t pa, pb;

	if (a->base_pt != b->base_pt || !a->base_pc || !b->base_pc)
		return -1;
	p->di = (uint8_t)(a->n + 1);
	p->dj = (uint8_t)(b->n + 1);
	/* Shared levels: the same functions, entered from the same call sites. */
	while (m < p->di && m < p->dj && level_pt(a, m) == level_pt(b, m) &&
	       level_pc(a, m - 1) == level_pc(b, m - 1))
		m++;
	p->m = (uint8_t)m;
	for (k = p->di - 1; k >= m; k--)	/* the rest of i's frames, leaf up */
		if (!level_pc(a, k) || add_segment(r, p, level_pc(a, k), 0))
			return -1;
	pa = level_pc(a, m - 1);
	pb = level_pc(b, m - 1);
	if (!pa || !pb || pb < pa || (pb - pa) % 4 || add_segment(r, p, pa, (uint32_t)((pb - pa) / 4)))
		return -1;	/* a loop back edge, or pcs of different functions */
	for (k = m; k < p->dj; k++) {	/* i+1's frames from their starts, outermost down */
		uint64_t start = level_pt(b, k) + LT_LJ_PROTO_SIZE + 4, pc = level_pc(b, k);

		if (pc < start || add_segment(r, p, start, (uint32_t)((pc - start) / 4)))
			return -1;
	}
	p->start[p->nseg] = p->nins;
	return 0;
}

/* The frames of snapshot s cut to levels [0, lvl], the pc of level lvl set. */
static void cut(const struct luatrace_snap *s, unsigned lvl, uint64_t pc, struct luatrace_snap *out)
{
	unsigned drop = s->n - lvl;	/* inlined frames deeper than lvl */

	memcpy(out, s, offsetof(struct luatrace_snap, frames));	/* not all 32 frames */
	out->n = lvl;
	memcpy(out->frames, s->frames + drop, lvl * sizeof(s->frames[0]));
	if (lvl)
		out->frames[0].pc = pc;
	else
		out->base_pc = pc;
}

/* Where the sample at offset off of region i lies on the region's path. */
static const struct luatrace_snap *on_path(struct luatraces *c, struct ctrace *t,
					   const struct mreader *r, unsigned i, uint32_t off)
{
	const struct luatrace_snap *a = snap_of(c, t, r, i), *b;
	struct rpath *p;
	uint32_t total, x, len, lo = 0, hi, j, s, k;

	if (!a || i + 1 >= t->h.nsnap || !(b = snap_of(c, t, r, i + 1)))
		return a;
	p = &t->paths[i];
	if (!p->state)
		p->state = path_of(r, a, b, p) ? 2 : 1;
	total = p->nins ? p->cost[p->nins - 1] : 0;
	len = t->mcofs[i + 1] - t->mcofs[i];
	if (p->state != 1 || !total || !len)
		return a;
	x = (uint32_t)((uint64_t)(off - t->mcofs[i]) * total / len);	/* cost into the path */
	for (hi = p->nins; lo < hi;) {	/* the first instruction whose sum passes x */
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->cost[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	j = lo < p->nins ? lo : p->nins - 1u;
	for (s = 0; s + 1 < p->nseg && p->start[s + 1] <= j; s++)
		;
	x = j - p->start[s];	/* instructions into segment s */
	k = p->di - p->m;	/* segments of i's frames below the shared ones */
	if (s < k) {	/* in frame level di - 1 - s of i, x instructions after its pc */
		unsigned lvl = p->di - 1 - s;

		cut(a, lvl, level_pc(a, lvl) + 4 * x, &c->out);
	} else if (s == k) {	/* in the deepest shared frame */
		cut(a, p->m - 1u, level_pc(a, p->m - 1u) + 4 * x, &c->out);
	} else {	/* in frame level m + (s - k - 1) of i+1, x after its first */
		unsigned lvl = p->m + (s - k - 1);

		cut(b, lvl, level_pt(b, lvl) + LT_LJ_PROTO_SIZE + 4 * (x + 2), &c->out);
	}
	return &c->out;
}

/* Which snapshot the rule gives for offset off in region i. */
static unsigned by_rule(const struct ctrace *t, unsigned i, uint32_t off, enum luatrace_rule rule)
{
	uint32_t end;

	if (rule == LUATRACE_RULE_REGION || i + 1 >= t->h.nsnap)
		return i;
	if (rule == LUATRACE_RULE_NEXT)
		return i + 1;
	end = t->mcofs[i + 1];
	return off - t->mcofs[i] < (end - t->mcofs[i]) / 2 ? i : i + 1;
}

int luatraces__snapshot(struct luatraces *c, const struct mreader *r, const struct luatrace_hdr *h,
			uint64_t jtrace, uint64_t pc, enum luatrace_rule rule,
			const struct luatrace_snap **out, enum luatrace_why *why)
{
	struct luatrace_hdr found;
	struct ctrace *t = NULL;
	unsigned i;

	c->stats.lookups++;
	if (!h || pc < h->mcode || pc - h->mcode >= h->szmcode) {
		c->stats.scans++;
		if (find_by_pc(r, jtrace, pc, &found)) {
			*why = LUATRACE_WHY_OUTSIDE;
			return -1;
		}
		h = &found;
	}
	if (trace_of(c, r, h, &t, why))
		return -1;
	i = region_of(t, (uint32_t)(pc - h->mcode));
	if (rule == LUATRACE_RULE_PATH)
		*out = on_path(c, t, r, i, (uint32_t)(pc - h->mcode));
	else
		*out = snap_of(c, t, r, by_rule(t, i, (uint32_t)(pc - h->mcode), rule));
	if (!*out) {
		*why = still_there(r, h) ? LUATRACE_WHY_BAD : LUATRACE_WHY_GONE;
		return -1;
	}
	return 0;
}
