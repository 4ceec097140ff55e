# runs alone: it lowers kernel.perf_event_max_sample_rate for a moment.
# Ring buffers keep up at high rates; when data is lost anyway, or the
# kernel throttles sampling, it is counted and said, never hidden.
. "$TOP/tests/lib.sh"

# 20 kHz over three busy threads and two children: nothing lost
"$DSPROF" record -q -o fast -c 50000 -- "$PROGS/threads" "$PROGS/behave" >/dev/null 2>err.txt
check_eq "20 kHz: recording succeeds" "$?" 0
check_eq "20 kHz: no record lost" "$("$TOOLS/dsjq" .lost fast/meta.json)" 0
check_ge "20 kHz: samples from all threads" "$("$TOOLS/dsjq" .samples fast/meta.json)" 15000
check_eq "20 kHz: no warning" "$(cat err.txt)" ""

# page faults at default settings: a program without frame pointers gets
# an 8 KiB stack copy with each sample, and touching 2,048 fresh pages
# makes them in one burst (about 17 MB); the ring buffers are sized for
# the copies and every sample is kept, on a busy machine too
"$DSPROF" record -o pf -e page-faults -c 1 -- "$PROGS/pagefault_nofp" 2048 >pages.txt 2>pf.err
check_eq "page faults, 8 KiB stack copies: recording succeeds" "$?" 0
check_contains "page faults, 8 KiB stack copies: chosen by default" pf.err \
	'unwound from 8192-byte stack copies'
check_eq "page faults, 8 KiB stack copies: no record lost" "$("$TOOLS/dsjq" .lost pf/meta.json)" 0
check_eq "page faults, 8 KiB stack copies: no further sample lost" \
	"$("$TOOLS/dsjq" .lost_samples pf/meta.json)" 0
check_eq "page faults, 8 KiB stack copies: no warning or note" "$(grep '^dsprof:' pf.err)" ""
"$DSPROF" report -i pf -v samples --format csv >pf.csv
awk '{ print $2 }' pages.txt | sort -u >want.txt
csv_col pf.csv addr | awk 'length($0) > 5 { print substr($0, 1, length($0) - 3) "000" }' | sort -u >got.txt
check_eq "page faults, 8 KiB stack copies: the program touched 2048 pages" "$(wc -l <want.txt)" 2048
check_eq "page faults, 8 KiB stack copies: every page's fault is a sample" "$(comm -12 want.txt got.txt | wc -l)" 2048

# a ring of -m's that cannot hold one sample would lose them all: refused
expect_error "a ring smaller than one sample: refused before the command runs" 1 \
	'^dsprof: --mmap-pages 1 \([0-9]+ KiB\) cannot hold one sample of [0-9]+ bytes: .*--call-graph dwarf,SIZE' \
	"$DSPROF" record -q -o tiny -m 1 --call-graph dwarf -e page-faults -- "$PROGS/pagefault" 16
check "a ring smaller than one sample: no experiment left" test ! -e tiny

# a stopped recorder cannot drain its small buffers: records are lost (one
# recorder with frame-pointer chains, one with stack copies, side by side)
"$DSPROF" record -q -o lossy -m 1 -c 100000 -- "$PROGS/behave" spin 2 >/dev/null 2>lossy.err &
pid=$!
"$DSPROF" record -q -o lossydw -m 4 --call-graph dwarf -c 100000 -- "$PROGS/behave" spin 2 >/dev/null 2>lossydw.err &
piddw=$!
sleep 0.5
kill -STOP "$pid" "$piddw"
sleep 1
kill -CONT "$pid" "$piddw"
wait "$pid"
check_eq "stalled recorder: target still ends normally" "$?" 0
wait "$piddw"
check_eq "stalled recorder, stack copies: target still ends normally" "$?" 0
check_ge "stalled recorder, stack copies: lost records counted" "$("$TOOLS/dsjq" .lost lossydw/meta.json)" 1
check_contains "stalled recorder, stack copies: the warning names the ring, the copies and what to change" \
	lossydw.err 'lost \(ring buffer full: [0-9]+ KiB per CPU, 8192-byte stack copies\); use a larger --mmap-pages, a shorter copy \(--call-graph dwarf,SIZE\), --call-graph fp, or a longer period'
lost=$("$TOOLS/dsjq" .lost lossy/meta.json)
check_ge "stalled recorder: lost records counted in meta.json" "$lost" 1
check_contains "stalled recorder: warned at the end, even with -q" lossy.err '^dsprof: warning: [0-9]+ records \(samples or side-band\) and [0-9]+ further samples were lost'
"$DSPROF" report -i lossy -v summary >sum.txt 2>sum.err
check_contains "stalled recorder: summary shows them" sum.txt "^lost_records +$lost\$"
"$DSPROF" report -i lossy >/dev/null 2>rep.err
check_contains "stalled recorder: every report notes them" rep.err '^dsprof: note: [0-9]+ records \(samples or side-band\) and [0-9]+ further samples were lost'

# throttling: lower the kernel's sample-rate ceiling for a moment
rate=/proc/sys/kernel/perf_event_max_sample_rate
if [ -w "$rate" ]; then
	old=$(cat "$rate")
	trap 'echo "$old" >"$rate"' EXIT
	echo 1000 >"$rate"
	"$DSPROF" record -q -o thr -c 10000 -- "$PROGS/behave" spin 0.5 >/dev/null 2>thr.err
	echo "$old" >"$rate"
	check_ge "throttling counted in meta.json" "$("$TOOLS/dsjq" .throttled thr/meta.json)" 1
	check_contains "throttling warned" thr.err '^dsprof: warning: the kernel throttled sampling [0-9]+ times'
	"$DSPROF" report -i thr -v summary >thr.txt
	check_contains "throttling in the summary" thr.txt '^throttled +[1-9][0-9]*$'
else
	skip "throttling: $rate is not writable (not root)"
fi
