# dsprof report --view sharing: the cache lines threads share, classified
# (false, true, read-mostly) with the evidence, and the fix for false
# sharing checked at other line sizes.  tests/programs/sharing.c has one
# mode per case and a padded variant of each; exact under the simulator,
# statistically with cpu-clock.
. "$TOP/tests/lib.sh"

# tab JSON FIELD...: one line per row of a report, the fields joined by '|'
tab() {
	j=$1; shift
	k=0 files=""
	for f in "$@"; do
		k=$((k + 1))
		"$TOOLS/dsjq" ".rows[].$f" "$j" >"$j.$k"
		files="$files $j.$k"
	done
	paste -d'|' $files
}
# report EXP NAME [OPTIONS...]: NAME.json, and NAME.tab: kind|line|class|
# evidence|fix|check|tid|writes|hitm per row
report() {
	e=$1 n=$2; shift 2
	"$DSPROF" report -i "$e" --view sharing -f json "$@" >"$n.json" 2>"$n.err"
	tab "$n.json" kind line class evidence fix check tid writes hitm >"$n.tab"
}
# field TAB LINE COLUMN: a column (3 class, 4 evidence, 5 fix, 6 check, 9 hitm) of LINE's row
field() { awk -F'|' -v l="$2" -v c="$3" '$1 == "line" && $2 == l { print $c; exit }' "$1"; }
# lines_of ADDR BYTES: the 64-byte lines an object at ADDR of BYTES covers
lines_of() {
	a=$(($1 & ~63))
	while [ "$a" -lt $(($1 + $2)) ]; do
		printf '0x%x\n' "$a"
		a=$((a + 64))
	done
}
# classes TAB ADDR BYTES: the classes of the object's lines in the view, sorted, unique
classes() {
	for l in $(lines_of "$2" "$3"); do field "$1" "$l" 3; done | sort -u | tr '\n' ' ' | sed 's/ $//'
}
addr() { sed -n 's/^addr //p' "$1"; }
# line_of EXP: the line of the hot object its program printed
line_of() { printf '0x%x' "$(addr "$1.out")"; }
# no_tids: text without its thread ids (the kernel's differ from run to run)
no_tids() { sed 's/T[0-9]* //g'; }
# simrec NAME MODE [RECORD OPTIONS...]: MODE of the program under the
# simulator, a million iterations a thread: sim_NAME, s_NAME.tab, and
# sim_NAME.counts, the exact counts the recording printed
simrec() {
	n=$1 m=$2
	shift 2
	"$DSPROF" record --sim "$@" -o "sim_$n" -- "$PROGS/sharing" "$m" 1048576 >"sim_$n.out" 2>"sim_$n.rec.err"
	grep -o 'simulated .*' "sim_$n.rec.err" >"sim_$n.counts"
	report "sim_$n" "s_$n"
}

