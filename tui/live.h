/*
** The live view (minimal): a header and the hottest functions, refreshed
** while sampling goes on. The full icicle TUI replaces it.
*/
#ifndef LUATOP_LIVE_H
#define LUATOP_LIVE_H

struct session;

/* Run until q, a signal, or an allocation failure; returns the exit status. */
int live__run(struct session *s);

#endif
