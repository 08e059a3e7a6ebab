# luatop -- CMD starts the command, profiles it until it exits, and keeps the profile.
"$LUATOP" -F 499 -o "$TMP/out.folded" -- "$WL/burn" 3 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
leaf=$(folded_leaf_count "$TMP/out.folded" '^burn_(alpha|beta)$')
echo "    samples=$total burn-leaves=$leaf" >&2
# burn starts once the sampler is attached and runs >= 2 s (time() rounds down):
# 499 Hz x 2 s x 1/3 of a CPU = 333 samples; 50 leaves a wide margin.
[ "$total" -ge 50 ] || fail "too few samples: $total"
[ "$(pct "$leaf" "$total")" -ge 90 ] || fail "leaves are not burn_*"

# A LuaJIT command: its first samples come before the tables of the code it
# maps (ld.so's libraries, JIT areas) are loaded and are cut short ("pc in no
# known executable mapping") until the reader re-reads its maps, which it does
# at the first such sample, before ingesting any. 1 s of the command's CPU at
# 999 Hz is ~1,000 samples (fewer on a busy machine, the share the same); what
# stays is the few ms from the exec to the first re-read, under 1% (0% seen).
# Before 2026-12-06 the reader came to its loop 70 ms after the exec and then
# spent 0.1 s on the first sample's symbols: 13-16% of this command's samples
# were cut short. Until 2026-12-07 the first sample with a kernel frame read
# /proc/kallsyms and held up the reader for ~90 ms: 6 runs in ~100 had 5-8%
# (0.2-0.5% in 40 runs since). 5% tells the two apart.
"$LUATOP" -F 999 -o "$TMP/lj.folded" -- "$(lj_bin openresty)" -e '
	local t0, n = os.clock(), 0
	while os.clock() - t0 < 1 do n = n + #(("ab"):rep(50):upper()) end' \
	2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/lj.folded")
unknown=$(sed -n 's/^luatop: *\([0-9]*\)\.[0-9]*% pc in no known executable mapping$/\1/p' "$TMP/err")
echo "    luajit command: samples=$total unknown-code=${unknown:-0}%" >&2
[ "$total" -ge 100 ] || fail "too few samples of the luajit command: $total"
[ "${unknown:-0}" -lt 5 ] || fail "${unknown}% of the samples in code without tables: $(cat "$TMP/err")"
# Its samples before its exec ended (luatop's fork, then the execve system call,
# which keeps the fork's user registers to its end; ~1-3 ms here) are left out:
# their user frames were walked in a copy of luatop and named in the command's
# maps, [unknown] above execve's kernel frames, in 6 of 6 runs before 2026-12-08
# (1-3 stacks a run). The sampler notes when the exec ends (sched_process_exec).
pre=$(grep -c '^\[unknown\];.*execve' "$TMP/lj.folded" || :)
[ "${pre:-0}" -eq 0 ] || fail "samples from before the command's exec: $(grep execve "$TMP/lj.folded")"
# Its last samples are read after its VM closed (lua_close frees every
# prototype and unmaps LuaJIT's memory) or after it exited. A prototype checked
# alive at one drain and dead at the next (freed, unmapped, or the process gone)
# names that drain's samples: they were taken in between. Every Lua frame here
# is the -e chunk's, whose prototype the reader met in its first drain, so none
# is [lua:?] by design; 1% is the margin. The preloaded exit_linger keeps the
# process 300 ms after lua_close, three drains of batch mode: without it the
# window between lua_close and the exit is microseconds, and a drain fell in it
# once in a CI run (101 of 1,006 samples [lua:?]). Until 2026-12-07 this run
# named the samples since the drain before lua_close [lua:?]: 47-80 of ~1,000
# in six runs (0-100 by design, so 1% catches it in ~9 runs of 10); before
# 2026-12-06 so did the last drain after the exit, without the linger.
# tests/unit/test_luanames.c (proto_died) checks each way a prototype can die.
"$LUATOP" -F 999 -o "$TMP/lj.folded" -- env LD_PRELOAD="$WL/exit_linger" LINGER_MS=300 \
	"$(lj_bin openresty)" -e '
	local t0, n = os.clock(), 0
	while os.clock() - t0 < 1 do n = n + #(("ab"):rep(50):upper()) end' \
	2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
