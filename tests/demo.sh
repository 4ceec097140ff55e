#!/bin/sh
# make demo: record the bundled example and print what dsprof sees; then
# the false-sharing story, from the shared line to the proof of its fix.
#
#   tests/demo.sh BUILD_DIR [OUT_DIR]     (experiments go to OUT_DIR, default BUILD_DIR)
set -eu
BUILD=${1:?usage: tests/demo.sh BUILD_DIR [OUT_DIR]}
DIR=${2:-$BUILD}
DSPROF="$BUILD/dsprof"
PROGS="$BUILD/tests/programs"
OUT="$DIR/demo.data"

# show ARGS...: print the command, then run it
show() {
	echo
	echo "== dsprof $*"
	"$DSPROF" "$@"
}

show record -o "$OUT" -- "$PROGS/example"
show report -i "$OUT" --view summary
show report -i "$OUT" --limit 12
show report -i "$OUT" --view lines --limit 12
show report -i "$OUT" --view pcs --limit 8
show report -i "$OUT" --view dataobjects --limit 8
show report -i "$OUT" --view datalayout --type cell

# The false-sharing story: two workers count packets in adjacent slots of
# one array; the simulator (no PMU needed, -c 1: every access) counts each
# coherence miss.  The sharing view names the fields and the fix; the
# padded build applies it, and the diff shows the misses gone.
show record --sim -c 1 -e sim:HITM,sim:stores -o "$DIR/shared.data" -- "$PROGS/counters"
show report -i "$DIR/shared.data" --view sharing --limit 1
show record --sim -c 1 -e sim:HITM,sim:stores -o "$DIR/padded.data" -- "$PROGS/counters_padded"
show diff "$DIR/shared.data" "$DIR/padded.data" --view sharing
