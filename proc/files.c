/*
** The file-identity cache (see files.h).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/files.h"
#include "proc/mapfile.h"

#define TF_SLOTS_MIN	64u	/* first size of the hash table */
#define TF_FDS_MAX	256u	/* files kept open at once */

struct tfile {
	struct stat st;			/* identity: dev, ino, size, mtime (files) */
	uint8_t *img;			/* image entries: the bytes */
	size_t img_len;
	uint64_t hash;			/* of the identity or the image */
	char path[PROCMAP_PATH_MAX];	/* as first mapped */
	int reopen_pid;			/* a process that mapped it, to reopen it */
	struct procmap reopen_map;	/* and its mapping */
	struct tfiles *owner;		/* the cache, which counts open fds */
	int fd;				/* read-only, or -1 */
	uint64_t used;			/* tick of the last tfile__fd, for eviction */
	struct elf_loads loads;
	void *part[TF_PART__COUNT];
	void (*drop[TF_PART__COUNT])(void *);
	uint8_t has[TF_PART__COUNT];
};

struct tfiles {
	struct tfile **slots;		/* open addressing on hash; NULL: empty */
	size_t nslots, used;		/* nslots is a power of two */
	unsigned nfds;			/* entries holding an open fd */
	uint64_t tick;
	struct tfiles_stats stats;
};

/* -- Hashing --------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static uint64_t id_hash(const struct stat *st)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = mix(h, (uint64_t)st->st_dev);
	h = mix(h, (uint64_t)st->st_ino);
	h = mix(h, (uint64_t)st->st_size);
	h = mix(h, (uint64_t)st->st_mtim.tv_sec);
	return mix(h, (uint64_t)st->st_mtim.tv_nsec);
}

static uint64_t img_hash(const uint8_t *b, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;

	for (size_t i = 0; i < len; i++)
		h = mix(h, b[i]);
	return h | 1;	/* never equal to a file's hash by accident of 0 */
}

static int same_id(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The slot of the entry equal to (st or img), or the empty slot where it belongs. */
static struct tfile **slot_of(const struct tfiles *c, uint64_t h, const struct stat *st,
			      const uint8_t *img, size_t len)
{
	size_t mask = c->nslots - 1, i = (size_t)(h >> 7) & mask;

	for (; c->slots[i]; i = (i + 1) & mask) {
		const struct tfile *f = c->slots[i];

		if (f->hash != h || !f->img != !img)
			continue;
		if (img ? f->img_len == len && !memcmp(f->img, img, len) : same_id(&f->st, st))
			break;
	}
	return &c->slots[i];
}

/* Make room for one more entry. 0 or -ENOMEM. */
static int reserve(struct tfiles *c)
{
	struct tfiles n;

	if ((c->used + 1) * 2 <= c->nslots)
		return 0;
	n = (struct tfiles){ .nslots = c->nslots ? c->nslots * 2 : TF_SLOTS_MIN };
	n.slots = calloc(n.nslots, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++) {
		struct tfile *f = c->slots[i];

		if (f)
			*slot_of(&n, f->hash, &f->st, f->img, f->img_len) = f;
	}
	free(c->slots);
	c->slots = n.slots;
	c->nslots = n.nslots;
	return 0;
}

/* -- Entries --------------------------------------------------------------- */

struct tfiles *tfiles__new(void)
{
	struct tfiles *c = calloc(1, sizeof(*c));

	if (c && reserve(c)) {
		free(c);
		c = NULL;
	}
	if (!c)
		errno = ENOMEM;
	return c;
}

static void close_fd(struct tfiles *c, struct tfile *f)
{
	if (f->fd < 0)
		return;
	close(f->fd);
	f->fd = -1;
	c->nfds--;
}

static void entry_free(struct tfile *f)
{
	for (int p = 0; p < TF_PART__COUNT; p++)
		if (f->has[p] && f->drop[p])
			f->drop[p](f->part[p]);
	elf_loads__free(&f->loads);
	free(f->img);
	free(f);
}

void tfiles__delete(struct tfiles *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i]) {
			close_fd(c, c->slots[i]);
			entry_free(c->slots[i]);
		}
	free(c->slots);
	free(c);
}

/* Close the fd of the least recently used entry, to stay under TF_FDS_MAX. */
static void evict_one(struct tfiles *c)
{
	struct tfile *lru = NULL;

	for (size_t i = 0; i < c->nslots; i++) {
		struct tfile *f = c->slots[i];

		if (f && f->fd >= 0 && (!lru || f->used < lru->used))
			lru = f;
	}
	if (lru)
		close_fd(c, lru);
}

