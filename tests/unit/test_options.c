/*
** Command-line parsing.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "cli/interval.h"
#include "cli/options.h"

static int parse(struct options *o, char *err, int argc, char **argv)
{
	return options__parse(argc, argv, o, err, 256);
}

#define ARGV(...) ((char *[]){ "luatop", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "luatop", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, ...) parse(o, err, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

Test(options, defaults_and_pid_list)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "-p", "12,34", "-o", "x.folded"), 0, "%s", err);
	cr_assert_eq(o.npids, 2);
	cr_assert_eq(o.pids[0], 12);
	cr_assert_eq(o.pids[1], 34);
	cr_assert_eq(o.freq, 99);
	cr_assert_float_eq(o.delay, 1.0, 1e-9);
	cr_assert_str_eq(o.output, "x.folded");
	cr_assert_null(o.cmd);
}

Test(options, command_after_dashes)
{
	char *argv[] = { "luatop", "-F", "499", "-o", "-", "--", "luajit", "-joff", "a.lua", NULL };
	struct options o;
	char err[256] = "";

	/* o.cmd points into argv, which must outlive it. */
	cr_assert_eq(options__parse(9, argv, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(o.freq, 499);
	cr_assert_str_eq(o.cmd[0], "luajit");
	cr_assert_str_eq(o.cmd[1], "-joff");
	cr_assert_str_eq(o.cmd[2], "a.lua");
	cr_assert_null(o.cmd[3]);
}

Test(options, long_options)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "--pid", "7", "--duration", "2.5", "--output", "f",
			   "--raw", "--freq", "1000", "--delay", "0.5"), 0, "%s", err);
	cr_assert_float_eq(o.duration, 2.5, 1e-9);
	cr_assert(o.raw);
	cr_assert_eq(o.freq, 1000);
	cr_assert_float_eq(o.delay, 0.5, 1e-9);
}

Test(options, help_and_version_need_no_target)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "--help"), 0);
	cr_assert(o.help);
	cr_assert_eq(PARSE(&o, err, "-V"), 0);
	cr_assert(o.version);
	cr_assert(strstr(options__usage(), "--duration"));
}

/* Each bad command line fails with a message naming the problem. */
Test(options, errors)
{
	const struct {
		const char *msg;
		int argc;
		char **argv;
	} cases[] = {
		{ "invalid PID 'abc'", ARGC("-p", "abc"), ARGV("-p", "abc") },
		{ "invalid PID '0'", ARGC("-p", "0"), ARGV("-p", "0") },
		{ "invalid PID '5x'", ARGC("-p", "5x"), ARGV("-p", "5x") },
		{ "invalid PID '99999999999'", ARGC("-p", "99999999999"), ARGV("-p", "99999999999") },
		{ "empty PID list", ARGC("-p", ","), ARGV("-p", ",") },
		{ "invalid frequency", ARGC("-p", "1", "-F", "0"), ARGV("-p", "1", "-F", "0") },
		{ "invalid frequency", ARGC("-p", "1", "-F", "20000"), ARGV("-p", "1", "-F", "20000") },
		{ "invalid duration", ARGC("-p", "1", "-o", "f", "--duration", "nan"),
		  ARGV("-p", "1", "-o", "f", "--duration", "nan") },
		{ "invalid duration", ARGC("-p", "1", "-o", "f", "--duration", "0"),
		  ARGV("-p", "1", "-o", "f", "--duration", "0") },
		{ "--duration needs -o", ARGC("-p", "1", "--duration", "3"),
		  ARGV("-p", "1", "--duration", "3") },
		{ "invalid delay", ARGC("-p", "1", "-d", "0.001"), ARGV("-p", "1", "-d", "0.001") },
		{ "no target", ARGC("-F", "99"), ARGV("-F", "99") },
		{ "give one of", ARGC("-p", "1", "--", "ls"), ARGV("-p", "1", "--", "ls") },
		{ "give one of", ARGC("-p", "1", "--all"), ARGV("-p", "1", "--all") },
		{ "unknown option '--bogus'", ARGC("--bogus"), ARGV("--bogus") },
		{ "option -p needs a value", ARGC("-p"), ARGV("-p") },
		{ "unexpected argument 'ls'", ARGC("-p", "1", "ls"), ARGV("-p", "1", "ls") },
		{ "option -o needs a file name", ARGC("-p", "1", "-o", ""), ARGV("-p", "1", "-o", "") },
		{ "option -i needs a file name", ARGC("-i", ""), ARGV("-i", "") },
		{ "option --diff needs a file name", ARGC("-i", "a", "--diff", ""),
		  ARGV("-i", "a", "--diff", "") },
		{ "option --record needs a file name", ARGC("-p", "1", "-o", "f", "--record", ""),
		  ARGV("-p", "1", "-o", "f", "--record", "") },
		{ "option --capture needs a file name", ARGC("-p", "1", "-o", "f", "--capture", ""),
		  ARGV("-p", "1", "-o", "f", "--capture", "") },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct options o;
		char err[256] = "";

		cr_assert_eq(options__parse(cases[i].argc, cases[i].argv, &o, err, sizeof(err)),
			     -EINVAL, "case %zu parsed", i);
		cr_assert(strstr(err, cases[i].msg), "case %zu: '%s' lacks '%s'", i, err,
			  cases[i].msg);
	}
}

