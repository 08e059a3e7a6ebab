/*
** Unit tests for profile/: frame interning, aggregated stacks, folded I/O.
*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* open_memstream, fopencookie */
#endif

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/folded.h"
#include "profile/frames.h"
#include "profile/stacks.h"

/* -- Helpers ------------------------------------------------------------ */

/* Folded text of (ft, st), malloc'd and NUL-terminated. */
static char *write_str(const struct frametab *ft, const struct stacktab *st)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	cr_assert_not_null(f);
	cr_assert_eq(folded__write(f, ft, st), 0);
	cr_assert_eq(fclose(f), 0);
	return p;
}

/* folded__read over the n bytes at s. */
static int read_mem(const char *s, size_t n, struct frametab *ft, struct stacktab *st,
		    char *err, size_t errlen)
{
	/* fmemopen wants a non-empty buffer on older glibc. */
	FILE *f = n ? fmemopen((void *)s, n, "r") : fopen("/dev/null", "r");
	int r;

	cr_assert_not_null(f);
	r = folded__read(f, ft, st, err, errlen);
	fclose(f);
	return r;
}

/* folded__read of a C string into fresh tables, then folded__write; NULL on a read error. */
static char *reread(const char *s, char *err, size_t errlen)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	char *out = NULL;

	if (!read_mem(s, strlen(s), ft, st, err, errlen))
		out = write_str(ft, st);
	frametab__delete(ft);
	stacktab__delete(st);
	return out;
}

/* Deterministic xorshift64, so every run feeds the same bytes. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* stacktab__foreach callback: sum counts into ctx[0], stacks into ctx[1]. */
static int sum_fn(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	uint64_t *acc = ctx;

	(void)frames;
	(void)n;
	acc[0] += count;
	acc[1]++;
	return 0;
}

/* stacktab__foreach callback: stop at the second stack. */
static int stop_fn(const uint32_t *frames, uint32_t n, uint64_t count, void *ctx)
{
	int *calls = ctx;

	(void)frames;
	(void)n;
	(void)count;
	return ++*calls == 2 ? 42 : 0;
}

/* -- Frames ------------------------------------------------------------- */

Test(profile, intern_identity)
{
	struct frametab *t = frametab__new();
	uint32_t a, b, c, d, e;
	const struct frame *f;

	cr_assert_not_null(t);
	a = frametab__intern(t, FRAME_NATIVE, "malloc", "libc.so.6");
	b = frametab__intern(t, FRAME_NATIVE, "malloc", "libc.so.6");
	c = frametab__intern(t, FRAME_KERNEL, "malloc", "libc.so.6");
	d = frametab__intern(t, FRAME_NATIVE, "malloc", "libjemalloc.so");
	e = frametab__intern(t, FRAME_NATIVE, "malloc", NULL);
	cr_assert_eq(a, 0);
	cr_assert_eq(a, b);
	cr_assert_neq(a, c);
	cr_assert_neq(a, d);
	cr_assert_neq(a, e);
	cr_assert_neq(c, d);
	cr_assert_eq(frametab__intern(t, FRAME_NATIVE, "malloc", ""), e);
	cr_assert_eq(frametab__intern(t, FRAME_NATIVE, "mallo", "clibc.so.6") == a, 0);
	cr_assert_eq(frametab__intern(t, FRAME_NATIVE, NULL, NULL),
		     frametab__intern(t, FRAME_NATIVE, "", NULL));
	cr_assert_eq(frametab__count(t), 6);
	f = frametab__get(t, c);
	cr_assert_eq(f->kind, FRAME_KERNEL);
	cr_assert_str_eq(f->name, "malloc");
	cr_assert_str_eq(f->module, "libc.so.6");
	cr_assert_null(frametab__get(t, e)->module);
	cr_assert_null(frametab__get(t, 6));
	cr_assert_null(frametab__get(t, UINT32_MAX));
	cr_assert_eq(frametab__intern(t, FRAME_KIND__COUNT, "x", NULL), UINT32_MAX);
	frametab__delete(t);
	frametab__delete(NULL);
}

