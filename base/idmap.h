/*
** A table of entries by a nonzero 32-bit id (a PID, a TID): open addressing,
** linear probing, doubled at half full. Entries are the caller's structs,
** stored in place, whose first member is their uint32_t id (0: an empty slot).
*/
#ifndef LUATOP_BASE_IDMAP_H
#define LUATOP_BASE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
	unsigned char *slot;	/* cap entries of size bytes */
	size_t size;		/* bytes per entry, its id first */
	size_t n, cap;		/* entries used; slots (0 or a power of two) */
};

/* An empty table of entries of size bytes (>= sizeof(uint32_t)). */
void idmap__init(struct idmap *m, size_t size);
/* The entry of id, or NULL (id 0, or none). */
void *idmap__get(const struct idmap *m, uint32_t id);
/* The entry of id, made zeroed but for its id if new (*added says which, may be
** NULL); NULL for id 0 or on ENOMEM. The pointer holds until the next add. */
void *idmap__add(struct idmap *m, uint32_t id, int *added);
/* Entry i of the slots (i < m->cap), or NULL if empty: for walking them all. */
void *idmap__slot(const struct idmap *m, size_t i);
/* Forget every entry (keeps the room). */
void idmap__clear(struct idmap *m);
void idmap__free(struct idmap *m);

#endif
