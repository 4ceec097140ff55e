# dsprof report --filter EXPR: every view covers only the samples the
# filter keeps; functions, data objects, fields, memory objects, threads,
# addresses and times; errors point at the column.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o clk -- "$PROGS/hotline" 200000000 >clk.out 2>clk.err
hot=$(sed -n 's/^line //p' clk.out)
"$DSPROF" record -q -o pf -e page-faults -- "$PROGS/mobjbuf" 32 64 0 >touch.txt 2>pf.err

# kept EXP FILTER: the samples a filter keeps (the summary's count)
kept() {
	"$DSPROF" report -i "$1" --view summary --filter "$2" -f json 2>/dev/null | "$TOOLS/dsjq" .properties.samples
}
"$DSPROF" report -i clk -f csv >fn.csv 2>/dev/null
total=$("$DSPROF" report -i clk --view summary -f json | "$TOOLS/dsjq" .properties.samples)

# ---- FUNC ----
"$DSPROF" report -i clk --filter 'FUNC == "bump_hits"' -f csv >f1.csv 2>f1.err
check_eq "FUNC: status" "$?" 0
check_eq "FUNC: only that function has exclusive samples" \
	"$(awk -F, 'NR > 1 && $4 > 0 { print $1 }' f1.csv)" bump_hits
check_eq "FUNC: all of its samples" "$(csv_lookup f1.csv name bump_hits samples:cpu-clock)" \
	"$(csv_lookup fn.csv name bump_hits samples:cpu-clock)"
check_eq "FUNC !=: the rest" \
	$(( $(kept clk 'FUNC != "bump_hits"') + $(csv_lookup fn.csv name bump_hits samples:cpu-clock) )) "$total"
"$DSPROF" report -i clk --filter 'FUNC == "bump_hits"' -f json >f1.json 2>/dev/null
check_eq "json: the filter is a property" "$("$TOOLS/dsjq" .properties.filter f1.json)" 'FUNC == "bump_hits"'
check_eq "json: what it kept" "$("$TOOLS/dsjq" .properties.samples_kept f1.json)" \
	"$(csv_lookup fn.csv name bump_hits samples:cpu-clock)"
check_eq "json: out of" "$("$TOOLS/dsjq" .properties.samples_before_filter f1.json)" "$total"
check_eq "json: totals are the kept samples" "$("$TOOLS/dsjq" '.total["cpu-clock"]' f1.json)" \
	"$(csv_lookup fn.csv name bump_hits samples:cpu-clock)"
"$DSPROF" report -i clk --filter 'FUNC == "bump_hits"' >f1.txt 2>&1
check_contains "text: the filter heads the table" f1.txt '^# filter: FUNC == "bump_hits"$'

# ---- DOBJ and FIELD ----
"$DSPROF" report -i clk --view dataobjects --filter 'DOBJ == "struct counters"' -f csv >d1.csv 2>d1.err
check_eq "DOBJ: only the type and its fields" \
	"$(awk -F, 'NR > 1 { print $1 }' d1.csv | sort | tr '\n' ' ')" \
	"struct counters struct counters.hits struct counters.misses "
"$DSPROF" report -i clk --filter 'FIELD == "struct counters.misses"' -f csv >d2.csv 2>d2.err
check_eq "FIELD: only the function that touches it" "$(awk -F, 'NR > 1 && $4 > 0 { print $1 }' d2.csv)" bump_misses
"$DSPROF" report -i clk --view hotlines --filter 'FIELD == "struct counters.hits"' -f csv >d3.csv 2>d3.err
check_eq "FIELD on hotlines: one line, one field" \
	"$(awk -F, 'NR > 1 && $3 != "code" { print $3 ":" $12 }' d3.csv | tr '\n' ' ')" "line: object:struct counters.hits "

# ---- the access's operands ----
tid=$("$DSPROF" report -i clk --view hotlines -f csv | awk -F, '$3 == "code" && $13 == "bump_misses" { print $9; exit }')
"$DSPROF" report -i clk --view threads --filter "THRID == $tid" -f csv >t.csv 2>t.err
check_eq "THRID: one thread" "$(awk -F, 'NR > 1 && $4 > 0 { print $3 }' t.csv)" "$tid"
in_line=$(kept clk "VADDR >= $hot && VADDR < $hot + 64")
line_n=$("$DSPROF" report -i clk --view hotlines -f csv | awk -F, -v l="$hot" '$1 == l { print $15 }')
check_eq "VADDR: the samples in the hot line" "$in_line" "$line_n"
check_eq "VADDR & a mask: the same" "$(kept clk "(VADDR & ~63) == $hot")" "$line_n"
# (kernel addresses are negative: values are signed)
check_eq "CPUID, TSTAMP, VIRTPC: read" "$(kept clk 'CPUID >= 0 && TSTAMP > 0 && VIRTPC != 0')" "$total"
check_eq "a filter that keeps nothing" "$(kept clk 'TSTAMP < 0')" 0
"$DSPROF" report -i clk --filter 'TSTAMP < 0' -f csv >none.csv 2>none.err
check_eq "a filter that keeps nothing: no rows" "$(wc -l <none.csv)" 1
# a name nothing sampled goes by is a mistake: said, with the nearest names
expect_error "FUNC: a name no sampled function has" 1 \
	"^dsprof: filter: no sampled function is named 'nosuch' in 'clk'; see --view functions" \
	"$DSPROF" report -i clk --filter 'FUNC == "nosuch"'