Test(profile, intern_copies_strings)
{
	struct frametab *t = frametab__new();
	char name[] = "lua_pcall", mod[] = "luajit";
	uint32_t id = frametab__intern(t, FRAME_LUA_C, name, mod);

	name[0] = 'X';
	mod[0] = 'X';
	cr_assert_str_eq(frametab__get(t, id)->name, "lua_pcall");
	cr_assert_str_eq(frametab__get(t, id)->module, "luajit");
	cr_assert_eq(frametab__intern(t, FRAME_LUA_C, "lua_pcall", "luajit"), id);
	frametab__delete(t);
}

Test(profile, intern_growth)
{
	enum { N = 200000 };
	struct frametab *t = frametab__new();
	const struct frame *first;
	char name[64], big[100000];
	uint32_t i, id;

	first = frametab__get(t, frametab__intern(t, FRAME_LUA, "first", "chunk"));
	for (i = 1; i < N; i++) {
		snprintf(name, sizeof(name), "fn_%u", i);
		id = frametab__intern(t, (enum frame_kind)(i % FRAME_KIND__COUNT), name,
				      i % 3 ? "mod" : NULL);
		cr_assert_eq(id, i);
	}
	memset(big, 'b', sizeof(big) - 1);	/* bigger than an arena chunk */
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(frametab__intern(t, FRAME_NATIVE, big, NULL), N);
	cr_assert_eq(frametab__count(t), N + 1);
	for (i = 1; i < N; i += 7) {
		snprintf(name, sizeof(name), "fn_%u", i);
		cr_assert_eq(frametab__intern(t, (enum frame_kind)(i % FRAME_KIND__COUNT), name,
					      i % 3 ? "mod" : NULL), i);
		cr_assert_str_eq(frametab__get(t, i)->name, name);
	}
	cr_assert_eq(frametab__intern(t, FRAME_NATIVE, big, NULL), N);
	cr_assert_str_eq(frametab__get(t, N)->name, big);
	/* Pointers handed out before growth stay valid. */
	cr_assert_eq(frametab__get(t, 0), first);
	cr_assert_str_eq(first->name, "first");
	cr_assert_eq(frametab__count(t), N + 1);
	frametab__delete(t);
}

/* -- Stacks ------------------------------------------------------------- */

Test(profile, stacks_basic)
{
	struct stacktab *t = stacktab__new();
	uint32_t s1[] = { 1, 2, 3 }, s2[] = { 1, 2 }, s3[] = { 3, 2, 1 };
	uint64_t acc[2] = { 0 };
	int calls = 0;

	cr_assert_not_null(t);
	cr_assert_eq(stacktab__add(t, s1, 3, 5), 0);
	cr_assert_eq(stacktab__add(t, s2, 2, 1), 0);
	cr_assert_eq(stacktab__add(t, s3, 3, 2), 0);
	cr_assert_eq(stacktab__add(t, s1, 3, 10), 0);
	cr_assert_eq(stacktab__add(t, NULL, 0, 4), 0);
	cr_assert_eq(stacktab__add(t, s2, 0, 1), 0);	/* also the empty stack */
	cr_assert_eq(stacktab__add(t, NULL, 1, 1), -EINVAL);
	cr_assert_eq(stacktab__total(t), 23);
	cr_assert_eq(stacktab__unique(t), 4);
	cr_assert_eq(stacktab__foreach(t, sum_fn, acc), 0);
	cr_assert_eq(acc[0], 23);
	cr_assert_eq(acc[1], 4);
	cr_assert_eq(stacktab__foreach(t, stop_fn, &calls), 42);
	cr_assert_eq(calls, 2);

	stacktab__reset(t);
	cr_assert_eq(stacktab__total(t), 0);
	cr_assert_eq(stacktab__unique(t), 0);
	acc[0] = acc[1] = 0;
	cr_assert_eq(stacktab__foreach(t, sum_fn, acc), 0);
	cr_assert_eq(acc[1], 0);
	cr_assert_eq(stacktab__add(t, s3, 3, 7), 0);
	cr_assert_eq(stacktab__add(t, s3, 3, 1), 0);
	cr_assert_eq(stacktab__total(t), 8);
	cr_assert_eq(stacktab__unique(t), 1);

	cr_assert_eq(stacktab__add(t, s1, 3, UINT64_MAX), 0);	/* saturates */
	cr_assert_eq(stacktab__total(t), UINT64_MAX);
	stacktab__delete(t);
	stacktab__delete(NULL);
}

