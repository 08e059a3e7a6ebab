/*
** luatop wire format: every structure and code that crosses between the BPF
** sampler and user space. The sample record and capture record the sampler
** writes to the ring buffer; the unwind tables (rules, rows, mappings) and the
** LuaJIT facts user space writes to BPF maps; the stop, drop and frame-how codes.
**
** Fixed-width types only, explicit padding, a record type word first; every
** struct size and every code's fit in its field is asserted. Included by the BPF
** program, the loader, the pure core and the tests; includes only uapi headers.
** Nothing else defines wire structs.
*/
#ifndef LUATOP_WIRE_LUATOP_H
#define LUATOP_WIRE_LUATOP_H

#include <linux/types.h>

/* -- Version and record types ---------------------------------------------- */

#define LT_WIRE_VERSION		9	/* bump on any change of this file's layouts */
#define LT_WIRE_TYPE(kind)	(0x4c540000u | (kind) << 8 | LT_WIRE_VERSION)	/* "LT" */
#define LT_WIRE_SAMPLE		LT_WIRE_TYPE(0)	/* struct lt_sample */
#define LT_WIRE_CAPTURE		LT_WIRE_TYPE(1)	/* struct lt_capture */
#define LT_WIRE_BATCH		LT_WIRE_TYPE(2)	/* struct lt_batch */
#define LT_WIRE_NEW_CODE	LT_WIRE_TYPE(3)	/* struct lt_new_code */

/* -- Limits ---------------------------------------------------------------- */

#ifndef LT_MAX_USER
#define LT_MAX_USER	128	/* user frames per sample (a power of two) */
#endif
#ifndef LT_MAX_KERNEL
#define LT_MAX_KERNEL	128	/* kernel frames per sample */
#endif
#define LT_MAX_LUA	64	/* Lua frames per sample (a power of two) */
#define LT_MAX_TARGETS	64	/* target processes (tgids) */
#define LT_MAX_MAPPINGS	256	/* executable mappings per process (a power of two) */
#define LT_CAPTURE_READS 1024	/* user-memory reads logged per capture (a power of two) */
#define LT_TRACE_HDR	120	/* bytes of a JIT trace's GCtrace header kept in a sample */
#define LT_READ_CHUNK	8	/* bytes per logged read entry */
#define LT_GWIN_MAX	1536	/* bytes of a VM's global state the sampler copies at most */

/* -- Codes ------------------------------------------------------------------ */

/* Sample flags (lt_sample.flags). */
#define LT_SAMPLE_USER_ERR	0x1	/* no user registers: kernel thread or no pt_regs */
#define LT_SAMPLE_KERNEL_ERR	0x2	/* kernel stack could not be read */
#define LT_SAMPLE_FP_USED	0x4	/* some user frame came from the frame-pointer fallback */
#define LT_SAMPLE_LUA		0x8	/* the process runs LuaJIT: vmstate and lua[] are valid */
#define LT_SAMPLE_NO_G		0x10	/* LuaJIT process, but no global_State known for the thread */
#define LT_SAMPLE_LUA_TRUNC	0x20	/* Lua walk ended early (more frames than lua[], or a bad frame) */
#define LT_SAMPLE_NEW_CODE	0x40	/* a pc in no mapping the tables know: re-read the maps */
#define LT_SAMPLE_HDR_AS_BEFORE	0x80	/* in a batch only: trace_hdr left out, the same as
					   that of the latest record before it in the batch
					   that carries one of the same trace_T */
#define LT_SAMPLE_FLAGS_ALL	0xff

/* What one Lua frame is (lt_lua_frame.kind). */
enum lt_lua_kind {
	LT_LUA_LUA = 1,		/* Lua function: addr = GCproto, pc = bytecode pointer */
	LT_LUA_C,		/* lua_CFunction: addr = its native entry */
	LT_LUA_FAST,		/* fast function: ffid names it (assembly, or C via lj_BC_FUNCC) */
	LT_LUA_COROUTINE,	/* boundary: the frames after it belong to the resuming thread */
	LT_LUA_KIND__END
};

