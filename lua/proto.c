/*
** LuaJIT GCproto, GCstr and GCtrace of a live process, read through a reader
** callback and checked before use (x64 GC64 layouts).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lua/bc.h"
#include "lua/proto.h"

/* GCproto fields (lj_obj.h, GC64). */
#define PT_GCT		9	/* u8: 7 */
#define PT_SIZEBC	12	/* u32 */
#define PT_K		32	/* split constants */
#define PT_UV		40
#define PT_SIZEKGC	48	/* u32 */
#define PT_SIZEKN	52	/* u32 */
#define PT_SIZEPT	56	/* u32: bytes of the whole allocation */
#define PT_SIZEUV	60	/* u8 */
#define PT_CHUNKNAME	64	/* GCstr */
#define PT_FIRSTLINE	72	/* i32 */
#define PT_NUMLINE	76	/* i32 */
#define PT_LINEINFO	80
#define PT_UVINFO	88
#define PT_VARINFO	96
#define GCT_STR		4
#define GCT_PROTO	7
#define GCT_TRACE	9

/* GCtrace fields (the same in every tree checked). */
#define TR_STARTPT	64	/* GCproto */
#define TR_STARTPC	72	/* BCIns * */
#define TR_STARTINS	80	/* the original instruction: a JLOOP exit resumes after it */
#define TR_READ		88

#define STR_HDR		24	/* GCstr payload offset */
#define STR_GCT		9	/* u8: 4; then what is fixed for a string's life (hash, len) */
#define STR_PROBE_MAX	(1u << 28)	/* longest string whose end is probed for its NUL */

/* -- Reading the target ---------------------------------------------------- */

/* Read len bytes at addr; all or -errno (-EFAULT also for a non-user address). */
static int rd(const struct mreader *r, uint64_t addr, void *buf, size_t len)
{
	if (!len)
		return 0;
	if (!user_range(addr, len))
		return -EFAULT;
	return mreader__read(r, addr, buf, len);
}

/* -- Prototypes ------------------------------------------------------------ */

/* Is [a, a + len) inside [lo, hi]? */
static int inside(uint64_t a, uint64_t len, uint64_t lo, uint64_t hi)
{
	return a >= lo && a <= hi && len <= hi - a;
}

/* Check a header read from addr and fill the scalar fields of p. 0 or -EINVAL. */
static int parse_hdr(uint64_t addr, const uint8_t *h, uint32_t ins0, struct luaproto *p)
{
	uint64_t bcend, end, k, li, uvi, vi, dbg;
	uint32_t sizept, sizekn;

	memset(p, 0, sizeof(*p));
	p->addr = addr;
	p->sizebc = le32_at(h, PT_SIZEBC);
	p->sizekgc = le32_at(h, PT_SIZEKGC);
	p->sizeuv = h[PT_SIZEUV];
	p->k = k = le64_at(h, PT_K);
	p->chunkname = le64_at(h, PT_CHUNKNAME);
	p->firstline = (int32_t)le32_at(h, PT_FIRSTLINE);
	p->numline = (int32_t)le32_at(h, PT_NUMLINE);
	sizept = le32_at(h, PT_SIZEPT);
	sizekn = le32_at(h, PT_SIZEKN);
	if (h[PT_GCT] != GCT_PROTO || addr % 8 || addr >= MREADER_USER_TOP)
		return -EINVAL;
	if (p->sizebc < 2 || p->sizebc > LUAPROTO_SIZEBC_MAX || !luabc__isheader(luabc_op(ins0)))
		return -EINVAL;
	bcend = addr + LUAPROTO_SIZE + 4ull * p->sizebc;
	end = addr + sizept;
	if (sizept < bcend - addr || end >= MREADER_USER_TOP)
		return -EINVAL;
	if (k % 8 || !inside(k, 8ull * sizekn, bcend, end) ||
	    !inside(k - 8ull * p->sizekgc, 8ull * p->sizekgc, bcend, end))
		return -EINVAL;
	if (!p->chunkname || p->chunkname % 8 || p->chunkname >= MREADER_USER_TOP)
		return -EINVAL;
	if (p->firstline < -1 || p->numline < 0)
		return -EINVAL;
	p->lineshift = p->numline < 256 ? 0 : p->numline < 65536 ? 1 : 2;
	/* Debug info: [lineinfo][uvinfo][varinfo] up to the end of the allocation. */
	li = le64_at(h, PT_LINEINFO);
	uvi = le64_at(h, PT_UVINFO);
	vi = le64_at(h, PT_VARINFO);
	if ((li && !inside(li, 0, bcend, end)) || (uvi && !inside(uvi, 0, bcend, end)) ||
	    (vi && !inside(vi, 0, bcend, end)))
		return -EINVAL;
	if ((li && uvi && uvi < li) || (li && vi && vi < li) || (uvi && vi && vi < uvi))
		return -EINVAL;
	if (li && (uint64_t)(p->sizebc - 1) << p->lineshift > (uvi ? uvi : vi ? vi : end) - li)
		return -EINVAL;
	dbg = li ? li : uvi ? uvi : vi;
	if (dbg) {
		p->ndbg = end - dbg;
		p->nline = li ? (size_t)(p->sizebc - 1) << p->lineshift : 0;
		p->uvofs = uvi ? uvi - dbg : 0;
		p->nuv = uvi ? (vi ? vi : end) - uvi : 0;
		p->varofs = vi ? vi - dbg : 0;
		p->nvar = vi ? end - vi : 0;
	}
	memcpy(p->hdr, h, LUAPROTO_SIZE);
	return 0;
}

