/* The other struct node of samename (see tu1.c). */
#include <stdlib.h>

struct node {
	char pad[48];
	long v;
};

long sum_tu2(long n, int rounds);

__attribute__((noinline)) static long walk(struct node *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		p[i].v += i;
		s += p[i].v;
	}
	return s;
}

long sum_tu2(long n, int rounds)
{
	struct node *q = calloc((size_t)n, sizeof *q);
	long s = 0;

	if (!q)
		exit(1);
	for (int r = 0; r < rounds; r++)
		s += walk(q, n);
	free(q);
	return s;
}
