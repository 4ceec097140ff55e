/*
 * A known hot cache line: two threads update the two counters of one
 * struct counters (64-byte aligned: one line on every machine dsprof runs
 * on) N times each, while the main thread reads a cold array once.  It
 * prints the hot line's address, then the counters:
 *
 *   line 0x...
 *   N N
 *
 *   hotline [N]     (default 100000000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct counters {
	volatile long hits;
	volatile long misses;
	char name[48];
};

static long n = 100000000;

__attribute__((noinline)) static void *bump_hits(void *arg)
{
	struct counters *c = arg;
	for (long i = 0; i < n; i++)
		c->hits++;
	return NULL;
}

__attribute__((noinline)) static void *bump_misses(void *arg)
{
	struct counters *c = arg;
	for (long i = 0; i < n; i++)
		c->misses++;
	return NULL;
}

/* Reads every line of a 4 MiB array once: many lines, each cold. */
__attribute__((noinline)) static long read_cold(const long *a, long len)
{
	long s = 0;
	for (long i = 0; i < len; i += 8)
		s += a[i];
	return s;
}

int main(int argc, char **argv)
{
	struct counters *c = aligned_alloc(64, sizeof *c);
	long len = 1L << 19, *cold = calloc((size_t)len, sizeof *cold);
	pthread_t a, b;

	if (argc > 1)
		n = atol(argv[1]);
	if (!c || !cold)
		return 1;
	c->hits = c->misses = 0;
	printf("line %p\n", (void *)c);
	fflush(stdout);
	pthread_create(&a, NULL, bump_hits, c);
	pthread_create(&b, NULL, bump_misses, c);
	cold[len - 1] = read_cold(cold, len);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%ld %ld\n", c->hits, c->misses);
	free(cold);
	free(c);
	return 0;
}