/* Read and check the GCproto at addr (header, bc[0], debug info). */
int luaproto__read(const struct mreader *r, uint64_t addr, struct luaproto *p)
{
	uint8_t h[LUAPROTO_SIZE + 4];
	uint64_t dbg;
	int err;

	memset(p, 0, sizeof(*p));
	if ((err = rd(r, addr, h, sizeof(h))))
		return err;
	if ((err = parse_hdr(addr, h, le32_at(h, LUAPROTO_SIZE), p)))
		return err;
	err = rd(r, p->chunkname, h, STR_HDR);	/* what tells its chunk name apart */
	if (!err && h[STR_GCT] != GCT_STR)
		err = -EINVAL;
	if (err) {
		luaproto__free(p);
		return err;
	}
	memcpy(p->chunkid, h + STR_GCT, LUAPROTO_STRID);
	if (!p->ndbg)
		return 0;
	dbg = le64_at(h, PT_LINEINFO);	/* the first of the three present */
	if (!dbg)
		dbg = le64_at(h, PT_UVINFO);
	if (!dbg)
		dbg = le64_at(h, PT_VARINFO);
	if (p->ndbg > LUAPROTO_DBG_MAX) {	/* keep what fits, drop what does not */
		p->ndbg = LUAPROTO_DBG_MAX;
		if (p->nline > p->ndbg)
			p->nline = 0;
		if (p->uvofs >= p->ndbg)
			p->nuv = 0;
		else if (p->nuv > p->ndbg - p->uvofs)
			p->nuv = p->ndbg - p->uvofs;
		if (p->varofs >= p->ndbg)
			p->nvar = 0;
		else if (p->nvar > p->ndbg - p->varofs)
			p->nvar = p->ndbg - p->varofs;
	}
	p->dbg = malloc(p->ndbg);
	if (!p->dbg)
		return -ENOMEM;
	if ((err = rd(r, dbg, p->dbg, p->ndbg))) {
		luaproto__free(p);
		return err;
	}
	return 0;
}

/* Free what luaproto__read allocated. */
void luaproto__free(struct luaproto *p)
{
	free(p->dbg);
	p->dbg = NULL;
	p->ndbg = p->nline = p->nuv = p->nvar = 0;
}

