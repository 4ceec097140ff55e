/*
 * Heap objects of known cost (tests/e2e/heap.sh): three arrays of doubles
 * from three allocation sites, summed 4, 2 and 1 times a round, so that
 * their loads are 4/7, 2/7 and 1/7 of the arrays'; and a list of structs
 * from a fourth site, walked once a round.  And a global array, summed
 * through the same pointer once a round: its data object is the global.
 *
 *     heapobj N ROUNDS      arrays of N doubles, a list of N/8 items
 */
#include <stdio.h>
#include <stdlib.h>

struct item {
	struct item *next;
	long key;
	double weight;
	char pad[40];
};

double glob[1 << 16];

__attribute__((noipa)) static double sum(const double *a, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += a[i];
	return s;
}

__attribute__((noipa)) static struct item *make_list(long n)
{
	struct item *head = NULL;
	for (long i = 0; i < n; i++) {
		struct item *x = malloc(sizeof *x);
		if (!x)
			exit(1);
		x->next = head;
		x->key = i;
		x->weight = 1;
		head = x;
	}
	return head;
}

__attribute__((noipa)) static long walk(const struct item *p)
{
	long s = 0;
	for (; p; p = p->next)
		s += p->key;
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, rounds = argc > 2 ? atol(argv[2]) : 40;
	double *four = malloc(n * sizeof *four);
	double *two = malloc(n * sizeof *two);
	double *one = malloc(n * sizeof *one);
	struct item *list;
	double s = 0;
	long w = 0;

	if (!four || !two || !one)
		return 1;
	for (long i = 0; i < n; i++)
		four[i] = two[i] = one[i] = (double)i;
	list = make_list(n / 8);
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 4; k++)
			s += sum(four, n);
		for (int k = 0; k < 2; k++)
			s += sum(two, n);
		s += sum(one, n);
		s += sum(glob, 1 << 16);
		w += walk(list);
	}
	printf("%g %ld\n", s, w);
	free(four);
	free(two);
	free(one);
	while (list) {
		struct item *next = list->next;
		free(list);
		list = next;
	}
	return 0;
}