# ---- the simulator: every access, exact ----
N=20480 # a multiple of the program's 1024-iteration chunks
if command -v valgrind >/dev/null 2>&1; then
	for m in counters mttest atomic readonly counters_padded mttest_padded atomic_padded readonly_padded; do
		"$DSPROF" record -q --sim -c 1 -e sim:HITM,sim:stores,sim:loads -o "sim_$m" -- \
			"$PROGS/sharing" "$m" $N >"sim_$m.out" 2>"sim_$m.rec.err"
		check_eq "sim $m: ran" "$(sed -n 2p "sim_$m.out")" "$N $N"
		report "sim_$m" "s_$m"
	done

	# the events that matter first: the default events are recorded
	# L1D_MISS, LLC_MISS, HITM; the sharing view leads with HITM (and sorts
	# by it), other views keep the recording's order
	"$DSPROF" record -q --sim -o sim_default -- "$PROGS/sharing" counters 2048 >/dev/null 2>&1
	"$DSPROF" report -i sim_default --view sharing -f csv >sd.csv 2>/dev/null
	check_eq "sim default events: sharing shows sim:HITM first" \
		"$(head -1 sd.csv | tr -d '\r' | tr ',' '\n' | grep -m1 '^samples:')" samples:sim:HITM
	"$DSPROF" report -i sim_default --view dataobjects -f csv >sdo.csv 2>/dev/null
	check_eq "sim default events: dataobjects keeps the recording's order" \
		"$(head -1 sdo.csv | tr -d '\r' | tr ',' '\n' | grep -m1 '^samples:')" samples:sim:L1D_MISS

	# per-thread counters in one struct: hits at 16-23, misses at 24-31
	a=$(addr sim_counters.out) l=$(printf '0x%x' "$a")
	check_eq "sim counters: false sharing" "$(field s_counters.tab "$l" 3)" false-sharing
	ev=$(field s_counters.tab "$l" 4)
	check_eq "sim counters: the evidence" "$(echo "${ev%: disjoint bytes}" | tr ';' '\n' | sed 's/^ *T[0-9]* //' | sort | tr '\n' ';')" \
		"writes hits 16-23;writes misses 24-31;"
	check_eq "sim counters: the verdict" "${ev##*: }" "disjoint bytes"
	check_eq "sim counters: the fix, from the struct's layout" "$(field s_counters.tab "$l" 5)" \
		'insert 40 bytes after `hits` (or _Alignas(64) on `misses`)'
	check_eq "sim counters: 128-byte pairs still shared, and their fix" "$(field s_counters.tab "$l" 6)" \
		'128 bytes (adjacent-line prefetch): `hits` and `misses` can still share a 128-byte block: insert 104 bytes after `hits` (or _Alignas(128) on `misses`), with instances aligned to it'
	# the stores each worker made: exact
	tab s_counters.json kind line writes 'samples["sim:stores"]' >s_counters.st
	check_eq "sim counters: each worker's stores, by field" \
		"$(awk -F'|' -v l="$l" '$1 == "thread" && $2 == l && $3 ~ /^(hits|misses) / { print $3 "|" $4 }' s_counters.st | sort | tr '\n' ' ')" \
		"hits 16-23 ($N)|$N misses 24-31 ($N)|$N "
	hitm=$(field s_counters.tab "$l" 9)
	check_ge "sim counters: coherence misses from the data source" "${hitm:-0}" $((N / 2))
	check_eq "sim counters: hitm counts the sim:HITM samples" "$hitm" \
		"$(tab s_counters.json kind line 'samples["sim:HITM"]' | awk -F'|' -v l="$l" '$1 == "line" && $2 == l { print $3 }')"
	check_eq "sim counters_padded: no false sharing" "$(classes s_counters_padded.tab "$(addr sim_counters_padded.out)" 128)" private

	# the Sun Studio mttest case: sums[thread id]
	a=$(addr sim_mttest.out) l=$(printf '0x%x' "$a")
	check_eq "sim mttest: false sharing" "$(field s_mttest.tab "$l" 3)" false-sharing
	check_contains "sim mttest: the elements in the evidence" s_mttest.tab "writes sums\[0\] 0-7.*writes sums\[1\] 8-15|writes sums\[1\] 8-15.*writes sums\[0\] 0-7"
	check_eq "sim mttest: pad each element" "$(field s_mttest.tab "$l" 5)" \
		'pad each element of `sums` to a 64-byte line: struct { volatile double v; char pad[56]; } _Alignas(64) sums[]'
	check_contains "sim mttest: 128-byte note" s_mttest.tab \
		'128 bytes \(adjacent-line prefetch\): elements 1 apart can still share a 128-byte block: pad to 128 \(char pad\[120\], _Alignas\(128\)\)'
	check_eq "sim mttest_padded: no line shared" "$(classes s_mttest_padded.tab "$(addr sim_mttest_padded.out)" 128)" ""

	# one atomic counter: true sharing, padded or not
	a=$(addr sim_atomic.out) l=$(printf '0x%x' "$a")
	check_eq "sim atomic: true sharing" "$(field s_atomic.tab "$l" 3)" true-sharing
	check_contains "sim atomic: both write the counter" s_atomic.tab "writes counter 0-7; T[0-9]+ writes counter 0-7: the same bytes"
	check_contains "sim atomic: padding cannot help" s_atomic.tab "padding cannot help"
	check_eq "sim atomic_padded: the counter's line true, the step's read-mostly" \
		"$(classes s_atomic_padded.tab "$(addr sim_atomic_padded.out)" 128)" "read-mostly true-sharing"

	# the counter both threads increment atomically, with the global
	# they read on its line, sampled as recorded by default: each
	# thread's coherence misses fall on the accesses that suffer them,
	# the counter's and the global's, not on its last access to the line
	simrec global_dflt global
	l=$(line_of sim_global_dflt)
	check_eq "sim global, default events: each thread writes hits" \
		"$(awk -F'|' -v l="$l" '$1 == "thread" && $2 == l && $8 ~ /^hits 0-7/ { n++ } END { print n + 0 }' s_global_dflt.tab)" 2
	check_eq "sim global, default events: true sharing" "$(field s_global_dflt.tab "$l" 3)" true-sharing
	check_eq "sim global: the evidence, the global falsely shared beside" "$(field s_global_dflt.tab "$l" 4 | no_tids)" \
		"writes hits 0-7; writes hits 0-7: the same bytes; batch 8-15 only read beside them: false sharing"
	check_eq "sim global: the fix for each" "$(field s_global_dflt.tab "$l" 5)" \
		'threads write bytes other threads use: padding cannot help; give each thread its own copy and combine them at the end, or update less often; `batch`, only read, shares the line with those writes (false sharing): give each its own 64-byte line (_Alignas(64) on the variables, or 64-byte aligned allocations): `hits`, `batch`'
	# the same verdict on every run
	simrec global_again global
	check_ge "sim global: the recording printed its exact counts (2 threads x 2^20 loads and lock adds)" \
		"$(sed -n 's/^simulated \([0-9]*\) accesses.*/\1/p' sim_global_dflt.counts)" $((2 * 2 * 1048576))
	check_eq "sim global, default events: the same exact counts on a second run" \
		"$(cat sim_global_again.counts)" "$(cat sim_global_dflt.counts)"
	check_eq "sim global, default events: the same view on a second run" \
		"$(cut -d'|' -f1,3-6,8,9 s_global_again.tab | no_tids)" "$(cut -d'|' -f1,3-6,8,9 s_global_dflt.tab | no_tids)"
	# as the issue recorded it: sim:HITM every 31, sim:stores every 100003
	simrec global_hs global -e sim:HITM,sim:stores
	check_eq "sim global, sim:HITM and sim:stores: true sharing" "$(field s_global_hs.tab "$(line_of sim_global_hs)" 3)" \
		true-sharing
	check_contains "sim global, sim:HITM and sim:stores: the global falsely shared" s_global_hs.tab \
		"the same bytes; batch 8-15 only read beside them: false sharing"
	simrec global_padded global_padded
	check_eq "sim global_padded: the counter's line true sharing, nothing beside" \
		"$(field s_global_padded.tab "$(line_of sim_global_padded)" 4 | no_tids)" "writes hits 0-7; writes hits 0-7: the same bytes"

	# one thread's stores (a million: ten samples of sim:stores) beside
	# another's loads (a HITM each time: thirty thousand samples): the
	# rule weighs what each event counts, not how often it was sampled
	simrec publish publish -e sim:HITM,sim:stores
	l=$(line_of sim_publish)
	check_eq "sim publish, sampled: false sharing" "$(field s_publish.tab "$l" 3)" false-sharing
	check_eq "sim publish: the evidence" "$(field s_publish.tab "$l" 4 | no_tids)" \
		"writes progress 0-7; reads config 8-15: disjoint bytes"
	check_eq "sim publish: the fix" "$(field s_publish.tab "$l" 5)" \
		'insert 56 bytes after `progress` (or _Alignas(64) on `config`)'
	simrec publish_padded publish_padded -e sim:HITM,sim:stores
	check_eq "sim publish_padded: no line shared" "$(classes s_publish_padded.tab "$(addr sim_publish_padded.out)" 128)" ""

	# read-only table: benign, padded or not (main's initial stores ignored)
	check_eq "sim readonly: every line of the table read-mostly" \
		"$(classes s_readonly.tab "$(addr sim_readonly.out)" 512)" read-mostly
	check_ge "sim readonly: 8 lines of it" "$(for l in $(lines_of "$(addr sim_readonly.out)" 512); do field s_readonly.tab "$l" 3; done | wc -l)" 8
	check_eq "sim readonly_padded: read-mostly" "$(classes s_readonly_padded.tab "$(addr sim_readonly_padded.out)" 512)" read-mostly

	# other line sizes: at 128 bytes the counters' instance starts at byte 0 or 64
	a=$(addr sim_counters.out) l=$(printf '0x%x' $((a & ~127)))
	report sim_counters s128 --line-size 128
	check_eq "--line-size 128: the line size" "$("$TOOLS/dsjq" .properties.line_size s128.json)" 128
	check_eq "--line-size 128: still false sharing" "$(field s128.tab "$l" 3)" false-sharing
	check_contains "--line-size 128: the padding for this instance" s128.tab \
		"$( [ $((a % 128)) -eq 0 ] && echo 'insert 104 bytes after `hits`' || echo 'insert 40 bytes after `hits` \(or _Alignas\(128\)')"
	check_contains "--line-size 128: checked at the machine's 64" s128.tab "64 bytes \(L1D[^)]*\): apart"

	# a recording imported from perf (perf c2c/perf mem keep the data source the same way)
	"$DSPROF" import sim_counters/perf.data -o imported >/dev/null 2>&1
	report imported imp
	a=$(addr sim_counters.out) l=$(printf '0x%x' "$a")
	check_eq "imported perf.data: false sharing" "$(field imp.tab "$l" 3)" false-sharing
	check_eq "imported perf.data: HITM from its data source" "$(field imp.tab "$l" 9)" "$hitm"

	# too few samples to judge: one store in 500
	"$DSPROF" record -q --sim -c 500 -e sim:stores -o few -- "$PROGS/sharing" counters 2048 >few.out 2>&1
	report few few
	a=$(addr few.out) l=$(printf '0x%x' "$a")
	check_eq "few samples: not judged" "$(field few.tab "$l" 3)" too-few-samples
	check_contains "few samples: says how many" few.tab "too few samples to judge \([0-9]+; 10 needed\)"
