#!/bin/sh
# Install what luatop needs to build and test on Debian/Ubuntu; do nothing when all is there.
#
# Two LuaJIT flavours are needed side by side, but their Debian packages conflict:
# OpenResty's luajit2 (pulled in by libnginx-mod-http-lua) is installed system-wide,
# upstream LuaJIT (luajit, libluajit-5.1-dev) is unpacked into .deps/luajit-upstream.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
upstream_dir="$top/.deps/luajit-upstream"

pkgs="make gcc clang llvm pkg-config binutils libc6-dev libbpf-dev bpftool libelf-dev
zlib1g-dev libncurses-dev libcriterion-dev tmux procps luajit2 libluajit2-5.1-dev nginx
libnginx-mod-http-lua wrk curl golang-go protobuf-compiler libc6-dbg"
# golang-go (go tool pprof) and protobuf-compiler (protoc) read the pprof export in tests.
# libc6-dbg: libc's debug file, which a unit test merges with libc's own symbols
# (symbolize::debug_libc_dbgsym skipped without it) and bench/symbolize.sh loads.
upstream_pkgs="luajit libluajit-5.1-2 libluajit-5.1-dev libluajit-5.1-common"
# make bench compares with perf (sh scripts/deps.sh bench). bench/soak.sh needs nginx,
# libnginx-mod-http-lua, wrk (Debian's package), tmux and curl: in the list above.
[ "${1:-}" = bench ] && pkgs="$pkgs linux-perf"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

if [ "$(id -u)" != 0 ] && [ -n "$missing$( [ -x "$upstream_dir/usr/bin/luajit" ] || echo x)" ]; then
	SUDO=sudo
else
	SUDO=
fi

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	echo "deps: apt-get update" >&2
	$SUDO apt-get update -q >/dev/null
	apt_updated=1
}

if [ -n "$missing" ]; then
	apt_update
	echo "deps: installing$missing" >&2
	# nginx must not start on install in a chroot or container; the tests start their own.
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

if [ ! -x "$upstream_dir/usr/bin/luajit" ] || [ ! -f "$upstream_dir/.complete" ]; then
	apt_update
	echo "deps: unpacking upstream LuaJIT into $upstream_dir" >&2
	dl=$(mktemp -d)
	(cd "$dl" && apt-get download $upstream_pkgs >/dev/null 2>&1) ||
		(cd "$dl" && chmod 777 "$dl" && $SUDO apt-get download $upstream_pkgs >/dev/null)
	rm -rf "$upstream_dir" && mkdir -p "$upstream_dir"
	for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$upstream_dir"; done
	rm -rf "$dl"
	touch "$upstream_dir/.complete"
fi
