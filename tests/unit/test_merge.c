/*
** The merge of Lua and native stacks, table-driven: each case lists the
** native frames (root first; "=vm" marks a VM activation, "=tr" a trace, "=cp"
** a VM frame in lj_vm_cpcall's call of a C function that runs no Lua frame), the
** Lua frames (root first: kind, name, link) and the exact expected stack.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "merge/merge.h"

#define MAXF 32

/* A Lua frame of a case: 'L' Lua, 'C' C function, 'F' fast function, '|' coroutine. */
struct luaf {
	char kind;
	const char *name;
	uint8_t link;
	uint8_t flags;
};

struct mcase {
	const char *what;
	const char *native[MAXF];	/* "name" or "name=vm" / "=tr" / "=cp"; NULL ends */
	struct luaf lua[MAXF];		/* kind 0 ends */
	const char *kernel[MAXF];
	int native_incomplete, lua_incomplete, no_G, not_lua;
	const char *want;		/* frames joined by ';' */
	int fallback;			/* expect a fallback, with this reason + 1 (0: merged) */
	int window;			/* expect a merge in a call/return window */
};

static const char *nat_name(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	buf[strcspn(buf, "=")] = 0;
	return buf;
}

static void run(const struct mcase *c, int raw, char *got, size_t gotlen, int *reason, int *rc)
{
	uint8_t how[MAXF];
	struct lt_lua_frame lua[MAXF];
	struct mg_ref out[MG_MAX_OUT];
	struct mg_input in = { .native_how = how, .lua = lua, .native_complete = !c->native_incomplete,
			       .lua_complete = !c->lua_incomplete, .have_G = !c->no_G,
			       .lua_process = !c->not_lua };
	unsigned n = 0;
	char buf[64];

	for (; c->native[in.n_native]; in.n_native++) {
		const char *s = c->native[in.n_native];

		how[in.n_native] = strstr(s, "=vm") ? LT_HOW_CFI | LT_HOW_F_VM :
				   strstr(s, "=cp") ? LT_HOW_CFI | LT_HOW_F_VM | LT_HOW_F_CP :
				   strstr(s, "=tr") ? LT_HOW_LJ_VM | LT_HOW_F_TRACE : LT_HOW_CFI;
	}
	for (; c->lua[in.n_lua].kind; in.n_lua++) {
		const struct luaf *f = &c->lua[in.n_lua];

		lua[in.n_lua] = (struct lt_lua_frame){
			.kind = f->kind == 'L' ? LT_LUA_LUA : f->kind == 'C' ? LT_LUA_C :
				f->kind == 'F' ? LT_LUA_FAST : LT_LUA_COROUTINE,
			.link = f->link, .flags = f->flags };
	}
	while (c->kernel[in.n_kernel])
		in.n_kernel++;
	*rc = 0;
	*reason = -1;
	if (raw)
		merge__raw(&in, out, &n);
	else
		*rc = merge__stacks(&in, out, &n, reason);
	got[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		const char *name = "?";

		switch (out[i].source) {
		case MG_NATIVE:
			name = nat_name(c->native[out[i].index], buf, sizeof(buf));
			break;
		case MG_KERNEL:
			name = c->kernel[out[i].index];
			break;
		case MG_LUA:
			name = c->lua[out[i].index].name;
			break;
		case MG_SEPARATOR:
			name = "[lua]";
			break;
		}
		if (i)
			strncat(got, ";", gotlen - strlen(got) - 1);
		strncat(got, name, gotlen - strlen(got) - 1);
	}
}

#define L(name, link) { 'L', name, link, 0 }
#define C(name, link) { 'C', name, link, 0 }
#define F(name, link) { 'F', name, link, 0 }
#define CO { '|', "[coroutine]", 0, 0 }

