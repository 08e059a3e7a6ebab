/*
** Native symbolizer: per-process maps, a (dev, inode) cache of ELF symbol
** tables completed from separate debug files, the vDSO read from process
** memory, perf maps for JIT code, kallsyms, C++ demangling and interned strings.
**
** Nothing handed out is ever freed before symbolizer__delete: ELF tables stay
** cached after a process is forgotten and every composed name is interned, so
** callers may keep the returned pointers.
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/clock.h"
#include "base/strpool.h"
#include "symbolize/demangle.h"
#include "symbolize/elfsyms.h"
#include "symbolize/kallsyms.h"
#include "symbolize/perfmap.h"
#include "symbolize/symbolizer.h"
#include "unwind/funcs.h"
#include "proc/mapfile.h"
#include "proc/model.h"

#define SY_REREAD_NS	100000000ull	/* re-check a perf map at most every 100 ms */
#define SY_SLOTS_MIN	1024u		/* first size of the string set and the memo */
#define SY_UNKNOWN	"[unknown]"
#define SY_JIT		"[jit]"		/* module of perf map hits */
#define SY_DEBUG_ROOT	"/usr/lib/debug"
#define SY_CRC_CHUNK	(256 * 1024)
#define SY_CRC_MAX	(4ull << 30)	/* bigger debug files fail the CRC check */
#define SY_BUILD_ID_MAX	64		/* bytes of a build ID kept (GNU: 20) */
#define SY_STATUS_MAX	8192		/* bytes of /proc/PID/status searched for NSpid */

/* -- Structures ----------------------------------------------------------- */

/* The TF_SYMBOLS part of a file: its symbols, maybe completed from a debug file. */
struct sy_syms {
	struct elfsyms *syms;		/* NULL: not an ELF file */
	uint64_t root_dev, root_ino;	/* root directory of the process it was found for */
	uint8_t borrowed;		/* syms belongs to another part (same build-id) */
	uint8_t debug;			/* syms includes a separate debug file */
};

/* The TP_SYMBOLS part of a process: its perf map (its mappings are the model's). */
struct sy_proc {
	int pid;
	struct perfmap *pmap;	/* its /tmp/perf-NSPID.map, or NULL */
	struct stat pmap_st;	/* identity of the file pmap was read from */
	uint64_t pmap_ns;	/* last check of the perf map, CLOCK_MONOTONIC */
	int nspid;		/* pid inside its own PID namespace; 0: not read yet */
	long uid;		/* its real uid (with nspid), -1: unknown */
	uint8_t pmap_tried;	/* the perf map was looked for */
};

/* A memoized demangling: both strings outlive the symbolizer's lookups. */
struct sy_memo {
	const char *key;	/* mangled name (pointer identity); NULL: empty slot */
	const char *val;	/* interned demangled name, or key when it failed */
};

struct symbolizer {
	struct tmodel *model;	/* the processes and the files they map */
	uint8_t own_model;	/* created by symbolizer__new(NULL) */
	struct sy_syms **debugged;	/* parts that include a debug file, for sharing */
	size_t ndebugged, capdebugged;
	struct strpool strs;
	struct kallsyms *ksyms;
	uint8_t ksyms_tried;	/* load kallsyms once, even when it failed */
	char *debug_root;	/* where separate debug files live, inside each root */
	struct demangler *dm;	/* NULL: not loaded (yet), or unavailable */
	struct sy_memo *memo;	/* demangled names by mangled pointer */
	size_t memo_slots, memo_used;	/* memo_slots is 0 or a power of two */
	uint8_t dm_tried;	/* demangler__new was attempted */
	uint8_t no_demangle;	/* symbolizer__set_demangle(s, 0) */
	uint8_t exact;		/* symbolizer__set_exact(s, 1): unnamed code by address */
};

/* -- Opening mapped files ------------------------------------------------- */

