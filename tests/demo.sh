#!/bin/sh
# make demo: record the bundled example and print what dsprof sees.
set -eu
BUILD=${1:?usage: tests/demo.sh BUILD_DIR}
DSPROF="$BUILD/dsprof"
OUT="$BUILD/demo.data"

echo "== dsprof record -o $OUT -- $BUILD/tests/programs/example"
"$DSPROF" record -o "$OUT" -- "$BUILD/tests/programs/example"
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
