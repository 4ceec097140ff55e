# The experiment directory: what record and import do to what is there.
# Never remove what dsprof did not make, never lose the last complete
# experiment (a recording killed or out of disk space included), and say
# what was moved where, even with -q.
. "$TOP/tests/lib.sh"

sum() { cksum <"$1/perf.data"; }

"$DSPROF" record -q -o ex -- "$PROGS/behave" spin 0.2 >/dev/null 2>err.txt
check_eq "a new experiment: nothing said" "$(cat err.txt)" ""
check "a complete experiment has no recording mark" test ! -e ex/recording.json
a=$(sum ex)
"$DSPROF" record -q -o ex -- "$PROGS/behave" spin 0.2 >/dev/null 2>err.txt
check_eq "the second recording: the first is ex.old" "$(sum ex.old)" "$a"
check_eq "-q still says what was moved where" "$(cat err.txt)" "dsprof: moved the previous experiment 'ex' to 'ex.old'"
b=$(sum ex)
"$DSPROF" record -q -o ex -- "$PROGS/behave" spin 0.2 >/dev/null 2>err.txt
check_eq "the third: says it replaces the older ex.old" "$(cat err.txt)" \
	"dsprof: moved the previous experiment 'ex' to 'ex.old', replacing the older one there"
check_eq "the third: ex.old is the second" "$(sum ex.old)" "$b"

# a DIR.old that holds something of the user's is never removed
rm -rf ex.old
mkdir ex.old
echo x >ex.old/thesis.tex
c=$(sum ex)
expect_error "a DIR.old that is not dsprof's: refused" 1 \
	"^dsprof: cannot move experiment 'ex' to 'ex.old': 'ex.old' holds 'thesis.tex', which dsprof does not write, so dsprof does not replace it; move it away, or choose another name with -o$" \
	"$DSPROF" record -o ex -- true
check_eq "a DIR.old that is not dsprof's: thesis.tex is there" "$(cat ex.old/thesis.tex)" x
check_eq "a DIR.old that is not dsprof's: DIR is untouched" "$(sum ex)" "$c"
cp ex/perf.data theirs.data
expect_error "import: the same" 1 "^dsprof: cannot move experiment 'ex' to 'ex.old': 'ex.old' holds 'thesis.tex'" \
	"$DSPROF" import -o ex theirs.data
check_eq "import: thesis.tex is there" "$(cat ex.old/thesis.tex)" x
rm -rf ex.old
# ... nor a DIR with a file of the user's in it
echo y >ex/notes.txt
expect_error "a file of the user's in DIR: refused" 1 \
	"^dsprof: cannot make experiment 'ex': it exists and holds 'notes.txt', which dsprof does not write, so it is not an experiment dsprof made; choose another name with -o$" \
	"$DSPROF" record -o ex -- true
check "a file of the user's in DIR: kept" test -s ex/notes.txt
rm ex/notes.txt
# ... nor a perf.data that perf wrote
mkdir perfdir
cp ex/perf.data perfdir/
expect_error "a bare perf.data: refused" 1 "^dsprof: cannot make experiment 'perfdir': it exists and has neither a dsprof meta.json nor the mark of a dsprof recording" \
	"$DSPROF" record -o perfdir -- true
# an empty directory is used as it is
mkdir empty
"$DSPROF" record -q -o empty -- true 2>err.txt
check_eq "an empty directory: used, nothing said" "$?:$(cat err.txt)" "0:"
check "an empty directory: the experiment is in it" test -s empty/meta.json

# a recording that cannot start puts the previous experiment back, and says
# so: a program whose ELF interpreter is missing fails at exec, after the
# directory was made
sed 's|ld-linux-x86-64\.so\.2|ld-linux-x86-64.so.9|' "$PROGS/behave" >noloader
chmod +x noloader
if cmp -s noloader "$PROGS/behave"; then
	skip "a recording that never started: no x86-64 ELF interpreter to rename"
else
	"$DSPROF" record -q -o ex -- ./noloader exit 0 >/dev/null 2>err.txt
	check_contains "a recording that never started: fails" err.txt "^dsprof: cannot run './noloader'"
	check_contains "a recording that never started: said the move" err.txt "^dsprof: moved the previous experiment 'ex' to 'ex.old'$"
	check_contains "a recording that never started: puts it back, and says so" err.txt "^dsprof: put the previous experiment back in 'ex'$"
	check_eq "a recording that never started: ex is the one before" "$(sum ex)" "$c"
