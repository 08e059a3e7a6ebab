#!/bin/sh
# The house rules: which room may include which (data flows one way), checked on
# every source file outside tests/ and bench/. make check runs it; it prints each
# include that breaks a rule and exits 1.
#
#   room       may include (besides itself)
rules='
wire
base
proc       base
unwind     wire base proc
lua        wire base unwind proc
walk       wire base unwind lua
symbolize  base proc unwind
merge      wire base
profile    base
export     base profile
collect    wire base proc lua symbolize merge profile
tui        base profile
bpf        wire base proc unwind lua walk
cli        *
'
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bad=0

allowed() {	# allowed ROOM INCLUDED_ROOM
	[ "$1" = "$2" ] && return 0
	echo "$rules" | awk -v r="$1" -v i="$2" '
		$1 == r { for (k = 2; k <= NF; k++) if ($k == i || $k == "*") ok = 1 }
		END { exit ok ? 0 : 1 }'
}

for f in $(git ls-files '*.c' '*.h' '*.def' 2>/dev/null || find . -name '*.[ch]'); do
	room=${f%%/*}
	case $room in tests|bench|.output|.deps) continue ;; esac
	echo "$rules" | awk -v r="$room" '$1 == r { found = 1 } END { exit !found }' || {
		echo "check-layers: $f: room $room has no rule in scripts/check-layers.sh"
		bad=1
		continue
	}
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $inc in */*) ;; *) continue ;; esac	# generated: sampler.skel.h
		to=${inc%%/*}
		if ! allowed "$room" "$to"; then
			echo "check-layers: $f includes $inc: $room/ may not include $to/"
			bad=1
		fi
	done
done

# .eh_frame and DWARF are read only in unwind/ (others use its FDE iterator).
for f in $(grep -lE '\bdw_(un|uleb|sleb|skip|read_ptr|skip_ptr)\(' $(git ls-files '*.c' '*.h') |
	   grep -vE '^(unwind|tests|bench)/'); do
	echo "check-layers: $f reads DWARF itself: use unwind/fde.h"
	bad=1
done
# symbolize/ knows no LuaJIT.
for f in $(git ls-files 'symbolize/*' | grep -i '/lua'); do
	echo "check-layers: $f: LuaJIT code belongs in lua/"
	bad=1
done
[ $bad = 0 ] && echo "check-layers: every include follows the house rules"
exit $bad
