# record --heap: every sampled heap address named by the allocation that
# made its block.  Three arrays of doubles of known cost and a list of
# structs (tests/programs/heapobj.c) on cpu-clock: the sites rank and
# share as their loads do, with their blocks' sizes exact, and the list's
# fields carry their site.  Leaks of known blocks from two sites
# (tests/programs/heapleak.c) are reported exactly, across fork, exec,
# threads and a killed target; call stacks are cut at their depth from
# the allocation's caller, walked by frame pointers or unwound; buffers
# on threads' stacks are named by their frames, not taken for the heap;
# a static binary is recorded without heap data, said in one line; a
# damaged heap file is read as far as it is whole.
. "$TOP/tests/lib.sh"

src=$TOP/tests/programs/heapobj.c
line_of() { grep -n "$1" "$2" | head -1 | cut -d: -f1; }
FOUR="main (heapobj.c:$(line_of 'double \*four = malloc' "$src"))"
TWO="main (heapobj.c:$(line_of 'double \*two = malloc' "$src"))"
ONE="main (heapobj.c:$(line_of 'double \*one = malloc' "$src"))"
LIST="make_list (heapobj.c:$(line_of 'struct item \*x = malloc' "$src"))"
SRC=$TOP/tests/programs/heapleak.c
NAMES="keep_names (heapleak.c:$(line_of 'void \*p = malloc(100)' "$SRC"))"
PAGES="keep_pages (heapleak.c:$(line_of 'void \*p = malloc(5000)' "$SRC"))"

# ---- the arrays and the list, on cpu-clock ----
"$DSPROF" record -q -o ho --heap -- "$PROGS/heapobj" 1000000 100 >ho.out 2>ho.err
check_eq "record --heap runs the program" "$?" 0
check "one heap file, for the one process" test "$(ls ho/heap | grep -c '\.heap$')" -eq 1
"$DSPROF" report -i ho --view heap -f csv >heap.csv 2>heap.err
check_eq "--view heap" "$?" 0
v() { csv_lookup heap.csv name "$1" "$2"; }
check_eq "the first array's site: one block" "$(v "$FOUR" blocks)" 1
check_eq "the first array's site: its bytes" "$(v "$FOUR" bytes)" 8000000
check_eq "the list's site: a block per item" "$(v "$LIST" blocks)" 125000
check_eq "the list's site: 64 bytes each" "$(v "$LIST" bytes)" 8000000
check_eq "the list's site: all live at once" "$(v "$LIST" peak_bytes)" 8000000
check_eq "the list's site: freed before exit, no leak" "$(v "$LIST" leaked_bytes)" 0
check "the list's site: its stack goes up to main" \
	grep -q "^$LIST,.*make_list (heapobj.c:[0-9]*) < main (heapobj.c:[0-9]*)" heap.csv
# the tracker's own allocations (the C library's as it reads the main
# thread's stack bounds, the unwinder's caches) are not the program's
check_eq "no <no call stack> site: the tracker's own allocations are left out" \
	"$(grep -c '^<no call stack>' heap.csv)" 0
a=$(v "$FOUR" samples:cpu-clock) b=$(v "$TWO" samples:cpu-clock) c=$(v "$ONE" samples:cpu-clock)
arrays=$((${a:-0} + ${b:-0} + ${c:-0}))
check_ge "samples in the arrays' blocks" "$arrays" 300
check "the sites rank as their loads: 4 > 2 > 1 ($a $b $c)" test "${a:-0}" -gt "${b:-0}" -a "${b:-0}" -gt "${c:-0}"
share() { awk -v x="$1" -v n="$arrays" 'BEGIN { printf "%.1f", n ? 100 * x / n : 0 }'; }
check_within "the array summed 4 times a round: 4/7 of the arrays' samples" "$(share "$a")" 57.1 5
check_within "the array summed twice: 2/7" "$(share "$b")" 28.6 5
check_within "the array summed once: 1/7" "$(share "$c")" 14.3 5

# the list's fields keep their field and gain their site
"$DSPROF" report -i ho --by allocsite,field -f csv >af.csv
key=$(awk -F, -v s="$LIST" 'NR > 1 && $2 == s && $1 == "struct item.key" { print "yes"; exit }' af.csv)
check_eq "--by allocsite,field: struct item.key under the list's site" "$key" yes
check "--by allocsite,field: no array sample is a field of struct item" \
	test -z "$(awk -F, -v s="$FOUR" 'NR > 1 && $2 == s && $1 ~ /^struct item/' af.csv)"
# the arrays' doubles are scalars: their block is their data object
"$DSPROF" report -i ho --view dataobjects -f csv >do.csv
check_eq "dataobjects: the first array's block, kind heap" \
	"$(csv_lookup do.csv name "heap: 7.6 MB block of double from $FOUR" kind)" heap
check_eq "dataobjects and --view heap agree on the block's samples" \
	"$(csv_lookup do.csv name "heap: 7.6 MB block of double from $FOUR" samples:cpu-clock)" "$a"
