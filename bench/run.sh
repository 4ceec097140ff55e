#!/bin/sh
# dsprof benchmarks against perf, measured in the same run, printed as ratios.
#
#   bench/run.sh BUILD_DIR
#
# 1. Recording dilation: a memory-bound program run plain, under
#    `perf record` and under `dsprof record`, same event (cpu-clock) and
#    period (250000 ns, the default rate) and both with call chains.
#    Dilation is measured on the program's own timing of its work (what
#    sampling costs it) and, for reference, on the whole command (which adds
#    each tool's start-up and wrap-up).  Each configuration runs RUNS times,
#    interleaved; the minimum is kept.
#    Target: dsprof's dilation <= perf's + 1 percentage point.
# 2. Report speed: `dsprof report` (functions) against
#    `perf report --stdio --sort sym` on the same perf.data.  Target: >= 5x.
# 3. Groupings (report --by KEYS) against perf report --sort with the same
#    keys on the same perf.data.  Target: no slower than perf.
# 4. Report cost against the number of samples: the same program recorded
#    for 1x and 8x as long (same unique instructions, 8x the samples).
# Then bench/layout.sh, bench/layout_objects.sh (relocatable objects' types
# against pahole's, counted), bench/sim.sh, bench/realprogs.sh (real
# programs from Debian sources, SQLite and LevelDB: the share of their
# samples resolved to typed data, per backend), bench/callgraph.sh (call
# chains from stack copies against perf's dwarf mode: dilation, size, the
# same chains, report speed), bench/heap.sh (record
# --heap's cost against heaptrack and DHAT, and its reach on SQLite),
# bench/tui.sh (dsprof tui on ten million samples: first screen, keys,
# memory) and bench/group.sh (a group of 256 experiments merged: time and
# memory against reading them one after another), each with its own targets.
set -eu
BUILD=$(cd "${1:?usage: bench/run.sh BUILD_DIR}" && pwd)
DSPROF="$BUILD/dsprof"
MEMBOUND="$BUILD/bench/membound"
RUNS=${RUNS:-5}
W=$(mktemp -d /tmp/dsprof-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

. "$(dirname "$0")/timing.sh"

echo "== recording dilation (memory-bound program, cpu-clock every 250000 ns, call chains)"
for f in plain perf dsprof splain sperf sdsprof; do : >"$W/$f"; done
time_of "$MEMBOUND" 2 >/dev/null # warm-up: page cache, CPU frequency
i=0
while [ "$i" -lt "$RUNS" ]; do
	time_of "$MEMBOUND" >>"$W/plain"
	time_of perf record -q -e cpu-clock -c 250000 -g -o "$W/p.data" "$MEMBOUND" >>"$W/perf"
	time_of "$DSPROF" record -q -e cpu-clock -c 250000 -o "$W/d.data" -- "$MEMBOUND" >>"$W/dsprof"
	self_time "$MEMBOUND" >>"$W/splain"
	self_time perf record -q -e cpu-clock -c 250000 -g -o "$W/p.data" "$MEMBOUND" >>"$W/sperf"
	self_time "$DSPROF" record -q -e cpu-clock -c 250000 -o "$W/d.data" -- "$MEMBOUND" >>"$W/sdsprof"
	i=$((i + 1))
done
report_dilation() { # label plain perf dsprof
	awk -v l="$1" -v p="$2" -v f="$3" -v d="$4" 'BEGIN {
		pf = (f / p - 1) * 100; pd = (d / p - 1) * 100;
		printf "%s: plain %.3f s   perf record %.3f s (%+.2f%%)   dsprof record %.3f s (%+.2f%%)\n", l, p, f, pf, d, pd;
		printf "%s: dsprof - perf = %+.2f percentage points (target <= +1.00): %s\n", l, pd - pf, (pd - pf <= 1.0) ? "PASS" : "FAIL" }'
}
report_dilation "the program's own time" "$(min <"$W/splain")" "$(min <"$W/sperf")" "$(min <"$W/sdsprof")"
report_dilation "whole command" "$(min <"$W/plain")" "$(min <"$W/perf")" "$(min <"$W/dsprof")"

