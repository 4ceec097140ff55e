# dsprof runs as root among users who may be hostile: every path it writes
# is tried here as such a user would (docs/dsprof.1, "FILES AND SAFETY").
# A link planted before or during a recording at a name dsprof writes, a
# directory of another user's or one every user may write in, a FIFO or a
# socket at a name dsprof opens: the pass condition is always the same:
# no byte written outside the experiment, no hang (every command runs
# under timeout), and one clear line when dsprof refuses.
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "hostile directories: these tests give files to another user, which needs root"
	exit 0
fi
NOBODY=65534

# run NAME WANT_STATUS REGEX COMMAND...: see expect_within
run() { expect_within 60 "$@"; }

# The victims: root's files outside every experiment, which a planted link
# points at.  Their bytes are checked at the end of each case.
mkdir -p outside
printf 'root secret\n' >outside/secret
chmod 600 outside/secret
victim="$T/outside/secret"
intact() { # NAME: the victim and the outside folder are as they were
	if [ "$(cat "$victim")" = "root secret" ] && [ "$(ls outside)" = "secret" ]; then
		ok "$1: nothing written outside"
	else
		not_ok "$1: outside changed: $(ls -l outside | tr '\n' ' ') $(head -c 100 "$victim")"
	fi
}
prog="$PROGS/behave"

# ---- record -o: directories of others ----
mkdir theirs
chown "$NOBODY:$NOBODY" theirs
run "-o: an empty directory of another user" 1 \
	"^dsprof: cannot make experiment 'theirs': cannot write in 'theirs': it belongs to user $NOBODY" \
	"$DSPROF" record -q -o theirs -- "$prog" spin 0.05
check_eq "-o: nothing written in another user's directory" "$(ls -A theirs)" ""
mkdir open
chmod 777 open
run "-o: a directory every user may write in" 1 "cannot write in 'open': every user may write in it" \
	"$DSPROF" record -q -o open -- "$prog" spin 0.05
check_eq "-o: nothing written in a directory every user may write in" "$(ls -A open)" ""
ln -s outside linked
run "-o: a symbolic link" 1 "^dsprof: cannot make experiment 'linked': it exists and is a symbolic link" \
	"$DSPROF" record -q -o linked -- "$prog" spin 0.05
intact "-o: a symbolic link"
# the case the issue showed: meta.json.tmp planted in another user's
# directory, pointing at root's file: refused before anything is written
ln -s "$victim" theirs/meta.json.tmp
chown -h "$NOBODY:$NOBODY" theirs/meta.json.tmp
run "-o: another user's directory with a planted meta.json.tmp" 1 "it belongs to user $NOBODY" \
	"$DSPROF" record -q -o theirs -- "$prog" spin 0.05
intact "-o: another user's directory with a planted meta.json.tmp"
# an experiment of another user's is neither moved aside nor removed
mkdir old
"$DSPROF" record -q -o old/exp -- "$prog" spin 0.05 >/dev/null 2>&1
chown -R "$NOBODY:$NOBODY" old/exp
run "-o: another user's experiment is not moved" 1 "cannot make experiment 'old/exp': cannot write in 'old/exp': it belongs to user $NOBODY" \
	"$DSPROF" record -q -o old/exp -- "$prog" spin 0.05
check "-o: another user's experiment stays where it is" test -f old/exp/meta.json -a ! -e old/exp.old

# ---- links planted during a recording, at every name record writes ----
# The profiled command plants them (as root: it could write anywhere, but
# dsprof must not be the one who does).
cat >plant.sh <<EOF
for n in meta.json.tmp perf.data.tmp kallsyms kallsyms.tmp vdso.so vdso.so.tmp recording.json.tmp; do
	ln -s "$victim" "\$1/\$n" 2>/dev/null
done
mkfifo "\$1/meta.json.new" 2>/dev/null
exec "$prog" spin 0.1
EOF
run "record: links planted during the recording" 0 "" "$DSPROF" record -q -o during -- sh plant.sh "$T/during"
intact "record: links planted during the recording"
check "record: meta.json is a file of its own" test -f during/meta.json -a ! -L during/meta.json
check "record: perf.data is a file of its own" test -f during/perf.data -a ! -L during/perf.data
check "record: no temporary name is left" test ! -e during/meta.json.tmp -a ! -e during/perf.data.tmp
run "record: the experiment reads" 0 "" "$DSPROF" report -i during
check_contains "record: its report has the command's samples" out.txt "behave"
run "record --sim: links planted during the recording" 0 "" "$DSPROF" record -q --sim -o simd -- sh plant.sh "$T/simd"
intact "record --sim: links planted during the recording"
# --archive: archive/ planted as a link out of the experiment
cat >plant-archive.sh <<EOF
ln -s "$T/outside" "\$1/archive"
exec "$prog" spin 0.1
EOF
run "record --archive: archive/ is a link" 1 "cannot write in '.*archive': it is a symbolic link" \
	"$DSPROF" record -q --archive -o arch -- sh plant-archive.sh "$T/arch"
