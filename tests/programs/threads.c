/*
 * A process tree for attribution tests: two named threads, a forked child
 * that keeps running this program's code, and a forked child that execs
 * another program.
 *
 *   threads BEHAVE_PATH    (BEHAVE_PATH: the behave test program, run as "behave spin 0.3")
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define BURN(name, k)                                                  \
	__attribute__((noinline, noipa)) static void name(double secs) \
	{                                                              \
		double end = cpu_now() + secs;                         \
		uint64_t x = sink;                                     \
		while (cpu_now() < end)                                \
			for (int i = 0; i < 20000; i++)                \
				x = x * (k) + 7;                       \
		sink = x;                                              \
	}

BURN(thread_alpha_work, 6364136223846793005ull)
BURN(thread_beta_work, 2862933555777941757ull)
BURN(main_work, 3202034522624059733ull)
BURN(forked_work, 1103515245ull)

static void *alpha(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "alpha");
	thread_alpha_work(0.3);
	return NULL;
}

static void *beta(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "beta");
	thread_beta_work(0.3);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	pid_t forked, execed;

	if (argc != 2) {
		fprintf(stderr, "usage: threads BEHAVE_PATH\n");
		return 2;
	}
	pthread_create(&a, NULL, alpha, NULL);
	pthread_create(&b, NULL, beta, NULL);
	main_work(0.3);
	pthread_join(a, NULL);
	pthread_join(b, NULL);

	forked = fork();
	if (forked == 0) {
		forked_work(0.3);
		_exit(0);
	}
	execed = fork();
	if (execed == 0) {
		execl(argv[1], "behave", "spin", "0.3", (char *)NULL);
		_exit(127);
	}
	waitpid(forked, NULL, 0);
	waitpid(execed, NULL, 0);
	printf("threads done\n");
	return 0;
}
