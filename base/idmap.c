/*
** Entries by nonzero 32-bit id (base/idmap.h).
*/
#include <stdlib.h>
#include <string.h>

#include "base/idmap.h"

static uint32_t id_at(const struct idmap *m, size_t i)
{
	uint32_t id;

	memcpy(&id, m->slot + i * m->size, sizeof(id));
	return id;
}

/* The slot of id: its own, or the empty one it would take (cap > 0). */
static size_t slot_of(const struct idmap *m, uint32_t id)
{
	size_t i = ((size_t)id * 0x9e3779b1u) & (m->cap - 1);

	while (id_at(m, i) && id_at(m, i) != id)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(struct idmap *m)
{
	struct idmap old = *m;

	m->cap = old.cap ? 2 * old.cap : 64;
	m->slot = calloc(m->cap, m->size);
	if (!m->slot) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (id_at(&old, i))
			memcpy(m->slot + slot_of(m, id_at(&old, i)) * m->size,
			       old.slot + i * old.size, m->size);
	free(old.slot);
	return 0;
}

void idmap__init(struct idmap *m, size_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size < sizeof(uint32_t) ? sizeof(uint32_t) : size;
}

void *idmap__get(const struct idmap *m, uint32_t id)
{
	size_t i;

	if (!id || !m->cap)
		return NULL;
	i = slot_of(m, id);
	return id_at(m, i) ? m->slot + i * m->size : NULL;
}

void *idmap__add(struct idmap *m, uint32_t id, int *added)
{
	unsigned char *e;
	size_t i;

	if (added)
		*added = 0;
	if (!id || (!m->cap && grow(m)))
		return NULL;
	i = slot_of(m, id);
	if (id_at(m, i))
		return m->slot + i * m->size;
	if ((m->n + 1) * 2 > m->cap) {
		if (grow(m))
			return NULL;
		i = slot_of(m, id);
	}
	e = m->slot + i * m->size;
	memset(e, 0, m->size);
	memcpy(e, &id, sizeof(id));
	m->n++;
	if (added)
		*added = 1;
	return e;
}

void *idmap__slot(const struct idmap *m, size_t i)
{
	return i < m->cap && id_at(m, i) ? m->slot + i * m->size : NULL;
}

void idmap__clear(struct idmap *m)
{
	if (m->slot)
		memset(m->slot, 0, m->cap * m->size);
	m->n = 0;
}

void idmap__free(struct idmap *m)
{
	free(m->slot);
	idmap__init(m, m->size);
}
