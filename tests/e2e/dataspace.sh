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

# ---- bit fields that share a storage unit ----
# (tests/programs/bitunits.c: a function a field, each reads, writes or
# increments its field; every load and store sampled by the simulator, so
# every access of every function must be named by its field, whatever
# masks, shifts and registers the compiler went through)
if command -v valgrind >/dev/null 2>&1; then
	for cc in gcc clang; do
		for opt in -O0 -O2; do
			bin="bu-$cc$opt"
			if ! $cc -std=gnu11 $opt -g -fno-omit-frame-pointer -o "$bin" "$TOP/tests/programs/bitunits.c"; then
				not_ok "$cc $opt: cannot build bitunits"
				continue
			fi
			"$DSPROF" record -q --sim -c 1 -e sim:loads,sim:stores -o "s-$bin" -- "./$bin" 100 >/dev/null 2>&1
			"$DSPROF" report -i "s-$bin" --by function,field -f csv 2>/dev/null | awk -F, '
				NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "samples:sim:loads") l = i; if ($i == "samples:sim:stores") s = i }; next }
				$6 == "field" && $5 ~ /^struct unit\./ && $l + $s > 0 { sub(/^struct unit\./, "", $5); print $2 ":" $5 }' |
				sort | tr '\n' ' ' >"$bin.fields"
			check_eq "$cc $opt bit fields in one unit (--sim, every access): each function's field" \
				"$(cat "$bin.fields")" "bump_count:count get_level:level main:count raw_byte:<one of ready|busy|count> set_mode:mode set_ready:ready test_busy:busy "
		done
	done
else
	skip "bit fields in one unit: valgrind is not installed ('make deps' installs it)"
fi
