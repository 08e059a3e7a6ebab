/*
** libFuzzer entry point for the way to a separate debug file: the build-id note
** and .gnu_debuglink of an ELF (symbolize/elfsyms.c) and the paths the symbolizer
** makes of them (symbolize/symbolizer.c: debug_by_id, debug_by_link, debug_try,
** all static), driven through the public entry point symbolizer__user.
**
**   make fuzz-run-debuglink FUZZ_SECONDS=60
**   make .output/fuzz/fuzz_debuglink && .output/fuzz/fuzz_debuglink tests/fuzz/corpus/debuglink
**
** The build links it with -Wl,--wrap (FUZZ_LDFLAGS_debuglink in the Makefile) so
** that this file stands in for the process: readfile__all of /proc/<own pid>/maps
** returns one mapping of the fuzzed file, mapfile__open_path/mapfile__open return
** a memfd holding it, and mapfile__open_at_root (inside the root directory the
** target model holds), where every debug file path ends up, checks the path and
** serves the fuzzed debug file (or nothing).
**
** Input: flags (1 byte), file offset to look up (2 bytes, LE), length of the
** runtime file (4 bytes, LE; 0: all the rest), the mapped path (up to a NUL), the
** runtime file, then the debug file (what is left, if anything).
**   flags bits 0-1: debug root (0 the default /usr/lib/debug, 1 "/", 2 "/srv/dbg//",
**   3 "/d"); bit 2: serve the debug file only at .gnu_debuglink paths, not by
**   build-id; bit 3: exact addresses (no FDE function index).
** The path is made canonical the way the kernel prints it: absolute, no empty,
** "." or ".." components, no newline ("/usr/bin/x (deleted)" can occur).
**
** Checked for every path handed to mapfile__open_at_root: NUL-terminated within
** PATH_MAX, absolute, no "." or ".." component, and one of the five places of
** symbolizer.h: ROOT/.build-id/xx/rest.debug of the file's own build-id, or
** ROOT/DIR/NAME, DIR/NAME, DIR/.debug/NAME, ROOT/NAME with NAME its
** .gnu_debuglink (a bare name) and DIR the mapped file's directory; at most
** PATHS_MAX of them per file. And symbolizer__user answers as symbolizer.h says.
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create: the build passes it, a bare clang does not */
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "proc/mapfile.h"
#include "proc/readfile.h"
#include "symbolize/elfsyms.h"
#include "symbolize/symbolizer.h"

#define MAP_START	UINT64_C(0x400000)
#define PATHS_MAX	16	/* paths remembered per input (5 expected) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __wrap_readfile__all(const char *path, size_t max, char **buf, size_t *len);
int __real_readfile__all(const char *path, size_t max, char **buf, size_t *len);
int __wrap_mapfile__open_path(int pid, const struct procmap *m);
int __real_mapfile__open_path(int pid, const struct procmap *m);
int __wrap_mapfile__open(int pid, const struct procmap *m);
int __real_mapfile__open(int pid, const struct procmap *m);
int __wrap_mapfile__open_at_root(int root, const char *path);
int __real_mapfile__open_at_root(int root, const char *path);

/* What the current input stands for. */
static struct {
	int pid;
	char maps[PROCMAP_PATH_MAX + 128];	/* /proc/PID/maps */
	size_t maps_len;
	char bin[PROCMAP_PATH_MAX];	/* the mapped path */
	const char *root;	/* the debug root as the symbolizer keeps it */
	int rt_fd, dbg_fd;	/* memfds: the runtime file, the debug file (-1: none) */
	int link_only;		/* serve the debug file at .gnu_debuglink paths only */
	char want_id[PATH_MAX];	/* the build-id path, "" if the file has none usable */
	char link[ELFSYMS_DEBUGLINK_MAX];	/* its .gnu_debuglink name, "" if none */
	char *seen[PATHS_MAX];
	size_t nseen;
	int must_ask;		/* no .symtab, a build-id: its debug file is looked for */
} cur = { .rt_fd = -1, .dbg_fd = -1 };

/* A memfd holding n bytes of p, or -1. */
static int memfd_of(const char *name, const uint8_t *p, size_t n)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		abort();
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
	return fd;
}

