# perf.data interoperability: perf reads our files without a warning and
# counts every symbol as we do; our import of perf's files counts as perf.
. "$TOP/tests/lib.sh"

if ! command -v perf >/dev/null; then
	not_ok "perf is not installed (make deps installs linux-perf)"
	exit 0
fi

# "name count" lines, one per name (perf may list one symbol twice, as it
# did for ld.so's _start in a pipe-mode file recorded under load), sorted
by_name() {
	awk '{ n[$1] += $2 } END { for (s in n) print s, n[s] }' | sort
}
# perf report's per-symbol sample counts
perf_counts() { # perf.data
	perf report -i "$1" --stdio --no-children -n --sort sym -t '|' 2>"$1.perf-err" |
		awk -F'|' '!/^#/ && NF >= 3 {
			gsub(/^ +| +$/, "", $2); s = $3; sub(/^ *\[[.kgu]\] /, "", s); sub(/ +$/, "", s);
			if (s !~ /^0x[0-9a-f]+$/) print s, $2 }' | by_name
}
# ours, from the CSV of the functions view, for one event
our_counts() { # experiment event
	"$DSPROF" report -i "$1" --format csv |
		awk -F, -v ev="samples:$2" 'NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); if ($i == ev) k = i } next }
			{ v = $k; sub(/\r$/, "", v); if (v > 0 && $1 != "[unknown]") print $1, v }' | by_name
}
# perf's count for each of its named symbols must be ours exactly
compare() { # label perf-list our-list
	missing=$(join -a1 -e MISSING -o 0,1.2,2.2 "$2" "$3" | awk '$2 != $3' | head -5)
	if [ -z "$missing" ]; then
		ok "$1: $(wc -l <"$2") symbols, same counts"
	else
		not_ok "$1: symbol perf ours: $missing"
	fi
}

"$DSPROF" record -q -o exp -- "$PROGS/selftime" 1 >/dev/null
perf report -i exp/perf.data --stdio >/dev/null 2>report.err
check_eq "perf report reads our perf.data" "$?" 0
check_eq "perf report prints no warning" "$(cat report.err)" ""
perf script -i exp/perf.data >script.out 2>script.err
check_eq "perf script reads our perf.data" "$?" 0
check_eq "perf script prints no warning" "$(cat script.err)" ""
check_eq "perf script sees every sample" "$(grep -c ' cpu-clock: ' script.out)" \
	"$("$TOOLS/dsjq" .samples exp/meta.json)"
perf_counts exp/perf.data >perf.txt
our_counts exp cpu-clock >ours.txt
check_ge "perf names symbols in our file" "$(wc -l <perf.txt)" 5
compare "per-symbol counts (our recording)" perf.txt ours.txt

# two events, as perf sees them
"$DSPROF" record -q -o two -e cpu-clock -e page-faults -- "$PROGS/pagefault" 256 >/dev/null
perf script -i two/perf.data -F event >ev.txt 2>ev.err
check_eq "perf script: two events, no warning" "$(cat ev.err)" ""
"$DSPROF" report -i two -v summary --format csv >sum.csv
check_eq "page-fault samples: perf and dsprof agree" "$(grep -c page-faults ev.txt)" \
	"$(csv_lookup sum.csv name page-faults samples:page-faults)"
check_eq "cpu-clock samples: perf and dsprof agree" "$(grep -c cpu-clock ev.txt)" \
	"$(csv_lookup sum.csv name cpu-clock samples:cpu-clock)"

# import: a perf record file counts the same in dsprof as in perf
perf record -q -e cpu-clock -c 250000 -g -o p.data "$PROGS/selftime" 1 >/dev/null 2>&1
"$DSPROF" import p.data -o imp 2>import.err
check_eq "import of perf record's file" "$?" 0
check_eq "import: meta.json backend" "$("$TOOLS/dsjq" .backend imp/meta.json)" import
perf_counts p.data >perf2.txt
our_counts imp cpu-clock >ours2.txt
check_ge "perf names symbols in its file" "$(wc -l <perf2.txt)" 5
compare "per-symbol counts (perf's recording)" perf2.txt ours2.txt

# import keeps every sample field: perf mem-style fields survive the copy
perf record -q -e page-faults -c 1 -d --phys-data -o mem.data "$PROGS/pagefault" 128 >/dev/null 2>&1
"$DSPROF" import mem.data -o memexp 2>/dev/null
check "import: the copy is byte-identical" cmp -s mem.data memexp/perf.data
"$DSPROF" report -i memexp -v samples --format csv >mem.csv
check_ge "import: data addresses kept" "$(csv_col mem.csv addr | grep -c '^0x')" 128

# pipe-mode perf.data (perf record -o -)
perf record -q -e cpu-clock -c 250000 -o - "$PROGS/selftime" 0.5 2>/dev/null >pipe.data
"$DSPROF" import pipe.data -o pipeexp 2>/dev/null
check_eq "import of a pipe-mode perf.data" "$?" 0
perf report -i pipe.data --stdio --no-children -n --sort sym -t '|' 2>/dev/null |
	awk -F'|' '!/^#/ && NF >= 3 { s = $3; sub(/^ *\[[.kgu]\] /, "", s); sub(/ +$/, "", s); gsub(/ /, "", $2);
		if (s !~ /^0x/) print s, $2 }' | by_name >perf3.txt
our_counts pipeexp cpu-clock >ours3.txt
compare "per-symbol counts (pipe mode)" perf3.txt ours3.txt