/* Fill t with n distinct stacks of 1..40 frames derived from i; the count of stack i is i + 1. */
static void fill_stacks(struct stacktab *t, uint32_t n)
{
	uint32_t buf[40], i, k, len;

	for (i = 0; i < n; i++) {
		len = 1 + i % 40;
		for (k = 0; k < len; k++)
			buf[k] = k + 1 == len ? i : k;
		cr_assert_eq(stacktab__add(t, buf, len, i + 1), 0);
	}
}

Test(profile, stacks_growth_and_reset)
{
	enum { N = 100000 };
	struct stacktab *t = stacktab__new();
	uint64_t want = (uint64_t)N * (N + 1) / 2, acc[2] = { 0 };
	uint32_t big[70000];
	int round;

	for (round = 0; round < 3; round++) {	/* reset must leave it reusable */
		fill_stacks(t, N);
		cr_assert_eq(stacktab__unique(t), N);
		cr_assert_eq(stacktab__total(t), want);
		fill_stacks(t, N);
		cr_assert_eq(stacktab__unique(t), N);
		cr_assert_eq(stacktab__total(t), 2 * want);
		memset(big, 0, sizeof(big));	/* bigger than an arena chunk */
		cr_assert_eq(stacktab__add(t, big, 70000, 1), 0);
		cr_assert_eq(stacktab__add(t, big, 70000, 1), 0);
		cr_assert_eq(stacktab__unique(t), N + 1);
		acc[0] = acc[1] = 0;
		stacktab__foreach(t, sum_fn, acc);
		cr_assert_eq(acc[0], 2 * want + 2);
		cr_assert_eq(acc[1], N + 1);
		stacktab__reset(t);
	}
	stacktab__delete(t);
}

/* -- Sanitizing --------------------------------------------------------- */

Test(profile, sanitize_cases)
{
	static const struct {
		const char *in, *out;
	} c[] = {
		{ "plain", "plain" },
		{ "a;b;c", "a:b:c" },
		{ "line\nbreak\r", "line?break?" },
		{ "tab\there\x01\x1f\x7f", "tab?here???" },
		{ "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "bad\xff", "bad\\xFF" },
		{ "\x80", "\\x80" },
		{ "cut\xc3", "cut\\xC3" },
		{ "\xc0\xaf", "\\xC0\\xAF" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\\xE0\\x80\\xAF" },		/* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\\xED\\xA0\\x80" },		/* surrogate */
		{ "\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80" },	/* above U+10FFFF */
		{ "\xf5\x80", "\\xF5\\x80" },
		{ "\xe2\x82x", "\\xE2\\x82x" },			/* truncated sequence */
		{ "", "[unknown]" },
		{ "foo 12", "foo_12" },
		{ " 7", "_7" },
		{ "a  7", "a _7" },
		{ "foo 1.5", "foo_1.5" },
		{ "foo 1.", "foo_1." },
		{ "foo .5", "foo .5" },
		{ "foo 12x", "foo 12x" },
		{ "12", "12" },
		{ "x 12 (a.lua:3)", "x 12 (a.lua:3)" },
		{ "foo\t12", "foo?12" },
	};
	char out[64];
	size_t i, n;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		n = folded__sanitize(c[i].in, out, sizeof(out));
		cr_assert_str_eq(out, c[i].out, "case %zu", i);
		cr_assert_eq(n, strlen(c[i].out), "case %zu", i);
	}
	cr_assert_eq(folded__sanitize(NULL, out, sizeof(out)), 9);
	cr_assert_str_eq(out, "[unknown]");
}

