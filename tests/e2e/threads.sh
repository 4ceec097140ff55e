# Threads, forked children and exec'd children are all followed and attributed.
. "$TOP/tests/lib.sh"

"$DSPROF" record -q -o exp -- "$PROGS/threads" "$PROGS/behave" >out.txt
check_eq "threads program ran" "$?" 0
"$DSPROF" report -i exp --format csv >f.csv
for f in main_work thread_alpha_work thread_beta_work forked_work; do
	# each ran 0.3 s of CPU: 1200 samples at 4 kHz
	check_ge "$f attributed" "$(csv_lookup f.csv name "$f" samples:cpu-clock)" 600
done
# behave spins for 0.3 s of wall time, sharing the CPUs with forked_work
# and whatever else runs: its samples are as many as the CPU it got (173
# seen on a loaded machine, 1200 on an idle one), but they span its run
check_ge "spin_work attributed" "$(csv_lookup f.csv name spin_work samples:cpu-clock)" 20
span=$(sample_span exp spin_work)
check_within "spin_work's samples span its 0.3 s run" "${span:-0}" 0.3 0.1
check_eq "spin_work is in the exec'd program" "$(csv_lookup f.csv name spin_work module)" behave

"$DSPROF" report -i exp -v threads --format csv >t.csv
check_ge "five threads seen" "$(($(wc -l <t.csv) - 1))" 5
for c in alpha beta behave threads; do
	check "thread named $c" grep -q "^$c," t.csv
done
pids=$(csv_col t.csv pid | sort -u | wc -l)
check_ge "three processes seen" "$pids" 3

# --tid narrows the report to one thread
tid=$(csv_lookup t.csv name alpha tid)
"$DSPROF" report -i exp --tid "$tid" --format csv >one.csv
check_ge "--tid: alpha's function" "$(csv_lookup one.csv name thread_alpha_work samples:cpu-clock)" 600
check_eq "--tid: nothing of beta" "$(csv_lookup one.csv name thread_beta_work samples:cpu-clock)" ""
