/*
** --all: the processes of this host that run LuaJIT, found by the VM in one of
** their executable mappings (lua/detect.c, once per file identity); --children:
** the descendants of the targets.
*/
#ifndef LUATOP_CLI_SCAN_H
#define LUATOP_CLI_SCAN_H

#include <stdint.h>
#include <sys/types.h>

struct tmodel;

#define SCAN_MAX	4096	/* processes remembered as not running LuaJIT */

struct scan {
	struct { pid_t pid; uint64_t start; } seen[SCAN_MAX];	/* not LuaJIT, by
					   start time (a reused PID is looked at anew) */
	unsigned nseen;
	uint64_t next_ns;		/* CLOCK_MONOTONIC time of the next scan */
	uint64_t forget_ns;		/* ... and of forgetting seen[] */
};

/*
** Look at every process not looked at before (nor in skip[0..nskip)): call
** found(pid, ctx) for each that maps a LuaJIT VM. Processes without one are
** remembered (and forgotten by model) so that the next scan skips them.
*/
void scan__luajit(struct scan *sc, struct tmodel *model, const pid_t *skip, unsigned nskip,
		  void (*found)(pid_t pid, void *ctx), void *ctx);
/*
** --children: call found(pid, ctx) for each process not looked at before (nor
** in skip[]) that descends from one of roots[0..nroots): children, and their
** children, forked before or since.
*/
void scan__children(struct scan *sc, const int *roots, unsigned nroots, const pid_t *skip,
		    unsigned nskip, void (*found)(pid_t pid, void *ctx), void *ctx);

#endif
