/*
** Command-line options of luatop.
*/
#ifndef LUATOP_CLI_OPTIONS_H
#define LUATOP_CLI_OPTIONS_H

#include <stddef.h>

#include <stdint.h>

#include "profile/calltree.h"
#include "profile/event.h"

#define OPT_MAX_PIDS	64
#define OPT_DEFAULT_HZ	99
#define OPT_MAX_HZ	10000
#define OPT_DEFAULT_MIN_BLOCK_NS 1000000ull	/* --min-block: 1 ms */

enum out_format {
	FORMAT_FOLDED,		/* folded stacks (text) */
	FORMAT_PPROF,		/* gzip'd profile.proto */
};

struct options {
	int pids[OPT_MAX_PIDS];	/* -p */
	unsigned npids;
	char **cmd;		/* -- CMD ARGS..., NULL-terminated; NULL if none */
	int all;		/* --all: every LuaJIT process of the host */
	int children;		/* --children: -p's descendants too, also later ones */
	int tids[OPT_MAX_PIDS];	/* --tid: only these threads */
	unsigned ntids;
	unsigned freq;		/* -F, samples per second */
	enum prof_event event;	/* -e: what is profiled (shown first in the live view) */
	uint64_t min_block_ns;	/* --min-block: shorter blocks are not walked */
	int min_block_set;	/* --min-block was given */
	const char *output;	/* -o FILE, "-" for stdout; NULL: the TUI */
	enum out_format format;	/* --format, or from -o's name */
	int format_set;		/* --format was given */
	double duration;	/* --duration SECONDS; 0: until the targets exit or SIGINT */
	double every;		/* --every SECONDS: a profile per interval; 0: one */
	double delay;		/* -d SECONDS between TUI refreshes */
	int raw;		/* --raw: do not merge Lua and native stacks */
	int lines;		/* --lines: Lua frames per line, not per function */
	int mark_fallback;	/* --mark-fallback: root fallback stacks at "[fallback]" */
	const char *input;	/* -i FILE: show a folded file in the live view */
	const char *diff;	/* --diff FILE: with -i, show the change against FILE */
	enum ct_window window;	/* -w: the window shown first */
	unsigned span;		/* -w last:N: sliding window, seconds (default 10) */
	double half_life;	/* -w decay:N: half-life, seconds (default 10) */
	const char *capture;	/* --capture DIR: write unwind fixtures there */
	const char *record;	/* --record FILE: write every sample there */
	int verbose;		/* -v */
	int help;		/* -h */
	int version;		/* -V */
};

/* Parse argv. Returns 0, or -EINVAL with one line in err (a usage error). */
int options__parse(int argc, char **argv, struct options *o, char *err, size_t errlen);
/* The format a file name asks for ("x.pb.gz": pprof, "x.folded" or no
** extension: folded), or -1 for an extension luatop does not write. */
int options__format_of(const char *path);
/* The --help text. */
const char *options__usage(void);

#endif
