/*
** Messages for the user: one line each on stderr, "luatop: " first. Only the
** edges (cli/, bpf/) log; the pure core returns errors instead.
*/
#ifndef LUATOP_BASE_LOG_H
#define LUATOP_BASE_LOG_H

#include <stdarg.h>

enum lt_log_level {
	LT_LOG_ERROR,		/* what failed and why */
	LT_LOG_WARN,		/* a degraded result: what and why */
	LT_LOG_INFO,		/* the run's summary */
	LT_LOG_DEBUG,		/* diagnostics, shown with -v only */
};

/* Show LT_LOG_DEBUG messages too (-v). */
void lt_log_set_verbose(int on);
/* Is -v on? */
int lt_log_verbose(void);
/* One message; a trailing newline in fmt is not doubled. */
void lt_log(enum lt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lt_vlog(enum lt_log_level level, const char *fmt, va_list ap);
/* Diagnostics of a library (libbpf, the verifier) with -v, passed on as they are. */
void lt_vlog_passthrough(const char *fmt, va_list ap);

#endif
