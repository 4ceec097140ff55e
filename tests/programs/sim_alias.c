/*
 * The simulator's aliasing test: a ring of 505 two-line nodes, each
 * node's `key` on its first line and `val` on its second.  The ring
 * (64 KiB) is more than an 8-way 32 KiB L1D holds, so every read misses
 * it: a lap is 1009 misses, 505 on `key` and 504 on `val` (the head's is
 * not read), as many as sim:L1D_MISS's default period.  A sampler that
 * took every 1009th miss would take the same read every lap; one that
 * drew the gaps between samples around 1009 would stay near the same
 * place of the lap for several samples.
 *
 *   sim_alias fields [LAPS]   walks the ring: key, val, key, val...
 *   sim_alias blocks [LAPS]   every key of the ring, then every val
 *
 * (LAPS: 1000 by default)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 505

/* volatile: every lap reads them, the head's key too */
struct node {
	volatile long key;
	struct node *next;
	char pad[48];
	volatile long val;
	char pad2[56];
};

static struct node ring[NODES] __attribute__((aligned(64)));

__attribute__((noinline)) static long walk(const struct node *head, long laps)
{
	long sum = 0;

	for (long i = 0; i < laps; i++) {
		const struct node *n = head;
		do {
			sum += n->key;
			n = n->next;
			if (n != head)
				sum += n->val;
		} while (n != head);
	}
	return sum;
}

__attribute__((noinline)) static long sweep(long laps)
{
	long sum = 0;

	for (long i = 0; i < laps; i++) {
		for (long k = 0; k < NODES; k++)
			sum += ring[k].key;
		for (long k = 1; k < NODES; k++)
			sum += ring[k].val;
	}
	return sum;
}

int main(int argc, char **argv)
{
	int blocks = argc > 1 && strcmp(argv[1], "blocks") == 0;
	long laps = argc > 2 ? atol(argv[2]) : 1000;

	if (argc < 2 || (!blocks && strcmp(argv[1], "fields") != 0) || laps <= 0) {
		fprintf(stderr, "usage: sim_alias fields|blocks [LAPS]\n");
		return 2;
	}
	for (long i = 0; i < NODES; i++) {
		ring[i].key = i;
		ring[i].val = 2 * i;
		ring[i].next = &ring[(i + 1) % NODES];
	}
	printf("%ld\n", blocks ? sweep(laps) : walk(&ring[0], laps));
	return 0;
}
