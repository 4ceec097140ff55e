/*
 * The false-sharing story of `make demo`: worker threads count the packets
 * and bytes they handle, each in its own slot of one array of per-thread
 * statistics.  No two threads touch the same counter, yet in the plain
 * build the slots (16 bytes each) share cache lines, which the cores take
 * from each other on every update.  Built with -DPADDED (counters_padded),
 * each slot starts a line pair of its own, as dsprof's sharing view
 * suggests, and the workers stop slowing each other down.
 *
 *   counters [PACKETS]      (per worker; two workers)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NWORKERS 2

struct worker_stats {
#ifdef PADDED
	_Alignas(128)
#endif
	long packets;
	long bytes;
};

static struct worker_stats stats[NWORKERS];
static long packets_per_worker = 100000;

/* The packet's length: a cheap pseudo-random number, so that the loop
 * does some work of its own between updates, as a real handler would. */
static unsigned next_len(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return 64 + (*seed >> 16) % 1400;
}

static void *worker(void *arg)
{
	volatile struct worker_stats *st = &stats[(long)arg];
	unsigned seed = (unsigned)(long)arg + 1;

	for (long i = 0; i < packets_per_worker; i++) {
		st->packets++;
		st->bytes += next_len(&seed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NWORKERS];

	if (argc > 1)
		packets_per_worker = atol(argv[1]);
	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NWORKERS; i++)
		printf("worker %d: %ld packets, %ld bytes\n", i, stats[i].packets, stats[i].bytes);
	return 0;
}
