/*
** Command-line parsing: getopt_long plus strict number checks.
*/
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/interval.h"
#include "cli/options.h"

enum { OPT_DURATION = 256, OPT_RAW, OPT_CAPTURE, OPT_RECORD, OPT_LINES, OPT_MARK_FALLBACK,
       OPT_FORMAT, OPT_EVERY, OPT_ALL, OPT_MIN_BLOCK, OPT_CHILDREN, OPT_TID, OPT_DIFF };

static const struct option long_opts[] = {
	{ "pid",	required_argument, NULL, 'p' },
	{ "freq",	required_argument, NULL, 'F' },
	{ "event",	required_argument, NULL, 'e' },
	{ "min-block",	required_argument, NULL, OPT_MIN_BLOCK },
	{ "output",	required_argument, NULL, 'o' },
	{ "format",	required_argument, NULL, OPT_FORMAT },
	{ "every",	required_argument, NULL, OPT_EVERY },
	{ "all",	no_argument,	   NULL, OPT_ALL },
	{ "children",	no_argument,	   NULL, OPT_CHILDREN },
	{ "tid",	required_argument, NULL, OPT_TID },
	{ "diff",	required_argument, NULL, OPT_DIFF },
	{ "duration",	required_argument, NULL, OPT_DURATION },
	{ "delay",	required_argument, NULL, 'd' },
	{ "raw",	no_argument,	   NULL, OPT_RAW },
	{ "lines",	no_argument,	   NULL, OPT_LINES },
	{ "mark-fallback", no_argument,	   NULL, OPT_MARK_FALLBACK },
	{ "input",	required_argument, NULL, 'i' },
	{ "window",	required_argument, NULL, 'w' },
	{ "capture",	required_argument, NULL, OPT_CAPTURE },
	{ "record",	required_argument, NULL, OPT_RECORD },
	{ "verbose",	no_argument,	   NULL, 'v' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char usage[] =
"Usage: luatop [options] -p PID[,PID...]\n"
"       luatop [options] -- COMMAND [ARGS...]\n"
"       luatop [-w WINDOW] [-d SECONDS] -i FILE [--diff BASE]\n"
"\n"
"Live profiler for LuaJIT programs: samples the target with eBPF and shows where\n"
"its time goes. Needs root (or CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE).\n"
"\n"
"Target:\n"
"  -p, --pid PID[,PID...]   profile running processes (all their threads)\n"
"      --all                every process of this host that runs LuaJIT, also those\n"
"                           that start later; each stack rooted at [PID comm]\n"
"      --tid TID[,TID...]   only these threads (with -p: of those processes; else\n"
"                           their processes are the targets); T lists them live\n"
"      --children           with -p: the processes' children too, and theirs, also\n"
"                           those forked later (an nginx master: its workers); each\n"
"                           stack rooted at [PID comm]\n"
"  -- COMMAND [ARGS...]     start COMMAND and profile it from its first instruction;\n"
"                           luatop exits with its status (128+N: killed by signal N)\n"
"\n"
"Sampling:\n"
"  -F, --freq HZ            samples per second on each CPU (default 99)\n"
"  -e, --event EVENT        cpu: where the CPU time goes, in samples (default);\n"
"                           offcpu: where threads wait blocked in system calls\n"
"                           (sleep, I/O, locks), in microseconds; wall: both on one\n"
"                           time scale (a CPU sample weighs 1/HZ s), in microseconds.\n"
"                           offcpu and wall trace every context switch and system\n"
"                           call return; e cycles the three in the live view\n"
"      --min-block TIME     offcpu, wall: blocks shorter than TIME (N, Nus, Nms, Ns;\n"
"                           N is ms; default 1ms) are counted, not walked\n"
"      --raw                do not merge Lua and native stacks\n"
"      --lines              Lua frames at line granularity (default: per function)\n"
"\n"
"Output:\n"
"  -o, --output FILE        batch mode: no TUI; write the profile to FILE when sampling\n"
"                           ends: *.pb.gz or *.pprof pprof, *.folded (.collapsed, .txt,\n"
"                           no extension, '-' for stdout) folded stacks (checked first;\n"
"                           never through a symlink, replaced whole; see man luatop)\n"
"      --format FORMAT      folded or pprof, whatever -o's name says\n"
"      --every SECONDS      a profile per interval: -o's %t becomes each interval's\n"
"                           start (YYYYmmdd-HHMMSS), e.g. -o 'prof-%t.pb.gz'\n"
"      --duration SECONDS   stop after SECONDS; without it, sampling runs until the\n"
"                           targets exit or luatop gets SIGINT/SIGTERM\n"
"      --mark-fallback      root the stacks that could not be merged at [fallback]\n"
"\n"
"Live view:\n"
"  -d, --delay SECONDS      refresh interval (default 1)\n"
"  -w, --window WINDOW      window shown first: cumulative (default), last:N or Ns\n"
"                           (the last N seconds, default 10), decay[:N] (decaying,\n"
"                           half-life N seconds, default 10); w cycles them live\n"
"  -i, --input FILE         show a saved profile, folded (from -o or the s key) or\n"
"                           pprof: no target, no BPF, no root needed; with -o FILE2,\n"
"                           convert it to FILE2's format instead\n"
"      --diff BASE          with -i: each frame's change of share from the saved\n"
"                           profile BASE to FILE (b takes a baseline live)\n"
"\n"
"      --capture DIR        debugging: also write walk fixtures (registers, the walk's\n"
"                           memory reads and the in-kernel result) of some samples to DIR\n"
"      --record FILE        debugging and benchmarks: also write every sample as the\n"
"                           sampler sent it to FILE (a new file)\n"
"  -v, --verbose            print libbpf and loader diagnostics to stderr\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Without -o, luatop needs a terminal and shows the live view: an icicle tree of\n"
"the stacks (? lists the keys, q quits; see man luatop).\n"
"Native user stacks are unwound in the kernel from each binary's .eh_frame, so\n"
"binaries without frame pointers (most distribution packages) unwind fully.\n"
"In LuaJIT processes (2.1, x86-64 GC64: upstream and OpenResty), the Lua frames\n"
"of the running coroutine replace the VM frames they ran in.\n";

const char *options__usage(void)
{
	return usage;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A positive int from the whole of s. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Seconds as a finite positive decimal. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e7)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A time of at most 10 s as nanoseconds: N, Nus, Nms or Ns (N: a decimal, ms
** without a unit), 0 allowed. */
static int parse_time_ns(const char *s, uint64_t *out)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1e6 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0 || *s == '-' || *s == '+')
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit) && v * units[i].ns <= 1e10) {
			*out = (uint64_t)llround(v * units[i].ns);
			return 0;
		}
	return -EINVAL;
}

