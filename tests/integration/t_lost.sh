# Lost samples are counted and told by reason. luatop is stopped (SIGSTOP) for
# 10 s while a busy LuaJIT target runs on: the sampler goes on writing records,
# nobody drains the ring, and it fills. The ring holds a quarter second of
# 1 KiB records from every CPU at 999 Hz (512 KiB on this machine's 2 CPUs,
# bpf/loader.c); 10 s of one busy thread is ~10,000 samples of ~300 bytes,
# ~3 MB: six times the ring even if the target ran a sixth of the time.
start luajit "$TOP/tests/workloads/clib.lua" 40
pid=$!
sleep 0.5
"$LUATOP" -F 999 -p "$pid" --duration 14 -o "$TMP/out.folded" 2>"$TMP/err" &
lt=$!
sleep 2
kill -STOP "$lt"
sleep 10
kill -CONT "$lt"
wait "$lt" || fail "luatop failed: $(cat "$TMP/err")"
lost=$(sed -n 's/.* samples of .*, \([0-9]*\) lost.*/\1/p' "$TMP/err")
full=$(sed -n 's/^luatop: lost: \([0-9]*\) ring buffer full.*/\1/p' "$TMP/err")
echo "    lost=${lost:-none} ring-full=${full:-none}" >&2
[ "${lost:-0}" -gt 0 ] || fail "no samples lost with the reader stopped: $(head -3 "$TMP/err")"
[ "$full" = "$lost" ] || fail "the reasons do not add up to the lost samples: $(head -3 "$TMP/err")"
exit 0
