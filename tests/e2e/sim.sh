# dsprof record --sim: the simulated PMU (docs/simulator.md).  Exact miss
# counts for known patterns, agreement with Cachegrind line by line, false
# sharing seen as HITM, and the experiment as every other: perf reads it,
# the target runs untouched, processes and threads are followed.
. "$TOP/tests/lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	skip "simulator: valgrind is not installed ('make deps' installs it)"
	exit 0
fi

# The geometry the expected counts are computed for (see each program).
GEOM=L1D=32K:8:64,L2=256K:8:64,L3=2M:16:64

# fn EXPERIMENT FUNCTION EVENT: the event's count in the function (or a
# clone of it, like fn.isra.0), 0 when none (the experiment's functions
# are reported once, into EXPERIMENT.fn.csv)
fn() {
	[ -s "$1.fn.csv" ] || "$DSPROF" report -i "$1" -f csv --limit 1000000 >"$1.fn.csv" 2>/dev/null
	awk -F, -v f="$2" -v c="count:sim:$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == f || index($1, f ".") == 1 { n += $k } END { print n + 0 }' "$1.fn.csv"
}

# line_of PROGRAM MARK: the source line that carries /* SIM:MARK */
line_of() {
	grep -n "SIM:$2 \*/" "$TOP/tests/programs/$1.c" | cut -d: -f1
}

# count EXPERIMENT PROGRAM MARK EVENT: the event's count on that line (the
# experiment's lines are reported once, into EXPERIMENT.lines.csv)
count() {
	[ -s "$1.lines.csv" ] || "$DSPROF" report -i "$1" --view lines -f csv --limit 1000000 >"$1.lines.csv" 2>/dev/null
	v=$(csv_lookup "$1.lines.csv" name "$2.c:$(line_of "$2" "$3")" "count:sim:$4")
	echo "${v:-0}"
}

"$DSPROF" list >list.txt
check_contains "list: a simulated group" list.txt '^Simulated events'
for e in loads stores L1D_MISS L2_MISS LLC_MISS HITM INVAL MEM_CYCLES L1D_EVICT; do
	check_contains "list: sim:$e" list.txt "^  sim:$e "
done
"$DSPROF" list --mem >listmem.txt
check_eq "list --mem: the simulated memory cycles, on every machine" \
	"$(grep -c 'sim:MEM_CYCLES' listmem.txt)" 1
