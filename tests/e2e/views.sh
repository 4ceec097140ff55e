# The report's views and formats, on one recording.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o exp -- "$PROGS/selftime" 1 >/dev/null

"$DSPROF" report -i exp >f.txt
check_eq "functions (text)" "$?" 0
check_contains "text: header names the event" f.txt '^# cpu-clock: [0-9]+ samples'
check_contains "text: a work function row" f.txt '%  +[0-9]+ .* work_four +selftime'

"$DSPROF" report -i exp -f json >f.json
check "json parses" "$TOOLS/dsjq" -c f.json
check_eq "json: view" "$("$TOOLS/dsjq" .view f.json)" functions
check_eq "json: event name" "$("$TOOLS/dsjq" '.events[0].name' f.json)" cpu-clock
sum=$("$TOOLS/dsjq" '.rows[].samples["cpu-clock"]' f.json | awk '{ s += $1 } END { print s }')
check_eq "json: rows add up to the total" "$sum" "$("$TOOLS/dsjq" '.total["cpu-clock"]' f.json)"
check_eq "json: count = samples x period" "$("$TOOLS/dsjq" '.rows[0].count["cpu-clock"]' f.json)" \
	"$(( $("$TOOLS/dsjq" '.rows[0].samples["cpu-clock"]' f.json) * 250000 ))"
check_eq "json: module key" "$("$TOOLS/dsjq" '.rows[0].module' f.json)" selftime

"$DSPROF" report -i exp -f csv >f.csv
check_eq "csv: header" "$(head -1 f.csv | tr -d '\r')" \
	"name,module,address,samples:cpu-clock,count:cpu-clock,incl_samples:cpu-clock,incl_count:cpu-clock"

"$DSPROF" report -i exp -v lines -f csv >l.csv
check_contains "lines: selftime.c rows" l.csv '^selftime\.c:[0-9]+,work_'
check_contains "lines: full file path kept" l.csv ',/.*tests/programs/selftime\.c,[0-9]+'

"$DSPROF" report -i exp -v pcs -f csv -s samples -n 5 >p.csv
check_eq "pcs: --limit 5" "$(($(wc -l <p.csv) - 1))" 5
check_contains "pcs: instructions with disassembly" p.csv '^work_[a-z]+\+0x[0-9a-f]+,0x[0-9a-f]+,selftime,.*,"?(imul|add|mov|lea|cmp|sub|jne|jmp|shr|xor) '

"$DSPROF" report -i exp -v threads -f csv >t.csv
check_contains "threads: the command" t.csv '^selftime,[0-9]+,[0-9]+,'

"$DSPROF" report -i exp -v summary >s.txt
check_contains "summary: command" s.txt '^command +.*selftime 1$'
check_contains "summary: samples" s.txt '^samples +[0-9]+$'
check_contains "summary: lost" s.txt '^lost_records +0$'
check_contains "summary: event line" s.txt '^cpu-clock +250000 '
"$DSPROF" report -i exp -v summary -f json >s.json
check_eq "summary json: backend" "$("$TOOLS/dsjq" .properties.backend s.json)" perf_event

"$DSPROF" report -i exp -s name -f csv | awk -F, 'NR > 1 { print $1 }' >names.txt
check "--sort name orders by name" sort -c names.txt
"$DSPROF" report -i exp -s incl -f csv -n 3 >top.csv
check "--sort incl: main among the top 3" grep -q '^main,' top.csv

# names are sanitized before they reach a terminal
cat >esc.c <<'C'
__attribute__((noinline)) void evil_name_here(volatile long *x) { for (long i = 0; i < 300000000; i++) *x += i; }
int main(void) { volatile long x = 0; evil_name_here(&x); return 0; }
C
if cc -O1 -g -o esc esc.c 2>/dev/null; then
	# rename the symbol to one carrying an escape sequence
	objcopy --redefine-sym evil_name_here="$(printf 'evil\033[2Jname')" esc esc2
	"$DSPROF" record -q -o escexp -- ./esc2
	"$DSPROF" report -i escexp >esc.txt
	check "no raw escape byte in the text report" sh -c "! grep -q \"$(printf '\033')\" esc.txt"
	check_contains "the name shown escaped" esc.txt 'evil\\x1b\[2Jname'
else
	not_ok "cannot compile a test program"
fi
