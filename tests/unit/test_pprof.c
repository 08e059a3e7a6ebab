/*
** export/pprof.c: the pprof writer and reader, without go or protoc (the
** integration test t_pprof checks them against both).
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/folded.h"
#include "collect/labels.h"
#include "export/pprof.h"

/* A folded text through the model: frames and stacks. */
static void from_folded(const char *text, struct frametab *ft, struct stacktab *st)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char err[128];

	cr_assert_not_null(f);
	cr_assert_eq(folded__read(f, ft, st, err, sizeof(err)), 0, "%s", err);
	fclose(f);
}

static char *to_folded(const struct frametab *ft, const struct stacktab *st)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	cr_assert_eq(folded__write(f, ft, st), 0);
	fclose(f);
	return p;
}

static unsigned char *to_pprof(const struct frametab *ft, const struct stacktab *st, size_t *len)
{
	struct pprof_meta m = { .freq = 100, .time_ns = 1, .duration_ns = 2000000000 };
	char *p = NULL;
	FILE *f = open_memstream(&p, len);

	cr_assert_eq(pprof__write(f, ft, st, &m), 0);
	fclose(f);
	return (unsigned char *)p;
}

/* folded -> pprof -> folded gives the same bytes. */
static void round_trip(const char *text)
{
	struct frametab *ft = frametab__new(), *ft2 = frametab__new();
	struct stacktab *st = stacktab__new(), *st2 = stacktab__new();
	char err[128] = "", *a, *b;
	unsigned char *pb;
	size_t len;

	from_folded(text, ft, st);
	a = to_folded(ft, st);
	pb = to_pprof(ft, st, &len);
	cr_assert(pprof__sniff(pb, len));
	cr_assert_eq(pprof__read_mem(pb, len, ft2, st2, err, sizeof(err)), 0, "%s", err);
	b = to_folded(ft2, st2);
	cr_assert_str_eq(a, b);
	cr_assert_eq(stacktab__total(st), stacktab__total(st2));
	free(a);
	free(b);
	free(pb);
	frametab__delete(ft);
	frametab__delete(ft2);
	stacktab__delete(st);
	stacktab__delete(st2);
}

Test(pprof, round_trips)
{
	round_trip("main;a;b 5\nmain;a 3\nmain;c;b 2\n");
	round_trip("_start;main;handle (demo.lua:27);string.gsub;lj_str_new 7\n"
		   "_start;main;entry_SYSCALL_64_[k];do_syscall_64_[k] 2\n"
		   "[fallback];x;caf\xc3\xa9 \\xFF 1\n");
	round_trip("a 9223372036854775807\n");
	round_trip("");
}

/* A Lua frame's name becomes function, file and line; the rest stays whole. */
Test(pprof, lua_frames_carry_file_and_line)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	uint32_t ids[2];
	unsigned char *pb;
	size_t len;

	ids[0] = frametab__intern(ft, FRAME_NATIVE, "main", "luajit");
	ids[1] = frametab__intern(ft, FRAME_LUA, "render (app.lua:13)", "app.lua");
	cr_assert_eq(stacktab__add(st, ids, 2, 4), 0);
	pb = to_pprof(ft, st, &len);
	cr_assert_gt(len, 20);
	free(pb);
	frametab__delete(ft);
	stacktab__delete(st);
}

/* Whatever the bytes, the reader says what is wrong and never crashes. */
Test(pprof, bad_input_is_an_error)
{
	static const struct { const char *bytes; size_t len; const char *why; } bad[] = {
		{ "\x1f\x8bnot gzip", 10, "corrupt gzip data" },
		{ "\x0a\x05\x08", 3, "a malformed protobuf field" },		/* length past the end */
		{ "\x0b\x00", 2, "a malformed protobuf field" },		/* a group */
		{ "\x12\x04\x0a\x01\x07\x10", 6, "a malformed protobuf field" },
		{ "\x12\x05\x0a\x01\x07\x10\x01", 7, "a location id that no location has" },
	};
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct frametab *ft = frametab__new();
		struct stacktab *st = stacktab__new();

		err[0] = 0;
		cr_assert_eq(pprof__read_mem(bad[i].bytes, bad[i].len, ft, st, err, sizeof(err)),
			     -EINVAL, "case %zu", i);
		cr_assert(strstr(err, bad[i].why), "case %zu: %s", i, err);
		frametab__delete(ft);
		stacktab__delete(st);
	}
}

