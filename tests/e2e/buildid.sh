# Objects are matched by build-id.  A file replaced since the recording by
# another build is another program: its samples show as [unknown], with one
# note, and none of its instructions are disassembled.  An identical copy
# is the same program: no note.  `dsprof archive` keeps the recorded files
# with the experiment, which then gives the right answers again (and perf
# finds them too, with --buildid-dir).
. "$TOP/tests/lib.sh"

# leafcall as the Makefile builds test programs, at ./leafcall
build() { # [CFLAGS...]
	gcc -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-pthread "$@" -o leafcall.new "$TOP/tests/programs/leafcall.c" && mv leafcall.new leafcall
}
# rows of MODULE in the pcs view whose instruction was disassembled
disassembled() { # experiment module
	"$DSPROF" report -i "$1" -v pcs -f csv 2>/dev/null |
		awk -F, -v m="$2" 'NR > 1 && $3 == m && $8 != "" { n++ } END { print n + 0 }'
}
walk_samples() { # csv
	csv_lookup "$1" name walk samples:cpu-clock
}
# walk's lines in the lines view and their samples
walk_lines() { # csv
	awk -F, '$2 == "walk" { print $1, $(NF - 1) }' "$1"
}

if ! build; then
	not_ok "cannot build leafcall"
	exit 0
fi
"$DSPROF" record -q -o exp -- ./leafcall 1 >/dev/null
"$DSPROF" report -i exp -f csv >ran.csv 2>ran.err
walk=$(walk_samples ran.csv)
check_ge "walk is sampled" "${walk:-0}" 20
check_eq "the file that ran: no note" "$(cat ran.err)" ""
check_ge "the file that ran: its instructions are disassembled" "$(disassembled exp leafcall)" 3

"$DSPROF" report -i exp -v lines -f csv >ran-lines.csv 2>/dev/null
check_contains "the file that ran: walk's line is named" ran-lines.csv "^leafcall\.c:[0-9]+,walk,"

# an identical copy (cp, rebuild, mv back): another file (inode), the same build-id
cp leafcall saved && build -DREBUILT && mv saved leafcall
"$DSPROF" report -i exp -f csv >same.csv 2>same.err
check_eq "identical copy: no note" "$(cat same.err)" ""
check_eq "identical copy: the same answer" "$(walk_samples same.csv)" "$walk"
if command -v perf >/dev/null; then
	perf report -i exp/perf.data --stdio >perf-same.txt 2>&1
	check_eq "identical copy: perf has no note either" "$(grep -ci 'not the file\|mismatch' perf-same.txt)" 0
fi

# keep the recorded files; a copy of the experiment without them
"$DSPROF" archive -i exp 2>archive.err
check_eq "dsprof archive succeeds" "$?" 0
check_contains "dsprof archive says what it kept" archive.err '^\[ dsprof archive: [0-9]+ objects kept'
id=$(readelf -n leafcall | awk '/Build ID:/ { print $3; exit }')
check_eq "archive: .build-id links to the object's folder, as perf's cache does" \
	"$(readlink "exp/archive/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)")" \
	"../..$PWD/leafcall/$id"
check "archive: the copy is the object" cmp -s leafcall "exp/archive$PWD/leafcall/$id/elf"
cp -r exp plain && rm -rf plain/archive

# another build of the program at the same path
build -DREBUILT
"$DSPROF" report -i plain -f csv >other.csv 2>other.err
check_eq "another build: one note" "$(wc -l <other.err)" 1
check_contains "another build: the note says it is not the recorded file" other.err \
	"'$PWD/leafcall' is not the file that was recorded \(build-id [0-9a-f]+ here, $id in the recording\)"
check_eq "another build: walk is not found in it" "$(walk_samples other.csv)" ""
check_ge "another build: its samples are [unknown]" \
	"$(awk -F, '$1 == "[unknown]" && $2 == "leafcall" { print $4 }' other.csv)" "$walk"
check_eq "another build: none of its instructions are disassembled" "$(disassembled plain leafcall)" 0

# the archived copy: the right answers again
"$DSPROF" report -i exp -f csv >kept.csv 2>kept.err
check_eq "archived: no note" "$(cat kept.err)" ""
check_eq "archived: the same answer as when it ran" "$(walk_samples kept.csv)" "$walk"
check_ge "archived: its instructions are disassembled" "$(disassembled exp leafcall)" 3
"$DSPROF" report -i exp -v callers --function walk -f csv >callers.csv 2>/dev/null
check_contains "archived: main calls walk" callers.csv '^main,'
# moved elsewhere, the program gone: the same functions and lines
mkdir elsewhere && cp -r exp elsewhere/exp && mv leafcall leafcall.other
"$DSPROF" report -i elsewhere/exp -f csv >moved.csv 2>moved.err
check_eq "archived, moved, program deleted: no note" "$(cat moved.err)" ""
check_eq "archived, moved, program deleted: walk's samples" "$(walk_samples moved.csv)" "$walk"
"$DSPROF" report -i elsewhere/exp -v lines -f csv >moved-lines.csv 2>/dev/null
check_eq "archived, moved, program deleted: walk's lines" "$(walk_lines moved-lines.csv)" \
	"$(walk_lines ran-lines.csv)"
