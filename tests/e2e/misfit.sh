#!/bin/sh
# C-style inheritance (tests/programs/objhdr.c): an access through a
# header struct's pointer outside every member of the header is to the
# larger struct it heads.  It is an unknown named by the header type and
# why (beyond its members, in a hole), never the header's padding, and it
# does not count as typed.  Page faults give the exact access.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o oh -e page-faults -- "$PROGS/objhdr" >/dev/null 2>oh.err ||
	not_ok "record objhdr: $(head -n 1 oh.err)"
"$DSPROF" report -i oh --view dataobjects -f csv >do.csv 2>do.err
beyond=$(csv_lookup do.csv name "<unknown: offset beyond struct obj>" samples:page-faults)
hole=$(csv_lookup do.csv name "<unknown: offset in a hole of struct small>" samples:page-faults)
# 512 pages of struct str read at hash, 256 of struct rec at key
check_ge "str.hash through a struct obj *: beyond obj's members" "${beyond:-0}" 450
check_ge "rec.key through a struct small *: in small's hole" "${hole:-0}" 225
check_eq "both are unknowns" "$(csv_lookup do.csv name "<unknown: offset beyond struct obj>" kind)/$(csv_lookup do.csv name "<unknown: offset in a hole of struct small>" kind)" "unknown/unknown"
check_eq "no padding row" "$(awk -F, '$2 == "padding"' do.csv | wc -l)" 0
check_eq "the header types get none of it" "$(csv_lookup do.csv name "struct obj" samples:page-faults)/$(csv_lookup do.csv name "struct small" samples:page-faults)" "/"

"$DSPROF" report -i oh --view typestats -f csv >ts.csv 2>ts.err
check_eq "typestats: each reason once, in the unknown group" \
	"$(awk -F, '$1 ~ /^unknown: offset-/ { print $1 "=" $2 }' ts.csv | tr '\n' ' ')" \
	"unknown: offset-beyond=unknown unknown: offset-in-hole=unknown "
check_eq "typestats: the unknown lines hold the samples" \
	"$(csv_lookup ts.csv name "unknown: offset-beyond" samples)/$(csv_lookup ts.csv name "unknown: offset-in-hole" samples)" "$beyond/$hole"