static const struct mcase cases[] = {
	{ "plain Lua: one VM activation, the interpreter at the leaf",
	  { "main", "lua_pcall", "vm=vm" }, { L("main_chunk", LT_LINK_CP), L("f", LT_LINK_LUA),
	  L("g", LT_LINK_LUA) }, { NULL }, .want = "main;lua_pcall;main_chunk;f;g" },
	{ "Lua -> C -> Lua -> C -> Lua",
	  { "main", "lua_pcall", "vm1=vm", "c_one", "lua_call", "vm2=vm", "c_two", "lua_call",
	    "vm3=vm" },
	  { L("chunk", LT_LINK_CP), L("a", LT_LINK_LUA), C("c_one", LT_LINK_LUA),
	    L("b", LT_LINK_C), C("c_two", LT_LINK_LUA), L("c", LT_LINK_C), L("leaf", LT_LINK_LUA) },
	  { NULL },
	  .want = "main;lua_pcall;chunk;a;c_one;lua_call;b;c_two;lua_call;c;leaf" },
	{ "pcall and xpcall do not split",
	  { "main", "lua_pcall", "vm=vm" },
	  { L("chunk", LT_LINK_CP), F("pcall", LT_LINK_LUA), L("f", LT_LINK_PCALL),
	    F("xpcall", LT_LINK_LUA), L("g", LT_LINK_PCALL) }, { NULL },
	  .want = "main;lua_pcall;chunk;pcall;f;xpcall;g" },
	{ "a fast function at the leaf without a C callee: the VM frame is it",
	  { "main", "lua_pcall", "vm=vm" },
	  { L("chunk", LT_LINK_CP), L("f", LT_LINK_LUA), F("tostring", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;f;tostring" },
	{ "a fast function with a C callee: one fast-function frame, then the callee",
	  { "main", "lua_pcall", "vm=vm", "lj_strfmt_num" },
	  { L("chunk", LT_LINK_CP), L("f", LT_LINK_LUA), F("tostring", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;f;tostring;lj_strfmt_num" },
	{ "a coroutine resumed from Lua",
	  { "main", "lua_pcall", "vm1=vm", "vm2=vm" },
	  { L("chunk", LT_LINK_CP), F("coroutine.resume", LT_LINK_LUA), CO,
	    L("co_body", LT_LINK_CP), L("work", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;coroutine.resume;co_body;work" },
	{ "a coroutine resumed from C (nginx)",
	  { "ngx_worker", "ngx_http_lua_run_thread", "lua_resume", "vm=vm", "memcpy" },
	  { L("handler", LT_LINK_CP), L("render", LT_LINK_LUA), F("string.rep", LT_LINK_LUA) },
	  { "sys_write" },
	  .want = "ngx_worker;ngx_http_lua_run_thread;lua_resume;handler;render;string.rep;memcpy;"
		  "sys_write" },
	{ "JIT trace frames stand for their activation",
	  { "main", "lua_pcall", "trace=tr" },
	  { L("chunk", LT_LINK_CP), L("hot", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;hot" },
	{ "C function called from a trace, kernel frames at the end",
	  { "main", "lua_pcall", "trace=tr", "lj_str_new" },
	  { L("chunk", LT_LINK_CP), L("hot", LT_LINK_LUA) }, { "page_fault" },
	  .want = "main;lua_pcall;chunk;hot;lj_str_new;page_fault" },
	{ "cpcall of a C function: its segment holds only C frames",
	  { "_start", "main", "lua_cpcall", "vm1=vm", "pmain", "lua_pcall", "vm2=vm" },
	  { C("pmain", LT_LINK_CP), L("chunk", LT_LINK_CP), L("f", LT_LINK_LUA) }, { NULL },
	  .want = "_start;main;lua_cpcall;pmain;lua_pcall;chunk;f" },
	{ "FFI callback: a segment of its own",
	  { "main", "lua_pcall", "vm1=vm", "qsort", "cb_stub", "vm2=vm" },
	  { L("chunk", LT_LINK_CP), F("ffi.call", LT_LINK_LUA),
	    { 'L', "cmp", LT_LINK_CONT, LT_LUAF_FFI_CB } }, { NULL },
	  .want = "main;lua_pcall;chunk;ffi.call;qsort;cb_stub;cmp" },
	{ "truncated native stack falls back",
	  { "vm=vm", "x" }, { L("f", LT_LINK_CP) }, { "k" }, .native_incomplete = 1,
	  .want = "vm;x;f;k", .fallback = MG_NATIVE_TRUNCATED + 1 },
	{ "a C host's lua_pcall in the VM's entry or exit window (flagged): plain C",
	  { "main", "lua_pcall", "vm=cp" }, { { 0 } }, { NULL },
	  .want = "main;lua_pcall" },
	{ "window: a C host's lua_pcall at the leaf, no Lua frame yet or any more",
	  { "main", "lua_pcall", "vm=vm" }, { { 0 } }, { "page_fault" },
	  .want = "main;lua_pcall;page_fault", .window = 1 },
	{ "a lone VM frame under C and no Lua frame at all falls back",
	  { "main", "lua_pcall", "vm=vm", "lj_gc_step" }, { { 0 } }, { NULL },
	  .want = "main;lua_pcall;vm;lj_gc_step", .fallback = MG_VM_WITHOUT_LUA + 1 },
	{ "window: a function trace at the leaf that has returned to C",
	  { "main", "lua_pcall", "trace=tr" }, { { 0 } }, { NULL },
	  .want = "main;lua_pcall", .window = 1 },
	{ "two VM frames and an empty Lua stack fall back",
	  { "main", "vm1=vm", "c", "vm2=vm" }, { { 0 } }, { NULL },
	  .want = "main;vm1;c;vm2", .fallback = MG_VM_WITHOUT_LUA + 1 },
	{ "window: lua_call from a C function entering the VM (lj_vm_call)",
	  { "main", "lua_pcall", "vm1=vm", "c_callback", "lua_call", "vm2=vm" },
	  { L("chunk", LT_LINK_CP), L("f", LT_LINK_LUA), C("c_callback", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;f;c_callback;lua_call", .window = 1 },
	{ "window: a table.sort comparator being called or left",
	  { "main", "lua_pcall", "vm1=vm", "lj_sort", "vm2=vm" },
	  { L("chunk", LT_LINK_CP), L("sorter", LT_LINK_LUA), F("table.sort", LT_LINK_LUA) },
	  { NULL }, .want = "main;lua_pcall;chunk;sorter;table.sort;lj_sort", .window = 1 },
	{ "window: an FFI callback entered (lj_ccallback_enter under the VM's stub)",
	  { "main", "lua_pcall", "vm1=vm", "qsort", "cb_stub=vm", "lj_ccallback_enter" },
	  { L("chunk", LT_LINK_CP), F("ffi.call", LT_LINK_LUA) }, { "page_fault" },
	  .want = "main;lua_pcall;chunk;ffi.call;qsort;lj_ccallback_enter;page_fault",
	  .window = 1 },
	{ "more VM frames than segments, the Lua stack ending in Lua: falls back",
	  { "main", "vm1=vm", "c", "vm2=vm" }, { L("f", LT_LINK_CP), L("g", LT_LINK_LUA) },
	  { "k" }, .want = "main;vm1;c;vm2;f;g;k", .fallback = MG_SEGMENT_MISMATCH + 1 },
	{ "two VM frames more than segments fall back",
	  { "main", "vm1=vm", "c", "vm2=vm", "d", "vm3=vm" },
	  { L("f", LT_LINK_CP), C("c", LT_LINK_LUA) }, { NULL },
	  .want = "main;vm1;c;vm2;d;vm3;f;c", .fallback = MG_SEGMENT_MISMATCH + 1 },
	{ "Lua walk truncated falls back",
	  { "main", "vm=vm" }, { L("f", LT_LINK_LUA) }, { NULL }, .lua_incomplete = 1,
	  .want = "main;vm;f", .fallback = MG_LUA_TRUNCATED + 1 },
	{ "no VM state for the thread falls back",
	  { "main", "vm=vm" }, { { 0 } }, { NULL }, .no_G = 1,
	  .want = "main;vm", .fallback = MG_NO_G + 1 },
	{ "a process without LuaJIT merges as it is",
	  { "main", "work" }, { { 0 } }, { "k" }, .not_lua = 1, .want = "main;work;k" },
	{ "LuaJIT process, sample in plain C: nothing to merge",
	  { "main", "epoll_wait" }, { { 0 } }, { "do_epoll_wait" },
	  .want = "main;epoll_wait;do_epoll_wait" },
	{ "LuaJIT process, a cut native stack with no VM or Lua frame: falls back",
	  { "jit_code" }, { { 0 } }, { NULL }, .native_incomplete = 1,
	  .want = "jit_code", .fallback = MG_NATIVE_TRUNCATED + 1 },
	{ "the trace recorder, run by lj_vm_cpcall from the interpreter's hook: the "
	  "cpcall frame stands for no Lua frame and is left out",
	  { "main", "lua_pcall", "vm=vm", "lj_dispatch_ins", "lj_trace_ins", "cpcall=cp",
	    "trace_state", "lj_record_ins" },
	  { L("chunk", LT_LINK_CP), L("step", LT_LINK_LUA), L("work", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;step;work;lj_dispatch_ins;lj_trace_ins;trace_state;"
		  "lj_record_ins" },
	{ "the parser under lua_load, from a C function called by Lua",
	  { "main", "lua_pcall", "vm1=vm", "luaB_loadstring", "lua_load", "cpcall=cp",
	    "cpparser", "lj_parse" },
	  { L("chunk", LT_LINK_CP), C("loadstring", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;luaB_loadstring;lua_load;cpparser;lj_parse" },
	{ "the recorder's C function just returned: the cpcall frame is the leaf, flagged, "
	  "and left out",
	  { "main", "lua_pcall", "vm=vm", "lj_dispatch_ins", "lj_trace_ins", "cpcall=cp" },
	  { L("chunk", LT_LINK_CP), L("work", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;chunk;work;lj_dispatch_ins;lj_trace_ins" },
	{ "a C host's lua_cpcall, its C function returned, no Lua frame yet: nothing to "
	  "merge, no fallback, and no VM frame left",
	  { "main", "lua_cpcall", "cpcall=cp" }, { { 0 } }, { NULL },
	  .want = "main;lua_cpcall" },
	{ "without the mark, the same recorder sample falls back",
	  { "main", "lua_pcall", "vm=vm", "lj_dispatch_ins", "lj_trace_ins", "cpcall=vm",
	    "trace_state" },
	  { L("chunk", LT_LINK_CP), L("work", LT_LINK_LUA) }, { NULL },
	  .want = "main;lua_pcall;vm;lj_dispatch_ins;lj_trace_ins;cpcall;trace_state;chunk;work",
	  .fallback = MG_SEGMENT_MISMATCH + 1 },
};

Test(merge, table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[1024];
		int reason, rc;

		run(&cases[i], 0, got, sizeof(got), &reason, &rc);
		cr_expect_str_eq(got, cases[i].want, "%s:\n  got  %s\n  want %s", cases[i].what,
				 got, cases[i].want);
		cr_expect_eq(rc, cases[i].fallback ? MG_FALLBACK :
				 cases[i].window ? MG_MERGED_WINDOW : MG_MERGED, "%s: status",
			     cases[i].what);
		if (cases[i].fallback)
			cr_expect_eq(reason, cases[i].fallback - 1, "%s: reason %s", cases[i].what,
				     merge__reason_text(reason));
	}
}

/* Merge disabled (raw): native, kernel, a separator, the Lua frames as captured. */
Test(merge, raw_keeps_everything)
{
	char got[1024];
	int reason, rc;

	run(&cases[1], 1, got, sizeof(got), &reason, &rc);
	cr_assert_str_eq(got, "main;lua_pcall;vm1;c_one;lua_call;vm2;c_two;lua_call;vm3;[lua];"
			      "chunk;a;c_one;b;c_two;c;leaf");
	run(&cases[6], 1, got, sizeof(got), &reason, &rc);
	cr_assert_str_eq(got, "ngx_worker;ngx_http_lua_run_thread;lua_resume;vm;memcpy;"
			      "sys_write;[lua];handler;render;string.rep");
}

Test(merge, reason_texts)
{
	cr_assert_str_eq(merge__reason_text(MG_SEGMENT_MISMATCH),
			 "VM frames and Lua segments do not pair up");
	cr_assert_str_eq(merge__reason_text(99), "unknown");
}
