/*
 * A program's own allocation function on top of malloc, xalloc, as C
 * programs have theirs (SQLite's sqlite3Malloc, Git's xmalloc): five kinds
 * of records, each made by a function of its own through xalloc, then
 * read.  Without --heap-wrappers every record is a block of xalloc's site,
 * which the heap view says may be a wrapper; with --heap-wrappers xalloc
 * the sites are the five functions.
 *
 *   heapwrap [N]      (records of each kind, default 1000)
 */
#include <stdio.h>
#include <stdlib.h>

struct point { double x, y; };
struct name { const char *s; long len; };
struct edge { long from, to; double w; };
struct counter { long hits, misses; };
struct range { long lo, hi; };

__attribute__((noinline)) static void *xalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		perror("xalloc");
		exit(1);
	}
	return p;
}

__attribute__((noinline)) static struct point *make_point(long i)
{
	struct point *p = xalloc(sizeof *p);
	p->x = (double)i;
	p->y = (double)-i;
	return p;
}

__attribute__((noinline)) static struct name *make_name(long i)
{
	struct name *p = xalloc(sizeof *p);
	p->s = "record";
	p->len = i;
	return p;
}

__attribute__((noinline)) static struct edge *make_edge(long i)
{
	struct edge *p = xalloc(sizeof *p);
	p->from = i;
	p->to = i + 1;
	p->w = 0.5;
	return p;
}

__attribute__((noinline)) static struct counter *make_counter(long i)
{
	struct counter *p = xalloc(sizeof *p);
	p->hits = i;
	p->misses = 0;
	return p;
}

__attribute__((noinline)) static struct range *make_range(long i)
{
	struct range *p = xalloc(sizeof *p);
	p->lo = i;
	p->hi = 2 * i;
	return p;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	struct point **pt = malloc((size_t)n * sizeof *pt);
	struct name **nm = malloc((size_t)n * sizeof *nm);
	struct edge **ed = malloc((size_t)n * sizeof *ed);
	struct counter **ct = malloc((size_t)n * sizeof *ct);
	struct range **rg = malloc((size_t)n * sizeof *rg);
	double sum = 0;

	if (!pt || !nm || !ed || !ct || !rg)
		return 1;
	for (long i = 0; i < n; i++) {
		pt[i] = make_point(i);
		nm[i] = make_name(i);
		ed[i] = make_edge(i);
		ct[i] = make_counter(i);
		rg[i] = make_range(i);
	}
	for (int round = 0; round < 4; round++)
		for (long i = 0; i < n; i++)
			sum += pt[i]->x + (double)nm[i]->len + ed[i]->w + (double)ct[i]->hits + (double)rg[i]->hi;
	printf("%.0f\n", sum);
	return 0;
}