if ls /sys/bus/event_source/devices/*/events/mem-loads /sys/bus/event_source/devices/ibs_op >/dev/null 2>&1; then
	check_contains "list --mem: this machine's mechanism" listmem.txt '(PEBS|IBS)'
else
	check_contains "list --mem: none here, and what to use instead" listmem.txt '^  none here: .*use --sim --mem'
fi

# ---- exact counts from the geometry (period 1) ----
rec() { # NAME PROGRAM ARGS...: record every miss of every level
	name=$1; shift
	"$DSPROF" record -q --sim -c 1 -e sim:L1D_MISS -e sim:L2_MISS -e sim:LLC_MISS --cache "$GEOM" \
		-o "$name" -- "$@" >"$name.out" 2>"$name.err"
}

rec stride "$PROGS/sim_stride" 10
check_eq "stride: status" "$?" 0
check_eq "stride: the program's output passes through" "$(cat stride.out)" 20480
check_eq "stride: L1D misses = 2048 lines x 10 passes" "$(count stride sim_stride sweep L1D_MISS)" 20480
check_eq "stride: no L2 miss (the array fits the L2)" "$(count stride sim_stride sweep L2_MISS)" 0
check_eq "stride: no LLC miss" "$(count stride sim_stride sweep LLC_MISS)" 0

rec chase "$PROGS/sim_chase" 4
check_eq "chase: L1D misses = 4 laps x 16384 nodes" "$(count chase sim_chase chase L1D_MISS)" 65536
check_eq "chase: L2 misses = every step" "$(count chase sim_chase chase L2_MISS)" 65536
check_eq "chase: no LLC miss (the nodes fit the L3)" "$(count chase sim_chase chase LLC_MISS)" 0
# where each miss was served, and how long it took (the model's L3: 40 cycles)
"$DSPROF" report -i chase --filter 'FUNC == "chase"' --by memlevel,latency,snoop,op -f csv >chase-src.csv
check_eq "chase: every L1D miss served by the L3, a load of 32-127 cycles, no snoop" \
	"$(awk -F, 'NR > 1 && $6 != "" { print $2 "/" $3 "/" $4 "/" $5 "=" ($6 >= 65536) }' chase-src.csv | tr -d '\r')" \
	"L3/32-127/none/load=1"
"$DSPROF" report -i chase --filter 'FUNC == "chase" && latency >= 100' -f csv >slow.csv
check_eq "chase: no step takes 100 cycles or more (filter on the latency)" \
	"$(awk -F, 'NR > 1 { s += $4 } END { print s + 0 }' slow.csv)" 0

rec matrix "$PROGS/sim_matrix"
check_eq "matrix by rows: one L1D miss per line (8192)" "$(count matrix sim_matrix rows L1D_MISS)" 8192
check_eq "matrix by rows: one L2 miss per line" "$(count matrix sim_matrix rows L2_MISS)" 8192
check_eq "matrix by columns: every access misses the L1D (65536)" \
	"$(count matrix sim_matrix columns L1D_MISS)" 65536
check_eq "matrix by columns: every access misses the L2" "$(count matrix sim_matrix columns L2_MISS)" 65536
check_eq "matrix: no LLC miss" "$(count matrix sim_matrix rows LLC_MISS)$(count matrix sim_matrix columns LLC_MISS)" 00

# ---- the TLB model: 64-entry DTLB, 1536-entry STLB (12 ways), 4 KiB pages ----
# the first line of each page of a fresh buffer, pass after pass: 1024 pages
# miss the DTLB always and the STLB on the first pass only; 2048 (16 a set
# of 12 ways) miss both every time
tlb_of() { # EXPERIMENT: "TLB=loads ..." on the touch line
	"$DSPROF" report -i "$1" --filter 'FUNC == "touch_pages"' --by line,tlb -f csv 2>/dev/null |
		awk -F, -v l="sim_big.c:$(line_of sim_big touch)" '$2 == l { printf "%s=%s ", $6, $7 }'
}
"$DSPROF" record -q --sim -c 1 -e sim:loads -o tlb4 -- "$PROGS/sim_big" 4 3 >/dev/null 2>&1
check_eq "TLB: 1024 pages, 3 passes: a walk each on the first, STLB hits after" "$(tlb_of tlb4)" \
	"L2 hit=2048 walk=1024 "
"$DSPROF" record -q --sim -c 1 -e sim:loads -o tlb8 -- "$PROGS/sim_big" 8 2 >/dev/null 2>&1
check_eq "TLB: 2048 pages overflow the STLB: every touch walks" "$(tlb_of tlb8)" "walk=4096 "

# ---- memory cycles (--mem): each load its level's latency, exactly at -c 1 ----
"$DSPROF" record -q --sim --mem -c 1 --cache "$GEOM" -o mcyc -- "$PROGS/sim_chase" 4 >/dev/null 2>&1
check_eq "--sim --mem: every chase step an L3 hit of 40 cycles (65536 x 40)" \
	"$(count mcyc sim_chase chase MEM_CYCLES)" 2621440
# the latencies of a machine model file
printf 'L1D = 32K:8:64\nL2 = 256K:8:64\nL3 = 2M:16:64\nLATENCY_LLC = 50\n' >lat.machine
"$DSPROF" record -q --sim --mem -c 1 --machine lat.machine -o mlat -- "$PROGS/sim_chase" 4 >/dev/null 2>&1
check_eq "--sim --mem --machine: its LATENCY_LLC of 50 cycles a step (65536 x 50)" \
	"$(count mlat sim_chase chase MEM_CYCLES)" 3276800
"$DSPROF" record -q --sim --mem -c 1 --cache L1D=32K:8:64,L2=256K:8:64,L3=512K:16:64 -o mdram -- \
	"$PROGS/sim_chase" 4 >/dev/null 2>&1
"$DSPROF" report -i mdram --filter 'FUNC == "chase"' --by memlevel -f csv >mdram.csv
check_eq "--sim --mem, a chase over more than the L3: all its cycles from DRAM, 200 a load" \
	"$(awk -F, 'NR > 1 { t += $6; if ($2 == "local DRAM") { d += $6; n += $5 } }
		END { printf "%d%% %.0f", 100 * d / t, d / n }' mdram.csv)" "100% 200"
check_eq "--sim --mem: the chase's memory time by level; no average without sim:loads" \
	"$("$DSPROF" report -i mdram --filter 'FUNC == "chase"' --by function -f csv 2>/dev/null |
		awk -F, '$1 == "chase" { print $5 "/" $6 }')" "/100% local DRAM"
# with sim:loads recorded, the average latency of a load: cycles over loads
"$DSPROF" record -q --sim -c 1 -e sim:loads -e sim:MEM_CYCLES --cache L1D=32K:8:64,L2=256K:8:64,L3=512K:16:64 \
	-o mavg -- "$PROGS/sim_chase" 4 >/dev/null 2>&1
"$DSPROF" report -i mavg --filter 'FUNC == "chase"' --view dataobjects -f csv >mavg.csv 2>/dev/null
check_eq "--sim: a chase over DRAM, dataobjects' average latency of a load" \
	"$(awk -F, 'NR > 1 && $2 == "field" { print $1 "=" $5 "/" $6 }' mavg.csv)" "struct node.next=200/100% local DRAM"
"$DSPROF" record -q --sim --mem -c 1 --cache L1D=256K:8:64,L2=1M:8:64,L3=2M:16:64 -o ml1 -- \
	"$PROGS/sim_stride" 10 >/dev/null 2>&1
"$DSPROF" report -i ml1 --filter 'FUNC == "sweep"' --by memlevel -f csv >ml1.csv
check_eq "--sim --mem, a loop over an array that fits the L1: its cycles all from the L1" \
	"$(awk -F, 'NR > 1 { t += $6; if ($2 == "L1") l += $6 } END { printf "%d%%", 100 * l / t }' ml1.csv)" "100%"

# ---- agreement with Cachegrind, line by line ----
# D1mr + D1mw per line of the program's source file, from cachegrind.out
cg_lines() { # OUT FILE_BASENAME
	awk -v want="$2" '
		/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i; next }
		/^f[lie]=/ { n = split(substr($0, 4), p, "/"); file = p[n]; next }
		/^[0-9]/ && file == want { v = 0
			if (col["D1mr"] <= NF) v += $(col["D1mr"])
			if (col["D1mw"] <= NF) v += $(col["D1mw"])
			if (v) sum[$1] += v }
		END { for (l in sum) print l, sum[l] }' "$1" | sort -n
}
ds_lines() { # EXPERIMENT FILE_BASENAME
	"$DSPROF" report -i "$1" --view lines -f csv --limit 1000000 2>/dev/null |
		awk -F, -v want="$2" 'NR > 1 && $4 ~ ("/" want "$") && $7 > 0 { print $5, $7 }' | sort -n
}
# (run from the same folder as dsprof runs the simulator, so that the two
# clients start with the same environment, and so the same stack addresses)
for p in sim_stride sim_chase sim_matrix; do
	VALGRIND_LIB="$BUILD/sim/lib" valgrind -q --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --I1=32768,8,64 --LL=2097152,16,64 \
		--cachegrind-out-file="$p.cg" "$PROGS/$p" >/dev/null 2>"$p.cg.err"
	"$DSPROF" record -q --sim -c 1 -e sim:L1D_MISS --cache "$GEOM" -o "$p.d1" -- "$PROGS/$p" \
		>/dev/null 2>&1
	cg_lines "$p.cg" "$p.c" >"$p.cg.txt"
	ds_lines "$p.d1" "$p.c" >"$p.ds.txt"
	# every line within 1% of Cachegrind's count (so far all are exact)
	verdict=$(join -a1 -a2 -e 0 -o 0,1.2,2.2 "$p.cg.txt" "$p.ds.txt" | awk '
		{ n++; d = $2 - $3; if (d < 0) d = -d; if (d == 0) exact++; if (d * 100 > $2) bad = bad " " $1 ":" $2 "/" $3 }
		END { printf "%d %d%s\n", n, exact, bad }')
	lines=${verdict%% *}
	check_ge "$p: Cachegrind counts D1 misses on some lines" "$lines" 3
	case "$verdict" in
	*:*) not_ok "$p: D1 misses per line differ from Cachegrind's (line:cachegrind/dsprof):${verdict#* * }" ;;
	*) ok "$p: D1 misses equal Cachegrind's D1mr+D1mw on every line ($verdict lines, exact)" ;;
	esac
done

# ---- false sharing ----
N=100000
"$DSPROF" record -q --sim -e sim:HITM/1 -e sim:INVAL/1 -o fs -- "$PROGS/sim_false_sharing" adjacent $N \
	>fs.out 2>&1
check_eq "false sharing: both counters reach N" "$(cat fs.out)" "$N $N"
# (per function: the loops' line tables at -O2 are too coarse to name lines)
hitm_a=$(fn fs bump_a HITM)
hitm_b=$(fn fs bump_b HITM)
check_ge "false sharing: HITM on the shared line >= N/2" $((hitm_a + hitm_b)) $((N / 2))
check_ge "false sharing: both threads suffer it (a)" "$hitm_a" $((N / 4))
check_ge "false sharing: both threads suffer it (b)" "$hitm_b" $((N / 4))
inval=$(( $(fn fs bump_a INVAL) + $(fn fs bump_b INVAL) ))
check_ge "false sharing: the stores invalidate the other core's copy" "$inval" $((N / 2))
hitm=$((hitm_a + hitm_b))
"$DSPROF" record -q --sim -e sim:HITM/1 -e sim:INVAL/1 -o pad -- "$PROGS/sim_false_sharing" padded $N \
	>/dev/null 2>&1
padhitm=$(( $(fn pad bump_a HITM) + $(fn pad bump_b HITM) ))
check "padded: HITM under 1% of the shared line's ($padhitm vs $hitm)" test $((padhitm * 100)) -lt "$hitm"

# ---- sampled counts do not alias with a regular loop ----
# A lap of sim_alias makes 1009 L1D misses, the default period: 505 on
# node.key, 504 on node.val, interleaved (fields) or one after the other
# (blocks); building the ring misses once more on each node's lines, but
# for one key the walk finds still cached.
alias_count() { # EXPERIMENT FIELD: the field's count (sum of periods)
	"$DSPROF" report -i "$1" -v dataobjects -f csv 2>/dev/null | tr -d '\r' |
		awk -F, -v f="struct node.$2" '$1 == f { print $NF }'
}
for m in fields:504 blocks:505; do
	mode=${m%%:*} first=${m#*:}
	"$DSPROF" record -q --sim -c 1 -e sim:L1D_MISS --cache "$GEOM" -o "alias1-$mode" -- \
		"$PROGS/sim_alias" "$mode" 100 >/dev/null 2>&1
	check_eq "alias $mode: -c 1 counts every miss of node.key" "$(alias_count "alias1-$mode" key)" \
		$((505 * 100 + first))
	check_eq "alias $mode: and every miss of node.val" "$(alias_count "alias1-$mode" val)" $((504 * 100 + 505))
	"$DSPROF" record --sim -e sim:L1D_MISS --cache "$GEOM" -o "alias-$mode" -- \
		"$PROGS/sim_alias" "$mode" 20000 >/dev/null 2>"alias-$mode.err"
	for f in key:505:$first val:504:505; do
		n=${f#*:} want=$((${n%%:*} * 20000 + ${n#*:}))
		check_within "alias $mode: the default period estimates node.${f%%:*} within 3%" \
			"$(alias_count "alias-$mode" "${f%%:*}")" "$want" $((want * 3 / 100))
	done
	# one sample a window of 1009 misses, each weighing 1009: the
	# periods add up to the exact count, within a period
	total=$(sed -n 's/.*simulated [0-9]* accesses: sim:L1D_MISS \([0-9]*\).*/\1/p' "alias-$mode.err")
	"$DSPROF" report -i "alias-$mode" --view samples -f csv 2>/dev/null | tr -d '\r' |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "period") p = i; next }
			{ n++; s += $p; if ($p != 1009) odd++ } END { print s + 0, odd + 0, n + 0 }' \
			>"alias-$mode.periods"
	check_ge "alias $mode: the exact count on stderr, a lap's misses a lap" "${total:-0}" $((1009 * 20000))
	check_within "alias $mode: the periods add up to the count" "$(cut -d' ' -f1 "alias-$mode.periods")" \
		"${total:-0}" 1009
	check_ge "alias $mode: about a sample a lap" "$(cut -d' ' -f3 "alias-$mode.periods")" 19900
	check_eq "alias $mode: every period is 1009" "$(cut -d' ' -f2 "alias-$mode.periods")" 0
