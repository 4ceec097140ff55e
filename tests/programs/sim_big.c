/*
 * A program of a few hundred MB that takes signals, for the simulator:
 * touches the first line of every page of an MB-sized buffer, pass after
 * pass, while SIGALRM fires every millisecond and its handler writes to
 * memory.  With any cache smaller than the buffer, every touch misses
 * every level: pages x passes misses, exactly.
 *
 *   sim_big MB PASSES    prints "PAGES PASSES", whether the handler ran and
 *                        whether the buffer holds what the passes wrote
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

static volatile sig_atomic_t alarms;
static volatile uint64_t alarm_log[64];

static void on_alarm(int sig)
{
	(void)sig;
	alarm_log[alarms & 63] = (uint64_t)alarms; /* SIM:handler */
	alarms++;
}

__attribute__((noinline)) static uint64_t touch_pages(volatile uint8_t *buf, size_t pages)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < pages; i++)
		sum += buf[i * 4096]++; /* SIM:touch */
	return sum;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 300, pages = mb * 256;
	int passes = argc > 2 ? atoi(argv[2]) : 4;
	struct sigaction sa;
	struct itimerval it = {{0, 1000}, {0, 1000}};
	uint64_t sum = 0;
	uint8_t *buf = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int p = 0; p < passes; p++)
		sum += touch_pages(buf, pages);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	/* pass p reads p from every page */
	printf("%zu %d %s %s\n", pages, passes, alarms > 0 ? "signals" : "no-signals",
	       sum == (uint64_t)pages * (uint64_t)passes * (uint64_t)(passes - 1) / 2 ? "sum-ok" : "sum-bad");
	return 0;
}