total=$(folded_total "$TMP/lj.folded")
unnamed=$(grep -F '[lua:?]' "$TMP/lj.folded" | awk '{ s += $NF } END { print s + 0 }')
echo "    luajit command lingering after lua_close: [lua:?] in $unnamed of $total samples" >&2
[ "$total" -ge 100 ] || fail "too few samples of the lingering luajit command: $total"
[ "$(pct "$unnamed" "$total")" -lt 1 ] || fail "$unnamed of $total samples have [lua:?] frames"
# env exec'd luajit: the summary names the image that ran last, not env
# (until 2026-12-07 it kept the name read at the first exec).
grep -q "samples of PID [0-9]* (luajit)" "$TMP/err" ||
	fail "the summary does not name luajit: $(grep 'samples of' "$TMP/err")"

# A target that exits mid-run: the collected profile is still written.
# burn 6 lives >= 5 s, luatop's start-up takes a few of them: it exits long
# before the 30 s are up. The window left is >= 1 s: 499 Hz x 1 s x 1/3 = 166
# samples; 30 leaves a wide margin.
start "$WL/burn" 6
pid=$!
"$LUATOP" -F 499 -p "$pid" --duration 30 -o "$TMP/exit.folded" 2>"$TMP/err" || fail "luatop failed: $(cat "$TMP/err")"
grep -q "PID $pid exited" "$TMP/err" || fail "no exit notice: $(cat "$TMP/err")"
total=$(folded_total "$TMP/exit.folded")
echo "    exited target: samples=$total" >&2
[ "$total" -ge 30 ] || fail "profile of the exited target lost: $total samples"
# The off-CPU sample of a command's last block, which ends as the command
# exits, is mostly named once the process is gone (luatop reads the maps again
# for the sample's new code while it exits). Its libc frames come from libc's
# debug file (libc6-dbg, scripts/deps.sh), looked for inside the process's root
# directory, which the target model holds open from its last read of the maps
# (tproc__root). Until 2026-12-08 the root was opened by PID at that point: the
# frame above main was libc.so.6+0x... in 6 of 6 runs (since: named in 6 of 6).
# (A walk cut short before libc's frames, its tables not loaded yet, names none
# of them: only an unnamed one is the failure.) The CPU samples of a command
# alive while sampled say whether the debug file names that frame here at all.
"$LUATOP" -F 999 -o "$TMP/alive.folded" -- "$(lj_bin openresty)" -e '
	local t0 = os.clock() while os.clock() - t0 < 0.3 do end' 2>"$TMP/err" ||
	fail "luatop failed: $(cat "$TMP/err")"
if grep -q ';__libc_start_call_main;main;' "$TMP/alive.folded"; then
	"$LUATOP" -e offcpu -o "$TMP/gone.folded" -- "$(lj_bin openresty)" -e '
		local t0 = os.clock() while os.clock() - t0 < 0.3 do end
		os.execute("sleep 0.2")' 2>"$TMP/err" ||
		fail "luatop -e offcpu failed: $(cat "$TMP/err")"
	echo "    off-CPU sample of an exiting command:" $(cut -d';' -f1-4 "$TMP/gone.folded") >&2
	[ -s "$TMP/gone.folded" ] || fail "no off-CPU sample of the command"
	! grep -q 'libc[.]so[.]6+0x' "$TMP/gone.folded" ||
		fail "the exited command's libc frame unnamed: $(cat "$TMP/gone.folded")"
else
	echo "    libc's debug file does not name __libc_start_call_main here: not checked" >&2
fi
# Off-CPU mode sees the command's system calls return: an mmap of a file's code
# (ld.so mapping libc) tells the reader to read its maps then (struct
# lt_new_code), not at the first sample that meets the code. The first block
# here is a second long, and its walk must go through libc to _start: it was cut
# short at its libc leaf in 6 of 10 runs before 2026-12-08 (the tables held
# what the exec's read saw, before ld.so mapped libc), whole in 10 of 10 since.
"$LUATOP" -e offcpu -o "$TMP/first.folded" -- "$(lj_bin openresty)" -e 'os.execute("sleep 1")' \
	2>"$TMP/err" || fail "luatop -e offcpu failed: $(cat "$TMP/err")"
echo "    first block of an off-CPU command:" $(grep 'wait4' "$TMP/first.folded" | cut -d';' -f1-3) >&2
grep -q '^_start;.*;wait4;' "$TMP/first.folded" ||
	fail "the first block's walk was cut short: $(cat "$TMP/first.folded")"

exit 0
