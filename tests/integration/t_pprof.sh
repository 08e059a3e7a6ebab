# pprof export (-o *.pb.gz) read by go tool pprof and protoc, and conversions
# with -i: on tests/workloads/split.lua (three functions in a 5:3:2 ratio), JIT on.
command -v go >/dev/null || fail "go missing (scripts/deps.sh installs golang-go)"
command -v protoc >/dev/null || fail "protoc missing (scripts/deps.sh installs protobuf-compiler)"
export HOME="$TMP"	# go keeps nothing of ours
script=$TOP/tests/workloads/split.lua
pprof() { go tool pprof -symbolize=none "$@" 2>"$TMP/go.err"; }

# leaf_counts FOLDED: "NAME COUNT" per leaf function, named as pprof's functions are:
# Lua names without " (chunk:line)", kernel ones without "_[k]".
leaf_counts() {
	awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); n = f[k]
		sub(/ \([^()]*:[0-9]+\)$/, "", n); sub(/_\[k\]$/, "", n); t[n] += c }
		END { for (n in t) print n, t[n] }' "$1" | sort
}
# top_counts PPROF: "NAME FLAT" of the top 8 functions by self samples (go's -top).
top_counts() {
	pprof -sample_index=samples -top -nodecount=8 "$1" | awk '
		/^ *flat / { on = 1; next }
		on && NF >= 6 && $1 > 0 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; t[n] += $1 }
		END { for (n in t) print n, t[n] }' | sort
}
# share FOLDED NAME: percent of the three designed functions' leaf samples that are NAME's.
share() {
	leaf_counts "$1" | awk -v w="$2" '$1 == "five" || $1 == "three" || $1 == "two" { t += $2; if ($1 == w) n = $2 }
		END { printf "%d\n", t ? 100 * n / t + 0.5 : -1 }'
}

start "$(lj_bin openresty)" "$script" 30
pid=$!
sleep 0.5
"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/p.pb.gz" 2>"$TMP/err" || fail "pprof run: $(cat "$TMP/err")"
"$LUATOP" -F 499 -p "$pid" --duration 3 -o "$TMP/p.folded" 2>"$TMP/err" || fail "folded run: $(cat "$TMP/err")"
kill "$pid"

# go tool pprof reads it: sample types, period, and -raw's samples.
pprof -raw "$TMP/p.pb.gz" >"$TMP/raw" || fail "go tool pprof -raw: $(cat "$TMP/go.err")"
grep -q '^samples/count cpu/nanoseconds' "$TMP/raw" || fail "sample types: $(head -5 "$TMP/raw")"
grep -q '^PeriodType: cpu nanoseconds' "$TMP/raw" || fail "period type: $(head -5 "$TMP/raw")"
grep -q '^Period: 2004008$' "$TMP/raw" || fail "period of 499 Hz: $(grep Period "$TMP/raw")"

# Native code has its mapping: the binary's path, range, offset and build ID,
# the binary first (pprof's main binary); the kernel its own mapping.
lj=$(readlink -f "$(lj_bin openresty)")
id=$(readelf -n "$lj" | sed -n 's/.*Build ID: *//p')
sed -n '/^Mappings/,$p' "$TMP/raw" >"$TMP/maps"
sed -n 2p "$TMP/maps" | grep -Eq "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $lj $id " ||
	fail "first mapping is not $lj with build ID $id: $(cat "$TMP/maps")"
# (a busy Lua loop may not have been sampled in the kernel at all)
if grep -q '_\[k\]' "$TMP/conv.folded" 2>/dev/null || { "$LUATOP" -i "$TMP/p.pb.gz" -o "$TMP/k.folded" &&
	grep -q '_\[k\]' "$TMP/k.folded"; }; then
	grep -q '\[kernel.kallsyms\]' "$TMP/maps" || fail "kernel frames but no kernel mapping: $(cat "$TMP/maps")"
fi
grep -Eq '^ +[0-9]+: 0x[0-9a-f]*[1-9a-f][0-9a-f]* M=1 ' "$TMP/raw" || fail "no native location with an address"

