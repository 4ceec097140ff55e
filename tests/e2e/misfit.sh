# C-style inheritance (tests/programs/objhdr.c): an access through a
# header struct's pointer past the header's members is to a larger struct
# that begins with the header.  When exactly one such struct has a member
# there, the sample is that member's; when several do (or none), it is an
# unknown named by the header (beyond its members); an access in a hole
# of a struct nothing begins with is an unknown too.  Never the header's
# padding, never the next header of an array, never counted as typed.
# Page faults give the exact access.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o oh -e page-faults -- "$PROGS/objhdr" >/dev/null 2>oh.err ||
	not_ok "record objhdr: $(head -n 1 oh.err)"
"$DSPROF" report -i oh --view dataobjects -f csv >do.csv 2>do.err
flags=$(csv_lookup do.csv name "struct table.flags" samples:page-faults)
beyond=$(csv_lookup do.csv name "<unknown: offset beyond struct gc>" samples:page-faults)
hole=$(csv_lookup do.csv name "<unknown: offset in a hole of struct small>" samples:page-faults)
# 512 pages of struct table read at flags, 256 of struct str at hash, 128
# of struct rec at key
check_ge "table.flags through a struct obj *: the one struct that begins with obj" "${flags:-0}" 450
check_ge "str.hash through a struct gc *: str and num both could be, beyond gc" "${beyond:-0}" 225
check_ge "rec.key through a struct small *: in small's hole" "${hole:-0}" 110
check_eq "the unknowns are unknowns" "$(csv_lookup do.csv name "<unknown: offset beyond struct gc>" kind)/$(csv_lookup do.csv name "<unknown: offset in a hole of struct small>" kind)" "unknown/unknown"
check_eq "no padding row" "$(awk -F, '$2 == "padding"' do.csv | wc -l)" 0
check_eq "the headers get none of it" \
	"$(csv_lookup do.csv name "struct obj" samples:page-faults)/$(csv_lookup do.csv name "struct gc" samples:page-faults)/$(csv_lookup do.csv name "struct small" samples:page-faults)" "//"

"$DSPROF" report -i oh --view typestats -f csv >ts.csv 2>ts.err
check_eq "typestats: each reason once, in the unknown group" \
	"$(awk -F, '$1 ~ /^unknown: offset-/ { print $1 "=" $2 }' ts.csv | tr '\n' ' ')" \
	"unknown: offset-beyond=unknown unknown: offset-in-hole=unknown "
check_eq "typestats: the unknown lines hold the samples" \
	"$(csv_lookup ts.csv name "unknown: offset-beyond" samples)/$(csv_lookup ts.csv name "unknown: offset-in-hole" samples)" "$beyond/$hole"
# page faults give the exact access: no note on timers
"$DSPROF" report -i oh --view dataobjects >do.txt 2>do.err
check_eq "dataobjects: no timer's note for page faults" "$(grep -c 'samples are charged to the load or store before' do.txt)" 0