done
# Where a sample falls in its window is drawn apart from the last one:
# in the blocks, the next sample is as likely on the other field as on
# the same.  (Gaps drawn around the period, as PMUs randomize their low
# bits, left it near the same place of the lap, on the same field for 87%
# of the samples: estimates off by 3.9% at 2000 laps.)
"$DSPROF" report -i alias-blocks --view samples -f csv 2>/dev/null | tr -d '\r' |
	awk -F, '$1 == "sweep" { if (prev != "") { n++; same += $7 == prev } prev = $7 }
		END { printf "%d\n", n ? same * 100 / n : 100 }' >alias.same
check_within "alias blocks: consecutive samples on the same field half the time (%)" "$(cat alias.same)" 50 5

# ---- the same program, the same counts: threads take turns ----
# (four threads hand a token round: futex waits, wakes, prints, joins)
for r in 1 2; do
	"$DSPROF" record --sim -e sim:HITM -e sim:stores -e sim:L1D_MISS -o "turns$r" -- "$PROGS/sim_turns" \
		>"turns$r.out" 2>"turns$r.err"
	# every sample but its process and thread ids (the kernel's)
	"$DSPROF" report -i "turns$r" --view samples -f csv 2>/dev/null | cut -d, -f1,2,5- >"turns$r.samples"
