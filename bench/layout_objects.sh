#!/bin/sh
# dsprof layout --all against pahole on relocatable objects (.o, .ko), as a
# count: how many types' text is identical to pahole's.
#
#   bench/layout_objects.sh BUILD_DIR [OBJECT...]
#
# Without OBJECT, the objects of dsprof's own build (BUILD_DIR/obj, built
# -O2 -g).  Larger real objects can be given, for instance SQLite's
# amalgamation from Debian's source:
#
#   apt-get source sqlite3   (with a deb-src line for bookworm)
#   cd sqlite3-3.40.1 && ./configure && make sqlite3.c && gcc -O2 -g -c sqlite3.c
#
# or a kernel module built against Debian's headers (linux-headers-amd64:
# make -C /usr/src/linux-headers-VERSION M=$PWD modules).  Each type is
# compared whole (pahole -a --show_private_classes prints the same types
# as dsprof layout --all, in another order).  Target: every type identical.
set -eu
BUILD=$(cd "${1:?usage: bench/layout_objects.sh BUILD_DIR [OBJECT...]}" && pwd)
shift
DSPROF="$BUILD/dsprof"
W=$(mktemp -d /tmp/dsprof-bench-objects.XXXXXX)
trap 'rm -rf "$W"' EXIT

echo "== dsprof layout --all against pahole -a --show_private_classes on relocatable objects"
if ! command -v pahole >/dev/null 2>&1; then
	echo "pahole is not installed (Debian package dwarves): skipped"
	exit 0
fi
[ $# -gt 0 ] || set -- "$BUILD"/obj/*/*.o

# One line per type, sorted.
blocks() {
	awk '/^(struct|union|class|typedef)/ && b == "" { b = $0; next }
	     b != "" { b = b "\001" $0; if ($0 ~ /^}/) { print b; b = "" } }' | sort
}

: >"$W/counts"
for obj in "$@"; do
	pahole -a --show_private_classes "$obj" 2>/dev/null | blocks >"$W/ph"
	"$DSPROF" layout --all "$obj" 2>"$W/err" | blocks >"$W/ds"
	n=$(wc -l <"$W/ph")
	same=$(comm -12 "$W/ph" "$W/ds" | wc -l)
	echo "$n $same" >>"$W/counts"
	# objects of their own are named; the build's are summed
	if [ "$n" -ne "$same" ] || [ -s "$W/err" ] || [ "$#" -le 4 ]; then
		echo "$obj: $same of $n types identical$( [ -s "$W/err" ] && echo "; $(head -1 "$W/err")")"
	fi
done
awk -v k="$#" '{ n += $1; s += $2 } END {
	printf "%d objects: %d of %d types identical to pahole (target: all): %s\n", k, s, n,
		(s == n && n > 0) ? "PASS" : "FAIL" }' "$W/counts"
