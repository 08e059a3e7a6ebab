/*
** Native symbolizer: per-process maps, a (dev, inode) cache of ELF symbol
** tables, the vDSO read from process memory, kallsyms, and interned strings.
**
** Nothing handed out is ever freed before symbolizer__delete: ELF tables stay
** cached after a process is forgotten and every composed name is interned, so
** callers may keep the returned pointers.
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "symbolize/elfsyms.h"
#include "symbolize/kallsyms.h"
#include "symbolize/procmaps.h"
#include "symbolize/symbolizer.h"

#define SY_PID_BUCKETS	256
#define SY_REREAD_NS	100000000ull	/* re-read maps at most every 100 ms per pid */
#define SY_VDSO_MAX	(1u << 20)	/* the vDSO is 2-4 pages; refuse anything big */
#define SY_CHUNK	(64 * 1024)	/* string arena chunk */
#define SY_SLOTS_MIN	1024u
#define SY_UNKNOWN	"[unknown]"

/* -- Interned strings ----------------------------------------------------- */

struct sy_chunk {
	struct sy_chunk *next;	/* older chunks */
	size_t used, size;	/* bytes handed out / in mem[] */
	char mem[];
};

/* A set of strings that never move: chunked arena + open addressing (FNV-1a). */
struct sy_strs {
	struct sy_chunk *chunks;
	const char **slots;	/* NULL marks an empty slot */
	size_t nslots, used;	/* nslots is a power of two */
};

/* FNV-1a over len bytes. */
static uint64_t fnv1a(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Copy len bytes plus a NUL into the arena. */
static char *strs_copy(struct sy_strs *t, const char *str, size_t len)
{
	struct sy_chunk *c = t->chunks;
	char *p;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > SY_CHUNK ? len + 1 : SY_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		c->size = size;
		t->chunks = c;
	}
	p = c->mem + c->used;
	memcpy(p, str, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

/* The slot holding str, or the empty slot where it belongs. */
static const char **strs_slot(const struct sy_strs *t, const char *str, size_t len)
{
	size_t mask = t->nslots - 1, i = (size_t)fnv1a(str, len) & mask;

	while (t->slots[i] && (strncmp(t->slots[i], str, len) || t->slots[i][len]))
		i = (i + 1) & mask;
	return &t->slots[i];
}

/* Double the slot table (or create it). */
static int strs_grow(struct sy_strs *t)
{
	struct sy_strs n = { .nslots = t->nslots ? t->nslots * 2 : SY_SLOTS_MIN };

	n.slots = calloc(n.nslots, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i])
			*strs_slot(&n, t->slots[i], strlen(t->slots[i])) = t->slots[i];
	free(t->slots);
	t->slots = n.slots;
	t->nslots = n.nslots;
	return 0;
}

/* The interned copy of str[0..len), or NULL on ENOMEM. */
static const char *strs_intern(struct sy_strs *t, const char *str, size_t len)
{
	const char **slot;

	if ((t->used + 1) * 2 > t->nslots && strs_grow(t))
		return NULL;
	slot = strs_slot(t, str, len);
	if (!*slot) {
		*slot = strs_copy(t, str, len);
		if (!*slot)
			return NULL;
		t->used++;
	}
	return *slot;
}

/* Free every chunk and the table. */
static void strs_free(struct sy_strs *t)
{
	while (t->chunks) {
		struct sy_chunk *c = t->chunks;

		t->chunks = c->next;
		free(c);
	}
	free(t->slots);
}

/* -- Structures ----------------------------------------------------------- */

/* A file (or vDSO image) whose symbols were loaded, shared by all its mappings. */
struct sy_file {
	uint64_t dev, ino, size;	/* identity from fstat */
	int64_t mtime_s, mtime_ns;	/* rewritten in place -> a new entry */
	void *img;			/* vDSO: the image itself is the key */
	struct elfsyms *syms;		/* NULL: not an ELF file */
};

/* What one mapping resolves to, filled on first use. */
struct sy_mapinfo {
	struct elfsyms *syms;	/* borrowed from the file cache; may be NULL */
	const char *module;	/* interned; NULL for anonymous memory */
	uint8_t done;		/* resolution was attempted */
};

struct sy_proc {
	struct sy_proc *next;	/* hash chain */
	int pid;
	struct procmaps maps;
	struct sy_mapinfo *info;	/* parallel to maps.maps */
	uint64_t read_ns;	/* last read attempt, CLOCK_MONOTONIC */
	uint8_t read;		/* a read was attempted */
};

struct symbolizer {
	struct sy_proc *procs[SY_PID_BUCKETS];
	struct sy_file *files;
	size_t nfiles, files_cap;
	struct sy_strs strs;
	struct kallsyms *ksyms;
	uint8_t ksyms_tried;	/* load kallsyms once, even when it failed */
};

/* -- File cache ----------------------------------------------------------- */

/* The cached entry for a file identity or vDSO image, or NULL. */
static struct sy_file *file_find(struct symbolizer *s, const struct sy_file *key)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		struct sy_file *f = &s->files[i];

		if (f->dev != key->dev || f->ino != key->ino || f->size != key->size ||
		    f->mtime_s != key->mtime_s || f->mtime_ns != key->mtime_ns ||
		    !f->img != !key->img)
			continue;
		if (!key->img || !memcmp(f->img, key->img, key->size))
			return f;
	}
	return NULL;
}