done
check_eq "two runs of four threads: the program's output" "$(tail -1 turns1.out)" "token 800 sum 79600"
check_eq "two runs of four threads: the same exact counts" "$(grep simulated turns1.err)" "$(grep simulated turns2.err)"
check_ge "two runs of four threads: samples" "$(wc -l <turns1.samples)" 100
check "two runs of four threads: the same samples, one by one" cmp -s turns1.samples turns2.samples
check "two runs of four threads: the order held (no thread waited for)" \
	test ! -s "$(ls turns1/sim/valgrind.*.log 2>/dev/null | head -1)"

# ---- an atomic read-modify-write is one load and one store ----
# (Valgrind makes a lock add a load and a compare-and-swap)
"$DSPROF" record -q --sim -c 1 -e sim:loads,sim:stores -o rmw -- "$PROGS/sharing" global 4096 >rmw.out 2>&1
"$DSPROF" report -i rmw --view pcs -f csv 2>/dev/null | grep '^add_tally.*lock add' >rmw.csv
check_eq "lock add: one load and one store each time (2 threads x 4096, loads/stores)" \
	"$(tr -d '\r' <rmw.csv | awk -F, '{ print $(NF-2) "/" $NF }')" "8192/8192"

# ---- the dataspace programs: exact addresses put the hot field on top ----
# (not chase: its list is built by a store to every node in random order, as
# many misses as the walk makes, and the model counts that tie exactly.
# The scenarios run one after the other, a process each, in one recording
# reported once, by process.)
"$DSPROF" record -q --sim -e sim:L1D_MISS -o ds -- sh -c '
	for sc in stream global twoptr union bitfield stack; do
		"$0" "$sc" 1 >/dev/null &
		echo "$! $sc" >>ds.pids
		wait $!
	done' "$PROGS/dsfields" >/dev/null 2>&1