# Call chains as perf reads them.  leafcall spends its time in walk and in
# libc's memchr (called from scan), which set up no frame: the
# frame-pointer walk from inside them skips their caller, which the
# recording puts back.  perf must read the chains as it reads its own:
# no stack unwound a second time on top of them (which shows as a frame
# 0xffffffffffffffff and the leaf twice), and the callers there.
# samples, samples with a 0xffffffffffffffff frame, samples whose chain
# repeats its leaf, samples in walk, those called from main, samples in
# memchr, those called from scan: from perf script -F ip,sym
chain_stats() { # script output
	# n starts at 0, not "": a first sample's frames go to a[0], a[1]...
	# (with a[""] its leaf, a later frame 0 compared equal to the unset a[0])
	awk 'BEGIN { n = 0 }
	/^\t/ { a[n] = $1; s[n++] = $2; next }
	n { total++; bad = dup = 0
	    for (i = 0; i < n; i++) { if (a[i] == "ffffffffffffffff") bad = 1; if (i && a[i] == a[0]) dup = 1 }
	    ff += bad; dups += dup
	    if (s[0] == "walk") { walk++; if (n > 1 && s[1] == "main") walk_main++ }
	    if (s[0] ~ /^__memchr/) { mc++; if (n > 1 && s[1] == "scan") mc_scan++ }
	    n = 0 }
	END { print total + 0, ff + 0, dups + 0, walk + 0, walk_main + 0, mc + 0, mc_scan + 0 }' "$1"
}
"$DSPROF" record -q -o chains -- "$PROGS/leafcall" 1 >/dev/null
perf script -i chains/perf.data -F ip,sym >chains.txt 2>chains.err
check_eq "perf script reads the call chains without a warning" "$(cat chains.err)" ""
read -r total ff dups walk walk_main mc mc_scan <<EOS
$(chain_stats chains.txt)
EOS
check_ge "perf script: samples with call chains" "$total" 100
check_eq "perf sees no 0xffffffffffffffff frame (samples with one)" "$ff" 0
check_eq "perf sees no chain repeat its leaf (samples that do)" "$dups" 0
check_ge "perf: samples in walk" "$walk" 20
check_ge "perf: walk (no frame) is called from main, % of its samples" \
	"$((walk_main * 100 / (walk ? walk : 1)))" 95
check_ge "perf: samples in memchr" "$mc" 20
check_ge "perf: memchr (no frame) is called from scan, % of its samples" \
	"$((mc_scan * 100 / (mc ? mc : 1)))" 95
# perf report's caller graph: walk's callers, no frame perf made up
# (paths under 5% of walk's samples are left out: a sample may fall where
# even the stack copy cannot tell the caller)
perf report -i chains/perf.data -G -g graph,5 --stdio --no-children --sort sym >graph.txt 2>graph.err
check_eq "perf report -G: no warning" "$(cat graph.err)" ""
check_eq "perf report -G: no 0xffffffffffffffff frame" "$(grep -c ffffffffffffffff graph.txt)" 0
check_eq "perf report -G: walk's chain is main, walk" \
	"$(awk '/\[\.\] walk *$/ { on = 1; next } on && /^ *$/ { exit } on && !/^ *\| *$/ { $1 = $1; printf "%s ", $0 }' graph.txt)" \
	"---main walk "
# the reference: perf's own recording of the same program reads the same way
perf record -q -g -e cpu-clock -o own.data "$PROGS/leafcall" 1 >/dev/null 2>&1
perf script -i own.data -F ip,sym >own.txt 2>/dev/null
read -r ototal off odups _ <<EOS
$(chain_stats own.txt)
EOS
check_ge "perf's own -g recording: samples" "$ototal" 100
check_eq "perf's own -g recording: no 0xffffffffffffffff frame either" "$off" 0
check_eq "perf's own -g recording: no repeated leaf either" "$odups" 0

# Build-ids: perf lists every sampled object with the build-id its file has
perf buildid-list -i chains/perf.data >bids.txt 2>bids.err
check_eq "perf buildid-list reads our perf.data without a warning" "$(cat bids.err)" ""
check_eq "perf buildid-list: objects listed without a build-id" "$(awk 'NF < 2' bids.txt | wc -l)" 0
check_contains "perf buildid-list lists libc" bids.txt ' /.*/libc\.so\.6$'
libc=$(awk '$2 ~ /\/libc\.so\.6$/ { print $2; exit }' bids.txt)
for obj in "$PROGS/leafcall" "${libc:-libc.so.6}"; do
	want=$(readelf -n "$obj" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
	check_eq "perf buildid-list: build-id of ${obj##*/}" \
		"$(awk -v f="$obj" '$2 == f { print $1 }' bids.txt)" "${want:-(none)}"
done
mismatch=$(while read -r id file; do
	case "$file" in /*) ;; *) continue ;; esac
	have=$(readelf -n "$file" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
	[ "$have" = "$id" ] || echo "$file"
done <bids.txt)
check_eq "perf buildid-list: every file listed has that build-id here" "$mismatch" ""

# a large recording (64 MiB of records and more: perf's stack copies) has
# the kernel's symbols read on a second thread while its samples are read:
# its kernel frames are named by them as a small one's are.  dd's reads
# and writes are the kernel's work, under dd's user frames
perf record -q -e cpu-clock -c 100000 --call-graph dwarf,8192 -o big.data \
	dd if=/dev/zero of=/dev/null bs=512 count=3000000 >/dev/null 2>&1
check "a large recording: at least 64 MiB" test "$(stat -c %s big.data)" -ge $((64 << 20))
"$DSPROF" report -i big.data --format folded >big.folded 2>big.err
check_eq "a large recording: reported" "$?" 0
check "a large recording: its kernel frames have the kernel's names" \
	grep -Eq ';(ksys_read|vfs_read|__x64_sys_read|read_zero|ksys_write|vfs_write)(;| )' big.folded
check "a large recording: no note that kernel symbols are missing" sh -c '! grep -q "shown as \[kernel\]" big.err'
