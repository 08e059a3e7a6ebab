/*
** Frame interning: (kind, name, module) -> dense frame id.
*/

#ifndef LUATOP_PROFILE_FRAMES_H
#define LUATOP_PROFILE_FRAMES_H

#include <stdint.h>

enum frame_kind {
	FRAME_NATIVE,		/* user-space native function */
	FRAME_KERNEL,		/* kernel function; folded adds "_[k]" */
	FRAME_LUA,		/* Lua function */
	FRAME_LUA_JIT,		/* Lua function running as a JIT trace */
	FRAME_LUA_C,		/* C function / fast function called from Lua */
	FRAME_SPECIAL,		/* synthetic: enum frame_special, or a folded file's "-" */
	FRAME_KIND__COUNT
};

/* The synthetic frames of the model (FRAME_SPECIAL), by role. */
enum frame_special {
	SPECIAL_FALLBACK,	/* "[fallback]": roots an exported stack that was not merged */
	SPECIAL_LUA,		/* "[lua]": the Lua frames of a raw stack follow */
	SPECIAL_UNKNOWN,	/* "[unknown]": a sample without a single frame */
	SPECIAL_COROUTINE,	/* "[coroutine]": the frames after it ran in the resumer */
	SPECIAL_IDLE,		/* "[idle]": roots an off-CPU stack waiting for events, no Lua */
	SPECIAL__COUNT
};

struct frame {
	enum frame_kind kind;
	const char *name;	/* owned by the frametab, never NULL */
	const char *module;	/* owned, NULL if none ("" is stored as NULL) */
};

/* Ids are dense (0, 1, 2, ... in interning order) and never reused. */
struct frametab;

struct frametab *frametab__new(void);
void frametab__delete(struct frametab *t);
/*
** Intern (kind, name, module): the same triple always gives the same id.
** A NULL name is taken as "", an empty module as NULL.
** Returns the id, or UINT32_MAX on ENOMEM or an invalid kind.
*/
uint32_t frametab__intern(struct frametab *t, enum frame_kind kind, const char *name,
			  const char *module);
/* The frame for id, or NULL if out of range. The pointer stays valid until frametab__delete. */
const struct frame *frametab__get(const struct frametab *t, uint32_t id);
uint32_t frametab__count(const struct frametab *t);
/* The name of a special frame ("[fallback]" ...). */
const char *frame__special_name(enum frame_special s);
/* The id of a special frame (interned on first use), or UINT32_MAX on ENOMEM. */
uint32_t frametab__special(struct frametab *t, enum frame_special s);
/* Is id that special frame? (False while it has never been interned.) */
int frametab__is_special(const struct frametab *t, uint32_t id, enum frame_special s);

#endif
