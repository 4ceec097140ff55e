/*
 * One hot field among cold ones, in an array (tests/e2e/lineuse.sh): 65536
 * struct particle of 96 bytes, of which sum reads only x, the first 8,
 * R rounds (default 20).  Each line sum fetches holds one x (two lines in
 * three: the third holds only cold bytes, never fetched), so 8 of the 64
 * bytes of every line it fetches are used: 8 bytes of each 96-byte
 * instance visited.
 *
 *     hotcold [R]
 */
#include <stdlib.h>

/* LAYOUT: a header that defines the struct instead (what dsprof layout
 * --suggest prints, for tests/e2e/suggest.sh) */
#ifdef LAYOUT
#include LAYOUT
#else
struct particle {
	double x;
	double cold[11];
};
#endif

static volatile double sink;

__attribute__((noipa)) static double sum(const struct particle *p, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += p[i].x;
	return s;
}

int main(int argc, char **argv)
{
	long n = 65536, rounds = argc > 1 ? atol(argv[1]) : 20;
	struct particle *p = calloc((size_t)n, sizeof *p);
	double t = 0;

	if (!p)
		return 1;
	for (long r = 0; r < rounds; r++)
		t += sum(p, n);
	sink = t;
	free(p);
	return 0;
}
