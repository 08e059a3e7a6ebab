/*
** Built as a shared object for LD_PRELOAD (LDLIBS_exit_linger in the Makefile):
** a process that loads it lingers for $LINGER_MS ms (300 by default) when it
** exits, after main has returned. A luajit command has closed its Lua state
** by then: every prototype is freed and LuaJIT's memory is unmapped while the
** process still lives, which stretches a window that is microseconds wide
** without it (tests/integration/t_command.sh).
*/
#include <stdlib.h>
#include <unistd.h>

__attribute__((destructor)) static void linger(void)
{
	const char *ms = getenv("LINGER_MS");
	int n = ms ? atoi(ms) : 300;

	if (n > 0 && n <= 10000)
		usleep((useconds_t)n * 1000);
}
