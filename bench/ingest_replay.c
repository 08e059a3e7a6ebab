/*
** Ingest replayed: the samples of a --record file through the collector
** (symbols, Lua names, JIT-trace snapshots, merge, both call trees) again and
** again, with the recorded processes still running (their memory is read as in
** a live run). Each pass starts with a new epoch, as each drain of the ring
** buffer does; the first pass of each collector is cold, the rest are warm.
**
**   ingest_replay FILE [PASSES] [RULE[:OUTPUTS]...]
**
** RULE: path region next split off (the JIT-trace snapshot rule); OUTPUTS: what
** the collector builds: all (both views' stacks and trees, the default), live
** (both views' trees: the live view) or batch (one view's stacks: -o).
** Prints per configuration: cold and warm ns per sample (warm: median of the
** passes) and warm samples per second. Configurations alternate pass by pass,
** so that drift on a busy machine hits all of them alike.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "collect/collect.h"
#include "lua/detect.h"
#include "lua/trace.h"
#include "proc/model.h"
#include "wire/pack.h"
#include "wire/record.h"

#define MAX_RULES	LUATRACE_RULE__COUNT
#define MAX_PASSES	64

struct recording {
	struct lt_sample *s;
	size_t n;
};

static int load(const char *path, struct recording *r)
{
	struct lt_record_hdr h;
	FILE *f = fopen(path, "re");
	static __u8 rec[sizeof(struct lt_sample)];
	size_t cap = 0;
	__u32 len;

	if (!f || fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, LT_RECORD_MAGIC, 8) ||
	    h.wire != LT_WIRE_SAMPLE || h.sample_size != sizeof(struct lt_sample)) {
		fprintf(stderr, "ingest_replay: %s: not a recording of this build\n", path);
		return -1;
	}
	while (fread(&len, sizeof(len), 1, f) == 1) {
		if (len > sizeof(rec) || fread(rec, len, 1, f) != 1)
			break;
		if (r->n == cap) {
			cap = cap ? 2 * cap : 4096;
			r->s = realloc(r->s, cap * sizeof(*r->s));
			if (!r->s)
				return -1;
		}
		memset(&r->s[r->n], 0, sizeof(r->s[0]));
		if (lt_sample_unpack(&r->s[r->n], rec, len))
			break;
		r->n++;
	}
	fclose(f);
	return r->n ? 0 : -1;
}

/* Tell the collector the LuaJIT build of each recorded process, as a live run does. */
static void set_builds(struct collector *c, struct tmodel *m, const struct recording *r)
{
	int done[64], ndone = 0;

	for (size_t i = 0; i < r->n && ndone < 64; i++) {
		int pid = (int)r->s[i].tgid, seen = 0;
		struct tproc *p;

		for (int k = 0; k < ndone; k++)
			seen |= done[k] == pid;
		if (seen)
			continue;
		done[ndone++] = pid;
		if (!(p = tmodel__proc(m, pid)) || tproc__refresh(p, 0) < 0)
			continue;
		for (size_t k = 0; k < tproc__maps(p)->n; k++) {
			struct tfile *f = tproc__file(p, k);
			const struct luabuild *b = f ? luabuild__of_file(f) : NULL;

			if (b && b->found && b->supported) {
				collector__set_luajit(c, pid, b);
				break;
			}
		}
	}
}

/* One pass over the recording: ns per sample. */
static double pass(struct collector *c, const struct recording *r)
{
	uint64_t t0;

	collector__epoch(c, clock__mono_ns() + 1);
	t0 = clock__mono_ns();
	for (size_t i = 0; i < r->n; i++)
		if (collector__add(c, &r->s[i])) {
			fprintf(stderr, "ingest_replay: out of memory\n");
			exit(1);
		}
	return (double)(clock__mono_ns() - t0) / (double)r->n;
}

static const char *const output_names[] = { "all", "live", "batch" };