/* /proc/<own pid>/maps is the input's one mapping; other files are read. */
int __wrap_readfile__all(const char *path, size_t max, char **buf, size_t *len)
{
	char mine[64];

	snprintf(mine, sizeof(mine), "/proc/%d/maps", cur.pid);
	if (strcmp(path, mine))
		return __real_readfile__all(path, max, buf, len);
	*buf = malloc(cur.maps_len);
	if (!*buf)
		return -ENOMEM;
	memcpy(*buf, cur.maps, cur.maps_len);
	*len = cur.maps_len;
	return 0;
}

/* Our mapping is the runtime memfd (regular, readable: it does for an O_PATH fd). */
int __wrap_mapfile__open_path(int pid, const struct procmap *m)
{
	if (pid != cur.pid || m->start != MAP_START)
		return __real_mapfile__open_path(pid, m);
	return fcntl(cur.rt_fd, F_DUPFD_CLOEXEC, 0);
}

int __wrap_mapfile__open(int pid, const struct procmap *m)
{
	if (pid != cur.pid || m->start != MAP_START)
		return __real_mapfile__open(pid, m);
	return fcntl(cur.rt_fd, F_DUPFD_CLOEXEC, 0);
}

/* Does s start with the n bytes of pre? */
static int starts(const char *s, const char *pre, size_t n)
{
	return !strncmp(s, pre, n);
}

/* Is path exactly a + b + c + d? */
static int is_cat(const char *path, const char *a, const char *b, size_t blen, const char *c,
		  const char *d)
{
	size_t la = strlen(a), lc = strlen(c);

	return starts(path, a, la) && starts(path + la, b, blen) &&
	       starts(path + la + blen, c, lc) && !strcmp(path + la + blen + lc, d);
}

