#!/bin/sh
# Symbolization benchmark: build bench/symbolize_bench.c with the symbolizer sources
# (-O2, no sanitizers) and run it. Figures go to docs/PERFORMANCE.md, "Symbolization".
#
#   sh bench/symbolize.sh
set -e
cd "$(dirname "$0")/.."
mkdir -p .output/bench
${CC:-cc} -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -I. \
	bench/symbolize_bench.c symbolize/*.c proc/*.c base/*.c unwind/*.c -lelf -lz -o .output/bench/symbolize_bench
echo "$(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
exec .output/bench/symbolize_bench
