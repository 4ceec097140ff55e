# A FIFO, a device or a directory where dsprof expects a file: refused at
# once with one line naming it, never a hang.  Every command runs under
# timeout, so a hang is a failure (status 124), not a stuck suite.
. "$TOP/tests/lib.sh"

# run NAME WANT_STATUS REGEX COMMAND...: see expect_within
run() { expect_within 20 "$@"; }

# an experiment of a program whose file is then replaced by a FIFO: the
# perf.data's mappings name the FIFO
cp "$PROGS/behave" prog
"$DSPROF" record -q -o exp -- ./prog spin 0.2 >/dev/null
rm prog
mkfifo prog
fifo_note="note: cannot read '$T/prog': it is a FIFO, not a regular file; its samples are shown as \[unknown\]"
run "report: a mapping names a FIFO" 0 "$fifo_note" "$DSPROF" report -i exp
check_contains "report: the rest of the report is there" out.txt '\[unknown\] +prog'
run "report dataobjects: a mapping names a FIFO" 0 "$fifo_note" "$DSPROF" report -i exp -v dataobjects
# a note for each side of the diff, both the same experiment here
run "diff: a mapping names a FIFO" 0 "" "$DSPROF" diff exp exp
check_eq "diff: a note for each side" "$(grep -c "^dsprof: note: exp: cannot read '$T/prog': it is a FIFO" err.txt)" 2
run "tui: a mapping names a FIFO" 0 "" "$DSPROF" tui -i exp --keys 'i' --size 200x40 --dump screens.txt
check_contains "tui: the summary names the FIFO" screens.txt "note +cannot read '$T/prog': it is a FIFO"

# the experiment's own files
mkdir m
cp exp/perf.data m/
mkfifo m/meta.json
run "a FIFO as meta.json" 1 "^dsprof: cannot read 'm/meta.json': it is a FIFO, not a regular file$" \
	"$DSPROF" report -i m
mkdir p
mkfifo p/perf.data
run "a FIFO as perf.data" 1 "^dsprof: cannot read 'p/perf.data': it is a FIFO, not a regular file$" \
	"$DSPROF" report -i p
run "a FIFO as perf.data (diff)" 1 "^dsprof: cannot read 'p/perf.data': it is a FIFO" "$DSPROF" diff exp p
run "a FIFO as perf.data (tui)" 1 "^dsprof: cannot read 'p/perf.data': it is a FIFO" \
	"$DSPROF" tui -i p --keys q --dump screens.txt
run "a FIFO as perf.data (import)" 1 "^dsprof: cannot read 'p/perf.data': it is a FIFO" \
	"$DSPROF" import -o imp p/perf.data
check "a failed import leaves no experiment" test ! -e imp
mkdir d
mkdir d/perf.data
run "a directory as perf.data" 1 "^dsprof: cannot read 'd/perf.data': it is a directory, not a regular file$" \
	"$DSPROF" report -i d
mkdir c
ln -s /dev/zero c/perf.data
run "a link to a device as perf.data" 1 "^dsprof: cannot read 'c/perf.data': it is a symbolic link, where dsprof wrote a file$" \
	"$DSPROF" report -i c

# kallsyms through a symlink: the experiment's (refused: dsprof wrote a
# file there, so a link was planted), and --kallsyms (the user's).  The note
# comes with kernel samples to name, which a short spin may not have: a
# program that faults in 80 MB spends its time in the kernel.
"$DSPROF" record -q -o kx -- "$PROGS/pagefault" 20000 >/dev/null
check_ge "a recording with kernel samples" \
	"$("$DSPROF" report -i kx -f csv 2>/dev/null | awk -F, '$2 == "[kernel.kallsyms]" { s += $4 } END { print s + 0 }')" 1
mkfifo ks.fifo
ln -s ks.fifo ks
run "--kallsyms: a symlink to a FIFO" 0 "note: kernel samples are shown as \[kernel\]: cannot read 'ks': it is a FIFO" \
	"$DSPROF" report -i kx --kallsyms ks
cp -r kx k
rm -f k/kallsyms
ln -s "$T/ks.fifo" k/kallsyms
run "the experiment's kallsyms: a symlink to a FIFO" 0 "kernel samples are shown as \[kernel\]: cannot read 'k/kallsyms': it is a symbolic link, where dsprof wrote a file" \
	"$DSPROF" report -i k
# (a program that spends its time in the vDSO's clock_gettime)
"$DSPROF" record -q -o v -- "$PROGS/behave" clock 0.3 >/dev/null
rm -f v/vdso.so
mkfifo v/vdso.so
run "the experiment's vdso.so: a FIFO" 0 "note: cannot read 'v/vdso.so': it is a FIFO, not a regular file; its samples are shown as \[unknown\]" \
	"$DSPROF" report -i v

# files named by the user: the memory-object file, a machine model
mkfifo mobj.fifo
run "DSPROF_MOBJ: a FIFO" 1 "^dsprof: cannot read '$T/mobj.fifo': it is a FIFO, not a regular file$" \
	env DSPROF_MOBJ="$T/mobj.fifo" "$DSPROF" mobj list
mkfifo machine.fifo
run "--machine: a FIFO" 1 "^dsprof: cannot read 'machine.fifo': it is a FIFO, not a regular file$" \
	"$DSPROF" mobj list --machine machine.fifo
run "layout of a FIFO" 1 "^dsprof: " "$DSPROF" layout prog

# a source file the line table names, now a FIFO: the source view shows the
# sampled lines only, and says why
cp "$TOP/tests/programs/example.c" src.c
if gcc -O2 -g -o srcprog src.c 2>/dev/null && "$DSPROF" record -q -o s -- ./srcprog 5 >/dev/null; then
	rm src.c
	mkfifo src.c
	run "the source view: the file is a FIFO" 0 "" "$DSPROF" report -i s -v source --function walk_cells
	check_contains "the source view: says so" out.txt "^# note: only the sampled lines are shown: cannot read '$T/src.c': it is a FIFO, not a regular file$"
else
	not_ok "the source view: cannot build and record the example program"
fi