/* Read the PT_LOAD headers through fd (a file that is no ELF has none). */
static int read_loads(struct tfile *f, int fd)
{
	struct elffile ef;
	int err;

	if (elffile__open_fd(&ef, fd))
		return 0;
	err = elf_kind(ef.elf) == ELF_K_ELF ? elf_loads__read(ef.elf, &f->loads) : 0;
	elffile__close(&ef);
	return err;
}

/* Put a new entry into the table; on failure it is freed. */
static struct tfile *insert(struct tfiles *c, struct tfile *f)
{
	struct tfile **s;

	if (reserve(c)) {
		close_fd(c, f);
		entry_free(f);
		errno = ENOMEM;
		return NULL;
	}
	s = slot_of(c, f->hash, &f->st, f->img, f->img_len);
	*s = f;
	c->used++;
	return f;
}

struct tfile *tfiles__of_mapping(struct tfiles *c, int pid, const struct procmap *m)
{
	struct tfile *f, **s;
	struct stat st;
	int pfd = mapfile__open_path(pid, m), fd;

	if (pfd < 0)
		return NULL;
	if (fstat(pfd, &st)) {
		close(pfd);
		return NULL;
	}
	s = slot_of(c, id_hash(&st), &st, NULL, 0);
	if (*s) {
		close(pfd);
		return *s;
	}
	fd = mapfile__reopen_regular(pfd, 0);
	if (fd < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	f->st = st;
	f->hash = id_hash(&st);
	f->owner = c;
	f->fd = fd;
	f->used = ++c->tick;
	f->reopen_pid = pid;
	f->reopen_map = *m;
	snprintf(f->path, sizeof(f->path), "%s", m->path);
	c->nfds++;
	c->stats.files++;
	c->stats.opens++;
	if (read_loads(f, fd)) {
		close_fd(c, f);
		entry_free(f);
		errno = ENOMEM;
		return NULL;
	}
	if (c->nfds > TF_FDS_MAX)
		evict_one(c);
	return insert(c, f);
}

struct tfile *tfiles__of_image(struct tfiles *c, void *buf, size_t len)
{
	uint64_t h = img_hash(buf, len);
	struct tfile *f, **s = slot_of(c, h, NULL, buf, len);
	struct elffile ef;

	if (*s) {
		free(buf);
		return *s;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	f->img = buf;
	f->img_len = len;
	f->hash = h;
	f->owner = c;
	f->fd = -1;
	snprintf(f->path, sizeof(f->path), "[vdso]");
	if (!elffile__open_mem(&ef, buf, len)) {
		int err = elf_kind(ef.elf) == ELF_K_ELF ? elf_loads__read(ef.elf, &f->loads) : 0;

		elffile__close(&ef);
		if (err) {
			entry_free(f);
			errno = ENOMEM;
			return NULL;
		}
	}
	c->stats.images++;
	return insert(c, f);
}

const struct tfiles_stats *tfiles__stats(const struct tfiles *c)
{
	return &c->stats;
}

/* -- One entry --------------------------------------------------------------- */

int tfile__fd(struct tfile *f)
{
	struct tfiles *c = f->owner;
	struct stat st;
	int fd;

	if (f->img) {
		errno = EINVAL;
		return -1;
	}
	f->used = ++c->tick;
	if (f->fd >= 0)
		return f->fd;
	fd = mapfile__open(f->reopen_pid, &f->reopen_map);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !same_id(&st, &f->st)) {	/* replaced meanwhile */
		close(fd);
		errno = ESTALE;
		return -1;
	}
	f->fd = fd;
	c->nfds++;
	c->stats.opens++;
	c->stats.reopens++;
	if (c->nfds > TF_FDS_MAX)
		evict_one(c);
	return f->fd;
}

const void *tfile__image(const struct tfile *f, size_t *len)
{
	if (len)
		*len = f->img_len;
	return f->img;
}

const char *tfile__path(const struct tfile *f)
{
	return f->path;
}

const struct stat *tfile__stat(const struct tfile *f)
{
	return &f->st;
}

const struct elf_loads *tfile__loads(const struct tfile *f)
{
	return &f->loads;
}

int tfile__has(const struct tfile *f, enum tfile_part p)
{
	return p < TF_PART__COUNT && f->has[p];
}

void *tfile__part(const struct tfile *f, enum tfile_part p)
{
	return p < TF_PART__COUNT && f->has[p] ? f->part[p] : NULL;
}

void tfile__set(struct tfile *f, enum tfile_part p, void *data, void (*drop)(void *))
{
	int all = 1;

	if (p >= TF_PART__COUNT || f->has[p])
		return;
	f->part[p] = data;
	f->drop[p] = drop;
	f->has[p] = 1;
	for (int i = 0; i < TF_PART__COUNT; i++)
		all &= f->has[i];
	if (all && f->fd >= 0)
		close_fd(f->owner, f);
}
