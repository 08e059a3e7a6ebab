/*
** LuaJIT bytecode at a call site -> how the callee was named, as LuaJIT's own
** lj_debug_funcname() does it for jit.p, tracebacks and error messages: walk back
** from the call instruction to the one that loaded the callee's slot (GGET,
** TGETS, UGET, MOV), or find the slot's local name in varinfo. Pure: works on
** local copies of the caller's bytecode and debug info, never trusts them.
*/

#ifndef LUATOP_LUA_BC_H
#define LUATOP_LUA_BC_H

#include <stddef.h>
#include <stdint.h>

/* How the callee got its name (lj_debug_funcname's "namewhat"). */
enum luabc_what {
	LUABC_NONE,	/* no name: report chunk:firstline */
	LUABC_GLOBAL,	/* GGET: ref = index of the key string in the constants (kgc) */
	LUABC_FIELD,	/* TGETS t.key: ref = kgc index of the key */
	LUABC_METHOD,	/* TGETS + MOV self, t:key(): ref = kgc index of the key */
	LUABC_UPVALUE,	/* UGET: ref = upvalue index, named by uvinfo */
	LUABC_LOCAL,	/* a live local variable: name/len point into varinfo or are static */
	LUABC_META,	/* called as a metamethod: name is static, "__index", "__add" ... */
};

struct luabc_name {
	enum luabc_what what;
	uint32_t ref;		/* GLOBAL, FIELD, METHOD: kgc index; UPVALUE: upvalue index */
	const char *name;	/* LOCAL, META: the name (len bytes, not always NUL-terminated) */
	size_t len;
};

/*
** Name the function called by the instruction at bytecode position pos of a
** caller: win[k] is instruction lo + k, for lo <= k + lo <= pos (lo >= 1: bc[0],
** the function header, is never looked at). A window that does not reach back to
** 1 may leave a name unfound. vi/vilen: the caller's varinfo (NULL when stripped).
** Returns out->what.
*/
enum luabc_what luabc__callee(const uint32_t *win, uint32_t lo, uint32_t pos,
			      const uint8_t *vi, size_t vilen, struct luabc_name *out);
/*
** The definition-site name of a closure: where the instruction after the FNEW
** that creates it from kgc constant kidx stores it (GSET: a global, TSETS: a
** field or method, USETV: an upvalue, else the local variable of its slot, as
** `local function f` and `local f = function` declare). win[k] is instruction
** lo + k for k < n (lo >= 1); the FNEW must have its successor in the window.
** *at: the FNEW's position when found. Returns out->what (LUABC_NONE: no FNEW of
** kidx here, or its closure is not stored under a name).
*/
enum luabc_what luabc__definer(const uint32_t *win, uint32_t lo, uint32_t n, uint32_t kidx,
			       const uint8_t *vi, size_t vilen, uint32_t *at,
			       struct luabc_name *out);
/* Name of the slot-th live local at bytecode position pc, from varinfo; NULL if none. */
const char *luabc__varname(const uint8_t *vi, size_t vilen, uint32_t pc, uint32_t slot,
			   size_t *len);
/* Name of upvalue idx from uvinfo (sizeuv NUL-terminated names); NULL if out of bounds. */
const char *luabc__uvname(const uint8_t *uvi, size_t uvlen, uint32_t idx, size_t *len);
/* Does op return from the function (RETM, RET, RET0, RET1)? */
int luabc__isret(uint32_t op);
/* Is op a function header (FUNCF ... JFUNCV, in any 2.1 build)? */
int luabc__isheader(uint32_t op);

/* Instruction fields (lj_bc.h): op, A, C, B in bytes 0..3; D = C | B << 8. */
static inline uint32_t luabc_op(uint32_t ins) { return ins & 0xff; }
static inline uint32_t luabc_a(uint32_t ins) { return (ins >> 8) & 0xff; }
static inline uint32_t luabc_b(uint32_t ins) { return ins >> 24; }
static inline uint32_t luabc_c(uint32_t ins) { return (ins >> 16) & 0xff; }
static inline uint32_t luabc_d(uint32_t ins) { return ins >> 16; }

#endif
