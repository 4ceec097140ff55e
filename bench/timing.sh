# Timing helpers the benchmarks share, sourced by them: each run is timed
# alone, and a configuration keeps the minimum of its runs.

now() { date +%s.%N; }
# time_of CMD...: wall seconds of one run
time_of() {
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
min() { sort -g | head -1; }
# self_time CMD...: the chase_seconds the program (bench/membound) reports about itself
self_time() {
	"$@" 2>&1 >/dev/null | awk '/^chase_seconds/ { print $2 }'
}
