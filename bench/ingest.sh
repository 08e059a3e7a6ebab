#!/bin/sh
# What ingesting a sample costs in luatop's user space (the collector: symbols,
# Lua names, JIT-trace snapshots, merge, call trees): the median time per sample
# that luatop -v reports, for several configurations profiling the same running
# program in interleaved turns. As root.
#
#   sh bench/ingest.sh [ROUNDS] [SECONDS] [HZ]
#
# CONFIGS: "label:luatop-binary:LUATOP_TRACE_RULE ..."; the default compares the
# snapshot mapping off and on (path, the default rule) in this build. Another
# build's binary can join (it must print luatop -v's "ingest: ... median" line).
# The first configuration is the reference of the percentages.
# JIT-heavy workloads, both LuaJIT flavours: inline.lua (a trace that inlines two
# functions), lines.lua (a loop body of guarded lines), flush.lua (traces flushed
# all the time: nearly every sample's trace is gone when it is read) and demo.lua.
# FLAVOURS and WORKLOADS (paths under the top directory) narrow the run. The
# program runs on CPU 0, luatop on CPU 1 (when there are two).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3} secs=${2:-4} hz=${3:-999}
luatop=$top/.output/luatop
up=$top/.deps/luajit-upstream/usr/bin/luajit
configs=${CONFIGS:-"off:$luatop:off path:$luatop:path"}
tmp=$(mktemp -d)
pin_prog="taskset -c 0" pin_top="taskset -c $(($(nproc) > 1 ? 1 : 0))"
pid=
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
make -C "$top" -s .output/luatop >/dev/null

# run BINARY RULE: profile $pid once; print the median microseconds per sample.
run() {
	LUATOP_TRACE_RULE=$2 $pin_top "$1" -v -F "$hz" -p "$pid" --duration "$secs" \
		-o /dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	sed -n 's/.*ingest: .* median \([0-9.]*\) us.*/\1/p' "$tmp/err"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

measure() { # NAME LUAJIT SCRIPT
	$pin_prog "$2" "$top/$3" 600 >/dev/null 2>&1 &
	pid=$!
	sleep 1	# let it compile its traces
	i=0
	for c in $configs; do : >"$tmp/${c%%:*}"; done
	while [ $i -lt "$rounds" ]; do
		for c in $configs; do
			label=${c%%:*} rest=${c#*:}
			run "${rest%:*}" "${rest##*:}" >>"$tmp/$label"
		done
		i=$((i + 1))
	done
	kill $pid; wait $pid 2>/dev/null || true
	line=$(printf '%-26s' "$1") ref=
	for c in $configs; do
		label=${c%%:*}
		m=$(median <"$tmp/$label")
		[ -n "$ref" ] || ref=$m
		line="$line $(awk -v l="$label" -v m="$m" -v r="$ref" 'BEGIN {
			printf "%s %5.2f us (%+4.0f%%)", l, m, (r > 0 ? 100 * (m - r) / r : 0) }')"
	done
	echo "$line"
}

echo "ingest time per sample (median of $rounds runs of $secs s at $hz Hz, each the median" \
     "of its samples; $(uname -r), $(nproc) CPUs)"
for fl in ${FLAVOURS:-luajit $up}; do
	[ -x "$(command -v "$fl" || true)" ] || continue
	name=$( [ "$fl" = luajit ] && echo openresty || echo upstream )
	for w in ${WORKLOADS:-tests/workloads/inline.lua tests/workloads/lines.lua \
		  tests/workloads/flush.lua scripts/demo.lua}; do
		measure "$name $(basename "$w")" "$fl" "$w"
	done
done