/* A list "N[,N...]" of ids into ids[*n..OPT_MAX_PIDS): what names what they are. */
static int parse_ids(int *ids, unsigned *n, const char *what, const char *arg, char *err,
		     size_t errlen)
{
	char buf[1024], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return fail(err, errlen, "%s list too long", what);
	strcpy(buf, arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long id;

		if (parse_int(t, 1, INT_MAX, &id))
			return fail(err, errlen, "invalid %s '%s'", what, t);
		if (*n == OPT_MAX_PIDS)
			return fail(err, errlen, "at most %d %ss", OPT_MAX_PIDS, what);
		ids[(*n)++] = (int)id;
	}
	if (!*n)
		return fail(err, errlen, "empty %s list", what);
	return 0;
}

/* -w: cumulative, last:N, Ns, N, decay, decay:N. */
static int parse_window(struct options *o, const char *arg)
{
	const char *p = arg;
	char tmp[32];
	long n;

	if (!strcmp(arg, "cumulative") || !strcmp(arg, "cum")) {
		o->window = CT_CUMULATIVE;
		return 0;
	}
	if (!strncmp(arg, "decay", 5)) {
		o->window = CT_DECAY;
		if (!arg[5])
			return 0;
		if (arg[5] != ':' || parse_seconds(arg + 6, &o->half_life) ||
		    o->half_life > CT_SPAN_MAX)
			return -EINVAL;
		return 0;
	}
	if (!strncmp(arg, "last:", 5))
		p = arg + 5;
	snprintf(tmp, sizeof(tmp), "%s", p);
	if (strlen(p) >= sizeof(tmp))
		return -EINVAL;
	if (p == arg && tmp[0] && tmp[strlen(tmp) - 1] == 's')
		tmp[strlen(tmp) - 1] = '\0';
	if (parse_int(tmp, 1, CT_SPAN_MAX, &n))
		return -EINVAL;
	o->window = CT_SLIDING;
	o->span = (unsigned)n;
	return 0;
}

