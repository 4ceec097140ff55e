# The dataspace views beside dataobjects: datalayout (members in offset
# order with their metrics, holes, cache-line boundaries and how instances
# sit in lines), --type-stats, the pcs and lines annotations, and the
# address self-check of --view summary.
. "$TOP/tests/lib.sh"

if ! gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread -o dsf "$TOP/tests/programs/dsfields.c"; then
	not_ok "cannot build dsfields"
	exit 0
fi
# A failed recording is reported here, not as a zero share further down.
rec() {
	local out=$1; shift
	"$DSPROF" record -q -o "$out" "$@" >/dev/null 2>"$out.err" ||
		not_ok "record $out: $(head -n 1 "$out.err")"
}
rec stream -- ./dsf stream
rec union -e page-faults -- ./dsf union 1
rec bitfield -e page-faults -- ./dsf bitfield 1

# row FILE NAME_REGEX COLUMN: that column of the first row whose field is NAME
field_col() { csv_lookup "$1" field "$2" "$3"; }

# ---- struct particle: 128 bytes, streamed by .mass; calloc'd, so its
# instances start 16 bytes into a line (malloc's header) ----
"$DSPROF" report -i stream --view datalayout --type particle --line 64 -f csv >p.csv 2>p.err
check_eq "datalayout --type: one type" "$(csv_col p.csv kind | grep -c '^type$')" 1
check_eq "datalayout: the type row names the type" "$(csv_col p.csv name | sed -n 1p)" "struct particle"
check_eq "datalayout: members in offset order" \
	"$(awk -F, 'NR > 1 && $3 == "member" { print $5 }' p.csv | tr '\n' ' ')" "x y z vx vy vz name mass id "
check_eq "datalayout: offsets are the members' offsets" \
	"$(awk -F, 'NR > 1 && $3 == "member" { print $6 }' p.csv | tr '\n' ' ')" "0 8 16 24 32 40 48 112 120 "
check_eq "datalayout: mass is 8 bytes at 112" "$(field_col p.csv mass offset)/$(field_col p.csv mass size)" "112/8"
share=$(field_col p.csv mass share)
check_within "datalayout: mass has (nearly) all of the type's samples" "${share:-0}" 100 10
type_samples=$(csv_lookup p.csv name "struct particle" samples:cpu-clock)
member_sum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples:cpu-clock") k = i; next }
	$3 == "member" { s += $k } END { print s + 0 }' p.csv)
check_eq "datalayout: members add up to the type" "$member_sum" "$type_samples"
check_ge "datalayout: the type has samples" "${type_samples:-0}" 20
check_eq "datalayout: the 64-byte boundary is drawn (at 64, inside name: 48..111)" \
	"$(awk -F, '$3 == "boundary" { print $6 }' p.csv | tr '\n' ' ')" "64 "
check_contains "datalayout: a member over a boundary says so" p.csv '^ *name  \[spans 2 64-byte lines\],'
check_contains "datalayout: instances are seen 16 bytes into their lines" p.csv \
	'instances start at byte 16 of a 64-byte line in (9[0-9]|100)% of samples'
check_contains "datalayout: and so touch three lines instead of two" p.csv 'each spans 3 lines, 2 if aligned'

"$DSPROF" report -i stream --view datalayout --type "struct particle" --line 32 -f csv >p32.csv 2>p32.err
check_eq "datalayout --line 32: boundaries every 32 bytes, one per run of lines" \
	"$(awk -F, '$3 == "boundary" { print $6 }' p32.csv | tr '\n' ' ')" "32 96 "
check_contains "datalayout --line 32: alignment in 32-byte lines" p32.csv 'start at byte 16 of a 32-byte line'
"$DSPROF" report -i stream --type particle >p.txt 2>&1
check_contains "--type alone selects datalayout" p.txt '^# dsprof report: datalayout'
check_contains "datalayout text: percentages with one decimal" p.txt ' mass  .* 1?[0-9][0-9]\.[0-9]%'
check_contains "datalayout text: boundaries name the cache level" p.txt -- '--- L1D line 1 \(64 bytes\) ---'

