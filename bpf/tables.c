/*
** Unwind tables in the sampler's maps.
**
** The rows and rules arrays are mmapped and only ever appended to, so the BPF
** program never sees a half-written row it could reach. Each target has two
** slots in the procs array: a sync writes the idle one, then flips the
** target's entry in the targets hash (an atomic replace) to point at it,
** with the generation the slot now has (struct lt_uw_target).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "base/clock.h"
#include "wire/luatop.h"
#include "bpf/tables.h"
#include "lua/detect.h"
#include "lua/layout.h"
#include "proc/model.h"
#include "unwind/ehframe.h"
#include "unwind/pageindex.h"

/* The TF_UNWIND part of a file: where its rows are in the shared array, and its
** page index (unwind/pageindex.h: the pidx_* fields; pidx_n 0 for none). */
struct tb_rows {
	uint32_t start, count;		/* count 0: no unwind info */
	struct lt_uw_mapping idx;
};

struct tb_proc {
	int pid;			/* 0: free */
	unsigned active;		/* which of the two slots the BPF side reads */
	uint64_t maps_hash;		/* of the executable mappings last loaded */
	double last_sync;
	struct lt_uw_proc *cur;		/* copy of what the active slot holds */
	const struct luabuild *lj;	/* the LuaJIT VM it maps, or NULL */
	struct lt_lua_cfg lua;		/* what was published of it */
	char vm_path[256];		/* the file that holds it */
};

struct tables {
	struct tables_maps maps;
	struct lt_uw_row *rows;		/* mmapped uw_rows */
	struct lt_uw_rule *rules;	/* mmapped uw_rules */
	struct lt_uw_pidx *pidx;	/* mmapped uw_pidx */
	size_t rows_bytes, rules_bytes, pidx_bytes;
	uint32_t *rule_index;		/* open addressing: rule index + 1, 2*max_rules slots */
	struct tmodel *model;		/* the processes and their files */
	struct tb_proc procs[LT_MAX_TARGETS];
	uint32_t generation;		/* of the last publish, over all slots: the
					   sampler's rule memo keys on it */
	struct tables_stats stats;
};

static double now_s(void)
{
	return (double)clock__mono_ns() / 1e9;
}

