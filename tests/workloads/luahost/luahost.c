/*
** A C host embedding LuaJIT, for the Lua stack tests (tests/integration/t_lua_host.sh
** builds it against each flavour's libluajit: not built by the Makefile).
**
**   luahost SCRIPT SECONDS TRACEBACK_FILE [joff]
**
** Runs SCRIPT with arg = { SECONDS, TRACEBACK_FILE } and two C functions that call
** back into Lua, so that stacks go Lua -> C -> Lua -> C -> Lua:
**   c_callback(f, ...)   calls f(...) and returns what it returns
**   c_nested(f, ...)     the same, one level deeper
** Each is registered under the name of its C symbol: a traceback's
** "[C]: in function 'c_callback'" and the native symbol agree. "joff" turns the
** JIT compiler off (as luajit -joff does). When SCRIPT leaves a global function
** host_loop, main calls it through lua_pcall (from host_pcalls) until SECONDS
** have passed: C's calls into the VM with no Lua frame below.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

int c_callback(lua_State *L);
int c_nested(lua_State *L);

static int call_through(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

int c_callback(lua_State *L)
{
	int n = call_through(L);

	__asm__ volatile("" ::: "memory");	/* not a tail call: keep this frame */
	return n;
}

int c_nested(lua_State *L)
{
	int n = call_through(L);

	__asm__ volatile("" ::: "memory");
	return n;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* host_loop(i) for i in [0, n) through lua_pcall; the sum of its results, -1 on
** an error. */
__attribute__((noinline)) long host_pcalls(lua_State *L, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		lua_getglobal(L, "host_loop");
		lua_pushinteger(L, i);
		if (lua_pcall(L, 1, 1, 0))
			return -1;
		sum += lua_tointeger(L, -1);
		lua_pop(L, 1);
	}
	return sum;
}

/* Call host_loop for seconds, if the script defined it. 0, or 1 on an error. */
static int run_host_loop(lua_State *L, double seconds)
{
	double end = now() + seconds;

	lua_getglobal(L, "host_loop");
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pop(L, 1);
	while (now() < end)
		if (host_pcalls(L, 1000) < 0) {
			fprintf(stderr, "luahost: %s\n", lua_tostring(L, -1));
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	lua_State *L;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SCRIPT SECONDS TRACEBACK_FILE [joff]\n", argv[0]);
		return 2;
	}
	L = luaL_newstate();
	if (!L)
		return 1;
	luaL_openlibs(L);
	if (argc > 4 && !strcmp(argv[4], "joff"))
		luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
	lua_register(L, "c_callback", c_callback);
	lua_register(L, "c_nested", c_nested);
	lua_createtable(L, 2, 0);
	lua_pushstring(L, argv[2]);
	lua_rawseti(L, -2, 1);
	lua_pushstring(L, argv[3]);
	lua_rawseti(L, -2, 2);
	lua_setglobal(L, "arg");
	if (luaL_loadfile(L, argv[1]) || lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "luahost: %s\n", lua_tostring(L, -1));
		lua_close(L);
		return 1;
	}
	if (run_host_loop(L, atof(argv[2]))) {
		lua_close(L);
		return 1;
	}
	lua_close(L);
	return 0;
}
