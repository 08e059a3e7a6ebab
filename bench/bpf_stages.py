#!/usr/bin/env python3
"""Instrument a copy of bpf/sampler.bpf.c for bench/bpf_stages.sh (never built
into luatop): per-CPU sums, in a map named "stages", of the time of each stage
of a CPU sample (bpf_ktime_get_ns around it: each figure carries one clock read,
~30 ns here) and of the user-memory reads, user and kernel frames, rule memo misses and bytes sent. Usage: bpf_stages.py TREE
patches TREE/bpf/sampler.bpf.c, or prints the table from a `bpftool map dump -j`
of "stages" on stdin with --table. Exits 1 when the sampler no longer has the
text a probe goes in at: update the probes with it."""
import json
import sys

# index: name, in table order (0 counts the samples)
# "stack windows" is the time copying them, inside the two walk stages.
STAGES = [(12, "entry"), (1, "regs"), (13, "G cache"), (2, "stack windows"),
          (3, "LuaJIT + Lua frames"), (4, "native walk"),
          (6, "kernel stack"), (5, "pack"), (8, "batch: add, send (ring query and output)"), (9, "whole sample")]
READS, FRAMES, KFRAMES, MISSES, BYTES = 10, 11, 7, 14, 15

PROBES = [
    ("static __always_inline long logged_read(void *ctx, void *dst, __u32 size, __u64 addr);",
     """struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} stages SEC(".maps");
static __always_inline void ST(__u32 k, __u64 v)
{
	__u64 *x = bpf_map_lookup_elem(&stages, &k);

	if (x)
		*x += v;
}
#define ST_LAP(k) do { __u64 _t = bpf_ktime_get_ns(); ST((k), _t - t0); t0 = _t; } while (0)
static __always_inline long logged_read(void *ctx, void *dst, __u32 size, __u64 addr);"""),
    ("	long rc = bpf_probe_read_user(dst, size, (const void *)(unsigned long)addr);\n",
     "	long rc = bpf_probe_read_user(dst, size, (const void *)(unsigned long)addr);\n\tST(%d, 1);\n" % READS),
    ("	if (user_regs(&sw->u)) {", "	__u64 t0 = bpf_ktime_get_ns();\n\n	if (user_regs(&sw->u)) {"),
    ("	sw->stk_sp = sw->u.sp;\n", "	ST_LAP(1);\n	sw->stk_sp = sw->u.sp;\n"),
    ("	stack_window_done(sw);\n	lt_win_stack_plan(&p, addr, sw->stk_want);\n",
     "	__u64 t0 = bpf_ktime_get_ns();\n\n	stack_window_done(sw);\n	lt_win_stack_plan(&p, addr, sw->stk_want);\n"),
    ("	sw->stk_fills++;\n	return 0;\n", "	sw->stk_fills++;\n	ST(2, bpf_ktime_get_ns() - t0);\n	return 0;\n"),
    ("	if (capture_every)\n		capture_begin(", "	ST_LAP(13);\n	if (capture_every)\n		capture_begin("),
    ("	lt_walk_begin(w, &sw->u, cfg, G0, Gt != 0);\n", "	lt_walk_begin(w, &sw->u, cfg, G0, Gt != 0);\n	ST_LAP(3);\n"),
    ("	lt_walk_user(&sw->w);\n", "	__u64 t0 = bpf_ktime_get_ns();\n\n	lt_walk_user(&sw->w);\n	ST_LAP(4);\n	ST(%d, sw->w.s.n_user);\n" % FRAMES),
    ("	__u64 id = bpf_get_current_pid_tgid();\n	__u32 tgid = id >> 32, zero = 0;\n",
     "	__u64 te = bpf_ktime_get_ns();\n	__u64 id = bpf_get_current_pid_tgid();\n	__u32 tgid = id >> 32, zero = 0;\n"),
    ("	walk_current(tgid, (__u32)id, target);\n",
     "	__u64 t0 = bpf_ktime_get_ns(), t00 = te;\n\n	ST(12, t0 - te);\n	walk_current(tgid, (__u32)id, target);\n"
     "	ST(0, 1);\n	t0 = bpf_ktime_get_ns();\n"),
    ("		kernel_stack(ctx, sw);\n	send_walked();\n",
     "		kernel_stack(ctx, sw);\n	ST_LAP(6);\n	ST(%d, sw->w.s.n_kernel);\n	send_walked();\n"
     "	ST(9, bpf_ktime_get_ns() - t00);\n" % KFRAMES),
    ("	b->len = off + lt_sample_pack(b->data + off, &w->s);\n",
     "	__u64 t0 = bpf_ktime_get_ns();\n\n	b->len = off + lt_sample_pack(b->data + off, &w->s);\n"
     "	ST_LAP(5);\n	ST(%d, b->len - off);\n" % BYTES),
    ("		struct lt_uw_mapping map;\n", "		struct lt_uw_mapping map;\n\n		ST(%d, 1);\n" % MISSES),
    ("		batch_send(b, wake);\n	if (capture_every && sw->capturing)\n		capture_end(sw);",
     "		batch_send(b, wake);\n	ST_LAP(8);\n	if (capture_every && sw->capturing)\n		capture_end(sw);"),
]


def patch(tree):
    path = tree + "/bpf/sampler.bpf.c"
    src = open(path).read()
    for old, new in PROBES:
        if src.count(old) < 1:
            sys.exit("bpf_stages.py: sampler.bpf.c no longer has: " + old.strip()[:60])
        src = src.replace(old, new, 1)
    open(path, "w").write(src)


def table(name):
    v = [0] * 16
    for e in json.load(sys.stdin):
        k = e["key"] if isinstance(e["key"], int) else int("".join(reversed(e["key"])).replace("0x", ""), 16)
        for c in e["values"]:
            x = c["value"]
            v[k] += x if isinstance(x, int) else int("".join(reversed(x)).replace("0x", ""), 16)
    n = v[0] or 1
    cells = " ".join("%7.0f" % (v[k] / n) for k, _ in STAGES)
    print("%-26s %6d %s %6.1f %6.1f %6.1f %6.1f %6.0f" % (name[:26], v[0], cells, v[READS] / n,
                                                   v[FRAMES] / n, v[KFRAMES] / n, v[MISSES] / n,
                                                   v[BYTES] / n))


if __name__ == "__main__":
    if sys.argv[1] == "--header":
        print("%-26s %6s %s %6s %6s %6s %6s %6s" % ("workload (ns per sample)", "n", " ".join(
            "%7s" % s.split()[0][:7] for _, s in STAGES), "reads", "frames", "kframe", "misses", "bytes"))
    elif sys.argv[1] == "--table":
        table(sys.argv[2])
    else:
        patch(sys.argv[1])
