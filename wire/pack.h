/*
** The packed sample record: how a struct lt_sample crosses the ring buffer and
** is kept in --record files. Its head whole, then each array cut to its count,
** in struct order:
**
**   head (LT_SAMPLE_HEAD) | user[n_user] | kernel[n_kernel] | lua[n_lua] |
**   trace_hdr (only when trace_T is set) | user_how[n_user]
**
** In a batch (struct lt_batch) a record whose trace header is the same as that
** of the latest record before it that carries one of the same trace (trace_T)
** leaves it out and says so (LT_SAMPLE_HDR_AS_BEFORE): 120 bytes less, and most
** samples of a CPU in JIT code run one of the last two traces its samples ran.
** The reader puts it back (lt_sample_restore_hdr) before anything else reads
** the record; a batch is sent or lost whole, so the header it refers to is
** always there.
**
** A LuaJIT sample of 12 native and 3 Lua frames is ~400 bytes instead of the
** struct's 4.4 KB: the sampler's ring buffer output costs by the byte and by
** the page it touches (docs/PERFORMANCE.md).
**
** Written once for both sides. The includer may define, before including:
**   LT_PACK_COPY(dst, src, n)  a copy of n bytes (BPF: bpf_probe_read_kernel);
**                              default __builtin_memcpy
**   LT_PACK_BOUND(x)           makes x opaque to the compiler before a clamp, so
**                              that the verifier sees the clamp on the register
**                              that is used (BPF); default nothing
*/
#ifndef LUATOP_WIRE_PACK_H
#define LUATOP_WIRE_PACK_H

#include "wire/luatop.h"

#ifndef LT_PACK_COPY
#define LT_PACK_COPY(dst, src, n) __builtin_memcpy((dst), (src), (n))
#endif
#ifndef LT_PACK_BOUND
#define LT_PACK_BOUND(x) ((void)0)
#endif

/* x = min(x, max), on one register from the comparison to every later use. */
#define LT_PACK_CLAMP(x, max) do {	\
	LT_PACK_BOUND(x);		\
	if ((x) > (max))		\
		(x) = (max);		\
	LT_PACK_BOUND(x);		\
} while (0)

/* The size of a record with these counts (each at most its array's size). */
static inline __attribute__((always_inline)) __u32
lt_sample_packed_size(__u32 n_user, __u32 n_kernel, __u32 n_lua, int trace)
{
	return LT_SAMPLE_HEAD + 9 * n_user + 8 * n_kernel +
	       (__u32)sizeof(struct lt_lua_frame) * n_lua + (trace ? LT_TRACE_HDR : 0);
}

/* Does a record with this head carry trace_hdr? */
static inline __attribute__((always_inline)) int
lt_sample_has_hdr(__u64 trace_T, __u16 flags)
{
	return trace_T && !(flags & LT_SAMPLE_HDR_AS_BEFORE);
}

/* Where trace_hdr starts in a record with these counts. */
static inline __attribute__((always_inline)) __u32
lt_sample_hdr_offset(__u32 n_user, __u32 n_kernel, __u32 n_lua)
{
	return LT_SAMPLE_HEAD + 8 * n_user + 8 * n_kernel + (__u32)sizeof(struct lt_lua_frame) * n_lua;
}

/* Pack s into out (room for sizeof(struct lt_sample)); returns the record's size. */
static inline __attribute__((always_inline)) __u32
lt_sample_pack(__u8 *out, const struct lt_sample *s)
{
	__u64 nu = s->n_user, nk = s->n_kernel, nl = s->n_lua, off = LT_SAMPLE_HEAD;
	__u64 tr = lt_sample_has_hdr(s->trace_T, s->flags) ? LT_TRACE_HDR : 0;

	LT_PACK_CLAMP(nu, LT_MAX_USER);
	LT_PACK_CLAMP(nk, LT_MAX_KERNEL);
	LT_PACK_CLAMP(nl, LT_MAX_LUA);
	LT_PACK_COPY(out, s, LT_SAMPLE_HEAD);
	LT_PACK_COPY(out + off, s->user, 8 * nu);
	off += 8 * nu;
	LT_PACK_COPY(out + off, s->kernel, 8 * nk);
	off += 8 * nk;
	LT_PACK_COPY(out + off, s->lua, sizeof(struct lt_lua_frame) * nl);
	off += sizeof(struct lt_lua_frame) * nl;
	LT_PACK_COPY(out + off, s->trace_hdr, tr);
	off += tr;
	LT_PACK_COPY(out + off, s->user_how, nu);
	return (__u32)(off + nu);
}

