/*
 * A malloc-heavy program for the heap benchmark (bench/heap.sh): ten
 * million small allocations (16 to 256 bytes) from three call sites, each
 * freed 1000 allocations later, so that a thousand are live at a time.
 *
 *   allocs [MILLIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE 1024

__attribute__((noinline)) static void *small(size_t n)
{
	char *p = malloc(n);
	if (p)
		p[0] = 1;
	return p;
}

__attribute__((noinline)) static void *zeroed(size_t n)
{
	char *p = calloc(1, n);
	if (p)
		p[n - 1] = 2;
	return p;
}

__attribute__((noinline)) static void *grown(void *old, size_t n)
{
	char *p = realloc(old, n);
	if (p)
		p[0] = 3;
	return p;
}

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 10) * 1000000L;
	void *live[LIVE] = {0};
	unsigned long sum = 0;

	for (long i = 0; i < n; i++) {
		size_t size = 16 + (size_t)(i * 7919 % 241);
		void **slot = &live[i % LIVE];
		free(*slot);
		switch (i % 3) {
		case 0: *slot = small(size); break;
		case 1: *slot = zeroed(size); break;
		default: *slot = grown(small(size / 2 + 1), size); break;
		}
		sum += (unsigned long)*slot & 0xff;
	}
	for (int i = 0; i < LIVE; i++)
		free(live[i]);
	printf("%lu\n", sum);
	return 0;
}