/* Read what tells whether n cached protos are still there (see luaproto.h). */
int luaproto__peek(const struct mreader *r, const struct luaproto *const *p, unsigned n,
		   uint8_t *hdr)
{
	struct mspan sp[2 * LUAPROTO_PEEK_MAX];
	unsigned i;
	int got;

	if (n > LUAPROTO_PEEK_MAX)
		n = LUAPROTO_PEEK_MAX;
	for (i = 0; i < n; i++) {
		uint8_t *h = hdr + (size_t)i * LUAPROTO_PEEK_SIZE;

		if (!p[i]->addr || p[i]->addr >= MREADER_USER_TOP - LUAPROTO_SIZE ||
		    !p[i]->chunkname || p[i]->chunkname >= MREADER_USER_TOP - STR_HDR)
			break;
		sp[2 * i] = (struct mspan){ .addr = p[i]->addr, .buf = h, .len = LUAPROTO_SIZE };
		sp[2 * i + 1] = (struct mspan){ .addr = p[i]->chunkname, .buf = h + LUAPROTO_SIZE,
						.len = STR_HDR };
	}
	if (!i)
		return n ? -EFAULT : 0;
	got = mreader__readv(r, sp, 2 * i);
	return got < 0 ? got : got / 2;
}

/* What hdr (a fresh read of p by luaproto__peek) holds now. */
enum luaproto_now luaproto__check(const struct luaproto *p, const uint8_t *hdr)
{
	const uint8_t *str = hdr + LUAPROTO_SIZE;

	if (hdr[PT_GCT] != GCT_PROTO)	/* a live proto's type never changes */
		return LUAPROTO_FREED;
	/* Skip what changes under a live proto: nextgc, marked, gclist, flags, trace. */
	if (memcmp(hdr + PT_GCT, p->hdr + PT_GCT, PT_SIZEBC + 4 - PT_GCT) ||
	    memcmp(hdr + PT_K, p->hdr + PT_K, PT_SIZEUV + 1 - PT_K) ||
	    memcmp(hdr + PT_CHUNKNAME, p->hdr + PT_CHUNKNAME, LUAPROTO_SIZE - PT_CHUNKNAME))
		return LUAPROTO_OTHER;
	/* The same header, its chunk name no string: the proto was freed with it. A
	** new string there: a new proto just like it, of another chunk. */
	if (str[STR_GCT] != GCT_STR)
		return LUAPROTO_FREED;
	return memcmp(str + STR_GCT, p->chunkid, LUAPROTO_STRID) ? LUAPROTO_OTHER : LUAPROTO_SAME;
}

/* Bytecode position of the instruction before pc (see luaproto.h). */
int64_t luaproto__pos(const struct mreader *r, const struct luaproto *p, uint64_t pc)
{
	uint64_t bc = p->addr + LUAPROTO_SIZE, startpt, startpc;
	uint8_t t[TR_READ];
	int64_t pos;

	if (!pc || pc < bc || (pc - bc) % 4)
		return -1;
	if (pc == bc)
		return 1;	/* as LuaJIT does: pretend it is the first bytecode */
	pos = (int64_t)((pc - bc) / 4) - 1;
	if (pos <= (int64_t)p->sizebc)
		return pos;
	/* A JLOOP exit after a RET resumes at &T->startins + 1: find T->startpc. */
	if (rd(r, pc - 4 - TR_STARTINS, t, sizeof(t)) || t[9] != GCT_TRACE)
		return -1;
	startpt = le64_at(t, TR_STARTPT);
	startpc = le64_at(t, TR_STARTPC);
	if (startpt != p->addr || !luabc__isret(luabc_op(le32_at(t, TR_STARTINS))))
		return -1;
	if (startpc < bc || (startpc - bc) % 4 || (startpc - bc) / 4 >= p->sizebc)
		return -1;
	return (int64_t)((startpc - bc) / 4);
}

