/*
** Feeds for the live view (tui/): a running session, or a saved folded file.
*/
#ifndef LUATOP_CLI_VIEW_H
#define LUATOP_CLI_VIEW_H

#include <signal.h>

struct options;
struct session;

/* Show the session live until q or a signal; the exit status. */
int view__live(struct session *s);
/* luatop -i FILE: read it, then show it; the exit status (1: unreadable, 2: no terminal). */
int view__file(const struct options *o, volatile sig_atomic_t *stop);

#endif