Test(profile, sanitize_truncation)
{
	char out[16];

	out[0] = 'Z';
	cr_assert_eq(folded__sanitize("abc", out, 0), 0);
	cr_assert_eq(out[0], 'Z');	/* outsz 0 writes nothing */
	cr_assert_eq(folded__sanitize("abc", out, 1), 0);
	cr_assert_str_eq(out, "");
	cr_assert_eq(folded__sanitize("abc", out, 3), 2);
	cr_assert_str_eq(out, "ab");
	/* "a\xc3\xa9": the two-byte character does not fit in 2 bytes of room. */
	cr_assert_eq(folded__sanitize("a\xc3\xa9", out, 3), 1);
	cr_assert_str_eq(out, "a");
	cr_assert_eq(folded__sanitize("a\xc3\xa9", out, 4), 3);
	cr_assert_str_eq(out, "a\xc3\xa9");
	cr_assert_eq(folded__sanitize("\xf0\x9f\x98\x80!", out, 4), 0);
	cr_assert_eq(folded__sanitize("\xf0\x9f\x98\x80!", out, 5), 4);
	/* An escape is not split either. */
	cr_assert_eq(folded__sanitize("x\xff", out, 5), 1);
	cr_assert_str_eq(out, "x");
	cr_assert_eq(folded__sanitize("x\xff", out, 6), 5);
	cr_assert_str_eq(out, "x\\xFF");
	/* The trailing-number rule applies to what was kept. */
	cr_assert_eq(folded__sanitize("foo 123456", out, 7), 6);
	cr_assert_str_eq(out, "foo_12");
	cr_assert_eq(folded__sanitize("", out, 4), 3);
	cr_assert_str_eq(out, "[un");
}

/* -- Writing ------------------------------------------------------------ */

Test(profile, write_golden)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	uint32_t main_ = frametab__intern(ft, FRAME_NATIVE, "main", "app");
	uint32_t pcall = frametab__intern(ft, FRAME_LUA_C, "lua_pcall", "libluajit.so");
	uint32_t sys = frametab__intern(ft, FRAME_KERNEL, "do_syscall_64", NULL);
	uint32_t semi = frametab__intern(ft, FRAME_LUA, "a;b", NULL);
	uint32_t nl = frametab__intern(ft, FRAME_LUA, "line\nbreak", NULL);
	uint32_t bad = frametab__intern(ft, FRAME_NATIVE, "bad\xff", NULL);
	uint32_t num = frametab__intern(ft, FRAME_LUA, "foo 12", NULL);
	uint32_t fb = frametab__intern(ft, FRAME_SPECIAL, "[fallback]", NULL);
	uint32_t dash = frametab__intern(ft, FRAME_SPECIAL, "-", NULL);
	uint32_t x = frametab__intern(ft, FRAME_NATIVE, "x", NULL);
	uint32_t x1y = frametab__intern(ft, FRAME_NATIVE, "x 1y", NULL);
	uint32_t s1[] = { main_, pcall, num }, s2[] = { main_, semi }, s3[] = { main_, sys };
	uint32_t s4[] = { fb, main_, dash, nl }, s5[] = { main_, bad }, s6[] = { main_ };
	uint32_t s7[] = { main_, pcall }, s8[] = { x }, s9[] = { x1y }, s10[] = { 12345 };
	static const char want[] =
		"[fallback];main;-;line?break 1\n"
		"[unknown] 6\n"
		"main 4\n"
		"main;a:b 2\n"
		"main;bad\\xFF 5\n"
		"main;do_syscall_64_[k] 7\n"
		"main;lua_pcall;foo_12 3\n"
		"x 1y 3\n"	/* LC_ALL=C sort: "x 1" < "x 5" */
		"x 5\n";
	char *out;

	stacktab__add(st, s1, 3, 3);
	stacktab__add(st, s2, 2, 2);
	stacktab__add(st, s3, 2, 7);
	stacktab__add(st, s4, 4, 1);
	stacktab__add(st, s5, 2, 5);
	stacktab__add(st, s6, 1, 4);
	stacktab__add(st, NULL, 0, 9);	/* empty: skipped */
	stacktab__add(st, s7, 2, 0);	/* zero count: skipped */
	stacktab__add(st, s8, 1, 5);
	stacktab__add(st, s9, 1, 3);
	stacktab__add(st, s10, 1, 6);	/* id not in ft */
	out = write_str(ft, st);
	cr_assert_str_eq(out, want);
	free(out);
	frametab__delete(ft);
	stacktab__delete(st);
}

