/*
 * Type tracking over control flow: each scenario's hot access goes through
 * a register that no variable of the debug information describes, so only
 * tracking the function's code can name its field.
 *
 *   alloc  the pointer malloc returns is stored into a typed member
 *          (t->cells = malloc(...)) and its copy in a register indexes the
 *          array: the store gives the value its type.
 *   join   the pointer, an expression of no variable, is loaded from one
 *          of two structs on two paths (a->cells or b->spare) that join
 *          before the hot loop.
 *   scope  a function given a void *, which an inlined callee takes as a
 *          struct table * in the same register: t->cells->val, where the
 *          loaded cells pointer is in a register of no variable, is
 *          named only when the inner scope's type wins the register
 *          (clang gives the inlined parameter the register; gcc gives it
 *          an empty range)
 *   index  loads through an index the code computed before them (lea
 *          rcx, [level * 8 + 8]; mov rax, [x + rcx]), as GCC writes
 *          LevelDB's skip list walk: a node's next[level] (declared
 *          next[1], allocated longer) is next[], not the key before it;
 *          a pair's word at i * 8 is a or b by i, no one member.  SECONDS
 *          is the number of rounds here (8 and 2 loads a round).
 *
 * Usage: flow SCENARIO [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cell {
	long key;
	long val;
	long pad[6];
};

struct table {
	long n;
	struct cell *cells;
};

struct spare {
	char name[24];
	struct cell *spare;
};

struct node {
	long key;
	struct node *next[1];
};

struct pair {
	long a, b;
};

#define NCELLS 4096
#define LEVELS 8

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fills a fresh array: the stores to val are the hot accesses. */
__attribute__((noinline)) static long alloc_fill(struct table *t, long n, long round)
{
	t->cells = malloc((size_t)n * sizeof *t->cells);
	if (!t->cells)
		abort();
	t->n = n;
	for (long i = 0; i < n; i++)
		t->cells[i].val = i + round;
	return t->cells[n - 1].val;
}

static long run_alloc(double seconds)
{
	struct table t;
	long sum = 0, round = 0;
	double end = now() + seconds;

	while (now() < end) {
		for (int k = 0; k < 50; k++, round++) {
			sum += alloc_fill(&t, NCELLS, round);
			free(t.cells);
		}
	}
	return sum;
}

__attribute__((noinline)) static void report(const char *what, long v)
{
	printf("%s %ld\n", what, v);
}

/* Sums val over a table's or a spare's cells: the loads of val are hot. */
__attribute__((noinline)) static long join_sum(struct table *a, struct spare *b, int which, long rounds)
{
	long s = 0;

	if (__builtin_expect(rounds < 0, 0)) {
		/* cold: calls that clobber registers, placed out of the hot path */
		report(b->name, a->n);
		report(b->name + 1, rounds);
		return -1;
	}
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < NCELLS; i++)
			s += (which ? a->cells : b->spare)[i].val;
	return s;
}

static long run_join(double seconds)
{
	struct table a = {NCELLS, calloc(NCELLS, sizeof(struct cell))};
	struct spare b;
	long sum = 0;
	double end = now() + seconds;

	memset(&b, 0, sizeof b);
	snprintf(b.name, sizeof b.name, "spare");
	b.spare = calloc(NCELLS, sizeof(struct cell));
	if (!a.cells || !b.spare)
		abort();
	for (int which = 0; now() < end; which ^= 1)
		sum += join_sum(&a, &b, which, 20);
	free(a.cells);
	free(b.spare);
	return sum;
}

static inline __attribute__((always_inline)) long scope_val(struct table *t)
{
	return t->cells->val;
}

volatile long scope_calls; /* every call is made */

__attribute__((noinline)) long scope_outer(void *p)
{
	scope_calls++;
	return scope_val(p);
}

static long run_scope(double seconds)
{
	struct table t = {1, calloc(1, sizeof(struct cell))};
	long sum = 0;
	double end = now() + seconds;

	if (!t.cells)
		abort();
	do
		for (int k = 0; k < 1000; k++)
			sum += scope_outer(&t);
	while (now() < end);
	free(t.cells);
	return sum;
}

/* x->next[level], the index computed first (the asm keeps the form) */
__attribute__((noinline)) static struct node *index_next(struct node *x, long level)
{
	struct node *out;
	__asm__ volatile("lea 8(,%[lv],8), %%rcx\n\tmov (%[x],%%rcx), %[out]"
			 : [out] "=r"(out)
			 : [x] "r"(x), [lv] "r"(level)
			 : "rcx", "memory");
	return out;
}

/* the word i of a pair: a or b, by i */
__attribute__((noinline)) static long index_pair(struct pair *p, long i)
{
	long out;
	__asm__ volatile("lea (,%[i],8), %%rcx\n\tmov (%[p],%%rcx), %[out]"
			 : [out] "=r"(out)
			 : [p] "r"(p), [i] "r"(i)
			 : "rcx", "memory");
	return out;
}

static long run_index(long rounds)
{
	struct node *x = calloc(1, sizeof *x + (LEVELS - 1) * sizeof x->next[0]);
	struct pair p = {1, 2};
	long sum = 0;

	if (!x)
		abort();
	for (int l = 0; l < LEVELS; l++)
		x->next[l] = x;
	for (long r = 0; r < rounds; r++) {
		for (long l = LEVELS - 1; l >= 0; l--)
			sum += index_next(x, l) == x;
		sum += index_pair(&p, 0) + index_pair(&p, 1);
	}
	free(x);
	return sum;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 1.5;
	long r;

	if (argc < 2) {
		fprintf(stderr, "usage: flow alloc|join|scope|index [SECONDS]\n");
		return 1;
	}
	if (strcmp(argv[1], "alloc") == 0)
		r = run_alloc(seconds);
	else if (strcmp(argv[1], "join") == 0)
		r = run_join(seconds);
	else if (strcmp(argv[1], "scope") == 0)
		r = run_scope(seconds);
	else if (strcmp(argv[1], "index") == 0)
		r = run_index((long)seconds);
	else {
		fprintf(stderr, "flow: unknown scenario '%s'\n", argv[1]);
		return 1;
	}
	return r == 42 ? 2 : 0;
}