else
	skip "sharing under the simulator: valgrind is not installed ('make deps' installs it)"
fi

# ---- cpu-clock: statistically (two threads on two CPUs) ----
for m in counters mttest atomic readonly counters_padded mttest_padded; do
	"$DSPROF" record -q -o "clk_$m" -- "$PROGS/sharing" "$m" 0.5s >"clk_$m.out" 2>"clk_$m.rec.err"
	report "clk_$m" "c_$m"
done
for m in counters mttest atomic; do
	a=$(addr "clk_$m.out") l=$(printf '0x%x' "$a")
	n=$(tab "c_$m.json" kind line 'samples["cpu-clock"]' | awk -F'|' -v l="$l" '$1 == "line" && $2 == l { print $3 }')
	check_ge "cpu-clock $m: the line has samples" "${n:-0}" 200
done
check_eq "cpu-clock counters: false sharing" "$(field c_counters.tab "$(printf '0x%x' "$(addr clk_counters.out)")" 3)" false-sharing
check_eq "cpu-clock counters: the fix" "$(field c_counters.tab "$(printf '0x%x' "$(addr clk_counters.out)")" 5)" \
	'insert 40 bytes after `hits` (or _Alignas(64) on `misses`)'
check_eq "cpu-clock mttest: false sharing" "$(field c_mttest.tab "$(printf '0x%x' "$(addr clk_mttest.out)")" 3)" false-sharing
check_eq "cpu-clock atomic: true sharing" "$(field c_atomic.tab "$(printf '0x%x' "$(addr clk_atomic.out)")" 3)" true-sharing
# (under load, a line at an end of the table, with a sixteenth of its
# reads, can be left with too few samples to judge: it is not misjudged)
check_eq "cpu-clock readonly: read-mostly" \
	"$(classes c_readonly.tab "$(addr clk_readonly.out)" 512 | sed 's/ *too-few-samples//; s/^too-few-samples *//')" read-mostly
