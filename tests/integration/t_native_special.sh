# Special frames of the in-kernel unwinder, on -O2 -fomit-frame-pointer programs:
# the vDSO (clock_gettime, unwound from the vDSO image's own .eh_frame) and a signal
# handler (unwound through the kernel's signal frame back into the interrupted code).
start "$WL/vdso_nofp" 30
pid=$!
sleep 0.3
"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/vdso.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/vdso.folded")
# Rooted at main: read_clock makes 1000 clock_gettime calls, then main one of
# its own (the loop's deadline check), so 1 in 1001 calls is main's.
chain=$(folded_has_count "$TMP/vdso.folded" '^_start;__libc_start_main;[^;]*;main(;|$)')
echo "    vdso: samples=$total rooted=$chain" >&2
# 499 Hz x 3 s x 1/3 of a CPU = 499 samples; 100 leaves a wide margin (here and
# for the signal workload below), and at such counts the 99% allows a few odd
# samples, not none.
[ "$total" -ge 100 ] || fail "too few samples: $total"
[ $((chain * 100)) -ge $((total * 99)) ] || fail "vDSO stacks do not reach the root"

start "$WL/signal_nofp" 30
pid=$!
sleep 0.3
"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/sig.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
handler=$(folded_has_count "$TMP/sig.folded" ';on_prof(;|$)')
through=$(folded_has_count "$TMP/sig.folded" '^_start;__libc_start_main;[^;]*;main;spin;[^;]*;on_prof(;|$)')
total=$(folded_total "$TMP/sig.folded")
echo "    signal: samples=$total handler samples=$handler through the signal frame=$through" >&2
# The workload spends half its CPU time in the handler by construction (it spins on
# its own CPU clock); a quarter leaves a wide margin for timer and sampling jitter.
[ "$total" -ge 100 ] || fail "too few samples: $total"
[ $((handler * 4)) -ge "$total" ] || fail "too few samples in the handler: $handler of $total"
[ $((through * 100)) -ge $((handler * 99)) ] || fail "handler stacks do not unwind through the signal frame"
exit 0
