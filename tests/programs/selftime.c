/*
 * A program that accounts its own CPU time per function, so that a
 * profiler's attribution can be checked against the truth (the method of
 * the Sun Studio Performance Analyzer's test suite).
 *
 *   selftime [SECONDS]   prints "NAME SHARE" per work function, then "total_ms N"
 *
 * The work functions do pure computation of different lengths (weights 1,
 * 2, 3 and 4), so their exclusive and inclusive times are nearly the same.
 * Their bodies differ so that the compiler cannot merge them.  They start
 * with a call, which makes the compiler give them a frame around the loop:
 * a leaf function without one hides its caller from frame-pointer chains.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline, noipa)) static uint64_t seed(void)
{
	return sink;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define WORK(name, mul, add)                                  \
	__attribute__((noinline, noipa)) static void name(long n) \
	{                                                     \
		uint64_t x = seed();                          \
		for (long i = 0; i < n; i++)                  \
			x = x * (mul) + (add);                \
		sink = x;                                     \
	}

WORK(work_one, 6364136223846793005ull, 1442695040888963407ull)
WORK(work_two, 2862933555777941757ull, 3037000493ull)
WORK(work_three, 3202034522624059733ull, 4150211ull)
WORK(work_four, 1103515245ull, 12345ull)

static const struct {
	const char *name;
	void (*fn)(long);
	int weight;
} funcs[] = {
	{"work_one", work_one, 1},
	{"work_two", work_two, 2},
	{"work_three", work_three, 3},
	{"work_four", work_four, 4},
};
#define NF (sizeof funcs / sizeof funcs[0])

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	uint64_t spent[NF] = {0}, total = 0, start = cpu_ns();
	long unit = 200000; /* about 0.2 ms of work per weight unit */

	while (cpu_ns() - start < (uint64_t)(seconds * 1e9)) {
		for (size_t i = 0; i < NF; i++) {
			uint64_t t0 = cpu_ns();
			funcs[i].fn(unit * funcs[i].weight);
			spent[i] += cpu_ns() - t0;
		}
	}
	for (size_t i = 0; i < NF; i++)
		total += spent[i];
	for (size_t i = 0; i < NF; i++)
		printf("%s %.4f\n", funcs[i].name, (double)spent[i] / (double)total);
	printf("total_ms %.1f\n", (double)total / 1e6);
	return 0;
}
