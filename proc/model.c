/*
** Processes, their mappings and the files behind them (see proc.h).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "proc/mapfile.h"
#include "proc/mem.h"
#include "proc/model.h"

#define TP_BUCKETS	256

/* What one mapping resolves to, filled on first use. */
struct tmap {
	struct tfile *file;	/* NULL: anonymous, or not openable */
	uint64_t bias;
	uint8_t resolved;	/* file and bias were looked up */
	uint8_t has_bias;
};

struct tproc {
	struct tproc *next;	/* hash chain */
	struct tmodel *model;
	int pid;
	struct procmaps maps;
	struct tmap *info;	/* parallel to maps.maps */
	uint64_t read_ns;	/* last read attempt, CLOCK_MONOTONIC */
	uint8_t read;		/* a read was attempted */
	int root;		/* O_PATH fd of its root directory as of the last
				   read of its maps; -1: none */
	struct tfile *vdso;	/* its vDSO, once read */
	uint64_t vdso_start;	/* where that vDSO was mapped */
	void *part[TP_PART__COUNT];
	void (*drop[TP_PART__COUNT])(void *);
};

struct tmodel {
	struct tproc *procs[TP_BUCKETS];
	struct tfiles *files;
	struct tmodel_stats stats;
};

/* -- The model --------------------------------------------------------------- */

struct tmodel *tmodel__new(void)
{
	struct tmodel *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->files = tfiles__new();
	if (!m->files) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

static void proc_free(struct tproc *p)
{
	for (int i = 0; i < TP_PART__COUNT; i++)
		tproc__set_part(p, (enum tproc_part)i, NULL, NULL);
	procmaps__free(&p->maps);
	free(p->info);
	if (p->root >= 0)
		close(p->root);
	free(p);
}

void tmodel__delete(struct tmodel *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < TP_BUCKETS; i++)
		while (m->procs[i]) {
			struct tproc *p = m->procs[i];

			m->procs[i] = p->next;
			proc_free(p);
		}
	tfiles__delete(m->files);
	free(m);
}

struct tfiles *tmodel__files(const struct tmodel *m)
{
	return m->files;
}

struct tproc *tmodel__proc(struct tmodel *m, int pid)
{
	struct tproc **head = &m->procs[(unsigned)pid % TP_BUCKETS], *p;

	for (p = *head; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->model = m;
	p->pid = pid;
	p->root = -1;
	p->next = *head;
	*head = p;
	return p;
}

void tmodel__forget(struct tmodel *m, int pid)
{
	for (struct tproc **pp = &m->procs[(unsigned)pid % TP_BUCKETS]; *pp; pp = &(*pp)->next)
		if ((*pp)->pid == pid) {
			struct tproc *p = *pp;

			*pp = p->next;
			proc_free(p);
			return;
		}
}

const struct tmodel_stats *tmodel__stats(const struct tmodel *m)
{
	return &m->stats;
}

/* -- One process ------------------------------------------------------------- */

int tproc__pid(const struct tproc *p)
{
	return p->pid;
}

int tproc__root(const struct tproc *p)
{
	return p->root;
}

/* Same mapping of the same file: what was resolved for it still holds. */
static int same_map(const struct procmap *a, const struct procmap *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && !strcmp(a->path, b->path);
}

/* Hold the process's root directory as it is now (a chroot or setns may have
** moved it since the last read): its files open through it after it exits. */
static void reroot(struct tproc *p)
{
	int fd = mapfile__open_root(p->pid);

	if (fd < 0)
		return;
	if (p->root >= 0)
		close(p->root);
	p->root = fd;
}

/* Read the maps again, keeping what was resolved for unchanged mappings. */
static int reload(struct tproc *p)
{
	struct procmaps nm;
	struct tmap *ni;
	int err, changed;

	p->read = 1;
	p->read_ns = clock__mono_ns();
	p->model->stats.maps_reads++;
	err = procmaps__read(p->pid, &nm);
	if (err)
		return err;
	if (!nm.n) {		/* a zombie: keep what it mapped */
		procmaps__free(&nm);
		return 0;
	}
	reroot(p);
	ni = calloc(nm.n, sizeof(*ni));
	if (!ni) {
		procmaps__free(&nm);
		return -ENOMEM;
	}
	changed = nm.n != p->maps.n;
	for (size_t i = 0; i < nm.n; i++) {
		const struct procmap *o = procmaps__find(&p->maps, nm.maps[i].start);

		if (o && same_map(o, &nm.maps[i]))
			ni[i] = p->info[o - p->maps.maps];
		else
			changed = 1;
	}
	procmaps__free(&p->maps);
	free(p->info);
	p->maps = nm;
	p->info = ni;
	return changed;
}

int tproc__refresh(struct tproc *p, uint64_t max_age_ns)
{
	if (p->read && clock__mono_ns() - p->read_ns < max_age_ns)
		return 0;
	return reload(p);
}

const struct procmaps *tproc__maps(struct tproc *p)
{
	if (!p->read)
		reload(p);
	return &p->maps;
}

ssize_t tproc__find(struct tproc *p, uint64_t addr)
{
	const struct procmap *m;

	if (!p->read)
		reload(p);
	m = procmaps__find(&p->maps, addr);
	if (!m && clock__mono_ns() - p->read_ns >= TPROC_REREAD_NS) {
		reload(p);		/* maybe a new dlopen */
		m = procmaps__find(&p->maps, addr);
	}
	return m ? m - p->maps.maps : -1;
}

/* The vDSO mapped at m: copied once per process, shared by content. */
static struct tfile *vdso_of(struct tproc *p, const struct procmap *m)
{
	size_t len = 0;
	void *img;

	if (p->vdso && p->vdso_start == m->start)
		return p->vdso;
	img = tmem__copy(p->pid, m->start, m->end, &len);
	if (!img)
		return NULL;
	p->model->stats.vdso_reads++;
	p->vdso = tfiles__of_image(p->model->files, img, len);
	p->vdso_start = m->start;
	return p->vdso;
}

/* Find the file and bias of mapping i, once. */
static void resolve(struct tproc *p, size_t i)
{
	const struct procmap *m = &p->maps.maps[i];
	struct tmap *t = &p->info[i];

	t->resolved = 1;
	if (!strcmp(m->path, "[vdso]")) {
		t->file = vdso_of(p, m);
		if (t->file && !elf_loads__bias(tfile__loads(t->file), m->start, 0, &t->bias))
			t->has_bias = 1;
	} else if (m->path[0] == '/' && m->inode) {
		t->file = tfiles__of_mapping(p->model->files, p->pid, m);
		if (t->file && !elf_loads__bias(tfile__loads(t->file), m->start, m->offset,
						&t->bias))
			t->has_bias = 1;
	}
}

struct tfile *tproc__file(struct tproc *p, size_t i)
{
	if (i >= p->maps.n)
		return NULL;
	if (!p->info[i].resolved)
		resolve(p, i);
	return p->info[i].file;
}

int tproc__bias(struct tproc *p, size_t i, uint64_t *bias)
{
	if (!tproc__file(p, i) || !p->info[i].has_bias)
		return -ENOENT;
	*bias = p->info[i].bias;
	return 0;
}

void *tproc__part(const struct tproc *p, enum tproc_part part)
{
	return part < TP_PART__COUNT ? p->part[part] : NULL;
}

void tproc__set_part(struct tproc *p, enum tproc_part part, void *data, void (*drop)(void *))
{
	if (part >= TP_PART__COUNT)
		return;
	if (p->part[part] && p->drop[part])
		p->drop[part](p->part[part]);
	p->part[part] = data;
	p->drop[part] = drop;
}
