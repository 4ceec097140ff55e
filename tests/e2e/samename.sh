#!/bin/sh
# Types of one name: a struct node defined differently in two compilation
# units, and C++'s a::Node and b::Node, are two types in every view, the
# layout, the filters and the diff; each type's instance alignment counts
# its own samples only.  Page faults give exact data addresses: each
# program's arrays take their faults at one member each.
. "$TOP/tests/lib.sh"

src=$TOP/tests/programs/samename
L1=$(grep -n '^struct node {' "$src/tu1.c" | cut -d: -f1)
L2=$(grep -n '^struct node {' "$src/tu2.c" | cut -d: -f1)
N1="struct node (tu1.c:$L1)"
N2="struct node (tu2.c:$L2)"

# A failed recording is reported here, not as a missing row further down.
rec() {
	local out=$1; shift
	"$DSPROF" record -q -o "$out" "$@" >/dev/null 2>"$out.err" ||
		not_ok "record $out: $(head -n 1 "$out.err")"
}
# Each page faults twice (the first read maps the zero page, the write
# copies it): 2304 and 2048 faults, more than the default ring buffer
# holds (1 MiB a CPU, about 1,900 samples) when a busy machine keeps the
# reader from it; 4 MiB loses none.
rec pf -m 1024 -e page-faults -- "$PROGS/samename"
rec nspf -m 1024 -e page-faults -- "$PROGS/nsnode"

# ratio A B: 100 * A / B (0 when B is 0 or empty)
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { printf "%d\n", b ? 100 * a / b : 0 }'; }

# ---- dataobjects: one row per definition, named by its file ----
"$DSPROF" report -i pf --view dataobjects -f csv >do.csv 2>do.err
v1=$(csv_lookup do.csv name "$N1.v" samples:page-faults)
v2=$(csv_lookup do.csv name "$N2.v" samples:page-faults)
check_ge "dataobjects: tu1's node.v has its array's faults" "${v1:-0}" 100
check_ge "dataobjects: tu2's node.v has its array's faults" "${v2:-0}" 100
# tu2's array is 56 / 16 = 3.5 times the pages of tu1's
check_within "dataobjects: each has its own array's faults (3.5 times the pages)" "$(ratio "$v2" "$v1")" 350 20
check_eq "dataobjects: no row goes by the bare name" "$(csv_col do.csv name | grep -c '^struct node\(\.\|$\)')" 0
check_eq "dataobjects: the type column says which" "$(csv_lookup do.csv name "$N2.v" type)" "$N2"

# ---- datalayout: each layout with its own samples ----
"$DSPROF" report -i pf --view datalayout --type node -f csv >dl.csv 2>dl.err
check_eq "--type node: both definitions, each its own layout" \
	"$(awk -F, '$3 == "type" { print $1 "=" $7 }' dl.csv | sort | tr '\n' ' ')" "$N1=16 $N2=56 "
check_eq "--type node: tu2's v at 48" \
	"$(awk -F, -v t="$N2" '$3 == "member" && $4 == t && $5 == "v" { print $6 "/" $11 }' dl.csv)" "48/$v2"
check_eq "--type node: tu1's v at 8" \
	"$(awk -F, -v t="$N1" '$3 == "member" && $4 == t && $5 == "v" { print $6 "/" $11 }' dl.csv)" "8/$v1"
# tu1's 16-byte nodes fault at page starts, which are node starts: only
# its own samples put every instance at byte 0 of a line
check_contains "--type node: tu1's alignment counts its samples only" dl.csv \
	"instances start at byte 0 of a 64-byte line in 100% of samples \(1 offsets seen\).*,alignment,struct node \(tu1\.c:$L1\),"
"$DSPROF" report -i pf --view datalayout --type "$N2" -f csv >dl2.csv 2>dl2.err
check_eq "--type with the file: that definition only" "$(awk -F, '$3 == "type" { print $1 }' dl2.csv)" "$N2"
"$DSPROF" report -i pf --view datalayout --type "node (tu1.c:$L1)" -f csv >dl1.csv 2>dl1.err
check_eq "--type without the tag word, with the file" "$(awk -F, '$3 == "type" { print $1 }' dl1.csv)" "$N1"
"$DSPROF" report -i pf --type node >dl.txt 2>&1
check_contains "datalayout text: the type row names the file" dl.txt "^ +[0-9.]+% +[0-9]+ +[0-9]+ +struct node \(tu2\.c:$L2\) +56"

