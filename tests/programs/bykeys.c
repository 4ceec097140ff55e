/*
 * A program whose loads are all known, for the groupings (dsprof report
 * --by): recorded with the simulator and every load a sample, each key's
 * rows have exact answers.
 *
 *   bykeys [ROUNDS]
 *
 * Two threads, named "keys-left" and "keys-glob", each run one function,
 * after the other has finished (the counts do not depend on scheduling):
 *   sum_left    reads pairs[i].left of a page-aligned struct pair[64]
 *               (1 KiB: 16 lines of 64 bytes, one page), ROUNDS times
 *   sum_glob    reads glob[i] of a page-aligned global long[128] (1 KiB),
 *               ROUNDS times
 * Each hot loop does one load per element: 64 x ROUNDS and 128 x ROUNDS
 * loads; in each 64-byte line of pairs, 4 elements' .left (offsets 0, 16,
 * 32, 48).  The threads are created from main through run_left and
 * run_glob, so that call chains have callers to count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
	long left;
	long right;
};

static struct pair pairs[64] __attribute__((aligned(4096)));
static long glob[128] __attribute__((aligned(4096)));
static volatile long sink;
static long rounds = 1000;

__attribute__((noinline, noipa)) static long sum_left(const struct pair *p, long n)
{
	long s = 0;
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < n; i++)
			s += p[i].left;
	return s;
}

__attribute__((noinline, noipa)) static long sum_glob(long n)
{
	long s = 0;
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < n; i++)
			s += ((volatile long *)glob)[i];
	return s;
}

static void *left_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "keys-left");
	sink = sum_left(pairs, 64);
	return NULL;
}

static void *glob_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "keys-glob");
	sink = sum_glob(128);
	return NULL;
}

__attribute__((noinline)) static void run(void *(*fn)(void *))
{
	pthread_t t;
	if (pthread_create(&t, NULL, fn, NULL) || pthread_join(t, NULL))
		exit(1);
}

__attribute__((noinline)) static void run_left(void)
{
	run(left_thread);
}

__attribute__((noinline)) static void run_glob(void)
{
	run(glob_thread);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	for (long i = 0; i < 64; i++)
		pairs[i].left = pairs[i].right = i;
	for (long i = 0; i < 128; i++)
		glob[i] = i;
	run_left();
	run_glob();
	printf("%ld\n", sink);
	return 0;
}
