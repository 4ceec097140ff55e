# dsprof report --view hotlines: the hottest cache lines, the fields in
# them, who touched them and how.  A program whose hot line is known
# (hotline: two threads bump the two counters of one 64-byte struct);
# exact under the simulator, statistically with cpu-clock.
. "$TOP/tests/lib.sh"

# line_rows CSV: the line rows' names, in order
line_rows() { awk -F, 'NR > 1 && $3 == "line" { print $1 }' "$1"; }
# sub CSV LINE KIND NAME COLUMN: a column of the KIND row named NAME under LINE
sub() {
	awk -F, -v line="$2" -v kind="$3" -v name="$4" -v col="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); c[$i] = i } next }
		{ sub(/\r$/, "") }
		$c["line"] == line && $c["kind"] == kind && ($c["dataobject"] == name || $c["function"] == name) {
			print $c[col]; exit }' "$1"
}

# ---- the simulator: every store and load, exact ----
N=20000
if command -v valgrind >/dev/null 2>&1; then
	"$DSPROF" record -q --sim -c 1 -e sim:stores -e sim:loads -o sim -- "$PROGS/hotline" $N >sim.out 2>sim.err
	check_eq "sim: hotline ran" "$(sed -n 2p sim.out)" "$N $N"
	hot=$(sed -n 's/^line //p' sim.out)
	"$DSPROF" report -i sim --view hotlines -f csv >sim.csv 2>sim.rep.err
	check_eq "sim: the hottest line is the counters' line" "$(line_rows sim.csv | sed -n 1p)" "$hot"
	check_eq "sim: its fields, hottest first" \
		"$(awk -F, -v l="$hot" 'NR > 1 && $4 == l && $3 == "object" { print $12 }' sim.csv | sed -n 1,2p | sort | tr '\n' ' ')" \
		"struct counters.hits struct counters.misses "
	check_eq "sim: hits at bytes 0-7" "$(sub sim.csv "$hot" object "struct counters.hits" offsets)" "0-7"
	check_eq "sim: misses at bytes 8-15" "$(sub sim.csv "$hot" object "struct counters.misses" offsets)" "8-15"
	check_eq "sim: bump_hits stored N times" "$(sub sim.csv "$hot" code bump_hits stores)" $N
	check_eq "sim: bump_hits loaded N times" "$(sub sim.csv "$hot" code bump_hits loads)" $N
	check_eq "sim: bump_misses stored N times" "$(sub sim.csv "$hot" code bump_misses stores)" $N
	check_eq "sim: sim:stores samples of bump_misses" "$(sub sim.csv "$hot" code bump_misses samples:sim:stores)" $N
	check_eq "sim: one thread each" \
		"$(sub sim.csv "$hot" code bump_hits nthreads)/$(sub sim.csv "$hot" code bump_misses nthreads)" "1/1"
	check "sim: two different threads" test "$(sub sim.csv "$hot" code bump_hits threads)" != \
		"$(sub sim.csv "$hot" code bump_misses threads)"
	# main initializes both (2 stores) and prints both (2 loads); free() may write the chunk
	stores=$(sub sim.csv "$hot" line "" stores)
	check "sim: the line's stores are the threads' and main's ($stores)" \
		test "$stores" -ge $((2 * N + 2)) -a "$stores" -le $((2 * N + 6))
	check_ge "sim: three threads touched the line" "$(awk -F, -v l="$hot" '$1 == l { print $8 }' sim.csv)" 3
else
	skip "hotlines under the simulator: valgrind is not installed ('make deps' installs it)"
fi

# ---- cpu-clock: statistically ----
"$DSPROF" record -q -o clk -- "$PROGS/hotline" 400000000 >clk.out 2>clk.err
hot=$(sed -n 's/^line //p' clk.out)
"$DSPROF" report -i clk --view hotlines -f csv >clk.csv 2>clk.rep.err
check_eq "cpu-clock: the hottest line is the counters' line" "$(line_rows clk.csv | sed -n 1p)" "$hot"
line_n=$(awk -F, -v l="$hot" '$1 == l { print $15 }' clk.csv)
hits_n=$(sub clk.csv "$hot" object "struct counters.hits" samples:cpu-clock)
miss_n=$(sub clk.csv "$hot" object "struct counters.misses" samples:cpu-clock)
check_ge "cpu-clock: the line has samples" "${line_n:-0}" 100
check_ge "cpu-clock: hits has a fair share (>= 25%)" $((${hits_n:-0} * 4)) "${line_n:-1}"
check_ge "cpu-clock: misses has a fair share (>= 25%)" $((${miss_n:-0} * 4)) "${line_n:-1}"
check_ge "cpu-clock: both fields make the line" $((${hits_n:-0} + ${miss_n:-0})) $((${line_n:-1} * 9 / 10))
check_ge "cpu-clock: loads seen" "$(awk -F, -v l="$hot" '$1 == l { print $6 }' clk.csv)" 1
check_ge "cpu-clock: stores seen" "$(awk -F, -v l="$hot" '$1 == l { print $7 }' clk.csv)" 1
check_eq "cpu-clock: two threads" "$(awk -F, -v l="$hot" '$1 == l { print $8 }' clk.csv)" 2
check_eq "cpu-clock: bump_hits touched hits' bytes" "$(awk -F, -v l="$hot" '$4 == l && $3 == "code" && $13 == "bump_hits" { print $5; exit }' clk.csv)" "0-7"