"$DSPROF" report -i ds --by thread,field -f csv >ds.csv 2>/dev/null
check_eq "dsfields: the six scenarios ran" "$(wc -l <ds.pids)" 6
while read -r pid name; do
	case $name in
	stream) want="struct particle.mass" ;;
	global) want="struct entry.val" ;;
	twoptr) want="struct slot.hits" ;;
	union) want="struct item.v.f" ;;
	bitfield) want="struct flags.count" ;;
	stack) want="struct rec.score" ;;
	esac
	awk -F, -v pid="$pid" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "samples:sim:L1D_MISS") k = i; if ($i == "pid") p = i }; next }
		$p == pid && $6 == "field" { n[$1] += $k } END { for (f in n) print n[f] "," f }' ds.csv |
		sort -t, -k1,1nr >"ds-$name.top"
	top=$(sed -n 1p "ds-$name.top" | cut -d, -f2-)
	n1=$(sed -n 1p "ds-$name.top" | cut -d, -f1)
	n2=$(sed -n 2p "ds-$name.top" | cut -d, -f1)
	if [ "$top" = "$want" ] && [ "${n1:-0}" -ge $((10 * ${n2:-0} + 10)) ]; then
		ok "dsfields $name: $want on top for sim:L1D_MISS ($n1 samples, next ${n2:-0})"
	else
		not_ok "dsfields $name: want $want on top, got: $(head -3 "ds-$name.top" | tr '\n' ' ')"
	fi
