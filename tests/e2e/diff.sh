# dsprof diff: two experiments side by side, rows matched by name (never by
# address), with the verdict on top; the padding fix of a false sharing
# seen in the simulator's exact coherence misses.
. "$TOP/tests/lib.sh"

# csv_row FILE NAME COLUMN: the column of the row NAME (as csv_lookup)
csv_row() { csv_lookup "$1" name "$2" "$3"; }

# ---- usage errors: one line, status 1 ----
"$DSPROF" diff >u1.out 2>u1.err
check_eq "no experiments: status 1" "$?" 1
check_eq "no experiments: one line" "$(wc -l <u1.err)" 1
check_contains "no experiments: what to give" u1.err '^dsprof: give two experiments, BEFORE and AFTER'
"$DSPROF" diff a b c >/dev/null 2>u2.err
check_eq "three experiments: status 1" "$?" 1
"$DSPROF" diff nonexistent1 nonexistent2 >/dev/null 2>u3.err
check_eq "missing experiment: status 1" "$?" 1
check_eq "missing experiment: one line" "$(wc -l <u3.err)" 1
"$DSPROF" diff --help >help.txt
check_contains "--help: the options" help.txt '^  -v, --view VIEW'

# ---- the bundled example against itself: every delta is 0 ----
"$DSPROF" record -q -o ex -- "$PROGS/example" >/dev/null
"$DSPROF" diff ex ex -f csv >self.csv
check_eq "self diff: status" "$?" 0
check_eq "self diff: csv header" "$(head -1 self.csv | tr -d '\r')" \
	"name,module,address,status,before_name,after_name,delta:cpu-clock,change:cpu-clock,samples:before:cpu-clock,count:before:cpu-clock,samples:after:cpu-clock,count:after:cpu-clock"
check_eq "self diff: every delta 0" "$(csv_col self.csv delta:cpu-clock | sort -u)" 0
check_eq "self diff: every row in both" "$(csv_col self.csv status | sort -u)" both
"$DSPROF" report -i ex -f csv >ex.csv
check_eq "self diff: one row per sampled function" "$(($(wc -l <self.csv) - 1))" \
	"$(awk -F, 'NR > 1 && $4 > 0' ex.csv | wc -l)"
check_eq "self diff: walk_cells's samples on both sides" \
	"$(csv_row self.csv walk_cells samples:before:cpu-clock)/$(csv_row self.csv walk_cells samples:after:cpu-clock)" \
	"$(csv_lookup ex.csv name walk_cells samples:cpu-clock)/$(csv_lookup ex.csv name walk_cells samples:cpu-clock)"
"$DSPROF" diff ex ex >self.txt
check_contains "self diff text: header" self.txt '^# dsprof diff: functions  \(ex -> ex\)$'
check_contains "self diff text: each side's event" self.txt '^# after:cpu-clock: [0-9]+ samples, count [0-9.]+s \(period 250000\)$'
check_contains "self diff text: the verdict says nothing changed" self.txt '^#   cpu-clock [0-9.]+s -> [0-9.]+s \(no change\)$'
check_contains "self diff text: a row with its status" self.txt ' walk_cells +example +both +0\.000s +0\.0% *$'
"$DSPROF" diff ex ex -f json >self.json
check "json parses" "$TOOLS/dsjq" -c self.json
check_eq "json: view, before, after" "$("$TOOLS/dsjq" .view self.json) $("$TOOLS/dsjq" .before self.json) $("$TOOLS/dsjq" .after self.json)" \
	"functions ex ex"
check_eq "json: the event on both sides" "$("$TOOLS/dsjq" '.events[0].name' self.json) $("$TOOLS/dsjq" '.events[0].before.period' self.json) $("$TOOLS/dsjq" '.events[0].after.period' self.json)" \
	"cpu-clock 250000 250000"