Test(profile, write_merges_same_text)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	uint32_t a = frametab__intern(ft, FRAME_NATIVE, "f", "liba.so");
	uint32_t b = frametab__intern(ft, FRAME_NATIVE, "f", "libb.so");
	uint32_t c = frametab__intern(ft, FRAME_LUA, "f", NULL);
	uint32_t d = frametab__intern(ft, FRAME_NATIVE, "g;h", NULL);
	uint32_t e = frametab__intern(ft, FRAME_NATIVE, "g:h", NULL);
	char *out;

	stacktab__add(st, &a, 1, 1);
	stacktab__add(st, &b, 1, 2);
	stacktab__add(st, &c, 1, 3);
	stacktab__add(st, &d, 1, 4);
	stacktab__add(st, &e, 1, 5);
	out = write_str(ft, st);
	cr_assert_str_eq(out, "f 6\ng:h 9\n");
	free(out);
	stacktab__reset(st);
	out = write_str(ft, st);
	cr_assert_str_eq(out, "");
	free(out);
	frametab__delete(ft);
	stacktab__delete(st);
}

Test(profile, write_kernel_suffix_reads_back)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	uint32_t a = frametab__intern(ft, FRAME_NATIVE, "odd 2_[k]", NULL);
	uint32_t b = frametab__intern(ft, FRAME_KERNEL, "k 3", NULL);
	uint32_t c = frametab__intern(ft, FRAME_KERNEL, "", NULL);
	uint32_t s[] = { a, b, c };
	char err[64], *out, *again;

	stacktab__add(st, s, 3, 1);
	out = write_str(ft, st);
	/* "odd 2_[k]" reads back as kernel "odd 2", so it is written as that would be. */
	cr_assert_str_eq(out, "odd_2_[k];k_3_[k];[unknown]_[k] 1\n");
	again = reread(out, err, sizeof(err));
	cr_assert_str_eq(again, out);
	free(out);
	free(again);
	frametab__delete(ft);
	stacktab__delete(st);
}

