/*
** (pid, address) -> frame id cache.
*/
#include <errno.h>
#include <stdlib.h>

#include "collect/framecache.h"

#define FC_SLOTS_MIN	4096u
#define FC_TOMBSTONE	(-1)	/* pid of a forgotten entry: keeps probe chains intact */

struct fc_slot {
	uint64_t addr;
	int32_t pid;		/* 0 for kernel addresses */
	uint32_t frame;		/* frame id + 1; 0 marks an empty slot */
};

struct framecache {
	struct fc_slot *slots;
	size_t nslots, used;	/* nslots is a power of two */
};

static size_t slot_hash(int32_t pid, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17);
}

struct framecache *framecache__new(void)
{
	struct framecache *fc = calloc(1, sizeof(*fc));

	if (!fc)
		return NULL;
	fc->nslots = FC_SLOTS_MIN;
	fc->slots = calloc(fc->nslots, sizeof(*fc->slots));
	if (!fc->slots) {
		free(fc);
		errno = ENOMEM;
		return NULL;
	}
	return fc;
}

void framecache__delete(struct framecache *fc)
{
	if (!fc)
		return;
	free(fc->slots);
	free(fc);
}

/* The slot of (pid, addr), or the empty slot where it belongs. */
static struct fc_slot *find(const struct framecache *fc, int32_t pid, uint64_t addr)
{
	size_t mask = fc->nslots - 1, i;

	for (i = slot_hash(pid, addr) & mask; fc->slots[i].frame; i = (i + 1) & mask)
		if (fc->slots[i].addr == addr && fc->slots[i].pid == pid)
			break;
	return &fc->slots[i];
}

int framecache__get(const struct framecache *fc, int32_t pid, uint64_t addr, uint32_t *frame)
{
	const struct fc_slot *s = find(fc, pid, addr);

	if (!s->frame)
		return 0;
	*frame = s->frame - 1;
	return 1;
}

/* Double the table. */
static int grow(struct framecache *fc)
{
	struct framecache n = { .nslots = fc->nslots * 2 };

	n.slots = calloc(n.nslots, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < fc->nslots; i++)
		if (fc->slots[i].frame)
			*find(&n, fc->slots[i].pid, fc->slots[i].addr) = fc->slots[i];
	free(fc->slots);
	fc->slots = n.slots;
	fc->nslots = n.nslots;
	return 0;
}

int framecache__put(struct framecache *fc, int32_t pid, uint64_t addr, uint32_t frame)
{
	*find(fc, pid, addr) = (struct fc_slot){ .addr = addr, .pid = pid, .frame = frame + 1 };
	if (++fc->used * 2 > fc->nslots)
		return grow(fc);
	return 0;
}

void framecache__forget(struct framecache *fc, int32_t pid)
{
	for (size_t i = 0; i < fc->nslots; i++)
		if (fc->slots[i].pid == pid && fc->slots[i].frame)
			fc->slots[i].pid = FC_TOMBSTONE;
}
