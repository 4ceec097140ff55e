# dsprof report --view memobj:NAME: page-fault samples on a buffer whose
# pages and lines the program prints; the same object from --mobj and
# from the user's file; machine models; experiments without physical
# addresses say so.
. "$TOP/tests/lib.sh"
export DSPROF_MOBJ="$T/conf/mobj"

PAGES=64
# the program computes lines of the size the experiment will record
L1=$("$DSPROF" mobj list | sed -n 's/.*L1D_LINE=\([0-9]*\).*/\1/p')
"$DSPROF" record -q -o pf -e page-faults -- "$PROGS/mobjbuf" $PAGES "${L1:-64}" >touch.txt
check_eq "mobjbuf ran" "$?" 0
check_eq "mobjbuf touched $PAGES pages" "$(grep -c '^touch ' touch.txt)" $PAGES

# rows NAME [ARGS...]: the index rows of memobj:NAME for touch_pages's faults, sorted
rows() {
	name=$1; shift
	"$DSPROF" report -i pf --view "memobj:$name" --filter 'FUNC == "touch_pages"' -f csv "$@" \
		>"$name.csv" 2>"$name.err"
	awk -F, 'NR > 1 { print $1 }' "$name.csv" | sort
}

# ---- what the program computed ----
awk '{ print $4 }' touch.txt | sort >want.vpage
rows vpage >got.vpage
check_eq "vpage: one row per page the program touched, at its address" "$(comm -3 want.vpage got.vpage | wc -l)" 0
check_eq "vpage: $PAGES rows" "$(wc -l <got.vpage)" $PAGES
check_eq "vpage: one fault per page" "$(awk -F, 'NR > 1 && $4 != 1' vpage.csv | wc -l)" 0
check_eq "vpage: indices are hex addresses" "$(csv_col vpage.csv index | grep -cv '^0x[0-9a-f]*000$')" 0
if [ -n "$L1" ]; then
	awk '{ print $6 }' touch.txt | sort >want.line
	rows L1D_line >got.line
	check_eq "L1D_line: the lines the program computed" "$(comm -3 want.line got.line | wc -l)" 0
	check_eq "L1D_line: $PAGES rows" "$(wc -l <got.line)" $PAGES
	check_eq "L1D_line: indices are hex" "$(csv_col L1D_line.csv index | grep -cv '^0x')" 0
	SETS=$("$DSPROF" mobj list | sed -n 's/.*L1D_SETS=\([0-9]*\).*/\1/p')
	while read -r _ _ _ _ _ line _; do echo $((line / L1 % SETS)); done <touch.txt | sort -u >want.set
	rows L1D_set >got.set
	check_eq "L1D_set: the sets of the program's lines, in decimal" "$(comm -3 want.set got.set | wc -l)" 0
	check_ge "L1D_set: sets" "$(wc -l <got.set)" 2
else
	skip "L1D_line, L1D_set: sysfs describes no L1D cache here"
fi

# ---- --mobj and the user's file give the same ----
EXPR='VADDR >> 16 << 4 | THRID % 3'
"$DSPROF" report -i pf --view memobj:mine --mobj "mine=$EXPR" -f csv >opt.csv 2>opt.err
check_eq "--mobj: status" "$?" 0
mkdir -p conf
printf 'mine = %s\n' "$EXPR" >conf/mobj
"$DSPROF" report -i pf --view memobj:mine -f csv >file.csv 2>file.err
check_eq "user file: status" "$?" 0
check "--mobj and the user file give identical CSV" cmp -s opt.csv file.csv
check_ge "and it has rows" "$(wc -l <opt.csv)" 3
"$DSPROF" report -i pf --view memobj:mine --mobj "mine=VADDR >> 12" -f csv >over.csv 2>over.err
check "--mobj replaces the file's definition" sh -c "! cmp -s over.csv file.csv"
"$DSPROF" report -i pf --view memobj:mine -f json >mine.json
check_eq "json: the object's expression" "$("$TOOLS/dsjq" .properties.expression mine.json)" "$EXPR"
check_eq "json: the view's name" "$("$TOOLS/dsjq" .view mine.json)" "memobj:mine"
rm conf/mobj

# ---- totals add up: every sample in one row, <unknown> included ----
"$DSPROF" report -i pf --view memobj:vpage -f json >all.json
total=$("$TOOLS/dsjq" '.total["page-faults"]' all.json)
sum=$("$DSPROF" report -i pf --view memobj:vpage -f csv | awk -F, 'NR > 1 { s += $4 } END { print s + 0 }')
check_eq "memobj rows add up to the event's samples" "$sum" "$total"

