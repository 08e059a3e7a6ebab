/*
** LuaJIT objects of a live process, read through a reader (base/reader.h): function
** prototypes (GCproto) with their debug info, strings (GCstr), bytecode, and the
** trace behind a JLOOP exit PC. x64 GC64 layouts, the same in every 2.1 tree
** (luajit_internals.md §2.5-2.7). The target's memory is untrusted: every
** pointer is checked against the proto's own extent, every length is bounded.
*/

#ifndef LUATOP_LUA_PROTO_H
#define LUATOP_LUA_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "base/reader.h"

#define LUAPROTO_SIZE		104		/* sizeof(GCproto): bytecode follows */
#define LUAPROTO_SIZEBC_MAX	(1u << 26)	/* LJ_MAX_BCINS */
#define LUAPROTO_DBG_MAX	(4u << 20)	/* debug info copied per proto, bytes */
#define LUAPROTO_STR_MAX	1024		/* bytes of a target string read at once */
#define LUAPROTO_PEEK_MAX	32		/* protos checked by one luaproto__peek */
#define LUAPROTO_STRID		15		/* a GCstr's bytes fixed for its life */
#define LUAPROTO_PEEK_SIZE	(LUAPROTO_SIZE + 24)	/* one proto's share of a peek */

/* GCstr layouts (the position of len; the payload is at +24 in both). */
enum luastr_layout {
	LUASTR_AUTO = -1,	/* unknown: decided by the first unambiguous string */
	LUASTR_OLD = 0,		/* 2.1 before 2020-06-23 (beta3, Tarantool): len at +16 */
	LUASTR_NEW = 1,		/* 2.1 since 2020-06-23, OpenResty 2020-10: len at +20 */
};

/* A GCproto as read once; hdr is kept to tell a reused address on revalidation. */
struct luaproto {
	uint64_t addr;		/* the GCproto in the target */
	uint8_t hdr[LUAPROTO_SIZE];	/* its header as read */
	uint8_t chunkid[LUAPROTO_STRID];	/* its chunk name's GCstr, bytes 9-23 */
	uint32_t sizebc;	/* instructions, the function header bc[0] included */
	uint32_t sizekgc;	/* GC constants, at k - 8 * (idx + 1) */
	uint64_t k;		/* split constant array */
	uint64_t chunkname;	/* GCstr */
	int32_t firstline;	/* 0: main chunk; -1: bytecode builtin */
	int32_t numline;	/* lines spanned */
	uint32_t sizeuv;	/* upvalues */
	unsigned lineshift;	/* lineinfo elements are 1 << lineshift bytes */
	uint8_t *dbg;		/* copy of lineinfo, uvinfo, varinfo; NULL if none */
	size_t ndbg;		/* bytes in dbg */
	size_t nline;		/* lineinfo bytes at dbg + 0 (0: no line info) */
	size_t uvofs, nuv;	/* uvinfo in dbg (nuv 0: none) */
	size_t varofs, nvar;	/* varinfo in dbg (nvar 0: none) */
};

/* Read and check the GCproto at addr (header, bc[0], debug info). 0 or -errno
   (-EINVAL: not a plausible GCproto; -EFAULT, -ESRCH, -EPERM from the read). */
int luaproto__read(const struct mreader *r, uint64_t addr, struct luaproto *p);
/* Free what luaproto__read allocated (p itself is the caller's). */
void luaproto__free(struct luaproto *p);
/*
** Read what tells whether n cached protos (at most LUAPROTO_PEEK_MAX) are still
** there, in one system call: each one's header and its chunk name's GCstr
** header, into hdr + i * LUAPROTO_PEEK_SIZE. Returns how many leading ones
** were read completely, or -errno when none was.
*/
int luaproto__peek(const struct mreader *r, const struct luaproto *const *p, unsigned n,
		   uint8_t *hdr);
/* What a fresh read hdr (luaproto__peek) of p's address holds now. */
enum luaproto_now {
	LUAPROTO_SAME,		/* the proto p (what changes under a live one aside) */
	LUAPROTO_FREED,		/* no proto: freed, its memory reused by another kind */
	LUAPROTO_OTHER,		/* another proto, allocated where p was */
};
enum luaproto_now luaproto__check(const struct luaproto *p, const uint8_t *hdr);
/*
** Bytecode position of the instruction before pc (a frame's saved PC points
** after it), lj_debug's debug_framepc: pc == bc gives 1; a PC past the bytecode
** is the JLOOP trace-exit artefact (PC = &T->startins + 1 after a RET), mapped
** back through the trace's startpc. -1 when pc tells nothing.
*/
int64_t luaproto__pos(const struct mreader *r, const struct luaproto *p, uint64_t pc);
/* Line of bytecode position pos (lj_debug_line), -1 when unknown. */
int luaproto__line(const struct luaproto *p, int64_t pos);
/* Copy instructions [lo, hi) into out (hi - lo entries). 0 or -errno. */
int luaproto__bc(const struct mreader *r, const struct luaproto *p, uint32_t lo, uint32_t hi, uint32_t *out);
/* The address of GC constant idx (a GCstr for the keys of GGET/TGETS), 0 if none. 0 or -errno. */
int luaproto__kgc(const struct mreader *r, const struct luaproto *p, uint32_t idx, uint64_t *obj);

/*
** Read the GCstr at addr: payload bytes [off, off + cap - 1) into buf,
** NUL-terminated; *len = the string's full length. *layout may be LUASTR_AUTO:
** it is set when this string decides it. 0, -EINVAL (not a string), or -errno.
*/
int luastr__read(const struct mreader *r, uint64_t addr, int *layout, size_t off, char *buf, size_t cap,
		 size_t *len);

#endif