/* A file option's value; an empty name is refused now: it would be opened as
** nothing and fail only at the end, a whole run later. */
static int set_file(const char **dst, const char *opt, const char *arg, char *err,
		    size_t errlen)
{
	if (!*arg)
		return fail(err, errlen, "option %s needs a file name, not an empty one", opt);
	*dst = arg;
	return 0;
}

static int parse_one(struct options *o, int c, const char *arg, char *err, size_t errlen)
{
	long v;

	switch (c) {
	case 'p':
		return parse_ids(o->pids, &o->npids, "PID", arg, err, errlen);
	case OPT_TID:
		return parse_ids(o->tids, &o->ntids, "TID", arg, err, errlen);
	case 'F':
		if (parse_int(arg, 1, OPT_MAX_HZ, &v))
			return fail(err, errlen, "invalid frequency '%s' (1..%d Hz)", arg,
				    OPT_MAX_HZ);
		o->freq = (unsigned)v;
		return 0;
	case 'e':
		for (int e = 0; e < EV__COUNT; e++)
			if (!strcmp(arg, prof_event__name((enum prof_event)e))) {
				o->event = (enum prof_event)e;
				return 0;
			}
		return fail(err, errlen, "invalid event '%s' (cpu, offcpu or wall)", arg);
	case OPT_MIN_BLOCK:
		if (parse_time_ns(arg, &o->min_block_ns))
			return fail(err, errlen, "invalid --min-block '%s' (a time: N, Nus, Nms or "
				    "Ns, N is ms, up to 10 s)", arg);
		o->min_block_set = 1;
		return 0;
	case 'o':
		return set_file(&o->output, "-o", arg, err, errlen);
	case OPT_FORMAT:
		if (!strcmp(arg, "folded"))
			o->format = FORMAT_FOLDED;
		else if (!strcmp(arg, "pprof"))
			o->format = FORMAT_PPROF;
		else
			return fail(err, errlen, "invalid format '%s' (folded or pprof)", arg);
		o->format_set = 1;
		return 0;
	case OPT_ALL:
		o->all = 1;
		return 0;
	case OPT_CHILDREN:
		o->children = 1;
		return 0;
	case OPT_EVERY:
		if (parse_seconds(arg, &o->every) || o->every < 1)
			return fail(err, errlen, "invalid interval '%s' (seconds >= 1)", arg);
		return 0;
	case OPT_DURATION:
		if (parse_seconds(arg, &o->duration))
			return fail(err, errlen, "invalid duration '%s' (seconds > 0)", arg);
		return 0;
	case 'd':
		if (parse_seconds(arg, &o->delay) || o->delay < 0.05)
			return fail(err, errlen, "invalid delay '%s' (seconds >= 0.05)", arg);
		return 0;
	case OPT_RAW:
		o->raw = 1;
		return 0;
	case OPT_LINES:
		o->lines = 1;
		return 0;
	case OPT_MARK_FALLBACK:
		o->mark_fallback = 1;
		return 0;
	case 'i':
		return set_file(&o->input, "-i", arg, err, errlen);
	case OPT_DIFF:
		return set_file(&o->diff, "--diff", arg, err, errlen);
	case 'w':
		if (parse_window(o, arg))
			return fail(err, errlen, "invalid window '%s' (cumulative, last:N or Ns "
				    "with N in 1..%u, decay or decay:SECONDS)", arg, CT_SPAN_MAX);
		return 0;
	case OPT_CAPTURE:
		return set_file(&o->capture, "--capture", arg, err, errlen);
	case OPT_RECORD:
		return set_file(&o->record, "--record", arg, err, errlen);
	case 'v':
		o->verbose = 1;
		return 0;
	case 'h':
		o->help = 1;
		return 0;
	case 'V':
		o->version = 1;
		return 0;
	}
	return fail(err, errlen, "unknown option (try --help)");
}

