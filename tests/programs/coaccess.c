/*
 * Members accessed together (tests/e2e/suggest.sh): struct quad has its
 * hot longs a, c, b, d in that order, each in a 64-byte line of its own.
 * left() reads a four times and b once, right() c twice and d once: by
 * heat alone the order would be a, c, b, d, but each function's pair
 * belongs together, left's the hotter: a, b, c, d.  16384
 * instances (4 MB), visited in a scattered order, R rounds (default 2).
 *
 *     coaccess [R]
 */
#include <stdlib.h>

#ifdef LAYOUT
#include LAYOUT
#else
struct quad {
	long a;
	char cold1[56];
	long c;
	char cold2[56];
	long b;
	char cold3[56];
	long d;
	char cold4[56];
};
#endif

static volatile long sink;

__attribute__((noipa)) static long left(const volatile struct quad *q)
{
	return q->a + q->a + q->a + q->a + q->b;
}

__attribute__((noipa)) static long right(const volatile struct quad *q)
{
	return q->c + q->c - q->d;
}

int main(int argc, char **argv)
{
	long n = 16384, rounds = argc > 1 ? atol(argv[1]) : 2, t = 0;
	struct quad *v = calloc((size_t)n, sizeof *v);

	if (!v)
		return 1;
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < n; i++) {
			const struct quad *q = &v[i * 7919 % n];
			t += left(q) + right(q);
		}
	sink = t;
	free(v);
	return 0;
}
