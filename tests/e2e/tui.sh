# The terminal interface on a real terminal: dsprof tui inside tmux, keys
# sent with send-keys, screens read with capture-pane, through every tab.
. "$TOP/tests/lib.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux is not installed ('make deps' installs it)"
	exit 0
fi
if ! "$DSPROF" record -q -o exp -- "$PROGS/example" 40 >/dev/null; then
	not_ok "dsprof record of the example program"
	exit 0
fi

SOCK="$T/tmux.sock"
tm() { tmux -S "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null' EXIT

# start NAME ENV...: dsprof tui in a 100x30 window (WIDTH columns) of its
# own, on $T/exp or on what ARGS says
ARGS="-i '$T/exp'"
start() {
	name=$1; shift
	tm new-session -d -s "$name" -x "${WIDTH:-100}" -y 30 \
		"env $* '$DSPROF' tui $ARGS; echo TUI-EXIT=\$?; sleep 60"
}
# The status line's right end while the active tab waits for its view
# (tui/draw.c, loading_text): a screen that shows one of these is not the
# one a check is about.
BUSY=' (opening the experiment|reading samples [0-9]+% \(.*\)|attributing samples to data|computing|partial) *$'
# wait_for SESSION REGEX: until the screen shows it, with the active tab's
# view built (120 s at most: a loaded machine may take that long; the
# polls themselves are the only delay)
wait_for() {
	i=0
	while [ "$i" -lt 1200 ]; do
		tm capture-pane -p -t "$1" >pane.txt 2>/dev/null
		grep -Eq -- "$2" pane.txt && ! grep -Eq -- "$BUSY" pane.txt && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# screen NAME SESSION REGEX
screen() {
	if wait_for "$2" "$3"; then
		ok "$1"
	elif grep -Eq -- "$BUSY" pane.txt; then
		not_ok "$1: the view was still being built after 120 s: $(grep -Eo -- "$BUSY" pane.txt)"
	else
		not_ok "$1: '$3' never came on the screen: $(head -4 pane.txt | tr '\n' '|')"
	fi
}
keys() { s=$1; shift; tm send-keys -t "$s" "$@"; }

start ui LANG=C.UTF-8 NO_COLOR=
screen "first screen: the hottest function" ui '^▶ +[0-9.]+% +[0-9]+ +[0-9.]+% walk_cells'
screen "tab bar" ui '^ 1 Functions 2 Cal 3 Src 4 Asm 5 Dat 6 Lay 7 Mem 8 Hot 9 Shr h Hep t Tre 0 Tim i Sum'
screen "key bar" ui '^F1 Help Enter Open BS Back'

# every tab by its key
keys ui 2; screen "2: callers and callees of walk_cells" ui '^Callers-Callees: walk_cells'
screen "2: main calls it" ui 'caller .* main '
keys ui 3; screen "3: its source" ui '^Source: walk_cells'
screen "3: the hot line under the cursor" ui '^▶ +56 .*c->count\+\+;'
keys ui 4; screen "4: its every instruction, the sampled with struct.field and verdict" ui 'struct cell\.(count|energy) +ok( |$)'
keys ui 5; screen "5: data objects" ui '^▶ .*▸ struct cell +type'
keys ui Right; screen "5: a type's fields unfold" ui 'struct cell\.count +field'
keys ui 6; screen "6: the layout of the selected type" ui '^DataLayout: struct cell'
screen "6: members with bars" ui ' count$|█'
keys ui 7; screen "7: memory objects" ui 'pick a memory object'
keys ui Enter; screen "7: the objects to pick from" ui 'L1D_line +predefined'
keys ui Enter; screen "7: the object's view" ui '^MemObjects: L1D_line'
keys ui 8; screen "8: hot lines" ui 'cache line'
keys ui 9; screen "9: sharing (its view, or saying this dsprof has none)" ui '^Sharing( |$)'
screen "9: a single-threaded run shares no line" ui 'No cache line was shared'
keys ui t; screen "t: the call tree, hot paths unfolded" ui '^ +▾? *[0-9.]+% .* +main '
keys ui 0; screen "0: timeline" ui 'A walk_cells'
keys ui i; screen "i: summary" ui '^ command +.*example 40'
keys ui '?'; screen "?: the keys" ui 'Keys of dsprof tui'
keys ui q; screen "any key closes the help" ui '^ command +.*example 40'

# drilling down and back
keys ui 1 Enter; screen "Enter: function to source" ui '^Functions › Source: walk_cells'
keys ui BSpace; screen "Backspace: back" ui '^Functions +'
keys ui Tab; screen "Tab: the next tab" ui '^Callers-Callees'
keys ui BTab; screen "Shift-Tab: the previous one" ui '^Functions +'
keys ui / c o u n t _ h Enter; screen "/: search" ui '^▶ .*count_hits'

# colours, unless NO_COLOR
tm capture-pane -e -p -t ui >color.txt
check "colours on a colour terminal" grep -q "$(printf '\033')\[[0-9;]*3[0-7]" color.txt

# resizing, and a terminal too small
tm resize-window -t ui -x 70 -y 20
screen "a small terminal is told so" ui 'needs 80x24 at least'
tm resize-window -t ui -x 130 -y 40
screen "larger again" ui 'count_hits'
check_ge "the table uses the width" "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' pane.txt)" 101

keys ui q; screen "q quits, the terminal is given back" ui 'TUI-EXIT=0'

# monochrome: no colours, the cursor in reverse video
start mono LANG=C.UTF-8 NO_COLOR=1
screen "NO_COLOR: first screen" mono 'walk_cells'
tm capture-pane -e -p -t mono >mono.txt
check "NO_COLOR: no colours" sh -c "! grep -q \"$(printf '\033')\[[0-9;]*3[0-7]m\" mono.txt"
check "NO_COLOR: the cursor in reverse video" grep -q "$(printf '\033')\[[0-9;]*7m" mono.txt
keys mono C-c; screen "Ctrl-C quits" mono 'TUI-EXIT=0'

# a terminal whose locale is not UTF-8 gets ASCII
start plain LANG=C LC_ALL=C
screen "ASCII: first screen" plain 'samplesv'
check "ASCII: nothing but ASCII" sh -c "! LC_ALL=C grep -q '[^ -~]' pane.txt"
keys plain 5; screen "ASCII: a closed type" plain '^> .*\+ struct cell'
keys plain Right; screen "ASCII: an open type" plain '- struct cell'
keys plain q; screen "ASCII: quits" plain 'TUI-EXIT=0'

# no terminal at all
"$DSPROF" tui -i exp </dev/null >out.txt 2>err.txt
check_eq "no terminal: exit status 1" "$?" 1
check_contains "no terminal: says what to do" err.txt '^dsprof: dsprof tui needs a terminal \(for scripted use give --keys and --dump\)$'

# Menus opened while views build stay drawn: nothing but the interface
# writes to the terminal.  The views of an experiment of dsprof itself read
# its large DWARF in the background, which used to print progress lines
# over the screen (and over the menu, which ncurses then believed shown).
if "$DSPROF" record -q -o self -- "$DSPROF" report -i "$T/exp" --view dataobjects >/dev/null 2>&1; then
	ARGS="-i '$T/self'"
	start busy LANG=C.UTF-8
	# the first table, while the other tabs' views are built ahead (the
	# data objects first, which read the DWARF)
	screen "busy: first screen" busy '^▶ .*[0-9]+ '
	stray="" menu="" i=0
	keys busy s
	while [ "$i" -lt 100 ]; do
		tm capture-pane -p -t busy >pane.txt 2>/dev/null
		grep -q 'dsprof: reading' pane.txt && stray=1
		grep -q 'Sort by' pane.txt && menu=1
		# the menu, on and off, as the views come in behind it
		[ $((i % 20)) -eq 19 ] && keys busy Escape s
		sleep 0.1
		i=$((i + 1))
	done
	check "busy: no progress line reached the screen" test -z "$stray"
	check "busy: the sort menu opened while views were built is drawn" test -n "$menu"
	keys busy Escape s; screen "busy: and is drawn once the views are built" busy 'Sort by'
	keys busy Escape q; screen "busy: quits" busy 'TUI-EXIT=0'
else
	not_ok "dsprof record of dsprof itself"
fi

# hot line -> its data, threads and code -> the code's source line
ARGS="-i '$T/exp'"
start hot LANG=C.UTF-8
screen "hot: first screen" hot 'walk_cells'
keys hot f; tm send-keys -t hot -l 'FUNC == "walk_cells"'; keys hot Enter
screen "hot: the hot lines of walk_cells (whose code has source)" hot 'filter: FUNC == "walk_cells"'
keys hot 8; screen "8: hot lines with their threads" hot 'nthreads'
# the header comes before the rows, which a loaded machine may still be
# building: Enter on no row opens nothing
screen "8: walk_cells's hot lines, the first selected" hot '^▶ +[0-9.]+% +[0-9]+ '
keys hot Enter; screen "8: Enter shows a line's data and code" hot '^▶ .*▾ .*'
keys hot / e x a m p l e . c : Enter; screen "8: a code row of the line" hot '^▶ .* example\.c:[0-9]+ '
keys hot Enter; screen "8: its source line" hot '^HotLines › Source: '
keys hot q; screen "hot: quits" hot 'TUI-EXIT=0'

# comparing two experiments: every tab is the diff dsprof diff prints
if "$DSPROF" record -q -o exp2 -- "$PROGS/example" 20 >/dev/null; then
	ARGS="'$T/exp' '$T/exp2'"
	start cmp LANG=C.UTF-8
	screen "compare: the functions' diff" cmp 'status +delta▼ +change'
	screen "compare: the experiments named" cmp '/exp2$'
	screen "compare: the largest change first, both sides' metrics" cmp '^▶ +[0-9.]+% +[0-9]+ +[0-9.]+% +[0-9]+ (both|new|gone) '
	keys cmp / w a l k _ c e l l s Enter; screen "compare: walk_cells" cmp '^▶ .* both .*walk_cells'
	keys cmp 2; screen "compare 2: callers" cmp '^Callers-Callees: walk_cells'
	keys cmp 3; screen "compare 3: source" cmp '^▶ .* both .*c->count\+\+;'
	keys cmp 4; screen "compare 4: disassembly" cmp '^Disassembly: walk_cells'
	keys cmp 5; screen "compare 5: data objects" cmp 'both .*struct cell\.count'
	keys cmp / s t r u c t Space c e l l Enter
	keys cmp 6; screen "compare 6: layout" cmp '^DataLayout: struct cell'
	keys cmp 7; screen "compare 7: memory objects" cmp 'pick a memory object'
	keys cmp 8; screen "compare 8: hot lines" cmp '^HotLines'
	keys cmp 9; screen "compare 9: sharing" cmp '^Sharing'
	keys cmp 0; screen "compare 0: the timeline is not compared" cmp 'is not compared'
	keys cmp i; screen "compare i: the verdict" cmp 'Verdict \(dsprof diff BEFORE AFTER'
	keys cmp q; screen "compare: quits" cmp 'TUI-EXIT=0'
else
	not_ok "dsprof record of the example program, the second time"
fi

# a thread whose name is an escape sequence: shown escaped, never obeyed
if command -v cc >/dev/null 2>&1; then
	cat >evil.c <<'PROG'
#include <sys/prctl.h>
__attribute__((noinline)) void spin(volatile long *x) { for (long i = 0; i < 150000000; i++) *x += i; }
int main(void) { volatile long x = 0; prctl(PR_SET_NAME, "\033[31mevil\a"); spin(&x); return 0; }
PROG
	if cc -O1 -g -o evil evil.c && "$DSPROF" record -q -o evilexp -- ./evil >/dev/null; then
		ARGS="-i '$T/evilexp'"
		start evil LANG=C.UTF-8 NO_COLOR=1
		screen "hostile comm: first screen" evil 'spin'
		keys evil 0; screen "hostile comm: the thread's name escaped" evil '\\x1b\[31mevil'
		tm capture-pane -e -p -t evil >evil.txt
		check "hostile comm: no colour reached the terminal" sh -c "! grep -q \"$(printf '\033')\[[0-9;]*31m\" evil.txt"
		keys evil q; screen "hostile comm: quits" evil 'TUI-EXIT=0'
	else
		not_ok "build and record the program with a hostile thread name"
	fi
else
	skip "no C compiler to build a program with a hostile thread name"
fi

# the Sharing tab leads with the event that matters to it: at 160 columns
# the default simulated events (L1D_MISS, LLC_MISS, HITM) hid HITM
if command -v valgrind >/dev/null 2>&1; then
	if "$DSPROF" record -q --sim -o simexp -- "$PROGS/sim_false_sharing" adjacent 1000 >/dev/null 2>&1; then
		ARGS="-i '$T/simexp'" WIDTH=160 start shr LANG=C.UTF-8 NO_COLOR=
		keys shr 9; screen "sim, 160 columns: the Sharing tab" shr '^Sharing'
		screen "sim, 160 columns: its first event is sim:HITM" shr '^ *sim:HITM'
		keys shr q; screen "sim, 160 columns: quits" shr 'TUI-EXIT=0'
	else
		not_ok "record --sim of sim_false_sharing"
	fi
else
	not_ok "valgrind is not installed ('make deps' installs it): no simulated experiment for the Sharing tab"
fi

# the command line
"$DSPROF" tui a b c >out.txt 2>err.txt
check_eq "three experiments: exit status 1" "$?" 1
check_contains "three experiments: named" err.txt "unexpected argument 'c'"
"$DSPROF" tui -i exp exp exp2 >out.txt 2>err.txt
check_eq "-i and BEFORE AFTER: exit status 1" "$?" 1
check_contains "-i and BEFORE AFTER: said" err.txt 'either -i DIR or two experiments'
"$DSPROF" tui exp nonexistent.data --keys q >out.txt 2>err.txt
check_eq "a missing AFTER: exit status 1" "$?" 1
check_contains "a missing AFTER: named" err.txt 'nonexistent.data'
