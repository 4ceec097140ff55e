# dsprof killed outright (SIGKILL): the command it runs dies with it unless
# --detach, and the report of what it left says what happened: meta.json
# missing and why, kernel symbols from this boot or why there are none.
# dsprof asked to stop (SIGTERM) at any moment of a recording, first to
# last: the experiment it says it wrote is complete.
# -p of a kernel thread is refused.
. "$TOP/tests/lib.sh"

# gone PID: the process has ended (a zombie waiting for its new parent counts)
gone() {
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$st" ] || [ "$st" = Z ]
}
# samples_in DIR: perf.data has samples (more than its header and the
# records written before the command starts)
samples_in() {
	[ "$(stat -c %s "$1/perf.data" 2>/dev/null || echo 0)" -gt 100000 ]
}
# start DIR ARGS...: dsprof record in the background, until its command
# runs and perf.data has samples; sets dp (dsprof) and tp (the command)
start() {
	dir=$1
	shift
	"$DSPROF" record -q -o "$dir" "$@" -- "$PROGS/behave" spin 60 >/dev/null 2>&1 &
	dp=$!
	wait_until samples_in "$dir"
	tp=$(pgrep -P "$dp")
}

start k
check "the command runs under dsprof" test -n "$tp"
kill -9 "$dp"
wait "$dp" 2>/dev/null
if wait_until gone "$tp"; then
	ok "SIGKILL of dsprof: the command dies with it"
else
	not_ok "SIGKILL of dsprof: the command $tp runs on"
	kill -9 "$tp"
fi
"$DSPROF" report -i k >k.txt 2>k.err
check_eq "the report of a killed recording: status" "$?" 0
check_contains "the report of a killed recording: says meta.json is missing and why" k.err \
	"^dsprof: note: meta.json is missing: its recording did not end \(dsprof, pid $dp, was killed or failed, as on a full disk\) before writing it; the samples written up to then are shown$"
check_contains "the report of a killed recording: its samples" k.txt "spin_work +behave"
if grep -q "kernel samples are shown as" k.err; then
	not_ok "the same boot: the kernel's symbols are this boot's: $(grep kernel k.err)"
else
	ok "the same boot: the kernel's symbols are this boot's"
fi
# on another boot, it says what happened, not 'another kernel'
sed 's/"boot_id": "[^"]*"/"boot_id": "another-boot"/' k/recording.json >mark.json
cp mark.json k/recording.json
# kernel_note NAME REGEX: the report of k has the note (when k has kernel samples)
kernel_note() {
	"$DSPROF" report -i k >/dev/null 2>k.err
	if grep -q "kernel\.kallsyms" k.txt; then
		check_contains "$1" k.err "$2"
	else
		skip "$1: no kernel samples in this recording"
	fi
}
kernel_note "another boot: says the kernel's symbols were never kept, and why" \
	"^dsprof: note: kernel samples are shown as \[kernel\]: the recording did not end, so it never kept the kernel's symbols, and this is not the boot it ran in \(give them with --kallsyms\)$"
# without the mark (a perf.data of an older dsprof, killed), not 'another kernel' either
rm k/recording.json
kernel_note "no mark: says the experiment does not name its kernel" \
	"kernel samples are shown as \[kernel\]: the experiment does not say which kernel it was recorded on"

# a report while the recording runs says so
start live
"$DSPROF" report -i live >/dev/null 2>live.err
check_contains "a recording still running: said" live.err \
	"^dsprof: note: meta.json is missing: its recording \(dsprof, pid $dp\) is still running; the samples written so far are shown$"
kill -9 "$dp"
wait "$dp" 2>/dev/null
wait_until gone "$tp" || kill -9 "$tp"

# --detach: the command outlives dsprof (it was asked for)
start det --detach
kill -9 "$dp"
wait "$dp" 2>/dev/null
# the signal would have come with dsprof's end: give it a second to arrive
i=0
while [ "$i" -lt 10 ] && ! gone "$tp"; do
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$tp" ] && ! gone "$tp"; then
	ok "--detach: the command runs on"
	kill -9 "$tp"
else
	not_ok "--detach: the command ended with dsprof"
fi
expect_error "--detach with -p: refused" 1 "^dsprof: --detach is for a command dsprof runs" \
	"$DSPROF" record --detach -p 1 -o det2