done <ds.pids

# ---- the experiment ----
check_eq "meta.json backend" "$("$TOOLS/dsjq" .backend stride/meta.json)" sim
check_eq "meta.json: the simulated L1D" "$("$TOOLS/dsjq" '.caches[0].size' stride/meta.json)" 32768
check_eq "meta.json: events precise" "$("$TOOLS/dsjq" '.events[0].precise' stride/meta.json)" true
check_eq "meta.json: period" "$("$TOOLS/dsjq" '.events[0].period' stride/meta.json)" 1
check_eq "meta.json: event name" "$("$TOOLS/dsjq" '.events[1].name' stride/meta.json)" sim:L2_MISS
perf report -i stride/perf.data --stdio --sort sym >perf.txt 2>perf.err
check_eq "perf report reads it" "$?" 0
check_eq "perf report: no warnings" "$(cat perf.err)" ""
check_contains "perf report: the program's functions" perf.txt '\[\.\] sweep'
check_contains "perf report: the event's name" perf.txt "of event 'sim:L1D_MISS'"

"$DSPROF" record --sim -o dflt -- "$PROGS/sim_stride" 2 >/dev/null 2>dflt.err
check_contains "default events, exact totals on stderr" dflt.err \
	'simulated [0-9]+ accesses: sim:L1D_MISS [0-9]+, sim:LLC_MISS [0-9]+, sim:HITM 0'
check_eq "default: call chains" "$("$TOOLS/dsjq" .callchains dflt/meta.json)" true
"$DSPROF" report -i dflt -f csv >dflt.csv 2>/dev/null
check_ge "call chains: main includes sweep" "$(csv_lookup dflt.csv name main incl_count:sim:L1D_MISS)" 4000