# ---- filters ----
"$DSPROF" report -i pf --view dataobjects --filter "DOBJ == \"$N2\"" -f csv >f2.csv 2>f2.err
check_eq "DOBJ with the file: that definition only" "$(awk -F, 'NR > 1 { print $1 }' f2.csv | sort | tr '\n' ' ')" "$N2 $N2.v "
"$DSPROF" report -i pf --view dataobjects --filter 'DOBJ == "struct node"' -f csv >fb.csv 2>fb.err
check_eq "DOBJ by the bare name: every definition" "$(awk -F, 'NR > 1 { print $1 }' fb.csv | sort | tr '\n' ' ')" \
	"$N1 $N1.v $N2 $N2.v "
"$DSPROF" report -i pf --view dataobjects --filter "FIELD == \"$N1.v\"" -f csv >ff.csv 2>ff.err
check_eq "FIELD with the file: that field only" "$(csv_lookup ff.csv name "$N1.v" samples:page-faults)/$(awk -F, 'NR > 1' ff.csv | wc -l)" "$v1/2"
"$DSPROF" report -i pf --view dataobjects --filter "DOBJ == \"struct node\" && DOBJ != \"$N1\"" -f csv >fx.csv 2>fx.err
check_eq "DOBJ by name but not one definition: the other" "$(awk -F, 'NR > 1 { print $1 }' fx.csv | sort | tr '\n' ' ')" "$N2 $N2.v "
# a definition goes by both its names in one filter: each comparison holds
# or fails as it would alone
"$DSPROF" report -i pf --view dataobjects --filter "DOBJ == \"struct node\" && DOBJ == \"$N1\"" -f csv >fy.csv 2>fy.err
check_eq "DOBJ by name and with the file: that definition" "$(awk -F, 'NR > 1 { print $1 }' fy.csv | sort | tr '\n' ' ')" "$N1 $N1.v "
"$DSPROF" report -i pf --view dataobjects --filter "DOBJ != \"$N1\" || DOBJ == \"struct node\"" -f csv >fz.csv 2>fz.err
check_eq "DOBJ not one definition, or by name: every definition" \
	"$(awk -F, 'NR > 1 && /^struct node/ { print $1 }' fz.csv | sort | tr '\n' ' ')" "$N1 $N1.v $N2 $N2.v "

# ---- dsprof layout: each definition, said which ----
"$DSPROF" layout "$PROGS/samename" node >ly.txt 2>ly.err
check_eq "layout NAME: both definitions" "$(grep -c '^struct node {' ly.txt)" 2
check_contains "layout NAME: each headed by its label" ly.txt "^/\* struct node \(tu2\.c:$L2\) \*/$"
"$DSPROF" layout "$PROGS/samename" "$N2" >ly2.txt 2>ly2.err
check_eq "layout LABEL: that definition" "$(grep -c '^struct node {' ly2.txt)/$(grep -cE 'char +pad\[48\]' ly2.txt)" 1/1
"$DSPROF" layout "$PROGS/samename" "struct node (tu9.c:1)" >/dev/null 2>ly3.err
check_eq "layout LABEL of no definition: status 1" "$?" 1
"$DSPROF" layout -i pf >lyi.txt 2>lyi.err
check_eq "layout -i: each definition's samples on its v" \
	"$(awk '/^ +[0-9]+ +[0-9.]+% \tlong int +v;/ { print $1 }' lyi.txt | sort -n | tr '\n' ' ')" \
	"$(printf '%s\n' "$v1" "$v2" | sort -n | tr '\n' ' ')"

