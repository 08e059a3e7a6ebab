/*
** The state of the LuaJIT VM at a sample, grouped as jit.p's vmstate profile
** groups it (-jp=v: N I C G J): what the profile counts per sample and the
** header shows. collect/ classifies each sample into one.
*/
#ifndef LUATOP_PROFILE_VM_H
#define LUATOP_PROFILE_VM_H

enum vm_state {
	VM_JIT,			/* running a JIT trace (jit.p's N) */
	VM_INTERP,		/* the interpreter (I) */
	VM_C,			/* a C function called from Lua (C) */
	VM_GC,			/* the garbage collector (G) */
	VM_COMPILER,		/* the trace compiler and exit handler (J) */
	VM_STATE__COUNT,
	VM_NONE = VM_STATE__COUNT	/* not a LuaJIT sample, or its VM unknown */
};

#endif
