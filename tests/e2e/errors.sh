# Bad input and bad usage: one clear line on stderr, status 1 (input) or 2
# (environment), never a crash.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o good -- "$PROGS/behave" spin 0.1 >/dev/null
size=$(wc -c <good/perf.data)

expect_error "missing experiment" 1 "^dsprof: cannot open experiment 'nothere': No such file" \
	"$DSPROF" report -i nothere
mkdir empty
expect_error "directory without perf.data" 1 "^dsprof: cannot open experiment 'empty': it has no perf.data" \
	"$DSPROF" report -i empty

mkdir tiny
head -c 50 good/perf.data >tiny/perf.data
expect_error "perf.data cut inside its header" 1 "^dsprof: cannot read 'tiny/perf.data': truncated at byte 50" \
	"$DSPROF" report -i tiny

mkdir garbage
head -c 100000 /dev/urandom >garbage/perf.data
expect_error "random bytes" 1 "^dsprof: cannot read 'garbage/perf.data': not a perf.data file" \
	"$DSPROF" report -i garbage
expect_error "a foreign file (an ELF binary)" 1 "not a perf.data file" "$DSPROF" report -i "$PROGS/behave"
mkdir zero
: >zero/perf.data
expect_error "empty perf.data" 1 "the file is empty" "$DSPROF" report -i zero

mkdir badmeta
cp good/perf.data badmeta/
echo '{"format": "dsprof-experiment", "samples": ' >badmeta/meta.json
expect_error "corrupt meta.json" 1 "^dsprof: cannot parse 'badmeta/meta.json': .* at byte" \
	"$DSPROF" report -i badmeta

# values that cannot be: a note each, naming the field, and the report opens
mkdir oddmeta
cp good/perf.data oddmeta/
sed -e 's/"page_size": [0-9]*/"page_size": 3/' -e 's/"ncpus": [0-9]*/"ncpus": -5/' \
	-e '0,/"line": [0-9]*/s//"line": 48/' -e '0,/"ns": [0-9]*/s//"ns": 1e308/' good/meta.json >oddmeta/meta.json
"$DSPROF" report -i oddmeta >odd.txt 2>odd.err
check_eq "impossible meta.json values: the report opens" "$?" 0
check_contains "impossible meta.json values: page_size named" odd.err "^dsprof: note: meta.json: page_size 3 is not a power of two"
check_contains "impossible meta.json values: ncpus named" odd.err "^dsprof: note: meta.json: ncpus -5 is not a whole number"
check_contains "impossible meta.json values: the line named" odd.err "^dsprof: note: meta.json: caches\[0\]\.line 48 is not a power of two"
check_contains "impossible meta.json values: start.ns named" odd.err "^dsprof: note: meta.json: start\.ns 1e\+308 is not a whole number"
check_eq "impossible meta.json values: one line each" "$(grep -c "meta.json:" odd.err)" 4
check_contains "impossible meta.json values: the functions are there" odd.txt "spin_work"

# corrupting every byte position of a small file one at a time never crashes
"$DSPROF" record -q -o small --call-graph=none -- "$PROGS/behave" spin 0.01 >/dev/null
n=$(wc -c <small/perf.data)
crashes=0
i=0
while [ "$i" -lt "$n" ] && [ "$i" -lt 3000 ]; do
	mkdir -p flip
	cp small/perf.data flip/perf.data
	printf '\377' | dd of=flip/perf.data bs=1 seek="$i" conv=notrunc 2>/dev/null
	"$DSPROF" report -i flip -v summary >/dev/null 2>&1
	rc=$?
	[ "$rc" -le 2 ] || { crashes=$((crashes + 1)); echo "# crash (status $rc) with byte $i flipped"; }
	i=$((i + 7))
done
check_eq "flipped bytes: no crash" "$crashes" 0

# usage errors
expect_error "unknown command" 1 "^dsprof: unknown command 'frobnicate'" "$DSPROF" frobnicate
expect_error "record without a command" 1 "^dsprof: no command to run" "$DSPROF" record
expect_error "unknown event" 1 "^dsprof: unknown event 'no-such-event'.*dsprof list" \
	"$DSPROF" record -e no-such-event -- true
expect_error "bad period" 1 "^dsprof: " "$DSPROF" record -e cpu-clock/0 -- true
expect_error "unknown view" 1 "^dsprof: unknown view 'nope'" "$DSPROF" report -i good -v nope
expect_error "unknown format" 1 "^dsprof: unknown format 'xml'" "$DSPROF" report -i good -f xml
expect_error "unknown sort key" 1 "^dsprof: unknown sort key 'bogus'" "$DSPROF" report -i good -s bogus
expect_error "import of a non-perf file" 1 "not a perf.data file" "$DSPROF" import "$PROGS/behave" -o imp
check "a failed import leaves no experiment" test ! -e imp

