/*
** One-line messages on stderr.
**
** The verbosity is the one piece of global state in luatop: set once from -v,
** read by every edge that reports (libbpf's print callback has no context).
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* vasprintf */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"

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
	char line[LOG_LINE_MAX], safe[LOG_LINE_MAX];
	size_t n;

	if (level == LT_LOG_DEBUG && !verbose)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	/* Names, paths and errors from targets and files are in here: no
	** escape sequence reaches the terminal, and one message stays one line. */
	text__safe(line, safe, sizeof(safe), 0);
	fprintf(stderr, "luatop: %s\n", safe);
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
	char *text = NULL, *safe;
	int n;

	if (!verbose || (n = vasprintf(&text, fmt, ap)) < 0)
		return;
	safe = malloc((size_t)n + 1);	/* a verifier log runs to megabytes */
	if (safe) {
		text__safe(text, safe, (size_t)n + 1, TEXT_KEEP_LINES);
		fputs(safe, stderr);
	}
	free(safe);
	free(text);
}
