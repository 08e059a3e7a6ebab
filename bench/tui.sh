#!/bin/sh
# Render time of the live view: bench/tui_render.c draws a call tree of about
# 100k nodes at 200x60 into a curses screen on /dev/null (layout, drawing and
# curses output; no terminal). The target is <= 10 ms per frame.
#
#   sh bench/tui.sh [NODES] [FRAMES] [COLS] [ROWS]      (after make; no root needed)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/.output/bench
mkdir -p "$out"
${CC:-cc} -O2 -g -std=gnu11 -D_GNU_SOURCE -DLUATOP_VERSION='"bench"' -Wall -Wextra -Werror \
	-Wno-unused-parameter -I"$top" "$top/bench/tui_render.c" "$top"/profile/*.c "$top"/base/*.c \
	"$top"/tui/*.c -lncursesw -ltinfo -lz -lm -o "$out/tui_render"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 "$out/tui_render" "$@" 2>&1
