/*
** Frame interning: (kind, name, module) -> dense frame id.
**
** Frames live in fixed-size blocks and strings in a string pool, so the
** pointers handed out never move. Lookup is an open-addressing hash table
** (linear probing, FNV-1a) of id + 1, 0 meaning empty.
*/

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strpool.h"
#include "profile/frames.h"

#define FT_BLOCK_BITS	10			/* 1024 frames per block */
#define FT_BLOCK	(1u << FT_BLOCK_BITS)
#define FT_SLOTS_MIN	1024u
#define FT_SLOTS_MAX	(1u << 31)
#define FT_ID_MAX	(UINT32_MAX - 1)	/* UINT32_MAX is the error value */

static const char *const special_names[SPECIAL__COUNT] = {
	[SPECIAL_FALLBACK] = "[fallback]",
	[SPECIAL_LUA] = "[lua]",
	[SPECIAL_UNKNOWN] = "[unknown]",
	[SPECIAL_COROUTINE] = "[coroutine]",
	[SPECIAL_IDLE] = "[idle]",
};

struct ft_ent {
	struct frame f;		/* what frametab__get returns */
	uint32_t hash;		/* of (kind, name, module), kept for rehashing */
};

struct frametab {
	struct ft_ent **blocks;	/* id >> FT_BLOCK_BITS -> block of FT_BLOCK entries */
	uint32_t nblocks;	/* length of blocks[] */
	uint32_t nalloc;	/* blocks allocated, from blocks[0] */
	uint32_t n;		/* frames interned */
	uint32_t *slots;	/* id + 1, 0 = empty */
	uint32_t mask;		/* number of slots - 1 */
	struct strpool strs;	/* names and modules, interned */
	uint32_t special[SPECIAL__COUNT];	/* id + 1 of each special frame; 0: not yet */
};

/* -- Hash table --------------------------------------------------------- */