check_eq "json: the verdict's first finding is the total" "$("$TOOLS/dsjq" '.verdict[0].kind' self.json)/$("$TOOLS/dsjq" '.verdict[0].delta' self.json)" total/0
check_eq "json: a row's delta is a number" "$("$TOOLS/dsjq" '.rows[0]["delta:cpu-clock"]' self.json)" 0
check_eq "json: rows carry both sides' samples" \
	"$("$TOOLS/dsjq" '.rows[0].samples["before:cpu-clock"]' self.json)" "$("$TOOLS/dsjq" '.rows[0].samples["after:cpu-clock"]' self.json)"
"$DSPROF" diff ex ex -f csv -n 2 -s name >lim.csv
check_eq "--limit 2" "$(($(wc -l <lim.csv) - 1))" 2
"$DSPROF" diff ex ex -f csv -s name | awk -F, 'NR > 1 { print $1 }' >names.txt
check "--sort name orders by name" sort -c names.txt
"$DSPROF" diff ex ex -v samples >/dev/null 2>nom.err
check_eq "a view without metrics: status 1" "$?" 1
check_contains "a view without metrics: says so" nom.err "^dsprof: view 'samples' has no metrics to compare"
"$DSPROF" diff ex ex -s bogus >/dev/null 2>sort.err
check_eq "unknown sort key: status 1" "$?" 1
check_contains "unknown sort key: the keys" sort.err "^dsprof: unknown sort key 'bogus' for a diff; use delta"

# ---- two builds of one program: names match, addresses do not ----
if ! command -v valgrind >/dev/null 2>&1; then
	skip "diff of simulated experiments: valgrind is not installed ('make deps' installs it)"
	exit 0
fi
cc -O0 -g -pthread -o dsfields-O0 "$TOP/tests/programs/dsfields.c" &&
	cc -O2 -g -pthread -o dsfields-O2 "$TOP/tests/programs/dsfields.c" ||
	not_ok "cannot compile dsfields"
# the O0 build with its function renamed as GCC names a clone
objcopy --redefine-sym total_mass=total_mass.part.0 dsfields-O0 dsfields-clone
for b in O0 O2 clone; do
	"$DSPROF" record -q --sim -e sim:L1D_MISS -o "df-$b" -- "./dsfields-$b" stream 1 >/dev/null 2>&1
done
"$DSPROF" diff df-O0 df-O2 -v datalayout -f csv >dl.csv
check_eq "-O0 vs -O2: struct particle.mass in both" "$(csv_row dl.csv 'struct particle.mass' status)" both
b=$(csv_row dl.csv 'struct particle.mass' count:before:sim:L1D_MISS)
a=$(csv_row dl.csv 'struct particle.mass' count:after:sim:L1D_MISS)
check_ge "-O0 vs -O2: the field's misses on both sides" "$(( (b < a ? b : a) ))" 1000000
check_within "-O0 vs -O2: the field's misses within 5%" "$a" "$b" "$((b / 20))"
"$DSPROF" diff df-O0 df-O2 -v dataobjects -f csv >do.csv
check_eq "-O0 vs -O2: dataobjects match by type.field" "$(csv_row do.csv 'struct particle.mass' status)" both
"$DSPROF" diff df-O0 df-O2 -v lines -f csv >ln.csv
check_eq "-O0 vs -O2: the hot line matches by file:line" "$(csv_row ln.csv "dsfields.c:$(grep -n 'p\[i\].mass += 1.0' "$TOP/tests/programs/dsfields.c" | cut -d: -f1)" status)" both
"$DSPROF" diff df-O0 df-O2 >o2.txt
check_contains "-O0 vs -O2: the renamed binary is said" o2.txt '^#   dsfields-O0 in BEFORE is dsfields-O2 in AFTER: its rows matched by name$'
"$DSPROF" diff df-O0 df-clone -f csv >clone.csv
check_eq "clone suffix: one row, in both" "$(csv_row clone.csv total_mass status)" both
check_eq "clone suffix: the names matched" "$(csv_row clone.csv total_mass before_name)|$(csv_row clone.csv total_mass after_name)" \
	"|total_mass.part.0"
