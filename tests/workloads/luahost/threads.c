/*
** Two threads, each with its own LuaJIT state, burning CPU in differently named
** Lua functions (work_a, work_b): one process, two global_States.
** Built by tests/integration/t_lua_threads.sh:  threads SECONDS
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/* Each thread loads a chunk named after its function, which it calls as a global:
** work_a tail-calls spin, so its frames read "work_a:0;work_a (threads:2)". */
static const char *script =
	"local name, secs = ...\n"
	"local function spin(n) local x = 0 for i = 1, n do x = (x + i * 3) % 1000003 end return x end\n"
	"local code = 'local spin = ...\\n' ..\n"
	"  'function ' .. name .. '() return spin(100000) end\\n' ..\n"
	"  'local d, acc = os.clock() + ' .. secs .. ', 0\\n' ..\n"
	"  'while os.clock() < d do acc = (acc + ' .. name .. '()) % 65536 end\\n'\n"
	"return loadstring(code, '=' .. name)(spin)\n";

struct job {
	const char *name;
	double secs;
};

static void *run(void *arg)
{
	struct job *j = arg;
	lua_State *L = luaL_newstate();

	luaL_openlibs(L);
	if (luaL_loadbuffer(L, script, strlen(script), "=threads") ||
	    (lua_pushstring(L, j->name), lua_pushnumber(L, j->secs), lua_pcall(L, 2, 1, 0)))
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
	lua_close(L);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 30;
	struct job a = { "work_a", secs }, b = { "work_b", secs };
	pthread_t ta, tb;

	pthread_create(&ta, NULL, run, &a);
	pthread_create(&tb, NULL, run, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}
