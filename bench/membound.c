/*
 * A memory-bound program for the recording-dilation benchmark: a fixed
 * number of dependent loads through a random cycle in a buffer much larger
 * than the caches, so its run time is dominated by cache and TLB misses.
 *
 *   membound [STEPS_MILLIONS] [BUFFER_MB]
 *
 * Prints the chase's own wall time ("chase_seconds S") on stderr, so that
 * dilation can be measured without the profiler's start-up and wrap-up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static uint32_t chase(const uint32_t *next, uint32_t at, long steps)
{
	for (long i = 0; i < steps; i++)
		at = next[at];
	return at;
}

int main(int argc, char **argv)
{
	long steps = (argc > 1 ? atol(argv[1]) : 15) * 1000000L;
	size_t n = (size_t)(argc > 2 ? atol(argv[2]) : 64) * 1024 * 1024 / sizeof(uint32_t);
	uint32_t *next = malloc(n * sizeof *next), *perm = malloc(n * sizeof *perm);
	uint64_t s = 88172645463325252ull;

	if (!next || !perm)
		return 1;
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j;
		uint32_t t;
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		j = s % (i + 1);
		t = perm[i], perm[i] = perm[j], perm[j] = t;
	}
	/* one cycle through every element, in random order */
	for (size_t i = 0; i < n; i++)
		next[perm[i]] = perm[(i + 1) % n];
	free(perm);
	{
		struct timespec t0, t1;
		uint32_t end;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		end = chase(next, 0, steps);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%u\n", end);
		fprintf(stderr, "chase_seconds %.6f\n",
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	free(next);
	return 0;
}