/* A gzip bomb stops at PPROF_RAW_MAX instead of eating memory. */
Test(pprof, inflate_is_bounded)
{
	size_t n = PPROF_RAW_MAX + 4096, len;
	unsigned char *zeros = calloc(1, n), *pb;
	char err[128] = "";
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();

	cr_assert_not_null(zeros);
	{
		z_stream z = { 0 };
		size_t cap = n / 500 + 4096;

		pb = malloc(cap);
		cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY), Z_OK);
		z.next_in = zeros;
		z.avail_in = (uInt)n;
		z.next_out = pb;
		z.avail_out = (uInt)cap;
		cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
		len = z.total_out;
		deflateEnd(&z);
	}
	cr_assert_eq(pprof__read_mem(pb, len, ft, st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "more than 256 MiB"), "%s", err);
	free(zeros);
	free(pb);
	frametab__delete(ft);
	stacktab__delete(st);
}

/* Label sets: one id per distinct set, stable, dense. */
Test(pprof, label_sets_intern)
{
	struct labelsets t = { 0 };
	struct collect_labels a = { .pid = 1, .tid = 2, .vm = 0, .merge = 1, .reason = -1 };
	struct collect_labels b = a;
	uint32_t ids[300];

	b.tid = 3;
	cr_assert_eq(labelsets__intern(&t, &a), 0);
	cr_assert_eq(labelsets__intern(&t, &b), 1);
	cr_assert_eq(labelsets__intern(&t, &a), 0);
	for (uint32_t i = 0; i < 300; i++) {	/* past a few rehashes */
		b.tid = 100 + i;
		ids[i] = labelsets__intern(&t, &b);
	}
	for (uint32_t i = 0; i < 300; i++) {
		b.tid = 100 + i;
		cr_assert_eq(labelsets__intern(&t, &b), ids[i]);
		cr_assert_eq(labelsets__get(&t, ids[i])->tid, 100 + i);
	}
	cr_assert_null(labelsets__get(&t, 100000));
	labelsets__free(&t);
}

/* An off-CPU or wall profile (counts in us) is written in nanoseconds under its
** one sample type and read back in us: folded -> pprof -> folded, same bytes. */
Test(pprof, timed_profiles_round_trip_in_microseconds)
{
	static const enum prof_event events[] = { EV_OFFCPU, EV_WALL };
	static const char text[] = "main;nap;usleep;schedule_[k] 30000\nmain;wait 1500\n";

	for (size_t i = 0; i < 2; i++) {
		struct pprof_meta m = { .freq = 99, .event = events[i], .duration_ns = 4000000000 };
		struct frametab *ft = frametab__new(), *ft2 = frametab__new();
		struct stacktab *st = stacktab__new(), *st2 = stacktab__new();
		char err[128] = "", *p = NULL, *a, *b;
		size_t len = 0;
		FILE *f;

		from_folded(text, ft, st);
		f = open_memstream(&p, &len);
		cr_assert_eq(pprof__write(f, ft, st, &m), 0);
		fclose(f);
		cr_assert_eq(pprof__read_mem(p, len, ft2, st2, err, sizeof(err)), 0, "%s", err);
		a = to_folded(ft, st);
		b = to_folded(ft2, st2);
		cr_assert_str_eq(a, b, "event %d", (int)events[i]);
		free(a);
		free(b);
		free(p);
		frametab__delete(ft);
		frametab__delete(ft2);
		stacktab__delete(st);
		stacktab__delete(st2);
	}
}