/* Add an entry taking ownership of key->img and syms (freed on failure). */
static struct sy_file *file_add(struct symbolizer *s, const struct sy_file *key,
				struct elfsyms *syms)
{
	if (s->nfiles == s->files_cap) {
		size_t cap = s->files_cap ? s->files_cap * 2 : 16;
		struct sy_file *p = realloc(s->files, cap * sizeof(*p));

		if (!p) {
			free(key->img);
			elfsyms__delete(syms);
			return NULL;
		}
		s->files = p;
		s->files_cap = cap;
	}
	s->files[s->nfiles] = *key;
	s->files[s->nfiles].syms = syms;
	return &s->files[s->nfiles++];
}

/* -- Opening mapped files ------------------------------------------------- */

/*
** Turn an O_PATH fd into a readable fd, only for a regular file with the mapped
** inode: opening a device or FIFO could block or have side effects. The inode
** alone is checked because overlayfs reports a different st_dev than maps does.
*/
static int reopen_regular(int pfd, uint64_t ino)
{
	char path[64];
	struct stat st;
	int fd = -1;

	if (pfd < 0)
		return -1;
	if (!fstat(pfd, &st) && S_ISREG(st.st_mode) && (!ino || (uint64_t)st.st_ino == ino)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	close(pfd);
	return fd;
}

/* openat2(O_PATH) with RESOLVE_IN_ROOT: absolute symlinks stay inside dfd. */
static int openat2_in_root(int dfd, const char *path)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* O_PATH-open path inside the process's root directory (containers). */
static int open_in_root(int pid, const char *path)
{
	char root[64];
	int dfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	fd = openat2_in_root(dfd, path);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))	/* old kernel, seccomp */
		fd = openat(dfd, path + strspn(path, "/"), O_PATH | O_CLOEXEC);
	close(dfd);
	return fd;
}

/*
** A readable fd of the file behind mapping m, or -1. map_files works for deleted
** files and other mount namespaces but needs CAP_SYS_ADMIN; the path fallbacks
** must prove they found the mapped inode.
*/
static int open_mapped(int pid, const struct procmap *m)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid,
		 m->start, m->end);
	fd = reopen_regular(open(path, O_PATH | O_CLOEXEC), 0);
	if (fd >= 0)
		return fd;
	fd = reopen_regular(open_in_root(pid, m->path), m->inode);
	if (fd >= 0)
		return fd;
	return reopen_regular(open(m->path, O_PATH | O_CLOEXEC), m->inode);
}

/* Symbols of the file behind mapping m (cached by identity), or NULL. */
static struct elfsyms *file_syms(struct symbolizer *s, int pid, const struct procmap *m)
{
	struct sy_file key = { 0 }, *f;
	struct elfsyms *syms;
	struct stat st;
	int fd = open_mapped(pid, m);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	key.dev = (uint64_t)st.st_dev;
	key.ino = (uint64_t)st.st_ino;
	key.size = (uint64_t)st.st_size;
	key.mtime_s = (int64_t)st.st_mtim.tv_sec;
	key.mtime_ns = (int64_t)st.st_mtim.tv_nsec;
	f = file_find(s, &key);
	if (!f) {
		syms = elfsyms__load_fd(fd);
		if (syms || errno != ENOMEM)	/* remember non-ELF files too */
			f = file_add(s, &key, syms);
	}
	close(fd);
	return f ? f->syms : NULL;
}

