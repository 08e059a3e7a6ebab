/*
** JIT traces of a live process: where a sampled machine-code address lies in a
** trace (its snapshot region), and the Lua frames that snapshot stands for,
** the frames the JIT inlined included (luajit_traces.md). Read through a reader
** (base/reader.h), every field checked: the target's memory is untrusted and a
** trace can be flushed, freed and its memory reused at any time.
**
** A sample carries the trace's GCtrace header as the sampler read it; a decoded
** trace is used only while the trace's memory still holds that header.
*/
#ifndef LUATOP_LUA_TRACE_H
#define LUATOP_LUA_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/reader.h"
#include "wire/luatop.h"

#define LUATRACE_FRAMES_MAX	32	/* inlined frames decoded per snapshot */
#define LUATRACE_SNAPS_MAX	4096	/* snapshots per trace (x64 has 512 exits) */

/* Why a sample in trace code keeps the frames the sampler found. X-macro:
** LUATRACE_WHY(NAME, "text"). */
#define LUATRACE_WHY_LIST(X)							\
	X(GONE,		"trace flushed before its sample was read")		\
	X(NO_FRAME,	"no trace frame found in the native stack")		\
	X(OUTSIDE,	"pc in no trace of the process")			\
	X(NO_MCOFS,	"LuaJIT build without snapshot code offsets")		\
	X(BAD,		"trace structures unreadable or implausible")

enum luatrace_why {
#define LUATRACE_WHY_ENUM(name, text) LUATRACE_WHY_##name,
	LUATRACE_WHY_LIST(LUATRACE_WHY_ENUM)
#undef LUATRACE_WHY_ENUM
	LUATRACE_WHY__COUNT
};

/* The fields of a GCtrace header that luatop uses. */
struct luatrace_hdr {
	uint64_t T;			/* the GCtrace */
	uint64_t ir, snap, snapmap;	/* its arrays (ir biased by LT_LJ_REF_BIAS) */
	uint64_t startpt, startpc, mcode;
	uint32_t nins, nk, nsnapmap, szmcode, mcloop;
	uint16_t nsnap, spadjust, traceno, link, root;
	uint8_t linktype;
};

/* What a snapshot stands for: the frames above the trace's base frame (the
** one the sampler found at jit_base), and that frame's own pc. */
struct luatrace_snap {
	uint32_t index;			/* its number (= exit number) */
	uint32_t traceno;		/* the trace's number */
	uint32_t mcofs;			/* its region starts at this machine-code offset */
	uint64_t pc;			/* the bytecode it resumes at, in the innermost frame */
	uint64_t base_pc;		/* the base frame's pc (after its call into the first
					   inlined frame, or pc + 4 without one) */
	uint64_t base_fn, base_pt;	/* the base frame's function and prototype when the
					   trace replaced it (a tail call), else 0 */
	unsigned n;			/* inlined frames */
	struct lt_lua_frame frames[LUATRACE_FRAMES_MAX];	/* inlined, leaf first, as the
							   sampler's Lua walk records frames */
};

/* Decode and check a header read at T. 0, or -EINVAL (not a plausible GCtrace). */
int luatrace__hdr(const uint8_t *raw, size_t len, uint64_t T, struct luatrace_hdr *out);
/* Are a and b the same trace (the fields that never change while it lives)? */
int luatrace__same(const struct luatrace_hdr *a, const struct luatrace_hdr *b);

/* The traces of one process, decoded on demand and cached by header. */
struct luatraces;

/* What the cache did since it was made (for -v). */
struct luatraces_stats {
	uint64_t lookups;		/* samples looked up */
	uint64_t loads;			/* traces read and decoded */
	uint64_t scans;			/* searches of J->trace for a pc outside the sample's trace */
	uint64_t restarts;		/* times the cache filled up and started over */
};

struct luatraces *luatraces__new(void);
void luatraces__delete(struct luatraces *c);
/* luatrace__hdr of a sample's raw header (LT_TRACE_HDR bytes) read at T,
** remembered: 0, or -EINVAL. */
int luatraces__header(struct luatraces *c, const uint8_t *raw, uint64_t T, struct luatrace_hdr *out);
/* Forget every trace (a process exited, or flushed its traces). */
void luatraces__flush(struct luatraces *c);

/*
** Which snapshot a sample between two snapshots is attributed to. Region i of a
** trace's machine code (from snapshot i's mcofs to the next's) runs the
** bytecode from snapshot i's pc towards snapshot i+1's (docs/DESIGN-NOTES.md,
** "JIT traces", has the measurements that chose the default).
*/
/* X-macro: LUATRACE_RULE(NAME, "name", "what it attributes a sample to"). */
#define LUATRACE_RULE_LIST(X)							\
	X(PATH,	  "path",   "the region's place on the bytecode path from snapshot "	\
			    "i's pc to i+1's, by instruction cost")			\
	X(REGION, "region", "snapshot i: where the region's bytecode starts")	\
	X(NEXT,	  "next",   "snapshot i+1: where it is heading")			\
	X(SPLIT,  "split",  "the first half of region i to i, the rest to i+1")	\
	X(OFF,	  "off",    "no snapshot: the sampler's frames (for measurements)")

enum luatrace_rule {
#define LUATRACE_RULE_ENUM(name, str, text) LUATRACE_RULE_##name,
	LUATRACE_RULE_LIST(LUATRACE_RULE_ENUM)
#undef LUATRACE_RULE_ENUM
	LUATRACE_RULE__COUNT
};

/* The rule called name ("path", ...), or -1. */
int luatrace__rule_of(const char *name);
/* The name of a rule, "?" if none. */
const char *luatrace__rule_name(int rule);

/*
** The snapshot a sample at machine-code address pc of trace h (its header as
** the sample saw it) stands for, decoded, by rule. jtrace: the address of
** J->trace (G + off_jit_trace) to look for the trace that holds pc when h does
** not (a linked trace, a side trace entered), 0 when unknown. 0 and *out (valid
** until the next call), or -1 and *why.
*/
int luatraces__snapshot(struct luatraces *c, const struct mreader *r, const struct luatrace_hdr *h,
			uint64_t jtrace, uint64_t pc, enum luatrace_rule rule,
			const struct luatrace_snap **out, enum luatrace_why *why);
const struct luatraces_stats *luatraces__stats(const struct luatraces *c);
/* The text of a reason. */
const char *luatrace__why_text(int why);

#endif
