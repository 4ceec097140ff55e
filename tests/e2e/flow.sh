# Type tracking over control flow (tests/programs/flow.c): the hot access
# of each scenario goes through a register no variable describes, so its
# field is named only by tracking the function's code: a malloc result
# typed by the member it is stored into (alloc), pointers from two
# structs joined by a branch or a conditional move (join), and a register
# two scopes' variables share, the inlined callee's type winning over its
# caller's void * (scope), and loads through an index computed before them
# (index).  Optimized, as built by default (no frame pointer: rbp holds a
# variable).
. "$TOP/tests/lib.sh"

for cc in gcc clang; do
	for opt in -O2 -O3; do
		bin="flow-$cc$opt"
		if ! $cc -std=gnu11 $opt -g -o "$bin" "$TOP/tests/programs/flow.c"; then
			not_ok "$cc $opt: cannot build flow"
			continue
		fi
		for sc in alloc join; do
			"$DSPROF" record -q -o "e-$bin-$sc" -- "./$bin" "$sc" >/dev/null
			check_top "$cc $opt $sc" "e-$bin-$sc" cpu-clock "struct cell.val"
		done
	done
done

# scope (issue 14, cause 2), every load simulated: of scope_outer's loads
# through the inlined struct table *, each t->cells has its cells->val;
# with the outer void * winning the register the second was no-variable.
# clang only: gcc leaves the inlined parameter an empty location range.
"$DSPROF" record -q -o e-scope --sim -e sim:loads -c 1 -- ./flow-clang-O2 scope 0 >/dev/null 2>scope.err ||
	not_ok "record --sim flow scope: $(head -n 1 scope.err)"
"$DSPROF" report -i e-scope --view dataobjects --filter 'FUNC == "scope_outer"' -f csv >scope.csv 2>&1
cells=$(csv_lookup scope.csv name "struct table.cells" samples:sim:loads)
check_ge "scope: t->cells through the inlined parameter" "${cells:-0}" 1000
check_eq "scope: as many cells->val, through the loaded pointer" \
	"$(csv_lookup scope.csv name "struct cell.val" samples:sim:loads)" "$cells"
check_eq "scope: none of its loads is unknown" "$(grep -c '^<unknown' scope.csv)" 0

# index: every load simulated, 1000 rounds.  next[level] through rcx =
# level * 8 + 8 is the trailing array's, not key (the displacement alone,
# 0, said key); a pair's word at i * 8 crosses a and b: no one member
"$DSPROF" record -q -o e-index --sim -e sim:loads -c 1 -- ./flow-gcc-O2 index 1000 >/dev/null 2>index.err ||
	not_ok "record --sim flow index: $(head -n 1 index.err)"
"$DSPROF" report -i e-index --view dataobjects --filter 'FUNC == "index_next"' -f csv >index.csv 2>&1
check_eq "index: next[level] through a computed index is struct node.next[]" \
	"$(csv_lookup index.csv name "struct node.next[]" samples:sim:loads)" 8000
check_eq "index: none of them is key" "$(grep -c '^struct node.key' index.csv)" 0
"$DSPROF" report -i e-index --view dataobjects --filter 'FUNC == "index_pair"' -f csv >pair.csv 2>&1
check_eq "index: a pair's word by an index of 8-byte steps is no one member" \
	"$(csv_lookup pair.csv name "<unknown: indexed>" samples:sim:loads)" 2000
