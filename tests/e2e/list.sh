# dsprof list: what this machine supports, and a plain word when it has no PMU.
. "$TOP/tests/lib.sh"

"$DSPROF" list >l.txt
check_eq "list runs" "$?" 0
check_contains "software events listed" l.txt '^  cpu-clock '
check_contains "page-faults listed" l.txt '^  page-faults '
if grep -q "no hardware PMU" l.txt; then
	ok "no PMU here: said plainly"
	check_contains "what to use instead" l.txt 'use cpu-clock'
	check_contains "the simulator among them" l.txt 'record --sim'
	check "hardware events hidden without --all" sh -c "! grep -q '^  cycles ' l.txt"
	"$DSPROF" list --all >all.txt
	check_contains "--all shows them as unavailable" all.txt '^  cycles .*not available here'
else
	check_contains "hardware events listed" l.txt '^  cycles '
fi