# the filter names a site by its function alone
"$DSPROF" report -i ho --view heap --filter 'allocsite == "make_list"' -f csv >f.csv
check_eq "filter allocsite == \"make_list\": the list's samples" \
	"$(csv_lookup f.csv name "$LIST" samples:cpu-clock)" "$(v "$LIST" samples:cpu-clock)"
check_eq "filter: only that site" "$(($(wc -l <f.csv) - 1))" 1
# ASITE and BLOCKOFF: the first array's halves
id=$(v "$FOUR" asite)
"$DSPROF" report -i ho --mobj "half=ASITE == $id ? BLOCKOFF / 4000000 : -1" --view memobj:half -f csv >half.csv
h0=$(csv_lookup half.csv index 0 samples:cpu-clock) h1=$(csv_lookup half.csv index 1 samples:cpu-clock)
check_eq "mobj ASITE, BLOCKOFF: the block's two halves hold its samples" "$((${h0:-0} + ${h1:-0}))" "$a"
check "mobj BLOCKOFF: both halves are read" test "${h0:-0}" -gt 0 -a "${h1:-0}" -gt 0

# C++: new[] reaches malloc through libstdc++, whose frames are the
# allocator's: the site is the line with the new (4096 animals of 64 bytes)
"$DSPROF" record -q -o cx --heap -- "$PROGS/owners" unique 0.2 >/dev/null 2>cx.err
"$DSPROF" report -i cx --view heap -f csv >cx.csv
new_line=$(line_of 'new zoo::Animal\[n\]()), n};' "$TOP/tests/programs/owners.cc")
check_eq "C++ new[]: its site is the line of the new" "$(csv_lookup cx.csv name "main (owners.cc:$new_line)" bytes)" 262144
# libstdc++ allocates its exception pool as it loads: a stack of the
# runtime's and the loader's frames only, named by the frame that called
# malloc, the runtime's (stripped: by its object and address), not by the
# loader's entry at the stack's end
grep '< _dl_init' cx.csv | cut -d, -f1 >cx.load
check_eq "load time: the C++ runtime's own allocation is one site" "$(wc -l <cx.load)" 1
check_contains "load time: named by the runtime's frame" cx.load '^"?(\[unknown\] \()?[^ ]*(libstdc\+\+|pool)'
# the same with the C++ library linked in: operator new is the program's
# code, without debug information, and still the allocator's
"$DSPROF" record -q -o cxs --heap -- "$PROGS/owners_staticxx" unique 0.2 >/dev/null 2>cxs.err
"$DSPROF" report -i cxs --view heap -f csv >cxs.csv
check_eq "-static-libstdc++: new[]'s site is the line of the new" \
	"$(csv_lookup cxs.csv name "main (owners.cc:$new_line)" bytes)" 262144
check_eq "-static-libstdc++: no site is operator new" "$(grep -c '^operator new' cxs.csv)" 0
# std::vector, std::make_unique and std::make_shared allocate in code
# inlined from the library's headers: the site is the program's line that
# made the inlined call, not the header's (new_allocator.h:137)
"$DSPROF" record -q -o ix --heap -- "$PROGS/idioms" 1 >/dev/null 2>ix.err
"$DSPROF" report -i ix --view heap -f csv >ix.csv
isite() { echo "main (idioms.cc:$(line_of "$1" "$TOP/tests/programs/idioms.cc"))"; }
check_eq "inlined: std::vector<Animal>(4096)'s site and bytes" \
	"$(csv_lookup ix.csv name "$(isite 'std::vector<zoo::Animal> animals(4096);')" bytes)" 262144
check_eq "inlined: std::vector<Cage>(4096)" \
	"$(csv_lookup ix.csv name "$(isite 'std::vector<zoo::Cage> cages(4096);')" bytes)" 98304
check_eq "inlined: std::make_unique's 4096 blocks" \
	"$(csv_lookup ix.csv name "$(isite 'std::make_unique<zoo::Animal>()')" blocks)" 4096
check_eq "inlined: std::make_shared's 4096 blocks" \
	"$(csv_lookup ix.csv name "$(isite 'std::make_shared<zoo::Keeper>()')" blocks)" 4096
# std::vector<long>::_M_realloc_insert, which push_back calls, is the
# library's template built into the program: an allocator's frame
px=$(isite 'ids.push_back(i);')
check_eq "push_back: the growth's 13 blocks, at the push_back" \
	"$(csv_lookup ix.csv name "$px" blocks):$(csv_lookup ix.csv name "$px" bytes)" 13:65528
check "no site is the standard library's" sh -c '! grep -q "^\"*std::" ix.csv'
check "inlined: no site is named by a header's line" sh -c '! grep -q "^main ([a-z_]*\.h:" ix.csv'