Test(options, input_file_and_windows)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "-i", "x.folded"), 0, "%s", err);
	cr_assert_str_eq(o.input, "x.folded");
	cr_assert_eq(o.window, CT_CUMULATIVE);
	cr_assert_eq(o.span, CT_SPAN_DEFAULT);
	cr_assert_float_eq(o.half_life, CT_HALF_DEFAULT, 1e-9);
	cr_assert_eq(PARSE(&o, err, "--input", "y", "-w", "30s", "-d", "0.5"), 0, "%s", err);
	cr_assert_eq(o.window, CT_SLIDING);
	cr_assert_eq(o.span, 30);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "--window", "last:5"), 0, "%s", err);
	cr_assert_eq(o.window, CT_SLIDING);
	cr_assert_eq(o.span, 5);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "7"), 0, "%s", err);
	cr_assert_eq(o.span, 7);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "decay"), 0, "%s", err);
	cr_assert_eq(o.window, CT_DECAY);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "decay:2.5"), 0, "%s", err);
	cr_assert_float_eq(o.half_life, 2.5, 1e-9);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "cumulative"), 0, "%s", err);
	cr_assert_eq(o.window, CT_CUMULATIVE);
}

Test(options, every_names)
{
	char out[64];
	time_t t = 86400 * 365;	/* some day in 1971, local time */
	struct tm tm;
	char stamp[32];

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	cr_assert(interval__has_time("p-%t.pb.gz"));
	cr_assert(!interval__has_time("p-%%t.pb.gz"));
	cr_assert(!interval__has_time("p.pb.gz"));
	cr_assert_eq(interval__name("d/p-%t.folded", t, 1, out, sizeof(out)), 0);
	cr_assert(!strncmp(out, "d/p-", 4) && !strncmp(out + 4, stamp, 15) &&
		  !strcmp(out + 19, ".folded"), "%s", out);
	cr_assert_eq(interval__name("%t", t, 3, out, sizeof(out)), 0);	/* a taken name */
	cr_assert(!strcmp(out + 15, "-3"), "%s", out);
	cr_assert_eq(interval__name("100%%-%t", t, 1, out, sizeof(out)), 0);
	cr_assert(!strncmp(out, "100%-", 5), "%s", out);
	cr_assert_eq(interval__name("%t", t, 1, out, 10), -ENAMETOOLONG);
}

Test(options, format_from_name)
{
	cr_assert_eq(options__format_of("a.pb.gz"), FORMAT_PPROF);
	cr_assert_eq(options__format_of("dir.d/a.pprof"), FORMAT_PPROF);
	cr_assert_eq(options__format_of("a.folded"), FORMAT_FOLDED);
	cr_assert_eq(options__format_of("a.collapsed"), FORMAT_FOLDED);
	cr_assert_eq(options__format_of("/tmp/x.y/out"), FORMAT_FOLDED);	/* no extension */
	cr_assert_eq(options__format_of(".hidden"), FORMAT_FOLDED);
	cr_assert_eq(options__format_of("/dev/null"), FORMAT_FOLDED);
	cr_assert_eq(options__format_of("a.svg"), -1);
	cr_assert_eq(options__format_of("a.gz"), -1);
	cr_assert_eq(options__format_of(".pb.gz"), FORMAT_FOLDED);	/* a hidden file */
}