# Labels per sample: process, thread, VM state, merge outcome.
pprof -tags "$TMP/p.pb.gz" >"$TMP/tags" || fail "-tags: $(cat "$TMP/go.err")"
for t in "process_id:" "thread_id:" "vm_state:" "): JIT" "merge:" "): merged"; do
	grep -qF "$t" "$TMP/tags" || fail "no $t among the labels: $(cat "$TMP/tags")"
done
grep -qF "): $pid" "$TMP/tags" || fail "the thread/process label is not $pid: $(cat "$TMP/tags")"

# protoc decodes it with the schema under tests/pprof.
gzip -dc "$TMP/p.pb.gz" | protoc --proto_path="$TOP/tests/pprof" --decode perftools.profiles.Profile \
	"$TOP/tests/pprof/profile.proto" >"$TMP/decoded" 2>"$TMP/protoc.err" ||
	fail "protoc --decode: $(cat "$TMP/protoc.err")"
for s in '"samples"' '"count"' '"cpu"' '"nanoseconds"' 'duration_nanos: [1-9]' 'time_nanos: [1-9]' \
	 'period: 2004008'; do
	grep -q "$s" "$TMP/decoded" || fail "protoc: no $s in the decoded profile"
done

# The same profile as folded (-i p.pb.gz -o ...): go's total and top self counts match it.
"$LUATOP" -i "$TMP/p.pb.gz" -o "$TMP/conv.folded" 2>"$TMP/err" || fail "pprof -> folded: $(cat "$TMP/err")"
total=$(folded_total "$TMP/conv.folded")
[ "$total" -ge 200 ] || fail "too few samples: $total"	# 3 s at 499 Hz of a busy target
pprof -sample_index=samples -top "$TMP/p.pb.gz" >"$TMP/top" || fail "-top: $(cat "$TMP/go.err")"
grep -q "of $total total" "$TMP/top" || fail "go's total is not $total: $(sed -n 1,6p "$TMP/top")"
top_counts "$TMP/p.pb.gz" >"$TMP/go.top"
leaf_counts "$TMP/conv.folded" >"$TMP/leaf"
[ -s "$TMP/go.top" ] || fail "no -top rows: $(cat "$TMP/top")"
while read -r name n; do
	grep -qxF "$name $n" "$TMP/leaf" || fail "go: $name self $n, folded: $(grep -F "$name " "$TMP/leaf")"
done <"$TMP/go.top"
grep -q '^five ' "$TMP/go.top" || fail "five is not among go's top functions: $(cat "$TMP/go.top")"

# Round trips: folded -> pprof -> folded is the same bytes, for both runs' files.
for f in conv p; do
	"$LUATOP" -i "$TMP/$f.folded" -o "$TMP/rt.pb.gz" 2>"$TMP/err" || fail "folded -> pprof: $(cat "$TMP/err")"
	"$LUATOP" -i "$TMP/rt.pb.gz" -o "$TMP/rt.folded" 2>"$TMP/err" || fail "pprof -> folded: $(cat "$TMP/err")"
	cmp -s "$TMP/$f.folded" "$TMP/rt.folded" || fail "$f: folded -> pprof -> folded differs"
done
# ... and go reads the converted file with the folded file's total.
pprof -sample_index=samples -top "$TMP/rt.pb.gz" | grep -q "of $(folded_total "$TMP/p.folded") total" ||
	fail "converted pprof: go's total is not the folded total"

# The two runs (pprof and folded) agree in structure: the 5:3:2 design within 5 points.
for f in conv p; do
	for want in "five 50" "three 30" "two 20"; do
		set -- $want
		got=$(share "$TMP/$f.folded" "$1")
		[ "$got" -ge $(($2 - 5)) ] && [ "$got" -le $(($2 + 5)) ] ||
			fail "$f: $1 has $got% of the three, design $2%"
	done
done

# Names: an unknown extension is an error that names the formats; --format overrides.
expect_error 2 'cannot tell the format of .*\.pb.*--format folded\|pprof' "$LUATOP" -i "$TMP/p.folded" -o "$TMP/x.svg"
"$LUATOP" -i "$TMP/p.folded" --format pprof -o "$TMP/x.svg" 2>"$TMP/err" || fail "--format pprof: $(cat "$TMP/err")"
pprof -raw "$TMP/x.svg" >/dev/null || fail "--format pprof wrote no pprof: $(cat "$TMP/go.err")"
exit 0
