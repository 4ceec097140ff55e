/*
 * The simulator's matrix test: a 256 x 256 matrix of longs (512 KiB) summed
 * by rows, then by columns, under the test geometry of tests/e2e/sim.sh
 * (L1D=32K:8:64, L2=256K:8:64, L3=2M:16:64).
 *
 * By rows, each line is loaded once and then hit 7 times: 256 * 256 / 8
 * L1 misses; the matrix is twice the L2, 16 lines a set of 8 ways, so the
 * L2 misses each line too.  By columns, the 256 rows of a column are 2 KiB
 * (32 lines) apart: they fall into 2 of the L1's 64 sets and 16 of the
 * L2's 512, far more lines than ways, so every access misses both.  The
 * L3 (2 MiB) holds the whole matrix after the initialisation.  The matrix
 * is volatile so that the compiler loads one element at a time, as written.
 */
#include <stdio.h>

#define N 256

static volatile long m[N][N] __attribute__((aligned(64)));

__attribute__((noinline)) static void init(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			m[i][j] = i ^ j; /* SIM:init */
}

__attribute__((noinline)) static long by_rows(void)
{
	long s = 0;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			s += m[i][j]; /* SIM:rows */
	return s;
}

__attribute__((noinline)) static long by_columns(void)
{
	long s = 0;
	for (int j = 0; j < N; j++)
		for (int i = 0; i < N; i++)
			s += m[i][j]; /* SIM:columns */
	return s;
}

int main(void)
{
	init();
	printf("%ld %ld\n", by_rows(), by_columns());
	return 0;
}
