/*
 * C-style inheritance, as interpreters write it: every object begins with
 * a header, and code reaches the fields of the larger struct through a
 * pointer typed as the header, after a cast.  The machine code does not
 * show the cast: the profiler finds the struct that begins with the header
 * and has a member there, and when it cannot tell which, says the offset
 * is beyond the header, never the header's padding or the next header of
 * an array.
 *
 *   objhdr [PAGES]
 *
 * table_flags() reads table.flags (offset 16) through a struct obj *:
 * table is the one struct that begins with an obj.  gc_word() reads
 * offset 12 through a struct gc *, in gc's tail padding: str and num both
 * begin with gc's members (a header macro), and both have a member there.
 * rec_key() reads rec.key (offset 4) through a struct small *, in the hole
 * after small.c; nothing begins with a small.  Each object has a calloc'd
 * page of its own, first touched by that read: each page fault is at it.
 */
#include <stdio.h>
#include <stdlib.h>

struct obj {
	struct obj *next;
	unsigned char tag, marked;
};

struct table {
	struct obj hdr;
	long flags;
	char body[4096 - 24];
};

#define GC_HEADER       \
	struct gc *gcnext; \
	unsigned char tt, gcmarked

struct gc {
	GC_HEADER;
};

struct str {
	GC_HEADER;
	unsigned char extra, len;
	unsigned hash;
	char body[4096 - 16];
};

struct num {
	GC_HEADER;
	unsigned short kind;
	float value;
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

__attribute__((noinline)) static long table_flags(struct obj *o)
{
	return ((struct table *)o)->flags;
}

__attribute__((noinline)) static unsigned gc_word(struct gc *o)
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
	struct table *t = calloc((size_t)n, sizeof *t);
	struct str *g = calloc((size_t)n / 2, sizeof *g);
	struct num *u = calloc(1, sizeof *u);
	struct rec *r = calloc((size_t)n / 4, sizeof *r);

	if (!t || !g || !u || !r)
		return 1;
	for (long i = 0; i < n; i++)
		s += table_flags(&t[i].hdr);
	for (long i = 0; i < n / 2; i++)
		s += gc_word((struct gc *)&g[i]);
	for (long i = 0; i < n / 4; i++)
		s += rec_key((struct small *)&r[i]);
	s += (long)u->value;
	printf("%ld\n", s);
	free(t);
	free(g);
	free(u);
	free(r);
	return 0;
}
