/*
 * Call chains through a leaf without a frame, and a program that can be
 * built again as another program at the same path.
 *
 *   leafcall [SECONDS]   (default 1)
 *
 * main calls scan, which spends its time in libc's memchr: a leaf in
 * hand-written assembly that never sets up a frame, so a frame-pointer walk
 * from inside it skips scan and goes from memchr straight to main.  main
 * also calls walk, an ordinary function with a frame.  Each runs about half
 * the time.
 *
 * Built with -DREBUILT, walk computes something else with other
 * instructions and a function sits before it: the same source file, a
 * different build-id, other code at the recorded addresses
 * (tests/e2e/buildid.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;
static char buf[1 << 16];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Occurrences of the byte c in buf: memchr does the work. */
__attribute__((noinline, noipa)) static size_t scan(int c)
{
	size_t n = 0;
	const char *p = buf, *end = buf + sizeof buf;
	while ((p = memchr(p, c, (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

#ifdef REBUILT
__attribute__((noinline, noipa)) static uint64_t mix(uint64_t x)
{
	return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull;
}

__attribute__((noinline, noipa)) static uint64_t walk(long n)
{
	uint64_t x = sink;
	for (long i = 0; i < n; i++)
		x = mix(x + (uint64_t)i);
	return x;
}
#else
__attribute__((noinline, noipa)) static uint64_t walk(long n)
{
	uint64_t x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}
#endif

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, end;
	unsigned long rounds = 0;

	/* a rare byte: memchr runs over long stretches between matches */
	for (size_t i = 0; i < sizeof buf; i += 4096)
		buf[i] = 'x';
	end = now() + seconds;
	do {
		for (int i = 0; i < 200; i++)
			sink += scan('x');
		sink += walk(200000);
		rounds++;
	} while (now() < end);
	printf("rounds %lu\n", rounds);
	return 0;
}
