/*
 * Two compilation units that each define a struct node, differently (this
 * one 16 bytes, tu2.c's 56), linked into one program: the profiler must
 * keep them apart, as "struct node (tu1.c:N)" and "struct node (tu2.c:N)",
 * never charge one's samples to the other's layout.
 *
 *   samename [ROUNDS]
 *
 * Each unit streams its own fresh array through .v (a calloc'd block: its
 * pages are first touched there, so each page fault is at that unit's v),
 * tu2's array three and a half times the bytes of this one's: 256 and 896
 * pages, two faults each (the read maps the zero page, the write copies
 * it), which e2e/samename records into a ring buffer that holds them all.
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
	long a;
	long v;
};

long sum_tu2(long n, int rounds);

__attribute__((noinline)) static long sum_tu1(struct node *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		p[i].v += i;
		s += p[i].v;
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = 1L << 16, s = 0;
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	struct node *p = calloc((size_t)n, sizeof *p);

	if (!p)
		return 1;
	for (int r = 0; r < rounds; r++)
		s += sum_tu1(p, n);
	s += sum_tu2(n, rounds);
	printf("%ld\n", s);
	free(p);
	return 0;
}