/* Symbols of the vDSO mapped at m, copied out of the process (read-only). */
static struct elfsyms *vdso_syms(struct symbolizer *s, int pid, const struct procmap *m)
{
	struct sy_file key = { 0 }, *f;
	size_t len = m->end - m->start;
	struct iovec local, remote;

	if (len > SY_VDSO_MAX || !(key.img = malloc(len)))
		return NULL;
	local = (struct iovec){ key.img, len };
	remote = (struct iovec){ (void *)(uintptr_t)m->start, len };
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)len) {
		free(key.img);
		return NULL;
	}
	key.size = len;
	f = file_find(s, &key);		/* every 64-bit process maps the same image */
	if (f) {
		free(key.img);
		return f->syms;
	}
	f = file_add(s, &key, elfsyms__load_mem(key.img, len));
	return f ? f->syms : NULL;
}

/* -- Processes ------------------------------------------------------------ */

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Free one process entry. */
static void proc_free(struct sy_proc *p)
{
	procmaps__free(&p->maps);
	free(p->info);
	free(p);
}

/* The entry of pid, created empty when absent; NULL on ENOMEM. */
static struct sy_proc *proc_get(struct symbolizer *s, int pid)
{
	struct sy_proc **head = &s->procs[(unsigned)pid % SY_PID_BUCKETS], *p;

	for (p = *head; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = *head;
	*head = p;
	return p;
}

/* Same mapping of the same file: what was resolved for it still holds. */
static int same_map(const struct procmap *a, const struct procmap *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && !strcmp(a->path, b->path);
}

/*
** Re-read the maps. When the process is gone (error) or a zombie (no mappings),
** keep the old ones: samples taken before it exited still need them.
*/
static void proc_reload(struct sy_proc *p)
{
	struct procmaps nm;
	struct sy_mapinfo *ni;

	p->read = 1;
	p->read_ns = now_ns();
	if (procmaps__read(p->pid, &nm))
		return;
	ni = nm.n ? calloc(nm.n, sizeof(*ni)) : NULL;
	if (!ni) {
		procmaps__free(&nm);
		return;
	}
	for (size_t i = 0; i < nm.n; i++) {
		const struct procmap *o = procmaps__find(&p->maps, nm.maps[i].start);

		if (o && same_map(o, &nm.maps[i]))
			ni[i] = p->info[o - p->maps.maps];
	}
	procmaps__free(&p->maps);
	free(p->info);
	p->maps = nm;
	p->info = ni;
}

/* Index of the mapping holding addr, re-reading maps (rate-limited) on a miss; -1 if none. */
static ssize_t proc_find(struct sy_proc *p, uint64_t addr)
{
	const struct procmap *m;

	if (!p->read)
		proc_reload(p);
	m = procmaps__find(&p->maps, addr);
	if (!m && now_ns() - p->read_ns >= SY_REREAD_NS) {
		proc_reload(p);		/* maybe a new dlopen */
		m = procmaps__find(&p->maps, addr);
	}
	return m ? m - p->maps.maps : -1;
}

/* The module name of a mapping path: basename without " (deleted)"; NULL if anonymous. */
static const char *module_name(struct symbolizer *s, const char *path)
{
	static const char deleted[] = " (deleted)";
	const char *b = strrchr(path, '/');
	size_t len;

	if (!path[0])
		return NULL;
	if (path[0] != '/')
		return strs_intern(&s->strs, path, strlen(path));	/* "[vdso]", "[heap]" */
	b = b ? b + 1 : path;
	len = strlen(b);
	if (len > sizeof(deleted) - 1 &&
	    !strcmp(b + len - (sizeof(deleted) - 1), deleted))
		len -= sizeof(deleted) - 1;
	if (!len)		/* "/dir/": keep the whole path rather than "" */
		return strs_intern(&s->strs, path, strlen(path));
	return strs_intern(&s->strs, b, len);
}

/* Resolve a mapping to its module name and symbols, once. */
static void map_resolve(struct symbolizer *s, struct sy_proc *p, size_t i)
{
	const struct procmap *m = &p->maps.maps[i];
	struct sy_mapinfo *mi = &p->info[i];

	mi->done = 1;
	mi->module = module_name(s, m->path);
	if (!strcmp(m->path, "[vdso]"))
		mi->syms = vdso_syms(s, p->pid, m);
	else if (m->path[0] == '/' && m->inode)
		mi->syms = file_syms(s, p->pid, m);
}

/* -- Lookups -------------------------------------------------------------- */

/* Fill *out for an address known only down to its module: "module+0xOFF". */
static int module_only(struct symbolizer *s, const char *module, uint64_t off,
		       struct symbol *out)
{
	char buf[PROCMAP_PATH_MAX + 32];
	int n = snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, module, off);
	const char *name = NULL;

