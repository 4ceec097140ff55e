/*
 * The simulator's coherence test: two threads increment two fields of one
 * struct N times each.  Adjacent, the fields share a cache line, which the
 * two cores take from each other (HITM); padded, each has a line of its own.
 *
 *   sim_false_sharing adjacent|padded [N]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct adjacent {
	volatile long a;
	volatile long b;
} __attribute__((aligned(64)));

struct padded {
	volatile long a;
	char pad[56];
	volatile long b;
} __attribute__((aligned(64)));

static struct adjacent adj;
static struct padded pad;
static long n = 200000;

static void *bump_a(void *arg)
{
	volatile long *a = arg;
	for (long i = 0; i < n; i++)
		(*a)++; /* SIM:bump_a */
	return NULL;
}

static void *bump_b(void *arg)
{
	volatile long *b = arg;
	for (long i = 0; i < n; i++)
		(*b)++; /* SIM:bump_b */
	return NULL;
}

int main(int argc, char **argv)
{
	int padded = argc > 1 && strcmp(argv[1], "padded") == 0;
	pthread_t ta, tb;

	if (argc > 2)
		n = atol(argv[2]);
	pthread_create(&ta, NULL, bump_a, padded ? (void *)&pad.a : (void *)&adj.a);
	pthread_create(&tb, NULL, bump_b, padded ? (void *)&pad.b : (void *)&adj.b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	printf("%ld %ld\n", padded ? pad.a : adj.a, padded ? pad.b : adj.b);
	return 0;
}
