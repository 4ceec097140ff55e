/*
 * Call paths of code built as Debian builds it: plain -O2 -g, no frame
 * pointers (the Makefile builds tests/programs/plain/ so).  The work has a
 * known shape:
 *
 *   callpath direct N    main -> top -> mid_a -> leaf   (1 part)
 *                                   -> mid_b -> leaf   (3 parts)
 *   callpath qsort N     main -> top_sort -> qsort (libc) -> by_weight -> leaf
 *   callpath bsearch N   main -> top_search -> bsearch (libc) -> by_key -> leaf
 *   callpath gprof N     main -> top_gprof -> calls_often -> work   (10 calls of size k)
 *                                         -> calls_once -> work    (1 call of size 10k)
 *   callpath recurse N   main -> descend -> descend -> ... (8 deep) -> leaf
 *
 * gprof mode is the gprof fallacy: work's time is quadratic in its size, so
 * calls_once pays 100/110 of it with a tenth of the calls; a profiler that
 * splits a callee's time by call counts gives calls_often most of it.
 * N rounds each (default 1000, about a second; bsearch runs 5N, gprof N/100,
 * recurse 4N); leaf's loop is all the time there is, so main and the top
 * functions are on (nearly) every sample's path, and mid_b has three times
 * mid_a's share.  The middle functions do something after their call, so
 * that the call is not a tail call that would leave them off the stack.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t leaf(long n)
{
	uint64_t x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static void mid_a(long n)
{
	sink += leaf(n) >> 3;
}

__attribute__((noinline)) static void mid_b(long n)
{
	sink ^= leaf(3 * n) >> 5;
}

__attribute__((noinline)) static void top(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		mid_a(200000);
		mid_b(200000);
	}
}

static int by_weight(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	sink += leaf(2000);
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void top_sort(long rounds)
{
	long v[64];
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < 64; i++)
			v[i] = (i * 37 + r) % 64;
		qsort(v, 64, sizeof v[0], by_weight);
	}
}

static int by_key(const void *k, const void *e)
{
	long x = *(const long *)k, y = *(const long *)e;
	sink += leaf(20000);
	return (x > y) - (x < y);
}

/* Through a pointer: glibc may inline bsearch from its header at -O2. */
static void *(*volatile search)(const void *, const void *, size_t, size_t,
				int (*)(const void *, const void *)) = bsearch;

__attribute__((noinline)) static void top_search(long rounds)
{
	long v[256];
	for (int i = 0; i < 256; i++)
		v[i] = i;
	for (long r = 0; r < rounds; r++) {
		long k = r % 256;
		if (!search(&k, v, 256, sizeof v[0], by_key))
			abort();
	}
}

__attribute__((noinline)) static void work(long k)
{
	uint64_t x = sink;
	for (long i = 0; i < k; i++)
		for (long j = 0; j < k; j++)
			x = x * 2862933555777941757ull + 3037000493ull;
	sink = x;
}

__attribute__((noinline)) static void calls_often(long k)
{
	for (int i = 0; i < 10; i++)
		work(k);
	sink++;
}

__attribute__((noinline)) static void calls_once(long k)
{
	work(10 * k);
	sink++;
}

__attribute__((noinline)) static void top_gprof(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		calls_often(1000);
		calls_once(1000);
	}
}

__attribute__((noinline)) static void descend(int depth, long n)
{
	if (depth)
		descend(depth - 1, n);
	else
		sink += leaf(n);
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000;

	if (argc < 2 || strcmp(argv[1], "direct") == 0)
		top(n);
	else if (strcmp(argv[1], "qsort") == 0)
		top_sort(n);
	else if (strcmp(argv[1], "bsearch") == 0)
		top_search(5 * n);
	else if (strcmp(argv[1], "gprof") == 0)
		top_gprof(n / 100);
	else if (strcmp(argv[1], "recurse") == 0)
		for (long r = 0; r < 4 * n; r++)
			descend(8, 200000);
	else
		return fprintf(stderr, "usage: callpath [direct|qsort|bsearch|gprof|recurse] [ROUNDS]\n"), 1;
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