/* Line of bytecode position pos (lj_debug_line), -1 when unknown. */
int luaproto__line(const struct luaproto *p, int64_t pos)
{
	const uint8_t *li = p->dbg;
	int64_t line;
	size_t i;

	if (pos < 0 || pos > (int64_t)p->sizebc || !p->nline)
		return -1;
	if (pos == p->sizebc)
		line = (int64_t)p->firstline + p->numline;
	else if (pos == 0)
		line = p->firstline;
	else {
		i = (size_t)(pos - 1) << p->lineshift;
		if (p->lineshift == 0)
			line = (int64_t)p->firstline + li[i];
		else if (p->lineshift == 1)
			line = (int64_t)p->firstline + (uint16_t)(li[i] | li[i + 1] << 8);
		else
			line = (int64_t)p->firstline + le32_at(li, i);
	}
	return line < 0 || line > INT32_MAX ? -1 : (int)line;
}

/* Copy instructions [lo, hi) into out. */
int luaproto__bc(const struct mreader *r, const struct luaproto *p, uint32_t lo, uint32_t hi, uint32_t *out)
{
	if (lo > hi || hi > p->sizebc)
		return -EINVAL;
	return rd(r, p->addr + LUAPROTO_SIZE + 4ull * lo, out, 4ull * (hi - lo));
}

/* The address of GC constant idx. */
int luaproto__kgc(const struct mreader *r, const struct luaproto *p, uint32_t idx, uint64_t *obj)
{
	int err;

	*obj = 0;
	if (idx >= p->sizekgc)
		return -EINVAL;
	if ((err = rd(r, p->k - 8ull * (idx + 1), obj, sizeof(*obj))))
		return err;
	return *obj && *obj < MREADER_USER_TOP && !(*obj % 8) ? 0 : -EINVAL;
}

/* -- Strings --------------------------------------------------------------- */

/* Could the payload be n bytes long: no NUL before n (in what was read), one at n? */
static int str_fits(const struct mreader *r, uint64_t addr, const char *data, size_t got, uint32_t n)
{
	char z;

	if (memchr(data, 0, n < got ? n : got))
		return 0;
	if (n < got)
		return data[n] == '\0';
	if (n > STR_PROBE_MAX)
		return 0;
	return !rd(r, addr + STR_HDR + n, &z, 1) && z == '\0';
}

/* Read the GCstr at addr (see luaproto.h). */
int luastr__read(const struct mreader *r, uint64_t addr, int *layout, size_t off, char *buf, size_t cap,
		 size_t *len)
{
	uint8_t h[STR_HDR];
	uint32_t n, n16, n20;
	int err, isnew, isold;
	size_t want;
	long got;

	*len = 0;
	if (!cap)
		return -EINVAL;
	buf[0] = '\0';
	if ((err = rd(r, addr, h, sizeof(h))))
		return err;
	if (h[STR_GCT] != GCT_STR)
		return -EINVAL;
	n16 = le32_at(h, 16);
	n20 = le32_at(h, 20);
	if (*layout == LUASTR_AUTO && n16 != n20) {	/* the NUL after the payload decides */
		got = mreader__read_some(r, addr + STR_HDR, buf, cap - 1);
		if (got < 0)
			return (int)got;
		isnew = str_fits(r, addr, buf, (size_t)got, n20);
		isold = str_fits(r, addr, buf, (size_t)got, n16);
		if (isnew == isold)
			return -EAGAIN;	/* undecided, and no answer for this string */
		*layout = isnew ? LUASTR_NEW : LUASTR_OLD;
	}
	n = *layout == LUASTR_OLD ? n16 : n20;	/* AUTO: both are the same */
	*len = n;
	if (off >= n) {
		buf[0] = '\0';	/* the layout probe above may have filled buf */
		return 0;
	}
	/* The payload is NUL-terminated: check it when the whole string fits. */
	want = n - off < cap - 1 ? n - off + 1 : cap - 1;
	if ((err = rd(r, addr + STR_HDR + off, buf, want)))
		return err;
	if (n - off < cap - 1) {
		if (buf[n - off] != '\0')
			return -EINVAL;
	} else {
		buf[want] = '\0';
	}
	return 0;
}
