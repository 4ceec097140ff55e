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
check_ge "user nobody: samples attributed" "$(csv_lookup f.csv name spin_work samples:cpu-clock)" 800

# the locked-memory limit shrinks the ring buffers; they must still keep up
as_nobody "$DSPROF" record -q -o "$OUT/fast" -c 50000 -- "$PROGS/threads" "$PROGS/behave" >/dev/null 2>&1
check_eq "user nobody at 20 kHz: nothing lost" "$("$TOOLS/dsjq" .lost "$OUT/fast/meta.json")" 0
check_ge "user nobody at 20 kHz: samples" "$("$TOOLS/dsjq" .samples "$OUT/fast/meta.json")" 15000