mv leafcall.other leafcall
if command -v perf >/dev/null; then
	# perf, told the build-ids, takes the rebuilt file for another one too
	perf report -i exp/perf.data --stdio --no-children --sort sym >perf-other.txt 2>/dev/null
	check_eq "perf does not take the other build for the recorded one" \
		"$(grep -c '\] walk *$' perf-other.txt)" 0
	perf --buildid-dir exp/archive report -i exp/perf.data --stdio --no-children --sort sym \
		>perf.txt 2>/dev/null
	check_contains "perf reads the archive (--buildid-dir)" perf.txt '\] walk *$'
fi

# archiving again: nothing new; with the file changed, it is not kept
"$DSPROF" archive -i exp 2>again.err
check_contains "archive again: already there" again.err 'already there'
"$DSPROF" archive -i plain 2>changed.err
check_eq "archive of a changed file: succeeds" "$?" 0
check_contains "archive of a changed file: says it is not kept" changed.err \
	"'$PWD/leafcall' is not kept: the file here is not the one that was recorded"
check "archive of a changed file: keeps no copy of it" test ! -e "plain/archive$PWD/leafcall"

# record --archive does both at once
"$DSPROF" record -q --archive -o both -- ./leafcall 0.3 >/dev/null 2>both.err
check_eq "record --archive: no message with -q" "$(cat both.err)" ""
id2=$(readelf -n leafcall | awk '/Build ID:/ { print $3; exit }')
check "record --archive: the object is kept" cmp -s leafcall "both/archive$PWD/leafcall/$id2/elf"

# a program replaced while the recording goes on is known by the build that ran
build -DREBUILT
cp leafcall other
build
cp leafcall ran
"$DSPROF" record -q -o during -- sh -c './leafcall 0.3 && cp other new && mv new leafcall' \
	>/dev/null 2>during.err
check_eq "replaced while recording: no note" "$(cat during.err)" ""
idran=$(readelf -n ran | awk '/Build ID:/ { print $3; exit }')
if command -v perf >/dev/null; then
	perf buildid-list -i during/perf.data >during.ids 2>/dev/null
	check_eq "replaced while recording: the build-id listed is the one that ran" \
		"$(awk -v f="$PWD/leafcall" '$2 == f { print $1 }' during.ids)" "$idran"
fi
"$DSPROF" report -i during -f csv >during.csv 2>during-report.err
check_contains "replaced while recording: reports know the file is another build" \
	during-report.err "is not the file that was recorded \(build-id [0-9a-f]+ here, $idran"

# an experiment that lists no build-ids cannot be archived
if command -v perf >/dev/null; then
	perf record -q --no-buildid -e cpu-clock -o nobid.data ./leafcall 0.2 >/dev/null 2>&1
	"$DSPROF" import nobid.data -o nobid 2>/dev/null
	expect_error "archive without build-ids" 1 'lists no build-ids' "$DSPROF" archive -i nobid
fi
expect_error "archive: an argument that is not an option" 1 'unexpected argument' \
	"$DSPROF" archive exp

# Another machine's recording (perf's, imported): its HEADER_BUILD_ID
# decides whether this machine's libc is the one that ran.  Written by
# mkperf: 200 samples at libc's qsort, the build-id as given; in pipe mode
# as a HEADER_BUILD_ID record, as 'perf inject -b' writes it.
libc=$(ldd "$DSPROF" | awk '$1 == "libc.so.6" { print $3; exit }')
libcid=$(readelf -n "$libc" | awk '/Build ID:/ { print $3; exit }')
qsort=$(readelf -Ws --dyn-syms "$libc" | awk '$4 == "FUNC" && $8 ~ /^qsort@/ { print "0x" $2; exit }')
otherid=00112233445566778899aabbccddeeff00112233
"$TOOLS/mkperf" buildid same.data "$libc" "$libcid" "$qsort"
"$TOOLS/mkperf" buildid foreign.data "$libc" "$otherid" "$qsort"
"$TOOLS/mkperf" buildid foreignpipe.data "$libc" "$otherid" "$qsort" pipe
"$DSPROF" import same.data -o isame 2>/dev/null
"$DSPROF" report -i isame -v pcs -f csv >isame.csv 2>isame.err
check_eq "imported, libc's build-id: no note" "$(cat isame.err)" ""
check_eq "imported, libc's build-id: qsort is named" "$(csv_lookup isame.csv module libc.so.6 function)" qsort
check_eq "imported, libc's build-id: its instruction is disassembled" "$(disassembled isame libc.so.6)" 1
for f in foreign foreignpipe; do
	if command -v perf >/dev/null; then
		check_eq "$f: perf reads the build-id mkperf wrote" \
			"$(perf buildid-list -i $f.data 2>/dev/null | awk -v f="$libc" '$2 == f { print $1 }')" \
			"$otherid"
	fi
	"$DSPROF" import $f.data -o $f 2>/dev/null
	"$DSPROF" report -i $f -v functions -f csv >$f.csv 2>$f.err
	check_eq "$f: one note" "$(wc -l <$f.err)" 1
	check_contains "$f: the note says this libc is not the recorded one" $f.err \
		"'$libc' is not the file that was recorded \(build-id $libcid here, $otherid in the recording\)"
	check_eq "$f: no function of this libc is named" "$(csv_lookup $f.csv module libc.so.6 name)" "[unknown]"
	check_eq "$f: none of this libc's instructions are disassembled" "$(disassembled $f libc.so.6)" 0
done
