# nginx with the Lua module (libnginx-mod-http-lua, OpenResty's LuaJIT) on
# 127.0.0.1, for the tests and benchmarks that profile it. Sourced (POSIX sh):
#
#   ngl_conf DIR PORT WORKERS APP.lua   DIR/nginx.conf: WORKERS workers, every
#                                       request runs require("APP").handler();
#                                       /status is stub_status. Sets NGL_ERR on failure.
#   nginx $(ngl_args DIR) &             the master (daemon off), in the foreground
#   ngl_wait DIR MASTER PORT WORKERS    waits (<= 10 s) until WORKERS workers run and
#                                       / answers; prints the workers' PIDs, or why
#                                       not and returns 1 (it runs in $(...))
#   ngl_stop MASTER                     TERM, then KILL after 5 s
#   free_port                           a TCP port on which nothing listens
NGL_MODS=/usr/lib/nginx/modules

# ngl_missing: what nginx with Lua lacks here (a sentence), or nothing.
ngl_missing() {
	command -v nginx >/dev/null 2>&1 || { echo "nginx is not installed"; return; }
	[ -r "$NGL_MODS/ngx_http_lua_module.so" ] ||
		echo "no $NGL_MODS/ngx_http_lua_module.so (libnginx-mod-http-lua)"
}

ngl_args() {
	echo "-p $1 -c $1/nginx.conf -e $1/logs/error.log"
}

ngl_conf() {
	_d=$1 _port=$2 _n=$3 _app=$4
	NGL_ERR=$(ngl_missing)
	[ -z "$NGL_ERR" ] || return 1
	mkdir -p "$_d/lua" "$_d/logs" || { NGL_ERR="cannot create $_d"; return 1; }
	cp "$_app" "$_d/lua/" || { NGL_ERR="cannot copy $_app"; return 1; }
	# The workers run as nginx's default unprivileged user: they must read the app.
	chmod 755 "$(dirname "$_d")" "$_d" "$_d/lua"
	chmod 644 "$_d/lua/$(basename "$_app")"
	# The lua module needs the NDK's symbols: load ndk_http_module first when present.
	_ndk=
	[ -r "$NGL_MODS/ndk_http_module.so" ] && _ndk="load_module $NGL_MODS/ndk_http_module.so;"
	# Several workers: each its own listening socket, so that the kernel spreads
	# the connections over them (one shared socket lets one worker take them all).
	_rp=
	[ "$_n" -gt 1 ] && _rp=" reuseport"
	cat >"$_d/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $_n;
pid $_d/nginx.pid;
error_log $_d/logs/error.log info;
$_ndk
load_module $NGL_MODS/ngx_http_lua_module.so;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $_d/body;
	proxy_temp_path $_d/proxy;
	fastcgi_temp_path $_d/fastcgi;
	uwsgi_temp_path $_d/uwsgi;
	scgi_temp_path $_d/scgi;
	lua_package_path "$_d/lua/?.lua;;";
	server {
		listen 127.0.0.1:$_port$_rp;
		location = /status { stub_status; }
		location / { content_by_lua_block { require("$(basename "$_app" .lua)").handler() } }
	}
}
CONF
	# shellcheck disable=SC2046
	nginx -t $(ngl_args "$_d") >"$_d/logs/t.log" 2>&1 ||
		{ NGL_ERR="nginx rejects the configuration: $(cat "$_d/logs/t.log")"; return 1; }
}

# ngl_alive PID: PID exists and is not a zombie.
ngl_alive() {
	_s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ -n "$_s" ] && [ "${_s%% *}" != Z ]
}

ngl_wait() {
	_d=$1 _m=$2 _port=$3 _n=$4 _wk='' _body=''
	_deadline=$(($(date +%s) + 10))
	while [ "$(date +%s)" -lt "$_deadline" ]; do
		ngl_alive "$_m" || { echo "nginx exited: $(tail -5 "$_d/logs/error.log")"; return 1; }
		_wk=$(pgrep -P "$_m" | sort -n | tr '\n' ' ' | sed 's/ $//')
		[ "$(echo $_wk | wc -w)" -eq "$_n" ] && _body=$(curl -s -m 2 "http://127.0.0.1:$_port/") &&
			[ -n "$_body" ] && break
		sleep 0.1
	done
	case $_body in
	[0-9]*' '[0-9]*) echo "$_wk" ;;
	'') echo "nginx does not answer on port $_port: $(tail -5 "$_d/logs/error.log")"; return 1 ;;
	*) echo "unexpected answer from the Lua handler: $_body
$(grep -A12 -E '\[(error|alert|crit)\]' "$_d/logs/error.log" | head -14)"
	   return 1 ;;
	esac
}

ngl_stop() {
	kill "$1" 2>/dev/null || :
	_i=0
	while ngl_alive "$1" && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	# "|| :": callers run under set -e, where a master already gone must not
	# end the script (in an EXIT trap, before the rest of its cleanup).
	kill -9 "$1" 2>/dev/null || :
	wait "$1" 2>/dev/null || :
}

free_port() {
	_used=$(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null)
	_p=$(( 20000 + ($$ * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/') / 1000) % 40000 ))
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		_h=$(printf '%04X' "$_p")
		case " $(echo $_used) " in
		*" $_h "*) _p=$(( 20000 + (_p - 20000 + 4099) % 40000 )) ;;
		*) echo "$_p"; return 0 ;;
		esac
	done
	return 1
}
