/*
 * A target whose behaviour the tests choose:
 *
 *   behave exit N          print a line to stdout and stderr, work a little, exit N
 *   behave crash           work a little, then die of SIGSEGV
 *   behave spin SECONDS    burn CPU in spin_work for SECONDS of wall time
 *   behave stubborn SECS   like spin, but ignore SIGINT (Ctrl-C)
 *   behave clock SECONDS   read the clock for SECONDS: the time goes to the vDSO
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_work(double seconds)
{
	double end = now() + seconds;
	uint64_t x = sink;
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 1;
	sink = x;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "exit") == 0) {
		printf("to stdout\n");
		fprintf(stderr, "to stderr\n");
		spin_work(0.2);
		return atoi(argv[2]);
	}
	if (argc == 2 && strcmp(argv[1], "crash") == 0) {
		spin_work(0.2);
		raise(SIGSEGV);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "spin") == 0) {
		spin_work(atof(argv[2]));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "stubborn") == 0) {
		signal(SIGINT, SIG_IGN);
		spin_work(atof(argv[2]));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "clock") == 0) {
		double end = now() + atof(argv[2]);
		while (now() < end)
			;
		return 0;
	}
	fprintf(stderr, "usage: behave exit N | crash | spin SECONDS | stubborn SECONDS | clock SECONDS\n");
	return 2;
}
