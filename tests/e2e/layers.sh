# analyze/'s layers: every file of analyze/ is in one layer of
# analyze/analyze_int.h ("layer N: NAME (FILES)"), and no file calls a
# function defined in a later layer.  The calls are read from the objects
# the build made (nm: the functions each object defines, and those it
# needs), not from the source, so a macro or a comment fools nothing.
. "$TOP/tests/lib.sh"

HDR="$TOP/analyze/analyze_int.h"
OBJ="$BUILD/obj/analyze"

# file -> layer, from the header
sed -n 's|^/\* ======== layer \([0-9]*\): [a-z]* (\(.*\)) ======== \*/$|\1 \2|p' "$HDR" |
	while read -r n files; do
		for f in $files; do echo "${f%.c} $n"; done
	done >layer.txt
check_ge "the header names the layers' files" "$(wc -l <layer.txt)" 20
for c in "$TOP"/analyze/*.c; do
	f=$(basename "$c" .c)
	check "$f.c is in a layer" grep -q "^$f " layer.txt
done

# the functions each object defines and calls
for o in "$OBJ"/*.o; do
	f=$(basename "$o" .o)
	nm --defined-only "$o" | awk -v f="$f" '$2 == "T" { print $3, f }'
done | sort >defs.txt
for o in "$OBJ"/*.o; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk -v f="$f" '{ print $2, f }'
done | sort >uses.txt
check_ge "the objects define functions" "$(wc -l <defs.txt)" 100

# a call from file A (layer a) to a function of file B (layer b) with b > a
join uses.txt defs.txt | while read -r sym user owner; do
	lu=$(awk -v f="$user" '$1 == f { print $2 }' layer.txt)
	lo=$(awk -v f="$owner" '$1 == f { print $2 }' layer.txt)
	[ -n "$lu" ] && [ -n "$lo" ] && [ "$lo" -gt "$lu" ] && echo "$user.c (layer $lu) calls $sym of $owner.c (layer $lo)"
done >up.txt
check_eq "no file calls into a later layer" "$(cat up.txt)" ""
# the check itself sees calls: loading is called from every layer above it
check_ge "calls across layers are seen (into session.c)" \
	"$(join uses.txt defs.txt | awk '$3 == "session" && $2 != "session"' | wc -l)" 10
