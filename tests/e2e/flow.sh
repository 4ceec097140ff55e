# Type tracking over control flow (tests/programs/flow.c): the hot access
# of each scenario goes through a register no variable describes, so its
# field is named only by tracking the function's code: a malloc result
# typed by the member it is stored into (alloc), pointers from two
# structs joined by a branch or a conditional move (join).  Optimized, as
# built by default (no frame pointer: rbp holds a variable).
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
