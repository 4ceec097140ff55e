/*
 * Two threads writing two members of one struct (tests/e2e/suggest.sh):
 * struct counters holds a, which the first thread increments, and b,
 * which the second does, N times each (default 200000), in one 64-byte
 * line: each write takes the line from the other thread (HITM).  With
 * each member in a line pair of its own, none.
 *
 *     falseshare [N]
 */
#include <pthread.h>
#include <stdlib.h>

/* LAYOUT: a header that defines the struct instead (what dsprof layout
 * --suggest prints) */
#ifdef LAYOUT
#include LAYOUT
#else
struct counters {
	long a;
	long b;
};
#endif

static struct counters shared;
static long rounds;

__attribute__((noipa)) static void bump(volatile long *p, long n)
{
	for (long i = 0; i < n; i++)
		*p += 1;
}

static void *second(void *arg)
{
	(void)arg;
	bump(&shared.b, rounds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	rounds = argc > 1 ? atol(argv[1]) : 200000;
	if (pthread_create(&t, NULL, second, NULL))
		return 1;
	bump(&shared.a, rounds);
	pthread_join(t, NULL);
	return shared.a + shared.b == 2 * rounds ? 0 : 1;
}
