# A damaged perf.data is read as far as it is whole: every complete record
# before a cut, around a corrupt record, with a feature section that lies
# outside the file; what is lost is said in one note per kind, and the
# views still show (status 0).  perf's own dump of the intact file is the
# oracle for what a cut file holds.
. "$TOP/tests/lib.sh"

if ! command -v perf >/dev/null; then
	not_ok "perf is not installed (make deps installs linux-perf)"
	exit 0
fi

# perf's per-module sample counts, "module count" lines, sorted
perf_modules() { # perf.data
	perf report -i "$1" --stdio --no-children -g none --sort dso -F sample,dso -t '|' 2>/dev/null |
		awk -F'|' '!/^#/ && NF == 2 { gsub(/ /, ""); print $2, $1 }' | sort
}
# ours, summed from the functions view
our_modules() { # experiment event
	"$DSPROF" report -i "$1" -f csv 2>/dev/null |
		awk -F, -v ev="samples:$2" 'NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); if ($i == ev) k = i; if ($i == "module") m = i } next }
			{ v = $k; sub(/\r$/, "", v); n[$m] += v } END { for (x in n) if (n[x] > 0) print x, n[x] }' | sort
}
# the samples perf's dump of FILE shows in whole records below byte CUT
samples_before() { # perf.data cut
	perf report -D -i "$1" 2>/dev/null | awk '/ PERF_RECORD_SAMPLE\(/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/ && $(i + 1) ~ /^\[0x/) { print $i, substr($(i + 1), 2, length($(i + 1)) - 3); break } }' |
		while read -r off size; do
			[ $((off + size)) -le "$2" ] && echo
		done | wc -l
}
total_samples() { # experiment
	"$DSPROF" report -i "$1" -v summary -f csv 2>/dev/null >summary.csv
	csv_col summary.csv samples:cpu-clock | head -1
}
patch_byte() { # file offset octal-byte
	printf "\\$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
byte_at() { # file offset: the byte as 3 octal digits
	od -An -t o1 -j "$2" -N 1 "$1" | tr -d ' '
}
u64_at() { # file offset
	od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

perf record -q -e cpu-clock -c 1000000 -g -o p.data "$PROGS/selftime" 1 >/dev/null 2>&1
size=$(wc -c <p.data)
data_off=$(u64_at p.data 40)
data_size=$(u64_at p.data 48)
full=$(perf_modules p.data | awk '{ n += $2 } END { print n }')
check_ge "perf's recording has samples" "$full" 500

# ---- a cut file (Right answers #10)
# two thirds of the data, and at least the program's mapping: perf writes
# each CPU's buffer in turn, so the MMAP2 of the exec may come after most of
# the samples (1 run in 8 under load), and a file cut before it has no
# program to name them by
mmap_at=$(perf report -D -i p.data 2>/dev/null | awk '/PERF_RECORD_MMAP2/ && /\/selftime$/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/ && $(i + 1) ~ /^\[0x/) {
			print $i, substr($(i + 1), 2, length($(i + 1)) - 3); exit } }')
mmap_end=
[ -n "$mmap_at" ] && mmap_end=$(( ${mmap_at% *} + ${mmap_at#* } ))
cut=$((data_off + data_size * 2 / 3 + 5))
[ "${mmap_end:-0}" -ge "$cut" ] && cut=$((mmap_end + 5))
check "cut file: the cut falls inside the data, after the program's mapping (${mmap_end:-none})" \
	test -n "$mmap_end" -a "$cut" -lt $((data_off + data_size))
head -c "$cut" p.data >cut.data
"$DSPROF" import cut.data -o cutexp 2>cut.err
check_eq "cut file: imported (status 0)" "$?" 0
check_contains "cut file: the cut is named with its bytes" cut.err \
	"note: 'cut.data' is cut short: [0-9]+ bytes of records are missing at its end; every whole record before the cut was read"
check_contains "cut file: the time it held, estimated" cut.err "it held roughly the last [0-9.]+ (ms|s) of the recording"
check_contains "cut file: the features after the data are named" cut.err \
	"feature sections outside the file were not read: .*hostname.*sample_time"
check_eq "cut file: every sample before the cut (perf's dump of the whole file)" \
	"$(total_samples cutexp)" "$(samples_before p.data "$cut")"
"$DSPROF" report -i cutexp >cut.txt 2>cut.rep
check_eq "cut file: report shows the views" "$?" 0
check_contains "cut file: main is there" cut.txt " main "
check_contains "cut file: report repeats the note" cut.rep "note: 'cutexp/perf.data' is cut short"

# a dsprof recording knows when it ended: the time lost is exact
"$DSPROF" record -q -o own -- "$PROGS/selftime" 1 >/dev/null
osize=$(wc -c <own/perf.data)
mkdir owncut
cp own/meta.json owncut/
head -c $((osize / 2)) own/perf.data >owncut/perf.data
"$DSPROF" report -i owncut >/dev/null 2>owncut.err
check_eq "cut dsprof recording: report (status 0)" "$?" 0
check_contains "cut dsprof recording: the time lost up to the recorded end" owncut.err \
	"it held the last [0-9.]+ (ms|s) of the recording \(up to its recorded end\)"

# ---- only the last byte missing: every sample is intact (Hardening #5)
head -c $((size - 1)) p.data >last.data
"$DSPROF" import last.data -o lastexp 2>last.err
check_eq "missing last byte: imported" "$?" 0
check_contains "missing last byte: the last feature is named" last.err "feature sections outside the file were not read: [a-z_]+ \("
check_eq "missing last byte: per-module counts equal perf's" "$(our_modules lastexp cpu-clock)" "$(perf_modules last.data)"

# ---- one flipped bit in a feature section's size (the first one)
cp p.data feat.data
at=$((data_off + data_size + 8 + 5))
patch_byte feat.data "$at" "$(printf '%03o' $(( 0$(byte_at p.data "$at") ^ 16 )))"
"$DSPROF" import feat.data -o featexp 2>feat.err
check_eq "flipped feature size: imported" "$?" 0
check_contains "flipped feature size: that feature is named" feat.err "feature sections outside the file were not read: build_id \("
check_eq "flipped feature size: per-module counts equal perf's" "$(our_modules featexp cpu-clock)" "$(perf_modules feat.data)"

# ---- a corrupt record in the middle: skipped, reading goes on after it
cp p.data mid.data
rec=$(perf report -D -i p.data 2>/dev/null | awk '/ PERF_RECORD_SAMPLE\(/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/ && $(i + 1) ~ /^\[0x/) print $i }' |
	while read -r off; do [ $((off)) -ge $((data_off + data_size / 2)) ] && { echo $((off)); break; }; done)
printf '\000\000\000\000\000\000\000\000' | dd of=mid.data bs=1 seek="$rec" conv=notrunc 2>/dev/null
"$DSPROF" import mid.data -o midexp 2>mid.err
check_eq "corrupt record: imported" "$?" 0
check_contains "corrupt record: named, with the time around it" mid.err \
	"holds [0-9]+ bytes of corrupt records in 1 place, skipped; reading went on at the next sound records \(they held about"
check_eq "corrupt record: one sample lost, the rest read" "$(total_samples midexp)" $((full - 1))

# ---- a flipped bit in an attr's sample_regs_user (Hardening #4): every
# sample's fields shift; they are dropped and the attr is named
cp own/perf.data regs.data
at=$(( $(u64_at own/perf.data 24) + 80 ))
patch_byte regs.data "$at" "$(printf '%03o' $(( 0$(byte_at own/perf.data "$at") ^ 1 )))"
"$DSPROF" report -i regs.data >/dev/null 2>regs.err
check_eq "flipped sample_regs_user: report (status 0)" "$?" 0
check_contains "flipped sample_regs_user: the attr is named corrupt" regs.err \
	"note: attr 0 \(cpu-clock\): [0-9]+ of [0-9]+ samples do not match its sample_type: the attr is corrupt"

# ---- a file with no readable attrs is still refused, in one line
head -c 200 p.data >attrs.data
expect_error "cut inside the attrs: refused" 1 "^dsprof: cannot read 'attrs.data': truncated at byte 200" \
	"$DSPROF" import attrs.data -o attrsexp