# ---- the table's shape: a tree in CSV and JSON ----
check_eq "csv: the header" "$(head -1 clk.csv | tr -d '\r')" \
	"name,parent,kind,line,offsets,loads,stores,nthreads,threads,ncpus,cpus,dataobject,function,source,samples:cpu-clock,count:cpu-clock"
check_eq "csv: rows follow their line" "$(awk -F, 'NR > 1 { if ($3 == "line") cur = $4; else if ($4 != cur) bad++ } END { print bad + 0 }' clk.csv)" 0
check_eq "csv: a sub-row's parent is its line" "$(awk -F, 'NR > 1 { if ($3 == "line") { cur = $1; if ($2 != "") bad++ } else if ($2 != cur) bad++ } END { print bad + 0 }' clk.csv)" 0
check_eq "csv: names are plain" "$(awk -F, 'NR > 1 && $1 ~ /^ /' clk.csv | wc -l)" 0
check_eq "csv: the first row is a line" "$(awk -F, 'NR == 2 { print $3 }' clk.csv)" line
check_eq "csv: every line has its object rows" "$(awk -F, 'NR > 1 { if ($3 == "line") { if (open && !obj) bad++; open = 1; obj = 0 } else if ($3 == "object") obj = 1 }
	END { if (open && !obj) bad++; print bad + 0 }' clk.csv)" 0
"$DSPROF" report -i clk --view hotlines -f json >clk.json 2>/dev/null
check_eq "json: the first row is the hot line" "$("$TOOLS/dsjq" '.rows[0].line' clk.json)" "$hot"
check_eq "json: its kind" "$("$TOOLS/dsjq" '.rows[0].kind' clk.json)" line
check_eq "json: a field row names its object" "$("$TOOLS/dsjq" '.rows[1].kind' clk.json)" object
check_eq "json: ... under its line" "$("$TOOLS/dsjq" '.rows[1].parent' clk.json)" "$hot"
check_eq "json: the line is at the top" "$("$TOOLS/dsjq" '.rows[0].parent' clk.json)" null
check_eq "json: numbers are numbers" "$("$TOOLS/dsjq" '.rows[0].nthreads' clk.json)" 2
check_eq "json: the line size" "$("$TOOLS/dsjq" '.properties.line_size' clk.json)" \
	"$("$TOOLS/dsjq" '.caches[0].line' clk/meta.json)"
check_eq "json: the level" "$("$TOOLS/dsjq" '.properties.level' clk.json)" L1D
"$DSPROF" report -i clk --view hotlines -n 1 -f json >one.json 2>/dev/null
check_eq "--limit 1: one line" "$("$TOOLS/dsjq" '.rows[0].kind' one.json)/$("$TOOLS/dsjq" '.rows[1].kind' one.json)" line/object
lines_in_one=$("$DSPROF" report -i clk --view hotlines -n 1 -f csv | awk -F, '$3 == "line"' | wc -l)
check_eq "--limit 1: the sub-rows of one line only" "$lines_in_one" 1
"$DSPROF" report -i clk --view hotlines -n 1 >one.txt 2>&1
check_contains "text: the line row" one.txt "^ +[0-9.]+% +[0-9]+ +[0-9.]+s  $hot +line +0-15"
check_contains "text: field rows indented under it" one.txt "  struct counters\.(hits|misses) +object"

# ---- other line sizes ----
"$DSPROF" report -i clk --view hotlines --line 4096 -n 1 -f csv >page.csv 2>page.err
check_eq "--line 4096: the counters' page" "$(line_rows page.csv | sed -n 1p)" "$(printf '0x%x' $((hot & ~4095)))"
if "$DSPROF" mobj list -i clk | grep -q 'L2_LINE='; then
	"$DSPROF" report -i clk --view hotlines --level L2 -f json >l2.json 2>l2.err
	check_eq "--level L2: the L2's line size" "$("$TOOLS/dsjq" .properties.line_size l2.json)" \
		"$("$DSPROF" mobj list -i clk | sed -n 's/.*L2_LINE=\([0-9]*\).*/\1/p')"
else
	skip "--level L2: the machine has no L2 in sysfs"
fi
"$DSPROF" report -i clk --view hotlines --machine "$TOP/docs/machines/wide-lines.machine" -f json >w.json 2>w.err
check_eq "--machine: the model's line size" "$("$TOOLS/dsjq" .properties.line_size w.json)" 128

# ---- errors ----
"$DSPROF" report -i clk --view hotlines --level L5 >e1.out 2>&1
check_eq "--level L5: status 1" "$?" 1
check_contains "--level L5: says which" e1.out "unknown cache level 'L5' \(L1D, L2 or L3\)"
"$DSPROF" report -i clk --view functions --level L2 >e2.out 2>&1
check_contains "--level with another view" e2.out "--level applies to --view hotlines"
"$DSPROF" report -i clk --view hotlines --level L2 --line 128 >e3.out 2>&1
check_contains "--level and --line" e3.out "give --level or --line, not both"
"$DSPROF" report -i clk --view hotlines --machine "$TOP/docs/machines/amd-k8.machine" --level L3 >e4.out 2>&1
check_contains "a level the machine lacks" e4.out "has no L3 cache; give a machine model"