check_eq "clone suffix: no row of its own" "$(csv_row clone.csv total_mass.part.0 status)" ""
"$DSPROF" diff df-O0 df-clone >clone.txt
check_contains "clone suffix: said in the verdict" clone.txt \
	'^#   total_mass: total_mass in BEFORE, total_mass.part.0 in AFTER \(compiler clones compare as one function\)$'

# ---- the padding fix of a false sharing, in exact coherence misses ----
N=100000
"$DSPROF" record -q --sim -e sim:HITM/1 -o adj -- "$PROGS/sim_false_sharing" adjacent $N >/dev/null 2>&1
"$DSPROF" record -q --sim -e sim:HITM/1 -o pad -- "$PROGS/sim_false_sharing" padded $N >/dev/null 2>&1
"$DSPROF" diff adj pad -f csv >fs.csv
for f in bump_a bump_b; do
	check_ge "padded: $f's HITM before" "$(csv_row fs.csv $f count:before:sim:HITM)" $((N / 4))
	check_eq "padded: $f's HITM after (gone)" "$(csv_row fs.csv $f count:after:sim:HITM)/$(csv_row fs.csv $f status)" 0/gone
	check_eq "padded: $f's change" "$(csv_row fs.csv $f change:sim:HITM)" -100.00
done
"$DSPROF" diff adj pad >fs.txt
check_contains "verdict: coherence misses almost all gone" fs.txt \
	'^#   coherence misses: sim:HITM [0-9.]+k -> [0-9]+ \(-[0-9.]+k, -99\.[0-9]+%\)$'
check_contains "verdict: the line that stopped being shared, with its class" fs.txt \
	'^#   stopped being shared: the line of struct adjacent \(false-sharing, [0-9]+ threads; not shared in AFTER\); sim:HITM [0-9.]+k -> 0 '
check_contains "verdict: the functions" fs.txt '^#   bump_a: sim:HITM [0-9.]+k -> 0 \(-[0-9.]+k, -100\.0%\), gone$'
# the verdict comes first: the line finding before the table's header
v=$(grep -n 'stopped being shared' fs.txt | cut -d: -f1)
h=$(grep -n '^#   excl%' fs.txt | cut -d: -f1)
check "verdict: on top of the table" test "${v:-99}" -lt "${h:-0}"
"$DSPROF" diff adj pad -f json >fs.json
check_eq "json verdict: the line finding" \
	"$("$TOOLS/dsjq" '.verdict[1].kind' fs.json)/$("$TOOLS/dsjq" '.verdict[1].status' fs.json)/$("$TOOLS/dsjq" '.verdict[1].after' fs.json)" line/stopped/0
"$DSPROF" diff adj pad -v dataobjects -f csv >fsdo.csv
check_eq "dataobjects: struct adjacent.b gone" "$(csv_row fsdo.csv 'struct adjacent.b' status)" gone
check_eq "dataobjects: struct padded new" "$(csv_row fsdo.csv 'struct padded' status)" new
"$DSPROF" diff adj pad -v dataobjects >fsdo.txt
check_contains "dataobjects verdict: the functions that took the misses" fsdo.txt \
	'^#   in function bump_b: sim:HITM [0-9.]+k -> 0 .*gone$'
"$DSPROF" diff pad adj >rev.txt
check_contains "reversed: started being shared" rev.txt '^#   started being shared: the line of struct adjacent \(false-sharing, [0-9]+ threads; not shared in BEFORE\)'
check_contains "reversed: bump_b new" rev.txt ' bump_b +sim_false_sharing +new +\+[0-9.]+k '

# ---- the sharing view: lines known by their data, their classes on both sides ----
"$DSPROF" record -q --sim -c 1 -e sim:HITM,sim:stores -o cnt -- "$PROGS/counters" 20000 >/dev/null 2>&1
"$DSPROF" record -q --sim -c 1 -e sim:HITM,sim:stores -o cntp -- "$PROGS/counters_padded" 20000 >/dev/null 2>&1
"$DSPROF" diff cnt cntp -v sharing >sh.txt
check_contains "sharing: the line stopped being shared, false sharing to private" sh.txt \
	'^#   stopped being shared: the line of struct worker_stats \(false-sharing -> private, [0-9]+ -> [0-9]+ threads\); sim:HITM [0-9.]+k -> [0-9] '
