/*
 * Hot members spread over three lines (tests/e2e/suggest.sh): struct
 * spread is 192 bytes, its hot longs a, b and c at 0, 64 and 128 with
 * cold bytes between.  visit() reads the three of an instance; the
 * instances of an array of 16384 (3 MB) are visited in a scattered order
 * (i * 7919 mod n), R rounds (default 4).  A visit misses 3 lines; with
 * the hot members together, 1.
 *
 *     spread [R]
 */
#include <stdlib.h>

/* LAYOUT: a header that defines the struct instead (what dsprof layout
 * --suggest prints) */
#ifdef LAYOUT
#include LAYOUT
#else
struct spread {
	long a;
	char cold1[56];
	long b;
	char cold2[56];
	long c;
	char cold3[56];
};
#endif

static volatile long sink;

__attribute__((noipa)) static long visit(const struct spread *s)
{
	return s->a + s->b + s->c;
}

int main(int argc, char **argv)
{
	long n = 16384, rounds = argc > 1 ? atol(argv[1]) : 4, t = 0;
	struct spread *v = calloc((size_t)n, sizeof *v);

	if (!v)
		return 1;
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < n; i++)
			t += visit(&v[i * 7919 % n]);
	sink = t;
	free(v);
	return 0;
}