Test(profile, write_sorted_and_long_names)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	char name[2000], *out, *line, *prev = NULL, *save = NULL;
	uint32_t ids[8], i, k, n;
	uint64_t seed = 0x1234;

	for (i = 0; i < 3000; i++) {
		n = 1 + rnd(&seed) % 8;
		for (k = 0; k < n; k++) {
			snprintf(name, sizeof(name), "%c%c%s%u", 'A' + (int)(rnd(&seed) % 60),
				 " ;_x"[rnd(&seed) % 4], k % 3 ? "" : " ", (unsigned)(rnd(&seed) % 20));
			ids[k] = frametab__intern(ft, (enum frame_kind)(rnd(&seed) % 2), name, NULL);
		}
		stacktab__add(st, ids, n, 1 + rnd(&seed) % 1000);
	}
	memset(name, '~', sizeof(name) - 1);	/* no random name starts with '~' */
	name[sizeof(name) - 1] = '\0';
	ids[0] = frametab__intern(ft, FRAME_KERNEL, name, NULL);
	stacktab__add(st, ids, 1, 1);
	out = write_str(ft, st);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (prev)
			cr_assert_lt(strcmp(prev, line), 0, "%s !< %s", prev, line);
		prev = line;
		if (line[0] == '~')	/* FOLDED_NAME_MAX bytes, then the suffix */
			cr_assert_eq(strlen(line), FOLDED_NAME_MAX + 4 + 2);
	}
	free(out);
	frametab__delete(ft);
	stacktab__delete(st);
}

/* A FILE whose writes always fail. */
static ssize_t fail_write(void *c, const char *buf, size_t n)
{
	(void)c;
	(void)buf;
	(void)n;
	errno = ENOSPC;
	return -1;
}

Test(profile, write_error)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	uint32_t a = frametab__intern(ft, FRAME_NATIVE, "a", NULL);
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = fail_write });

	stacktab__add(st, &a, 1, 1);
	cr_assert_eq(folded__write(f, ft, st), -ENOSPC);
	fclose(f);
	frametab__delete(ft);
	stacktab__delete(st);
}

/* -- Reading ------------------------------------------------------------ */

Test(profile, read_kinds_and_tolerance)
{
	static const char in[] =
		"main;read_[k];vfs_read_[k] 3\r\n"
		"\n"
		"  \t\r\n"
		"[fallback];main;-;loop_[j] 2\n"
		"main;_[k];a b c 1\n"
		"main;read_[k];vfs_read_[k] 4\n"
		"[unknown] 9";	/* no final '\n' */
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	char err[128] = "junk";
	const struct frame *f;
	uint32_t id;

	cr_assert_eq(read_mem(in, sizeof(in) - 1, ft, st, err, sizeof(err)), 0);
	cr_assert_str_eq(err, "");
	cr_assert_eq(stacktab__total(st), 19);
	cr_assert_eq(stacktab__unique(st), 4);
	id = frametab__intern(ft, FRAME_KERNEL, "vfs_read", NULL);
	cr_assert_lt(id, 9);	/* already there: no new id */
	cr_assert_lt(frametab__intern(ft, FRAME_LUA_JIT, "loop", NULL), 9);
	cr_assert_lt(frametab__intern(ft, FRAME_SPECIAL, "[fallback]", NULL), 9);
	cr_assert_lt(frametab__intern(ft, FRAME_SPECIAL, "-", NULL), 9);
	cr_assert_lt(frametab__intern(ft, FRAME_NATIVE, "_[k]", NULL), 9);
	cr_assert_lt(frametab__intern(ft, FRAME_NATIVE, "a b c", NULL), 9);
	cr_assert_lt(frametab__intern(ft, FRAME_NATIVE, "[unknown]", NULL), 9);
	cr_assert_eq(frametab__count(ft), 9);
	f = frametab__get(ft, id);
	cr_assert_str_eq(f->name, "vfs_read");
	frametab__delete(ft);
	stacktab__delete(st);
}

