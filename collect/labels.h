/*
** Label sets: what a sample says of itself beyond its stack (process, thread,
** VM state, merge outcome), interned to dense ids so that a stack table can be
** keyed by [set id, frames...] (the pprof export's sample labels; thread lists).
*/
#ifndef LUATOP_COLLECT_LABELS_H
#define LUATOP_COLLECT_LABELS_H

#include <stddef.h>
#include <stdint.h>

enum collect_merge {
	COLLECT_MERGE_NONE,	/* not a LuaJIT process: nothing to merge */
	COLLECT_MERGE_OK,	/* Lua and native stacks merged */
	COLLECT_MERGE_FALLBACK,	/* not merged; reason says why */
};

struct collect_labels {
	uint32_t pid, tid;
	int8_t vm;		/* enum vm_state; VM_NONE when not a LuaJIT sample */
	int8_t merge;		/* enum collect_merge */
	int16_t reason;		/* enum mg_reason of a fallback; -1 otherwise */
};

struct labelsets {
	struct collect_labels *sets;	/* id -> set */
	size_t n, cap;
	uint32_t *slots;		/* hash of the set -> id + 1; 0: empty */
	size_t nslots;			/* a power of two, or 0 */
};

/* The id of set l (added if new), or UINT32_MAX on ENOMEM. */
uint32_t labelsets__intern(struct labelsets *t, const struct collect_labels *l);
/* The set of id, or NULL. */
const struct collect_labels *labelsets__get(const struct labelsets *t, uint32_t id);
void labelsets__free(struct labelsets *t);

#endif
