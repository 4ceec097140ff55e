# Page-fault samples carry the faulting data address: a program that
# touches a known buffer one page at a time sees exactly its pages.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o exp -e page-faults -- "$PROGS/pagefault" 512 >pages.txt
check_eq "pagefault ran" "$?" 0
check_eq "meta.json: page-faults sampled every fault" "$("$TOOLS/dsjq" '.events[0].period' exp/meta.json)" 1
check_eq "meta.json: page-faults are precise" "$("$TOOLS/dsjq" '.events[0].precise' exp/meta.json)" true
"$DSPROF" report -i exp -v samples --format csv >s.csv
check_eq "samples view ran" "$?" 0
awk '{ print $2 }' pages.txt | sort -u >want.txt
# page of each sampled address: the hex address with its low 12 bits zeroed
csv_col s.csv addr | awk 'length($0) > 5 { print substr($0, 1, length($0) - 3) "000" }' | sort -u >got.txt
check_eq "the program touched 512 pages" "$(wc -l <want.txt)" 512
hit=$(comm -12 want.txt got.txt | wc -l)
check_eq "every touched page faulted with its address" "$hit" 512
"$DSPROF" report -i exp --format csv >f.csv
check_ge "touch_pages has the faults" "$(csv_lookup f.csv name touch_pages samples:page-faults)" 512
