/*
** Unwind tables of the target processes, kept in the sampler's BPF maps:
** each executable file's .eh_frame compiled once (cached by identity), its
** rows appended to one shared rows array, its rules deduplicated; each process
** gets a sorted list of its executable mappings with their load bias.
*/
#ifndef LUATOP_BPF_TABLES_H
#define LUATOP_BPF_TABLES_H

#include <stdint.h>

struct tables;

/* File descriptors and sizes of the sampler's unwind maps. */
struct tables_maps {
	int targets_fd;		/* tgid -> struct lt_uw_target */
	int procs_fd;		/* slot -> struct lt_uw_proc */
	int rows_fd;		/* mmapable array of struct lt_uw_row */
	int rules_fd;		/* mmapable array of struct lt_uw_rule */
	int pidx_fd;		/* mmapable array of struct lt_uw_pidx: page indexes */
	int lua_fd;		/* target index -> struct lt_lua_cfg */
	uint32_t max_rows, max_rules, max_pidx;
};

struct tables_stats {
	uint64_t files;		/* distinct files compiled */
	uint64_t rows, rules;	/* used entries of the shared arrays */
	uint64_t pidx;		/* ... of the page-index array */
	uint64_t syncs;		/* process map rewrites */
	uint64_t no_cfi;	/* files without usable unwind info (frame-pointer fallback) */
	uint64_t full;		/* files skipped because the rows array was full */
};

struct tmodel;
/* Tables for the processes of model (which must outlive them). NULL on ENOMEM. */
struct tables *tables__new(const struct tables_maps *maps, struct tmodel *model);
void tables__delete(struct tables *t);
/* Start profiling pid: load its tables and add it to the BPF target filter. */
int tables__add_target(struct tables *t, int pid);
/* Stop profiling pid (it exited): out of the BPF filter, its slot free for
** another; the files' rows stay for other processes. 0 or -errno. */
int tables__remove_target(struct tables *t, int pid);
/* Re-read pid's mappings and reload what changed (dlopen, exec). Cheap when
** nothing changed; at most every min_interval_ms unless force (which does not
** count: the next unforced one may follow at once). 0 or -errno. */
int tables__sync(struct tables *t, int pid, unsigned min_interval_ms, int force);
const struct tables_stats *tables__stats(const struct tables *t);
/* The LuaJIT VM pid maps (found, maybe unsupported), or NULL if none; *path gets
** the file it is in. */
struct luabuild;
const struct luabuild *tables__luajit(const struct tables *t, int pid, const char **path);

/* For the capture mode, which replays lookups in user space: pid's current
** mapping list (NULL if unknown), and the shared rows and rules arrays. */
struct lt_uw_proc;
struct lt_uw_row;
struct lt_uw_rule;
const struct lt_uw_proc *tables__proc(const struct tables *t, int pid);
/* The LuaJIT facts published for pid (NULL when unknown). */
struct lt_lua_cfg;
const struct lt_lua_cfg *tables__lua_cfg(const struct tables *t, int pid);
const struct lt_uw_row *tables__rows(const struct tables *t);
const struct lt_uw_rule *tables__rules(const struct tables *t);

#endif