/* How a Lua frame was called: the frame link type (lt_lua_frame.link). */
enum lt_lua_link {
	LT_LINK_LUA = 0,	/* from a Lua CALL instruction */
	LT_LINK_C = 1,		/* from C: lua_call */
	LT_LINK_CONT = 2,	/* metamethod continuation, or FFI callback (LT_LUAF_FFI_CB) */
	LT_LINK_VARG = 3,	/* (never emitted: vararg pseudo-frames are skipped) */
	LT_LINK_CP = 5,		/* from C, protected: lua_pcall, lua_cpcall, lua_resume */
	LT_LINK_PCALL = 6,	/* from the pcall/xpcall fast function */
	LT_LINK_PCALLH = 7,	/* same, with a hook active */
};

/* Lua frame flags (lt_lua_frame.flags). */
#define LT_LUAF_FFI_CB	0x1	/* a continuation frame entered from an FFI callback */
#define LT_LUAF_PC_TOP	0x2	/* pc came from registers or SAVE_PC, not a callee's link */

/* How a user frame's caller was found (lt_sample.user_how, low bits). */
enum lt_frame_how {
	LT_HOW_LEAF = 0,	/* the sampled pc itself */
	LT_HOW_CFI,		/* .eh_frame/.debug_frame rule */
	LT_HOW_PLT,		/* PLT stub rule */
	LT_HOW_SIGNAL,		/* read from a signal frame's ucontext */
	LT_HOW_FP,		/* frame-pointer fallback: may be wrong */
	LT_HOW_LJ_VM,		/* LuaJIT cframe rule */
	LT_HOW__END
};
#define LT_HOW_MASK	0x1f	/* the enum lt_frame_how part of a user_how byte */
#define LT_HOW_F_CP	0x20	/* flag: a VM frame in lj_vm_cpcall's call of a C
				   function that runs without a Lua frame (or
				   the leaf, just back from it) */
#define LT_HOW_F_VM	0x40	/* flag: this frame's pc is in the LuaJIT VM */
#define LT_HOW_F_TRACE	0x80	/* flag: this frame's pc is in JIT trace code */

/*
** The address that names a user frame and finds its unwind rule: a return
** address points after the call, which may be the first byte of the next
** function, so step back into the call. The leaf and frames entered from a
** signal carry exact pcs.
*/
static inline __attribute__((always_inline)) __u64 lt_frame_pc(__u64 pc, __u8 how)
{
	how &= LT_HOW_MASK;
	return (how == LT_HOW_LEAF || how == LT_HOW_SIGNAL) ? pc : pc - 1;
}

/* What a sample measures (lt_sample.event). */
enum lt_event {
	LT_EVENT_CPU = 0,	/* on CPU: one sampling period of the perf event */
	LT_EVENT_OFFCPU,	/* blocked: weight_ns off CPU in one system call, ending at time_ns */
	LT_EVENT__COUNT
};

/*
** Off-CPU time of the targets the profile does not hold, and what it holds:
** the BPF per-CPU counter array index (offstats), summed by user space.
*/
enum lt_offstat {
	LT_OFF_BLOCKS,		/* blocks sent as samples */
	LT_OFF_BLOCKED_NS,	/* ... their time */
	LT_OFF_SHORT,		/* blocks shorter than --min-block, not walked */
	LT_OFF_SHORT_NS,	/* ... their time */
	LT_OFF_OTHER_NS,	/* blocked outside a system call (a page fault): no stack */
	LT_OFF_RUNNABLE_NS,	/* preempted while runnable: waiting for a CPU, not blocked */
	LT_OFF__COUNT
};

/*
** How the CPU samples' kernel stacks were taken: the BPF per-CPU counter array
** index (kstats), summed by user space (unwind/korc.h).
*/
enum lt_kstat {
	LT_KSTAT_ORC,		/* walked by the sampler from the kernel's ORC tables */
	LT_KSTAT_KERNEL,	/* by the kernel's unwinder (bpf_get_stack) */
	LT_KSTAT_CHECKED,	/* check mode: walked both ways */
	LT_KSTAT_DIFFER,	/* ... and the two stacks differed */
	LT_KSTAT__COUNT
};

/* Why the user-space walk ended (lt_sample.user_stop). */
enum lt_stop {
#define LT_STOP(name, text) LT_STOP_##name,
#include "wire/stops.def"
#undef LT_STOP
	LT_STOP__COUNT		/* also: "not stopped, go on" inside the walk */
};

/* Why a sample did not reach user space: the BPF per-CPU counter index. */
enum lt_drop {
#define LT_DROP(name, text) LT_DROP_##name,
#include "wire/drops.def"
#undef LT_DROP
	LT_DROP__COUNT
};

/* -- The sample record ------------------------------------------------------- */