/* Record the identity of the root directory (an fd, tproc__root) in key: 0, or
** -1 when unknown. */
static int root_id(int root, struct sy_syms *key)
{
	struct stat st;

	if (root < 0 || fstat(root, &st))
		return -1;
	key->root_dev = (uint64_t)st.st_dev;
	key->root_ino = (uint64_t)st.st_ino;
	return 0;
}

/* Both identify the same build: equal, non-empty build-ids. */
static int same_build_id(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return a && b && alen && alen == blen && !memcmp(a, b, alen);
}

/* CRC-32 (zlib) of the whole file, read in chunks: 0, or -1 if unreadable or too big. */
static int file_crc(int fd, uint32_t *out)
{
	unsigned char *buf = malloc(SY_CRC_CHUNK);
	uLong crc = crc32(0L, Z_NULL, 0);
	uint64_t off = 0;
	ssize_t n;

	if (!buf)
		return -1;
	while ((n = pread(fd, buf, SY_CRC_CHUNK, (off_t)off)) > 0 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		off += (uint64_t)n;
		if (off > SY_CRC_MAX)
			break;		/* n > 0: fails below */
		crc = crc32(crc, buf, (uInt)n);
	}
	free(buf);
	if (n)
		return -1;
	*out = (uint32_t)crc;
	return 0;
}

/*
** The separate debug file at path (resolved inside root, the process's root
** directory: tproc__root) when it belongs
** to the runtime file rt (identity rst): a regular file other than rt itself,
** an ELF with a .symtab, the same build-id (required when by_id; otherwise
** checked when both have one) and, when crc is set, that CRC-32. NULL otherwise.
*/
static struct elfsyms *debug_try(int root, const char *path, const struct stat *rst,
				 const struct elfsyms *rt, int by_id, const uint32_t *crc)
{
	const uint8_t *id, *did;
	size_t len = 0, dlen = 0;
	struct elfsyms *d = NULL;
	struct stat st;
	uint32_t c = 0;
	int fd = mapfile__reopen_regular(mapfile__open_at_root(root, path), 0);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (st.st_dev == rst->st_dev && st.st_ino == rst->st_ino) ||
	    (crc && (st.st_size < 0 || (uint64_t)st.st_size > SY_CRC_MAX)))
		goto fail;
	d = elfsyms__load_fd(fd);
	if (!d || !elfsyms__has_symtab(d))
		goto fail;
	id = elfsyms__build_id(rt, &len);
	did = elfsyms__build_id(d, &dlen);
	if ((by_id || (id && did)) && !same_build_id(id, len, did, dlen))
		goto fail;
	if (crc && (file_crc(fd, &c) || c != *crc))
		goto fail;
	close(fd);
	return d;
fail:
	elfsyms__delete(d);
	close(fd);
	return NULL;
}