# ---- physical addresses ----
if grep -q ' ppage ' touch.txt; then
	grep ' ppage ' touch.txt | awk '{ print $8 }' | sort >want.ppage
	rows ppage >got.ppage
	check_eq "ppage: the frames pagemap gave the program" "$(comm -3 want.ppage got.ppage | wc -l)" 0
	rows L2_set >got.l2
	check_eq "L2_set (physical): one row per touch" "$(wc -l <got.l2)" $PAGES
else
	skip "ppage: /proc/self/pagemap shows no frames to this user (not root)"
fi

# ---- no physical addresses: one clear line, no zeros ----
"$DSPROF" record -q -o clk -- "$PROGS/behave" spin 0.05 >/dev/null 2>&1
"$DSPROF" report -i clk --view memobj:ppage >np.out 2>np.err
check_eq "ppage without physical addresses: status 1" "$?" 1
check_eq "ppage without physical addresses: one line" "$(wc -l <np.err)" 1
check_contains "ppage without physical addresses: says so" np.err \
	"^dsprof: memory object 'ppage' needs physical addresses \(PADDR\), and experiment 'clk' has none"
check_eq "ppage without physical addresses: no table" "$(wc -c <np.out)" 0
"$DSPROF" report -i clk --view memobj:pp --mobj 'pp=PADDR >> 12' >np2.out 2>np2.err
check_contains "a user object over PADDR says so too" np2.err "memory object 'pp' needs physical addresses"
"$DSPROF" report -i clk --filter 'PADDR > 0' >np3.out 2>np3.err
check_contains "a filter over PADDR says so too" np3.err "the filter reads physical addresses \(PADDR\)"

# ---- machine models ----
"$DSPROF" report -i pf --view memobj:L1D_line --machine "$TOP/docs/machines/wide-lines.machine" \
	--filter 'FUNC == "touch_pages"' -f csv >wide.csv 2>wide.err
check_eq "--machine: status" "$?" 0
while read -r _ va _; do printf '0x%x\n' $((va & ~127)); done <touch.txt | sort -u >want.wide
awk -F, 'NR > 1 { print $1 }' wide.csv | sort >got.wide
check_eq "--machine wide-lines: 128-byte lines" "$(comm -3 want.wide got.wide | wc -l)" 0
check_eq "json: the machine model" \
	"$("$DSPROF" report -i pf --view memobj:L1D_line --machine "$TOP/docs/machines/wide-lines.machine" -f json |
		"$TOOLS/dsjq" .properties.machine)" "$TOP/docs/machines/wide-lines.machine"
"$DSPROF" report -i pf --view memobj:L3_line --machine "$TOP/docs/machines/amd-k8.machine" >k8.out 2>k8.err
check_eq "an object the model lacks: status 1" "$?" 1
check_contains "an object the model lacks: names the constant" k8.err "the machine has no L3 cache for L3_LINE"

# ---- meta.json keeps the machine's memory ----
check_ge "meta.json: huge_page_size" "$("$TOOLS/dsjq" .huge_page_size pf/meta.json)" 4096
if [ -d /sys/devices/system/node/node0 ]; then
	check_ge "meta.json: numa_nodes" "$("$TOOLS/dsjq" .numa_nodes pf/meta.json)" 1
else
	skip "meta.json: numa_nodes: no NUMA nodes in sysfs here"
fi
if [ "$("$TOOLS/dsjq" .numa_map pf/meta.json)" != null ]; then
	rows numa_node >got.numa
	check_ge "numa_node from the experiment's map" "$(wc -l <got.numa)" 1
else
	skip "numa_node: sysfs has no node map here"
fi

# ---- errors ----
"$DSPROF" report -i pf --view memobj:nosuch >e1.out 2>e1.err
check_eq "unknown object: status 1" "$?" 1
check_contains "unknown object: says where to look" e1.err "^dsprof: unknown memory object 'nosuch' \(see 'dsprof mobj list'\)$"
"$DSPROF" report -i pf --view memobj:x --mobj 'x=(VADDR' >e2.out 2>e2.err
check_contains "--mobj syntax error: the column" e2.err "^dsprof: mobj 'x': expected '\)' at column 7$"
"$DSPROF" report -i pf --mobj 'nonsense' >e3.out 2>e3.err
check_contains "--mobj without =" e3.err "^dsprof: --mobj 'nonsense': expected NAME=EXPR$"
