# Every backtracking verdict, produced by a program crafted to cause it
# (tests/programs/verdicts.c): each scenario's samples must mostly get its
# verdict, in --type-stats and on the top instruction of --view pcs.
. "$TOP/tests/lib.sh"

V="$PROGS/verdicts"

# check_verdict SCENARIO EXPERIMENT MIN_PERCENT [all]: "all" when every
# instruction of the loop gets the verdict, so that the hottest one has it
check_verdict() {
	"$DSPROF" report -i "$2" --type-stats -f csv >"$1.ts" 2>"$1.err" || echo "# report failed: $(cat "$1.err")"
	top=$(awk -F, '$2 == "backtrack" { print $1; exit }' "$1.ts")
	pct=$(csv_lookup "$1.ts" name "backtrack: $1" percent)
	check_eq "$1: the most common verdict" "$top" "backtrack: $1"
	if awk -v p="${pct:-0}" -v m="$3" 'BEGIN { exit !(p >= m) }'; then
		ok "$1: ${pct}% of the samples (>= $3%)"
	else
		not_ok "$1: ${pct:-0}% of the samples, want >= $3%: $(tr '\n' ' ' <"$1.ts")"
	fi
	[ "${4:-}" = all ] || return 0
	"$DSPROF" report -i "$2" --view pcs -f csv >"$1.pcs" 2>/dev/null
	# the hottest user-space instruction (kernel rows have no verdict)
	got=$(awk -F, 'NR > 1 && $(NF - 2) != "" { print $(NF - 2); exit }' "$1.pcs")
	check_eq "$1: the verdict of the hottest instruction" "$got" "$1"
}

# Scenarios whose verdicts cover (nearly) every instruction of the loop;
# trigger-not-found covers the 76 of its 100 instructions that lie beyond
# the walk limit of 24.
for sc in ok crossed-branch-target no-memory-access after-call after-jump indirect-jumps no-function bad-decode no-code; do
	"$DSPROF" record -q -o "e-$sc" -- "$V" "$sc" 0.5 >/dev/null
	check_verdict "$sc" "e-$sc" 80 all
done
# a tail call through a function pointer leaves the function: the loads
# before it are triggers (it made the whole function indirect-jumps)
"$DSPROF" record -q -o e-tail -- "$V" tail-call 0.5 >/dev/null
"$DSPROF" report -i e-tail --type-stats -f csv >tail.ts 2>&1
pct=$(csv_lookup tail.ts name "backtrack: ok" percent)
if awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 80) }'; then
	ok "tail-call: ${pct}% of the samples ok (>= 80%)"
else
	not_ok "tail-call: ${pct:-0}% of the samples ok, want >= 80%: $(tr '\n' ' ' <tail.ts)"
fi
"$DSPROF" record -q -o e-far -- "$V" trigger-not-found 0.5 >/dev/null
check_verdict trigger-not-found e-far 60

# not-memory: precise samples (page faults) at an instruction without a
# memory operand: fetching v_notmem's first instruction after its page
# was dropped.  The samples are instruction fetches, not data.
"$DSPROF" record -q -e page-faults -o e-nm -- "$V" not-memory >/dev/null
check_verdict not-memory e-nm 80 all
check_contains "not-memory: counted as instruction fetches" not-memory.ts '^address: instruction fetch \(not data\),address,[0-9]{4}'
"$DSPROF" report -i e-nm --view pcs -f csv >nm.pcs 2>&1
check_contains "not-memory: the fetched instruction is v_notmem's first" nm.pcs '^v_notmem\+0x0,.*,<unknown: instruction-fetch>,not-memory,'

# a call's push of the return address is a stack access (it was
# not-memory): the faults of a deep recursion are its stack's
"$DSPROF" record -q -e page-faults -o e-sc -- "$V" stack-call >/dev/null
"$DSPROF" report -i e-sc --view dataobjects -f csv >sc.csv 2>&1
n=$(csv_lookup sc.csv name "<stack v_deep>" samples:page-faults)
check "stack-call: the call's faults are <stack v_deep> (${n:-0} of 390 or so)" test "${n:-0}" -ge 300
"$DSPROF" report -i e-sc --view pcs -f csv >sc.pcs 2>&1
check_eq "stack-call: the call's verdict" "$(csv_lookup sc.pcs function v_deep verdict)" ok

# `call *v_deep_next(%rip)` reads the pointer and pushes the return
# address: a fault or a simulated store there is the stack's, a simulated
# load the pointer's (the push was charged to the global)
"$DSPROF" record -q -e page-faults -o e-scp -- "$V" stack-callptr >/dev/null
"$DSPROF" report -i e-scp --view dataobjects -f csv >scp.csv 2>&1
n=$(csv_lookup scp.csv name "<stack v_deepptr>" samples:page-faults)
check "stack-callptr: the call's faults are <stack v_deepptr> (${n:-0} of 390 or so)" test "${n:-0}" -ge 300
check "stack-callptr: no fault is the pointer's" sh -c '! grep -q "^v_deep_next " scp.csv'
"$DSPROF" record -q --sim -e sim:loads,sim:stores -c 1 -o e-scps -- "$V" stack-callptr >/dev/null
"$DSPROF" report -i e-scps --view dataobjects --filter 'FUNC == "v_deepptr"' -f csv >scps.csv 2>&1
check_eq "stack-callptr --sim: the pushes are <stack v_deepptr>" \
	"$(csv_lookup scps.csv name "<stack v_deepptr>" count:sim:stores)" 199999
check_eq "stack-callptr --sim: the pointer is stored to by none of them" \
	"$(csv_lookup scps.csv name "v_deep_next (void (*)(long int))" count:sim:stores)" 0
check_eq "stack-callptr --sim: the pointer's loads" \
	"$(csv_lookup scps.csv name "v_deep_next (void (*)(long int))" count:sim:loads)" 199999

# JIT code in anonymous memory is no file: no note about opening it
"$DSPROF" report -i e-no-code --view pcs >nc.txt 2>nc.err
if grep -q "cannot open" nc.err; then
	not_ok "no-code: anonymous memory is not opened as a file: $(cat nc.err)"
else
	ok "no-code: anonymous memory is not opened as a file"
fi