# ---- the same under the simulator: every load a sample, exact ----
# (n = 20000 doubles an array, 2 rounds: the arrays' loads are 8n, 4n and
# 2n; the list's 2500 items are walked twice, key and next, and freed,
# next: 5 loads an item)
"$DSPROF" record -q -o hs --heap --sim -c 1 -e sim:loads -- "$PROGS/heapobj" 20000 2 >hs.out 2>hs.err
check_eq "--heap --sim: recorded" "$?" 0
"$DSPROF" report -i hs --view heap -f csv >hs.csv
w() { csv_lookup hs.csv name "$1" "${2:-samples:sim:loads}"; }
check_eq "--sim: the array summed 4 times a round, every load" "$(w "$FOUR")" 160000
check_eq "--sim: the array summed twice" "$(w "$TWO")" 80000
check_eq "--sim: the array summed once" "$(w "$ONE")" 40000
check_eq "--sim: the list's loads" "$(w "$LIST")" 12500
check_eq "--sim: the list's blocks" "$(w "$LIST" blocks)" 2500
# the dynamic loader's link maps and symbol versions, from its own
# allocator before malloc: <loader>, not <in no block> (left: the C
# library's reads of the main thread's control block, which the loader
# allocates)
ld=$(w '<loader>') nb=$(w '<in no block>')
check "--sim: the loader's own memory is <loader> (${ld:-0})" test "${ld:-0}" -gt 1000
check "--sim: little is left in no block (${nb:-0} of ${ld:-0})" test "$((${nb:-0} * 100))" -lt "${ld:-0}"
# without --heap the arrays' doubles are <scalars>, and a note says how to
# name them; with it, no such note
"$DSPROF" record -q -o hn --sim -c 1 -e sim:loads -- "$PROGS/heapobj" 10000 1 >/dev/null 2>hn.err
"$DSPROF" report -i hn --view dataobjects >hn.txt 2>&1
check_contains "no --heap: a note says how to name the <scalars>" hn.txt \
	'^# note: [0-9]+% of the sim:loads samples are <scalars>.*record with --heap'
"$DSPROF" report -i hs --view dataobjects >hsn.txt 2>&1
check "with --heap: no such note" sh -c '! grep -q "record with --heap to name" hsn.txt'
# the global array, read through the same double *: the global, not <scalars>
"$DSPROF" report -i hs --view dataobjects -f csv >hsdo.csv
check_eq "--sim: the global array's loads, by its address" \
	"$(csv_lookup hsdo.csv name "glob (double [65536])" samples:sim:loads)" 131072
check_eq "--sim: lifetimes in the simulator's clock" \
	"$("$DSPROF" report -i hs --view heap -f json | "$TOOLS/dsjq" .properties.lifetime_unit)" instructions
"$DSPROF" report -i hs --by allocsite,field -f csv >hsf.csv
check_eq "--sim: struct item.next under the list's site" \
	"$(awk -F, -v s="$LIST" 'NR > 1 && $2 == s && $1 == "struct item.next" { print $(NF-1) }' hsf.csv)" 7500
# the access map: the list's 64-byte items, word by word, exact
"$DSPROF" report -i hs --view accessmap --allocsite make_list -f csv >am.csv
check_eq "--sim accessmap: one site" "$(awk -F, '$3 == "site"' am.csv | wc -l)" 1
check_eq "--sim accessmap: bytes 0-7 are next, every load of it" \
	"$(awk -F, '$3 == "bytes" && $4 == 0 { print $6 "=" $(NF-1) }' am.csv)" "struct item.next=7500"
check_eq "--sim accessmap: bytes 8-15 are key" \
	"$(awk -F, '$3 == "bytes" && $4 == 8 { print $6 "=" $(NF-1) }' am.csv)" "struct item.key=5000"
check_eq "--sim accessmap: the 48 bytes after them never read" \
	"$(awk -F, '$3 == "unsampled" { print $4 "+" $5 }' am.csv)" "16+48"
# a site of larger blocks, asked for by name: the 160000-byte array in 79
# rows of 2 KiB (the last 256 bytes), each read 4 times a round
"$DSPROF" report -i hs --view accessmap --allocsite "$FOUR" -f csv >amf.csv
check_eq "--sim accessmap of a large block: 79 rows of 2 KiB, none unsampled" \
	"$(awk -F, '$3 == "bytes" && $4 % 2048 == 0 && ($5 == 2048 || $4 + $5 == 160000) { n++ }
		$3 == "unsampled" { u++ } END { print n + 0, u + 0 }' amf.csv)" "79 0"
check_eq "--sim accessmap of a large block: a row's loads, and all of them" \
	"$(awk -F, '$3 == "bytes" { s += $(NF-1); if ($4 == 0) f = $(NF-1) } END { print f, s }' amf.csv)" \
	"2048 160000"
expect_error "--allocsite of no site: said" 1 "no sampled allocation site .* 'nosuch'" \
	"$DSPROF" report -i hs --view accessmap --allocsite nosuch
