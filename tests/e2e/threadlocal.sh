# Thread-local variables (__thread) in the data objects: named by their
# offset from the thread pointer, whether the code reaches them at a
# constant %fs offset or through the thread pointer in a register, as GCC
# and Clang write either; never <stack> (a thread's locals sit at the top
# of its stack's mapping) nor <in no block> (the main thread's, in the
# loader's memory).  tests/programs/tlsvars.c: three threads, each filling
# and summing its own array `values` and counting its rounds in its own
# volatile `stats`.
. "$TOP/tests/lib.sh"

# rows EXP [FILTER]: the data objects of EXP's samples in work, "name,samples"
rows() {
	"$DSPROF" report -i "$1" --view dataobjects --filter 'FUNC == "work"' -f csv >"$1.csv" 2>"$1.err"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^samples:/) k = i; next } { print $1 "," $k }' \
		"$1.csv"
}

# Every load a sample: exact.  A round of a thread loads stats.rounds once.
R=20
"$DSPROF" record -q -o sim --sim -c 1 -e sim:loads -- "$PROGS/tlsvars" $R >sim.out 2>sim.err
check_eq "--sim: recorded" "$?" 0
rows sim >sim.rows
check_eq "--sim: the rounds' loads of struct tstats.rounds, every one" \
	"$(awk -F, '$1 == "struct tstats.rounds" { print $2 }' sim.rows)" $((3 * R))
v=$(awk -F, '$1 == "values (double [2048])" { print $2 }' sim.rows)
all=$(awk -F, '$1 !~ /^struct tstats\./ { s += $2 } END { print s + 0 }' sim.rows)
check "--sim: the array's loads are values's (${v:-0} of $all)" test "$((${v:-0} * 1000))" -ge "$((all * 999))"
check_eq "--sim: no load of work is <stack>, unknown or in no block" \
	"$(grep -c '^<stack>,\|^<unknown\|^<in no block>\|^<thread-local>' sim.rows)" 0
check_contains "--sim: the thread pointer's load is the control block's" sim.rows '^<thread control block>,3$'

# Clang reaches the array %fs-relative with an index (addpd %fs:-0x4000(,%rsi,8))
if clang -std=gnu11 -O2 -g -pthread -o tlsvars-clang "$TOP/tests/programs/tlsvars.c" 2>clang.err; then
	"$DSPROF" record -q -o simc --sim -c 1 -e sim:loads -- ./tlsvars-clang $R >/dev/null 2>simc.err
	rows simc >simc.rows
	v=$(awk -F, '$1 == "values (double [2048])" { print $2 }' simc.rows)
	all=$(awk -F, '$1 !~ /^struct tstats\./ { s += $2 } END { print s + 0 }' simc.rows)
	check "clang: the array's loads are values's (${v:-0} of $all)" \
		test "$((${v:-0} * 1000))" -ge "$((all * 999))" -a "${v:-0}" -gt 0
	check_eq "clang: no load of work is <stack>, unknown or <thread-local>" \
		"$(grep -c '^<stack>,\|^<unknown\|^<in no block>\|^<thread-local>' simc.rows)" 0
else
	not_ok "clang cannot build tlsvars: $(head -c 300 clang.err)"
fi

# thread-locals defined in another file: GCC's initial-exec code, which
# the linker turns into mov $-16, %rbx; mov %fs:(%rbx) and
# mov $-0x8010, %r9; add %fs:0, %r9
cat >tla.c <<'EOF'
extern __thread long counter;
extern __thread long arr[4096];
long bump(int n)
{
	long s = 0;
	for (int r = 0; r < 50; r++)
		for (int i = 0; i < n; i++) {
			counter++;
			s += arr[i];
		}
	return s;
}
EOF
cat >tlb.c <<'EOF'
__thread long counter;
__thread long arr[4096];
long bump(int);
int main(void) { return (int)bump(4096); }
EOF
if gcc -O2 -g -o tlab tla.c tlb.c 2>tlab.err; then
	"$DSPROF" record -q -o ext --sim -c 1 -e sim:loads -- ./tlab >/dev/null 2>ext.err
	"$DSPROF" report -i ext --view dataobjects --filter 'FUNC == "bump"' -f csv >ext.csv 2>ext.rerr
	check_eq "extern __thread: every load of the array is arr's" \
		"$(csv_lookup ext.csv name 'arr (long int [4096])' samples:sim:loads)" $((50 * 4096))
	check_contains "extern __thread: the counter, by its offset in a register" ext.csv '^counter \(long int\),'
