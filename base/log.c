/*
** One-line messages on stderr.
**
** The verbosity is the one piece of global state in luatop: set once from -v,
** read by every edge that reports (libbpf's print callback has no context).
*/
#include <stdio.h>
#include <string.h>

#include "base/log.h"

#define LOG_LINE_MAX	1024

static int verbose;

void lt_log_set_verbose(int on)
{
	verbose = on;
}

int lt_log_verbose(void)
{
	return verbose;
}

void lt_vlog(enum lt_log_level level, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	size_t n;

	if (level == LT_LOG_DEBUG && !verbose)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	fprintf(stderr, "luatop: %s\n", line);
}

void lt_log(enum lt_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lt_vlog(level, fmt, ap);
	va_end(ap);
}

void lt_vlog_passthrough(const char *fmt, va_list ap)
{
	if (verbose)
		vfprintf(stderr, fmt, ap);
}
