# Dataspace attribution: each dsfields scenario has one hot field, and the
# dataobjects view must put it on top, by a clear margin, for every
# compiler and optimization level, with cpu-clock (backtracking from an
# imprecise IP) and with page faults (precise, with the exact address).
. "$TOP/tests/lib.sh"

expected() {
	case $1 in
	stream) echo "struct particle.mass" ;;
	chase) echo "struct node.next" ;;
	global) echo "struct entry.val" ;;
	twoptr) echo "struct slot.hits" ;;
	union) echo "struct item.v.f" ;;
	bitfield) echo "struct flags.count" ;;
	stack) echo "struct rec.score" ;;
	esac
}

for cc in gcc clang; do
	for opt in -O0 -O2 -O3; do
		bin="dsf-$cc$opt"
		if ! $cc -std=gnu11 $opt -g -fno-omit-frame-pointer -pthread -o "$bin" "$TOP/tests/programs/dsfields.c"; then
			not_ok "$cc $opt: cannot build dsfields"
			continue
		fi
		for sc in stream chase global twoptr union bitfield stack; do
			"$DSPROF" record -q -o "e-$bin-$sc" -- "./$bin" "$sc" >/dev/null
			check_top "$cc $opt $sc (cpu-clock)" "e-$bin-$sc" cpu-clock "$(expected "$sc")"
			[ "$sc" = chase ] && continue # its list is built (and faulted in) before the walk
			"$DSPROF" record -q -o "p-$bin-$sc" -e page-faults -- "./$bin" "$sc" 1 >/dev/null
			check_top "$cc $opt $sc (page-faults)" "p-$bin-$sc" page-faults "$(expected "$sc")"
		done
	done
done
