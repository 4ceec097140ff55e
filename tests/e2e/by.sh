# dsprof report --by KEYS: the samples grouped by every key, alone and
# nested, in text, CSV, JSON and the TUI, on a program whose loads are all
# known (tests/programs/bykeys.c), recorded with the simulator and every
# load a sample: the rows are exact counts, not shares.  Filters read the
# same keys; --metrics picks columns; the samples view names what each
# sample touched.
. "$TOP/tests/lib.sh"

R=1000
LEFT=$((64 * R)) GLOB=$((128 * R))
"$DSPROF" record -q --sim -c 1 -e sim:loads -o bk -- "$PROGS/bykeys" $R >bk.out 2>bk.err
check_eq "the program ran under the simulator" "$?" 0
total=$("$DSPROF" report -i bk --view summary -f json | "$TOOLS/dsjq" .properties.samples)
line=$(grep -n 's += p\[i\].left;' "$TOP/tests/programs/bykeys.c" | cut -d: -f1)

# by KEY -f csv into KEY.csv; the value of column COL of the row named NAME
by() { # KEYS [OPTIONS...]
	keys=$1
	shift
	"$DSPROF" report -i bk --by "$keys" -f csv "$@" >"$(echo "$keys" | tr ',:' '__').csv" 2>by.err
}
val() { # KEYS NAME [COL]
	csv_lookup "$(echo "$1" | tr ',:' '__').csv" name "$2" "${3:-samples:sim:loads}"
}
# the sum of the samples column of a CSV
sum() {
	csv_col "$1" samples:sim:loads | awk '{ s += $1 } END { print s + 0 }'
}

# ---- every key alone ----
by field
check_eq "field: struct pair.left, every load of sum_left's loop" "$(val field 'struct pair.left')" $LEFT
check_eq "field: the global array, every load of sum_glob's loop" "$(val field 'glob (long int [128])')" $GLOB
# (JSON: names with commas, as function pointers' types, are whole there)
"$DSPROF" report -i bk --by field -f json >field.json
nomem=$("$TOOLS/dsjq" .properties.no_memory_access_samples field.json)
check_eq "field: the rows add up to every sample in code that accesses memory" \
	"$("$TOOLS/dsjq" '.rows[].samples["sim:loads"]' field.json | awk '{ s += $1 } END { print s + 0 }')" \
	"$((total - ${nomem:-0}))"
by dataobject
check_eq "dataobject: struct pair, its one hot field" "$(val dataobject 'struct pair')" $LEFT
check_eq "dataobject: the kind of a type" "$(val dataobject 'struct pair' kind)" type
check_eq "dataobject: the kind of a global" "$(val dataobject 'glob (long int [128])' kind)" global
by function
n=$(val function sum_left)
check "function: sum_left, its loop and a few loads around it ($n)" test "${n:-0}" -ge $LEFT -a "${n:-0}" -le $((LEFT + 8))
check_eq "function: its module" "$(val function sum_left module)" bykeys
check "function: inclusive, the thread's function has sum_left's samples" \
	test "$(val function left_thread incl_samples:sim:loads)" -ge "$(val function sum_left incl_samples:sim:loads)"
check "function: inclusive, the thread's start has the thread function's" \
	test "$(val function start_thread incl_samples:sim:loads)" -ge "$(val function left_thread incl_samples:sim:loads)"
by module
check "module: the program's own loads ($(val module bykeys))" test "$(val module bykeys)" -ge $((LEFT + GLOB))
by line
check_eq "line: the line of p[i].left (bykeys.c:$line)" "$(val line "bykeys.c:$line")" $LEFT
check_eq "line: its function" "$(val line "bykeys.c:$line" function)" sum_left
by pc
# (the disassembly has commas: the samples are the last column but one)
check_eq "pc: sum_left's one load in the loop" \
	"$(awk -F, 'NR > 1 && $2 ~ /^sum_left\+/ { print $(NF-1); exit }' pc.csv)" $LEFT
