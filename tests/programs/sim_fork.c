/*
 * Processes and threads under the simulator: a thread, a forked child that
 * then execs another program, and the parent, each missing the cache in a
 * function of its own.
 *
 *   sim_fork PROGRAM [ARGS...]    the child execs PROGRAM ARGS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE (256 * 1024)

static volatile char area[3][SIZE] __attribute__((aligned(64)));

/* Touch every line of one area a few times: 4096 misses a pass with any
 * L1 smaller than the area. */
static long sweep_area(int which)
{
	long s = 0;
	for (int r = 0; r < 4; r++)
		for (int i = 0; i < SIZE; i += 64)
			s += area[which][i];
	return s;
}

__attribute__((noinline)) static void *thread_work(void *arg)
{
	(void)arg;
	return (void *)sweep_area(0);
}

__attribute__((noinline)) static long parent_work(void)
{
	return sweep_area(1);
}

__attribute__((noinline)) static long child_work(void)
{
	return sweep_area(2);
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t pid;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: sim_fork PROGRAM [ARGS...]\n");
		return 2;
	}
	pthread_create(&t, NULL, thread_work, NULL);
	pthread_join(t, NULL);
	pid = fork();
	if (pid == 0) {
		child_work();
		execv(argv[1], argv + 1);
		perror("execv");
		_exit(127);
	}
	parent_work();
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