/* Set what c builds per output name; -1 for an unknown one. */
static int set_outputs(struct collector *c, const char *name)
{
	const unsigned both = 1u << COLLECT_MERGED | 1u << COLLECT_RAW;

	if (!strcmp(name, "all"))
		collector__set_outputs(c, both, 1, 1);
	else if (!strcmp(name, "live"))
		collector__set_outputs(c, both, 0, 1);
	else if (!strcmp(name, "batch"))
		collector__set_outputs(c, 1u << COLLECT_MERGED, 1, 0);
	else
		return -1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct recording rec = { 0 };
	struct collector *c[MAX_RULES];
	struct tmodel *m[MAX_RULES];
	double cold[MAX_RULES], warm[MAX_RULES][MAX_PASSES];
	int rule[MAX_RULES], nrules = 0, passes;
	const char *outputs[MAX_RULES];
	char label[MAX_RULES][32];

	if (argc < 2) {
		fprintf(stderr, "usage: ingest_replay FILE [PASSES] [RULE...]\n");
		return 2;
	}
	passes = argc > 2 ? atoi(argv[2]) : 9;
	if (passes < 1 || passes > MAX_PASSES)
		passes = 9;
	for (int i = 3; i < argc && nrules < MAX_RULES; i++) {
		char name[32], *colon;

		snprintf(name, sizeof(name), "%s", argv[i]);
		colon = strchr(name, ':');
		outputs[nrules] = colon ? argv[i] + (colon - name) + 1 : output_names[0];
		if (colon)
			*colon = 0;
		if ((rule[nrules] = luatrace__rule_of(name)) < 0) {
			fprintf(stderr, "ingest_replay: %s: no such rule\n", argv[i]);
			return 2;
		}
		snprintf(label[nrules], sizeof(label[0]), "%s", argv[i]);
		nrules++;
	}
	if (!nrules) {
		rule[nrules] = LUATRACE_RULE_OFF;
		outputs[nrules] = output_names[0];
		snprintf(label[nrules++], sizeof(label[0]), "off");
		rule[nrules] = LUATRACE_RULE_PATH;
		outputs[nrules] = output_names[0];
		snprintf(label[nrules++], sizeof(label[0]), "path");
	}
	if (load(argv[1], &rec))
		return 1;
	for (int k = 0; k < nrules; k++) {
		m[k] = tmodel__new();
		c[k] = m[k] ? collector__new(m[k]) : NULL;
		if (!c[k])
			return 1;
		collector__set_trace_rule(c[k], (enum luatrace_rule)rule[k]);
		if (set_outputs(c[k], outputs[k])) {
			fprintf(stderr, "ingest_replay: %s: outputs are all, live or batch\n",
				label[k]);
			return 2;
		}
		set_builds(c[k], m[k], &rec);
	}
	for (int k = 0; k < nrules; k++)
		cold[k] = pass(c[k], &rec);
	for (int p = 0; p < passes; p++)
		for (int k = 0; k < nrules; k++)
			warm[k][p] = pass(c[k], &rec);
	printf("%zu samples, %d warm passes per rule\n", rec.n, passes);
	for (int k = 0; k < nrules; k++) {
		const struct collector_stats *st = collector__stats(c[k]);
		double med;

		qsort(warm[k], (size_t)passes, sizeof(double), cmp_double);
		med = warm[k][passes / 2];
		printf("%-11s cold %8.0f ns  warm %7.0f ns (%.0f..%.0f)  %9.0f samples/s  "
		       "traces mapped %.1f%%\n", label[k], cold[k], med, warm[k][0],
		       warm[k][passes - 1], 1e9 / med,
		       st->trace_samples ? 100.0 * st->trace_mapped / st->trace_samples : 0.0);
		for (int w = 0; w < LUATRACE_WHY__COUNT; w++)
			if (st->trace_why[w])
				printf("        %.2f%% %s\n", 100.0 * st->trace_why[w] / st->trace_samples,
				       luatrace__why_text(w));
		if (st->trace_left)
			printf("        and %llu samples as a trace left for the interpreter\n",
			       (unsigned long long)st->trace_left);
	}
	for (int k = 0; k < nrules; k++) {
		collector__delete(c[k]);
		tmodel__delete(m[k]);
	}
	free(rec.s);
	return 0;
}
