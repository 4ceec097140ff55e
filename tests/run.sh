#!/bin/sh
# The dsprof test suite: unit tests (C) and end-to-end tests (shell).
#
#   tests/run.sh [--repeat N] [--load] [--full] BUILD_DIR [PATTERN...]
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
#
# Tests that take long because they test much (every function of a big
# program against gdb, hundreds of corrupted copies of a binary) check a
# sample of it and say so in their "ok" line ("12 of 480 corrupted
# binaries (sampled; make check runs all)"); --full, which make check
# gives, has them check all of it.  They see it as DSPROF_TEST_FULL=1.
#
# Files run side by side, JOBS at a time: DSPROF_TEST_JOBS when set, else
# one per CPU (their lines come out in order all the same).  Every test
# holds on a busy machine, and most spend their time waiting on a program
# they profile, so a 2-core machine runs two at once.  A file whose first
# lines say "# runs alone" (it changes something the whole machine shares,
# such as a kernel setting) runs with no other beside it.  Each file gets a
# HOME of its own, so that none reads or writes the user's files.
#
# Each file's line ends with the seconds it took, and the run with the
# total.  The time budget: a run of every file (no PATTERN) fails when it
# took more than BUDGET seconds, DSPROF_TEST_BUDGET when set (issue 42:
# make test takes at most 10 minutes on an idle 2-core machine, and 30
# with two CPU-bound processes beside it; the budget is the second, so it
# trips on a real slowdown, not on a busy machine).  It grows with
# --repeat N (N times) and with a sanitizer build (SANITIZER_SLOWDOWN
# times: ASan and UBSan's cost on this suite's mix of decoding and
# process starts).  Its verdict is a check of its own, in the lines
# before the last.
BUDGET=${DSPROF_TEST_BUDGET:-1800}
SANITIZER_SLOWDOWN=4
case "$BUDGET" in '' | *[!0-9]* | 0)
	echo "tests/run.sh: DSPROF_TEST_BUDGET must be a number of seconds, not '$BUDGET'" >&2
	exit 1 ;;
esac
JOBS=${DSPROF_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case "$JOBS" in '' | *[!0-9]* | 0)
	echo "tests/run.sh: DSPROF_TEST_JOBS must be a number of files to run at once, not '$JOBS'" >&2
	exit 1 ;;
esac
set -u
REPEAT=1 LOAD="" FULL=""
usage="usage: tests/run.sh [--repeat N] [--load] [--full] BUILD_DIR [PATTERN...]"
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
	--full) FULL=1; shift ;;
	--) shift; break ;;
	-*) echo "tests/run.sh: unknown option '$1' ($usage)" >&2
		exit 1 ;;
	*) break ;;
	esac
done
BUILD=${1:?$usage}
shift
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
export DSPROF="$BUILD/dsprof" PROGS="$BUILD/tests/programs" TOOLS="$BUILD/tests/tools" TOP BUILD
if [ -n "$FULL" ]; then
	export DSPROF_TEST_FULL=1
else
	unset DSPROF_TEST_FULL
fi
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

t0=$(date +%s) nfiles=0
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

# The runs to make, one line each in $WORK/.tasks: "NAME RUN ALONE COMMAND..."
# (the command is a unit test binary, or sh and an end-to-end script).
add_file() { # name, command...
	name=$1; shift
	picked "$name" || return 0
	nfiles=$((nfiles + 1))
	alone=0
	[ "$1" = sh ] && sed -n '1,/^[^#]/p' "$2" | grep -q '^# runs alone' && alone=1
	n=1
	while [ "$n" -le "$REPEAT" ]; do
		echo "$name $n $alone $*" >>"$WORK/.tasks"
		n=$((n + 1))
	done
}

start_task() { # index: runs it in the background; $WORK/tI.done holds "STATUS SECONDS" when it ended
	idx=$1
	set -- $(sed -n "${idx}p" "$WORK/.tasks")
	shift 3
	mkdir "$WORK/home.$idx"
	(
		start=$(date +%s)
		HOME="$WORK/home.$idx" "$@" >"$WORK/t$idx.out" 2>&1 </dev/null
		echo "$? $(( $(date +%s) - start ))" >"$WORK/t$idx.tmp"
		mv "$WORK/t$idx.tmp" "$WORK/t$idx.done"
	) &
}

