# Call paths of code built as Debian builds it (plain -O2 -g, no frame
# pointers): --call-graph auto copies the user stack and unwinds it through
# the call-frame information, through libc's frames too.  Work shares are
# exact by construction (callpath.c), so the checks are ratios with margins.
. "$TOP/tests/lib.sh"

# share NAME COLUMN FILE: COLUMN of function NAME (or its clone, NAME.constprop.0)
# over all samples
share() {
	awk -F, -v f="$1" -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) k = i; next }
		{ all += $4 } ($1 == f || index($1, f ".") == 1) && !got { v = $k; got = 1 }
		END { printf "%.3f\n", all ? v / all : 0 }' "$3"
}

"$DSPROF" record -o direct -- "$PROGS/callpath" direct 1000 >/dev/null 2>rec.txt
check_eq "record: callpath direct" "$?" 0
check_contains "auto chose stack copies for a program without frame pointers" rec.txt \
	'call chains unwound from 8192-byte stack copies: (99|100)\.[0-9]% reach the thread.s first frame'
"$DSPROF" report -i direct --format csv >d.csv
check_within "direct: main's inclusive share" "$(share main incl_samples:cpu-clock d.csv)" 1.0 0.05
check_within "direct: top's inclusive share" "$(share top incl_samples:cpu-clock d.csv)" 1.0 0.05
# gcc names the clones mid_a.constprop.0: take the first row whose name starts so
a=$(awk -F, '$1 ~ /^mid_a/ { print $6; exit }' d.csv)
b=$(awk -F, '$1 ~ /^mid_b/ { print $6; exit }' d.csv)
check_ge "direct: mid_b has inclusive samples" "${b:-0}" 1000
check_within "direct: mid_a's part of mid_a + mid_b (1 to 3 by construction)" \
	"$(awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { printf "%.3f", a + b ? a / (a + b) : 0 }')" 0.25 0.05

# libc's frames between the program's: qsort calls back into the program
"$DSPROF" record -q -o sort -- "$PROGS/callpath" qsort 1000 >/dev/null
"$DSPROF" report -i sort --format csv >s.csv
check_within "qsort: main's inclusive share" "$(share main incl_samples:cpu-clock s.csv)" 1.0 0.05
check_within "qsort: top_sort's inclusive share" "$(share top_sort incl_samples:cpu-clock s.csv)" 1.0 0.05
check_within "qsort: the callback's inclusive share" "$(share by_weight incl_samples:cpu-clock s.csv)" 1.0 0.05
"$DSPROF" record -q -o search -- "$PROGS/callpath" bsearch 1000 >/dev/null
"$DSPROF" report -i search --format csv >b.csv
check_within "bsearch: main's inclusive share" "$(share main incl_samples:cpu-clock b.csv)" 1.0 0.05
check_within "bsearch: libc's bsearch inclusive share" "$(share bsearch incl_samples:cpu-clock b.csv)" 1.0 0.05

# the folded stacks flame-graph tools read: "outer;...;leaf COUNT" a line,
# every sample once, and the heaviest path the one through mid_b
"$DSPROF" report -i direct --format folded >d.folded
check_eq "folded: every line is frames and a count" \
	"$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' d.folded)" 0
check_eq "folded: the counts add up to the samples" "$(awk '{ s += $NF } END { print s }' d.folded)" \
	"$(awk -F, 'NR > 1 { s += $4 } END { print s }' d.csv)"
sort -t' ' -k2,2nr d.folded | head -1 >top.folded
check_contains "folded: the heaviest path runs from _start to leaf through mid_b" top.folded \
	'^_start;.*;main;top;mid_b[^;]*;leaf [0-9]+$'
"$DSPROF" report -i direct --by callpath --format csv >cp.csv
check_eq "--by callpath: the same paths as folded" "$(($(wc -l <cp.csv) - 1))" "$(wc -l <d.folded)"
expect_error "folded takes no view" 1 "takes no --view or --by" "$DSPROF" report -i direct --view lines --format folded
expect_error "folded is report's alone" 1 "unknown format 'folded'" "$DSPROF" diff direct direct --format folded

# perf reads the finished chains as its own -g chains
if command -v perf >/dev/null; then
	perf report -i direct/perf.data --stdio --no-children 2>/dev/null >perf.txt
	check_contains "perf report shows the unwound callers" perf.txt 'mid_b'
	check_contains "perf report shows main" perf.txt 'main'
else
	not_ok "perf is not installed (make deps installs linux-perf)"
fi

# the modes by name
expect_error "a dwarf stack size that is not a multiple of 8" 1 "bad stack size '100'" \
	"$DSPROF" record -o x --call-graph dwarf,100 -- true
expect_error "an unknown call-graph mode" 1 "auto, fp, dwarf\[,SIZE\] or none" \
	"$DSPROF" record -o x --call-graph lbr -- true
"$DSPROF" record -q -o small --call-graph dwarf,1024 -- "$PROGS/callpath" direct 300 >/dev/null
"$DSPROF" report -i small --format csv >sm.csv
check_within "dwarf,1024: main still on every path (a shallow program)" \
	"$(share main incl_samples:cpu-clock sm.csv)" 1.0 0.05

