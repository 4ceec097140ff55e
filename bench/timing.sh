# Timing helpers the benchmarks share, sourced by them: each run is timed
# alone; a configuration keeps the minimum of its runs, or, where runs
# drift more than the target's margin, the median of paired rounds.

now() { date +%s.%N; }
# time_of CMD...: wall seconds of one run
time_of() {
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
min() { sort -g | head -1; }
# An awk function for the benchmarks' awk programs: median(a, n) of
# a[1..n], which it sorts.
AWK_MEDIAN='
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}'
# median_of FILE: the median of the numbers in FILE, one a line
median_of() { awk "$AWK_MEDIAN"'{ a[++n] = $1 } END { print median(a, n) }' "$1"; }
# self_time CMD...: the chase_seconds the program (bench/membound) reports about itself
self_time() {
	"$@" 2>&1 >/dev/null | awk '/^chase_seconds/ { print $2 }'
}