expect_error "--allocsite is for accessmap" 1 "--allocsite applies to --view accessmap" \
	"$DSPROF" report -i hs --view heap --allocsite make_list
# bytes read through a char * in a block that samples of its members type
# (tests/programs/arena.c, 1000 records, 2 rounds, every load): an array of
# records' tags are the member they fall in; an arena's keys, among its
# records, stay bytes of the block
"$DSPROF" record -q -o har --heap --sim -c 1 -e sim:loads -- "$PROGS/arena" 1000 2 >/dev/null 2>har.err
check_eq "--sim arena: recorded" "$?" 0
"$DSPROF" report -i har --view dataobjects -f csv >har.csv
check_eq "--sim arena: the array's tag bytes are struct rec.tag[]" \
	"$(csv_lookup har.csv name 'struct rec.tag[]' samples:sim:loads)" 16000
check_eq "--sim arena: the keys are bytes of the arena block, not tags" \
	"$(csv_lookup har.csv name "heap: 31.2 KB block of char from main (arena.c:$(line_of 'char \*arena = malloc' "$TOP/tests/programs/arena.c"))" samples:sim:loads)" 32000
check_eq "--sim arena: both blocks' next pointers" "$(csv_lookup har.csv name 'struct rec.next' samples:sim:loads)" 4000
"$DSPROF" record -q -o hsl --heap --sim -c 1 -e sim:loads -- "$PROGS/heapleak" >/dev/null 2>hsl.err
"$DSPROF" report -i hsl --view leaks -f csv >hsl.csv
check_eq "--sim: leaks, keep_names's blocks" "$(csv_lookup hsl.csv name "$NAMES" leaked_blocks)" 10
check_eq "--sim: leaks, keep_pages's bytes" "$(csv_lookup hsl.csv name "$PAGES" leaked_bytes)" 15000

# the TUI's Heap tab: the sites; Enter on the list's site shows its stack
# and its access map (in the DataLayout tab, with bars)
"$DSPROF" tui -i ho --keys "h/make_list<Enter><Enter>q" --size 160x40 >tui.txt 2>tui.err
check_eq "tui: runs" "$?" 0
check_contains "tui: the Heap tab lists the sites" tui.txt "make_list \(heapobj.c"
check_contains "tui: Enter opens the site's access map" tui.txt "DataLayout: site:make_list"
check_contains "tui: its words and their fields" tui.txt "\+8\.\.15 struct item.key"
check_contains "tui: the site's stack" tui.txt "make_list \(heapobj.c:[0-9]+\) < main"

# ---- a program's own allocation function ----
# (tests/programs/heapwrap.c: five kinds of records, 300 each, made through
# xalloc): without --heap-wrappers its site holds the five types, and a
# note names it for the option; with it, the five callers are the sites
# and no note is left
"$DSPROF" record -q -o hw --heap --sim -c 1 -e sim:loads -- "$PROGS/heapwrap" 300 >/dev/null 2>hw.err
"$DSPROF" report -i hw --view heap >hw.txt 2>&1
check_contains "wrapper: a note names xalloc for --heap-wrappers" hw.txt \
	'^# note: xalloc \(heapwrap\.c:[0-9]+\): its blocks hold 5 types or more .*--heap-wrappers xalloc makes them the sites$'
"$DSPROF" report -i hw --view heap --heap-wrappers xalloc -f csv >hww.csv 2>hww.err
wsrc="$TOP/tests/programs/heapwrap.c"
check_eq "wrapper: with it, make_point's 300 blocks are its own" \
	"$(csv_lookup hww.csv name "make_point (heapwrap.c:$(line_of 'struct point \*p = xalloc' "$wsrc"))" blocks)" 300
"$DSPROF" report -i hw --view heap --heap-wrappers xalloc >hww.txt 2>&1
check_eq "wrapper: with it, no note" "$(grep -c 'heap-wrappers xalloc makes' hww.txt)" 0
# heapobj's sites each make one kind of block: no note
"$DSPROF" report -i hs --view heap >hsh.txt 2>&1
check_eq "no wrapper, no note" "$(grep -c 'as an allocator.s do' hsh.txt)" 0

# ---- leaks ----
leaks() { # DIR ARGS...: record heapleak ARGS into DIR, its leaks into DIR.csv
	dir=$1
	shift
	"$DSPROF" record -q -o "$dir" --heap -- "$PROGS/heapleak" "$@" >"$dir.out" 2>"$dir.err"
	"$DSPROF" report -i "$dir" --view leaks -f csv >"$dir.csv" 2>"$dir.rerr"
	"$DSPROF" report -i "$dir" --view leaks -f json >"$dir.json" 2>>"$dir.rerr"
}
lk() { csv_lookup "$1.csv" name "$2" "$3"; }
prop() { "$TOOLS/dsjq" ".properties.$2" "$1.json"; }
leaks lk
check_eq "leaks: keep_names's 10 blocks" "$(lk lk "$NAMES" leaked_blocks)" 10
check_eq "leaks: of 100 bytes" "$(lk lk "$NAMES" leaked_bytes)" 1000
check_eq "leaks: keep_pages's 3 blocks" "$(lk lk "$PAGES" leaked_blocks)" 3
check_eq "leaks: of 5000 bytes" "$(lk lk "$PAGES" leaked_bytes)" 15000
check_eq "leaks: nothing else (the atexit function's free is no leak)" "$(prop lk leaked_blocks)" 13
check_eq "leaks: the bytes, all told" "$(prop lk leaked_bytes)" 16000
check_eq "leaks: the most bytes first" "$(sed -n 2p lk.csv | cut -d, -f1)" "$PAGES"

