/*
** luatop's signal handling, and undoing it for a command it starts: a command
** run under luatop must see the dispositions and mask luatop was given
** (`luatop -- sh -c 'yes | head -1'` needs SIGPIPE at its default).
*/
#ifndef LUATOP_CLI_SIGNALS_H
#define LUATOP_CLI_SIGNALS_H

#include <signal.h>

/* SIGINT, SIGTERM and SIGHUP set *flag (and interrupt poll); SIGPIPE is
** ignored (write errors are reported instead). What was there is kept. */
void signals__install(volatile sig_atomic_t *flag);
/* In a forked child before exec: the dispositions and mask luatop started with. */
void signals__restore(void);

#endif