/* One Lua frame, as the BPF walk found it. */
struct lt_lua_frame {
	__u64 fn;		/* GCfunc address (tag stripped) */
	__u64 addr;		/* Lua: GCproto address; C: native entry; fast: 0 */
	__u64 pc;		/* Lua: bytecode pointer after the current instruction; 0 unknown */
	__u8 kind;		/* enum lt_lua_kind */
	__u8 ffid;		/* GCfunc.ffid: 0 Lua, 1 C, >= 2 fast function */
	__u8 link;		/* enum lt_lua_link: how this frame was called */
	__u8 flags;		/* LT_LUAF_* */
	__u32 pad;
};

/*
** One sample, as the walk builds it (every array at its full size):
**
**   +------+------+-----+-----+---------+--------+----------+-------+-----------+
**   | type | tgid | tid | cpu | time_ns | n_user | n_kernel | flags | user_stop |
**   | event | weight_ns | vmstate | n_lua | G | L | trace_T                     |
**   +---------------------------------------------------------------------------+
**   | user[LT_MAX_USER]       pcs, leaf first, n_user valid                     |
**   | kernel[LT_MAX_KERNEL]   return addresses, leaf first, n_kernel valid      |
**   | lua[LT_MAX_LUA]         Lua frames, leaf first, n_lua valid               |
**   | trace_hdr[LT_TRACE_HDR] the running trace, as read at the sample          |
**   | user_how[LT_MAX_USER]   enum lt_frame_how of each user frame              |
**   +---------------------------------------------------------------------------+
**
** It crosses the ring buffer (and --record files) packed: the head, then each
** array cut to its count, trace_hdr only when trace_T is set (wire/pack.h) and,
** in a batch, no record before it carries the same (LT_SAMPLE_HDR_AS_BEFORE).
*/
struct lt_sample {
	__u32 type;			/* LT_WIRE_SAMPLE */
	__u32 tgid;			/* process id */
	__u32 tid;			/* thread id */
	__u32 cpu;			/* CPU the sample was taken on */
	__u64 time_ns;			/* CLOCK_MONOTONIC, bpf_ktime_get_ns() */
	__u16 n_user;			/* valid entries in user[] */
	__u16 n_kernel;			/* valid entries in kernel[] */
	__u16 flags;			/* LT_SAMPLE_* */
	__u8 user_stop;			/* enum lt_stop: why the user walk ended */
	__u8 event;			/* enum lt_event */
	__u64 weight_ns;		/* LT_EVENT_OFFCPU: nanoseconds blocked; else 0 */
	__s32 vmstate;			/* G->vmstate: ~LJ_VMST_* (< 0) or trace number */
	__u16 n_lua;			/* valid entries in lua[] */
	__u16 pad1;
	__u64 G;			/* global_State of the thread's LuaJIT VM, 0 unknown */
	__u64 L;			/* lua_State running at the sample (cur_L) */
	__u64 trace_T;			/* vmstate >= 0: its GCtrace (J->trace[vmstate]), 0 unknown */
	/* -- the head ends here (LT_SAMPLE_HEAD) -- */
	__u64 user[LT_MAX_USER];	/* user pcs, leaf first (callers: return addresses) */
	__u64 kernel[LT_MAX_KERNEL];	/* kernel return addresses, leaf first */
	struct lt_lua_frame lua[LT_MAX_LUA];	/* leaf first */
	__u8 trace_hdr[LT_TRACE_HDR];	/* the first bytes of that GCtrace, read at the sample:
					   user space decodes them (lua/trace.c) and knows
					   the trace's later reads are of the same trace */
	__u8 user_how[LT_MAX_USER];	/* enum lt_frame_how per user frame, | LT_HOW_F_* */
};

/* The fields every record carries whole, before its arrays. */
#define LT_SAMPLE_HEAD	72

/*
** A CPU's samples, packed (wire/pack.h) back to back, in one ring buffer record.
** An output to the ring has a fixed cost, its lock, its two positions and its
** header each on a page of their own (~0.5 us a call on this VM, whatever the
** size, and 4-8 us when the target's work has emptied the caches): one output
** per sample paid it every time. The sampler packs each sample into its CPU's
** batch and sends the batch when another record of the largest size might not
** fit, when its first sample is LT_BATCH_AGE_NS old, when a sample needs user
** space now (LT_SAMPLE_NEW_CODE), and when user space asks (its flush at every
** read of the ring, and what is left once the sampler is detached). So user
** space's reads set how long samples wait, and the age only bounds it: an 8 KB
** batch sent at 20 ms held 8-12 samples at 999 Hz and one or two at 99 Hz, its
** output a sixth of a sample's cost (docs/PERFORMANCE.md, 2026-12-06 night).
** As large as a per-CPU map value can be (PCPU_MIN_UNIT_SIZE, 32 KB).
*/
#define LT_BATCH_BYTES		32736	/* room for records */
#define LT_BATCH_AGE_NS		250000000ull	/* a batch's first sample waits at most this
						   (while its CPU samples) */
