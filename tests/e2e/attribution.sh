# Function attribution against a program that accounts its own CPU time per
# function (the Sun Studio method): each function's share of the cpu-clock
# samples must be within 5 percentage points of its measured share.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o exp -- "$PROGS/selftime" 2 >truth.txt
check_eq "selftime ran" "$?" 0
"$DSPROF" report -i exp --format csv >f.csv
check_eq "report ran" "$?" 0

total=0
for f in work_one work_two work_three work_four; do
	n=$(csv_lookup f.csv name "$f" samples:cpu-clock)
	total=$((total + ${n:-0}))
done
all=$(awk -F, 'NR > 1 { s += $4 } END { print s }' f.csv)
check_ge "enough samples to judge (>= 4000 in 2 s)" "$total" 4000
for f in work_one work_two work_three work_four; do
	n=$(csv_lookup f.csv name "$f" samples:cpu-clock)
	want=$(awk -v f="$f" '$1 == f { print $2 }' truth.txt)
	got=$(awk -v n="${n:-0}" -v t="$total" 'BEGIN { printf "%.4f", n / t }')
	check_within "share of $f" "$got" "$want" 0.05
done
# the work functions are (nearly) all the program's time
check_within "work functions' share of all samples" \
	"$(awk -v a="$total" -v b="$all" 'BEGIN { printf "%.3f", a / b }')" 1.0 0.05
# inclusive: main calls everything
incl=$(csv_lookup f.csv name main incl_samples:cpu-clock)
check_within "main's inclusive share" "$(awk -v a="${incl:-0}" -v b="$all" 'BEGIN { printf "%.3f", a / b }')" 1.0 0.05
# work_four calls almost nothing: inclusive barely above exclusive (kernel
# samples taken while it ran count in its inclusive time)
excl=$(csv_lookup f.csv name work_four samples:cpu-clock)
incl=$(csv_lookup f.csv name work_four incl_samples:cpu-clock)
check_ge "work_four: inclusive >= exclusive" "$incl" "$excl"
check_within "work_four: inclusive close to exclusive" "$incl" "$excl" "$((excl / 50))"

# callers of leaf functions without a frame: example's loops get none even
# with -fno-omit-frame-pointer, and main calls them all
for f in walk_cells count_hits update_particles; do
	objdump -d --no-show-raw-insn "$PROGS/example" | awk -v f="$f" '$2 ~ "^<" f "[.>]" { on = 1; next } on { print; exit }' |
		grep -q 'push *%rbp' && echo "# $f has a frame after all"
done
"$DSPROF" record -q -o ex -- "$PROGS/example" 40 >/dev/null
"$DSPROF" report -i ex --format csv >ex.csv
all=$(awk -F, 'NR > 1 { s += $4 } END { print s }' ex.csv)
incl=$(csv_lookup ex.csv name main incl_samples:cpu-clock)
check_within "frameless leaves: main's inclusive share" \
	"$(awk -v a="${incl:-0}" -v b="$all" 'BEGIN { printf "%.3f", a / b }')" 1.0 0.05