/* The debug file ROOT/.build-id/xx/rest.debug of the build-id id, or NULL. */
static struct elfsyms *debug_by_id(struct symbolizer *s, int root, const struct stat *rst,
				   const struct elfsyms *rt, const uint8_t *id, size_t len)
{
	char path[PATH_MAX];
	size_t n;
	int w;

	if (len < 2 || len > ELFSYMS_BUILD_ID_MAX)
		return NULL;
	w = snprintf(path, sizeof(path), "%s/.build-id/%02x/", s->debug_root, id[0]);
	if (w < 0 || (size_t)w + 2 * (len - 1) + sizeof(".debug") > sizeof(path))
		return NULL;
	n = (size_t)w;
	for (size_t i = 1; i < len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	memcpy(path + n, ".debug", sizeof(".debug"));
	return debug_try(root, path, rst, rt, 1, NULL);
}

/*
** The file named by rt's .gnu_debuglink, looked for like gdb does:
** ROOT/DIR/NAME, DIR/NAME, DIR/.debug/NAME, ROOT/NAME (DIR: where the binary is).
*/
static struct elfsyms *debug_by_link(struct symbolizer *s, int root, const char *bin,
				     const struct stat *rst, const struct elfsyms *rt)
{
	const char *name, *slash = strrchr(bin, '/');
	char path[PATH_MAX];
	uint32_t crc = 0;
	int dlen;

	name = elfsyms__debuglink(rt, &crc);
	if (!name || !name[0] || strchr(name, '/') || !slash || slash - bin > INT_MAX / 2)
		return NULL;
	dlen = (int)(slash - bin);
	for (int i = 0; i < 4; i++) {
		const char *pre = i == 0 || i == 3 ? s->debug_root : "";
		const char *sub = i == 2 ? "/.debug" : "";
		struct elfsyms *d;
		int n = snprintf(path, sizeof(path), "%s%.*s%s/%s", pre, i == 3 ? 0 : dlen, bin,
				 sub, name);

		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		d = debug_try(root, path, rst, rt, 0, &crc);
		if (d)
			return d;
	}
	return NULL;
}

/*
** A cached table of the same build that already includes its debug file, found
** for a process with the same root directory (another root could have planted a
** forged file with that build-id and a debug file to match), or NULL.
*/
static struct elfsyms *debug_shared(struct symbolizer *s, const struct sy_syms *key,
				    const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < s->ndebugged; i++) {
		const struct sy_syms *f = s->debugged[i];
		const uint8_t *fid;
		size_t flen = 0;

		if (f->borrowed || !f->syms || f->root_dev != key->root_dev ||
		    f->root_ino != key->root_ino)
			continue;
		fid = elfsyms__build_id(f->syms, &flen);
		if (same_build_id(id, len, fid, flen))
			return f->syms;
	}
	return NULL;
}

/*
** Complete the symbols of the runtime file at path (identity st) of pid from
** a separate debug file, when it has no .symtab: by build-id, then through
** .gnu_debuglink, all inside the process's root; or share the table of a cached
** copy of the same build. Returns the table to cache (syms, merged; or a borrowed
** one, syms freed) and fills key's root, borrowed and debug fields.
*/
static struct elfsyms *add_debug(struct symbolizer *s, int root, const char *path,
				 const struct stat *st, struct elfsyms *syms, struct sy_syms *key)
{
	int have_root = !root_id(root, key);
	struct elfsyms *d = NULL, *shared;
	const uint8_t *id;
	size_t len = 0;

	if (elfsyms__has_symtab(syms))
		return syms;
	id = elfsyms__build_id(syms, &len);
	if (id && have_root && (shared = debug_shared(s, key, id, len))) {
		elfsyms__delete(syms);
		key->borrowed = 1;
		key->debug = 1;
		return shared;
	}
	if (id)
		d = debug_by_id(s, root, st, syms, id, len);
	if (!d)
		d = debug_by_link(s, root, path, st, syms);
	if (d && !elfsyms__merge(syms, d))
		key->debug = 1;
	elfsyms__delete(d);
	return syms;
}

/* Drop a TF_SYMBOLS part. */
static void syms_drop(void *part)
{
	struct sy_syms *p = part;

	if (p && !p->borrowed)
		elfsyms__delete(p->syms);
	free(p);
}

/* Remember a part with a debug file, so that copies of its build can share it. */
static void note_debugged(struct symbolizer *s, struct sy_syms *part)
{
	if (s->ndebugged == s->capdebugged) {
		size_t cap = s->capdebugged ? s->capdebugged * 2 : 16;
		struct sy_syms **p = realloc(s->debugged, cap * sizeof(*p));

		if (!p)
			return;		/* no sharing: each copy loads its own */
		s->debugged = p;
		s->capdebugged = cap;
	}
	s->debugged[s->ndebugged++] = part;
}

/* The root directory of pid as the model holds it (tproc__root), -1: none. */
static int root_of(struct symbolizer *s, int pid)
{
	struct tproc *tp = tmodel__proc(s->model, pid);

	return tp ? tproc__root(tp) : -1;
}