struct lt_batch {
	__u32 type;			/* LT_WIRE_BATCH */
	__u32 len;			/* bytes of records in data[] */
	__u32 n;			/* records in data[] */
	__u32 seq;			/* batches this CPU sent before this one (wraps) */
	__u64 first_ns;			/* time_ns of the first record */
	__u8 data[LT_BATCH_BYTES];	/* packed samples */
};

#define LT_BATCH_HEAD	24

/* The user registers a walk starts from. */
struct lt_uregs {
	__u64 pc, sp, bp;
	__u64 r14, rdx, rbx;		/* LuaJIT interpreter: DISPATCH, BASE, PC */
};

/* One read of user memory the walk made, logged in capture mode; a read of more
** than 8 bytes is logged as consecutive entries of 8 (the last one shorter). */
struct lt_read {
	__u64 addr;
	__u32 size;			/* bytes: 1 .. 8 */
	__s32 rc;			/* what the read returned: 0, or -errno */
	__u64 data;			/* the bytes read (the first size), when rc is 0 */
};

/*
** Capture mode (debugging and test fixtures): everything a walk of the sample
** depended on: the registers, the thread's cached global_State and, in order,
** every read of user memory it made; then the sample it produced. A replay of
** the shared walk driver over them must produce the same sample.
*/
struct lt_capture {
	__u32 type;			/* LT_WIRE_CAPTURE */
	__u32 n_reads;			/* valid entries in reads[] */
	__u32 reads_lost;		/* reads past LT_CAPTURE_READS: not replayable */
	__u32 cached_own;		/* cached_G is the thread's own, not its process's */
	struct lt_uregs regs;		/* user registers at the sample */
	__u64 cached_G;			/* the thread's G cache entry the walk saw, 0 none */
	struct lt_read reads[LT_CAPTURE_READS];
	struct lt_sample sample;	/* what the in-kernel walk produced */
};

/*
** A target mapped code from a file (ld.so, dlopen; off-CPU mode, which sees the
** system calls return): user space reads its maps now, so that the tables hold
** that code before the thread's next block is walked. Its first blocks come
** before any sample meets the code, and were cut short at their leaf.
*/
struct lt_new_code {
	__u32 type;			/* LT_WIRE_NEW_CODE */
	__u32 tgid;			/* the process */
};

/* -- Unwind tables (user space -> BPF maps) ---------------------------------- */

/* How to step from one frame to its caller. */
enum lt_uw_kind {
	LT_UW_INVALID = 0,	/* no usable rule: stop and flag the stack truncated */
	LT_UW_CFA,		/* CFA = reg + cfa_off; RA = [CFA-8]; rbp per rbp_off */
	LT_UW_PLT,		/* .plt stub: CFA = rsp + 8, or + 16 once (pc & 15) >= 11 */
	LT_UW_SIGNAL,		/* signal trampoline: caller regs from ucontext at rsp */
	LT_UW_STOP,		/* outermost frame (RA undefined): the stack is complete */
	LT_UW_FP,		/* frame-pointer step, a flagged fallback */
	LT_UW_KIND__COUNT
};

#define LT_UW_REG_RSP	7	/* DWARF register numbers, x86-64 */
#define LT_UW_REG_RBP	6
#define LT_UW_RBP_SAME	0	/* rbp_off value: rbp is not saved, keep it */

struct lt_uw_rule {
	__u8 kind;		/* enum lt_uw_kind */
	__u8 cfa_reg;		/* LT_UW_CFA: LT_UW_REG_RSP or LT_UW_REG_RBP */
	__s16 rbp_off;		/* rbp saved at [CFA + rbp_off], or LT_UW_RBP_SAME */
	__s32 cfa_off;		/* LT_UW_CFA: CFA = cfa_reg + cfa_off */
};