Test(options, input_and_window_errors)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "-i", "x", "-p", "1"), -EINVAL);
	cr_assert(strstr(err, "-i FILE"), "%s", err);
	cr_assert_eq(PARSE(&o, err, "-i", "x", "-o", "y.pb.gz"), 0);	/* a conversion */
	cr_assert_eq(o.format, FORMAT_PPROF);
	cr_assert_eq(PARSE(&o, err, "-i", "x", "-o", "y.svg"), -EINVAL);
	cr_assert(strstr(err, "--format folded|pprof"), "%s", err);
	cr_assert_eq(PARSE(&o, err, "-i", "x", "--raw", "-o", "y"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-i", "x", "--", "luajit"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-i"), -EINVAL);
	cr_assert(strstr(err, "needs a value"), "%s", err);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w"), -EINVAL);
	cr_assert(strstr(err, "needs a value"), "%s", err);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "0"), -EINVAL);
	cr_assert(strstr(err, "invalid window"), "%s", err);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "3601s"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "last:"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "decay:0"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "decay:x"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "soon"), -EINVAL);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-w", "last:10s"), -EINVAL);
}

Test(options, events_and_min_block)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "-p", "1", "-o", "x"), 0, "%s", err);
	cr_assert_eq(o.event, EV_CPU);
	cr_assert_eq(o.min_block_ns, 1000000, "default --min-block: 1 ms");
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-e", "offcpu"), 0, "%s", err);
	cr_assert_eq(o.event, EV_OFFCPU);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "--event", "wall", "--min-block", "250us"), 0, "%s", err);
	cr_assert_eq(o.event, EV_WALL);
	cr_assert_eq(o.min_block_ns, 250000);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-e", "wall", "--min-block", "2"), 0, "%s", err);
	cr_assert_eq(o.min_block_ns, 2000000, "no unit: milliseconds");
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-e", "wall", "--min-block", "0.5s"), 0, "%s", err);
	cr_assert_eq(o.min_block_ns, 500000000);
	cr_assert_eq(PARSE(&o, err, "-p", "1", "-e", "wall", "--min-block", "0"), 0, "%s", err);
	cr_assert_eq(o.min_block_ns, 0);
}

Test(options, event_errors)
{
	static const struct { const char *a, *b, *c, *d, *want; } bad[] = {
		{ "-e", "gpu", "-p", "1", "invalid event 'gpu'" },
		{ "-e", "wall", "--min-block", "1h", "invalid --min-block '1h'" },
		{ "-e", "wall", "--min-block", "-1ms", "invalid --min-block '-1ms'" },
		{ "-e", "wall", "--min-block", "11s", "invalid --min-block '11s'" },
		{ "-e", "wall", "--min-block", "ms", "invalid --min-block 'ms'" },
		{ "-p", "1", "--min-block", "2ms", "--min-block needs -e offcpu or -e wall" },
		{ "-i", "f.folded", "-e", "wall", "-i FILE shows" },
		{ "--tid", "x", "-F", "99", "invalid TID 'x'" },
		{ "--all", "--children", "-F", "99", "give one of" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct options o;
		char err[256] = "";
		char *argv[] = { "luatop", (char *)bad[i].a, (char *)bad[i].b, (char *)bad[i].c,
				 (char *)bad[i].d, "-p", "1", NULL };

		cr_assert_eq(parse(&o, err, 7, argv), -EINVAL, "%s %s %s %s", bad[i].a, bad[i].b,
			     bad[i].c, bad[i].d);
		cr_assert(strstr(err, bad[i].want), "got '%s', want '%s'", err, bad[i].want);
	}
}

Test(options, threads_and_children)
{
	struct options o;
	char err[256] = "";

	cr_assert_eq(PARSE(&o, err, "--tid", "12,13", "-o", "x"), 0, "%s", err);
	cr_assert_eq(o.ntids, 2);
	cr_assert_eq(o.tids[1], 13);
	cr_assert_eq(PARSE(&o, err, "-p", "7", "--tid", "8", "--children", "-o", "x"), -EINVAL);
	cr_assert(strstr(err, "--tid picks threads"), "%s", err);
	cr_assert_eq(PARSE(&o, err, "-p", "7", "--children"), 0, "%s", err);
	cr_assert(o.children);
	cr_assert_eq(PARSE(&o, err, "--children", "-o", "x"), -EINVAL);
	cr_assert(strstr(err, "no target") || strstr(err, "--children needs -p"), "%s", err);
}
