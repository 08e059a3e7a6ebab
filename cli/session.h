/*
** A profiling session: the targets, the sampler and the collector, and the
** loop that moves samples from one to the other.
*/
#ifndef LUATOP_CLI_SESSION_H
#define LUATOP_CLI_SESSION_H

#include <signal.h>
#include <stdio.h>
#include <stdint.h>

#include "bpf/loader.h"
#include "cli/options.h"
#include "export/output.h"
#include "cli/target.h"

struct sampler;
struct collector;
struct tmodel;

#define SESSION_INGEST_NS	20	/* ingest times are counted in steps of this */
#define SESSION_INGEST_BUCKETS	5000	/* up to 100 us */

#define SESSION_SCAN_NS		1000000000ull	/* --all: look for new processes this often */
#define SESSION_RESCAN_NS	30000000000ull	/* ... and at those without LuaJIT again */

struct scan;

struct session {
	const struct options *opt;
	struct target targets[OPT_MAX_PIDS];
	unsigned ntargets;
	struct tmodel *model;		/* the traced processes and their files */
	struct sampler *sampler;
	struct sampler_korc korc;	/* the kernel walk's settings and tables (cli/kstack.h) */
	struct collector *collector;
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM */
	int alloc_failed;		/* the collector ran out of memory */
	const char *luajit;		/* LuaJIT flavour for the TUI header; NULL: unknown */
	char luajit_buf[96];		/* what luajit points to */
	char who[128];			/* the targets as the live view's header names them */
	unsigned char vm_known[OPT_MAX_PIDS];	/* the collector knows its LuaJIT build */
	unsigned char vm_noticed[OPT_MAX_PIDS];	/* the LuaJIT notice was given */
	uint64_t ingest_ns, ingested;	/* CPU time the collector took for its samples */
	uint32_t ingest_hist[SESSION_INGEST_BUCKETS];	/* ... per sample, in 20 ns steps
							   (the last: longer) */
	FILE *record;			/* --record: the samples' file; NULL: none */
	uint64_t recorded;		/* samples written to it */
	int record_failed;
	uint64_t start_ns;		/* CLOCK_MONOTONIC when sampling started */
	uint64_t start_wall_ns;		/* ... and CLOCK_REALTIME then */
	uint64_t end_ns;		/* --duration: CLOCK_MONOTONIC end of sampling; 0: none */
	uint64_t late;			/* samples taken after it, not counted */
	uint64_t pre_exec;		/* -- COMMAND: samples before its exec ended, left out */
	int draining;			/* the last drain: skip late samples, do not stop */
	struct output_file out;		/* -o, open from before sampling */
	int written;			/* ... and the profile is in it */
	int out_failed;			/* --every: a file could not be written */
	char out_name[4096];		/* --every: the current interval's file */
	uint64_t cut_start_ns;		/* CLOCK_MONOTONIC start of the interval being sampled */
	uint64_t cut_ns;		/* --every: ... and its end */
	uint64_t written_samples;	/* samples in the files written */
	unsigned files;			/* files written */
	unsigned captured;		/* fixtures written (--capture) */
	struct scan *scan;		/* --all: processes looked at */
	unsigned char gone[OPT_MAX_PIDS];	/* --all: seen exited (dropped at the next look) */
	int full_warned;		/* --all: said that the target table is full */
	int capture_failed;
};

/* CLOCK_REALTIME in ns (CLOCK_MONOTONIC, the samples' clock: base/clock.h). */
uint64_t session__wall(void);
/* Move waiting samples into the collector, waiting at most timeout_ms. */
int session__pump(struct session *s, int timeout_ms);
/* Poll each target for exit; returns the number still running. */
unsigned session__alive(struct session *s);
/* Samples dropped before reaching user space. */
uint64_t session__lost(const struct session *s);
/* Say once per target whether it runs a LuaJIT luatop can walk (stderr when
** quiet is 0); sets s->luajit for the header. final: the last chance (spawned
** commands are only known after their exec). */
void session__luajit_notice(struct session *s, int quiet, int final);
/* --all: join the LuaJIT processes that started (at most every second), drop
** the ones that exited. */
void session__follow(struct session *s);
/* "PID 1234 (luajit)" or "3 processes", for headers and messages. */
void session__describe(const struct session *s, char *out, size_t outsz);

#endif