check_eq "cpu-clock readonly: the hottest shared line is the table's" \
	"$(awk -F'|' '$1 == "line" { print $2; exit }' c_readonly.tab | grep -c "$(lines_of "$(addr clk_readonly.out)" 512 | tr '\n' '|' | sed 's/|$//; s/|/\\|/g')")" 1
for m in counters_padded mttest_padded; do
	check "cpu-clock $m: no false sharing" \
		test -z "$(classes "c_$m.tab" "$(addr "clk_$m.out")" 128 | grep false)"
done
check_eq "cpu-clock: no data source, no hitm" "$(field c_counters.tab "$(printf '0x%x' "$(addr clk_counters.out)")" 9)" null
# a cpu-clock count is nanoseconds, not accesses: the loads and stores
# columns count its samples
l=$(printf '0x%x' "$(addr clk_counters.out)")
check_eq "cpu-clock: the line's loads and stores are samples" \
	"$(tab c_counters.json kind line loads stores 'samples["cpu-clock"]' |
		awk -F'|' -v l="$l" '$1 == "line" && $2 == l { print ($3 <= $5 && $4 <= $5 && $4 > 0) ? "yes" : $3 " " $4 " of " $5 " samples" }')" yes

# ---- the table's shape ----
"$DSPROF" report -i clk_counters --view sharing -f csv >c.csv 2>/dev/null
check_eq "csv: the header" "$(head -1 c.csv | tr -d '\r')" \
	"name,parent,kind,line,class,nthreads,tid,comm,loads,stores,hitm,reads,writes,dataobjects,evidence,fix,check,samples:cpu-clock,count:cpu-clock"
