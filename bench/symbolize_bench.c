/*
** Symbolization benchmark: cold loads and warm lookups in big libraries mapped
** by this very process (libluajit, the biggest library mapped, libc with its
** debug file when libc6-dbg is installed). Built and run by bench/symbolize.sh.
*/
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "symbolize/elfsyms.h"
#include "proc/procmaps.h"
#include "symbolize/symbolizer.h"

#define COLD_RUNS	15
#define WARM_LOOKUPS	2000000
#define HOT_PCS		4096

static const char *const dl_libs[] = {
	"/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
};

/* Nanoseconds on CLOCK_MONOTONIC. */
static double now_ns(void)
{
	return (double)clock__mono_ns();
}

/* xorshift64. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* qsort order for doubles. */
static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n samples (sorts them). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[n / 2];
}

/* The executable ranges of path in this process (up to 8). */
static size_t exec_ranges(const struct procmaps *pm, const char *path, uint64_t *lo,
			  uint64_t *hi)
{
	size_t n = 0;

	for (size_t i = 0; i < pm->n && n < 8; i++)
		if (pm->maps[i].exec && !strcmp(pm->maps[i].path, path)) {
			lo[n] = pm->maps[i].start;
			hi[n++] = pm->maps[i].end;
		}
	return n;
}

/* The separate debug file of path by build-id under /usr/lib/debug, if readable. */
static int debug_path(const char *path, char *out, size_t len)
{
	struct elfsyms *es = elfsyms__load_path(path);
	const uint8_t *id;
	char hex[2 * ELFSYMS_BUILD_ID_MAX + 1];
	size_t n = 0;

	id = elfsyms__build_id(es, &n);
	if (!id || n < 2) {
		elfsyms__delete(es);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	elfsyms__delete(es);
	snprintf(out, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return !access(out, R_OK);
}

/* Cold and warm figures for one library. */
static void bench_lib(const struct procmaps *pm, const char *path)
{
	uint64_t lo[8], hi[8], span = 0, seed = 0x9e3779b97f4a7c15ull, *hot;
	double t[COLD_RUNS], t0, load_ms, dbg_ms = 0, first_ms, warm_ns, hot_ns, raw_ns;
	size_t nr = exec_ranges(pm, path, lo, hi), count = 0, dcount = 0;
	char dpath[256];
	int has_dbg = debug_path(path, dpath, sizeof(dpath)), hits = 0, pid = getpid();
	struct symbolizer *s;
	struct symbol sym;
	struct stat st;

	if (!nr || stat(path, &st)) {
		printf("%s: not mapped\n", path);
		return;
	}
	for (size_t i = 0; i < nr; i++)
		span += hi[i] - lo[i];

	/* Cold: load the runtime file's symbols (page cache warm, luatop's cache cold). */
	for (int r = 0; r < COLD_RUNS; r++) {
		struct elfsyms *es;

		t0 = now_ns();
		es = elfsyms__load_path(path);
		t[r] = now_ns() - t0;
		count = elfsyms__count(es);
		elfsyms__delete(es);
	}
	load_ms = median(t, COLD_RUNS) / 1e6;
	if (has_dbg) {
		for (int r = 0; r < COLD_RUNS; r++) {
			struct elfsyms *es, *d;

			t0 = now_ns();
			d = elfsyms__load_path(dpath);
			es = elfsyms__load_path(path);
			elfsyms__merge(es, d);
			t[r] = now_ns() - t0;
			dcount = elfsyms__count(es);
			elfsyms__delete(es);
			elfsyms__delete(d);
		}
		dbg_ms = median(t, COLD_RUNS) / 1e6;
	}
	/* Cold: a fresh symbolizer's first lookup (maps, load, debug search, merge). */
	for (int r = 0; r < COLD_RUNS; r++) {
		s = symbolizer__new(NULL);
		t0 = now_ns();
		symbolizer__user(s, pid, lo[0] + 16, &sym);
		t[r] = now_ns() - t0;
		symbolizer__delete(s);
	}
	first_ms = median(t, COLD_RUNS) / 1e6;

	/* Warm: uniformly random addresses in the library's code. */
	s = symbolizer__new(NULL);
	symbolizer__user(s, pid, lo[0] + 16, &sym);
	t0 = now_ns();
	for (int i = 0; i < WARM_LOOKUPS; i++) {
		uint64_t off = rnd(&seed) % span, a = 0;

		for (size_t k = 0; k < nr; k++) {
			if (off < hi[k] - lo[k]) {
				a = lo[k] + off;
				break;
			}
			off -= hi[k] - lo[k];
		}
		hits += symbolizer__user(s, pid, a, &sym) == 0;
	}
	warm_ns = (now_ns() - t0) / WARM_LOOKUPS;

	/* Hot: the same few thousand PCs again and again, as a live view sees them. */
	hot = malloc(HOT_PCS * sizeof(*hot));
	if (!hot)
		exit(1);
	for (int i = 0; i < HOT_PCS; i++)
		hot[i] = lo[0] + rnd(&seed) % (hi[0] - lo[0]);
	for (int i = 0; i < HOT_PCS; i++)
		symbolizer__user(s, pid, hot[i], &sym);
	t0 = now_ns();
	for (int i = 0; i < WARM_LOOKUPS; i++)
		symbolizer__user(s, pid, hot[rnd(&seed) % HOT_PCS], &sym);
	hot_ns = (now_ns() - t0) / WARM_LOOKUPS;
	symbolizer__delete(s);

	/* Raw table lookups, no maps or string interning. */
	{
		struct elfsyms *es = elfsyms__load_path(path);
		volatile uintptr_t sink = 0;

		t0 = now_ns();
		for (int i = 0; i < WARM_LOOKUPS; i++) {
			uint64_t v = rnd(&seed) % (uint64_t)st.st_size;

			sink += (uintptr_t)elfsyms__lookup(es, v, NULL);
		}
		raw_ns = (now_ns() - t0) / WARM_LOOKUPS;
		(void)sink;
		elfsyms__delete(es);
	}
	free(hot);

	printf("%s (%.1f MB, %zu KB code, %zu functions)\n", path, st.st_size / 1e6,
	       (size_t)(span >> 10), count);
	printf("  cold load (elfsyms__load_path)         %8.2f ms\n", load_ms);
	if (has_dbg)
		printf("  cold load + debug file + merge         %8.2f ms  (%zu functions, %s)\n",
		       dbg_ms, dcount, dpath);
	printf("  cold first symbolizer__user            %8.2f ms\n", first_ms);
	printf("  warm random addresses                  %8.0f ns  %6.2f M/s  (%.0f%% named)\n",
	       warm_ns, 1e3 / warm_ns, 100.0 * hits / WARM_LOOKUPS);
	printf("  warm %d hot PCs                      %8.0f ns  %6.2f M/s\n", HOT_PCS, hot_ns,
	       1e3 / hot_ns);
	printf("  elfsyms__lookup alone                  %8.0f ns  %6.2f M/s\n", raw_ns,
	       1e3 / raw_ns);
}

/* Map the libraries, then bench libluajit, the biggest mapped library, and libc. */
int main(void)
{
	const char *biggest = NULL, *luajit = NULL, *libc = NULL;
	off_t best = 0;
	struct procmaps pm;

	for (size_t i = 0; i < sizeof(dl_libs) / sizeof(dl_libs[0]); i++)
		if (!dlopen(dl_libs[i], RTLD_LAZY | RTLD_LOCAL))
			fprintf(stderr, "note: %s\n", dlerror());
	if (procmaps__read(getpid(), &pm)) {
		fprintf(stderr, "failed to read maps: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < pm.n; i++) {
		const char *p = pm.maps[i].path;
		struct stat st;

		if (!pm.maps[i].exec || p[0] != '/' || !strstr(p, ".so") || stat(p, &st))
			continue;
		if (st.st_size > best) {
			best = st.st_size;
			biggest = p;
		}
		if (strstr(p, "libluajit"))
			luajit = p;
		if (strstr(p, "/libc.so"))
			libc = p;
	}
	if (luajit)
		bench_lib(&pm, luajit);
	if (biggest && biggest != luajit)
		bench_lib(&pm, biggest);
	if (libc && libc != biggest)
		bench_lib(&pm, libc);
	procmaps__free(&pm);
	return 0;
}
