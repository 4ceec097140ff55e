#!/bin/sh
# The simulated PMU against Cachegrind, measured in the same run, printed as
# a ratio.
#
#   bench/sim.sh BUILD_DIR
#
# The same programs with the same cache geometry under
# `valgrind --tool=cachegrind --cache-sim=yes` and under `dsprof record
# --sim` (default events and periods, call chains; the whole command, so
# dsprof's own start-up and its writing of perf.data count too): wall time,
# RUNS runs interleaved, the minimum kept.  The native run gives the
# slowdowns.  Target: dsprof --sim takes at most 2x Cachegrind's time.
# Then the latency model's cost: `--sim --mem` (sim:MEM_CYCLES, every
# load's latency counted, and sim:stores) against `--sim -e sim:loads -e
# sim:stores` (the same accesses counted, no latency).  Target: <= +10%.
set -eu
BUILD=$(cd "${1:?usage: bench/sim.sh BUILD_DIR}" && pwd)
DSPROF="$BUILD/dsprof"
RUNS=${RUNS:-3}
W=$(mktemp -d /tmp/dsprof-bench-sim.XXXXXX)
trap 'rm -rf "$W"' EXIT

echo
echo "== simulated PMU vs Cachegrind (same program and geometry, whole command)"
if ! command -v valgrind >/dev/null 2>&1; then
	echo "skipped: valgrind is not installed ('make deps' installs it)"
	exit 0
fi

# The geometry both simulate: Cachegrind has no L2, so its LL is our L3.
GEOM=L1D=32K:8:64,L2=1M:16:64,L3=32M:16:64
CG="--D1=32768,8,64 --I1=32768,8,64 --LL=33554432,16,64"

. "$(dirname "$0")/timing.sh"

worst=0
bench() { # LABEL PROGRAM ARGS...
	label=$1
	shift
	: >"$W/native"; : >"$W/cg"; : >"$W/ds"; : >"$W/nolat"; : >"$W/lat"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		time_of "$@" >>"$W/native"
		# shellcheck disable=SC2086 # CG is a list of options
		time_of valgrind -q --tool=cachegrind --cache-sim=yes $CG --cachegrind-out-file=/dev/null "$@" >>"$W/cg"
		time_of "$DSPROF" record -q --sim --cache "$GEOM" -o "$W/exp" -- "$@" >>"$W/ds"
		time_of "$DSPROF" record -q --sim -e sim:loads -e sim:stores --cache "$GEOM" -o "$W/exp" -- "$@" >>"$W/nolat"
		time_of "$DSPROF" record -q --sim --mem --cache "$GEOM" -o "$W/exp" -- "$@" >>"$W/lat"
		i=$((i + 1))
	done
	awk -v l="$label" -v n="$(min <"$W/native")" -v c="$(min <"$W/cg")" -v d="$(min <"$W/ds")" 'BEGIN {
		printf "%s: native %.3f s   cachegrind %.3f s (%.0fx)   dsprof --sim %.3f s (%.0fx)   ratio %.2f (target <= 2.00): %s\n",
			l, n, c, c / n, d, d / n, d / c, (d / c <= 2.0) ? "PASS" : "FAIL" }'
	awk -v l="$label" -v a="$(min <"$W/nolat")" -v b="$(min <"$W/lat")" 'BEGIN {
		printf "%s: latency model: loads+stores %.3f s   --mem %.3f s (%+.1f%%, target <= +10%%): %s\n",
			l, a, b, (b / a - 1) * 100, (b / a <= 1.10) ? "PASS" : "FAIL" }'
}

bench "memory-bound chase (membound 4 16)" "$BUILD/bench/membound" 4 16
if [ -x "$BUILD/tests/programs/example" ]; then
	bench "particles, lists and a table (example 40)" "$BUILD/tests/programs/example" 40
fi