check_contains "pc: its disassembly" pc.csv "^sum_left\+0x[0-9a-f]+,.*qword ptr \[r"
by thread
check "thread: keys-left, its function's loads" test "$(val thread keys-left)" -ge $LEFT
check "thread: keys-glob, its function's loads" test "$(val thread keys-glob)" -ge $GLOB
tid_left=$(val thread keys-left thread)
check_eq "thread: the value column is the thread id" "$(val thread keys-left tid)" "$tid_left"
by cpu
check_eq "cpu: the rows add up to every sample" "$(sum cpu.csv)" "$total"
check_contains "cpu: named by number" cpu.csv '^cpu [0-9]+,[0-9]+,'
by offset
check_eq "offset: struct pair +0 is left" "$(val offset 'struct pair +0')" $LEFT
check_eq "offset: its column" "$(val offset 'struct pair +0' offset)" 0
by cacheline --filter 'field == "struct pair.left"'
check_eq "cacheline: 16 lines of pairs (1 KiB, 64-byte lines)" "$(($(wc -l <cacheline.csv) - 1))" 16
check_eq "cacheline: each line's 4 elements, R times" "$(csv_col cacheline.csv samples:sim:loads | sort -u)" $((4 * R))
first=$(csv_col cacheline.csv cacheline | sort | head -1)
check "cacheline: the first line is page-aligned ($first)" test $((first % 4096)) -eq 0
by page --filter 'field == "struct pair.left"'
check_eq "page: one page" "$(csv_col page.csv page)" "$first"
check_eq "page: every load of it" "$(csv_col page.csv samples:sim:loads)" $LEFT
by mobj:L1D_line --filter 'field == "struct pair.left"'
check_eq "mobj:L1D_line: the same 16 lines" "$(csv_col mobj_L1D_line.csv mobj:L1D_line | sort | head -1)" "$first"
check_eq "mobj:L1D_line: 16 rows" "$(($(wc -l <mobj_L1D_line.csv) - 1))" 16
by time --slices 4
check_eq "time: 4 slices" "$(($(wc -l <time.csv) - 1))" 4
check_eq "time: the rows add up to every sample" "$(sum time.csv)" "$total"
check_contains "time: the simulator's clock counts accesses" time.csv '^\+0 accesses,0,'
by verdict
ok=$(awk -F, 'NR > 1 && $1 ~ /^ok: / { s += $3 } END { print s + 0 }' verdict.csv)
check "verdict: the simulator's samples are their own triggers (ok: $ok)" test "$ok" -ge $((LEFT + GLOB))
by event
check_eq "event: one event, every sample" "$(val event sim:loads)" "$total"

# ---- nested keys ----
by function,field
check_eq "function,field: one row per combination (sum_left, struct pair.left)" \
	"$(awk -F, 'NR > 1 && $1 == "struct pair.left" && $2 == "sum_left" { print $(NF-3) }' function_field.csv)" $LEFT
check_eq "function,field: CSV rows are the deepest level, every key's column set" \
	"$(awk -F, 'NR > 1 && ($2 == "" || $5 == "") { n++ } END { print n + 0 }' function_field.csv)" 0
check_eq "function,field: inclusive through the thread's function" \
	"$(awk -F, 'NR > 1 && $1 == "struct pair.left" && $2 == "left_thread" { print $NF - 0 == 0 ? "" : $(NF-1) }' function_field.csv)" $LEFT
"$DSPROF" report -i bk --by function,field -n 2 >ff.txt
check_contains "text: a tree, the field under its function" ff.txt '^ +[0-9.]+% +[0-9]+ .*  sum_glob +bykeys'
check_contains "text: the field indented" ff.txt '^ +[0-9.]+% +[0-9]+ .*    glob \(long int \[128\]\)'
check_contains "text: the label names the keys" ff.txt 'function > field'
check_contains "text: --limit keeps N rows at each level" ff.txt '^# \.\.\. [0-9]+ more rows \(--limit\)'
by thread,function
check_eq "thread,function: keys-left's sum_left, with the thread's id" \
	"$(awk -F, -v t="$tid_left" 'NR > 1 && $1 == "sum_left" && $2 == t { print "yes" }' thread_function.csv)" yes
check_eq "thread,function: sum_left only under keys-left" \
	"$(awk -F, 'NR > 1 && $1 == "sum_left" && $3 > 0 { n++ } END { print n + 0 }' thread_function.csv)" 1
"$DSPROF" report -i bk --by dataobject,field,offset -f json >dfo.json
check "json parses" "$TOOLS/dsjq" -c dfo.json
check_eq "json: the view" "$("$TOOLS/dsjq" .view dfo.json)" "by:dataobject,field,offset"
check_eq "json: a row per combination, with every key" \
	"$("$TOOLS/dsjq" '.rows[0].dataobject' dfo.json),$("$TOOLS/dsjq" '.rows[0].field' dfo.json),$("$TOOLS/dsjq" '.rows[0].offset' dfo.json)" \
	"glob (long int [128]),glob (long int [128]),null"
