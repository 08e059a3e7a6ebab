#!/bin/sh
# make demo: start the bundled LuaJIT workload and attach luatop to it.
# In a terminal this is the live view (q quits); without one, a 5 s batch profile.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
luatop=$top/.output/luatop
luajit=$(command -v luajit || echo "$top/.deps/luajit-upstream/usr/bin/luajit")

"$luajit" "$top/scripts/demo.lua" 3600 >/dev/null &
wl=$!
trap 'kill $wl 2>/dev/null; wait $wl 2>/dev/null' EXIT INT TERM
sleep 0.2
echo "demo: $luajit scripts/demo.lua running as PID $wl"
if [ -t 0 ] && [ -t 1 ]; then
	"$luatop" -p "$wl"
else
	out=${TMPDIR:-/tmp}/luatop-demo.folded
	"$luatop" -p "$wl" --duration 5 -o "$out" &&
		echo "demo: no terminal; top stacks of $out:" &&
		awk '{ print $NF "\t" $0 }' "$out" | sort -rn | cut -f2- | head -15 | sed 's/^/  /'
fi