# the calling-context tree, top-down: leaf under mid_b has three times the
# samples of leaf under mid_a; every path starts at _start
"$DSPROF" report -i direct --view calltree --format csv >tree.csv
# tree_col FILE NAME PARENT-PREFIX COLUMN: the first such row's COLUMN
tree_col() {
	awk -F, -v f="$2" -v p="$3" -v col="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); h[$i] = i } next }
		{ v = $h[col]; sub(/\r$/, "", v) }
		$1 == f && index($h["parent"], p) == 1 { print v; exit }' "$1"
}
under_a=$(tree_col tree.csv leaf mid_a incl_samples:cpu-clock)
under_b=$(tree_col tree.csv leaf mid_b incl_samples:cpu-clock)
check_within "calltree: leaf under mid_a, its part of leaf's samples (1 to 3)" \
	"$(awk -v a="${under_a:-0}" -v b="${under_b:-0}" 'BEGIN { printf "%.3f", a + b ? a / (a + b) : 0 }')" 0.25 0.05
check_within "calltree: the top is _start, with every sample" \
	"$(awk -v a="$(tree_col tree.csv _start "" incl_samples:cpu-clock)" \
		-v b="$(awk -F, 'NR > 1 { s += $4 } END { print s }' d.csv)" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" 1.0 0.01
check_eq "calltree: main's parent is libc's __libc_start_call_main" \
	"$(awk -F, '$1 == "main" { print $2; exit }' tree.csv)" "__libc_start_call_main"
# bottom-up: leaf on top, its callers under it
"$DSPROF" report -i direct --view bottomup --format csv >up.csv
check_eq "bottomup: the first row is the sampled function leaf" "$(awk -F, 'NR == 2 { print $1 }' up.csv)" leaf
check_eq "bottomup: mid_b is leaf's heaviest caller" "$(awk -F, 'NR == 3 { print $1 }' up.csv | cut -c1-5)" mid_b
"$DSPROF" report -i direct --view calltree -n 1 >tree.txt
check_contains "calltree text: indented, one child a level with --limit 1" tree.txt '^ +[0-9.]+% .* {10}leaf'

# the gprof fallacy: work's time is quadratic in its size; calls_once makes
# one call of size 10k, calls_often ten of size k: calls_once pays 100/110
"$DSPROF" record -q -o gprof -- "$PROGS/callpath" gprof 1000 >/dev/null
"$DSPROF" report -i gprof --view callers --function work --format csv >g.csv
# rel_col FILE NAME RELATION COLUMN (NAME or a clone of it: calls_once.constprop.0)
rel_col() {
	awk -F, -v f="$2" -v r="$3" -v col="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); h[$i] = i } next }
		($1 == f || index($1, f ".") == 1) && $h["relation"] == r { v = $h[col]; sub(/\r$/, "", v); print v; exit }' "$1"
}
once=$(rel_col g.csv calls_once caller incl_samples:cpu-clock)
often=$(rel_col g.csv calls_often caller incl_samples:cpu-clock)
check_ge "gprof fallacy: calls_once has work's samples" "${once:-0}" 500
check_within "gprof fallacy: calls_once's part of work (100/110; >= 0.85)" \
	"$(awk -v a="${once:-0}" -v b="${often:-0}" 'BEGIN { printf "%.3f", a + b ? a / (a + b) : 0 }')" 0.925 0.075

# annotate: every instruction of leaf, sampled or not, as objdump lists
# them, with the source lines between them and the data each accesses
"$DSPROF" report -i direct --view annotate --function leaf --format json >ann.json
"$TOOLS/dsjq" '.rows[].name' ann.json >ann.names
# the instructions objdump lists within the symbol's size (not the padding after it)
set -- $(nm -S "$PROGS/callpath" | awk '$4 == "leaf" { print $1, $2 }')
want=$(objdump -d --no-show-raw-insn --start-address=0x$1 \
	--stop-address="$(printf '0x%x' $((0x$1 + 0x$2)))" "$PROGS/callpath" | grep -c '^ *[0-9a-f]*:')
check_eq "annotate: a row per instruction of leaf, as objdump lists them" "$(grep -c '^leaf+0x' ann.names)" "$want"
check_contains "annotate: the source lines between them" ann.names '^[0-9]+: +x = x \* 6364136223846793005ull'
check_eq "annotate: the first instruction loads sink" "$("$TOOLS/dsjq" '.rows[1].access' ann.json)" \
	"sink (volatile uint64_t)"
check_eq "annotate: the instructions' samples are leaf's" \
	"$("$TOOLS/dsjq" '.rows[].samples["cpu-clock"]' ann.json | awk '$1 != "null" { s += $1 } END { print s + 0 }')" \
	"$(csv_lookup d.csv name leaf samples:cpu-clock)"
expect_error "annotate needs a function" 1 "needs a function" "$DSPROF" report -i direct --view annotate

# recursion: descend is on every sample's chain nine times, and counts once
"$DSPROF" record -q -o rec -- "$PROGS/callpath" recurse 300 >/dev/null
"$DSPROF" report -i rec --format csv >r.csv
check_within "recursion: descend's inclusive share counts each sample once" \
	"$(share descend incl_samples:cpu-clock r.csv)" 1.0 0.05
"$DSPROF" report -i rec --view calltree --format csv >rt.csv
check_eq "recursion: the call tree nests descend nine deep" "$(grep -c '^descend[,.]' rt.csv)" 9