intact "record --archive: archive/ is a link"

# ---- dsprof archive: a link at archive/ or beneath it ----
"$DSPROF" record -q -o ar -- "$prog" spin 0.05 >/dev/null 2>&1
ln -s "$T/outside" ar/archive
run "archive: archive/ is a link" 1 "^dsprof: cannot write in 'ar/archive': it is a symbolic link" \
	"$DSPROF" archive -i ar
intact "archive: archive/ is a link"
rm ar/archive
mkdir ar/archive
ln -s "$T/outside" ar/archive/usr
ln -s "$T/outside" ar/archive/.build-id
run "archive: a link beneath archive/" 1 "it is a symbolic link" "$DSPROF" archive -i ar
intact "archive: a link beneath archive/"
chown -R "$NOBODY:$NOBODY" ar
run "archive: another user's experiment" 1 "^dsprof: cannot write in 'ar': it belongs to user $NOBODY" \
	"$DSPROF" archive -i ar
intact "archive: another user's experiment"

# ---- groups ----
mkdir g
ln -s "$victim" g/group
run "record --group: the index is a link" 1 "^dsprof: cannot write 'g/group': a symbolic link is there|cannot create 'g/group': a symbolic link" \
	"$DSPROF" record -q --group g -- "$prog" spin 0.05
intact "record --group: the index is a link"
check_eq "record --group: no member was made" "$(ls g)" "group"
mkdir g2
mkfifo g2/group
for cmd in "report -i g2" "diff g2 g2" "layout -i g2 --suggest 'struct x'" "tui -i g2 --keys q --dump screens.txt"; do
	# shellcheck disable=SC2086
	eval "run \"$cmd: a FIFO named group\" 1 '^dsprof: ' \"\$DSPROF\" $cmd"
done
run "record --group: a FIFO named group" 1 "^dsprof: cannot write 'g2/group': it is not a regular file" \
	"$DSPROF" record -q --group g2 -- "$prog" spin 0.05
"$TOOLS/mksock" g3.sock
mkdir g3
"$TOOLS/mksock" g3/group
run "record --group: a socket named group" 1 "^dsprof: cannot write 'g3/group': it is not a regular file" \
	"$DSPROF" record -q --group g3 -- "$prog" spin 0.05
run "report: a socket named group" 1 "^dsprof: " "$DSPROF" report -i g3
mkdir g4
chown "$NOBODY:$NOBODY" g4
run "record --group: another user's group" 1 "cannot write in 'g4': it belongs to user $NOBODY" \
	"$DSPROF" record -q --group g4 -- "$prog" spin 0.05
check_eq "record --group: nothing written in another user's group" "$(ls -A g4)" ""

# a damaged index: a member listed twice is refused; a last line without
# its newline is read, with a note
"$DSPROF" record -q --group gd -- "$prog" spin 0.05 >/dev/null 2>&1
"$DSPROF" record -q --group gd -- "$prog" spin 0.05 >/dev/null 2>&1
cp gd/group gd.index
tail -n 1 gd.index >>gd/group
run "a group index that lists a member twice" 1 "^dsprof: 'gd/group' lists 'run.2' twice \(as member 2 and 3\)" \
	"$DSPROF" report -i gd
head -c -1 gd.index >gd/group
run "a group index whose last line has no newline" 0 "" "$DSPROF" report -i gd
check_contains "a group index whose last line has no newline: noted" err.txt \
	"note: 'gd/group' ends in a line without a newline .*its member 'run.2' is read as listed"
check_contains "a group index whose last line has no newline: both runs are read" out.txt "2 experiments|run.2"

# ---- sockets and FIFOs at the experiment's names ----
for name in meta.json perf.data kallsyms vdso.so; do
	rm -rf s && cp -r during s && rm -f "s/$name"
	"$TOOLS/mksock" "s/$name"
	run "report: a socket named $name" "$( [ "$name" = perf.data ] || [ "$name" = meta.json ] && echo 1 || echo 0)" "" \
		"$DSPROF" report -i s
done
intact "sockets and FIFOs"