echo
echo "== report speed (same perf.data; functions view vs perf report --stdio --sort sym)"
"$DSPROF" record -q -e cpu-clock -c 100000 -o "$W/big" -- "$BUILD/tests/programs/example" 300 >/dev/null
samples=$("$DSPROF" report -i "$W/big" -v summary -f csv | awk -F, 'NR == 2 { print $(NF-1) }')
: >"$W/rperf" ; : >"$W/rds"
i=0
while [ "$i" -lt "$RUNS" ]; do
	time_of perf report -i "$W/big/perf.data" --stdio --sort sym >>"$W/rperf"
	time_of "$DSPROF" report -i "$W/big" >>"$W/rds"
	i=$((i + 1))
done
rp=$(min <"$W/rperf"); rd=$(min <"$W/rds")
awk -v p="$rp" -v d="$rd" -v n="$samples" 'BEGIN {
	printf "%d samples: perf report %.3f s   dsprof report %.3f s   ratio %.1fx (target >= 5x): %s\n",
		n, p, d, p / d, (p / d >= 5) ? "PASS" : "FAIL" }'

echo
echo "== groupings (report --by) against perf report's sort keys (same perf.data)"
# each line: dsprof's keys, perf's --sort keys
: >"$W/groups"
for pair in "thread tid" "module,function dso,sym" "function,thread sym,tid"; do
	by=${pair% *} sortk=${pair#* }
	: >"$W/gp"; : >"$W/gd"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		time_of perf report -i "$W/big/perf.data" --stdio --sort "$sortk" >>"$W/gp"
		time_of "$DSPROF" report -i "$W/big" --by "$by" >>"$W/gd"
		i=$((i + 1))
	done
	awk -v b="$by" -v k="$sortk" -v p="$(min <"$W/gp")" -v d="$(min <"$W/gd")" 'BEGIN {
		printf "--by %-16s %.3f s   perf report --sort %-8s %.3f s   ratio %.1fx (target >= 1x): %s\n",
			b, d, k, p, p / d, (p / d >= 1) ? "PASS" : "FAIL" }'
done
: >"$W/gdf"
i=0
while [ "$i" -lt "$RUNS" ]; do time_of "$DSPROF" report -i "$W/big" --by function,field >>"$W/gdf"; i=$((i + 1)); done
awk -v d="$(min <"$W/gdf")" -v n="$samples" 'BEGIN {
	printf "--by function,field (perf has no such key without a PMU): %.3f s, %.2f us/sample\n", d, d / n * 1e6 }'

echo
echo "== report cost against samples (same program: 1x and 8x the samples)"
"$DSPROF" record -q -e cpu-clock -c 100000 -o "$W/s1" -- "$BUILD/tests/programs/example" 40 >/dev/null
"$DSPROF" record -q -e cpu-clock -c 100000 -o "$W/s8" -- "$BUILD/tests/programs/example" 320 >/dev/null
for e in s1 s8; do
	: >"$W/t$e"
	i=0
	while [ "$i" -lt "$RUNS" ]; do time_of "$DSPROF" report -i "$W/$e" -v pcs >>"$W/t$e"; i=$((i + 1)); done
	n=$("$DSPROF" report -i "$W/$e" -v summary -f json | "$BUILD/tests/tools/dsjq" .properties.samples)
	u=$("$DSPROF" report -i "$W/$e" -v summary -f json | "$BUILD/tests/tools/dsjq" .properties.unique_instructions)
	printf '%s %s %s %s\n' "$e" "$n" "$u" "$(min <"$W/t$e")" >>"$W/scale"
done
awk '{ n[NR] = $2; u[NR] = $3; t[NR] = $4;
	printf "%s: %d samples, %d unique instructions, report (pcs view) %.3f s, %.2f us/sample\n", $1, $2, $3, $4, $4 / $2 * 1e6 }
	END { printf "8x the samples cost %.1fx the time (%.1fx the unique instructions)\n", t[2] / t[1], u[2] / u[1] }' "$W/scale"
echo; "$BUILD/bench/mobj_eval"
echo; sh "$(dirname "$0")/layout.sh" "$BUILD"
sh "$(dirname "$0")/layout_objects.sh" "$BUILD"
sh "$(dirname "$0")/sim.sh" "$BUILD"
sh "$(dirname "$0")/realprogs.sh" "$BUILD"
echo; sh "$(dirname "$0")/callgraph.sh" "$BUILD"
sh "$(dirname "$0")/heap.sh" "$BUILD"
echo; sh "$(dirname "$0")/tui.sh" "$BUILD"
sh "$(dirname "$0")/group.sh" "$BUILD"
