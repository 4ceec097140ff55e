#!/bin/sh
# Call chains from stack copies (--call-graph dwarf) against perf's own
# dwarf mode, measured in the same run:
#
#   bench/callgraph.sh BUILD_DIR
#
# 1. Recording dilation, cpu-clock every 250000 ns with 8192-byte stack
#    copies (perf record --call-graph dwarf,8192 and dsprof record
#    --call-graph dwarf,8192): the memory-bound bench program (its own
#    timing of its work) and SQLite's speedtest1 (the whole command), each
#    the minimum of RUNS interleaved runs; and the experiments' sizes (perf
#    keeps every copy, dsprof unwinds them when the recording ends and keeps
#    the chains).  Targets: dsprof's dilation <= perf's + 1 percentage
#    point, its experiment no larger than perf's.
# 2. The same chains: one perf.data recorded by perf's dwarf mode on
#    speedtest1, unwound by `dsprof report --format folded` and by `perf
#    script` (folded the same way, functions only): the share of samples
#    whose whole chain is the same in both.  Target: >= 99%.  The paths
#    that differ are printed.
# 3. Report speed with dwarf chains: about 100k samples of speedtest1
#    (every 50000 ns, 4096-byte copies), `dsprof report --format folded`
#    against `perf report --stdio --no-children` on the same perf.data,
#    both unwinding every sample.  Target: >= 10x.
# speedtest1 is the one bench/realprogs.sh builds from Debian's sources.
set -eu
BUILD=$(cd "${1:?usage: bench/callgraph.sh BUILD_DIR}" && pwd)
DSPROF="$BUILD/dsprof"
MEMBOUND="$BUILD/bench/membound"
SPEEDTEST="$BUILD/real/speedtest1"
RUNS=${RUNS:-5}
W=$(mktemp -d /tmp/dsprof-callgraph.XXXXXX)
trap 'rm -rf "$W"' EXIT

. "$(dirname "$0")/timing.sh"
# perf script's chains folded as dsprof folds them: outermost caller first
fold_perf() {
	awk '/^[^ \t]/ { if (n) emit(); n = 0; next }
		/^\t/ { sym = $2; for (i = 3; i <= NF; i++) sym = sym " " $i; s[n++] = sym; next }
		/^$/ { if (n) emit(); n = 0 }
		function emit(   i, p) { p = s[n - 1]; for (i = n - 2; i >= 0; i--) p = p ";" s[i]; c[p]++ }
		END { if (n) emit(); for (p in c) print p, c[p] }'
}
PERF_DWARF="perf record -q -e cpu-clock -c 250000 --call-graph dwarf,8192"
DS_DWARF="$DSPROF record -q -e cpu-clock -c 250000 --call-graph dwarf,8192"

echo "== call chains from stack copies: recording dilation (cpu-clock every 250000 ns, 8192-byte copies)"
for f in splain sperf sdsprof plain perf dsprof; do : >"$W/$f"; done
have_sqlite=false
[ -x "$SPEEDTEST" ] && have_sqlite=true
i=0
while [ "$i" -lt "$RUNS" ]; do
	self_time "$MEMBOUND" >>"$W/splain"
	self_time $PERF_DWARF -o "$W/p.data" "$MEMBOUND" >>"$W/sperf"
	self_time $DS_DWARF -o "$W/d.exp" -- "$MEMBOUND" >>"$W/sdsprof"
	if $have_sqlite; then
		time_of "$SPEEDTEST" --size 30 >>"$W/plain"
		time_of $PERF_DWARF -o "$W/sq.data" "$SPEEDTEST" --size 30 >>"$W/perf"
		time_of $DS_DWARF -o "$W/sq.exp" -- "$SPEEDTEST" --size 30 >>"$W/dsprof"
	fi
	i=$((i + 1))