static void *map_array(int fd, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct tables *tables__new(const struct tables_maps *maps, struct tmodel *model)
{
	struct tables *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->maps = *maps;
	t->model = model;
	t->rows_bytes = (size_t)maps->max_rows * sizeof(struct lt_uw_row);
	t->rules_bytes = (size_t)maps->max_rules * sizeof(struct lt_uw_rule);
	t->pidx_bytes = (size_t)maps->max_pidx * sizeof(struct lt_uw_pidx);
	t->rows = map_array(maps->rows_fd, t->rows_bytes);
	t->rules = map_array(maps->rules_fd, t->rules_bytes);
	t->pidx = map_array(maps->pidx_fd, t->pidx_bytes);
	t->rule_index = calloc(2 * (size_t)maps->max_rules, sizeof(*t->rule_index));
	if (!t->rows || !t->rules || !t->pidx || !t->rule_index) {
		tables__delete(t);
		return NULL;
	}
	/* Rule 0 is INVALID, so a zeroed row can never mean "unwind". */
	t->stats.rules = 1;
	return t;
}

void tables__delete(struct tables *t)
{
	if (!t)
		return;
	if (t->rows)
		munmap(t->rows, t->rows_bytes);
	if (t->rules)
		munmap(t->rules, t->rules_bytes);
	if (t->pidx)
		munmap(t->pidx, t->pidx_bytes);
	for (unsigned i = 0; i < LT_MAX_TARGETS; i++)
		free(t->procs[i].cur);
	free(t->rule_index);
	free(t);
}

static uint32_t rule_hash(const struct lt_uw_rule *r)
{
	uint64_t v;

	memcpy(&v, r, sizeof(v));
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The global index of a rule, added if new; UINT32_MAX when the table is full. */
static uint32_t intern_rule(struct tables *t, const struct lt_uw_rule *r)
{
	uint32_t mask = 2 * t->maps.max_rules - 1, i;

	for (i = rule_hash(r) & mask; t->rule_index[i]; i = (i + 1) & mask)
		if (!memcmp(&t->rules[t->rule_index[i] - 1], r, sizeof(*r)))
			return t->rule_index[i] - 1;
	if (t->stats.rules >= t->maps.max_rules)
		return UINT32_MAX;
	t->rules[t->stats.rules] = *r;
	t->rule_index[i] = (uint32_t)t->stats.rules + 1;
	return (uint32_t)t->stats.rules++;
}

/* Append the page index of a file's rows just appended; none when it does not fit. */
static void append_pidx(struct tables *t, struct tb_rows *f)
{
	uint32_t room = t->maps.max_pidx - (uint32_t)t->stats.pidx;

	f->idx.pidx_start = (uint32_t)t->stats.pidx;
	t->stats.pidx += lt_pidx_build(&t->rows[f->start], f->count, &t->pidx[t->stats.pidx], room,
				       &f->idx);
}

/* Append a compiled table's rows with their rules made global. */
static int append_rows(struct tables *t, const struct uw_table *u, struct tb_rows *f)
{
	size_t n = uw_table__nrows(u), nr = uw_table__nrules(u);
	const struct lt_uw_row *rows = uw_table__rows(u);
	const struct lt_uw_rule *rules = uw_table__rules(u);
	uint32_t *map = calloc(nr ? nr : 1, sizeof(*map));

	if (!map)
		return -ENOMEM;
	if (t->stats.rows + n > t->maps.max_rows) {
		t->stats.full++;
		free(map);
		return -ENOSPC;
	}
	for (size_t i = 0; i < nr; i++) {
		map[i] = intern_rule(t, &rules[i]);
		if (map[i] == UINT32_MAX) {
			t->stats.full++;
			free(map);
			return -ENOSPC;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct lt_uw_row *dst = &t->rows[t->stats.rows + i];

		dst->pc_off = rows[i].pc_off;
		dst->rule = rows[i].rule < nr ? map[rows[i].rule] : 0;
	}
	f->start = (uint32_t)t->stats.rows;
	f->count = (uint32_t)n;
	t->stats.rows += n;
	free(map);
	append_pidx(t, f);
	return 0;
}

/* Compile a file's table once and append it; count stays 0 without CFI. */
static struct tb_rows *load_rows(struct tables *t, struct tfile *f)
{
	struct tb_rows *r = calloc(1, sizeof(*r));
	struct uw_table *u;
	size_t len = 0;
	const void *img = tfile__image(f, &len);
	int fd;

	if (!r)
		return NULL;
	if (img) {
		u = uw_table__from_elf_mem(img, len);
	} else {
		fd = tfile__fd(f);
		u = fd >= 0 ? uw_table__from_elf_fd(fd) : NULL;
	}
	t->stats.files++;
	if (!u || !uw_table__nrows(u) || append_rows(t, u, r)) {
		t->stats.no_cfi += !u || !uw_table__nrows(u);
		r->start = r->count = 0;
	}
	uw_table__delete(u);
	return r;
}

/* The rows of the file behind mapping i of p, compiled on first sight. */
static const struct tb_rows *rows_of(struct tables *t, struct tfile *f)
{
	if (!tfile__has(f, TF_UNWIND))
		tfile__set(f, TF_UNWIND, load_rows(t, f), free);
	return tfile__part(f, TF_UNWIND);
}

/* Fill one mapping entry; anonymous and unreadable code gets row_count 0. */
static void map_one(struct tables *t, struct tproc *tp, size_t i, struct lt_uw_mapping *out,
		    const struct luabuild **lj)
{
	const struct procmap *m = &tproc__maps(tp)->maps[i];
	struct tfile *f = tproc__file(tp, i);
	const struct tb_rows *r;
	uint64_t bias;

	*out = (struct lt_uw_mapping){ .start = m->start, .end = m->end };
	*lj = NULL;
	if (!f || tproc__bias(tp, i, &bias))
		return;
	out->bias = bias;
	r = rows_of(t, f);
	if (r) {
		out->row_start = r->start;
		out->row_count = r->count;
		out->pidx_start = r->idx.pidx_start;
		out->pidx_n = r->idx.pidx_n;
		out->pidx_page = r->idx.pidx_page;
		out->pidx_shift = r->idx.pidx_shift;
	}
	if (!tfile__image(f, NULL))
		*lj = luabuild__of_file(f);
}

_Static_assert(X64_LEAVE_MAX == LT_LUA_UNW_MAX, "the epilogue's table: one size");
_Static_assert(LUABUILD_LINK_MAX == LT_LUA_LINK_STORES, "the link stores: one count");

/* The sampler's view of the LuaJIT VM mapped with load bias `bias`. */
static struct lt_lua_cfg lua_cfg_of(const struct luabuild *lj, uint64_t bias)
{
	struct lt_lua_cfg c = {
		.enabled = lj->supported,
		.g2disp = lj->g2disp,
		.off_cur_L = lj->off_cur_L,
		.off_vmstate = lj->off_vmstate,
		.off_jit_base = lj->off_jit_base,
		.off_jit_trace = lj->off_jit_trace,
		.vm_lo = bias + lj->vm_start,
		.vm_hi = bias + lj->vm_end,
	};

	if (lj->leaf_start)
		c.leaf_lo = bias + lj->leaf_start, c.leaf_hi = bias + lj->leaf_end;
	if (lj->ffi_call_start)
		c.ffi_lo = bias + lj->ffi_call_start, c.ffi_hi = bias + lj->ffi_call_end;
	if (lj->cpcall_ret)
		c.cp_ret = bias + lj->cpcall_ret, c.cp_len = (__u16)lj->cpcall_len;
	if (lj->leave_start) {
		c.leave_ofs = (__u32)(lj->leave_start - lj->vm_start);
		c.unw_ofs = (__u32)(lj->unw_start - lj->vm_start);
		c.unw_len = (__u16)lj->unw_len;
		memcpy(c.unw_cfa, lj->unw_cfa, sizeof(c.unw_cfa));
	}
	for (uint32_t i = 0; i < lj->n_link_store && i < LT_LUA_LINK_STORES; i++)
		if (lj->link_store[i] - lj->vm_start <= 0xffff)
			c.link_ofs[i] = (__u16)(lj->link_store[i] - lj->vm_start);
	/* The four entries, or none: the windows are all known or not used. */
	if (lj->n_entry == LT_LUA_ENTRIES && lj->entry_len[0])
		for (int i = 0; i < LT_LUA_ENTRIES; i++) {
			c.entry_ofs[i] = (__u32)(lj->entry[i] - lj->vm_start);
			c.entry_len[i] = (__u16)lj->entry_len[i];
		}
	lt_lj_gwin(&c, lj->sizeof_lua_State);
	return c;
}

/* Tell the sampler about the process's LuaJIT VM (or that there is none). */
static int publish_lua(struct tables *t, struct tb_proc *p, const struct lt_lua_cfg *c)
{
	uint32_t idx = (uint32_t)(p - t->procs);

	return bpf_map_update_elem(t->maps.lua_fd, &idx, c, BPF_ANY) ? -errno : 0;
}

static uint64_t hash_exec_maps(const struct procmaps *pm)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < pm->n; i++) {
		const struct procmap *m = &pm->maps[i];
		uint64_t v[4] = { m->start, m->end, m->offset, m->inode };

		if (!m->exec)
			continue;
		for (unsigned k = 0; k < 4; k++)
			h = (h ^ v[k]) * 0x100000001b3ull;
	}
	return h;
}

static struct tb_proc *proc_of(struct tables *t, int pid)
{
	for (unsigned i = 0; i < LT_MAX_TARGETS; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

/* Write a new mapping list to the idle slot, then point the target at it. */
static int publish(struct tables *t, struct tb_proc *p, struct lt_uw_proc *up)
{
	uint32_t idx = (uint32_t)(p - t->procs);
	uint32_t slot = 2 * idx + !p->active;
	uint32_t tgid = (uint32_t)p->pid;

	/* Unique over every slot and target, never 0: a slot reused by another
	** process must not match what the sampler memoized for the last one. */
	up->generation = ++t->generation ? t->generation : ++t->generation;
	if (bpf_map_update_elem(t->maps.procs_fd, &slot, up, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(t->maps.targets_fd, &tgid,
				&(struct lt_uw_target){ .slot = slot, .generation = up->generation },
				BPF_ANY))
		return -errno;
	p->active = !p->active;
	free(p->cur);
	p->cur = up;
	t->stats.syncs++;
	return 0;
}

static int load_proc(struct tables *t, struct tb_proc *p)
{
	struct tproc *tp = tmodel__proc(t->model, p->pid);
	const struct procmaps *pm;
	struct lt_lua_cfg lua = { 0 };
	struct lt_uw_proc *up;
	uint64_t h;
	int rc;

	if (!tp)
		return -ENOMEM;
	rc = tproc__refresh(tp, 0);
	if (rc < 0)
		return rc;
	pm = tproc__maps(tp);
	h = hash_exec_maps(pm);
	if (p->cur && h == p->maps_hash)
		return 0;
	up = calloc(1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	p->lj = NULL;
	p->vm_path[0] = 0;
	for (size_t i = 0; i < pm->n && up->n < LT_MAX_MAPPINGS; i++) {
		const struct luabuild *lj;

		if (!pm->maps[i].exec || !strcmp(pm->maps[i].path, "[vsyscall]"))
			continue;
		map_one(t, tp, i, &up->m[up->n], &lj);
		/* One VM per process: the first one mapped (a static luajit, or libluajit). */
		if (lj && !lua.vm_hi) {
			lua = lua_cfg_of(lj, up->m[up->n].bias);
			p->lj = lj;
			snprintf(p->vm_path, sizeof(p->vm_path), "%s", pm->maps[i].path);
		}
		up->n++;
	}
	p->lua = lua;
	rc = publish_lua(t, p, &lua);
	if (!rc)
		rc = publish(t, p, up);
	if (rc)
		free(up);
	else
		p->maps_hash = h;
	return rc;
}

int tables__add_target(struct tables *t, int pid)
{
	struct tb_proc *p = proc_of(t, pid);

	if (!p) {
		p = proc_of(t, 0);
		if (!p)
			return -E2BIG;
		p->pid = pid;
	}
	p->last_sync = now_s();
	return load_proc(t, p);
}

int tables__remove_target(struct tables *t, int pid)
{
	struct tb_proc *p = proc_of(t, pid);
	uint32_t tgid = (uint32_t)pid;

	if (!p || !pid)
		return -ENOENT;
	/* Out of the filter first: the BPF side stops reading its slots. */
	if (bpf_map_delete_elem(t->maps.targets_fd, &tgid) && errno != ENOENT)
		return -errno;
	free(p->cur);
	memset(p, 0, sizeof(*p));
	return 0;
}

int tables__sync(struct tables *t, int pid, unsigned min_interval_ms, int force)
{
	struct tb_proc *p = proc_of(t, pid);
	double now = now_s();

	if (!p)
		return -ENOENT;
	if (!force && now - p->last_sync < min_interval_ms / 1000.0)
		return 0;
	/* A forced sync (just after an exec) saw the image before ld.so mapped
	** its libraries: the first sample in them must not wait out the interval. */
	if (!force)
		p->last_sync = now;
	return load_proc(t, p);
}

const struct tables_stats *tables__stats(const struct tables *t)
{
	return &t->stats;
}

const struct luabuild *tables__luajit(const struct tables *t, int pid, const char **path)
{
	for (unsigned i = 0; i < LT_MAX_TARGETS; i++)
		if (t->procs[i].pid == pid) {
			*path = t->procs[i].vm_path;
			return t->procs[i].lj;
		}
	return NULL;
}

const struct lt_uw_proc *tables__proc(const struct tables *t, int pid)
{
	for (unsigned i = 0; i < LT_MAX_TARGETS; i++)
		if (t->procs[i].pid == pid)
			return t->procs[i].cur;
	return NULL;
}

const struct lt_uw_row *tables__rows(const struct tables *t)
{
	return t->rows;
}

const struct lt_uw_rule *tables__rules(const struct tables *t)
{
	return t->rules;
}

const struct lt_lua_cfg *tables__lua_cfg(const struct tables *t, int pid)
{
	for (unsigned i = 0; i < LT_MAX_TARGETS; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i].lua;
	return NULL;
}