report_task() { # index: counts and prints its results
	idx=$1
	set -- $(sed -n "${idx}p" "$WORK/.tasks")
	name=$1 n=$2
	out="$WORK/t$idx.out"
	read -r rc secs <"$WORK/t$idx.done"
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
	[ "$f" -eq 0 ] && echo "$name" >>"$WORK/.passed_runs"
	label=$name
	[ "$REPEAT" -gt 1 ] && label="$name #$n"
	printf '%-40s %4d ok %3d failed %3d skipped  (%ds)\n' "$label" "$p" "$f" "$s" "$secs"
	echo "$secs $label" >>"$WORK/.times"
	if [ "$f" -gt 0 ]; then
		case " $failed_names " in *" $name "*) ;; *) failed_names="$failed_names $name" ;; esac
		grep -E '^(not ok|#)' "$out" | head -40 | sed 's/^/    /'
		echo "    --- last lines of output ---"
		tail -15 "$out" | sed 's/^/    /'
	fi
	grep '^skip - ' "$out" | sed 's/^/    /'
	if [ "$REPEAT" -gt 1 ] && [ "$n" -eq "$REPEAT" ]; then
		summary="$summary$(printf '%-40s %d of %d runs passed' "$name" \
			"$(grep -cx -- "$name" "$WORK/.passed_runs")" "$REPEAT")
"
	fi
}

PATTERNS="$*"
: >"$WORK/.tasks"
: >"$WORK/.passed_runs"
for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	add_file "unit/$(basename "$t")" "$t"
done
for t in "$TOP"/tests/e2e/*.sh; do
	add_file "e2e/$(basename "$t" .sh)" sh "$t"
done

# Runs start in order, JOBS at a time (one that runs alone when none is
# running, and none beside it), and are reported in order as they end.
ntasks=$(wc -l <"$WORK/.tasks")
next=1 reported=1 alone_running=0
while [ "$reported" -le "$ntasks" ]; do
	running=0 idx=$reported
	while [ "$idx" -lt "$next" ]; do
		[ -e "$WORK/t$idx.done" ] || running=$((running + 1))
		idx=$((idx + 1))
	done
	[ "$running" -eq 0 ] && alone_running=0
	if [ "$next" -le "$ntasks" ] && [ "$running" -lt "$JOBS" ] && [ "$alone_running" -eq 0 ]; then
		alone=$(sed -n "${next}p" "$WORK/.tasks" | cut -d' ' -f3)
		if [ "$alone" -eq 0 ] || [ "$running" -eq 0 ]; then
			start_task "$next"
			alone_running=$alone
			next=$((next + 1))
			continue
		fi
	fi
	if [ -e "$WORK/t$reported.done" ]; then
		report_task "$reported"
		reported=$((reported + 1))
		continue
	fi
	sleep 0.2
done
wait

total=$(( $(date +%s) - t0 ))
echo "# total: $total s for $nfiles files"
if [ -z "$PATTERNS" ] && [ "$nfiles" -gt 0 ]; then
	allowed=$((BUDGET * REPEAT)) how="DSPROF_TEST_BUDGET $BUDGET s"
	[ "$REPEAT" -gt 1 ] && how="$how x $REPEAT runs"
	if grep -q __asan_init "$DSPROF" 2>/dev/null; then
		allowed=$((allowed * SANITIZER_SLOWDOWN)) how="$how x $SANITIZER_SLOWDOWN for the sanitizers"
	fi
	if [ "$total" -le "$allowed" ]; then
		budget_line="ok - time budget: $total s, within $allowed s ($how)"
		pass=$((pass + 1))
	else
		budget_line="not ok - time budget: the suite took $total s, more than its $allowed s ($how; see tests/run.sh)"
		fail=$((fail + 1))
		failed_names="$failed_names time-budget"
		echo "# the slowest files:"
		sort -rn "$WORK/.times" | head -8 | sed 's/^/#   /'
	fi
fi

if [ -n "$summary" ]; then
	echo "# runs${LOAD:+ (under load)}:"
	printf '%s' "$summary"
fi
[ -n "${budget_line:-}" ] && echo "$budget_line"
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