# ---- diff: two builds in two directories match definition by definition ----
# (three: tu2.c with a line more above its struct node, declared at L2 + 1)
for b in one two three; do
	mkdir -p "$b" && cp "$src/tu1.c" "$src/tu2.c" "$b/"
	[ "$b" = three ] && sed -i '1a /* a line more: the lines below move */' "$b/tu2.c"
	(cd "$b" && gcc -O2 -g -o samename tu1.c tu2.c) || not_ok "build samename in $b"
	rec "x$b" -e page-faults -- "./$b/samename"
done
"$DSPROF" diff xone xtwo -v dataobjects -f csv >df.csv 2>df.err
check_eq "diff: tu1's node.v matched" "$(csv_lookup df.csv name "$N1.v" status)" both
check_eq "diff: tu2's node.v matched" "$(csv_lookup df.csv name "$N2.v" status)" both
"$DSPROF" diff xone xtwo -v datalayout -f csv >dfl.csv 2>dfl.err
check_eq "diff datalayout: rows by type and field" \
	"$(awk -F, -v t="$N2" '$3 == t && $4 == "v" { print $2 }' dfl.csv)" member
N3="struct node (tu2.c:$((L2 + 1)))"
"$DSPROF" diff xone xthree -v dataobjects -f csv >dm.csv 2>dm.err
check_eq "diff: a definition declared on another line matches its own" \
	"$(csv_lookup dm.csv name "$N3.v" status)/$(csv_lookup dm.csv name "$N3.v" before_name)" "both/$N2.v"
check_eq "diff: the other definition too" "$(csv_lookup dm.csv name "$N1.v" status)" both
"$DSPROF" diff xone xthree -v dataobjects >dm.txt 2>&1
check_contains "diff: the verdict says the declaration moved" dm.txt \
	"^#   struct node \(tu2\.c:$((L2 + 1))\)\.v: .*declared on another line\)$"

# ---- C++: a::Node and b::Node, both streamed by sumy<T> ----
"$DSPROF" report -i nspf --view dataobjects -f csv >ns.csv 2>ns.err
ya=$(csv_lookup ns.csv name "struct a::Node.y" samples:page-faults)
yb=$(csv_lookup ns.csv name "struct b::Node.y" samples:page-faults)
check_ge "C++: a::Node.y has its array's faults" "${ya:-0}" 100
check_within "C++: b::Node.y has three times them (48 / 16 bytes)" "$(ratio "$yb" "$ya")" 300 20
"$DSPROF" report -i nspf --view pcs -f csv >nspcs.csv 2>nspcs.err
# (the disassembly column has commas: the data objects are found by pattern)
check_eq "C++: sumy<b::Node> touches b::Node.y" \
	"$(grep '^sumy<b::Node>' nspcs.csv | grep -o 'struct [ab]::Node\.y' | sort -u)" "struct b::Node.y"
check_eq "C++: sumy<a::Node> touches a::Node.y" \
	"$(grep '^sumy<a::Node>' nspcs.csv | grep -o 'struct [ab]::Node\.y' | sort -u)" "struct a::Node.y"
"$DSPROF" report -i nspf --view datalayout --type a::Node -f csv >nsl.csv 2>nsl.err
check_eq "C++: --type a::Node, its 16 bytes" "$(awk -F, '$3 == "type" { print $1 "=" $7 }' nsl.csv)" "struct a::Node=16"
"$DSPROF" report -i nspf --view datalayout --type Node -f csv >nsn.csv 2>nsn.err
check_eq "C++: --type Node, every type it ends, with its samples" \
	"$(awk -F, '$3 == "type" { print $1 "=" $7 }' nsn.csv | sort | tr '\n' ' ')" "struct a::Node=16 struct b::Node=48 "
"$DSPROF" layout "$PROGS/nsnode" >nsly.txt 2>nsly.err
check_eq "C++ layout: the qualified names" "$(grep '^struct [ab]::Node {' nsly.txt | tr '\n' ' ')" \
	"struct a::Node { struct b::Node { "
"$DSPROF" layout "$PROGS/nsnode" Node >nslyn.txt 2>nslyn.err
check_eq "C++ layout Node: every type it ends" "$(grep '^struct [ab]::Node {' nslyn.txt | tr '\n' ' ')" \
	"struct a::Node { struct b::Node { "
