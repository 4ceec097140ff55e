#!/bin/sh
# The dsprof test suite: unit tests (C) and end-to-end tests (shell).
#
#   tests/run.sh [--repeat N] [--load] BUILD_DIR [PATTERN...]
#
# Every check prints one line, "ok - NAME", "not ok - NAME: why" or
# "skip - NAME: why"; this runner counts them and ends with the line
# "N passed, N failed, N skipped".  A test binary or script that exits
# non-zero without reporting a failure (a crash) counts as one failure.
#
# PATTERNs pick the test files whose name ("unit/test_tui", "e2e/sharing")
# contains one of them; none: all.  --repeat N runs each picked file N
# times in a row and says, per file, how many runs passed: the proof a
# statistical or timing-dependent test holds.  --load keeps both CPUs busy
# with two spinning processes while the tests run (as a loaded CI machine
# would), so that
#
#   tests/run.sh --repeat 10 --load build e2e/
#
# runs every end-to-end file ten times under load.
set -u
REPEAT=1 LOAD=""
while [ $# -gt 0 ]; do
	case "$1" in
	--repeat)
		REPEAT=${2:-}
		case "$REPEAT" in '' | *[!0-9]* | 0)
			echo "tests/run.sh: --repeat needs a count of runs, not '$REPEAT'" >&2
			exit 1 ;;
		esac
		shift 2 ;;
	--load) LOAD=1; shift ;;
	--) shift; break ;;
	-*) echo "tests/run.sh: unknown option '$1' (usage: tests/run.sh [--repeat N] [--load] BUILD_DIR [PATTERN...])" >&2
		exit 1 ;;
	*) break ;;
	esac
done
BUILD=${1:?usage: tests/run.sh [--repeat N] [--load] BUILD_DIR [PATTERN...]}
shift
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
export DSPROF="$BUILD/dsprof" PROGS="$BUILD/tests/programs" TOOLS="$BUILD/tests/tools" TOP BUILD
# sanitizer builds: leaks inside libraries we cannot fix (see the file)
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
WORK=$(mktemp -d /tmp/dsprof-tests.XXXXXX)
export WORK
LOADERS=""
cleanup() {
	[ -n "$LOADERS" ] && kill $LOADERS 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "$LOAD" ]; then
	for i in 1 2; do
		sh -c 'while :; do :; done' &
		LOADERS="$LOADERS $!"
	done
	echo "# load: two spinning processes ($LOADERS ) run beside the tests"
fi

pass=0 fail=0 skip=0
failed_names=""
summary=""

picked() { # name: whether a PATTERN picks it
	[ "$#" -eq 1 ] || return 1
	[ -z "$PATTERNS" ] && return 0
	for p in $PATTERNS; do
		case "$1" in *"$p"*) return 0 ;; esac
	done
	return 1
}

run_one() { # name, command...
	name=$1; shift
	picked "$name" || return 0
	runs_ok=0
	n=1
	while [ "$n" -le "$REPEAT" ]; do
		out="$WORK/$(echo "$name" | tr '/ ' '__').out"
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
		[ "$f" -eq 0 ] && runs_ok=$((runs_ok + 1))
		label=$name
		[ "$REPEAT" -gt 1 ] && label="$name #$n"
		printf '%-40s %4d ok %3d failed %3d skipped  (%ds)\n' "$label" "$p" "$f" "$s" $(( $(date +%s) - start ))
		if [ "$f" -gt 0 ]; then
			case " $failed_names " in *" $name "*) ;; *) failed_names="$failed_names $name" ;; esac
			grep -E '^(not ok|#)' "$out" | head -40 | sed 's/^/    /'
			echo "    --- last lines of output ---"
			tail -15 "$out" | sed 's/^/    /'
		fi
		grep '^skip - ' "$out" | sed 's/^/    /'
		n=$((n + 1))
	done
	if [ "$REPEAT" -gt 1 ]; then
		summary="$summary$(printf '%-40s %d of %d runs passed' "$name" "$runs_ok" "$REPEAT")
"
	fi
}

PATTERNS="$*"
for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$TOP"/tests/e2e/*.sh; do
	run_one "e2e/$(basename "$t" .sh)" sh "$t"
done

if [ -n "$summary" ]; then
	echo "# runs${LOAD:+ (under load)}:"
	printf '%s' "$summary"
fi
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