Test(profile, read_errors)
{
	static const struct {
		const char *in, *err;
	} c[] = {
		{ "a;b 5\nnocount\n", "line 2: no space before the count" },
		{ "a 5\n\nb x\n", "line 3: count is not a positive integer" },
		{ "a 0\n", "line 1: count is not a positive integer" },
		{ "a -5\n", "line 1: count is not a positive integer" },
		{ "a +5\n", "line 1: count is not a positive integer" },
		{ "a 5.0\n", "line 1: count is not a positive integer" },
		{ "a\t5\n", "line 1: no space before the count" },
		{ "a 1\r\nb 2\r\nc 9223372036854775809\r\n", "line 3: count is above 2^63" },
		{ "a 99999999999999999999999\n", "line 1: count is above 2^63" },
		{ "a 9223372036854775808\nb 9223372036854775807\nc 1\n",
		  "line 3: the counts add up to 2^64 or more" },
		{ "a;;b 3\n", "line 1: empty frame" },
		{ "a 1\na; 3\n", "line 2: empty frame" },
		{ ";a 3\n", "line 1: empty frame" },
		{ " 3\n", "line 1: empty frame" },
		{ "\n\n\n\na;b;c;", "line 5: no space before the count" },
	};
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct frametab *ft = frametab__new();
		struct stacktab *st = stacktab__new();

		cr_assert_eq(read_mem(c[i].in, strlen(c[i].in), ft, st, err, sizeof(err)), -EINVAL,
			     "case %zu", i);
		cr_assert_str_eq(err, c[i].err, "case %zu", i);
		frametab__delete(ft);
		stacktab__delete(st);
	}
}