check_eq "json: the second, struct pair's left at 0" \
	"$("$TOOLS/dsjq" '.rows[1].dataobject' dfo.json),$("$TOOLS/dsjq" '.rows[1].field' dfo.json),$("$TOOLS/dsjq" '.rows[1].offset' dfo.json)" \
	"struct pair,struct pair.left,0"

# ---- the views are groupings: their numbers agree to the sample ----
"$DSPROF" report -i bk -v dataobjects -f csv >do.csv
"$DSPROF" report -i bk --by dataobject,field -f csv >dof.csv
check_eq "dataobjects' fields = --by dataobject,field's rows" \
	"$(awk -F, 'NR > 1 && !/^"/ && $2 == "field" { print $1, $NF }' do.csv | sort)" \
	"$(awk -F, 'NR > 1 && !/^"/ && $5 == "field" { print $1, $NF }' dof.csv | sort)"
"$DSPROF" report -i bk --by dataobject -f csv >dobj.csv
# (names of types with commas, function pointers', are quoted: left out here)
check_eq "dataobjects' types and objects = --by dataobject's rows" \
	"$(awk -F, 'NR > 1 && !/^"/ && $2 != "field" && !($2 == "via" && $3 != "") { print $1, $NF }' do.csv | sort)" \
	"$(awk -F, 'NR > 1 && !/^"/ { print $1, $NF }' dobj.csv | sort)"
"$DSPROF" report -i bk -f csv >fn.csv
check_eq "functions = --by function (the view is that grouping)" \
	"$(tail -n +2 fn.csv | sort)" "$(cut -d, -f1,3- function.csv | tail -n +2 | sort)"

# the code views charge a sample to its trigger, as line and pc do: on a
# timer's recording, whose samples are backtracked, and on the simulator's
"$DSPROF" record -q -o clk -- "$PROGS/example" 20 >/dev/null 2>&1
for e in bk clk; do
	for v in lines:line pcs:pc; do
		"$DSPROF" report -i $e -v "${v%:*}" -f csv | awk -F, 'NR > 1 && !/^"/ { print $1, $NF }' | sort >v.txt
		"$DSPROF" report -i $e --by "${v#*:}" -f csv | awk -F, 'NR > 1 && !/^"/ { print $1, $NF }' | sort >k.txt
		check_ge "$e: the ${v%:*} view has rows" "$(wc -l <v.txt)" 3
		check_eq "$e: the ${v%:*} view = --by ${v#*:}, row by row" "$(cat v.txt)" "$(cat k.txt)"
	done
done

# ---- filters read the same keys ----
kept() {
	"$DSPROF" report -i bk --view summary --filter "$1" -f json 2>/dev/null | "$TOOLS/dsjq" .properties.samples
}
check_eq "filter field ==" "$(kept 'field == "struct pair.left"')" $LEFT
check_eq "filter FIELD is field" "$(kept 'FIELD == "struct pair.left"')" $LEFT
check_eq "filter dataobject == and offset ==" "$(kept 'dataobject == "struct pair" && offset == 0')" $LEFT
check_eq "filter thread == its id, and a field" "$(kept "thread == $tid_left && field == \"struct pair.left\"")" $LEFT
check_eq "filter cacheline == a line's address" "$(kept "cacheline == $first")" $((4 * R))
check_eq "filter line ==" "$(kept "line == \"bykeys.c:$line\"")" $LEFT
check_eq "filter verdict == \"ok\": every found trigger" "$(kept 'verdict == "ok"')" "$ok"
check_eq "filter module ==, function !=" "$(kept 'module == "bykeys" && function != "sum_glob" && field == "glob (long int [128])"')" 0
expect_error "filter: a field no sample has, with the nearest" 1 \
	"^dsprof: filter: no sampled field is named 'struct pair.lef' in 'bk'; nearest: 'struct pair.left'" \
	"$DSPROF" report -i bk --filter 'field == "struct pair.lef"'
expect_error "filter: a thread is a number" 1 "a string can only be compared with a name: function, module" \
	"$DSPROF" report -i bk --filter 'thread == "keys-left"'

# ---- errors ----
expect_error "--by: an unknown key, with the keys there are" 1 \
	"^dsprof: unknown key 'fields'; keys: function, module, line, pc, thread, cpu, dataobject, field, offset, cacheline" \
	"$DSPROF" report -i bk --by function,fields
