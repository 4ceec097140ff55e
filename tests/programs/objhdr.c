/*
 * C-style inheritance, as interpreters write it: every object begins with
 * the same header fields, and code reaches the fields of the larger
 * struct through a pointer typed as the header struct, after a cast.  An
 * access outside the header's members is to the larger type, never to
 * the header's padding or holes: the profiler cannot see the cast, so it
 * must say so, not charge struct obj.<padding>.
 *
 *   objhdr [PAGES]
 *
 * str_hash() reads str.hash (offset 12) through a struct obj *, in obj's
 * tail padding; rec_key() reads rec.key (offset 4) through a struct
 * small *, in the hole after small.c.  Each object has a calloc'd page of
 * its own, first touched by that read: each page fault is at it.
 */
#include <stdio.h>
#include <stdlib.h>

#define HEADER      \
	struct obj *next; \
	unsigned char tag, marked

struct obj {
	HEADER;
};

struct str {
	HEADER;
	unsigned char extra, len;
	unsigned hash;
	char body[4096 - 16];
};

struct small {
	char c;
	long x;
};

struct rec {
	char c;
	int key;
	long x;
	char body[4096 - 16];
};

__attribute__((noinline)) static unsigned str_hash(struct obj *o)
{
	return ((struct str *)o)->hash;
}

__attribute__((noinline)) static int rec_key(struct small *p)
{
	return ((struct rec *)p)->key;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 512, s = 0;
	struct str *t = calloc((size_t)n, sizeof *t);
	struct rec *r = calloc((size_t)n / 2, sizeof *r);

	if (!t || !r)
		return 1;
	for (long i = 0; i < n; i++)
		s += str_hash((struct obj *)&t[i]);
	for (long i = 0; i < n / 2; i++)
		s += rec_key((struct small *)&r[i]);
	printf("%ld\n", s);
	free(t);
	free(r);
	return 0;
}
