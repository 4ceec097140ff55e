/*
 * Members that are themselves structs and unions, anonymous and named, at
 * several depths: the data layout must show each of them as a row with
 * the samples of everything in it, and the holes and tail padding inside
 * them, indented as the type nests.
 *
 *   nested [ROUNDS]
 *
 * Four fresh (calloc'd) arrays of struct pkt, each streamed through one
 * member, so that the page faults of each are exactly that member's:
 *   u.p.hi     in a struct in an anonymous union member u
 *   inner.b    after the hole in an anonymous struct member inner
 *   x          in a union member without a name
 *   st.ns.hi   in an anonymous struct in a named struct member st
 * (144 pages each: they fit one ring buffer, see samename/tu1.c).
 */
#include <stdio.h>
#include <stdlib.h>

struct stamp {
	long sec;
	struct {
		int lo, hi;
	} ns;
};

struct pkt {
	int kind;
	long seq;
	union {
		int i;
		float f;
		struct {
			short lo, hi;
		} p;
	} u;
	struct {
		char a;
		int b;
	} inner;
	struct {
		long w;
		char c; /* then 7 bytes of padding */
	} tailed;
	union {
		int x;
		short y;
	};
	struct stamp st;
};

#define N (1L << 13)

__attribute__((noinline)) static long touch_u(struct pkt *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += p[i].u.p.hi += 1;
	return s;
}

__attribute__((noinline)) static long touch_inner(struct pkt *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += p[i].inner.b += 2;
	return s;
}

__attribute__((noinline)) static long touch_x(struct pkt *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += p[i].x += 3;
	return s;
}

__attribute__((noinline)) static long touch_st(struct pkt *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += p[i].st.ns.hi += 4;
	return s;
}

int main(int argc, char **argv)
{
	long (*const touch[])(struct pkt *, long) = {touch_u, touch_inner, touch_x, touch_st};
	enum { K = sizeof touch / sizeof touch[0] };
	struct pkt *p[K];
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	long s = 0;

	/* all allocated first: a block freed before the next calloc would
	 * be handed out again, its pages already touched */
	for (size_t k = 0; k < K; k++)
		if (!(p[k] = calloc(N, sizeof *p[k])))
			return 1;
	for (size_t k = 0; k < K; k++)
		for (int r = 0; r < rounds; r++)
			s += touch[k](p[k], N);
	for (size_t k = 0; k < K; k++)
		free(p[k]);
	printf("%ld\n", s);
	return 0;
}
