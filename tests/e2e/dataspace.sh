# Dataspace attribution: each dsfields scenario has one hot field, and the
# dataobjects view's fields must have it on top, by a clear margin, for every
# compiler and optimization level, with cpu-clock (backtracking from an
# imprecise IP) and with page faults (precise, with the exact address).
#
# One recording a build holds both events and all seven scenarios, each a
# process of its own that a shell starts in turn, noting its pid; one
# report splits the samples by process.  (A recording or a report of its
# own for each costs a second or two on a small virtual machine: 78 of
# each were most of this file's time.)
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
		: >"$bin.pids"
		# 4 rounds: a few hundred cpu-clock samples in the hot loop
		# of the shortest scenario, the page faults all in the first
		"$DSPROF" record -q -o "e-$bin" -e cpu-clock,page-faults -- sh -c '
			for sc in stream chase global twoptr union bitfield stack; do
				"./$0" "$sc" 4 >/dev/null &
				echo "$! $sc" >>"$0.pids"
				wait $!
			done' "$bin" 2>"$bin.err"
		check_eq "$cc $opt: recorded" "$?" 0
		sed 's/^/# /' "$bin.err"
		check_eq "$cc $opt: the seven scenarios ran" "$(wc -l <"$bin.pids")" 7
		while read -r pid sc; do
			check_top "$cc $opt $sc (cpu-clock)" "e-$bin" cpu-clock "$(expected "$sc")" "$pid"
			[ "$sc" = chase ] && continue # its list is built (and faulted in) before the walk
			check_top "$cc $opt $sc (page-faults)" "e-$bin" page-faults "$(expected "$sc")" "$pid"
		done <"$bin.pids"
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
