# Traces flushed under luatop: tests/workloads/flush.lua calls jit.flush() after
# every few milliseconds of JIT-compiled work, so traces are freed, renumbered and
# their memory reused between a sample and the time luatop reads the trace. Both
# flavours: luatop exits 0, every Lua frame it names is one of the program's
# functions (no frame from a reused trace, nothing unreadable). The share of
# samples whose trace was gone by the time luatop read it is printed, not
# required: it is a race between the flush and luatop's read (0-90% here, run
# to run), and a trace recompiled at the same place with the same header reads
# as the one sampled. The unit test trace::flushed_between_sample_and_read
# makes each way a trace can be gone certain and checks its reason.
script=$TOP/tests/workloads/flush.lua
[ -r "$script" ] || fail "missing $script"
bad=0
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	start "$lj" "$script" 30
	pid=$!
	sleep 0.5
	"$LUATOP" -F 999 -p "$pid" --duration 4 -o "$TMP/f.folded" 2>"$TMP/err" ||
		{ echo "    $flavour: luatop failed: $(cat "$TMP/err")" >&2; bad=1; continue; }
	kill "$pid"
	total=$(folded_total "$TMP/f.folded")
	gone=$(sed -n 's/^luatop: *\([0-9.]*\)% trace flushed before its sample was read$/\1/p' "$TMP/err")
	# Lua frames: "name (chunk:line)" or "chunk:line". Anything of flush.lua must be
	# the main chunk, leaf or run; no "[lua:?]".
	wrong=$(tr ';' '\n' <"$TMP/f.folded" | sed 's/ [0-9]*$//' | sort -u |
		awk '/flush\.lua/ && !/^(leaf|run) \(flush\.lua:[0-9]+\)$/ && !/^flush\.lua:0$/ ||
		     /\[lua:\?\]/' | head -5)
	echo "    $flavour: $total samples, trace gone in ${gone:-0}%; wrong frames: ${wrong:-none}" >&2
	[ "$total" -ge 300 ] || { echo "    $flavour: too few samples" >&2; bad=1; }
	[ -z "$wrong" ] || bad=1
done
[ "$bad" = 0 ] || fail "flushed traces mishandled"
exit 0
