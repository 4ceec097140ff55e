#!/bin/sh
# Time in code that accesses no memory (behave spin: a loop of arithmetic)
# is <no memory access>, not <unknown: crossed-branch-target>, and the
# data views leave it out of their totals, saying how many samples that is.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o sp -- "$PROGS/behave" spin 0.5 >/dev/null 2>sp.err ||
	not_ok "record spin: $(head -n 1 sp.err)"
"$DSPROF" report -i sp --view typestats -f json >ts.json 2>ts.err
user=$("$TOOLS/dsjq" .properties.user_samples ts.json)
"$DSPROF" report -i sp --view typestats -f csv >ts.csv 2>>ts.err
nomem=$(csv_lookup ts.csv name "backtrack: no-memory-access" samples)
cross=$(csv_lookup ts.csv name "backtrack: crossed-branch-target" samples)
check_ge "spin has user samples" "${user:-0}" 50
# spin_work's loop is one block of arithmetic: nearly every user sample
check_ge "typestats: the loop's samples are no-memory-access (% of user)" \
	"$(awk -v a="${nomem:-0}" -v b="${user:-0}" 'BEGIN { print b ? int(100 * a / b) : 0 }')" 90
check_ge "typestats: few cross a branch target (% of user, at most 5)" \
	"$(awk -v a="${cross:-0}" -v b="${user:-0}" 'BEGIN { print b ? int(100 - 100 * a / b) : 0 }')" 95

"$DSPROF" report -i sp --view dataobjects -f json >do.json 2>do.err
"$DSPROF" report -i sp --view dataobjects -f csv >do.csv 2>>do.err
"$DSPROF" report -i sp --view dataobjects >do.txt 2>>do.err
check_eq "dataobjects: the samples left out are said" \
	"$("$TOOLS/dsjq" .properties.no_memory_access_samples do.json)" "$nomem"
check_eq "dataobjects: no row for them" "$(grep -c 'no memory access' do.csv)" 0
total=$("$TOOLS/dsjq" '.total["cpu-clock"]' do.json)
rows=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples:cpu-clock") k = i; next } $2 != "type" { s += $k } END { print s + 0 }' do.csv)
check_eq "dataobjects: the total is its rows' (types are their fields)" "$total" "$rows"
check_contains "dataobjects text: a line says so" do.txt "^# note: $nomem samples were in code that accesses no memory"
# a timer's sample is charged to the access before it, with whatever
# stalled there: the data views say so (page faults, exact, do not)
check_contains "dataobjects text: the timer's note" do.txt \
	"^# note: cpu-clock samples are charged to the load or store before the interrupted instruction"
"$DSPROF" report -i sp --view datalayout >dl.txt 2>dl.err
check_contains "datalayout text: the timer's note" dl.txt "^# note: cpu-clock samples are charged to the load or store"
