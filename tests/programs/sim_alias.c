/*
 * The simulator's aliasing test: a walk round a ring of 505 two-line
 * nodes that reads each node's `key` (first line) and, but at the head,
 * its `val` (second line).  The ring (64 KiB) is more than an 8-way
 * 32 KiB L1D holds, so every read misses it: a lap is 1009 misses, 505 on
 * `key` and 504 on `val`, as many as sim:L1D_MISS's default period.  A
 * sampler that took every 1009th miss would take the same read every lap.
 *
 *   sim_alias [LAPS]      (default 1000)
 */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	long laps = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < NODES; i++) {
		ring[i].key = i;
		ring[i].val = 2 * i;
		ring[i].next = &ring[(i + 1) % NODES];
	}
	printf("%ld\n", walk(&ring[0], laps));
	return 0;
}