expect_error "--by and --view" 1 "give --by or --view, not both" "$DSPROF" report -i bk --by function -v lines
expect_error "--by: an empty key" 1 "^dsprof: --by 'function,,field': an empty key; keys: function, module" \
	"$DSPROF" report -i bk --by function,,field
expect_error "--by: at most 8 keys" 1 "^dsprof: --by takes at most 8 keys" \
	"$DSPROF" report -i bk --by function,module,line,pc,thread,cpu,dataobject,field,offset
"$DSPROF" report --by help >help.txt
check_eq "--by help: a line for every key" "$(grep -cE '^  (function|module|line|pc|thread|cpu|dataobject|field|offset|cacheline|page|mobj:NAME|time|verdict|event) ' help.txt)" 15

# ---- --metrics ----
"$DSPROF" record -q --sim -c 1 -e sim:loads,sim:L1D_MISS,sim:stores -o three -- "$PROGS/bykeys" 100 >/dev/null 2>&1
"$DSPROF" report -i three --by function >three.txt
check "text: three events fit 160 columns by default" \
	test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' three.txt)" -le 160
check_contains "text: the others' shares only" three.txt '^#   excl%  samples    count   incl%  samples    count +excl% +excl%  function'
"$DSPROF" report -i three --by function --metrics all >all.txt
check_contains "--metrics all: every column" all.txt '^#( +excl% +samples +count +incl% +samples +count){3}  function'
"$DSPROF" report -i three --by function --metrics sim:L1D_MISS:samples,sim:loads -f csv >m.csv
check_eq "--metrics in CSV: the columns picked" "$(head -1 m.csv | tr -d '\r')" \
	"name,function,module,address,percent:sim:loads,samples:sim:loads,count:sim:loads,incl_percent:sim:loads,incl_samples:sim:loads,incl_count:sim:loads,samples:sim:L1D_MISS"
expect_error "--metrics: no such event or column" 1 \
	"^dsprof: --metrics: 'sim:nope' is no column .* and no event of this view \(sim:loads, sim:L1D_MISS, sim:stores\)" \
	"$DSPROF" report -i three --metrics sim:nope

# ---- the samples view names what each sample touched ----
"$DSPROF" report -i bk -v samples -f csv >s.csv
check_eq "samples: a load of p[i].left, its trigger, address, object and field" \
	"$(awk -F, -v f="$first" 'NR > 1 && $15 == "struct pair" && $16 == "struct pair.left" && $12 ~ /^sum_left\+/ && $13 >= f && $14 == "sample" { n++ } END { print n + 0 }' s.csv)" $LEFT

# ---- the TUI: b regroups a tab ----
"$DSPROF" tui -i bk --size 120x30 --keys "b<Down><Down><Down><Down><Down><Down><Down><Down> <Enter>" >tui.txt 2>tui.err
check_contains "tui: the breadcrumb says what the tab is grouped by" tui.txt '^Functions by field '
check_contains "tui: the field's row" tui.txt 'glob \(long int \[128\]\)'
"$DSPROF" tui -i bk --size 120x30 --keys "b<Down><Down><Down><Down><Down> <Down><Down><Down> <Enter>" >tui2.txt 2>&1
check_contains "tui: two keys checked nest in that order" tui2.txt '^Functions by thread,field '
check_contains "tui: the field under its thread, indented" tui2.txt '^ +[0-9.]+% +[0-9]+   glob \(long int \[128\]\)'
"$DSPROF" tui -i bk --size 120x30 --keys "b<Down><Down> <Enter>b<Enter>" >tui3.txt 2>&1
check_contains "tui: b and the first item go back to the tab's view" tui3.txt "$(printf '^Functions +bk$')"
# the timeline and the summary are pictures of their own: b says so and
# leaves them be (grouped, the timeline once drew a table as threads,
# reading past its rows: tests/fuzz/regressions/fuzz_tui/timeline-grouped-by-line)
"$DSPROF" tui -i bk --size 120x30 --keys "0b<Down> <Enter>" >tui4.txt 2>&1
check_contains "tui: b on the timeline says it groups the other tabs" tui4.txt \
	'^Timeline is not a table of samples: b groups the other tabs\.'
check_eq "tui: the timeline stays the timeline" "$(grep -c '^Timeline by ' tui4.txt)" 0
"$DSPROF" tui -i bk --size 120x30 --keys "ib" >tui5.txt 2>&1
check_contains "tui: b on the summary says so too" tui5.txt '^Summary is not a table of samples'
