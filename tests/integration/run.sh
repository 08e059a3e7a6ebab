#!/bin/sh
# Run every tests/integration/t_*.sh against the built luatop; print a summary line.
# They need root (BPF, perf events); without it they are skipped.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP
pass=0 failn=0 skip=0

if [ "$(id -u)" != 0 ]; then
	echo "integration: not root, skipping (BPF needs root)"
fi
# The tests run both LuaJIT flavours; upstream's is unpacked by scripts/deps.sh
# (make deps, which make check runs first): without it they would fail one by one
# with a missing binary's PID. A chosen few (TESTS=) that do not use it still run.
no_upstream=''
[ -x "$TOP/.deps/luajit-upstream/usr/bin/luajit" ] ||
	no_upstream="upstream LuaJIT is not unpacked in .deps: run make deps first"
if [ "$(id -u)" = 0 ] && [ -n "$no_upstream" ] && [ -z "${TESTS:-}" ]; then
	echo "integration: $no_upstream" >&2
	exit 1
fi
# TESTS="t_a t_b" runs only those (make integration TESTS=...).
for t in "$TOP"/tests/integration/t_*.sh; do
	name=$(basename "$t" .sh)
	case " ${TESTS:-$name} " in *" $name "*) ;; *) continue ;; esac
	if [ "$(id -u)" != 0 ]; then
		skip=$((skip + 1))
		continue
	fi
	if [ -n "$no_upstream" ] && grep -Eq 'upstream|lj_(flavours|bin|run)|LJ_UPSTREAM|build_lua_host' "$t"; then
		failn=$((failn + 1))
		echo "  FAIL  $name: $no_upstream"
		continue
	fi
	start=$(date +%s)
	sh -c ". '$TOP/tests/integration/lib.sh'; . '$t'"
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "  PASS  $name (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "  SKIP  $name" ;;
	*) failn=$((failn + 1)); echo "  FAIL  $name (${secs}s)" ;;
	esac
done
echo "integration: $pass passed, $failn failed, $skip skipped"
[ "$failn" -eq 0 ]