# exit status, stderr, crashes and Ctrl-C pass through as with perf_event
"$DSPROF" record -q --sim -o ex -- "$PROGS/behave" exit 42 >ex.out 2>ex.err
check_eq "target's exit status is dsprof's" "$?" 42
check_eq "target's stdout untouched" "$(cat ex.out)" "to stdout"
check_eq "target's stderr untouched (-q)" "$(cat ex.err)" "to stderr"
"$DSPROF" record -q --sim -o crash -- "$PROGS/behave" crash >/dev/null 2>&1
check_eq "crashed target: status 128+SIGSEGV" "$?" 139
check_eq "crashed target: exit status in meta.json" "$("$TOOLS/dsjq" .exit_status crash/meta.json)" 139
setsid env --default-signal=INT "$DSPROF" record -q --sim -o int -- "$PROGS/behave" spin 60 >/dev/null 2>&1 &
pid=$!
sleep 3
kill -INT "-$pid"
wait "$pid"
check_eq "Ctrl-C: status 128+SIGINT" "$?" 130
"$DSPROF" report -i int -f csv >int.csv 2>int.err
check_eq "Ctrl-C: experiment readable" "$?" 0

# threads, a fork and an exec: every process's functions resolve
"$DSPROF" record -q --sim -e sim:L1D_MISS/100 -o fork -- "$PROGS/sim_fork" "$PROGS/sim_stride" 2 >/dev/null 2>&1
check_eq "fork/exec: status" "$?" 0
for f in thread_work parent_work child_work; do
	check_ge "fork/exec: $f attributed" "$(fn fork "$f" L1D_MISS)" 10000
done
check_ge "fork/exec: the exec'd program's sweep" "$(fn fork sweep L1D_MISS)" 4000
"$DSPROF" report -i fork -v threads -f csv >forkt.csv 2>/dev/null
check_ge "fork/exec: two processes" "$(csv_col forkt.csv pid | sort -u | wc -l)" 2
check_ge "fork/exec: three threads" "$(($(wc -l <forkt.csv) - 1))" 3

# errors are one line
"$DSPROF" record --sim -e sim:BOGUS -o bad -- "$PROGS/sim_stride" >/dev/null 2>bad.err
check_eq "unknown simulated event: status 1" "$?" 1
check_contains "unknown simulated event: names the events" bad.err '^dsprof: unknown simulated event .sim:BOGUS.*sim:HITM'
"$DSPROF" record --sim -e cpu-clock -o bad -- "$PROGS/sim_stride" >/dev/null 2>bad2.err
check_eq "--sim with a perf event: status 1" "$?" 1
"$DSPROF" record --cache L1D=32K:8:64 -o bad -- "$PROGS/sim_stride" >/dev/null 2>bad3.err
check_eq "--cache without --sim: status 1" "$?" 1
"$DSPROF" record --sim --cache L1D=32K:7:48 -o bad -- "$PROGS/sim_stride" >/dev/null 2>bad4.err
check_eq "impossible geometry: status 1" "$?" 1
check_eq "impossible geometry: one line" "$(wc -l <bad4.err)" 1
PATH=/nonexistent "$DSPROF" record --sim -o bad -- "$PROGS/sim_stride" >/dev/null 2>novg.err
check_eq "no valgrind: status 2" "$?" 2
check_eq "no valgrind: what to install" "$(cat novg.err)" "dsprof: --sim needs valgrind (apt-get install valgrind)"
check "no valgrind: no experiment left" test ! -e bad

# ---- a program of a few hundred MB taking a signal every millisecond ----
t0=$(date +%s.%N)
"$DSPROF" record -q --sim -c 1 -e sim:L1D_MISS -e sim:LLC_MISS --cache "$GEOM" -o big -- \
	"$PROGS/sim_big" 300 4 >big.out 2>bigrec.err