# -p of a kernel thread (PF_KTHREAD in its flags): refused at once
kt=$(for s in /proc/[0-9]*/stat; do
	sed 's/.*) //' "$s" 2>/dev/null | awk -v p="${s#/proc/}" '{ if (int($7 / 2097152) % 2) { sub("/stat", "", p); print p; exit 1 } }' || break
done)
if [ -z "$kt" ]; then
	skip "-p of a kernel thread: none is visible here (a PID namespace?)"
else
	expect_error "-p of a kernel thread: refused" 1 \
		"^dsprof: cannot attach to process $kt \(.*\): it is a kernel thread, which has no user space to sample; attach to a process that runs a program$" \
		"$DSPROF" record -p "$kt" -o kt -d 1
	check "-p of a kernel thread: no experiment" test ! -e kt
fi

# SIGTERM at each moment of a recording, from before it made its directory
# to after the command ended: once dsprof has made the experiment's
# directory it says it wrote the experiment, and that experiment is
# complete (no mark, meta.json, perf.data, and the kernel's symbols when
# it has kernel samples).  Some of these moments last milliseconds, so the
# states are polled without sleeping.
#
# has_child PID: the process has forked (the command, before it runs)
has_child() {
	c=
	{ read -r c <"/proc/$1/task/$1/children"; } 2>/dev/null
	[ -n "$c" ]
}
# term_when NAME STATE...: record a short command into NAME, SIGTERM dsprof
# as soon as the test STATE holds (PID in it is dsprof's); sets said (what
# record printed)
term_when() {
	dir=$1
	shift
	"$DSPROF" record -o "$dir" -- "$PROGS/behave" exit 0 >"$dir.out" 2>"$dir.err" &
	dp=$!
	n=0
	until [ "$n" -ge 100000 ] || eval "$*"; do
		n=$((n + 1))
	done
	kill -TERM "$dp"
	wait "$dp"
	said=$(cat "$dir.err" 2>/dev/null | grep -c "written to '$dir'")
	[ "$n" -lt 100000 ] || echo "# $dir: the state '$*' was not seen; SIGTERM came later"
}
# complete NAME DIR: the experiment DIR is complete, and its report says
# nothing is missing
complete() {
	"$DSPROF" report -i "$2" --by module -f csv >"$2.csv" 2>"$2.rep"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -e "$2/recording.json" ] || [ ! -e "$2/meta.json" ] || [ ! -e "$2/perf.data" ]; then
		not_ok "$1: status $rc, in the experiment: $(ls "$2" | tr '\n' ' ')"
	elif grep -q '^\[kernel\.kallsyms\]' "$2.csv" && [ ! -e "$2/kallsyms" ]; then
		not_ok "$1: kernel samples, but no kallsyms"
	elif grep -q "not finished\|is missing\|kernel samples are shown as" "$2.rep"; then
		not_ok "$1: the report says: $(cat "$2.rep")"
	else
		ok "$1"
	fi
}
for round in 1 2 3; do
	term_when "mark$round" "test -e mark$round/recording.json"
	check_eq "SIGTERM once the directory is made ($round): record says it wrote the experiment" "$said" 1
	complete "SIGTERM once the directory is made ($round): the experiment is complete" "mark$round"
	term_when "fork$round" 'has_child $dp'
	check_eq "SIGTERM before the command runs ($round): record says it wrote the experiment" "$said" 1
	complete "SIGTERM before the command runs ($round): the experiment is complete" "fork$round"
	term_when "ran$round" "grep -q 'to stderr' ran$round.err"
	check_eq "SIGTERM while the command runs ($round): record says it wrote the experiment" "$said" 1
	complete "SIGTERM while the command runs ($round): the experiment is complete" "ran$round"
	term_when "end$round" "test -e end$round/meta.json"
	check_eq "SIGTERM after the command ended ($round): record says it wrote the experiment" "$said" 1
	complete "SIGTERM after the command ended ($round): the experiment is complete" "end$round"
	# at once: before it has made anything, dsprof may die of it; then it
	# said nothing and left nothing
	term_when "now$round" true
	if [ "$said" = 1 ]; then
		complete "SIGTERM at once ($round): the experiment it says it wrote is complete" "now$round"
	else
		check "SIGTERM at once ($round): it said nothing, and left nothing" test ! -e "now$round"
	fi
done
