/*
 * The simulator's test of its schedule (sampler/sim/sim_sched.c): four
 * threads hand a token round under a mutex and a condition variable,
 * each bumping its own counter and, now and then, printing; main joins
 * them.  Every hand-over is a futex wait and wake, every print a system
 * call, so under Valgrind alone the order the threads run in, and so the
 * simulated counts, would change from run to run.
 *
 *   sim_turns [ROUNDS]      (per thread; default 200)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long counts[NTHREADS * 8]; /* a line each */
static long token, rounds = 200;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&mu);
		while (token % NTHREADS != id)
			pthread_cond_wait(&cv, &mu);
		counts[id * 8] += i;
		token++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		if (i % 64 == 0) {
			printf("thread %ld round %ld\n", id, i);
			fflush(stdout);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	long sum = 0;

	if (argc > 1)
		rounds = atol(argv[1]);
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++)
		sum += counts[i * 8];
	printf("token %ld sum %ld\n", token, sum);
	return 0;
}