check_eq "csv: one row per line and thread" "$(($(wc -l <c.csv) - 1))" "$(wc -l <c_counters.tab)"
# machine formats: plain names, a parent, the notes as fields of the line
check_eq "csv: no note rows: evidence, fix and check are the line's fields" \
	"$(awk -F, 'NR > 1 && $3 != "line" && $3 != "thread"' c.csv | wc -l)" 0
check_eq "csv: a thread's parent is its line" \
	"$(awk -F, 'NR > 1 { if ($3 == "line") cur = $1; else if ($2 != cur) bad++ } END { print bad + 0 }' c.csv)" 0
check_eq "csv: names are plain" "$(awk -F, 'NR > 1 && $1 ~ /^ /' c.csv | wc -l)" 0
"$DSPROF" report -i clk_counters --view sharing >c.txt 2>/dev/null
check_contains "text: the notes under their line" c.txt '^ +evidence: '
check_contains "text: threads indented" c.txt '^ +[0-9.]+% .*  T[0-9]+ '
check_eq "rows follow their line" "$(awk -F'|' '{ if ($1 == "line") cur = $2; else if ($2 != cur) bad++ } END { print bad + 0 }' c_counters.tab)" 0
check_eq "json: the first row is a line" "$("$TOOLS/dsjq" '.rows[0].kind' c_counters.json)" line
check_eq "json: then its threads" "$("$TOOLS/dsjq" '.rows[1].kind' c_counters.json)" thread
check_eq "json: numbers are numbers" "$("$TOOLS/dsjq" '.rows[0].nthreads' c_counters.json | grep -c '^[0-9][0-9]*$')" 1
check_eq "json: the line size" "$("$TOOLS/dsjq" .properties.line_size c_counters.json)" \
	"$("$TOOLS/dsjq" '.caches[0].line' clk_counters/meta.json)"
check_ge "json: false-sharing lines counted" "$("$TOOLS/dsjq" .properties.false_sharing_lines c_counters.json)" 1
check_eq "json: the minimum samples" "$("$TOOLS/dsjq" .properties.min_samples c_counters.json)" 10
"$DSPROF" report -i clk_counters --view sharing -n 1 >t.txt 2>&1
check_contains "text: the line row" t.txt "^ +[0-9.]+% +[0-9]+ +[0-9.]+s  0x[0-9a-f]+ +line +false-sharing"
check_contains "text: a thread row" t.txt "^ +[0-9.]+% +[0-9]+ +[0-9.]+s    T[0-9]+ sharing +thread"
check_contains "text: the evidence under it" t.txt "^ +evidence: T[0-9]+ writes (hits|misses)"
check_contains "text: the fix" t.txt '^ +fix: insert 40 bytes after `hits`'
check_eq "--limit 1: one line" "$(grep -cE '^ +[0-9.]+% .*  line  ' t.txt)" 1

# ---- errors ----
"$DSPROF" report -i clk_counters --view functions --line-size 64 >e1.out 2>&1
check_eq "--line-size with another view: status 1" "$?" 1
check_contains "--line-size with another view: says where it applies" e1.out "--line-size applies to --view hotlines, --view sharing and --by cacheline"
"$DSPROF" report -i clk_counters --view sharing --line-size 100 >e2.out 2>&1
check_contains "--line-size 100" e2.out "bad --line-size '100' \(a power of two from 8 to 4096\)"
"$DSPROF" report -i clk_counters --view sharing --level L2 --line-size 128 >e3.out 2>&1
check_contains "--level and --line-size" e3.out "give --level or --line-size, not both"
"$DSPROF" report -i clk_counters --view sharing --level L5 >e4.out 2>&1
check_contains "--level L5" e4.out "unknown cache level 'L5'"
