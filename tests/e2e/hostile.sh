# record --heap against a program hostile to its tracker
# (tests/programs/hostile.c): it closes every descriptor above 2
# (close_range, closefrom, a loop of close), puts its files at numbers it
# picks (dup2, dup3, onto every number /proc/self/fd lists: the tracker's;
# by raw system calls too), writes files between its allocations, becomes
# nobody, forks, _exits, execs itself, and once without dsprof's
# environment.  Nothing it prints or writes changes (byte for byte against
# a run without dsprof), every stage's blocks are in the report, and what
# cannot be recorded is named: the process that ran without the tracker,
# and the one that took the tracker's file where it could not ask for it
# again (a network namespace of its own).
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "hostile program: it becomes nobody, which needs root"
	exit 0
fi
mkdir plain rec
"$PROGS/hostile" plain >plain.out 2>plain.err
check_eq "the program runs" "$?" 0
"$DSPROF" record -q -o hx --heap -- "$PROGS/hostile" rec >rec.out 2>rec.err
check_eq "recorded with --heap" "$?" 0
check "its output is the same as without dsprof" cmp plain.out rec.out
for f in range from loop dup dup2 raw lost; do
	check "its file $f.txt is the same as without dsprof" cmp "plain/$f.txt" "rec/$f.txt"
done
# what the program checked itself, each as it is without a tracker: the
# tracker's descriptors are neither closed by its calls nor in its way
check_contains "close_range: its own descriptors closed" rec.out '^close_range: 0, its own closed: yes$'
check_contains "closefrom: its own closed" rec.out '^closefrom: its own closed: yes$'
check_contains "a loop of close: its own 4 closed, the tracker's not (EBADF)" rec.out \
	'^a loop of close: 4 closed, its own closed: yes$'
check_contains "dup2 and dup3 onto low numbers" rec.out '^dup2 onto 5: 5, dup3 onto 6: 6$'
check_contains "dup2 and dup3 onto the tracker's numbers: the program's file there" rec.out \
	"^dup2 and dup3 onto every listed number: each is the program's file$"
check_eq "every file it wrote reads back as written" "$(grep -c ': 65536 bytes, as written$' rec.out)" 6
check_contains "it became nobody" rec.out '^user 65534$'

"$DSPROF" report -i hx --view heap -f csv >heap.csv 2>heap.err
"$DSPROF" report -i hx --view heap >heap.txt 2>&1
# blocks of the site (function) NAME, all processes told
blocks() { awk -F, -v f="$1" 'NR > 1 && (index($1, f " (") == 1 || index($1, f ".") == 1) { s += $4 } END { print s + 0 }' heap.csv; }
for stage in at_start after_close_range after_closefrom after_close_loop after_dup2 after_raw; do
	check_eq "$stage: every block" "$(blocks "$stage")" 20000
done
check_eq "a child of nobody: every block" "$(blocks in_child)" 20000
check_eq "a child of nobody that _exits: every block" "$(blocks in_child_exit_now)" 20000
check_eq "the image a child of nobody execs: every block" "$(blocks after_exec)" 20000
check_eq "nobody itself: every block" "$(blocks after_user_change)" 20000
# the raw calls took the tracker's file; it asked for it again, said in
# its file's header (flags: 4, taken)
main=$(ls hx/heap | sort -n | head -1)
check_eq "raw calls: the main process's file says it was taken" \
	"$(($(od -A n -t u4 -j 28 -N 4 "hx/heap/$main") & 4))" 4

# named: the image run without dsprof's environment, which the samples
# saw (it runs 0.3 s); the child whose file raw calls took where it
# could not ask for it again, and whose blocks are then not recorded
check_contains "the process without the tracker is named" heap.txt \
	'^# note: 1 process seen in the samples has no heap record: [0-9]+ \(hostile\)'
check_eq "nothing of it is recorded" "$(blocks bare)" 0
if grep -q '^lost child: no network namespace' plain.out; then
	skip "the child that loses its file: no network namespace of its own here"
	images=6
else
	check_contains "the child that lost its file is named, and why" heap.txt \
		'^# note: 1 of 7 processes ended without a last heap record: .*lost its file after the program took its descriptor: [0-9]+ \(hostile\)'
	check_eq "what it allocated after that is not recorded" "$(blocks in_lost_child)" 0
	images=7
fi
# main, the children (one exec'd: its image before the exec, and after),
# and the image before the bare exec; complete, but for the lost one
check_eq "a heap file per image the tracker ran in" "$(ls hx/heap | grep -c '\.heap$')" "$images"
check "no other image ended without a last record" \
	sh -c "! grep -q 'processes ended without a last heap record' heap.txt || grep -q '^# note: 1 of 7 processes ended' heap.txt"