/* One row: from pc_off (ELF virtual address) up to the next row, rule applies. */
struct lt_uw_row {
	__u32 pc_off;		/* ELF vaddr of the first covered byte */
	__u32 rule;		/* index into the rule table */
};

/* One block of a file's page index (unwind/pageindex.h): its rows are in
** [lo, hi], relative to the file's first row. */
struct lt_uw_pidx {
	__u32 lo;
	__u32 hi;
};

/* One executable mapping of a target, as the BPF program sees it. */
struct lt_uw_mapping {
	__u64 start;		/* [start, end) virtual addresses */
	__u64 end;
	__u64 bias;		/* ELF vaddr = pc - bias */
	__u32 row_start;	/* first row of this file in the rows array */
	__u32 row_count;	/* 0: no unwind info (JIT code): frame-pointer fallback */
	__u32 pidx_start;	/* the file's page index (unwind/pageindex.h) in the */
	__u32 pidx_n;		/* page-index array: pidx_n blocks (0: none), */
	__u32 pidx_page;	/* block 0 at ELF vaddr pidx_page << pidx_shift */
	__u8 pidx_shift;
	__u8 pad[3];
};

/* All executable mappings of one target process, sorted by start. */
struct lt_uw_proc {
	__u32 n;		/* valid entries in m[] */
	__u32 generation;	/* new on every rewrite, unique over all slots, not 0 */
	struct lt_uw_mapping m[LT_MAX_MAPPINGS];
};

/* A target's entry in the targets hash: the uw_procs slot the sampler reads and
** that slot's generation, replaced together by one update at every publish, so
** that a sample learns both from the one lookup it needs anyway (the generation
** sat in the slot's 12 KB struct: one more line on a vmalloc page a sample). One
** aligned 8-byte word: read whole. */
struct lt_uw_target {
	__u32 slot;
	__u32 generation;	/* uw_procs[slot].generation */
} __attribute__((aligned(8)));

/* -- LuaJIT facts (user space -> BPF map, one per target) -------------------- */

#define LT_LUA_ENTRIES	4	/* VM entries: lj_vm_resume, _pcall, _call, _cpcall */
#define LT_LUA_UNW_MAX	20	/* bytes of the VM's epilogue lt_lua_cfg describes */
#define LT_LUA_LINK_STORES	8	/* link stores lt_lua_cfg lists */

/* What the sampler needs of a process's LuaJIT build (one VM per process). */
struct lt_lua_cfg {
	__u32 enabled;		/* a supported LuaJIT VM is mapped */
	__u32 g2disp;		/* DISPATCH (r14) = G + g2disp */
	__u32 off_cur_L;	/* offsets in global_State */
	__u32 off_vmstate;
	__u32 off_jit_base;
	__u32 off_jit_trace;	/* G-relative address of J->trace (GCRef *) */
	__u64 vm_lo, vm_hi;	/* absolute: the VM code */
	__u64 leaf_lo, leaf_hi;	/* frameless helpers inside it (0: unknown) */
	__u64 ffi_lo, ffi_hi;	/* lj_vm_ffi_call: an rbp frame, unwound by its CFI */
	__s32 gwin_off;		/* the G window: G + gwin_off, gwin_len bytes (0: none), */
	__u32 gwin_len;		/* holds the G fields above and the main lua_State's */
	__u64 cp_ret;		/* absolute: lj_vm_cpcall's return address from its
				   C function (0: unknown), see LT_HOW_F_CP */
	/* Offsets from vm_lo, to keep this struct small: it is copied into the
	** walk's scratch, and when the windows after it moved by 24 bytes a sample
	** cost 9-26% more here (docs/PERFORMANCE.md, 2026-12-07 evening). */
	__u32 entry_ofs[LT_LUA_ENTRIES];	/* the VM entries' prologues */
	__u16 entry_len[LT_LUA_ENTRIES];	/* bytes from there through the store that
					   links the frame into L->cframe (0: none) */
	__u32 leave_ofs;	/* vm_leave_cp, where the VM returns to C (0: unknown);
				   a leaf from there to unw_ofs + unw_len, or in cp_len
				   bytes from cp_ret, runs no Lua frame */
	__u32 unw_ofs;		/* vm_leave_cp's epilogue after L->cframe's restore:
				   L's chain no longer names the frame */
	__u16 cp_len;
	__u16 unw_len;		/* bytes of unw_cfa in use */
	__u8 unw_cfa[LT_LUA_UNW_MAX];	/* per byte from unw_ofs: (CFA - rsp) / 8 where an
					   instruction starts, 0 elsewhere */
	__u16 link_ofs[LT_LUA_LINK_STORES];	/* the interpreter's stores of a new
					   frame's link from rbx (0: none) */
};