# a hardware event on a machine without a PMU fails before the target starts
if "$DSPROF" list | grep -q "no hardware PMU"; then
	expect_error "hardware event without a PMU" 2 "^dsprof: event 'cycles' needs a hardware PMU.*cpu-clock.*page-faults.*--sim" \
		"$DSPROF" record -e cycles -o hw -- "$PROGS/behave" exit 0
	check_eq "the target did not run" "$(cat out.txt)" ""
	expect_error "libpfm4 event without a PMU" 2 "needs a hardware PMU" \
		env LIBPFM_FORCE_PMU=skl "$DSPROF" record -e MEM_LOAD_RETIRED:L1_MISS -o hw -- true
else
	"$DSPROF" record -q -e cycles -o hw -- "$PROGS/behave" spin 0.1 >/dev/null
	check_eq "hardware event on a machine with a PMU" "$?" 0
fi

# an Arm SPE event by name: its AUX area is perf's to record, ours to
# import; said before the target starts, on every machine
expect_error "-e arm_spe_0//: what to use instead" 2 \
	"^dsprof: event 'arm_spe_0//' is Arm SPE, .*'perf record -e arm_spe_0// -- COMMAND'.*'dsprof import perf.data'" \
	"$DSPROF" record -e arm_spe_0// -o spex -- "$PROGS/behave" exit 0
check_eq "-e arm_spe_0//: the target did not run" "$(cat out.txt)" ""

# --mem on a machine without PEBS, IBS or SPE (every machine here): one
# line that names what to use instead, before the target starts
if ! ls /sys/bus/event_source/devices/*/events/mem-loads /sys/bus/event_source/devices/ibs_op \
	/sys/bus/event_source/devices/arm_spe* >/dev/null 2>&1; then
	expect_error "--mem without precise memory sampling" 2 \
		"^dsprof: --mem needs precise memory sampling \(Intel PEBS mem-loads, AMD IBS op or Arm SPE\) and this machine has none in /sys/bus/event_source/devices; use --sim --mem .*-e cpu-clock$" \
		"$DSPROF" record --mem -o memx -- "$PROGS/behave" exit 0
	check_eq "--mem: the target did not run" "$(cat out.txt)" ""
	check "--mem: no experiment left" test ! -e memx
else
	"$DSPROF" record -q --mem -o memx -- "$PROGS/behave" spin 0.1 >/dev/null
	check_eq "--mem on a machine with precise memory sampling" "$?" 0
fi
expect_error "--ldlat without --mem" 1 "^dsprof: --ldlat, --loads and --stores go with --mem" \
	"$DSPROF" record --ldlat 50 -o memx -- true
expect_error "--mem with -e" 1 "^dsprof: --mem picks its own events: give --mem or -e, not both" \
	"$DSPROF" record --mem -e cpu-clock -o memx -- true

# messages that once misled, each in one line with its status
expect_error "a simulated event without --sim" 1 \
	"^dsprof: 'sim:L1D_MISS' is a simulated event: it needs --sim \(dsprof record --sim -e sim:L1D_MISS -- COMMAND\)$" \
	"$DSPROF" record -e sim:L1D_MISS -o simev -- true
check "... before the target ran" test ! -e simev
expect_error "an expression that starts with '-': the hint to put -- before it" 1 \
	"^dsprof: unknown option '-V'; an expression that starts with '-' goes after '--': dsprof mobj define NAME -- '-EXPR'" \
	env DSPROF_MOBJ="$T/mobj" "$DSPROF" mobj define t1 '-VADDR'
expect_error "an unknown long option, in one line" 1 "^dsprof: unknown option '--frob' \(see 'dsprof record --help'\)$" \
	"$DSPROF" record --frob -- true
expect_error "an option without its value, in one line" 1 "^dsprof: option '--view' needs a value \(see 'dsprof report --help'\)$" \
	"$DSPROF" report -i good --view
expect_error "diff of a missing experiment: no -i to suggest" 1 "^dsprof: cannot open experiment 'missing.data': No such file or directory$" \
	"$DSPROF" diff good missing.data
mkdir nodata
expect_error "report with no experiment here: how to make or name one" 1 \
	"^dsprof: no experiment here \(no dsprof.data\): record one with 'dsprof record -- COMMAND', or name one with 'dsprof report -i DIR'$" \
	sh -c "cd nodata && exec '$DSPROF' report"
"$DSPROF" list >list.txt 2>&1
check "list: 'no hardware PMU' said once" sh -c "! grep -q 'no hardware PMU.*no hardware PMU' list.txt"
tid=$("$DSPROF" report -i good --view threads -f csv 2>/dev/null | awk -F, 'NR == 2 { print $3 }')
expect_error "--tid of a thread not recorded: named, with the threads there are" 1 \
	"^dsprof: no thread 999999 was recorded in 'good'; its threads: $tid \(behave\)$" \
	"$DSPROF" report -i good --tid 999999
"$DSPROF" record -q -o killed -- "$PROGS/behave" crash >/dev/null 2>&1
check_eq "a target killed by a signal: record's status is 128+signal" "$?" 139
"$DSPROF" report -i killed --view summary >killed.txt 2>&1
check_contains "summary: the status and the signal named" killed.txt '^killed_by +SIGSEGV$'
"$DSPROF" report -i good --view summary >good.txt 2>&1
check "summary: no signal for a target that exited" sh -c "! grep -q killed_by good.txt"
