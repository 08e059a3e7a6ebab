/*
** Names for the Lua frames of a sample (struct lt_lua_frame, wire/luatop.h),
** read from the live process through a reader (base/reader.h), the way
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
** interned and live until luanames__delete. Not thread-safe.
*/

#ifndef LUATOP_LUA_NAMES_H
#define LUATOP_LUA_NAMES_H

#include "base/reader.h"
#include "wire/luatop.h"

struct luanames;
struct luabuild;

/* NULL + errno. */
struct luanames *luanames__new(void);
void luanames__delete(struct luanames *ls);
/*
** The build of pid's LuaJIT, as lua/detect.h found it (x64 GC64 only): its fast
** function names by flavour and its GCstr layout. NULL, or a pid never set:
** only the fast functions every build shares are named (the others are
** "[builtin#N]"), and the GCstr layout is found from the first chunk name read.
** A change drops what was cached for pid.
*/
void luanames__set_build(struct luanames *ls, int pid, const struct luabuild *b);

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
** Name frames[i] of a sample's Lua frames (leaf first, n of them), reading
** pid's memory through rd; lines:
** line granularity. 0, or -errno: -EINVAL (bad arguments, or not a Lua
** prototype at frames[i].addr), -EFAULT/-ESRCH/-EPERM (unreadable memory),
** -ENOMEM; on error name is "[lua:?]". Never trusts the frames or the target.
*/
int luanames__frame(struct luanames *ls, int pid, const struct mreader *rd,
		    const struct lt_lua_frame *frames, unsigned n, unsigned i, int lines,
		    struct luaname *out);
/*
** Start an epoch: from the first call on, a cached prototype is checked against
** the target once per epoch instead of once per sample. The caller starts one
** per drain of its sample queue: the check happens after the samples were taken
** either way, so checking each again per sample tells nothing more.
*/
void luanames__epoch(struct luanames *ls);
/*
** The frames named next are a new sample's. A caller that says so at each
** sample (from its first on) spares luanames__frame comparing the whole frames
** array at every call to tell whether it is still the same sample's.
*/
void luanames__sample(struct luanames *ls);
/* Drop everything cached for pid (names already handed out stay valid). */
void luanames__forget(struct luanames *ls, int pid);

#endif