/* Load the symbols of file f, mapped by a process whose root directory (an fd)
** holds its debug files. */
static struct sy_syms *load_syms(struct symbolizer *s, int root, struct tfile *f)
{
	struct sy_syms *part = calloc(1, sizeof(*part));
	size_t len = 0;
	const void *img = tfile__image(f, &len);
	int fd;

	if (!part)
		return NULL;
	if (img) {
		part->syms = elfsyms__load_mem(img, len);
		return part;
	}
	fd = tfile__fd(f);
	part->syms = fd >= 0 ? elfsyms__load_fd(fd) : NULL;
	if (part->syms)
		part->syms = add_debug(s, root, tfile__path(f), tfile__stat(f), part->syms, part);
	if (part->debug && !part->borrowed)
		note_debugged(s, part);
	return part;
}

/* The symbols of file f (its TF_SYMBOLS part, loaded on first use), or NULL. */
static struct elfsyms *file_syms(struct symbolizer *s, int pid, struct tfile *f)
{
	struct sy_syms *part;

	if (!tfile__has(f, TF_SYMBOLS))
		tfile__set(f, TF_SYMBOLS, load_syms(s, root_of(s, pid), f), syms_drop);
	part = tfile__part(f, TF_SYMBOLS);
	return part ? part->syms : NULL;
}

/* -- Processes ------------------------------------------------------------ */

/* Drop a TP_SYMBOLS part. */
static void proc_drop(void *part)
{
	struct sy_proc *p = part;

	if (p)
		perfmap__delete(p->pmap);
	free(p);
}

/* The symbolizer's part of process tp, created empty when absent; NULL on ENOMEM. */
static struct sy_proc *proc_get(struct tproc *tp)
{
	struct sy_proc *p = tproc__part(tp, TP_SYMBOLS);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = tproc__pid(tp);
	tproc__set_part(tp, TP_SYMBOLS, p, proc_drop);
	return p;
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
		return strpool__intern(&s->strs, path, strlen(path));	/* "[vdso]", "[heap]" */
	b = b ? b + 1 : path;
	len = strlen(b);
	if (len > sizeof(deleted) - 1 &&
	    !strcmp(b + len - (sizeof(deleted) - 1), deleted))
		len -= sizeof(deleted) - 1;
	if (!len)		/* "/dir/": keep the whole path rather than "" */
		return strpool__intern(&s->strs, path, strlen(path));
	return strpool__intern(&s->strs, b, len);
}

/* -- Perf maps ------------------------------------------------------------ */

/* The number after "\nKEY:" in a /proc status text; the last of several
** (NSpid: the innermost namespace) or, with first, the first (Uid: real). */
static long status_field(const char *buf, const char *key, int first, long dflt)
{
	const char *l = strstr(buf, key);
	long last = dflt;

	if (!l)
		return dflt;
	l += strlen(key);
	while (*l && *l != '\n') {
		char *e;
		long v = strtol(l, &e, 10);

		if (e == l)
			break;
		if (v >= 0 && v <= INT32_MAX) {
			last = v;
			if (first)
				break;
		}
		l = e;
	}
	return last;
}

/* The pid inside its own PID namespace (last NSpid field) and the owner (real
** uid; -1 if unknown) of pid, from /proc/PID/status. */
static void read_status(struct sy_proc *p)
{
	char path[64], *buf = malloc(SY_STATUS_MAX + 1);
	int fd;
	ssize_t n;

	p->nspid = p->pid;
	p->uid = -1;
	if (!buf)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, SY_STATUS_MAX);
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		p->nspid = (int)status_field(buf, "\nNSpid:", 0, p->pid);
		p->uid = status_field(buf, "\nUid:", 1, -1);
	}
	free(buf);
}