"$DSPROF" diff cnt cntp -v sharing -f json >sh.json
"$TOOLS/dsjq" '.rows[].name' sh.json >sh.names
"$TOOLS/dsjq" '.rows[].status' sh.json >sh.status
check_eq "sharing: the line matched by its data, not its address" \
	"$(paste -d'|' sh.names sh.status | grep '^struct worker_stats|')" "struct worker_stats|both"
check_eq "sharing: only line rows are compared" "$("$TOOLS/dsjq" '.rows[].kind' sh.json | sort -u)" line
# hotlines: padded, each worker's bytes field has a line of its own in
# AFTER; the diff's one row for it adds up both lines' accesses and unites
# their threads (they came from the first line only)
"$DSPROF" report -i cntp -v hotlines -f json >hlp.json 2>/dev/null
"$TOOLS/dsjq" '.rows[].name' hlp.json >hlp.names
"$TOOLS/dsjq" '.rows[].stores' hlp.json >hlp.stores
"$TOOLS/dsjq" '.rows[].threads' hlp.json >hlp.threads
want_stores=$(paste -d'|' hlp.names hlp.stores | awk -F'|' '$1 ~ /struct worker_stats\.bytes$/ { s += $2; n++ } END { print n ">1:" s }')
want_threads=$(paste -d'|' hlp.names hlp.threads | awk -F'|' '$1 ~ /struct worker_stats\.bytes$/ { print $2 }' |
	tr ' ' '\n' | sort -un | tr '\n' ' ' | sed 's/ $//')
"$DSPROF" diff cnt cntp -v hotlines -f csv >hlsim.csv
check_eq "hotlines: a field on two lines: AFTER's stores add up" \
	"2>1:$(csv_row hlsim.csv 'struct worker_stats.bytes' stores)" "$want_stores"
check_eq "hotlines: ... and its threads are the union" "$(csv_row hlsim.csv 'struct worker_stats.bytes' threads)" "$want_threads"
check_eq "hotlines: ... counted" "$(csv_row hlsim.csv 'struct worker_stats.bytes' nthreads)" "$(echo "$want_threads" | wc -w)"
# cpu-clock: no coherence misses; the classes tell, statistically
"$DSPROF" record -q -o cc -- "$PROGS/counters" 100000000 >/dev/null
"$DSPROF" record -q -o ccp -- "$PROGS/counters_padded" 100000000 >/dev/null
"$DSPROF" diff cc ccp -v sharing >shc.txt
check_contains "cpu-clock: the line stopped being shared" shc.txt \
	'^#   stopped being shared: the line of struct worker_stats \(false-sharing, 2 threads; not shared in AFTER\)'
# the struct left the shared lines, not the program: its cost is the data
# objects' (it said "0.225s -> 0.000s (-100%), gone" when it cost 0.254s)
check_contains "cpu-clock: the line's data still costs, as the data objects say" shc.txt \
	'^#   stopped being shared: .*; as data \(dataobjects\): cpu-clock [0-9.]+s -> [0-9.]+s'
check "cpu-clock: no finding calls the struct gone" sh -c "! grep -q '^#   struct worker_stats: .*gone' shc.txt"
"$DSPROF" diff cc ccp -v sharing -f json >shc.json
"$TOOLS/dsjq" '.rows[].name' shc.json >shc.names
"$TOOLS/dsjq" '.rows[].status' shc.json >shc.status
# whether main's few samples on it keep the line in AFTER's view (private)
case "$(paste -d'|' shc.names shc.status | awk -F'|' '$1 == "struct worker_stats" { print $2; exit }')" in
gone)
	check_contains "cpu-clock: the struct is no longer on a shared line, and still costs" shc.txt \
		'^#   struct worker_stats: no longer on a shared line; as data \(dataobjects\): cpu-clock [0-9.]+s -> [0-9.]*[1-9][0-9.]*s'
	"$DSPROF" report -i ccp --view dataobjects -f csv >ccp.do.csv 2>/dev/null
	after_cost=$(csv_lookup ccp.do.csv name "struct worker_stats" count:cpu-clock)
	check_eq "json: the finding's after count is the data object's" \
		"$("$TOOLS/dsjq" '.verdict[].after' shc.json | grep -c "^${after_cost:-x}\$")" 1 ;;
