# runs alone: it records as user nobody, whose locked memory all of its
# recordings share.
# An unprivileged user records too: kernel samples are left out when
# perf_event_paranoid asks for it, smaller ring buffers when the locked
# memory limit does, with a note instead of a failure.
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "unprivileged recording: these checks switch to user nobody and need root to do it"
	exit 0
fi
# a directory of nobody's own: the test's work area is private to root
OUT=$(mktemp -d /tmp/dsprof-nobody.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
chown 65534:65534 "$OUT"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

as_nobody "$DSPROF" record -o "$OUT/exp" -- "$PROGS/behave" spin 0.3 >/dev/null 2>err.txt
rc=$?
if [ "$paranoid" -ge 3 ]; then
	check_eq "paranoid 3: refused with status 2" "$rc" 2
	check_contains "paranoid 3: says what to do" err.txt 'perf_event_paranoid'
	exit 0
fi
[ "$rc" = 0 ] || sed 's/^/# /' err.txt
check_eq "user nobody records" "$rc" 0
if [ "$paranoid" -ge 2 ]; then
	check_contains "paranoid $paranoid: note that the kernel is left out" err.txt \
		"^dsprof: note: kernel.perf_event_paranoid forbids kernel samples here"
fi
as_nobody "$DSPROF" report -i "$OUT/exp" -f csv >f.csv 2>/dev/null
n=$(csv_lookup f.csv name spin_work samples:cpu-clock)
check_ge "user nobody: samples attributed" "${n:-0}" 50
# the count depends on the CPU the machine gives; the share does not
check_ge "user nobody: spin_work has most of them (percent)" \
	"$(csv_col f.csv samples:cpu-clock | awk -v n="${n:-0}" '{ t += $1 } END { print t ? int(100 * n / t) : 0 }')" 80

# the locked-memory limit shrinks the ring buffers; they must still keep up
as_nobody "$DSPROF" record -q -o "$OUT/fast" -c 50000 -- "$PROGS/threads" "$PROGS/behave" >/dev/null 2>&1
check_eq "user nobody at 20 kHz: nothing lost" "$("$TOOLS/dsjq" .lost "$OUT/fast/meta.json")" 0
# four threads burn a fixed CPU time (about 3,600 samples each); behave
# spins 0.3 s of wall time, which a busy machine gives less CPU (all of it
# 18,146 and 19,474 in two runs beside a fuzzer, 14,655 once in a whole
# test run beside one)
check_ge "user nobody at 20 kHz: samples" "$("$TOOLS/dsjq" .samples "$OUT/fast/meta.json")" 12000

# the limit leaves no room for 8 KiB stack copies of a burst of page
# faults: dsprof shortens its default copies rather than lose samples,
# and says so in one note
as_nobody "$DSPROF" record -o "$OUT/pf" -e page-faults -c 1 -- "$PROGS/pagefault_nofp" 2048 >/dev/null 2>pf.err
check_eq "user nobody, page faults with stack copies: recording succeeds" "$?" 0
check_eq "user nobody, page faults with stack copies: nothing lost" \
	"$("$TOOLS/dsjq" .lost "$OUT/pf/meta.json")/$("$TOOLS/dsjq" .lost_samples "$OUT/pf/meta.json")" 0/0
check_ge "user nobody, page faults with stack copies: samples" "$("$TOOLS/dsjq" .samples "$OUT/pf/meta.json")" 2048
if [ "$(as_nobody sh -c 'ulimit -l')" = unlimited ]; then
	skip "user nobody: the note of smaller rings: user nobody's locked memory is unlimited here"
else
	check_contains "user nobody: one note says the rings and copies the limit left" pf.err \
		'^dsprof: note: ring buffers of [0-9]+ KiB per CPU, not [0-9]+ KiB, and stack copies of [0-9]+ bytes, not 8192, by the locked-memory limit'
	check_contains "user nobody: the summary names the copies used" pf.err \
		'unwound from [0-9]+-byte stack copies'
fi
