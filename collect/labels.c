/*
** Label sets: an array and an open-addressing index over it.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/strpool.h"
#include "collect/labels.h"

static int same(const struct collect_labels *a, const struct collect_labels *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->vm == b->vm && a->merge == b->merge &&
	       a->reason == b->reason;
}

static size_t slot_of(const struct labelsets *t, const struct collect_labels *l)
{
	uint64_t key[2] = { (uint64_t)l->pid << 32 | l->tid,
			    (uint64_t)(uint8_t)l->vm << 24 | (uint64_t)(uint8_t)l->merge << 16 |
			    (uint16_t)l->reason };
	size_t i = (size_t)strpool__hash(key, sizeof(key)) & (t->nslots - 1);

	while (t->slots[i] && !same(&t->sets[t->slots[i] - 1], l))
		i = (i + 1) & (t->nslots - 1);
	return i;
}

static int rehash(struct labelsets *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	for (size_t id = 0; id < t->n; id++)
		t->slots[slot_of(t, &t->sets[id])] = (uint32_t)id + 1;
	return 0;
}

uint32_t labelsets__intern(struct labelsets *t, const struct collect_labels *l)
{
	size_t i;

	if ((t->n + 1) * 2 > t->nslots && rehash(t))
		return UINT32_MAX;
	i = slot_of(t, l);
	if (t->slots[i])
		return t->slots[i] - 1;
	if (t->n >= UINT32_MAX - 1 || grow__room((void **)&t->sets, &t->cap, t->n, sizeof(*l)))
		return UINT32_MAX;
	t->sets[t->n] = *l;
	t->slots[i] = (uint32_t)++t->n;
	return (uint32_t)t->n - 1;
}

const struct collect_labels *labelsets__get(const struct labelsets *t, uint32_t id)
{
	return id < t->n ? &t->sets[id] : NULL;
}

void labelsets__free(struct labelsets *t)
{
	free(t->sets);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