/* -- Layout checks ------------------------------------------------------------ */

_Static_assert(sizeof(struct lt_lua_frame) == 32, "lt_lua_frame layout");
_Static_assert(sizeof(struct lt_sample) ==
	       LT_SAMPLE_HEAD + 8 * (LT_MAX_USER + LT_MAX_KERNEL) + 32 * LT_MAX_LUA +
	       LT_TRACE_HDR + LT_MAX_USER, "lt_sample layout changed: bump the wire version");
_Static_assert(__builtin_offsetof(struct lt_sample, user) == LT_SAMPLE_HEAD,
	       "lt_sample head size");
_Static_assert(__builtin_offsetof(struct lt_sample, user_how) + LT_MAX_USER ==
	       sizeof(struct lt_sample), "user_how is last: the arrays pack in struct order");
_Static_assert(__builtin_offsetof(struct lt_batch, data) == LT_BATCH_HEAD, "lt_batch header");
_Static_assert(LT_BATCH_BYTES >= sizeof(struct lt_sample) + 2048,
	       "a batch holds the largest record and several typical ones");
_Static_assert(sizeof(struct lt_batch) <= 32768, "a batch fits a per-CPU map value");
_Static_assert(sizeof(struct lt_uregs) == 48, "lt_uregs layout");
_Static_assert(sizeof(struct lt_read) == 24, "lt_read layout");
_Static_assert(__builtin_offsetof(struct lt_capture, reads) == 72, "lt_capture header");
_Static_assert(sizeof(struct lt_capture) <= 32768, "a capture fits a per-CPU map value");
_Static_assert((LT_CAPTURE_READS & (LT_CAPTURE_READS - 1)) == 0, "LT_CAPTURE_READS: a power of two");
_Static_assert(sizeof(struct lt_uw_rule) == 8, "lt_uw_rule layout");
_Static_assert(sizeof(struct lt_uw_row) == 8, "lt_uw_row layout");
_Static_assert(sizeof(struct lt_uw_mapping) == 48, "lt_uw_mapping layout");
_Static_assert(sizeof(struct lt_uw_pidx) == 8, "lt_uw_pidx: an array map's element stride");
_Static_assert(sizeof(struct lt_uw_proc) == 8 + 48 * LT_MAX_MAPPINGS, "lt_uw_proc layout");
_Static_assert(sizeof(struct lt_lua_cfg) == 160, "lt_lua_cfg layout");
_Static_assert(sizeof(struct lt_uw_target) == 8, "lt_uw_target: one word");

_Static_assert((LT_MAX_USER & (LT_MAX_USER - 1)) == 0, "LT_MAX_USER: a power of two");
_Static_assert((LT_MAX_LUA & (LT_MAX_LUA - 1)) == 0, "LT_MAX_LUA: a power of two");
_Static_assert((LT_MAX_MAPPINGS & (LT_MAX_MAPPINGS - 1)) == 0, "LT_MAX_MAPPINGS: a power of two");
_Static_assert(LT_MAX_USER <= 0xffff && LT_MAX_KERNEL <= 0xffff && LT_MAX_LUA <= 0xffff,
	       "frame counts fit their __u16 fields");
_Static_assert(LT_SAMPLE_FLAGS_ALL <= 0xffff, "sample flags fit lt_sample.flags");
_Static_assert(LT_STOP__COUNT <= 0xff, "stop codes fit lt_sample.user_stop");
_Static_assert(LT_EVENT__COUNT <= 0xff, "events fit lt_sample.event");
_Static_assert(LT_HOW__END - 1 <= LT_HOW_MASK &&
	       !(LT_HOW_MASK & (LT_HOW_F_VM | LT_HOW_F_TRACE | LT_HOW_F_CP)),
	       "frame-how codes fit below the user_how flags");
_Static_assert(LT_LUA_KIND__END <= 0xff && LT_LINK_PCALLH <= 0xff, "Lua codes fit their __u8");
_Static_assert(LT_UW_KIND__COUNT <= 0xff, "rule kinds fit lt_uw_rule.kind");
_Static_assert(LT_DROP__COUNT <= 64, "drop counters: one small per-CPU array");

#endif
