/*
 * The simulator's stride test: one load per cache line through an array
 * larger than the L1 and smaller than the L2 of the test geometry
 * (tests/e2e/sim.sh: L1D=32K:8:64, L2=256K:8:64, L3=2M:16:64).
 *
 *   sim_stride [PASSES]
 *
 * 128 KiB is 2048 lines, 32 for each of the L1's 64 sets: a cyclic sweep
 * under LRU misses the 8-way L1 on every line, and after the first pass
 * (the initialisation already brought every line into the L2, 4 lines per
 * set of 8 ways) never misses the L2.
 */
#include <stdio.h>
#include <stdlib.h>

#define LINE 64
#define SIZE (128 * 1024)

static volatile char buf[SIZE] __attribute__((aligned(LINE)));

__attribute__((noinline)) static void fill(void)
{
	for (size_t i = 0; i < SIZE; i += LINE)
		buf[i] = 1; /* SIM:fill */
}

__attribute__((noinline)) static long sweep(int passes)
{
	long s = 0;
	for (int r = 0; r < passes; r++)
		for (size_t i = 0; i < SIZE; i += LINE)
			s += buf[i]; /* SIM:sweep */
	return s;
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 10;

	fill();
	printf("%ld\n", sweep(passes));
	return 0;
}
