# make install PREFIX=...: the program and its man pages.
. "$TOP/tests/lib.sh"

make -s -C "$TOP" BUILD="$BUILD" PREFIX="$T/prefix" install >make.out 2>&1
check_eq "make install succeeds" "$?" 0
check "dsprof installed" test -x "$T/prefix/bin/dsprof"
"$T/prefix/bin/dsprof" --version >v.txt
check_contains "installed dsprof runs" v.txt '^dsprof [0-9]+\.[0-9]+\.[0-9]+$'
for page in dsprof dsprof-record dsprof-report dsprof-list dsprof-import dsprof-archive dsprof-tui; do
	check "man page $page.1 installed" test -s "$T/prefix/share/man/man1/$page.1"
done
MANWIDTH=80 man -l "$T/prefix/share/man/man1/dsprof-record.1" >man.txt 2>man.err
check_contains "man page renders" man.txt 'dsprof-record - run a command'
check_eq "man page renders without warnings" "$(cat man.err)" ""
MANWIDTH=80 man -l "$T/prefix/share/man/man1/dsprof-tui.1" >tui.txt 2>tui.err
check_contains "dsprof-tui.1 renders" tui.txt 'dsprof-tui - browse an experiment'
check_contains "dsprof-tui.1 gives the scripted key syntax" tui.txt '<Resize:WxH>'
check_eq "dsprof-tui.1 renders without warnings" "$(cat tui.err)" ""
# the installed dsprof finds its heap tracker and the simulator's, beside it
"$T/prefix/bin/dsprof" record -q -o heap.data --heap -- "$PROGS/heapleak" >heap.out 2>heap.err
check_eq "installed: record --heap" "$?" 0
check "installed: the heap tracker wrote its file" test -n "$(ls heap.data/heap/*.heap 2>/dev/null)"
if [ -x "$BUILD/sim/lib/dsprofsim-amd64-linux" ]; then
	"$T/prefix/bin/dsprof" record -q -o simheap.data --heap --sim -- "$PROGS/heapleak" >simheap.out 2>simheap.err
	check_eq "installed: record --heap --sim" "$?" 0
	check "installed: the simulator wrote the heap file" test -n "$(ls simheap.data/heap/*.heap 2>/dev/null)"
else
	skip "installed: record --heap --sim: the simulator is not built (valgrind not installed)"
fi