	if (n > 0 && (size_t)n < sizeof(buf))
		name = strs_intern(&s->strs, buf, (size_t)n);
	out->name = name ? name : module;
	out->module = module;
	out->offset = off;
	return 1;
}

/* Name an address in a mapping, given its file offset. */
static int map_lookup(struct symbolizer *s, const struct sy_mapinfo *mi, uint64_t file_off,
		      struct symbol *out)
{
	uint64_t vaddr, off;
	const char *name;

	if (!mi->syms || elfsyms__file_offset_to_vaddr(mi->syms, file_off, &vaddr))
		return module_only(s, mi->module, file_off, out);
	name = elfsyms__lookup(mi->syms, vaddr, &off);
	if (!name)
		return module_only(s, mi->module, vaddr, out);
	out->name = name;
	out->module = mi->module;
	out->offset = off;
	return 0;
}

/* The answer for an unknown address. */
static int unknown(struct symbol *out)
{
	out->name = SY_UNKNOWN;
	out->module = NULL;
	out->offset = 0;
	return -ENOENT;
}

/* Create an empty symbolizer; NULL on ENOMEM. */
struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s || strs_grow(&s->strs)) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* Free every process, cached file, string and kallsyms; NULL is fine. */
void symbolizer__delete(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < SY_PID_BUCKETS; i++)
		while (s->procs[i]) {
			struct sy_proc *p = s->procs[i];

			s->procs[i] = p->next;
			proc_free(p);
		}
	for (size_t i = 0; i < s->nfiles; i++) {
		elfsyms__delete(s->files[i].syms);
		free(s->files[i].img);
	}
	free(s->files);
	strs_free(&s->strs);
	kallsyms__delete(s->ksyms);
	free(s);
}

/* Name a user address of pid. */
int symbolizer__user(struct symbolizer *s, int pid, uint64_t addr, struct symbol *out)
{
	const struct procmap *m;
	struct sy_mapinfo *mi;
	struct sy_proc *p;
	ssize_t i;

	if (!out)
		return -EINVAL;
	if (!s || pid <= 0 || !(p = proc_get(s, pid)) || (i = proc_find(p, addr)) < 0)
		return unknown(out);
	m = &p->maps.maps[i];
	mi = &p->info[i];
	if (!mi->done)
		map_resolve(s, p, (size_t)i);
	if (!mi->module)
		return unknown(out);	/* anonymous: JIT code, heap */
	return map_lookup(s, mi, addr - m->start + m->offset, out);
}

/* Name a kernel address; kallsyms is loaded on the first call. */
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct symbol *out)
{
	const char *name, *module;
	uint64_t off;

	if (!out)
		return -EINVAL;
	if (!s)
		return unknown(out);
	if (!s->ksyms_tried) {
		s->ksyms_tried = 1;
		s->ksyms = kallsyms__load();
	}
	name = kallsyms__lookup_off(s->ksyms, addr, &module, &off);
	if (!name)
		return unknown(out);
	out->name = name;
	out->module = module ? module : "[kernel]";
	out->offset = off;
	return 0;
}

/* Drop the maps of pid; cached files and strings stay. */
void symbolizer__forget(struct symbolizer *s, int pid)
{
	struct sy_proc **pp;

	if (!s)
		return;
	for (pp = &s->procs[(unsigned)pid % SY_PID_BUCKETS]; *pp; pp = &(*pp)->next)
		if ((*pp)->pid == pid) {
			struct sy_proc *p = *pp;

			*pp = p->next;
			proc_free(p);
			return;
		}
}
