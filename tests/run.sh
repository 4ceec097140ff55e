#!/bin/sh
# The dsprof test suite: unit tests (C) and end-to-end tests (shell).
#
#   tests/run.sh BUILD_DIR [PATTERN]
#
# Every check prints one line, "ok - NAME", "not ok - NAME: why" or
# "skip - NAME: why"; this runner counts them and ends with the line
# "N passed, N failed, N skipped".  A test binary or script that exits
# non-zero without reporting a failure (a crash) counts as one failure.
set -u
BUILD=${1:?usage: tests/run.sh BUILD_DIR [PATTERN]}
PATTERN=${2:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
export DSPROF="$BUILD/dsprof" PROGS="$BUILD/tests/programs" TOOLS="$BUILD/tests/tools" TOP BUILD
# sanitizer builds: leaks inside libraries we cannot fix (see the file)
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
WORK=$(mktemp -d /tmp/dsprof-tests.XXXXXX)
export WORK
trap 'rm -rf "$WORK"' EXIT INT TERM

pass=0 fail=0 skip=0
failed_names=""

run_one() { # name, command...
	name=$1; shift
	out="$WORK/$(echo "$name" | tr '/ ' '__').out"
	case "$name" in *"$PATTERN"*) ;; *) return ;; esac
	start=$(date +%s)
	"$@" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^ok - ' "$out")
	f=$(grep -c '^not ok - ' "$out")
	s=$(grep -c '^skip - ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc without reporting a failure" >>"$out"
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "not ok - $name: reported no checks" >>"$out"
		f=1
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-40s %4d ok %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $(( $(date +%s) - start ))
	if [ "$f" -gt 0 ]; then
		failed_names="$failed_names $name"
		grep -E '^(not ok|#)' "$out" | head -40 | sed 's/^/    /'
		echo "    --- last lines of output ---"
		tail -15 "$out" | sed 's/^/    /'
	fi
	grep '^skip - ' "$out" | sed 's/^/    /'
}

for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$TOP"/tests/e2e/*.sh; do
	run_one "e2e/$(basename "$t" .sh)" sh "$t"
done

[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