# ---- struct item: a 4-byte hole after tag; the union member v is hot,
# through its float member f (a nested row) ----
"$DSPROF" report -i union --view datalayout --type item -f csv >u.csv 2>u.err
check_eq "datalayout: the hole after tag" "$(awk -F, '$3 == "hole" { print $6 "/" $7 }' u.csv)" "4/4"
check_eq "datalayout: no metrics on a hole (empty, not zero)" "$(awk -F, '$3 == "hole" { v = $NF; sub(/\r$/, "", v); print v }' u.csv)" ""
ushare=$(field_col u.csv v share)
check_within "datalayout: the union member has the samples" "${ushare:-0}" 100 10
check_eq "datalayout: a nested row for the hot union member" "$(awk -F, '$3 == "nested" { print $5 }' u.csv)" "v.f"

# ---- struct flags: bit fields in one unit ----
"$DSPROF" report -i bitfield --view datalayout --type flags -f csv >b.csv 2>b.err
check_eq "datalayout: bit fields show their bits" \
	"$(awk -F, '$3 == "member" && $8 != "" { print $5 "=" $8 }' b.csv | tr '\n' ' ')" "ready=0..0 busy=1..1 count=2..7 "
bshare=$(field_col b.csv count share)
check_within "datalayout: the hot bit field" "${bshare:-0}" 100 10

