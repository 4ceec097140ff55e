#!/bin/sh
# report --cross EXP: a timer's data objects checked against a recording
# that counts misses.  stall's divide loop charges its time to a load that
# always hits (divisors), its chase to loads that miss (struct slot.next):
# the timer cannot tell them apart, the simulator's misses can.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o clk -- "$PROGS/stall" 20 >/dev/null 2>clk.err ||
	not_ok "record stall: $(head -n 1 clk.err)"
"$DSPROF" record -q --sim -o sim -- "$PROGS/stall" 1 >/dev/null 2>sim.err ||
	not_ok "record --sim stall: $(head -n 1 sim.err)"
"$DSPROF" report -i clk --view dataobjects --cross sim -f csv >do.csv 2>do.err
check_eq "report --cross: status" "$?" 0
nomiss() { v=$(csv_lookup do.csv name "$1" nomiss); echo "${v%.*}"; }
check_ge "divisors has samples" "$(csv_lookup do.csv name 'divisors (long int [8])' samples:cpu-clock)" 50
check_ge "divisors: the divide's time, at a load that never missed (nomiss %)" "$(nomiss 'divisors (long int [8])')" 90
check_ge "struct slot.next has samples" "$(csv_lookup do.csv name 'struct slot.next' samples:cpu-clock)" 50
check_ge "struct slot.next: loads that missed (100 - nomiss %)" "$((100 - $(nomiss 'struct slot.next')))" 90
check_eq "the type's row: its fields'" "$(nomiss 'struct slot')" "$(nomiss 'struct slot.next')"
check_eq "no trigger, no share" "$(csv_lookup do.csv name '<kernel>' nomiss)" ""
"$DSPROF" report -i clk --view dataobjects --cross sim -f json >do.json 2>/dev/null
check_eq "json: the other experiment is a property" "$("$TOOLS/dsjq" .properties.cross do.json)" sim
"$DSPROF" report -i clk --view dataobjects --cross sim >do.txt 2>/dev/null
check_contains "text: the column is explained" do.txt "^# note: nomiss: of a row's samples at a known load or store"
"$DSPROF" report -i clk --view dataobjects -f csv >plain.csv 2>/dev/null
check_eq "without --cross: no column" "$(head -n 1 plain.csv | grep -c nomiss)" 0

expect_error "--cross on another view" 1 "^dsprof: --cross applies to --view dataobjects" \
	"$DSPROF" report -i clk --view functions --cross sim
expect_error "--cross with an experiment that counts no misses" 1 \
	"^dsprof: --cross: experiment 'clk' counts no misses \(its events: cpu-clock\.\.\.\); record one with 'dsprof record --sim'" \
	"$DSPROF" report -i clk --view dataobjects --cross clk
expect_error "--cross with no experiment" 1 "nosuch" \
	"$DSPROF" report -i clk --view dataobjects --cross nosuch
