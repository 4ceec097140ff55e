/*
 * Programs with one known hot field each, for dataspace attribution: the
 * profiler must name the field (struct and member) the loop's memory time
 * goes to.  The e2e tests build this file with gcc and clang at -O0, -O2
 * and -O3 and check every scenario.
 *
 *   dsfields SCENARIO [ROUNDS]
 *
 *   stream   struct particle[] streamed by .mass
 *   chase    a linked list walked through ->next
 *   global   a global struct entry[] hit at random in .val
 *   twoptr   ctx->t->slots[i].hits: a field behind two pointers
 *   union    struct item.v.f, the float member of a union
 *   bitfield struct flags.count, a bit field
 *   stack    struct rec[] on the stack, streamed by .score
 *
 * Every buffer is fresh (calloc of a large size maps untouched pages) and
 * the hot loops write their field, so the first touch of every page, and
 * so its page fault, is at the hot field too; later rounds stream real
 * memory.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- stream ---- */
struct particle {
	double x, y, z;
	double vx, vy, vz;
	char name[64];
	double mass;
	long id;
};

__attribute__((noinline)) static double total_mass(struct particle *p, long n)
{
	double m = 0;
	for (long i = 0; i < n; i++) {
		p[i].mass += 1.0;
		m += p[i].mass;
	}
	return m;
}

static double run_stream(int rounds)
{
	long n = 1L << 20;
	double m = 0;
	struct particle *p = calloc((size_t)n, sizeof *p);
	if (!p)
		exit(1);
	for (int r = 0; r < rounds * 2; r++)
		m += total_mass(p, n);
	free(p);
	return m;
}

/* ---- chase ---- */
struct node {
	long key;
	struct node *next;
	char pad[48];
};

__attribute__((noinline)) static long walk(const struct node *n)
{
	long count = 0;
	for (; n; n = n->next)
		count++;
	return count;
}

static double run_chase(int rounds)
{
	long n = 1L << 21; /* 128 MiB: more than any last-level cache */
	struct node *nodes = malloc((size_t)n * sizeof *nodes), *head = NULL;
	long *order = malloc((size_t)n * sizeof *order), total = 0;

	if (!nodes || !order)
		exit(1);
	for (long i = 0; i < n; i++)
		order[i] = i;
	for (long i = n - 1; i > 0; i--) {
		long j = (long)(next_random() % (uint64_t)(i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (long i = 0; i < n; i++) {
		nodes[order[i]].next = head;
		nodes[order[i]].key = i;
		head = &nodes[order[i]];
	}
	for (int r = 0; r < (rounds + 3) / 4; r++)
		total += walk(head);
	free(order);
	free(nodes);
	return (double)total;
}

/* ---- global ---- */
struct entry {
	int key;
	int val;
	char pad[56];
};

static struct entry table[1 << 20];

__attribute__((noinline)) static void hit_table(long n)
{
	for (long i = 0; i < n; i++)
		table[next_random() & ((1 << 20) - 1)].val++;
}

static double run_global(int rounds)
{
	hit_table((long)rounds << 21);
	return table[7].val;
}

/* ---- twoptr ---- */
struct slot {
	long hits;
	long pad[7];
};

struct table {
	long size;
	struct slot *slots;
};

struct ctx {
	int flags;
	struct table *t;
};

/* External, so that the compiler keeps its signature: a static function
 * may be handed c->t instead of c (argument promotion), and then nothing
 * says what its register holds. */
void count_slots(struct ctx *c, long n);

__attribute__((noinline)) void count_slots(struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		c->t->slots[next_random() % (uint64_t)c->t->size].hits++;
}

static double run_twoptr(int rounds)
{
	struct table t = {1L << 20, NULL};
	struct ctx c = {0, &t};
	t.slots = calloc((size_t)t.size, sizeof *t.slots);
	if (!t.slots)
		exit(1);
	count_slots(&c, (long)rounds << 21);
	return (double)t.slots[3].hits;
}

/* ---- union ---- */
union value {
	long l;
	float f;
	char s[8];
};

struct item {
	int tag;
	union value v;
	char pad[48];
};

__attribute__((noinline)) static float sum_floats(struct item *it, long n)
{
	float s = 0;
	for (long i = 0; i < n; i++) {
		it[i].v.f += 1.0f;
		s += it[i].v.f;
	}
	return s;
}

static double run_union(int rounds)
{
	long n = 1L << 20;
	double s = 0;
	struct item *it = calloc((size_t)n, sizeof *it);
	if (!it)
		exit(1);
	for (int r = 0; r < rounds * 4; r++)
		s += sum_floats(it, n);
	free(it);
	return s;
}

/* ---- bitfield ---- */
struct flags {
	unsigned ready : 1;
	unsigned busy : 1;
	unsigned count : 6;
	unsigned char kind;
	short owner;
	long pad[7];
};

__attribute__((noinline)) static void bump_counts(struct flags *f, long n)
{
	for (long i = 0; i < n; i++)
		f[i].count++;
}

static double run_bitfield(int rounds)
{
	long n = 1L << 20;
	struct flags *f = calloc((size_t)n, sizeof *f);
	if (!f)
		exit(1);
	for (int r = 0; r < rounds * 2; r++)
		bump_counts(f, n);
	return f[5].count;
}

/* ---- stack ---- */
struct rec {
	long id;
	double score;
	char pad[48];
};

/* 64 MiB on the stack, more than the last-level cache, visited with a
 * stride no prefetcher follows: the array's misses outweigh the
 * accumulator's loads and stores even in unoptimized code.  It runs on a
 * thread whose stack is large enough. */
#define NREC (1 << 20)

struct stack_job {
	int rounds;
	double result;
};

__attribute__((noinline)) static double stack_scores(int rounds)
{
	struct rec recs[NREC];
	double s = 0;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < NREC; i++) {
			struct rec *x = &recs[((unsigned)i * 7919u) & (NREC - 1)];
			x->score += i;
			s += x->score;
		}
	return s;
}

static void *stack_thread(void *arg)
{
	struct stack_job *j = arg;
	j->result = stack_scores(j->rounds);
	return NULL;
}

static double run_stack(int rounds)
{
	struct stack_job j = {rounds * 4, 0};
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)NREC * sizeof(struct rec) + (8u << 20));
	if (pthread_create(&t, &a, stack_thread, &j) != 0)
		exit(1);
	pthread_join(t, NULL);
	return j.result;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*run)(int);
	} scenarios[] = {
		{"stream", run_stream}, {"chase", run_chase}, {"global", run_global},
		{"twoptr", run_twoptr}, {"union", run_union}, {"bitfield", run_bitfield},
		{"stack", run_stack},
	};
	int rounds = argc > 2 ? atoi(argv[2]) : 12;

	for (size_t i = 0; argc > 1 && i < sizeof scenarios / sizeof scenarios[0]; i++)
		if (strcmp(argv[1], scenarios[i].name) == 0) {
			printf("%s %g\n", argv[1], scenarios[i].run(rounds));
			return 0;
		}
	fprintf(stderr, "usage: dsfields stream|chase|global|twoptr|union|bitfield|stack [ROUNDS]\n");
	return 2;
}