*)
	check_contains "cpu-clock: the struct's line, still in AFTER's view, is no longer false sharing" shc.txt \
		'^#   stopped being shared: the line of struct worker_stats \(false-sharing -> (private|read-mostly)' ;;
esac
"$DSPROF" diff cc ccp -v hotlines -f csv >hl.csv
check_eq "hotlines: line rows (addresses) are not compared" "$(csv_col hl.csv kind | grep -c '^line$')" 0
check_eq "hotlines: the field rows matched" "$(csv_row hl.csv 'struct worker_stats.bytes' status)" both

# ---- events in one experiment only, different periods ----
"$DSPROF" record -q --sim -e sim:HITM/1 -e sim:INVAL/1 -o adj2 -- "$PROGS/sim_false_sharing" adjacent 1000 \
	>/dev/null 2>&1
"$DSPROF" diff adj2 pad >ev.txt
check_contains "an event only BEFORE has: said" ev.txt '^#   sim:INVAL: only BEFORE recorded it \([0-9.k]+\); not compared$'
"$DSPROF" diff adj2 pad -f json >ev.json
check_eq "json: the event's AFTER side is null" "$("$TOOLS/dsjq" '.events[1].name' ev.json)/$("$TOOLS/dsjq" '.events[1].after' ev.json)" \
	sim:INVAL/null
"$DSPROF" diff adj2 pad -f csv >ev.csv
check_contains "csv: BEFORE's metrics of the event, no delta" ev.csv '^name,.*,delta:sim:HITM,change:sim:HITM,samples:before:sim:HITM,count:before:sim:HITM,samples:after:sim:HITM,count:after:sim:HITM,samples:before:sim:INVAL,count:before:sim:INVAL.$'
"$DSPROF" record -q --sim -c 1 -e sim:L1D_MISS -o st1 -- "$PROGS/sim_stride" 10 >/dev/null 2>&1
"$DSPROF" record -q --sim -c 10 -e sim:L1D_MISS -o st10 -- "$PROGS/sim_stride" 10 >/dev/null 2>&1
"$DSPROF" diff st1 adj >/dev/null 2>none.err
check_eq "no event in common: status 1" "$?" 1
check_contains "no event in common: names both sides' events" none.err \
	'^dsprof: the experiments have no event in common \(BEFORE: sim:L1D_MISS; AFTER: sim:HITM\)'
"$DSPROF" diff st1 st10 -v lines -f csv >per.csv
sweep="sim_stride.c:$(grep -n 'SIM:sweep \*/' "$TOP/tests/programs/sim_stride.c" | cut -d: -f1)"
b=$(csv_row per.csv "$sweep" count:before:sim:L1D_MISS)
a=$(csv_row per.csv "$sweep" count:after:sim:L1D_MISS)
check_eq "periods 1 and 10: the exact count" "$b" 20480
check_within "periods 1 and 10: counts compare (within 1%)" "$a" 20480 205
check_within "periods 1 and 10: samples do not (a tenth)" "$(csv_row per.csv "$sweep" samples:after:sim:L1D_MISS)" 2048 21
"$DSPROF" diff st1 st10 >per.txt
check_contains "periods 1 and 10: said" per.txt \
	'^#   sim:L1D_MISS: period 1 in BEFORE, period 10 in AFTER: counts \(the sums of the periods\) compare, samples do not$'
check_contains "periods 1 and 10: the total within sampling noise" per.txt '^#   sim:L1D_MISS .*(within sampling noise|\(no change\))$'