done
dilation() { # label plain perf dsprof perf-bytes dsprof-bytes
	awk -v l="$1" -v p="$2" -v f="$3" -v d="$4" -v fb="$5" -v db="$6" 'BEGIN {
		pf = (f / p - 1) * 100; pd = (d / p - 1) * 100;
		printf "%s: plain %.3f s   perf %.3f s (%+.2f%%)   dsprof %.3f s (%+.2f%%)\n", l, p, f, pf, d, pd;
		printf "%s: dsprof - perf = %+.2f percentage points (target <= +1.00): %s\n", l, pd - pf,
			(pd - pf <= 1.0) ? "PASS" : "FAIL";
		printf "%s: experiment %.2f MB, perf.data %.2f MB (target: no larger): %s\n", l, db / 1e6, fb / 1e6,
			(db <= fb) ? "PASS" : "FAIL" }'
}
size_of() { du -sb "$1" | awk '{ print $1 }'; }
dilation "membound (its own time)" "$(min <"$W/splain")" "$(min <"$W/sperf")" "$(min <"$W/sdsprof")" \
	"$(size_of "$W/p.data")" "$(size_of "$W/d.exp")"
if $have_sqlite; then
	dilation "speedtest1 --size 30" "$(min <"$W/plain")" "$(min <"$W/perf")" "$(min <"$W/dsprof")" \
		"$(size_of "$W/sq.data")" "$(size_of "$W/sq.exp")"
else
	echo "speedtest1: not built ($SPEEDTEST): bench/realprogs.sh builds it; its lines are left out"
	echo "FAIL: the SQLite figures of this section are missing"
fi

echo
echo "== the same chains as perf's (one perf.data of perf's dwarf mode, speedtest1 --size 60)"
if $have_sqlite; then
	$PERF_DWARF -o "$W/cmp.data" "$SPEEDTEST" --size 60 >/dev/null 2>&1
	"$DSPROF" report -i "$W/cmp.data" --format folded >"$W/ds.folded"
	perf script -i "$W/cmp.data" -F comm,tid,ip,sym --no-inline 2>/dev/null | fold_perf >"$W/perf.folded"
	awk 'FNR == NR { n = $NF; $NF = ""; a[$0] += n; ta += n; next } { n = $NF; $NF = ""; b[$0] += n; tb += n }
		END { for (p in a) if (p in b) m += (a[p] < b[p] ? a[p] : b[p]);
			t = ta > tb ? ta : tb;
			printf "%d samples (perf %d): the same chain for %d, %.2f%% (target >= 99%%): %s\n",
				ta, tb, m, 100 * m / t, (100 * m / t >= 99) ? "PASS" : "FAIL" }' "$W/ds.folded" "$W/perf.folded"
	echo "paths whose counts differ (d: dsprof, p: perf), the first 6:"
	awk 'FNR == NR { n = $NF; $NF = ""; a[$0] += n; next } { n = $NF; $NF = ""; b[$0] += n }
		END { for (p in a) if (a[p] != b[p]) printf "  d %d p %d  %s\n", a[p], b[p], p;
			for (p in b) if (!(p in a)) printf "  d 0 p %d  %s\n", b[p], p }' \
		"$W/ds.folded" "$W/perf.folded" | sort -k2 -nr | head -6 | cut -c1-220
else
	echo "FAIL: speedtest1 is not built; bench/realprogs.sh builds it"
fi

echo
echo "== report speed with dwarf chains (same perf.data, ~100k samples, every sample unwound)"
if $have_sqlite; then
	perf record -q -e cpu-clock -c 50000 --call-graph dwarf,4096 -o "$W/big.data" "$SPEEDTEST" --size 250 \
		>/dev/null 2>&1
	n=$(perf report -i "$W/big.data" --stdio --no-children --sort comm 2>/dev/null |
		awk '/^# Samples:/ { v = $3; if (v ~ /K$/) { sub(/K/, "", v); v *= 1000 } print v; exit }')
	: >"$W/rp"; : >"$W/rd"
	i=0
	while [ "$i" -lt 3 ]; do
		time_of perf report -i "$W/big.data" --stdio --no-children >>"$W/rp"
		time_of "$DSPROF" report -i "$W/big.data" --format folded >>"$W/rd"
		i=$((i + 1))
	done
	awk -v n="$n" -v p="$(min <"$W/rp")" -v d="$(min <"$W/rd")" -v mb="$(size_of "$W/big.data")" 'BEGIN {
		printf "%s samples (%.0f MB): perf report %.2f s   dsprof report %.2f s   ratio %.1fx (target >= 10x): %s\n",
			n, mb / 1e6, p, d, p / d, (p / d >= 10) ? "PASS" : "FAIL" }'
else
	echo "FAIL: speedtest1 is not built; bench/realprogs.sh builds it"
fi