/*
** A perf map names code for whoever reads it, so only its process's user (or
** root) may have written it, as perf requires: owned by them, not writable by
** group or others.
*/
static int trusted_map(const struct sy_proc *p, const struct stat *st)
{
	return (st->st_uid == 0 || (p->uid >= 0 && st->st_uid == (uid_t)p->uid)) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether two stats describe the same file with the same size and mtime. */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
** (Re)load /tmp/perf-NSPID.map from the process's root when its identity, size
** or mtime changed; checked at most every SY_REREAD_NS. A vanished or unreadable
** file keeps the old map: samples from before still need it.
*/
static void perfmap_refresh(struct symbolizer *s, struct sy_proc *p)
{
	uint64_t now = clock__mono_ns();
	struct perfmap *pm;
	struct stat st;
	char path[64];
	int fd;

	if (p->pmap_tried && now - p->pmap_ns < SY_REREAD_NS)
		return;
	p->pmap_tried = 1;
	p->pmap_ns = now;
	if (!p->nspid)
		read_status(p);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", p->nspid);
	fd = mapfile__open_at_root(root_of(s, p->pid), path);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !trusted_map(p, &st) ||
	    (p->pmap && same_file(&st, &p->pmap_st))) {
		close(fd);
		return;
	}
	fd = mapfile__reopen_regular(fd, (uint64_t)st.st_ino);
	if (fd < 0)
		return;
	pm = perfmap__read_fd(fd);
	close(fd);
	if (!pm)
		return;
	perfmap__delete(p->pmap);
	p->pmap = pm;
	p->pmap_st = st;
}

/* Anonymous executable memory, where JIT compilers put code. */
static int anon_exec(const struct procmap *m)
{
	return m->exec && (!m->path[0] || !strncmp(m->path, "[anon:", 6));
}

/* -- Demangling ----------------------------------------------------------- */

/* The memo slot of key, or the empty slot where it belongs. */
static struct sy_memo *memo_slot(struct sy_memo *tab, size_t nslots, const char *key)
{
	uintptr_t k = (uintptr_t)key;
	size_t mask = nslots - 1, i = (size_t)strpool__hash(&k, sizeof(k)) & mask;

	while (tab[i].key && tab[i].key != key)
		i = (i + 1) & mask;
	return &tab[i];
}

/* Double the memo table (or create it). */
static int memo_grow(struct symbolizer *s)
{
	size_t n = s->memo_slots ? s->memo_slots * 2 : SY_SLOTS_MIN;
	struct sy_memo *tab = calloc(n, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < s->memo_slots; i++)
		if (s->memo[i].key)
			*memo_slot(tab, n, s->memo[i].key) = s->memo[i];
	free(s->memo);
	s->memo = tab;
	s->memo_slots = n;
	return 0;
}

/*
** The demangled form of a C++ name ("_Z..."), interned and memoized by the
** mangled name's address (names never move); name itself when it is not C++,
** cannot be demangled, or libstdc++ is not available.
*/
static const char *demangled(struct symbolizer *s, const char *name)
{
	struct sy_memo *m;
	const char *v;
	char *d;

	if (s->no_demangle || name[0] != '_' || name[1] != 'Z')
		return name;
	if (!s->dm_tried) {
		s->dm_tried = 1;
		s->dm = demangler__new();
	}
	if (!s->dm || ((s->memo_used + 1) * 2 > s->memo_slots && memo_grow(s)))
		return name;
	m = memo_slot(s->memo, s->memo_slots, name);
	if (m->key)
		return m->val;
	d = demangler__demangle(s->dm, name);
	v = d ? strpool__intern(&s->strs, d, strlen(d)) : NULL;
	free(d);
	m->key = name;
	m->val = v ? v : name;
	s->memo_used++;
	return m->val;
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
		name = strpool__intern(&s->strs, buf, (size_t)n);
	out->name = name ? name : module;
	out->module = module;
	out->offset = off;
	return 1;
}

/* Drop a TF_FUNCS part. */
static void funcs_drop(void *part)
{
	uw_funcs__delete(part);
}

