# A program with 10 million blocks live at once (record --heap): the
# analysis holds them in less than 64 bytes each.  Measured as the peak
# resident memory of `dsprof report --view leaks` on the experiment, less
# that of the same report without its heap files.
. "$TOP/tests/lib.sh"

if ldd "$DSPROF" | grep -q libasan; then
	skip "memory a block: a sanitizer build's allocations carry redzones and shadow (the plain build measures it)"
	exit 0
fi
N=10000000
"$DSPROF" record -q -o many --heap -- "$PROGS/heapleak" many $N >many.out 2>many.err
check_eq "recorded" "$?" 0
cp -r many none && rm -r none/heap
"$TOOLS/maxrss" "$DSPROF" report -i many --view leaks -f csv >many.csv 2>many.rss
"$TOOLS/maxrss" "$DSPROF" report -i none --view leaks -f csv >none.csv 2>none.rss
with=$(sed -n 's/^maxrss //p' many.rss) without=$(sed -n 's/^maxrss //p' none.rss)
site="main (heapleak.c:$(grep -n 'v\[i\] = malloc(16)' "$TOP/tests/programs/heapleak.c" | cut -d: -f1))"
check_eq "every block was live when the process ended" "$(csv_lookup many.csv name "$site" unended_blocks)" $N
per=$(( (${with:-0} - ${without:-0}) * 1024 / N ))
check "the analysis: $per bytes a block ($with KiB, $without KiB without heap files), < 64" \
	test -n "$with" -a -n "$without" -a "$per" -lt 64
