/*
 * Two loops whose timer samples both go to a load: one stalls on a divide
 * after a load that always hits the L1 cache, the other on loads that
 * miss.  A timer cannot tell them apart; a recording that counts misses
 * (--sim) can (report --cross).
 *
 *   stall [ROUNDS]
 *
 * divide_loop() loads divisors[i & 7] (a global of 64 bytes) and divides
 * by it; chase() follows struct slot.next at random through 16 MiB.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

long divisors[8] = {3, 5, 7, 11, 13, 17, 19, 23};

struct slot {
	struct slot *next;
	long pad[7];
};

#define NSLOTS (1 << 18) /* 64-byte slots: 16 MiB */

__attribute__((noipa)) static long divide_loop(long n)
{
	long x = 1;
	for (long i = 0; i < n; i++)
		x = (x * 31 + i) / divisors[i & 7] + i;
	return x;
}

__attribute__((noipa)) static long chase(struct slot *p, long n)
{
	long steps = 0;
	for (long i = 0; i < n; i++) {
		p = p->next;
		steps += (long)((uintptr_t)p & 1);
	}
	return steps;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 30;
	struct slot *slots = calloc(NSLOTS, sizeof *slots);
	uint32_t *order = malloc(NSLOTS * sizeof *order);
	uint64_t rng = 88172645463325252ull;
	long sum = 0;

	if (!slots || !order)
		return 1;
	/* one cycle through every slot, in random order */
	for (uint32_t i = 0; i < NSLOTS; i++)
		order[i] = i;
	for (uint32_t i = NSLOTS - 1; i > 0; i--) {
		uint32_t j, t;
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = (uint32_t)(rng % (i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < NSLOTS; i++)
		slots[order[i]].next = &slots[order[(i + 1) % NSLOTS]];
	for (long r = 0; r < rounds; r++) {
		sum += divide_loop(1 << 20);
		sum += chase(&slots[order[0]], NSLOTS);
	}
	printf("%ld\n", sum);
	free(order);
	free(slots);
	return 0;
}
