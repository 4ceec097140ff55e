/*
 * A real MPI job for experiment groups: rank r does r + 1 units of work,
 * so that the slowest rank (the last) works ranks-times as long as rank 0,
 * the load imbalance `dsprof report --by function,rank` shows.  Then the
 * ranks meet in a reduction, as jobs do at the end of a step.
 *
 *   mpirun -n 4 mpi_ranks [UNITS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* One unit: a chain of dependent multiplications, the same time on every rank. */
static __attribute__((noinline)) unsigned long work(long units)
{
	unsigned long x = 1;

	for (long i = 0; i < units * 20000000L; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 1;
	unsigned long mine, all = 0;
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mine = work(units * (rank + 1));
	MPI_Reduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_BXOR, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d ranks: %lx\n", size, all);
	MPI_Finalize();
	return 0;
}