check_eq "300 MB: status" "$?" 0
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }')
check "not on a terminal: no progress line in a pipe" sh -c "! grep -q \"\$(printf '\r')\" bigrec.err"
check_eq "300 MB: the program ran right, signals included" "$(cat big.out)" "76800 4 signals sum-ok"
check_eq "300 MB: one L1D miss per page and pass" "$(count big sim_big touch L1D_MISS)" 307200
check_eq "300 MB: and one LLC miss" "$(count big sim_big touch LLC_MISS)" 307200
check_ge "signals: the handler's stores are simulated" "$(fn big on_alarm L1D_MISS)" 1
"$DSPROF" report -i big -f csv >big.csv 2>/dev/null
incl=$(csv_lookup big.csv name touch_pages incl_count:sim:L1D_MISS)
check_ge "signals: call chains go through the signal frame" "${incl:-0}" 307201
"$DSPROF" report -i big --view summary -f json >big.json 2>big.err
check_ge "summary: the logical clock counts accesses" "$("$TOOLS/dsjq" .properties.logical_time big.json)" 307200
# wall time, not the logical clock's accesses read as nanoseconds (under a
# millisecond): within the wall time the test measured around the
# recording, less Valgrind's start and record's own work after the program
# (two thirds of it here, a half under the sanitizers and a busy machine)
dur=$("$TOOLS/dsjq" .properties.duration_s big.json)
check_within "summary: the duration is wall time" "${dur:-0}" "$(awk -v w="$wall" 'BEGIN { print w * 0.625 }')" \
	"$(awk -v w="$wall" 'BEGIN { print w * 0.375 }')"

# ---- data sources in perf's encoding, read by perf mem ----
perf mem report -i stride/perf.data --stdio --sort mem >mem.txt 2>mem.err
check_eq "perf mem report reads it" "$?" 0
check_contains "perf mem report: misses served by the L2" mem.txt 'L2 hit'
perf script -i big/perf.data -F event,data_src,weight 2>/dev/null | sort | uniq -c | sort -rn >src.txt
check_contains "data source: the LLC misses come from RAM" src.txt \
	'sim:LLC_MISS: +[0-9a-f]+ \|OP (LOAD|STORE)\|LVL Local RAM or RAM hit\|SNP Miss.* 200$'
"$DSPROF" record -q --sim -e sim:HITM/1 -o fs2 -- "$PROGS/sim_false_sharing" adjacent 1000 >/dev/null 2>&1
perf script -i fs2/perf.data -F data_src 2>/dev/null | sort | uniq -c | sort -rn >hitm.txt
check_contains "data source: HITM is a hit in a modified line of another cache" hitm.txt 'SNP HitM'

# ---- a machine model file ----
"$DSPROF" record -q --sim --machine "$TOP/docs/machines/amd-k8.machine" -o k8 -- "$PROGS/sim_stride" 1 >/dev/null 2>&1
check_eq "--machine: the model's L1D" "$("$TOOLS/dsjq" '.caches[0].size' k8/meta.json)/$("$TOOLS/dsjq" '.caches[0].ways' k8/meta.json)" 65536/2

# ---- on a terminal: progress while the simulator runs, gone at the end ----
if command -v tmux >/dev/null 2>&1; then
	SOCK="$T/tmux.sock"
	tmux -S "$SOCK" -f /dev/null new-session -d -s rec -x 150 -y 10 \
		"'$DSPROF' record --sim -q -o tty -- '$PROGS/behave' spin 5; echo RECORD-EXIT=\$?; sleep 60"
	seen="" i=0
	# until the progress line shows, or the recording ends (120 s at most)
	while [ "$i" -lt 1200 ]; do
		tmux -S "$SOCK" capture-pane -p -t rec >tty.txt 2>/dev/null
		grep -Eq 'dsprof: simulated accesses: [0-9]+, [0-9]+ s' tty.txt && seen=1
		grep -q 'RECORD-EXIT=' tty.txt && break
		sleep 0.1
		i=$((i + 1))
	done
	check "on a terminal: the simulator's progress, accesses and seconds" test -n "$seen"
	check_contains "... the recording ended" tty.txt 'RECORD-EXIT=0'
	check "... and the progress line is gone at its end" sh -c "! grep -q 'simulated accesses:' tty.txt"
	tmux -S "$SOCK" kill-server 2>/dev/null
else
	not_ok "tmux is not installed ('make deps' installs it): the progress line cannot be checked"
fi