/* FNV-1a over bytes, continuing from h. */
static uint32_t fnv1a(uint32_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* Hash of the triple; the NUL separators keep ("ab","c") apart from ("a","bc"). */
static uint32_t ft_hash(enum frame_kind kind, const char *name, const char *module)
{
	uint32_t h = (2166136261u ^ (uint32_t)kind) * 16777619u;

	h = fnv1a(h, name) * 16777619u;
	if (module)
		h = fnv1a(h ^ 1u, module) * 16777619u;
	return h;
}

/* Entry for a valid id. */
static struct ft_ent *ft_ent(const struct frametab *t, uint32_t id)
{
	return &t->blocks[id >> FT_BLOCK_BITS][id & (FT_BLOCK - 1)];
}

/* Whether frame f is the triple. */
static int ft_same(const struct frame *f, enum frame_kind kind, const char *name,
		   const char *module)
{
	if (f->kind != kind || strcmp(f->name, name))
		return 0;
	if (!f->module || !module)
		return f->module == module;
	return !strcmp(f->module, module);
}

/* Slot holding the triple, or the empty slot where it belongs. */
static uint32_t ft_probe(const struct frametab *t, uint32_t h, enum frame_kind kind,
			 const char *name, const char *module)
{
	uint32_t i = h & t->mask, s;

	for (; (s = t->slots[i]); i = (i + 1) & t->mask) {
		const struct ft_ent *e = ft_ent(t, s - 1);

		if (e->hash == h && ft_same(&e->f, kind, name, module))
			break;
	}
	return i;
}

/* Double the slot array and reinsert every id. */
static int ft_rehash(struct frametab *t)
{
	uint32_t nslots = (t->mask + 1) * 2, *slots, id;

	if (t->mask + 1 >= FT_SLOTS_MAX)
		return -ENOMEM;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (id = 0; id < t->n; id++) {
		uint32_t i = ft_ent(t, id)->hash & (nslots - 1);

		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
	return 0;
}

/* Make room for entry number t->n. */
static int ft_reserve(struct frametab *t)
{
	uint32_t b = t->n >> FT_BLOCK_BITS;

	if (b < t->nalloc)	/* also after a failed intern left one spare */
		return 0;
	if (b == t->nblocks) {
		uint32_t nb = t->nblocks ? t->nblocks * 2 : 16;
		struct ft_ent **blocks = realloc(t->blocks, nb * sizeof(*blocks));

		if (!blocks)
			return -ENOMEM;
		t->blocks = blocks;
		t->nblocks = nb;
	}
	t->blocks[b] = malloc(FT_BLOCK * sizeof(struct ft_ent));
	if (!t->blocks[b])
		return -ENOMEM;
	t->nalloc++;
	return 0;
}

/* -- Public API --------------------------------------------------------- */

/* Create an empty table; NULL on ENOMEM. */
struct frametab *frametab__new(void)
{
	struct frametab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->slots = calloc(FT_SLOTS_MIN, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	t->mask = FT_SLOTS_MIN - 1;
	strpool__init(&t->strs, FT_SLOTS_MIN);
	return t;
}

/* Free the table, its frames and strings. NULL is fine. */
void frametab__delete(struct frametab *t)
{
	uint32_t b;

	if (!t)
		return;
	for (b = 0; b < t->nalloc; b++)
		free(t->blocks[b]);
	strpool__free(&t->strs);
	free(t->blocks);
	free(t->slots);
	free(t);
}

/* A special frame interned by name (a folded file's "[fallback]"): remember its id. */
static void note_special(struct frametab *t, const char *name, uint32_t id)
{
	for (int s = 0; s < SPECIAL__COUNT; s++)
		if (!t->special[s] && !strcmp(name, special_names[s]))
			t->special[s] = id + 1;
}

/* Id of (kind, name, module), interning it if new; UINT32_MAX on failure. */
uint32_t frametab__intern(struct frametab *t, enum frame_kind kind, const char *name,
			  const char *module)
{
	uint32_t h, i;
	struct ft_ent *e;

	if ((unsigned)kind >= FRAME_KIND__COUNT)
		return UINT32_MAX;
	if (!name)
		name = "";
	if (module && !*module)
		module = NULL;
	h = ft_hash(kind, name, module);
	i = ft_probe(t, h, kind, name, module);
	if (t->slots[i])
		return t->slots[i] - 1;
	if (t->n >= FT_ID_MAX)
		return UINT32_MAX;
	/* Keep the load under 3/4 so probe runs stay short. */
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)(t->mask + 1) * 3) {
		if (ft_rehash(t))
			return UINT32_MAX;
		i = ft_probe(t, h, kind, name, module);
	}
	if (ft_reserve(t))
		return UINT32_MAX;
	e = ft_ent(t, t->n);
	e->f.kind = kind;
	e->f.name = strpool__intern(&t->strs, name, strlen(name));
	e->f.module = module ? strpool__intern(&t->strs, module, strlen(module)) : NULL;
	if (!e->f.name || (module && !e->f.module))
		return UINT32_MAX;	/* interned strings stay in the pool until delete */
	e->hash = h;
	t->slots[i] = ++t->n;
	if (kind == FRAME_SPECIAL && !module)
		note_special(t, name, t->n - 1);
	return t->n - 1;
}

/* Frame for id, NULL if out of range. */
const struct frame *frametab__get(const struct frametab *t, uint32_t id)
{
	return id < t->n ? &ft_ent(t, id)->f : NULL;
}

/* Number of frames interned. */
uint32_t frametab__count(const struct frametab *t)
{
	return t->n;
}

/* -- Special frames ----------------------------------------------------- */

const char *frame__special_name(enum frame_special s)
{
	return (unsigned)s < SPECIAL__COUNT ? special_names[s] : "[?]";
}

uint32_t frametab__special(struct frametab *t, enum frame_special s)
{
	uint32_t id;

	if ((unsigned)s >= SPECIAL__COUNT)
		return UINT32_MAX;
	if (t->special[s])
		return t->special[s] - 1;
	id = frametab__intern(t, FRAME_SPECIAL, special_names[s], NULL);
	if (id != UINT32_MAX)
		t->special[s] = id + 1;
	return id;
}

int frametab__is_special(const struct frametab *t, uint32_t id, enum frame_special s)
{
	return (unsigned)s < SPECIAL__COUNT && t->special[s] && t->special[s] - 1 == id;
}
