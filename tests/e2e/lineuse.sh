# Cache-line utilization.  sim:L1D_EVICT: every line an L1 fetched leaves
# it once, weighted by the bytes of it used (docs/simulator.md).
# tests/programs/hotcold.c reads the first double of each 96-byte struct
# of an array: each line fetched there has 8 of its 64 bytes used, exactly
# at period 1, within a byte at the default period; dataobjects, datalayout
# and lineuse say so, and on cpu-clock lineuse estimates 8 of the 96 bytes
# used a visit from the members' samples.
. "$TOP/tests/lib.sh"

# per: the used bytes of a line on average for struct particle.x
per() {
	"$DSPROF" report -i "$1" --view dataobjects -f csv >"$1.csv" 2>"$1.err"
	awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "count:sim:L1D_EVICT") l = i; if ($i == "count:used_bytes:sim:L1D_EVICT") u = i } next }
		 $1 == "struct particle.x" && $l > 0 { printf "%.2f\n", $u / $l }' "$1.csv"
}

"$DSPROF" record -q -o hc1 --sim -e sim:L1D_EVICT,sim:L1D_MISS -c 1 -- "$PROGS/hotcold" 20 >hc1.out 2>hc1.err
check_eq "recorded at period 1" "$?" 0
per hc1 >hc1.per
lines=$(csv_lookup hc1.csv name "struct particle.x" count:sim:L1D_EVICT)
check_within "particle.x: 2 lines of 3 fetched, 20 rounds of 65536 structs" "${lines:-0}" 1310720 10
check_eq "particle.x, period 1: 8 bytes of each line used" "$(cat hc1.per)" 8.00
check_eq "evictions and misses: the same count over the run" \
	"$(csv_lookup hc1.csv name "struct particle.x" count:sim:L1D_EVICT)" \
	"$(csv_lookup hc1.csv name "struct particle.x" count:sim:L1D_MISS)"
"$DSPROF" report -i hc1 --view dataobjects >hc1.txt 2>&1
check_contains "the header gives the average" hc1.txt 'used_bytes:sim:L1D_EVICT: .*bytes of a line used on average'

"$DSPROF" record -q -o hc2 --sim -e sim:L1D_EVICT -- "$PROGS/hotcold" 20 >hc2.out 2>hc2.err
check_eq "recorded at the default period" "$?" 0
check_within "particle.x, default period: 8 bytes of 64 (8 of each 96-byte struct), +-1" "$(per hc2)" 8 1

# the views: dataobjects' line_use, datalayout's note, lineuse's row
check_eq "dataobjects: line_use of particle.x" "$(csv_lookup hc1.csv name "struct particle.x" line_use)" 12.50
"$DSPROF" report -i hc1 --view lineuse -f csv >lu1.csv 2>lu1.err
check_eq "lineuse: the type first, most wasted" "$(awk -F, 'NR == 2 { print $1 }' lu1.csv)" "struct particle"
check_eq "lineuse: 96 bytes" "$(csv_lookup lu1.csv name "struct particle" size)" 96
check_eq "lineuse: 8 of them touched a visit" "$(csv_lookup lu1.csv name "struct particle" touched)" 8
check_eq "lineuse: 8.0 bytes used of each line fetched" "$(csv_lookup lu1.csv name "struct particle" used_per_line)" 8.0
check_eq "lineuse: the bytes fetched and never used" \
	"$(csv_lookup lu1.csv name "struct particle" wasted)" "$((lines * 64 - lines * 8))"
"$DSPROF" report -i hc1 --view datalayout --type particle >dl1.txt 2>&1
check_contains "datalayout: the line-use note" dl1.txt \
	'line use: 96 bytes, .*about 8 of its 96 bytes used a visit \(8%\).*8\.0 of each 64-byte line fetched used \(12%\)'

# without the simulator, the samples' estimate: only x is read
"$DSPROF" record -q -o hcc -- "$PROGS/hotcold" 200 >hcc.out 2>hcc.err
"$DSPROF" report -i hcc --view lineuse -f csv >luc.csv 2>luc.err
check_eq "cpu-clock lineuse: 8 of 96 bytes touched a visit" "$(csv_lookup luc.csv name "struct particle" touched)" 8
check "cpu-clock lineuse: no simulated columns" test -z "$(csv_lookup luc.csv name "struct particle" fetched)"
check_ge "cpu-clock lineuse: an estimated waste" "$(csv_lookup luc.csv name "struct particle" wasted)" 1
