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

echo "== dsprof record -o $OUT -- $PROGS/example"
"$DSPROF" record -o "$OUT" -- "$PROGS/example"
echo
echo "== dsprof report -i $OUT --view summary"
"$DSPROF" report -i "$OUT" --view summary
echo
echo "== dsprof report -i $OUT   (functions)"
"$DSPROF" report -i "$OUT" --limit 12
echo
echo "== dsprof report -i $OUT --view lines --limit 12"
"$DSPROF" report -i "$OUT" --view lines --limit 12
echo
echo "== dsprof report -i $OUT --view pcs --limit 8"
"$DSPROF" report -i "$OUT" --view pcs --limit 8

# The false-sharing story: two workers count packets in adjacent slots of
# one array; the simulator (no PMU needed, -c 1: every access) counts each
# coherence miss.
# The sharing view names the fields and the fix; the padded build applies
# it, and the diff shows the misses gone.
echo
echo "== dsprof record --sim -c 1 -e sim:HITM,sim:stores -o $DIR/shared.data -- $PROGS/counters"
"$DSPROF" record --sim -c 1 -e sim:HITM,sim:stores -o "$DIR/shared.data" -- "$PROGS/counters"
echo
echo "== dsprof report -i $DIR/shared.data --view sharing --limit 1"
"$DSPROF" report -i "$DIR/shared.data" --view sharing --limit 1
echo
echo "== dsprof record --sim -c 1 -e sim:HITM,sim:stores -o $DIR/padded.data -- $PROGS/counters_padded"
"$DSPROF" record --sim -c 1 -e sim:HITM,sim:stores -o "$DIR/padded.data" -- "$PROGS/counters_padded"
echo
echo "== dsprof diff $DIR/shared.data $DIR/padded.data --view sharing"
"$DSPROF" diff "$DIR/shared.data" "$DIR/padded.data" --view sharing