/*
** The size of the record at rec, from its head, when avail bytes hold all of
** it; else 0 (too short, or counts past their arrays). A batch's records are
** found one after the other so (struct lt_batch).
*/
static inline __u32 lt_sample_record_size(const void *rec, __u32 avail)
{
	struct lt_sample head;
	__u32 size;

	if (avail < LT_SAMPLE_HEAD)
		return 0;
	__builtin_memcpy(&head, rec, LT_SAMPLE_HEAD);
	if (head.n_user > LT_MAX_USER || head.n_kernel > LT_MAX_KERNEL || head.n_lua > LT_MAX_LUA)
		return 0;
	size = lt_sample_packed_size(head.n_user, head.n_kernel, head.n_lua,
				     lt_sample_has_hdr(head.trace_T, head.flags));
	return size <= avail ? size : 0;
}

/*
** The record rec of size bytes (lt_sample_record_size) with the trace header
** hdr put back, into out (room for sizeof(struct lt_sample)), when it left it
** out (LT_SAMPLE_HDR_AS_BEFORE); else rec as it is. Its new size; 0 when rec
** is not one whole record.
*/
static inline __u32 lt_sample_restore_hdr(__u8 *out, const __u8 *rec, __u32 size,
					  const __u8 *hdr)
{
	struct lt_sample head;
	__u32 at;

	if (!size || lt_sample_record_size(rec, size) != size)
		return 0;
	__builtin_memcpy(&head, rec, LT_SAMPLE_HEAD);
	if (!lt_sample_has_hdr(head.trace_T, 0) || lt_sample_has_hdr(head.trace_T, head.flags)) {
		__builtin_memcpy(out, rec, size);
		return size;
	}
	at = lt_sample_hdr_offset(head.n_user, head.n_kernel, head.n_lua);
	head.flags &= (__u16)~LT_SAMPLE_HDR_AS_BEFORE;
	__builtin_memcpy(out, &head, LT_SAMPLE_HEAD);
	__builtin_memcpy(out + LT_SAMPLE_HEAD, rec + LT_SAMPLE_HEAD, at - LT_SAMPLE_HEAD);
	__builtin_memcpy(out + at, hdr, LT_TRACE_HDR);
	__builtin_memcpy(out + at + LT_TRACE_HDR, rec + at, size - at);
	return size + LT_TRACE_HDR;
}

/*
** Unpack the record rec of size bytes into s. 0, or -1 when it is not one
** whole record (a count past its array, a size that does not match the
** counts, a trace header left out): s is then unspecified. Arrays past their counts are left as they
** were, but trace_hdr is zeroed when the record has none.
*/
static inline int lt_sample_unpack(struct lt_sample *s, const void *rec, __u32 size)
{
	const __u8 *in = (const __u8 *)rec + LT_SAMPLE_HEAD;

	if (size < LT_SAMPLE_HEAD)
		return -1;
	__builtin_memcpy(s, rec, LT_SAMPLE_HEAD);
	if (s->n_user > LT_MAX_USER || s->n_kernel > LT_MAX_KERNEL || s->n_lua > LT_MAX_LUA ||
	    (s->flags & LT_SAMPLE_HDR_AS_BEFORE) ||
	    size != lt_sample_packed_size(s->n_user, s->n_kernel, s->n_lua, s->trace_T != 0))
		return -1;
	__builtin_memcpy(s->user, in, 8 * (__u32)s->n_user);
	in += 8 * (__u32)s->n_user;
	__builtin_memcpy(s->kernel, in, 8 * (__u32)s->n_kernel);
	in += 8 * (__u32)s->n_kernel;
	__builtin_memcpy(s->lua, in, sizeof(struct lt_lua_frame) * s->n_lua);
	in += sizeof(struct lt_lua_frame) * s->n_lua;
	if (s->trace_T) {
		__builtin_memcpy(s->trace_hdr, in, LT_TRACE_HDR);
		in += LT_TRACE_HDR;
	} else {
		__builtin_memset(s->trace_hdr, 0, LT_TRACE_HDR);
	}
	__builtin_memcpy(s->user_how, in, s->n_user);
	return 0;
}

#endif