/* The functions of file f by FDE (its TF_FUNCS part, built on first use), or NULL. */
static struct uw_funcs *file_funcs(struct tfile *f)
{
	if (!tfile__has(f, TF_FUNCS)) {
		size_t len = 0;
		const void *img = tfile__image(f, &len);
		int fd = img ? -1 : tfile__fd(f);

		tfile__set(f, TF_FUNCS, img ? uw_funcs__from_elf_mem(img, len) :
			   fd >= 0 ? uw_funcs__from_elf_fd(fd) : NULL, funcs_drop);
	}
	return tfile__part(f, TF_FUNCS);
}

/* Code no symbol covers, at vaddr of file f: named by the function (FDE) it lies
** in, "module+0xSTART" with the offset into it, unless exact addresses are asked
** for or no FDE covers it ("module+0xVADDR"). */
static int unnamed_code(struct symbolizer *s, struct tfile *f, const char *module,
			uint64_t vaddr, struct symbol *out)
{
	struct uw_funcs *funcs = s->exact ? NULL : file_funcs(f);
	uint64_t start;

	if (!funcs || uw_funcs__start_of(funcs, vaddr, &start))
		return module_only(s, module, vaddr, out);
	module_only(s, module, start, out);
	out->offset = vaddr - start;
	return 1;
}

/* Name an address in a mapping of file f (NULL: none), given its file offset. */
static int map_lookup(struct symbolizer *s, int pid, struct tfile *f, const char *module,
		      uint64_t file_off, struct symbol *out)
{
	struct elfsyms *syms;
	uint64_t vaddr, off;
	const char *name;

	if (!f || elf_loads__vaddr(tfile__loads(f), file_off, &vaddr))
		return module_only(s, module, file_off, out);
	syms = file_syms(s, pid, f);
	name = syms ? elfsyms__lookup(syms, vaddr, &off) : NULL;
	if (!name)
		return unnamed_code(s, f, module, vaddr, out);
	out->name = demangled(s, name);
	out->module = module;
	out->offset = off;
	return 0;
}

/* Name JIT code from the process's perf map: 0, or -ENOENT when it has no entry. */
static int perfmap_lookup(struct symbolizer *s, struct sy_proc *p, uint64_t addr,
			  struct symbol *out)
{
	const char *name;
	uint64_t off;

	perfmap_refresh(s, p);
	name = perfmap__lookup(p->pmap, addr, &off);
	if (!name || !(name = strpool__intern(&s->strs, name, strlen(name))))
		return -ENOENT;		/* interned: the map may be reloaded and freed */
	out->name = demangled(s, name);
	out->module = SY_JIT;
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

void symbolizer__set_exact(struct symbolizer *s, int on)
{
	s->exact = on != 0;
}

void symbolizer__set_kallsyms(struct symbolizer *s, struct kallsyms *k)
{
	kallsyms__delete(s->ksyms);
	s->ksyms = k;
	s->ksyms_tried = 1;
}

/* Create an empty symbolizer; NULL on ENOMEM. LUATOP_DEBUG_ROOT is read here. */
struct symbolizer *symbolizer__new(struct tmodel *model)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	const char *root = secure_getenv("LUATOP_DEBUG_ROOT");

