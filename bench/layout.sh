#!/bin/sh
# dsprof layout --all against pahole on the same binary, printed as a ratio.
#
#   bench/layout.sh BUILD_DIR
#
# The binary is dsprof itself (built with -g: a large program of our own).
# Both print the same types: `dsprof layout --all` is every struct, union
# and class, named or named by a typedef, wherever defined, which pahole
# prints with -a --show_private_classes.  Output goes to /dev/null; each
# tool runs RUNS times, interleaved, and the minimum wall time is kept.
# The time includes loading the DWARF, which is most of the work.
# Target: dsprof no slower than pahole (ratio pahole/dsprof >= 1.0).
set -eu
BUILD=$(cd "${1:?usage: bench/layout.sh BUILD_DIR}" && pwd)
DSPROF="$BUILD/dsprof"
BIN=${LAYOUT_BINARY:-$DSPROF}
RUNS=${RUNS:-15}
W=$(mktemp -d /tmp/dsprof-bench-layout.XXXXXX)
trap 'rm -rf "$W"' EXIT

echo "== dsprof layout --all against pahole -a --show_private_classes ($(basename "$BIN"))"
if ! command -v pahole >/dev/null 2>&1; then
	echo "pahole is not installed (Debian package dwarves): skipped"
	exit 0
fi

now() { date +%s%N; }
# time_of CMD...: wall microseconds of one run
time_of() {
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	echo $(((t1 - t0) / 1000))
}
min() { sort -n | head -1; }

: >"$W/ds"
: >"$W/ph"
"$DSPROF" layout --all "$BIN" >/dev/null # warm-up: page cache
pahole -a --show_private_classes "$BIN" >/dev/null
i=0
while [ "$i" -lt "$RUNS" ]; do
	time_of "$DSPROF" layout --all "$BIN" >>"$W/ds"
	time_of pahole -a --show_private_classes "$BIN" >>"$W/ph"
	i=$((i + 1))
done
types=$("$DSPROF" layout --all "$BIN" | grep -c '^[a-z].* {$')
awk -v d="$(min <"$W/ds")" -v p="$(min <"$W/ph")" -v n="$types" 'BEGIN {
	printf "%d types: pahole %.1f ms   dsprof layout %.1f ms   ratio %.2fx (target >= 1.00x, no slower than pahole): %s\n",
		n, p / 1000, d / 1000, p / d, (p / d >= 1.0) ? "PASS" : "FAIL" }'