fi

# killed: the experiment is unfinished, the one before it is ex.old; the
# next recording removes the unfinished one and keeps ex.old
"$DSPROF" record -q -o ex -- "$PROGS/behave" spin 60 >/dev/null 2>&1 &
dp=$!
# (the new directory: the mark, then perf.data with the first records)
wait_until sh -c 'test -e ex/recording.json && test -s ex/perf.data'
kill -9 "$dp"
wait "$dp" 2>/dev/null
check "killed: marked unfinished" test -s ex/recording.json
check "killed: no meta.json" test ! -e ex/meta.json
d=$(sum ex.old)
"$DSPROF" report -i ex >/dev/null 2>err.txt
check_contains "killed: the report names the last complete experiment" err.txt \
	"^dsprof: note: meta.json is missing: .*; the last complete experiment is 'ex.old'$"
"$DSPROF" record -q -o ex -- "$PROGS/behave" spin 0.2 >/dev/null 2>err.txt
check_eq "after a killed recording: the unfinished one is removed, and said" "$(cat err.txt)" \
	"dsprof: removed 'ex', a recording that never ended; 'ex.old' keeps the last complete experiment"
check_eq "after a killed recording: ex.old is still the last complete one" "$(sum ex.old)" "$d"
check "after a killed recording: the new one is complete" test -s ex/meta.json

# an experiment being written now is neither moved nor removed
"$DSPROF" record -q -o busy -- "$PROGS/behave" spin 60 >/dev/null 2>&1 &
dp=$!
wait_until sh -c 'test -e busy/recording.json && test -s busy/perf.data'
expect_error "a recording into a directory dsprof is writing: refused" 1 \
	"^dsprof: cannot make experiment 'busy': dsprof \(pid $dp\) is writing it now; choose another name with -o$" \
	"$DSPROF" record -o busy -- true
kill -9 "$dp"
wait "$dp" 2>/dev/null

# disk full, on a tmpfs of 2 MB: the recording fails; the last complete
# experiment stays; the next recording keeps it
if [ "$(id -u)" -ne 0 ]; then
	skip "disk full: mounting a small tmpfs needs root"
elif ! { mkdir small && mount -t tmpfs -o size=2m tmpfs small 2>/dev/null; }; then
	skip "disk full: cannot mount a tmpfs here"
else
	trap 'umount "$T/small"' EXIT
	"$DSPROF" record -q -o small/ex -- "$PROGS/behave" spin 0.2 >/dev/null 2>&1
	check "disk full: the first experiment fits" test -s small/ex/meta.json
	e=$(sum small/ex)
	free_kb=$(df -k small | awk 'NR == 2 { print $4 }')
	head -c $(((free_kb - 64) * 1024)) /dev/zero >small/fill 2>/dev/null
	"$DSPROF" record -q -o small/ex -- "$PROGS/behave" spin 1 >/dev/null 2>err.txt
	rc=$?
	check_eq "disk full: the recording fails (status 2)" "$rc" 2
	check_contains "disk full: says so" err.txt "No space left on device"
	check_eq "disk full: the last complete experiment is small/ex.old" "$(sum small/ex.old)" "$e"
	"$DSPROF" report -i small/ex >/dev/null 2>err.txt
	check_contains "disk full: the report says meta.json is missing, and why" err.txt \
		"^dsprof: note: meta.json is missing: its recording did not end \(dsprof, pid [0-9]+, was killed or failed, as on a full disk\) before writing it; .*the last complete experiment is 'small/ex.old'$"
	rm small/fill
	"$DSPROF" record -q -o small/ex -- "$PROGS/behave" spin 0.2 >/dev/null 2>err.txt
	check_eq "disk full, then space: the failed one is removed, and said" "$(cat err.txt)" \
		"dsprof: removed 'small/ex', a recording that never ended; 'small/ex.old' keeps the last complete experiment"
	check_eq "disk full, then space: small/ex.old is still the first" "$(sum small/ex.old)" "$e"
fi