/* abort() unless path is one the symbolizer may look a debug file up at. */
static void check_path(const char *path)
{
	const char *slash = strrchr(cur.bin, '/');
	size_t dlen = slash ? (size_t)(slash - cur.bin) : 0;
	char name[ELFSYMS_DEBUGLINK_MAX + 1];

	if (strnlen(path, PATH_MAX) >= PATH_MAX || path[0] != '/')
		abort();
	for (const char *c = path; c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");

		if ((n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			abort();	/* climbs, or stays, outside the directories named */
	}
	if (cur.want_id[0] && !strcmp(path, cur.want_id))
		return;
	if (!cur.link[0] || !slash)
		abort();	/* nothing else leads to a debug file */
	snprintf(name, sizeof(name), "/%s", cur.link);
	if (is_cat(path, cur.root, cur.bin, dlen, "", name) ||
	    is_cat(path, "", cur.bin, dlen, "", name) ||
	    is_cat(path, "", cur.bin, dlen, "/.debug", name) ||
	    is_cat(path, cur.root, "", 0, "", name))
		return;
	abort();
}

/* Every debug file path comes here: check it, remember it, serve the debug file. */
int __wrap_mapfile__open_at_root(int root, const char *path)
{
	if (starts(path, "/tmp/perf-", 10))	/* the process is this one: only its files */
		return __real_mapfile__open_at_root(root, path);
	check_path(path);
	if (cur.nseen == PATHS_MAX || !(cur.seen[cur.nseen++] = strdup(path)))
		abort();
	if (cur.dbg_fd < 0 || (cur.link_only && cur.want_id[0] && !strcmp(path, cur.want_id))) {
		errno = ENOENT;
		return -1;
	}
	return fcntl(cur.dbg_fd, F_DUPFD_CLOEXEC, 0);
}

/* The mapped path, canonical as the kernel prints it, from n bytes of p. */
static void make_bin(const char *p, size_t n)
{
	size_t o = 0;

	while (n && o + 2 < sizeof(cur.bin)) {
		size_t c = 0;

		while (c < n && p[c] == '/')
			c++;
		p += c;
		n -= c;
		for (c = 0; c < n && p[c] != '/'; c++)
			;
		if (c && !(c == 1 && p[0] == '.') && !(c == 2 && p[0] == '.' && p[1] == '.')) {
			cur.bin[o++] = '/';
			for (size_t i = 0; i < c && o + 1 < sizeof(cur.bin); i++)
				cur.bin[o++] = p[i] == '\n' ? '?' : p[i];
		}
		p += c;
		n -= c;
	}
	if (!o)
		memcpy(cur.bin, "/x", 3);
	else
		cur.bin[o] = '\0';
}

/* What the file's own build-id and .gnu_debuglink lead to (elfsyms.c is fuzzed too). */
static void expect(const uint8_t *rt, size_t len)
{
	struct elfsyms *es = elfsyms__load_mem(rt, len);
	const uint8_t *id;
	const char *link;
	size_t n = 0, o;

	cur.want_id[0] = cur.link[0] = '\0';
	cur.must_ask = 0;
	if (!es)
		return;
	id = elfsyms__build_id(es, &n);
	if (id && (!n || n > ELFSYMS_BUILD_ID_MAX))
		abort();
	if (id && n >= 2) {
		o = (size_t)snprintf(cur.want_id, sizeof(cur.want_id), "%s/.build-id/%02x/",
				     cur.root, id[0]);
		for (size_t i = 1; i < n; i++)
			o += (size_t)snprintf(cur.want_id + o, sizeof(cur.want_id) - o, "%02x",
					      id[i]);
		snprintf(cur.want_id + o, sizeof(cur.want_id) - o, ".debug");
	}
	cur.must_ask = cur.want_id[0] && !elfsyms__has_symtab(es);
	link = elfsyms__debuglink(es, NULL);
	if (link) {
		if (!link[0] || strlen(link) >= ELFSYMS_DEBUGLINK_MAX || strchr(link, '/') ||
		    !strcmp(link, ".") || !strcmp(link, ".."))
			abort();
		snprintf(cur.link, sizeof(cur.link), "%s", link);
	}
	elfsyms__delete(es);
}

/* abort() unless a lookup's answer is what symbolizer.h describes. */
static void check_symbol(int ret, const struct symbol *sym)
{
	if (ret != 0 && ret != 1 && ret != -ENOENT && ret != -EAGAIN)
		abort();
	if (!sym->name || (ret >= 0 && !sym->module))
		abort();
	if (ret < 0 && strcmp(sym->name, "[unknown]"))
		abort();
}

/* Split the input, stand in for the process, look two addresses up. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const roots[] = { "/usr/lib/debug", "/", "/srv/dbg//", "/d" };
	static const char *const kept[] = { "/usr/lib/debug", "/", "/srv/dbg", "/d" };
	const uint8_t *p = data + 7, *end = data + size, *nul;
	size_t rt_len, plen;
	struct symbolizer *s;
	struct symbol sym;
	uint32_t split;
	uint16_t off;
	uint8_t flags;

	if (size < 8)
		return 0;
	flags = data[0];
	memcpy(&off, data + 1, 2);
	memcpy(&split, data + 3, 4);
	nul = memchr(p, 0, (size_t)(end - p));
	plen = nul ? (size_t)(nul - p) : (size_t)(end - p);
	make_bin((const char *)p, plen);
	p += plen + (nul != NULL);
	rt_len = split && split < (size_t)(end - p) ? split : (size_t)(end - p);
	cur.pid = getpid();
	cur.root = kept[flags & 3];
	cur.link_only = !!(flags & 4);
	cur.maps_len = (size_t)snprintf(cur.maps, sizeof(cur.maps),
					"%" PRIx64 "-%" PRIx64 " r-xp 00000000 fd:01 4242   %s\n",
					MAP_START, MAP_START + 0x10000 + rt_len, cur.bin);
	if (cur.maps_len >= sizeof(cur.maps))
		abort();
	expect(p, rt_len);
	cur.rt_fd = memfd_of("rt", p, rt_len);
	cur.dbg_fd = rt_len < (size_t)(end - p) ? memfd_of("dbg", p + rt_len,
							   (size_t)(end - p) - rt_len) : -1;
	s = symbolizer__new(NULL);
	if (!s)
		abort();
	symbolizer__set_demangle(s, 0);
	symbolizer__set_exact(s, !!(flags & 8));
	if (symbolizer__set_debug_root(s, roots[flags & 3]))
		abort();
	check_symbol(symbolizer__user(s, cur.pid, MAP_START, &sym), &sym);
	check_symbol(symbolizer__user(s, cur.pid, MAP_START + off, &sym), &sym);
	/* The harness sees the lookups (a renamed opener once left it blind). */
	if (cur.must_ask && !cur.nseen)
		abort();
	symbolizer__delete(s);
	close(cur.rt_fd);
	if (cur.dbg_fd >= 0)
		close(cur.dbg_fd);
	cur.rt_fd = cur.dbg_fd = -1;
	for (size_t i = 0; i < cur.nseen; i++)
		free(cur.seen[i]);
	cur.nseen = 0;
	return 0;
}
