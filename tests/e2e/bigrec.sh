# Recordings larger than memory: dsprof record holds no more memory for a
# recording four times as long (it streams the kernel's records to disk,
# and the rewrite that completes the call chains lets the pages it has read
# go), and a reader or a ring buffer refused the address space says
# which limit refused it and what to do.
. "$TOP/tests/lib.sh"

if ldd "$DSPROF" | grep -q libasan; then
	skip "recorder memory: a sanitizer build's shadow and quarantine are no measure of it, and it cannot run under ulimit -v (the plain build measures it)"
	exit 0
fi
N=50000
for n in $N $((4 * N)); do
	"$TOOLS/maxrss" "$DSPROF" record -q -o r$n -e page-faults -c 1 -- "$PROGS/pagefault" refault $n \
		>r$n.out 2>r$n.err
	check_eq "recorded $n faults" "$?" 0
	check_ge "most of the $n faults are samples" "$("$TOOLS/dsjq" .samples r$n/meta.json)" $((n / 2))
done
small=$(sed -n 's/^maxrss //p' r$N.err) big=$(sed -n 's/^maxrss //p' r$((4 * N)).err)
grew=$(( ($(wc -c <r$((4 * N))/perf.data) - $(wc -c <r$N/perf.data)) / 1024 ))
# (with every page of the recording resident, the growth was twice this)
check_ge "the longer recording is larger by 24 MiB (KiB)" "$grew" 24576
check "the recorder's peak grows by less than 8 MiB for $grew KiB more recording ($small KiB, $big KiB)" \
	test -n "$small" -a -n "$big" -a $((${big:-0} - ${small:-0})) -lt 8192

# report under an address-space limit below the recording's size
size=$(( $(wc -c <r$((4 * N))/perf.data) / 1024 ))
expect_error "a mapping refused by ulimit -v names the limit" 2 \
	"^dsprof: cannot map 'r$((4 * N))/perf.data' \([0-9]+ MiB\): the address-space limit \(ulimit -v\) is [0-9]+ MiB; raise it" \
	sh -c "ulimit -v $((size - 4096)) && exec \"\$0\" report -i r$((4 * N))" "$DSPROF"
"$DSPROF" report -i r$N -f csv >small.csv 2>small.err
check_ge "the smaller recording reads (refault's samples)" "$(csv_lookup small.csv name touch_pages samples:page-faults)" $((N / 2))

# rings refused the address space: the limit is named, not the locked-memory one
expect_error "a ring buffer refused by ulimit -v names the limit" 2 \
	"^dsprof: cannot map a [0-9]+ KiB ring buffer: the address-space limit \(ulimit -v\) is 1024 MiB; raise it" \
	sh -c "ulimit -v 1048576 && exec \"\$0\" record -q -m 262144 -o ringlimit -- touch started" "$DSPROF"
check "the command did not start" test ! -e started