leaks fk fork
check_eq "fork: a file per process" "$(prop fk heap_files)" 2
check_eq "fork: the parent's leaks, not the child's copy of them" "$(prop fk leaked_blocks)" 13
"$DSPROF" report -i fk --view heap -f csv >fk_heap.csv
check_eq "fork: the child's own site" \
	"$(csv_lookup fk_heap.csv name "child_block (heapleak.c:$(line_of '= calloc(1000' "$SRC"))" blocks)" 1
shared=$(csv_lookup fk_heap.csv name "main (heapleak.c:$(line_of 'shared = calloc' "$SRC"))" samples:cpu-clock)
check_ge "fork: the child's reads of the parent's block, named by the parent's site" "${shared:-0}" 10

leaks ek exec
check_eq "exec: a file per image" "$(prop ek heap_files)" 2
check_eq "exec: the new image's leaks" "$(prop ek leaked_blocks)" 13
check_eq "exec: the old image's blocks are not leaks" "$(lk ek "$NAMES" unended_blocks)" 10
# the old image's records are all there (an end record before the exec):
# nothing is said lost
check "exec: no record said lost" sh -c '! grep -q "ended without a last heap record" ek.json'

leaks tk threads
"$DSPROF" report -i tk --view heap -f csv >tk_heap.csv
site="thread_blocks (heapleak.c:$(line_of 'b\[i\] = malloc(64)' "$SRC"))"
check_eq "threads: every thread's blocks" "$(csv_lookup tk_heap.csv name "$site" blocks)" 4000
check_eq "threads: all freed" "$(csv_lookup tk_heap.csv name "$site" leaked_bytes)" 0

# times: a block held for a second lives a second and more, with either
# clock (the TSC's ticks where the kernel keeps time by them, turned into
# ns as the tracker writes; clock_gettime's ns), and a second is more than
# a short record's time span in ticks (2^31) at over 2.1 GHz
site="held_block (heapleak.c:$(line_of 'char \*p = malloc(48)' "$SRC"))"
for clock in default ns; do
	DSPROF_HEAP_CLOCK=$clock "$DSPROF" record -q -o hold_$clock --heap -- "$PROGS/heapleak" hold 1000 >/dev/null 2>&1
	"$DSPROF" report -i hold_$clock --view heap -f csv >hold_$clock.csv 2>/dev/null
	check_eq "clock $clock: held and freed" "$(csv_lookup hold_$clock.csv name "$site" blocks)" 2
	# the average of 1 s and about 0: from 0.5 s; at most 5 s on a busy machine
	life=$(csv_lookup hold_$clock.csv name "$site" avg_lifetime)
	check "clock $clock: a block held 1 s lived it (avg $life ns of two)" \
		test "${life:-0}" -ge 500000000 -a "${life:-0}" -lt 5000000000
done

# the allocator's own work: three million blocks of 16 bytes, malloc's
# reads and writes of its chunk headers and its top chunk are heap memory
# in no block, and say they are the allocator's.  What stays in no block
# is other code's, a sample or two at most (the loader's lists, allocated
# before the tracker started, read as the tracker's unwinder walks them)
"$DSPROF" record -o al --heap -- "$PROGS/heapleak" many 3000000 >/dev/null 2>al.err
"$DSPROF" report -i al --view heap -f csv >al.csv 2>/dev/null
# record's summary adds up the chunks' tallies (the last 16 bytes of each
# chunk: type 8, size 16), which say what the report reads
check_eq "record's summary: as many allocations as the report's blocks" \
	"$(sed -n 's/.*heap: \([0-9]*\) allocations.*/\1/p' al.err)" \
	"$(awk -F, 'NR > 1 && $4 != "" { s += $4 } END { print s + 0 }' al.csv)"