else
	not_ok "the two-file thread-local program does not build: $(head -c 300 tlab.err)"
fi

# cpu-clock: the samples backtracked to work's loads name the array, none
# <stack>; the statistics' %fs-relative loads resolve without an address
"$DSPROF" record -q -o cpu -- "$PROGS/tlsvars" 3000 >cpu.out 2>cpu.err
check_eq "cpu-clock: recorded" "$?" 0
rows cpu >cpu.rows
check_eq "cpu-clock: values is work's top data object" "$(sort -t, -k2,2nr cpu.rows | sed -n '1s/,.*//p')" \
	"values (double [2048])"
check_eq "cpu-clock: no sample of work is <stack>" "$(grep -c '^<stack>,' cpu.rows)" 0

# record --heap: thread-locals are no heap, whichever thread's
"$DSPROF" record -q -o heap --heap --sim -c 1 -e sim:loads -- "$PROGS/tlsvars" $R >/dev/null 2>heap.err
"$DSPROF" report -i heap --view heap --filter 'FUNC == "work"' -f csv >heap.csv 2>heap.rerr
nh=$(csv_lookup heap.csv name '<not heap>' samples:sim:loads)
check "record --heap: work's loads are <not heap> (${nh:-0})" test "${nh:-0}" -ge "$((3 * R * 3000))"
check_eq "record --heap: none is in no block" "$(csv_lookup heap.csv name '<in no block>' samples:sim:loads)" ""

# A library's thread-locals, reached through its GOT: general-dynamic
# (hist: __tls_get_addr of its own index), local-dynamic (the static mine
# and stats: __tls_get_addr of the module's, then their offsets) and
# initial-exec (fast: its offset from the thread pointer, loaded from the
# GOT), in two worker threads and the main one.  In the workers they sit
# at the top of the thread's stack mapping: never <stack>.
cat >tlib.c <<'EOF2'
struct tcount { long calls, sum; };
__thread double hist[512];
static __thread long mine[256];
static __thread struct tcount stats;
__thread long fast[128] __attribute__((tls_model("initial-exec")));
double lib_work(int n)
{
	double s = 0;
	for (int i = 0; i < 256; i++)
		mine[i] = i;
	for (int r = 0; r < n; r++) {
		for (int i = 0; i < 512; i++)
			s += hist[i];
		for (int i = 0; i < 256; i++)
			s += (double)mine[i];
		for (int i = 0; i < 128; i++)
			s += (double)fast[i];
		stats.calls++;
	}
	return s + (double)stats.sum;
}
EOF2
cat >tmain.c <<'EOF2'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
double lib_work(int n);
static int rounds;
static void *run(void *a) { (void)a; return (void *)(long)lib_work(rounds); }
int main(int argc, char **argv)
{
	pthread_t t[2];
	rounds = argc > 1 ? atoi(argv[1]) : 20;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%f\n", lib_work(rounds));
	return 0;
}
EOF2
for cc in gcc clang; do
	if ! $cc -O2 -g -fPIC -shared -o "libtl$cc.so" tlib.c 2>lib.err ||
		! $cc -O2 -g -o "tmain$cc" tmain.c -L. -l"tl$cc" -Wl,-rpath,'$ORIGIN' -pthread 2>>lib.err; then
		not_ok "$cc cannot build the thread-local library: $(head -c 300 lib.err)"
		continue
	fi
	"$DSPROF" record -q -o "lib$cc" --sim -c 1 -e sim:loads -- "./tmain$cc" $R >/dev/null 2>"lib$cc.err"
	"$DSPROF" report -i "lib$cc" --view dataobjects --filter 'FUNC == "lib_work"' -f csv >"lib$cc.csv" 2>>"lib$cc.err"
	loads() { v=$(awk -F, -v p="$1 (" 'index($1, p) == 1 { print $5 }' "lib$cc.csv"); echo "${v:-0}"; }
	check_eq "$cc library: general-dynamic hist, every load" "$(loads hist)" $((3 * R * 512))
	check_eq "$cc library: local-dynamic mine, every load" "$(loads mine)" $((3 * R * 256))
	check_eq "$cc library: initial-exec fast, every load" "$(loads fast)" $((3 * R * 128))
	check_eq "$cc library: no load of lib_work is <stack> or in no block" \
		"$(grep -c '^<stack>,\|^<in no block>' "lib$cc.csv")" 0
done
check_contains "gcc library: stats, local-dynamic, by its field" libgcc.csv '^struct tcount\.sum,'
