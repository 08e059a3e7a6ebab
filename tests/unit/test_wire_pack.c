/*
** wire/pack.h: the packed sample record, as the sampler sends it.
*/
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "wire/pack.h"

static struct lt_sample in, out;
static __u8 rec[sizeof(struct lt_sample)];

/* A sample with n_user, n_kernel and n_lua frames of recognisable values. */
static void fill(unsigned nu, unsigned nk, unsigned nl, int trace)
{
	memset(&in, 0, sizeof(in));
	in.type = LT_WIRE_SAMPLE;
	in.tgid = 42;
	in.tid = 43;
	in.time_ns = 123456789;
	in.n_user = (__u16)nu;
	in.n_kernel = (__u16)nk;
	in.n_lua = (__u16)nl;
	in.vmstate = trace ? 7 : -1;
	in.G = 0x1000;
	in.L = 0x2000;
	in.trace_T = trace ? 0x3000 : 0;
	for (unsigned i = 0; i < LT_MAX_USER; i++) {
		in.user[i] = 0x400000 + i;
		in.user_how[i] = (__u8)(i % 5);
	}
	for (unsigned i = 0; i < LT_MAX_KERNEL; i++)
		in.kernel[i] = 0xffffffff81000000ull + i;
	for (unsigned i = 0; i < LT_MAX_LUA; i++)
		in.lua[i] = (struct lt_lua_frame){ .fn = 0x5000 + i, .pc = 0x6000 + i,
						   .kind = LT_LUA_LUA, .link = LT_LINK_LUA };
	for (unsigned i = 0; i < LT_TRACE_HDR; i++)
		in.trace_hdr[i] = (__u8)(i + 1);
}

/* Pack, unpack, and compare what the counts say is valid. */
static __u32 round_trip(void)
{
	__u32 size = lt_sample_pack(rec, &in);

	memset(&out, 0xa5, sizeof(out));
	cr_assert_eq(lt_sample_unpack(&out, rec, size), 0);
	cr_assert_eq(memcmp(&out, &in, LT_SAMPLE_HEAD), 0, "head");
	cr_assert_eq(memcmp(out.user, in.user, 8 * in.n_user), 0, "user");
	cr_assert_eq(memcmp(out.user_how, in.user_how, in.n_user), 0, "user_how");
	cr_assert_eq(memcmp(out.kernel, in.kernel, 8 * in.n_kernel), 0, "kernel");
	cr_assert_eq(memcmp(out.lua, in.lua, sizeof(in.lua[0]) * in.n_lua), 0, "lua");
	if (in.trace_T)
		cr_assert_eq(memcmp(out.trace_hdr, in.trace_hdr, LT_TRACE_HDR), 0, "trace_hdr");
	else
		for (unsigned i = 0; i < LT_TRACE_HDR; i++)
			cr_assert_eq(out.trace_hdr[i], 0, "no trace: trace_hdr zeroed");
	return size;
}

Test(wire_pack, a_sample_round_trips_at_its_size)
{
	fill(12, 0, 3, 1);
	cr_assert_eq(round_trip(), LT_SAMPLE_HEAD + 12 * 9 + 3 * 32 + LT_TRACE_HDR);
	fill(6, 20, 0, 0);
	cr_assert_eq(round_trip(), LT_SAMPLE_HEAD + 6 * 9 + 20 * 8);
	fill(0, 0, 0, 0);
	cr_assert_eq(round_trip(), LT_SAMPLE_HEAD);
}

Test(wire_pack, full_arrays_fill_the_struct_exactly)
{
	fill(LT_MAX_USER, LT_MAX_KERNEL, LT_MAX_LUA, 1);
	cr_assert_eq(round_trip(), sizeof(struct lt_sample));
}

Test(wire_pack, counts_past_the_arrays_are_cut_when_packed)
{
	fill(0, 0, 0, 0);
	in.n_user = LT_MAX_USER + 5;
	in.n_kernel = 0xffff;
	in.n_lua = LT_MAX_LUA + 1;
	/* The head keeps the counts as they were: such a record is refused. */
	cr_assert_leq(lt_sample_pack(rec, &in), sizeof(struct lt_sample));
	cr_assert_eq(lt_sample_unpack(&out, rec, sizeof(struct lt_sample)), -1);
}

Test(wire_pack, records_that_do_not_match_their_counts_are_refused)
{
	__u32 size;

	fill(10, 2, 4, 1);
	size = lt_sample_pack(rec, &in);
	cr_assert_eq(lt_sample_unpack(&out, rec, size - 1), -1, "short");
	cr_assert_eq(lt_sample_unpack(&out, rec, size + 8), -1, "long");
	cr_assert_eq(lt_sample_unpack(&out, rec, LT_SAMPLE_HEAD - 1), -1, "no head");
	cr_assert_eq(lt_sample_unpack(&out, rec, 0), -1, "empty");
	memset(rec + offsetof(struct lt_sample, trace_T), 0, 8);	/* now 120 bytes too long */
	cr_assert_eq(lt_sample_unpack(&out, rec, size), -1, "trace flag");
}