f=$(ls al/heap/*.heap)
chunks=$((($(stat -c %s "$f") - 4096) / 65536))
check_ge "tallies: a malloc-heavy program's file has chunks" "$chunks" 100
for k in 0 $((chunks - 1)); do
	check_eq "tallies: chunk $k ends with one" \
		"$(od -A n -t u2 -j $((4096 + k * 65536 + 65520)) -N 4 "$f" | tr -s ' ')" " 8 16"
done
al=$(csv_lookup al.csv name '<allocator>' samples:cpu-clock)
nb=$(csv_lookup al.csv name '<in no block>' samples:cpu-clock)
check_ge "allocator: its samples have a reason of their own" "${al:-0}" 1
check "allocator: more of them than in no block ($al, $nb)" test "${al:-0}" -gt "${nb:-0}"

# the tracker's own work (two million allocations and frees, called with
# no frame pointer, as -O2 code may): its library, the unwinder and clock
# it calls and the kernel's writes for it are <heap tracker>, out of the
# data views.  The clock: the vDSO's (its TSC reads leave no frame to tell)
DSPROF_HEAP_CLOCK=ns "$DSPROF" record -q -o tr --heap -- "$PROGS/heapleak" churn 2000000 >tr.out 2>tr.err
"$DSPROF" report -i tr --by module,verdict -f csv >tr.csv 2>/dev/null
check_ge "tracker: its samples are named" \
	"$(awk -F, 'NR > 1 && $3 == "heap-tracker" { s += $4 } END { print s + 0 }' tr.csv)" 20
check_eq "tracker: every sample in its library or the unwinder is its" \
	"$(awk -F, 'NR > 1 && ($2 ~ /^libdsprof-heap/ || $2 ~ /^libunwind/) && $3 != "heap-tracker" { s += $4 } END { print s + 0 }' tr.csv)" 0
# (the program reads no clock: the vDSO's samples are the tracker's)
check_ge "tracker: its clock's samples" \
	"$(awk -F, 'NR > 1 && $2 == "[vdso]" { s += $4 } END { print s + 0 }' tr.csv)" 5
check_eq "tracker: every sample in the vDSO is its" \
	"$(awk -F, 'NR > 1 && $2 == "[vdso]" && $3 != "heap-tracker" { s += $4 } END { print s + 0 }' tr.csv)" 0
"$DSPROF" report -i tr --view dataobjects -f json >tr.json 2>/dev/null
check_eq "tracker: dataobjects leaves them out, and says how many" \
	"$("$TOOLS/dsjq" .properties.heap_tracker_samples tr.json)" \
	"$(awk -F, 'NR > 1 && $3 == "heap-tracker" { s += $4 } END { print s + 0 }' tr.csv)"
"$DSPROF" report -i tr --view dataobjects -f csv >trdo.csv 2>/dev/null
check "tracker: no <heap tracker> row" sh -c '! grep -q "^<heap tracker>" trdo.csv'

# buffers on two threads' stacks summed through a pointer
# (tests/programs/plain/stackbuf.c): the frame that holds them names them,
# and the second thread's stack, an anonymous mapping, is no heap block
"$DSPROF" record -q -o sb --heap -- "$PROGS/stackbuf" >sb.out 2>sb.err
check_eq "stack buffers: recorded" "$?" 0
"$DSPROF" report -i sb --by thread,dataobject,allocsite -f csv --filter 'FUNC == "sum"' >sb.csv 2>sb.err
for tid in $(awk -F, 'NR > 1 { print $4 }' sb.csv | sort -u); do
	all=$(awk -F, -v t="$tid" 'NR > 1 && $4 == t { s += $(NF - 1) } END { print s + 0 }' sb.csv)
	run=$(awk -F, -v t="$tid" 'NR > 1 && $4 == t && $5 == "<stack run>" && $7 == "<not heap>" { s += $(NF - 1) } END { print s + 0 }' sb.csv)
	check_ge "stack buffers: thread $tid's sum samples" "$all" 50
	check_ge "stack buffers: thread $tid's are <stack run>, <not heap> ($run of $all)" "$((100 * run))" "$((95 * all))"
done
check_eq "stack buffers: both threads sampled" "$(awk -F, 'NR > 1 { print $4 }' sb.csv | sort -u | wc -l)" 2
check_eq "stack buffers: none in no block" "$(grep -c '<in no block>' sb.csv)" 0
# the simulator's samples carry the stack pointer: every load, exactly
"$DSPROF" record -q -o sbs --sim -e sim:loads -c 1 --heap -- "$PROGS/stackbuf" 100 >sbs.out 2>sbs.err
"$DSPROF" report -i sbs --by thread,dataobject,allocsite -f csv --filter 'FUNC == "sum"' >sbs.csv 2>sbs.err
check_eq "stack buffers, --sim: each thread's 100 x 512 loads are <stack run>, <not heap>" \
	"$(awk -F, 'NR > 1 && $5 == "<stack run>" && $7 == "<not heap>" { print $(NF - 1) }' sbs.csv | sort | tr '\n' ' ')" \
	"51200 51200 "
rm -rf sb sbs

# a file's data mapped and read beside a heap block (tests/programs/filemap.c,
# as LevelDB reads its tables): the mapping's loads are <not heap>, not
# <in no block>, the block's its site's
# fm_samples CSV FUNC [RE]: FUNC's samples (in allocation sites matching RE)
fm_samples() {
	awk -F, -v f="$2" -v re="${3:-}" 'NR > 1 && $2 == f && $5 ~ re { s += $(NF - 3) } END { print s + 0 }' "$1"
}
"$DSPROF" record -q -o fm --heap -- "$PROGS/filemap" fm.data >fm.out 2>fm.err
check_eq "file mapping: recorded" "$?" 0
"$DSPROF" report -i fm --by function,allocsite -f csv --filter 'FUNC == "sum_file" || FUNC == "sum_block"' \
	>fm.csv 2>fm.err
fmfile=$(fm_samples fm.csv sum_file)
fmblock=$(fm_samples fm.csv sum_block)
check_ge "file mapping: sum_file's samples" "$fmfile" 50
check_ge "file mapping: sum_block's samples" "$fmblock" 50
check_ge "file mapping: sum_file's are <not heap>" \
	"$((100 * $(fm_samples fm.csv sum_file '^<not heap>$')))" "$((95 * fmfile))"
check_ge "file mapping: sum_block's are the block's site" \
	"$((100 * $(fm_samples fm.csv sum_block '^main [(]filemap[.]c:')))" "$((95 * fmblock))"
check_eq "file mapping: none in no block" "$(grep -c '<in no block>' fm.csv)" 0
# the simulator's: every load of 2 rounds, exactly (sum_file's returns,
# loads from the stack, are <not heap> too)
"$DSPROF" record -q -o fms --sim -e sim:loads -c 1 --heap -- "$PROGS/filemap" fm.data 2 >fms.out 2>fms.err
"$DSPROF" report -i fms --by function,allocsite -f csv --filter 'FUNC == "sum_file" || FUNC == "sum_block"' \
	>fms.csv 2>fms.err
check_eq "file mapping, --sim: sum_file's 2 x 524288 loads and 2 returns are <not heap>" \
	"$(fm_samples fms.csv sum_file '^<not heap>$')" 1048578
check_eq "file mapping, --sim: sum_block's 2 x 524288 loads are the block's site" \
	"$(fm_samples fms.csv sum_block '^main [(]filemap[.]c:')" 1048576
rm -rf fm fms fm.data

# threads one after another on one stack, each freeing a block after the
# tracker's thread-end destructor ran for the last time: the process
# exits (it spun at exit: the reused thread-local buffer was listed
# twice) and each late free is recorded
timeout 120 "$DSPROF" record -q -o lt --heap -- "$PROGS/heapleak" late >lt.out 2>lt.err
check_eq "late frees: the recording ends" "$?" 0
"$DSPROF" report -i lt --view heap -f csv >lt_heap.csv
check_eq "late frees: every thread's destructor blocks, and all freed" \
	"$(awk -F, 'NR > 1 && $1 ~ /^late_/ { b += $4; l += $8 } END { print b "/" l }' lt_heap.csv)" "32/0"

# SIGTERM, left to end the program: the tracker writes its buffers and an
# end record first; SIGKILL: the buffers are lost, and that is said
leaks kk kill
check_eq "killed (SIGTERM): no exit, no leaks" "$(prop kk leaked_blocks)" 0
check_eq "killed (SIGTERM): its blocks were live" "$(lk kk "$NAMES" unended_blocks)" 10
check "killed (SIGTERM): its records all written, nothing said lost" \
	sh -c '! grep -q "ended without a last heap record" kk.json'
leaks k9 kill9
check_eq "killed (SIGKILL): still a report" "$(prop k9 heap_files)" 1
check_contains "killed (SIGKILL): said" k9.json "1 of 1 processes ended without a last heap record: killed outright"

# ---- call stacks: cut at their depth, from the allocation's caller ----
# 1000 blocks 41 calls of descend below main, from a build with frame
# pointers (walked, checked against the unwinder) and one without (every
# stack unwound from the CFI): the first frame is deep_block's, then as
# many of descend's as the depth leaves room for (16 frames, or
# $DSPROF_HEAP_FRAMES).  A shallow one goes up to main and on, to _start
# where it is unwound (the frame-pointer chain ends in libc).
DEEP="deep_block (heapleak.c:$(line_of 'char \*p = malloc(24)' "$SRC"))"
DESCEND="descend (heapleak.c:$(line_of 'void \*p = n > 0' "$SRC"))"
deep_stack() { # EXPERIMENT: the deep site's stack into deep.txt, a frame a line
	"$DSPROF" report -i "$1" --view heap -f csv >deep.csv
	csv_lookup deep.csv name "$DEEP" stack | sed 's/ < /\n/g' >deep.txt
}
for p in heapleak heapleak_nofp; do
	for frames in 16 32; do
		DSPROF_HEAP_FRAMES=$frames "$DSPROF" record -q -o dp$frames --heap -- "$PROGS/$p" deep 40 >/dev/null 2>dp.err
		deep_stack dp$frames
		check_eq "$p deep 40, $frames frames: the site's blocks" "$(csv_lookup deep.csv name "$DEEP" blocks)" 1000
		check_eq "$p deep 40, $frames frames: the stack's depth" "$(wc -l <deep.txt)" "$frames"
		check_eq "$p deep 40, $frames frames: deep_block's frame first" "$(head -1 deep.txt)" "$DEEP"
		check_eq "$p deep 40, $frames frames: descend's after it" "$(grep -cxF "$DESCEND" deep.txt)" $((frames - 1))
	done
	"$DSPROF" record -q -o dp3 --heap -- "$PROGS/$p" deep 3 >/dev/null 2>dp.err
	deep_stack dp3
	check_eq "$p deep 3: no <no call stack> site" "$(grep -c '^<no call stack>' deep.csv)" 0
	check_eq "$p deep 3: deep_block's frame first" "$(head -1 deep.txt)" "$DEEP"
	check_eq "$p deep 3: descend's 4 after it" "$(sed -n 2,5p deep.txt | grep -cxF "$DESCEND")" 4
	check_eq "$p deep 3: then main's" "$(sed -n 6p deep.txt | cut -d: -f1)" "main (heapleak.c"
done
check_eq "heapleak_nofp deep 3: unwound up to _start" "$(tail -1 deep.txt)" _start

# ---- a static binary: said in one line, recorded without heap data ----
"$DSPROF" record -q -o st --heap -- "$PROGS/heapleak_static" >st.out 2>st.err
check_eq "static: recorded" "$?" 0
check_eq "static: one line says why there is no heap data" "$(grep -c 'statically linked' st.err)" 1
"$DSPROF" report -i st --view heap -f json >st.json
check_eq "static: the report has no heap files" "$("$TOOLS/dsjq" .properties.heap_files st.json)" 0
check_contains "static: and says what that means" st.json "could not load the heap tracker"
# a static program a process execs, under the simulator: no heap file
# (its allocator cannot be replaced), and the exec ends the heap data of
# the image before it: its samples say so, none is matched to a block
"$DSPROF" record -q -o sx --heap --sim -c 1 -e sim:loads -- sh -c "$PROGS/heapleak_static" >sx.out 2>sx.err
check_eq "static exec'd, --sim: recorded" "$?" 0
check_eq "static exec'd, --sim: heap files of sh and its child before the exec" "$(ls sx/heap | wc -l)" 2
"$DSPROF" report -i sx --by allocsite,module -f csv >sx.csv
check_eq "static exec'd, --sim: its samples have no heap data" \
	"$(awk -F, '$1 == "heapleak_static" && $2 == "<no heap data>"' sx.csv | wc -l)" 1
check_eq "static exec'd, --sim: and none is in a block or in no block" \
	"$(awk -F, '$1 == "heapleak_static" && $2 != "<no heap data>" && $2 != "<not heap>"' sx.csv | wc -l)" 0
"$DSPROF" report -i sx --view heap >sx.txt 2>&1
check_contains "static exec'd, --sim: the process is named, as having no heap record" sx.txt \
	'^# note: 1 process seen in the samples has no heap record: [0-9]+ \(heapleak_static\)'

# ---- damaged heap files ----
cp -r lk cut
f=$(ls cut/heap/*.heap)
size=$(stat -c %s "$f")
truncate -s $((4096 + 1000)) "$f"
"$DSPROF" report -i cut --view leaks -f json >cut.json 2>cut.err
check_eq "cut short: still read" "$?" 0
check_contains "cut short: what was lost is said" cut.json "is cut short"
check_contains "cut short: its exit was lost with its end" cut.json "1 of 1 processes ended without a last heap record"
check "cut short: the file was longer" test "$size" -gt $((4096 + 1000))
cp -r lk dmg
printf 'wxyz' | dd of="$(ls dmg/heap/*.heap)" bs=1 seek=4096 conv=notrunc 2>/dev/null
"$DSPROF" report -i dmg --view leaks -f json >dmg.json 2>dmg.err
check_eq "a damaged record: still read" "$?" 0
check_contains "a damaged record: the bytes lost are said" dmg.json "bytes of records could not be read"
cp -r lk bad
printf 'garbage' | dd of="$(ls bad/heap/*.heap)" conv=notrunc 2>/dev/null
"$DSPROF" report -i bad --view heap -f json >bad.json 2>bad.err
check_eq "not a heap file: still a report" "$?" 0
check_contains "not a heap file: left out, said" bad.json "heap file left out"

# ---- what --heap cannot do ----
expect_error "--heap with -p" 1 "--heap .*not with -p" "$DSPROF" record --heap -p 1

# an experiment with heap files is dsprof's: recorded over, it is kept as .old
"$DSPROF" record -q -o lk --heap -- "$PROGS/heapleak" >/dev/null 2>again.err
check_eq "recorded again over an experiment with heap files" "$?" 0
check "the previous one kept as lk.old, its heap files with it" test -n "$(ls lk.old/heap/*.heap 2>/dev/null)"
