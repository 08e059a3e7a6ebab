# Off-CPU and wall-clock time (-e offcpu, -e wall), both flavours, JIT on and -joff.
# tests/workloads/offcpu.lua runs a handler that per iteration burns 20 ms of CPU
# (burn), sleeps 30 ms through the FFI (nap -> usleep) and reads a pipe that a
# feeder writes every 100 ms (wait_pipe: ~50 ms), and measures its own times.
# Two luatops sample it side by side for 4 s:
#   -e offcpu: the merged stacks read handler -> nap -> usleep -> ... -> kernel and
#     handler -> wait_pipe -> ... -> read -> ... -> kernel; nap's and wait_pipe's
#     shares of their sum are within 10 points of the shares the workload
#     measured; the off-CPU total is within 10% of the sampled time minus the
#     thread's running time;
#   -e wall (JIT on): burn's share is within 5 points of the share of the
#     thread's wall time it ran burn;
#   -e offcpu -o *.pb.gz (a third luatop, once): go tool pprof reads the sample
#     type off-cpu/nanoseconds.
# Every share is of times the workload measured itself over the same seconds
# (its totals read before the luatops start and after they end), not of the
# design's nor of its whole run, so a slow or busy machine moves both sides
# alike: a burn that takes longer than its 20 ms leaves the feeder's lines
# queued and wait_pipe short, in the profile and in the workload's own count.
# nap's and wait_pipe's shares are of the two together, on both sides (the
# workload's stats file is renamed every iteration, and a rename can block on
# the disk: off-CPU time in neither). On a VM "running time" has two
# measures: its CPU time (os.clock), and its wall time in burn, which also holds
# the time the hypervisor took the CPU away (steal) or another thread had it;
# the truth lies between, and each claim must hold of that interval.
D=4
fn() { echo "$1 \\(offcpu[.]lua:[0-9]+\\)"; }
for flavour in $(lj_flavours); do
	lj=$(lj_bin "$flavour")
	for mode in jit joff; do
		j=; [ "$mode" = joff ] && j=-joff
		start "$lj" $j "$TOP/tests/workloads/offcpu.lua" 20 "$TMP/stats"
		pid=$!
		sleep 1.5
		read -r _ wall0 _ cpu0 _ burnt0 _ nap0 _ pipe0 <"$TMP/stats" ||
			fail "no stats from the workload"
		"$LUATOP" -e wall -F 499 -p "$pid" --duration $D -o "$TMP/wall.folded" \
			2>"$TMP/err.wall" &
		wallpid=$!
		pbpid=
		if [ "$mode" = jit ] && [ "$flavour" = openresty ]; then
			"$LUATOP" -e offcpu -p "$pid" --duration $D -o "$TMP/off.pb.gz" 2>"$TMP/err.pb" &
			pbpid=$!
		fi
		"$LUATOP" -e offcpu -p "$pid" --duration $D -o "$TMP/off.folded" 2>"$TMP/err" ||
			fail "luatop -e offcpu failed: $(cat "$TMP/err")"
		wait "$wallpid" || fail "luatop -e wall failed: $(cat "$TMP/err.wall")"
		if [ -n "$pbpid" ]; then	# pprof: the off-CPU time in nanoseconds
			wait "$pbpid" || fail "luatop -e offcpu -o *.pb.gz failed: $(cat "$TMP/err.pb")"
			go tool pprof -symbolize=none -raw "$TMP/off.pb.gz" >"$TMP/raw" 2>"$TMP/go.err" ||
				fail "go tool pprof: $(cat "$TMP/go.err")"
			grep -q '^Samples:' "$TMP/raw" && grep -A1 '^Samples:' "$TMP/raw" |
				grep -q 'off-cpu/nanoseconds' ||
				fail "no off-cpu/nanoseconds sample type: $(head -5 "$TMP/raw")"
		fi
		kill "$pid"
		read -r _ wall _ cpu _ burnt _ nap _ pipe <"$TMP/stats" ||
			fail "no stats from the workload"
		set -- $(awk -v a="$wall $cpu $burnt $nap $pipe" \
			-v b="$wall0 $cpu0 $burnt0 $nap0 $pipe0" 'BEGIN { split(a, x); split(b, y)
			for (i = 1; i <= 5; i++) printf "%.4f ", x[i] - y[i] }')
		wall=$1 cpu=$2 burnt=$3 nap=$4 pipe=$5
		total=$(folded_total "$TMP/off.folded")
		napped=$(folded_has_count "$TMP/off.folded" \
			";$(fn handler);$(fn nap);([^;]*;)*usleep;([^;]*;)*[^;]*_\\[k\\]")
		piped=$(folded_has_count "$TMP/off.folded" \
			";$(fn handler);$(fn wait_pipe);([^;]*;)*read;([^;]*;)*[^;]*_\\[k\\]")
		[ "$total" -gt 0 ] && [ $((napped + piped)) -gt 0 ] ||
			fail "no off-CPU time in nap or wait_pipe: $(cat "$TMP/err")"
		# Shares in tenths of a percent, and what the workload says.
		got=$(awk -v t="$total" -v n="$napped" -v p="$piped" -v d="$D" \
			-v w="$wall" -v c="$cpu" -v wn="$nap" -v wp="$pipe" 'BEGIN {
			printf "%d %d %d %d %d %d %d", 1000 * n / (n + p), 1000 * wn / (wn + wp),
				1000 * p / (n + p), 1000 * wp / (wn + wp),
				t / 1000, 1000 * d * (wn + wp) / w, 1000 * d * (1 - c / w) }')
		set -- $got
		echo "    $flavour $mode: off-CPU ${5} ms (want ${6}..${7}), nap ${1}‰" \
			"(want ${2}‰), pipe ${3}‰ (want ${4}‰)" >&2
		d1=$(($1 - $2)) d2=$(($3 - $4))
		if [ ${d1#-} -gt 100 ] || [ ${d2#-} -gt 100 ]; then
			awk '{ print "    " $NF "\t" $0 }' "$TMP/off.folded" | sort -k1,1rn | head -4 |
				cut -c1-500 >&2
			fail "$flavour $mode: nap and wait_pipe shares differ by more than 10 points"
		fi
		[ $(( $5 * 10 )) -ge $(( $6 * 9 )) ] && [ $(( $5 * 10 )) -le $(( $7 * 11 )) ] ||
			fail "$flavour $mode: off-CPU total ${5} ms, not within 10% of ${6}..${7} ms"
		[ "$mode" = jit ] || continue
		wtotal=$(folded_total "$TMP/wall.folded")
		burn=$(folded_has_count "$TMP/wall.folded" ";$(fn handler);$(fn burn)(;|\$)")
		share=$(awk -v b="$burn" -v t="$wtotal" -v w="$wall" -v c="$cpu" -v wb="$burnt" \
			'BEGIN { printf "%d %d %d", t ? 1000 * b / t : 0, 1000 * c / w, 1000 * wb / w }')
		set -- $share
		echo "    $flavour wall: burn ${1}‰ (want ${2}..${3}‰) of $((wtotal / 1000)) ms" >&2
		[ "$1" -ge $(($2 - 50)) ] && [ "$1" -le $(($3 + 50)) ] ||
			fail "$flavour: burn's wall share is more than 5 points off"
	done
done