static int check(const struct options *o, char *err, size_t errlen)
{
	if (o->help || o->version)
		return 0;
	if (o->input && (o->npids || o->ntids || o->cmd || o->all || o->children || o->duration ||
			 o->capture ||
			 o->record ||
			 o->raw || o->lines || o->mark_fallback || o->event || o->min_block_set))
		return fail(err, errlen, "-i FILE shows (or with -o converts) a file: it takes "
			    "no -p, -- COMMAND, --all, --duration, --capture, --record, --raw, --lines, "
			    "--mark-fallback, -e or --min-block");
	if (o->diff && (!o->input || o->output))
		return fail(err, errlen, "--diff BASE compares with -i FILE in the live view "
			    "(not with -o)");
	if (o->input)
		return 0;
	if (!o->npids && !o->cmd && !o->all && !o->ntids)
		return fail(err, errlen, "no target: give -p PID, --tid TID, -- COMMAND or --all "
			    "(try --help)");
	if (o->ntids && (o->cmd || o->all || o->children))
		return fail(err, errlen, "--tid picks threads of -p PID's processes, or of its own: "
			    "not with -- COMMAND, --all or --children");
	if (!!o->npids + !!o->cmd + !!o->all > 1)
		return fail(err, errlen, "give one of -p PID, -- COMMAND and --all");
	if (o->children && !o->npids)
		return fail(err, errlen, "--children needs -p PID");
	if (o->min_block_set && !prof_event__timed(o->event))
		return fail(err, errlen, "--min-block needs -e offcpu or -e wall");
	if (o->duration && !o->output)
		return fail(err, errlen, "--duration needs -o FILE (batch mode)");
	if (o->format_set && !o->output)
		return fail(err, errlen, "--format needs -o FILE");
	if (o->every && (!o->output || o->input || !strcmp(o->output, "-")))
		return fail(err, errlen, "--every needs -o with a file name pattern (batch mode)");
	if (o->every && !interval__has_time(o->output))
		return fail(err, errlen, "--every: put %%t (the interval's start time) in -o's "
			    "name, e.g. -o 'prof-%%t.pb.gz'");
	return 0;
}

/* Known extensions, longest first where one ends another. */
static const struct { const char *ext; enum out_format fmt; } formats[] = {
	{ ".pb.gz", FORMAT_PPROF },
	{ ".pprof", FORMAT_PPROF },
	{ ".folded", FORMAT_FOLDED },
	{ ".collapsed", FORMAT_FOLDED },
	{ ".txt", FORMAT_FOLDED },
};

int options__format_of(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t len = strlen(path);

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		size_t n = strlen(formats[i].ext);

		if (len > n && !strcmp(path + len - n, formats[i].ext) && path + len - n > base)
			return (int)formats[i].fmt;
	}
	dot = strchr(base, '.');
	return dot && dot > base ? -1 : FORMAT_FOLDED;	/* ".hidden" has no extension */
}

/* The output format: --format, else the name's; unknown extensions are an error. */
static int pick_format(struct options *o, char *err, size_t errlen)
{
	int f;

	if (!o->output || o->format_set || !strcmp(o->output, "-"))
		return 0;
	f = options__format_of(o->output);
	if (f < 0)
		return fail(err, errlen, "cannot tell the format of '%s' from its name: name it "
			    "*.folded (.collapsed, .txt) or *.pb.gz (.pprof), or give --format "
			    "folded|pprof", o->output);
	o->format = (enum out_format)f;
	return 0;
}

int options__parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->freq = OPT_DEFAULT_HZ;
	o->min_block_ns = OPT_DEFAULT_MIN_BLOCK_NS;
	o->delay = 1.0;
	o->window = CT_CUMULATIVE;
	o->span = CT_SPAN_DEFAULT;
	o->half_life = CT_HALF_DEFAULT;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:F:e:o:d:i:w:vhV", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (optopt && strchr("pFeodiw", optopt))
				return fail(err, errlen, "option -%c needs a value", optopt);
			return fail(err, errlen, "unknown option '%s' (try --help)", bad);
		}
		rc = parse_one(o, c, optarg, err, errlen);
		if (rc)
			return rc;
	}
	if (optind < argc) {
		/* getopt stops at "--" or the first operand; only "--" may introduce a command. */
		if (strcmp(argv[optind - 1], "--") != 0)
			return fail(err, errlen, "unexpected argument '%s' (a command goes after --)",
				    argv[optind]);
		o->cmd = &argv[optind];
	}
	rc = check(o, err, errlen);
	return rc ? rc : pick_format(o, err, errlen);
}
