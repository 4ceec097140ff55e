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

# start NAME ENV...: dsprof tui in a 100x30 window of its own
start() {
	name=$1; shift
	tm new-session -d -s "$name" -x 100 -y 30 \
		"env $* '$DSPROF' tui -i '$T/exp'; echo TUI-EXIT=\$?; sleep 60"
}
# wait_for SESSION REGEX: until the screen shows it (10 s at most)
wait_for() {
	i=0
	while [ "$i" -lt 100 ]; do
		tm capture-pane -p -t "$1" >pane.txt 2>/dev/null
		grep -Eq -- "$2" pane.txt && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# screen NAME SESSION REGEX
screen() {
	if wait_for "$2" "$3"; then ok "$1"; else not_ok "$1: '$3' not on the screen: $(head -4 pane.txt | tr '\n' '|')"; fi
}
keys() { s=$1; shift; tm send-keys -t "$s" "$@"; }

start ui LANG=C.UTF-8 NO_COLOR=
screen "first screen: the hottest function" ui '^▶ +[0-9.]+% +[0-9]+ +[0-9.]+% walk_cells'
screen "tab bar" ui '^ 1 Functions 2 Cal 3 Src 4 Asm 5 Dat 6 Lay 7 Mem 8 Hot 9 Shr 0 Tim i Sum'
screen "key bar" ui '^F1 Help Enter Open BS Back'

# every tab by its key
keys ui 2; screen "2: callers and callees of walk_cells" ui '^Callers-Callees: walk_cells'
screen "2: main calls it" ui 'caller .* main '
keys ui 3; screen "3: its source" ui '^Source: walk_cells'
screen "3: the hot line under the cursor" ui '^▶ +57 .*e \+= c->energy;'
keys ui 4; screen "4: its instructions with struct.field and verdict" ui 'struct cell\.(count|energy).* ok '
keys ui 5; screen "5: data objects" ui '^▶ .*▸ struct cell +type'
keys ui Right; screen "5: a type's fields unfold" ui 'struct cell\.count +field'
keys ui 6; screen "6: the layout of the selected type" ui '^DataLayout: struct cell'
screen "6: members with bars" ui ' count$|█'
keys ui 7; screen "7: memory objects" ui 'pick a memory object'
keys ui Enter; screen "7: the objects to pick from" ui 'L1D_line +predefined'
keys ui Enter; screen "7: the object's view" ui '^MemObjects: L1D_line'
keys ui 8; screen "8: hot lines" ui 'cache line'
keys ui 9; screen "9: sharing (not there yet, and saying so)" ui 'not part of this dsprof yet'
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
