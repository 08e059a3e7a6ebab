/*
** pprof export: a gzip'd profile.proto (github.com/google/pprof, proto/profile.proto),
** encoded by hand, for go tool pprof, Grafana Pyroscope and Parca.
**
** One location and one function per frame of the profile (the model keeps
** names, not addresses): a function's name is the frame's name, its file the
** frame's module (a Lua frame's chunk); a Lua name "f (chunk:N)" gives the
** function "f" in file "chunk" with start line N and a location at line N.
** Native frames of one mapped file share its mapping (path, address range,
** file offset, build ID; see pprof_meta.site), and a location there has the
** frame's address; without a site, a mapping named after the module. Kernel
** frames have the mapping "[kernel.kallsyms]".
*/
#ifndef LUATOP_EXPORT_PPROF_H
#define LUATOP_EXPORT_PPROF_H

#include <stdint.h>
#include <stdio.h>

#include "profile/event.h"
#include "profile/frames.h"
#include "profile/stacks.h"

/* A sample label: key = str, or key = num when str is NULL. */
struct pprof_label {
	const char *key;
	const char *str;
	int64_t num;
};
#define PPROF_LABELS_MAX	8

/* The labels of label set id into out (at most PPROF_LABELS_MAX): how many. */
typedef unsigned (*pprof_labels_fn)(uint32_t id, struct pprof_label *out, void *ctx);

/* Where a native frame's code is mapped (a mapping and an address for it). */
struct pprof_site {
	const char *path, *build_id;	/* build_id in hex, "" or NULL if none */
	uint64_t start, limit, offset;	/* the mapping */
	uint64_t addr;			/* the frame's address */
};
/* The site of frame id into out: 1, or 0 when it has none. */
typedef int (*pprof_site_fn)(uint32_t frame, struct pprof_site *out, void *ctx);

struct pprof_meta {
	unsigned freq;		/* sampling rate in Hz: period 1e9/freq ns */
	enum prof_event event;	/* EV_CPU: counts are samples; else microseconds */
	uint64_t time_ns;	/* wall-clock start of the profile, ns since the epoch */
	uint64_t duration_ns;	/* how long it was sampled */
	/* When set, every stack begins with a label set id (not a frame): its
	** labels go on the sample. */
	pprof_labels_fn labels;
	void *labels_ctx;
	/* When set: native frames with a site get its mapping (path, range,
	** build ID) and their address; the others a mapping named after their
	** module. */
	pprof_site_fn site;
	void *site_ctx;
};

/*
** Write the stacks as a gzip'd Profile with sample types samples/count and
** cpu/nanoseconds (period type cpu/nanoseconds); for EV_OFFCPU and EV_WALL
** the one sample type off-cpu/nanoseconds or wall/nanoseconds (counts in us). Empty stacks are skipped, as
** in the folded export; values are int64, so counts (and nanoseconds) above
** 2^63-1 are written as 2^63-1. Returns 0 or -errno (ENOMEM, write errors).
*/
int pprof__write(FILE *f, const struct frametab *ft, const struct stacktab *st,
		 const struct pprof_meta *meta);

/*
** Read a pprof profile (gzip'd or not) into ft/st, as folded__read does for
** folded files: a stack per sample, root first, each line of a location a
** frame (inlined ones included) named by its function's system_name (its
** name when that is empty) read as a folded name ("_[k]": kernel), the
** count being the value of the "samples" sample type (else off-cpu or wall
** nanoseconds, read as microseconds; else the first).
** Nothing in the file is trusted: lengths, indices and ids are checked, and
** a profile that inflates past PPROF_RAW_MAX is refused. Returns 0, -EINVAL
** with the reason in err, -ENOMEM or -errno of a read.
*/
#define PPROF_RAW_MAX	(256u << 20)	/* bytes of an encoded (inflated) profile */
int pprof__read(FILE *f, struct frametab *ft, struct stacktab *st, char *err, size_t errlen);
/* The same from len bytes at buf. */
int pprof__read_mem(const void *buf, size_t len, struct frametab *ft, struct stacktab *st,
		    char *err, size_t errlen);
/* Do these first bytes look like a pprof file (gzip'd: what pprof writes)? */
int pprof__sniff(const void *buf, size_t len);

#endif