expect_error "FUNC: a misspelt name, and the nearest" 1 \
	"^dsprof: filter: no sampled function is named 'bump_mises' in 'clk'; nearest: 'bump_misses'" \
	"$DSPROF" report -i clk --filter 'FUNC != "bump_mises"'
expect_error "FIELD: a misspelt field, and the nearest" 1 \
	"no sampled field is named 'struct counters.hit' in 'clk'; nearest: 'struct counters.hits'" \
	"$DSPROF" report -i clk --filter 'FIELD == "struct counters.hit"'
expect_error "DOBJ: a type of another program" 1 "no sampled data object is named 'struct nosuch'" \
	"$DSPROF" report -i clk --filter 'DOBJ == "struct nosuch"'

# ---- MOBJ(): memory objects in filters ----
set=$("$DSPROF" report -i pf --view memobj:L1D_set --filter 'FUNC == "touch_pages"' -f csv 2>/dev/null |
	awk -F, 'NR == 2 { print $1 }')
"$DSPROF" report -i pf --view memobj:L1D_set --filter "MOBJ(L1D_set) == $set" -f csv >m.csv 2>m.err
check_eq "MOBJ(L1D_set) == $set: that set only" "$(awk -F, 'NR > 1 { print $1 }' m.csv)" "$set"
"$DSPROF" report -i pf --view memobj:vpage --filter 'FUNC == "touch_pages" && MOBJ(pg) % 2 == 0' \
	--mobj 'pg=VADDR >> 12' -f csv >m2.csv 2>m2.err
check_eq "MOBJ() of a --mobj object: every other page" "$(($(wc -l <m2.csv) - 1))" 16
"$DSPROF" report -i pf --view samples --filter 'FUNC == "touch_pages"' -f csv >s.csv 2>s.err
check_eq "the samples view is filtered too" "$(($(wc -l <s.csv) - 1))" 32

# ---- every view takes a filter ----
for v in functions lines pcs threads summary samples dataobjects datalayout typestats hotlines memobj:vpage; do
	"$DSPROF" report -i clk --view "$v" --filter 'FUNC == "bump_misses"' -f json >"v.json" 2>v.err
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$("$TOOLS/dsjq" .properties.filter v.json)" = 'FUNC == "bump_misses"' ]; then
		ok "--view $v --filter"
	else
		not_ok "--view $v --filter: status $rc, $(head -c 300 v.err)"
	fi
done
# a filter that keeps nothing, and an experiment without samples: every view
# has no rows (a zero-length copy of no rows once was undefined behaviour,
# which the sanitizer build stops at), and so has a diff
"$DSPROF" record -q -o none -c 10000000000 -- true
for v in functions lines pcs threads summary samples dataobjects datalayout typestats hotlines sharing timeline memobj:vpage; do
	"$DSPROF" report -i clk --view "$v" --filter 'TSTAMP < 0' -f json >v.json 2>v.err
	rc=$?
	"$DSPROF" report -i none --view "$v" -f json >n.json 2>n.err
	rn=$?
	if [ "$rc" -eq 0 ] && [ "$rn" -eq 0 ] && [ "$("$TOOLS/dsjq" .properties.samples_kept v.json)" = 0 ]; then
		ok "--view $v: no samples kept, none recorded"
	else
		not_ok "--view $v: no samples kept, none recorded: status $rc, $rn: $(head -c 300 v.err) $(head -c 300 n.err)"
	fi
done
"$DSPROF" report -i clk --view dataobjects --filter 'TSTAMP < 0' -f csv >d0.csv 2>/dev/null
check_eq "dataobjects: a filter that keeps nothing leaves no rows" "$(wc -l <d0.csv)" 1
"$DSPROF" diff none clk -v dataobjects >diff0.txt 2>diff0.err
check_eq "diff of an experiment without samples: status" "$?" 0

check_eq "typestats: the kept samples only" \
	"$("$DSPROF" report -i clk --type-stats --filter 'FUNC == "bump_misses"' -f json | "$TOOLS/dsjq" .properties.user_samples)" \
	"$(csv_lookup fn.csv name bump_misses samples:cpu-clock)"

# ---- errors point at the column ----
# filter_error NAME FILTER REGEX: status 1, one line, no table
filter_error() {
	expect_error "$1" 1 "$3" "$DSPROF" report -i clk --filter "$2"
	check_eq "$1: no table" "$(wc -c <out.txt)" 0
}
filter_error "= for ==" 'FUNC = "x"' "^dsprof: filter: unexpected '=' at column 6$"
filter_error "an unquoted string" 'FUNC == main' "^dsprof: filter: unknown name 'main' at column 9$"
filter_error "a missing operand" 'VADDR >> ' "^dsprof: filter: expected an operand, not the end at column 10$"
filter_error "a missing parenthesis" 'MOBJ(L1D_set == 3' "^dsprof: filter: expected '\)' at column 14$"
filter_error "strings only with == and !=" 'FUNC < "a"' '^dsprof: filter: FUNC is a string: compare it with == or != to a "string" at column 1$'
filter_error "a lower-case operand" 'vaddr > 0' "^dsprof: filter: unknown name 'vaddr' \(did you mean VADDR\?\) at column 1$"
filter_error "an unknown memory object" 'MOBJ(nosuch) == 1' "^dsprof: filter: MOBJ\(nosuch\): unknown memory object 'nosuch'"
