# The views of code charge a timer sample to its trigger: the load it
# waited for (tests/programs/skid.c), whose line differs from the line of
# the instruction the interrupt named.  A sample without a trigger stays
# where it was taken; pcs shows where the charged samples were taken.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o walk -- "$PROGS/skid" 1 >/dev/null 2>walk.err ||
	not_ok "record skid: $(head -n 1 walk.err)"
src="$TOP/tests/programs/skid.c"
value_line=$(grep -n 'SKID-VALUE-LINE' "$src" | cut -d: -f1)
next_line=$(grep -n 'SKID-NEXT-LINE' "$src" | cut -d: -f1)

# source: the line that reads value has the walk's samples (97% measured;
# before, 1% there and the rest on the for line, which the skid names)
"$DSPROF" report -i walk --view source --function walk -f csv >src.csv 2>src.err
v=$(csv_lookup src.csv line "$value_line" samples:cpu-clock)
n=$(csv_lookup src.csv line "$next_line" samples:cpu-clock)
total=$((${v:-0} + ${n:-0}))
check_ge "the walk has samples" "$total" 100
check_ge "source: the line reading value has >= 75% of them" "$((100 * ${v:-0} / (total ? total : 1)))" 75
check_eq "source: the value line is labelled with its field" "$(csv_lookup src.csv line "$value_line" dataobject)" "struct node.value"

# lines: the same charge
"$DSPROF" report -i walk --view lines -f csv >lines.csv 2>lines.err
lv=$(csv_lookup lines.csv name "skid.c:$value_line" samples:cpu-clock)
ln=$(csv_lookup lines.csv name "skid.c:$next_line" samples:cpu-clock)
check_ge "lines: the value line has more samples than the next line" "$((${lv:-0} - ${ln:-0}))" 1

# pcs: the load has the samples, and says where they were taken
"$DSPROF" report -i walk --view pcs --filter 'FUNC == "walk"' -f json >pcs.json 2>pcs.err
row=$("$TOOLS/dsjq" '.rows[0]' pcs.json)
check_eq "pcs: the top instruction is the value load" "$("$TOOLS/dsjq" '.rows[0].dataobject' pcs.json)" "struct node.value"
check_eq "pcs: its verdict" "$("$TOOLS/dsjq" '.rows[0].verdict' pcs.json)" "ok"
check_eq "pcs: it is its own trigger" "$("$TOOLS/dsjq" '.rows[0].trigger' pcs.json)" "$("$TOOLS/dsjq" '.rows[0].name' pcs.json)"
sampled=$("$TOOLS/dsjq" '.rows[0].sampled' pcs.json)
case "$sampled" in
walk+0x*) ok "pcs: the instruction the samples were taken at is named ($sampled)" ;;
*) not_ok "pcs: sampled names where the samples were taken: got '$sampled' in $row" ;;
esac

# precise samples are their own trigger: page faults stay where they are
"$DSPROF" record -q -e page-faults -o pf -- "$PROGS/skid" 0 >/dev/null 2>pf.err
"$DSPROF" report -i pf --view pcs -f json >pf.json 2>/dev/null
check_ge "precise samples: some in user code" "$("$TOOLS/dsjq" '.rows[].verdict' pf.json | grep -c '^ok$')" 1
check_eq "precise samples: nothing charged elsewhere (no sampled column set)" \
	"$("$TOOLS/dsjq" '.rows[].sampled' pf.json | grep -vc '^null$')" 0
