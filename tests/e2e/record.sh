# dsprof record: the target runs untouched, and every way it can end leaves
# a complete, readable experiment.
. "$TOP/tests/lib.sh"

# exit status, stdout and stderr pass through
"$DSPROF" record -q -o exp -- "$PROGS/behave" exit 42 >out.txt 2>err.txt
check_eq "target's exit status is dsprof's" "$?" 42
check_eq "target's stdout untouched" "$(cat out.txt)" "to stdout"
check_eq "target's stderr untouched (-q)" "$(cat err.txt)" "to stderr"
check "perf.data written" test -s exp/perf.data
check "meta.json parses" "$TOOLS/dsjq" -c exp/meta.json
check_eq "meta.json backend" "$("$TOOLS/dsjq" .backend exp/meta.json)" perf_event
check_eq "meta.json exit status" "$("$TOOLS/dsjq" .exit_status exp/meta.json)" 42
check_eq "meta.json default event" "$("$TOOLS/dsjq" '.events[0].name' exp/meta.json)" cpu-clock
check_eq "meta.json default period (4 kHz)" "$("$TOOLS/dsjq" '.events[0].period' exp/meta.json)" 250000
check_eq "meta.json callchains on by default" "$("$TOOLS/dsjq" .callchains exp/meta.json)" true
check_ge "meta.json knows the L1D line size" "$("$TOOLS/dsjq" '.caches[0].line' exp/meta.json)" 16
check_ge "samples recorded (0.2 s of CPU at 4 kHz)" "$("$TOOLS/dsjq" .samples exp/meta.json)" 200

# a second recording moves the first aside; without -q a summary line
"$DSPROF" record -o exp -- "$PROGS/behave" exit 0 >/dev/null 2>err2.txt
check "previous experiment kept as exp.old" test -s exp.old/perf.data
check_contains "summary line on stderr" err2.txt '^\[ dsprof record: [0-9]+ samples, .* written to .exp. \]$'

# the target crashes: its status, and a complete experiment
"$DSPROF" record -q -o crash -- "$PROGS/behave" crash >/dev/null 2>&1
check_eq "crashed target: status 128+SIGSEGV" "$?" 139
"$DSPROF" report -i crash --format csv >crash.csv 2>crash.err
check_eq "crashed target: experiment readable" "$?" 0
check_ge "crashed target: spin_work sampled" "$(csv_lookup crash.csv name spin_work samples:cpu-clock)" 100
check_eq "crashed target: exit status in meta.json" "$("$TOOLS/dsjq" .exit_status crash/meta.json)" 139

# Ctrl-C: the whole foreground group gets SIGINT.  A background job of a
# script starts with SIGINT ignored; env gives it back its default, as a
# terminal's foreground job has it.
setsid env --default-signal=INT "$DSPROF" record -q -o int -- "$PROGS/behave" spin 30 >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT "-$pid"
wait "$pid"
check_eq "Ctrl-C: status 128+SIGINT" "$?" 130
"$DSPROF" report -i int --format csv >int.csv 2>int.err
check_eq "Ctrl-C: experiment readable" "$?" 0
check_within "Ctrl-C: samples up to the interrupt (1.5 s after the start)" "$(sample_span int spin_work)" 1.4 0.4

# a target that ignores Ctrl-C is ended with SIGTERM after a grace period
setsid env --default-signal=INT "$DSPROF" record -q -o stub -- "$PROGS/behave" stubborn 30 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "-$pid"
wait "$pid"
check_eq "Ctrl-C ignored: target ended by SIGTERM" "$?" 143
"$DSPROF" report -i stub -v summary >stub.txt 2>&1
check_eq "Ctrl-C ignored: experiment readable" "$?" 0

# --duration with a command: recording stops, the command runs to its end
start=$(date +%s.%N)
"$DSPROF" record -q -o dur -d 0.5 -- "$PROGS/behave" spin 1.5 >/dev/null 2>&1
check_eq "--duration: command's status" "$?" 0
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
check_ge "--duration: command ran to its end (>= 1.4 s)" "$(awk -v e="$elapsed" 'BEGIN { print (e >= 1.4) ? 1 : 0 }')" 1
check_within "--duration: 0.5 s of samples" "$(sample_span dur spin_work)" 0.45 0.2

# attach with -p until --duration
"$PROGS/behave" spin 4 >/dev/null &
bp=$!
sleep 0.3
"$DSPROF" record -q -o att -p "$bp" -d 1
check_eq "attach: status 0" "$?" 0
"$DSPROF" report -i att --format csv >att.csv 2>att.err
check_ge "attach: the process's function sampled" "$(csv_lookup att.csv name spin_work samples:cpu-clock)" 100
check_within "attach: sampled for the 1 s asked" "$(sample_span att spin_work)" 0.95 0.25
check_eq "attach: meta.json names the pid" "$("$TOOLS/dsjq" .attach_pid att/meta.json)" "$bp"
kill "$bp" 2>/dev/null
wait "$bp" 2>/dev/null

# --no-inherit: only the first thread
"$DSPROF" record -q -o noinh --no-inherit -- "$PROGS/threads" "$PROGS/behave" >/dev/null 2>&1
"$DSPROF" report -i noinh -v threads --format csv >noinh.csv 2>/dev/null
check_eq "--no-inherit: one thread sampled" "$(($(wc -l <noinh.csv) - 1))" 1

# a command that cannot run: one clear line, status 1, no experiment left
"$DSPROF" record -q -o nope -- /nonexistent/prog >out.txt 2>err.txt
check_eq "missing command: status 1" "$?" 1
check_eq "missing command: one line" "$(wc -l <err.txt)" 1
check_contains "missing command: says so" err.txt "^dsprof: cannot run '/nonexistent/prog'"
check "missing command: no experiment directory" test ! -e nope

# a recording that cannot start leaves the previous experiment where it was
before=$(cksum <exp/perf.data)
"$DSPROF" record -q -o exp -p 2147483646 >out.txt 2>err.txt
check_eq "attach to no process: status 1" "$?" 1
check_contains "attach to no process: says so" err.txt "^dsprof: cannot attach to process 2147483646: no such process"
check_eq "attach to no process: the previous experiment is intact" "$(cksum <exp/perf.data)" "$before"

# -e takes a comma-separated list, as perf's does; a bare number after a
# slash is that event's period
"$DSPROF" record -q -o list -e cpu-clock,page-faults/7 -- true
check_eq "-e a list: status" "$?" 0
check_eq "-e a list: both events, in order" \
	"$("$TOOLS/dsjq" '.events[0].name' list/meta.json) $("$TOOLS/dsjq" '.events[1].name' list/meta.json)" "cpu-clock page-faults"
check_eq "-e a list: the period after the slash" "$("$TOOLS/dsjq" '.events[1].period' list/meta.json)" 7
"$DSPROF" record -q -o list2 -e cpu-clock, -- true 2>list2.err
check_eq "-e with an empty name: status 1" "$?" 1
check_contains "-e with an empty name: says so" list2.err "empty event name in '-e cpu-clock,'"
