/*
 * A linked-list walk whose loads miss: the list's nodes are scattered over
 * 64 MB, so every node costs a cache miss.  With timer samples, the
 * interrupted instruction is the one after the stalled load: on the loop's
 * other line.  The code views must charge the samples to the line of the
 * load (the trigger), not to the line the skid lands on.
 *
 *   skid SECONDS    walks the list for that long; prints the sum
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct node {
	struct node *next;
	long pad[6];
	long value;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long walk(const struct node *head)
{
	long sum = 0;
	for (const struct node *p = head; p; p = p->next) /* SKID-NEXT-LINE */
		sum += p->value; /* SKID-VALUE-LINE */
	return sum;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, end;
	size_t n = (64u << 20) / sizeof(struct node);
	struct node *nodes = malloc(n * sizeof *nodes);
	size_t *order = malloc(n * sizeof *order);
	long sum = 0;

	if (!nodes || !order)
		return 1;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	srand(7);
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++) {
		nodes[order[i]].next = i + 1 < n ? &nodes[order[i + 1]] : NULL;
		nodes[order[i]].value = (long)i;
	}
	end = now() + seconds;
	do
		sum += walk(&nodes[order[0]]);
	while (now() < end);
	printf("%ld\n", sum);
	free(order);
	free(nodes);
	return 0;
}
