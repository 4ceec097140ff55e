# dsprof mobj: the predefined objects, the user's definitions (define,
# undefine, --force), machine models, and one-line errors.
. "$TOP/tests/lib.sh"
export DSPROF_MOBJ="$T/conf/mobj"

"$DSPROF" --help | grep -q '^  mobj ' && ok "mobj is a command" || not_ok "mobj missing from --help"
"$DSPROF" mobj --help >help.txt
check_eq "mobj --help" "$?" 0
check_contains "help names the subcommands" help.txt 'dsprof mobj define \[--force\] NAME EXPR'

"$DSPROF" mobj list >list.txt
check_eq "list runs" "$?" 0
check_contains "predefined vpage, in hex" list.txt '^vpage +predefined +hex +VADDR / PAGE_SIZE \* PAGE_SIZE$'
check_contains "ppage needs PADDR" list.txt '^ppage +predefined +hex +PADDR / PAGE_SIZE \* PAGE_SIZE +\(needs PADDR\)$'
check_contains "constants" list.txt 'PAGE_SIZE=[0-9]+'
check_contains "the user's file is named" list.txt "^user definitions: $T/conf/mobj\$"
if grep -q '^  L1 Data' list.txt; then
	check_contains "sets in decimal" list.txt '^L1D_set +predefined +dec +VADDR / L1D_LINE % L1D_SETS$'
else
	skip "sysfs describes no caches here"
fi

"$DSPROF" mobj define myset '(VADDR>>6)&63'
check_eq "define" "$?" 0
check_eq "the file" "$(cat conf/mobj)" "myset = (VADDR>>6)&63"
"$DSPROF" mobj list >list2.txt
check_contains "defined object listed" list2.txt '^myset +user +dec +\(VADDR>>6\)&63$'
expect_error "redefinition needs --force" 1 \
	"^dsprof: 'myset' is already defined in '.*/conf/mobj' \(line 1\): redefine it with --force$" \
	"$DSPROF" mobj define myset 'VADDR & ~63'
"$DSPROF" mobj define --force myset 'VADDR & ~63'
check_eq "define --force" "$?" 0
"$DSPROF" mobj define neg -- '-VADDR'
check_eq "an expression after --" "$?" 0
check_eq "the file after both" "$(cat conf/mobj)" "myset = VADDR & ~63
neg = -VADDR"
"$DSPROF" mobj list >list3.txt
check_contains "an address object prints in hex" list3.txt '^myset +user +hex +VADDR & ~63$'

expect_error "syntax error, with its column" 1 "^dsprof: mobj 'bad': expected '\)' at column 12$" \
	"$DSPROF" mobj define bad '(VADDR >> 6'
expect_error "unknown name" 1 "^dsprof: mobj 'bad': unknown name 'vaddr' \(did you mean VADDR\?\) at column 1$" \
	"$DSPROF" mobj define bad 'vaddr >> 6'
expect_error "bad name" 1 "^dsprof: bad memory-object name '9x' \(letters, digits and _, starting with a letter\)$" \
	"$DSPROF" mobj define 9x VADDR
expect_error "predefined name" 1 "^dsprof: 'L1D_line' is a predefined memory object; choose another name$" \
	"$DSPROF" mobj define L1D_line VADDR
expect_error "define needs two arguments" 1 "^dsprof: define takes NAME and EXPR" \
	"$DSPROF" mobj define lonely
expect_error "unknown subcommand" 1 "^dsprof: unknown subcommand 'show'" "$DSPROF" mobj show
expect_error "no subcommand" 1 "^dsprof: expected a subcommand: list, define or undefine \(see 'dsprof mobj --help'\)$" \
	"$DSPROF" mobj

"$DSPROF" mobj undefine neg
check_eq "undefine" "$?" 0
check_eq "the file after undefine" "$(cat conf/mobj)" "myset = VADDR & ~63"
expect_error "undefine what is not there" 1 "^dsprof: 'neg' is not defined in '.*/conf/mobj'$" \
	"$DSPROF" mobj undefine neg
expect_error "undefine a predefined object" 1 "^dsprof: 'vpage' is predefined, not user-defined$" \
	"$DSPROF" mobj undefine vpage
check "no temporary files left" test "$(ls conf)" = "mobj"

# machine models
"$DSPROF" mobj list --machine "$TOP/docs/machines/wide-lines.machine" >wide.txt
check_eq "list --machine" "$?" 0
check_contains "the model's lines" wide.txt 'L1D_LINE=128 L1D_SETS=32'
check_contains "the model's own objects" wide.txt '^dram_channel +machine +dec +\(PADDR >> 8 \^ PADDR >> 13\) & 1 +\(needs PADDR\)$'
check_contains "user objects with the model" wide.txt '^myset +user +hex'
"$DSPROF" mobj list --machine "$TOP/docs/machines/amd-k8.machine" >k8.txt
check_contains "a bank mapping from a model" k8.txt '^L1D_bank +machine +dec +VADDR >> 3 & 7$'
check "no L3 on K8" sh -c "! grep -q '^L3_line' k8.txt"
"$DSPROF" mobj define l3set 'PADDR / L3_LINE % L3_SETS' 2>/dev/null
"$DSPROF" mobj list --machine "$TOP/docs/machines/amd-k8.machine" >k8b.txt
check_contains "an object the model cannot evaluate says why" k8b.txt \
	"^l3set +user +- +PADDR / L3_LINE % L3_SETS +\(not here: mobj 'l3set': the machine has no L3 cache for L3_LINE at column 9\)$"
printf 'L1D = 64K:2:64\nL1D = 32K:8\n' >bad.machine
expect_error "a bad model names its line" 1 \
	"^dsprof: cannot read machine 'bad.machine': line 2: L1D = 32K:8: expected SIZE:WAYS:LINE, as in 32K:8:64$" \
	"$DSPROF" mobj list --machine bad.machine
expect_error "--machine with define" 1 "^dsprof: --machine and --input are for list" \
	"$DSPROF" mobj define x VADDR --machine bad.machine

# a broken user file is reported, not ignored
printf 'myset = VADDR\nnonsense\n' >conf/mobj
expect_error "a broken user file" 1 "^dsprof: memory objects of '.*/conf/mobj': line 2: expected NAME = EXPR$" \
	"$DSPROF" mobj list
rm conf/mobj

# an experiment keeps the machine it was recorded on
if "$DSPROF" record -q -o exp -- "$PROGS/behave" spin 0.02 >/dev/null 2>&1; then
	"$DSPROF" mobj list -i exp >exp.txt
	check_eq "list -i" "$?" 0
	check_contains "the experiment's machine" exp.txt '^machine: experiment$'
	check_eq "the same caches as sysfs" "$(grep -E '^  L[0-9]+_' exp.txt)" "$(grep -E '^  L[0-9]+_' list.txt)"
else
	skip "list -i: cannot record here"
fi
expect_error "an experiment that is not there" 1 "^dsprof: cannot open experiment 'nothere'" \
	"$DSPROF" mobj list -i nothere