Test(profile, read_nul_limit_and_max_count)
{
	static const char nul[] = "a 1\nx\0y 3\n";
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	size_t n = FOLDED_LINE_MAX + 16;
	char err[64], *big = malloc(n), *s;

	cr_assert_eq(read_mem(nul, sizeof(nul) - 1, ft, st, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "line 2: NUL byte");
	cr_assert_eq(read_mem("a 9223372036854775808\n", 22, ft, st, err, sizeof(err)), 0);
	cr_assert_eq(read_mem("", 0, ft, st, NULL, 0), 0);
	/* What other tools write: spaces and tabs after the count, blank lines. */
	s = "b;c 5  \r\n\r\n \t\nd 2\t\n";
	cr_assert_eq(read_mem(s, strlen(s), ft, st, err, sizeof(err)), 0, "%s", err);

	/* Exactly FOLDED_LINE_MAX bytes (plus CRLF) is fine, one more is not. */
	memset(big, 'z', n);
	s = big + 4;
	memcpy(big, "a 1\n", 4);
	memcpy(s + FOLDED_LINE_MAX - 2, " 1\r\n", 4);
	cr_assert_eq(read_mem(big, 4 + FOLDED_LINE_MAX + 2, ft, st, err, sizeof(err)), 0,
		     "%s", err);
	memcpy(s + FOLDED_LINE_MAX - 1, " 1\n", 3);
	cr_assert_eq(read_mem(big, 4 + FOLDED_LINE_MAX + 3, ft, st, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "line 2: longer than 1 MiB");
	memset(big, 'z', n);	/* no newline at all */
	cr_assert_eq(read_mem(big, n, ft, st, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "line 1: longer than 1 MiB");
	free(big);
	frametab__delete(ft);
	stacktab__delete(st);
}

Test(profile, round_trip)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new();
	const char *names[] = {
		"main", "a;b", "x\ny", "bad\xff\xfe", "foo 12", "[fallback]", "-", "do_sys_open",
		"caf\xc3\xa9 (init.lua:12)", "  spaced  ", "n 1.5", "", "weird_[k]", "n 7_[k]",
	};	/* not "x_[j]": read strips it, write adds it back only for "_[k]" */
	uint32_t ids[14], stack[6], i, k;
	uint64_t seed = 99;
	char err[64], *a, *b;

	for (i = 0; i < 14; i++)
		ids[i] = frametab__intern(ft, i == 7 ? FRAME_KERNEL : FRAME_LUA, names[i], NULL);
	for (i = 0; i < 500; i++) {
		uint32_t n = 1 + rnd(&seed) % 6;

		for (k = 0; k < n; k++)
			stack[k] = ids[rnd(&seed) % 14];
		stacktab__add(st, stack, n, 1 + rnd(&seed) % 50);
	}
	stack[0] = ids[0];
	stacktab__add(st, stack, 1, UINT64_MAX);	/* written as 2^63 */
	a = write_str(ft, st);
	cr_assert_not_null(strstr(a, "main 9223372036854775808\n"));
	b = reread(a, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
	frametab__delete(ft);
	stacktab__delete(st);
}

/* A random, mostly well-formed folded file in buf; returns its length. */
static size_t gen_folded(uint64_t *seed, char *buf, size_t size)
{
	static const char name[] = "ab _[k]j-\t\r\xff\xc3\xa9 09";
	size_t n = 0, lines = rnd(seed) % 6, i, f, k;

	for (i = 0; i < lines && n + 64 < size; i++) {
		size_t frames = 1 + rnd(seed) % 4;

		for (f = 0; f < frames && n + 40 < size; f++) {
			if (f)
				buf[n++] = ';';
			for (k = 1 + rnd(seed) % 6; k--;)
				buf[n++] = name[rnd(seed) % (sizeof(name) - 1)];
		}
		n += (size_t)snprintf(buf + n, size - n, " %u%s", (unsigned)(rnd(seed) % 30),
				      rnd(seed) % 4 ? "\n" : "\r\n");
	}
	for (k = rnd(seed) % 3; k-- && n;)	/* a few byte flips */
		buf[rnd(seed) % n] = (char)rnd(seed);
	return n;
}

Test(profile, read_fuzz)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char in[400], err[64];
	int i, ok = 0;

	for (i = 0; i < 4000; i++) {
		struct frametab *ft = frametab__new();
		struct stacktab *st = stacktab__new();
		size_t n, k;

		if (i % 2) {
			n = gen_folded(&seed, in, sizeof(in));
		} else {	/* any bytes at all */
			n = rnd(&seed) % sizeof(in);
			for (k = 0; k < n; k++)
				in[k] = (char)rnd(&seed);
		}
		if (!read_mem(in, n, ft, st, err, sizeof(err))) {
			/* What was read must write and reread to the same bytes. */
			char *a = write_str(ft, st), *b = reread(a, err, sizeof(err));

			cr_assert_not_null(b, "%s", err);
			if (!strstr(a, "_[j]"))	/* read strips it, write does not add it */
				cr_assert_str_eq(a, b);
			free(a);
			free(b);
			ok++;
		} else {
			cr_assert_eq(strncmp(err, "line ", 5), 0);
		}
		frametab__delete(ft);
		stacktab__delete(st);
	}
	cr_assert_gt(ok, 500, "only %d valid", ok);	/* the generator must reach the writer */
}

/* Special frames: interned once by role, and recognised when a file names them. */
Test(frames, special_frames)
{
	struct frametab *t = frametab__new(), *u = frametab__new();
	uint32_t fb = frametab__special(t, SPECIAL_FALLBACK);

	cr_assert_neq(fb, UINT32_MAX);
	cr_assert_eq(frametab__special(t, SPECIAL_FALLBACK), fb);
	cr_assert_str_eq(frametab__get(t, fb)->name, "[fallback]");
	cr_assert_eq(frametab__get(t, fb)->kind, FRAME_SPECIAL);
	cr_assert(frametab__is_special(t, fb, SPECIAL_FALLBACK));
	cr_assert_not(frametab__is_special(t, fb, SPECIAL_LUA));
	cr_assert_neq(frametab__special(t, SPECIAL_LUA), fb);
	/* Interned by name (a folded file's root): still the special frame. */
	fb = frametab__intern(u, FRAME_SPECIAL, "[fallback]", NULL);
	cr_assert(frametab__is_special(u, fb, SPECIAL_FALLBACK));
	cr_assert_not(frametab__is_special(u, frametab__intern(u, FRAME_NATIVE, "[lua]", NULL),
					   SPECIAL_LUA));
	cr_assert_str_eq(frame__special_name(SPECIAL_COROUTINE), "[coroutine]");
	frametab__delete(t);
	frametab__delete(u);
}
