/*
 * Thread-local variables (__thread): per-thread state that no other thread
 * shares, as a program keeps counters after a false-sharing fix.  Three
 * threads (main and two workers) each fill and sum their own array and
 * count their rounds in their own statistics.  The code reaches them the
 * two ways a program's thread-locals are reached: at a constant offset
 * from %fs (the statistics: addq $1, %fs:-24), and through the thread
 * pointer loaded into a register (the array, walked by a pointer: mov
 * %fs:0, %rax; lea -16400(%rax), %rdx).
 *
 *   tlsvars [ROUNDS]      (default 1000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define NWORKERS 2

static __thread double values[N];
static __thread volatile struct tstats {
	long rounds;
	long sum;
} stats;
static long rounds = 1000;

static void *work(void *arg)
{
	double total = 0;

	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++)
			values[i] += i;
		for (int i = 0; i < N; i++)
			total += values[i];
		stats.rounds++;
	}
	stats.sum = (long)total;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[NWORKERS];

	if (argc > 1)
		rounds = atol(argv[1]);
	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, work, NULL);
	work(NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("%ld rounds, sum %ld\n", stats.rounds, stats.sum);
	return 0;
}
