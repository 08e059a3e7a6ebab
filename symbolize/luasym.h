/*
** Names for the Lua frames of a sample (struct lt_lua_frame, bpf/luatop.h),
** read from the live process with process_vm_readv (read-only), the way
** LuaJIT's own profiler (jit.p, lj_debug_dumpstack) names them:
**
**   Lua function   "handler (app.lua:12)": the name its caller's call instruction
**                  gives it, then where it is: the chunk and its first line
**                  (function granularity) or the current line (lines).
**                  Unnamed, jit.p's "chunk:firstline" stands in for the name:
**                  "app.lua:10", or "app.lua:10 (app.lua:14)" with lines.
**   fast function  "string.format", by ffid, from the build's jit/vmdef.lua.
**   C function     name NULL: the caller names it natively from addr.
**
** How the caller's call instruction names the callee (frames[i + 1] must be the
** Lua caller, and frames[i].link LT_LINK_LUA, or LT_LINK_CONT for a metamethod):
**
**   f()  f a global          GGET    "f"           what "global"
**   t.f()  t.f = ...         TGETS   "f"           what "field"
**   t:f()                    TGETS + MOV self: "f" what "method"
**   f()  f an upvalue        UGET    uvinfo name   what "upvalue"
**   f()  f a local           varinfo name          what "local"
**   a local copied (MOV)     followed to its source, as LuaJIT does
**   a + b, t.k, t[k] = v ... the metamethod "__add", "__index", "__newindex" ...
**                                                  what "metamethod"
**   anything else (t[k](), f()(), a call through pcall, from C, a tail call's
**   lost caller, stripped bytecode): no name.
**
** Prototypes are read once per (pid, address) and cached, with their chunk name
** and debug info; each use re-reads the 104-byte header and compares it, since
** the GC reuses addresses (one system call per sample, not per frame, when the
** frames of a sample are named in turn from one array). Strings handed out are
** interned and live until luasym__delete. Not thread-safe.
*/

#ifndef _LUATOP_SYMBOLIZE_LUASYM_H
#define _LUATOP_SYMBOLIZE_LUASYM_H

#include "wire/luatop.h"

struct luasym;

/* NULL + errno. */
struct luasym *luasym__new(void);
void luasym__delete(struct luasym *ls);
/*
** The build of pid's LuaJIT (x64 GC64 only). openresty: 1 OpenResty luajit2,
** 0 upstream, -1 unknown (fast functions from ffid 38 on are then "[builtin#N]").
** new_gcstr: 1 for 2.1 since 2020-06-23 (GCstr len at +20), 0 for older builds
** (len at +16), -1 to find out from the first chunk name read. A pid never set
** is openresty -1, new_gcstr -1. A change drops what was cached for pid.
*/
void luasym__set_build(struct luasym *ls, int pid, int openresty, int new_gcstr);

struct luaname {
	const char *name;	/* what to show, e.g. "handler (app.lua:12)", "string.format";
				   NULL for a C function; "[lua:?]" on error */
	const char *func;	/* "handler", or "app.lua:10" (chunk:firstline) when
				   unnamed; for a C function the call site's name or NULL */
	const char *chunk;	/* "app.lua" (basename of "@path"), "name" ("=name"),
				   "[string \"first line...\"]" (source text),
				   "[builtin:name]" (bytecode builtin); NULL if not Lua */
	const char *what;	/* how func was named: "global", "local", "method",
				   "field", "upvalue", "metamethod"; NULL if unnamed */
	int line;		/* current line with lines, else firstline; 0 unknown */
	int firstline;		/* of the function: 0 main chunk, -1 bytecode builtin */
};

/*
** Name frames[i] of a sample's Lua frames (leaf first, n of them); lines:
** line granularity. 0, or -errno: -EINVAL (bad arguments, or not a Lua
** prototype at frames[i].addr), -EFAULT/-ESRCH/-EPERM (unreadable memory),
** -ENOMEM; on error name is "[lua:?]". Never trusts the frames or the target.
*/
int luasym__frame(struct luasym *ls, int pid, const struct lt_lua_frame *frames, unsigned n,
		  unsigned i, int lines, struct luaname *out);
/* Drop everything cached for pid (names already handed out stay valid). */
void luasym__forget(struct luasym *ls, int pid);

#endif
