/*
** Feeds for the live view (tui/): a running session, or a saved folded file.
*/
#ifndef LUATOP_CLI_VIEW_H
#define LUATOP_CLI_VIEW_H

#include <signal.h>

struct options;
struct session;

/* Show the session live until q or a signal; the exit status. */
struct frametab;
struct stacktab;

int view__live(struct session *s);
/* Read a saved profile, pprof (gzip'd, or named *.pb.gz / *.pprof) or folded,
** into ft/st: 0, or -1 with the reason said. */
int view__load(const char *path, struct frametab *ft, struct stacktab *st);
/* luatop -i FILE: read it, then show it; the exit status (1: unreadable, 2: no terminal). */
int view__file(const struct options *o, volatile sig_atomic_t *stop);

#endif
