/*
** Merging Lua and native stacks: the pure function at the heart of luatop.
** Each native frame that is a LuaJIT VM activation (its pc in the VM, or in a
** JIT trace) is replaced by the Lua frames that ran in it. No I/O, no names:
** the output refers to the input frames by position.
*/
#ifndef LUATOP_MERGE_MERGE_H
#define LUATOP_MERGE_MERGE_H

#include <stdint.h>

#include "wire/luatop.h"

enum mg_reason {
#define MG_REASON(name, text) MG_##name,
#include "merge/reasons.def"
#undef MG_REASON
	MG_REASON__COUNT
};

/* Where an output frame comes from. */
enum mg_source { MG_NATIVE, MG_KERNEL, MG_LUA, MG_SEPARATOR };

struct mg_ref {
	uint8_t source;		/* enum mg_source */
	uint16_t index;		/* into that input array (root-first order, see below) */
};

/*
** Input, every array root first (outermost caller first):
**   native_how[i]  the user_how byte of native frame i (LT_HOW_F_VM / _F_TRACE
**                  mark VM activations)
**   lua[i]         Lua frames, root first (the reverse of lt_sample.lua)
*/
struct mg_input {
	const uint8_t *native_how;
	unsigned n_native;
	unsigned n_kernel;
	const struct lt_lua_frame *lua;
	unsigned n_lua;
	int native_complete;	/* the native walk reached the outermost frame */
	int lua_complete;	/* the Lua walk reached the bottom of every stack */
	int lua_process;	/* the process runs LuaJIT */
	int have_G;		/* the thread's VM state was found */
};

#define MG_MAX_LUA	128	/* Lua frames in: the sampler's, and those a JIT trace inlined */
#define MG_MAX_OUT	(LT_MAX_USER + LT_MAX_KERNEL + MG_MAX_LUA + 1)

/* What merge__stacks made of a sample. */
enum mg_result {
	MG_MERGED = 0,		/* merged exactly */
	MG_FALLBACK = 1,	/* not merged: the fallback stack, with a reason */
	MG_MERGED_WINDOW = 2,	/* merged, the innermost VM activation in a call or
				   return (rule 4 in merge.c): it stands for no frame */
};

/*
** Merge. Returns MG_MERGED or MG_MERGED_WINDOW and fills out[0..*n) with the
** merged stack (native frames with VM activations replaced, then kernel
** frames), or returns MG_FALLBACK with the fallback stack (native frames, then
** Lua frames, then kernel frames) and the reason in *reason. A process without
** LuaJIT merges trivially.
*/
int merge__stacks(const struct mg_input *in, struct mg_ref *out, unsigned *n, int *reason);
/* The raw stack: native, kernel, a separator, then the Lua frames. */
void merge__raw(const struct mg_input *in, struct mg_ref *out, unsigned *n);
const char *merge__reason_text(int reason);

#endif
