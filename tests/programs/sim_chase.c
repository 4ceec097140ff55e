/*
 * The simulator's pointer-chasing test: a random cycle through 16384
 * line-sized nodes (1 MiB: more than the test geometry's 256 KiB L2, less
 * than its 2 MiB L3; tests/e2e/sim.sh), followed for LAPS laps.
 *
 *   sim_chase [LAPS]
 *
 * Between two visits of a node every other node is visited once, so 255
 * other lines went through its 8-way L1 set and 31 through its 8-way L2
 * set: every step misses both.  The L3 (8 nodes a set of 16 ways) holds
 * them all once the building loop has touched them: no step misses it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 16384

struct node {
	struct node *next;
	char pad[56];
};

static struct node nodes[NODES] __attribute__((aligned(64)));
static uint32_t order[NODES];

__attribute__((noinline)) static void build(void)
{
	uint64_t s = 88172645463325252ull;

	for (uint32_t i = 0; i < NODES; i++)
		order[i] = i;
	for (uint32_t i = NODES - 1; i > 0; i--) {
		uint32_t j, t;
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		j = (uint32_t)(s % (i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (uint32_t i = 0; i < NODES; i++)
		nodes[order[i]].next = &nodes[order[(i + 1) % NODES]];
}

__attribute__((noinline)) static struct node *chase(struct node *p, long steps)
{
	for (long i = 0; i < steps; i++)
		p = p->next; /* SIM:chase */
	return p;
}

int main(int argc, char **argv)
{
	long laps = argc > 1 ? atol(argv[1]) : 4;

	build();
	printf("%td\n", chase(&nodes[order[0]], laps * NODES) - nodes);
	return 0;
}