/* A batch's records are found one after another from their heads. */
Test(wire_pack, a_batch_is_walked_record_by_record)
{
	static const unsigned shapes[][4] = { { 12, 0, 3, 1 }, { 6, 20, 0, 0 }, { 0, 0, 0, 0 } };
	static __u8 batch[3 * sizeof(struct lt_sample)];
	__u32 sizes[3], len = 0, off = 0;

	for (unsigned i = 0; i < 3; i++) {
		fill(shapes[i][0], shapes[i][1], shapes[i][2], (int)shapes[i][3]);
		sizes[i] = lt_sample_pack(batch + len, &in);
		len += sizes[i];
	}
	for (unsigned i = 0; i < 3; i++) {
		__u32 rec_size = lt_sample_record_size(batch + off, len - off);

		cr_assert_eq(rec_size, sizes[i], "record %u", i);
		cr_assert_eq(lt_sample_unpack(&out, batch + off, rec_size), 0);
		cr_assert_eq(out.n_user, shapes[i][0]);
		cr_assert_eq(out.n_kernel, shapes[i][1]);
		off += rec_size;
	}
	cr_assert_eq(off, len);
}

Test(wire_pack, a_record_cut_short_or_past_its_arrays_has_no_size)
{
	__u32 size;

	fill(10, 2, 4, 1);
	size = lt_sample_pack(rec, &in);
	cr_assert_eq(lt_sample_record_size(rec, size), size);
	cr_assert_eq(lt_sample_record_size(rec, size - 1), 0, "cut short");
	cr_assert_eq(lt_sample_record_size(rec, LT_SAMPLE_HEAD - 1), 0, "no head");
	in.n_user = LT_MAX_USER + 1;
	memcpy(rec, &in, LT_SAMPLE_HEAD);
	cr_assert_eq(lt_sample_record_size(rec, sizeof(rec)), 0, "count past its array");
}

/* In a batch, a record may leave out a trace header the one before carried;
** the reader puts it back and gets the record the sample packs to whole. */
Test(wire_pack, a_trace_header_left_out_is_put_back)
{
	static __u8 whole[sizeof(struct lt_sample)], restored[sizeof(struct lt_sample)];
	__u32 size_whole, size_short, size;

	fill(9, 3, 2, 1);
	size_whole = lt_sample_pack(whole, &in);
	in.flags |= LT_SAMPLE_HDR_AS_BEFORE;
	size_short = lt_sample_pack(rec, &in);
	cr_assert_eq(size_short, size_whole - LT_TRACE_HDR);
	cr_assert_eq(lt_sample_record_size(rec, size_short), size_short, "its size from its head");
	cr_assert_eq(lt_sample_unpack(&out, rec, size_short), -1, "not unpacked as it is");

	size = lt_sample_restore_hdr(restored, rec, size_short, in.trace_hdr);
	cr_assert_eq(size, size_whole);
	cr_assert_eq(memcmp(restored, whole, size_whole), 0, "the whole record");
	in.flags &= (__u16)~LT_SAMPLE_HDR_AS_BEFORE;
	round_trip();
}

Test(wire_pack, a_record_with_its_header_or_none_is_kept_as_it_is)
{
	static __u8 restored[sizeof(struct lt_sample)];
	static const __u8 other[LT_TRACE_HDR] = { 0xee };
	__u32 size;

	fill(4, 0, 1, 1);
	size = lt_sample_pack(rec, &in);
	cr_assert_eq(lt_sample_restore_hdr(restored, rec, size, other), size);
	cr_assert_eq(memcmp(restored, rec, size), 0);
	fill(4, 0, 1, 0);
	in.flags |= LT_SAMPLE_HDR_AS_BEFORE;	/* no trace: nothing was left out */
	size = lt_sample_pack(rec, &in);
	cr_assert_eq(lt_sample_restore_hdr(restored, rec, size, other), size);
	cr_assert_eq(memcmp(restored, rec, size), 0);
}

Test(wire_pack, a_broken_record_is_not_restored)
{
	static __u8 restored[sizeof(struct lt_sample)];
	__u32 size;

	fill(4, 0, 1, 1);
	in.flags |= LT_SAMPLE_HDR_AS_BEFORE;
	size = lt_sample_pack(rec, &in);
	cr_assert_eq(lt_sample_restore_hdr(restored, rec, size - 1, in.trace_hdr), 0, "cut short");
	cr_assert_eq(lt_sample_restore_hdr(restored, rec, size + 1, in.trace_hdr), 0, "too long");
	cr_assert_eq(lt_sample_restore_hdr(restored, rec, 0, in.trace_hdr), 0, "empty");
}