# ---- struct pkt: members that are structs and unions, anonymous and
# named, at several depths; each of four arrays takes its page faults at
# one member (tests/programs/nested.c) ----
rec nested -e page-faults -- "$PROGS/nested"
"$DSPROF" report -i nested --view datalayout --type pkt -f csv >n.csv 2>n.err
# row KIND FIELD COLUMN: that column of the first row of that kind and field
nrow() { awk -F, -v k="$1" -v f="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) n = i; next }
	$3 == k && $5 == f { v = $n; sub(/\r$/, "", v); print v; exit }' n.csv; }
check_eq "nested: every level is a row, in the layout's order" \
	"$(awk -F, '$3 == "member" || $3 == "nested" { print $5 }' n.csv | tr '\n' ' ')" \
	"kind seq u u.i u.f u.p u.p.lo u.p.hi inner inner.a inner.b tailed tailed.w tailed.c <union at 48> x y st st.ns st.ns.hi "
check_eq "nested: each level's parent is the member that holds it" \
	"$(awk -F, '$3 == "member" && $5 ~ /^u/ { printf "%s<%s ", $1, $2 }' n.csv)" \
	"u<struct pkt u.i<u u.f<u u.p<u u.p.lo<u.p u.p.hi<u.p "
hi=$(nrow member u.p.hi samples:page-faults)
total=$(csv_lookup n.csv name "struct pkt" samples:page-faults)
check_ge "nested: u.p.hi has its array's faults" "${hi:-0}" 100
check_eq "nested: u and u.p total what is in them" \
	"$(nrow member u samples:page-faults)/$(nrow member u.p samples:page-faults)" "$hi/$hi"
check_eq "nested: inner totals inner.b" "$(nrow member inner samples:page-faults)" "$(nrow member inner.b samples:page-faults)"
check_eq "nested: a union without a name totals its members" \
	"$(nrow member '<union at 48>' samples:page-faults)/$(nrow member '<union at 48>' offset)/$(nrow member '<union at 48>' size)" \
	"$(nrow member x samples:page-faults)/48/4"
check_eq "nested: a named struct member and its sampled levels" \
	"$(nrow member st samples:page-faults)/$(nrow nested st.ns samples:page-faults)/$(nrow nested st.ns.hi offset)" \
	"$(nrow nested st.ns.hi samples:page-faults)/$(nrow nested st.ns.hi samples:page-faults)/68"
check_eq "nested: the top-level members add up to the type" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples:page-faults") k = i; next }
		$3 == "member" && $2 == "struct pkt" { s += $k } END { print s + 0 }' n.csv)" "$total"
check_within "nested: each array a quarter of the type" "$(nrow member u share)" 25 3
check_eq "nested: the hole inside inner, under it" \
	"$(awk -F, '$3 == "hole" && $6 == 21 { print $1 "/" $2 "/" $7 }' n.csv)" "<hole: 3 bytes>/inner/3"
check_eq "nested: the tail padding inside tailed" \
	"$(awk -F, '$3 == "padding" { print $1 "/" $2 "/" $6 "/" $7 }' n.csv | tr '\n' ' ')" "<padding: 7 bytes>/tailed/41/7 "
"$DSPROF" report -i nested --view datalayout --type pkt -f json >n.json 2>/dev/null
check_eq "nested json: rows carry the member path" \
	"$("$TOOLS/dsjq" '.rows[7].field' n.json)/$("$TOOLS/dsjq" '.rows[7].kind' n.json)" "u.i/member"
# dsprof layout -i shows the same totals on pahole's closing lines
"$DSPROF" layout -i nested pkt >nl.txt 2>nl.err
check_eq "layout -i: } u; has u's samples" "$(awk '/\t} u;/ { print $1 }' nl.txt)" "$(nrow member u samples:page-faults)"
check_eq "layout -i: the closing line of a union without a name has its members' samples" \
	"$(awk '/^ +[0-9]+ +[0-9.]+% \t};/ { print $1 }' nl.txt)" "$(nrow member x samples:page-faults)"

# ---- errors ----
"$DSPROF" report -i stream --type nosuch >e1.out 2>&1; rc=$?
check_eq "--type with no samples: status 1" "$rc" 1
check_contains "--type with no samples: says where to look" e1.out "no samples touched type 'nosuch'.*--view dataobjects"
"$DSPROF" report -i stream --view datalayout --line 100 >e2.out 2>&1; rc=$?
check_eq "--line 100: status 1" "$rc" 1
check_contains "--line 100: says what is allowed" e2.out "bad --line '100' \(a power of two from 8 to 4096\)"
"$DSPROF" report -i stream --view pcs --type particle >e3.out 2>&1; rc=$?
check_eq "--type with another view: status 1" "$rc" 1
check_contains "--type with another view: says why" e3.out "applies to --view datalayout"
"$DSPROF" report -i stream --type-stats --view lines >e4.out 2>&1; rc=$?
check_eq "--type-stats with another view: status 1" "$rc" 1

# ---- --type-stats: backtrack verdicts and resolutions both partition the
# user samples ----
"$DSPROF" report -i stream --type-stats -f csv >ts.csv 2>ts.err
"$DSPROF" report -i stream --type-stats -f json >ts.json 2>ts.err
user=$("$TOOLS/dsjq" .properties.user_samples ts.json)
bt=$(awk -F, '$2 == "backtrack" { s += $3 } END { print s + 0 }' ts.csv)
res=$(awk -F, '$2 == "resolution" { s += $3 } END { print s + 0 }' ts.csv)
check_eq "--type-stats: verdicts add up to the user samples" "$bt" "$user"
check_eq "--type-stats: resolutions add up to the user samples" "$res" "$user"
check_eq "--type-stats: groups in order, each once" "$(csv_col ts.csv group | uniq | awk 'BEGIN { r["backtrack"] = 1; r["address"] = 2; r["resolution"] = 3; r["unknown"] = 4; r["module"] = 5 }
	{ if (!($1 in r) || r[$1] <= last) bad = 1; last = r[$1] } END { print bad ? "no" : "yes" }')" yes
# Where a timer sample lands in total_mass's 7-instruction loop depends on
# the CPU: on some, a third of them are on the loop's head (after its
# back edge: crossed-branch-target), on others most follow the load.
ok_pct=$(csv_lookup ts.csv name "backtrack: ok" percent)
check_within "--type-stats: backtracking finds a trigger for a good share of the samples" "${ok_pct:-0}" 65 40
pct=$("$TOOLS/dsjq" .properties.resolved_pct_of_memory_samples ts.json)
check_within "--type-stats: memory samples resolved on -O2 code" "${pct:-0}" 100 20
"$DSPROF" report -i stream --type-stats >ts.txt 2>&1
check_contains "--type-stats text: the totals head the table" ts.txt '^# user_samples: [0-9]+'

# ---- pcs and lines name the data object and the verdict ----
"$DSPROF" report -i stream --view pcs -f csv >pcs.csv 2>pcs.err
top=$(tr -d '\r' <pcs.csv | grep -E -m1 '^total_mass.*,ok,[0-9]+,[0-9]+$')
check_contains "pcs: the hot load names its field" pcs.csv 'total_mass.*,struct particle\.mass,ok'
echo "$top" >top.txt
check_contains "pcs: the top row of total_mass with a trigger is its mass access" top.txt 'struct particle\.mass'
"$DSPROF" report -i stream --view pcs >pcs.txt 2>&1
check_contains "pcs text: trigger, dataobject and verdict columns" pcs.txt ' trigger +dataobject +verdict'
"$DSPROF" report -i stream --view lines -f csv >lines.csv 2>lines.err
check_contains "lines: the hot line names its field" lines.csv 'struct particle\.mass'

# ---- summary: the computed addresses against the sampled ones ----
"$DSPROF" report -i union --view summary -f json >s.json 2>s.err
checked=$("$TOOLS/dsjq" .properties.addresses_checked s.json)
disagree=$("$TOOLS/dsjq" .properties.address_disagreements s.json)
samples=$("$TOOLS/dsjq" '.total["page-faults"]' s.json)
check_ge "summary: page-fault addresses checked against the registers" "${checked:-0}" $((${samples:-0} * 9 / 10))
check_ge "summary: at most 1% disagree" $((${checked:-0} / 100)) "${disagree:-1}"
"$DSPROF" report -i stream --view summary >s.txt 2>&1
if grep -q addresses_checked s.txt; then
	not_ok "summary: no self-check without sampled addresses"
else
	ok "summary: no self-check without sampled addresses"
fi

# ---- compressed debug sections (SHF_COMPRESSED and GNU .zdebug): every
# reader of the DWARF (lines, types, variables, CFI) opens its own handle
# on the same sections, inflated once ----
for z in zlib zlib-gnu; do
	if ! objcopy --compress-debug-sections=$z dsf "dsf-$z"; then
		not_ok "objcopy --compress-debug-sections=$z"
		continue
	fi
	"$DSPROF" record -q -o "z-$z" -- "./dsf-$z" stream 6 >/dev/null
	"$DSPROF" report -i "z-$z" --view dataobjects -f csv >"z-$z.csv" 2>"z-$z.err"
	check_eq "$z debug sections: the hot field" "$(awk -F, '$2 == "field" { print $1; exit }' "z-$z.csv")" \
		"struct particle.mass"
	if grep -q "cannot read" "z-$z.err"; then
		not_ok "$z debug sections: read without notes: $(cat "z-$z.err")"
	else
		ok "$z debug sections: read without notes"
	fi
	"$DSPROF" report -i "z-$z" --view lines -f csv >"z-$z.lines" 2>&1
	check_contains "$z debug sections: line numbers" "z-$z.lines" '^dsfields\.c:[0-9]+,total_mass'
done

# ---- a truncated .debug_info: the views that lost the types say so, in
# their notes, naming the object and the error, once each ----
objcopy --dump-section .debug_info=info.bin dsf
head -c 64 info.bin >info-cut.bin
objcopy --update-section .debug_info=info-cut.bin dsf dsf-cut
"$DSPROF" record -q -o cut -- ./dsf-cut stream 6 >/dev/null
dwarf_note="DWARF in '$T/dsf-cut': .*(header|section)"
for v in dataobjects datalayout hotlines pcs; do
	"$DSPROF" report -i cut --view "$v" >"cut-$v.txt" 2>"cut-$v.err"
	check_contains "truncated .debug_info: --view $v: a note in the table's head" "cut-$v.txt" "^# note: $dwarf_note"
	check_eq "truncated .debug_info: --view $v: said once" "$(cat "cut-$v.txt" "cut-$v.err" | grep -c "DWARF in")" 1
	"$DSPROF" report -i cut --view "$v" -f csv >/dev/null 2>"cut-$v.err"
	check_contains "truncated .debug_info: --view $v -f csv: a note on stderr" "cut-$v.err" "^dsprof: note: $dwarf_note"
done
"$DSPROF" report -i cut --view dataobjects -f json 2>/dev/null >cut.json
check_contains "truncated .debug_info: JSON notes" cut.json "\"DWARF in '$T/dsf-cut'"
"$DSPROF" tui -i cut --keys 5 --size 160x30 --dump cut-tui.txt
check_contains "truncated .debug_info: the TUI's data objects say so" cut-tui.txt "^Note: DWARF in '$T/dsf-cut'"

# ---- --type-stats per module: the program's own share, apart from the
# libraries' ----
res=$(csv_lookup ts.csv name "module: dsf" percent)
check_within "--type-stats: the program's memory samples resolved" "${res:-0}" 100 20
check_ge "--type-stats: the program's memory samples" "$(csv_lookup ts.csv name "module: dsf" samples)" 20
