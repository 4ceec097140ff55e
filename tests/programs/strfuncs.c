/*
 * Time in the C library's string functions, which have no variables: what
 * they read and write is what the caller's pointer arguments point into.
 *
 *   strfuncs [ROUNDS]       copy, compare, clear and measure typed memory
 *   strfuncs tail [ROUNDS]  only through a wrapper that tail-calls memcpy
 *                           with its arguments swapped
 *   strfuncs bytes [ROUNDS] only copy_bytes(): memcpy from one heap block
 *                           of bytes to another (<scalars> (via memcpy);
 *                           with record --heap, the blocks by their sites)
 *
 * copy_all() memcpys struct recs into struct outs (loads from struct rec,
 * stores to struct out); compare_all() memcmps two arrays of struct rec;
 * clear_all() memsets struct outs; text_len() runs strlen along the global
 * `text`.  Each call has work after it, so that it is a call and not a
 * tail call.  swap_copy() is a tail call: its caller's arguments are not
 * memcpy's, and the profiler must not take them for memcpy's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	long key;
	char name[56];
};

struct out {
	char text[48];
	long key;
	long pad;
};

/* 64 KiB each: in the L2 cache, so that the time is the functions' own */
#define N 1024

char text[65536];

/* Copies and clears go by 256 bytes (a runtime size, so that the compiler
 * calls the library): glibc does those without a loop, so that a sample's
 * load or store is found behind it. */
size_t chunk = 4;

__attribute__((noinline)) long copy_all(struct out *dst, const struct rec *src, size_t n)
{
	for (size_t i = 0; i + chunk <= n; i += chunk)
		memcpy(dst + i, src + i, chunk * sizeof *src);
	return dst[n - 1].key;
}

__attribute__((noinline)) int compare_all(const struct rec *a, const struct rec *b, size_t n)
{
	return memcmp(a, b, n * sizeof *a) + 1;
}

__attribute__((noinline)) long clear_all(struct out *dst, size_t n)
{
	for (size_t i = 0; i + chunk <= n; i += chunk)
		memset(dst + i, 0, chunk * sizeof *dst);
	return dst[0].key + 1;
}

__attribute__((noinline)) size_t text_len(void)
{
	return strlen(text) + 1;
}

__attribute__((noinline)) long copy_bytes(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i + 64 * chunk <= n; i += 64 * chunk)
		memcpy(dst + i, src + i, 64 * chunk);
	return dst[n - 1];
}

__attribute__((noinline)) void *swap_copy(const struct out *from, struct rec *to, size_t n)
{
	return memcpy(to, from, n);
}

int main(int argc, char **argv)
{
	int tail = argc > 1 && strcmp(argv[1], "tail") == 0;
	int bytes = argc > 1 && strcmp(argv[1], "bytes") == 0;
	long rounds = argc > 1 + (tail | bytes) ? atol(argv[1 + (tail | bytes)]) : 200000;
	struct rec *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
	struct out *o = calloc(N, sizeof *o);
	long sum = 0;

	if (!a || !b || !o)
		return 1;
	memset(text, 'x', sizeof text - 1);
	if (bytes) {
		char *from = calloc(N, 64);
		char *to = calloc(N, 64);
		if (!from || !to)
			return 1;
		for (long r = 0; r < rounds; r++)
			sum += copy_bytes(to, from, N * 64);
		free(from);
		free(to);
	}
	for (long r = 0; r < rounds && !bytes; r++) {
		if (tail) {
			sum += (long)swap_copy(o, a, N * sizeof *o) & 1;
			continue;
		}
		sum += copy_all(o, a, N);
		sum += compare_all(a, b, N);
		sum += clear_all(o, N);
		if (r % 4 == 0)
			sum += (long)text_len();
	}
	printf("%ld\n", sum);
	free(a);
	free(b);
	free(o);
	return 0;
}