	if (s) {
		strpool__init(&s->strs, SY_SLOTS_MIN);
		s->model = model;
		if (!model) {
			s->model = tmodel__new();
			s->own_model = 1;
		}
	}
	if (!s || !s->model || strpool__grow(&s->strs) ||
	    !(s->debug_root = strdup(SY_DEBUG_ROOT))) {
		if (s) {
			strpool__free(&s->strs);
			if (s->own_model)
				tmodel__delete(s->model);
		}
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	if (root && root[0])
		symbolizer__set_debug_root(s, root);	/* an invalid value keeps the default */
	return s;
}

/* Set where separate debug files are looked up; NULL restores the default. */
int symbolizer__set_debug_root(struct symbolizer *s, const char *dir)
{
	size_t len;
	char *d;

	if (!s)
		return -EINVAL;
	if (!dir)
		dir = SY_DEBUG_ROOT;
	len = strlen(dir);
	if (dir[0] != '/' || len >= PATH_MAX / 2)
		return -EINVAL;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	d = strndup(dir, len);
	if (!d)
		return -ENOMEM;
	free(s->debug_root);
	s->debug_root = d;
	return 0;
}

/* Turn C++ demangling on (the default) or off. */
void symbolizer__set_demangle(struct symbolizer *s, int on)
{
	if (s)
		s->no_demangle = !on;
}

/* Free every process, cached file, string and kallsyms; NULL is fine. */
void symbolizer__delete(struct symbolizer *s)
{
	if (!s)
		return;
	free(s->debugged);
	if (s->own_model)
		tmodel__delete(s->model);
	strpool__free(&s->strs);
	kallsyms__delete(s->ksyms);
	demangler__delete(s->dm);
	free(s->memo);
	free(s->debug_root);
	free(s);
}

/* Name a user address of pid. */
/* The mapping m of a file-backed symbol, and the file's build ID, into out. */
static void where_mapped(struct symbolizer *s, int pid, struct tfile *f,
			 const struct procmap *m, struct symbol *out)
{
	static const char hex[] = "0123456789abcdef";
	const struct elfsyms *syms = f ? file_syms(s, pid, f) : NULL;
	const uint8_t *id;
	char text[2 * SY_BUILD_ID_MAX + 1];
	size_t len = 0, n = 0;

	id = syms ? elfsyms__build_id(syms, &len) : NULL;
	for (size_t k = 0; id && k < len && k < SY_BUILD_ID_MAX; k++) {
		text[n++] = hex[id[k] >> 4];
		text[n++] = hex[id[k] & 15];
	}
	text[n] = '\0';
	out->path = strpool__intern(&s->strs, m->path, strlen(m->path));
	out->build_id = strpool__intern(&s->strs, text, n);
	if (!out->build_id)
		out->build_id = "";
	out->map_start = m->start;
	out->map_end = m->end;
	out->map_offset = m->offset;
}

int symbolizer__user(struct symbolizer *s, int pid, uint64_t addr, struct symbol *out)
{
	const struct procmap *m;
	const char *module;
	struct tproc *tp;
	struct sy_proc *p;
	ssize_t i;
	int rc;

	if (!out)
		return -EINVAL;
	out->path = NULL;
	out->build_id = "";
	out->map_start = out->map_end = out->map_offset = 0;
	if (!s || pid <= 0 || !(tp = tmodel__proc(s->model, pid)))
		return unknown(out);
	if ((i = tproc__find(tp, addr)) < 0) {
		unknown(out);
		return -EAGAIN;		/* maybe mapped after the maps were read */
	}
	m = &tproc__maps(tp)->maps[i];
	if (anon_exec(m) && (p = proc_get(tp)) && !perfmap_lookup(s, p, addr, out))
		return 0;
	module = module_name(s, m->path);
	if (!module)
		return unknown(out);	/* anonymous: JIT code without a perf map, heap */
	rc = map_lookup(s, pid, tproc__file(tp, (size_t)i), module, addr - m->start + m->offset,
			out);
	where_mapped(s, pid, tproc__file(tp, (size_t)i), m, out);
	return rc;
}

/* Name a kernel address; kallsyms is loaded on the first call. */
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct symbol *out)
{
	const char *name, *module;
	uint64_t off;

	if (!out)
		return -EINVAL;
	out->path = NULL;
	out->build_id = "";
	out->map_start = out->map_end = out->map_offset = 0;
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

/* Drop what is known of pid: its maps and perf map when the model is the
** symbolizer's own (a shared model's owner forgets its processes). */
void symbolizer__forget(struct symbolizer *s, int pid)
{
	if (s && s->own_model)
		tmodel__forget(s->model, pid);
}
