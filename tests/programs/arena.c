/*
 * Bytes read through a char * in heap blocks that other samples type
 * (tests/e2e/heap.sh):
 *
 *     arena N ROUNDS
 *
 * tags   an array of N struct rec, walked by their next pointers, each
 *        tag's 8 bytes summed by bytes(): the bytes are struct rec.tag[],
 *        as the block is an array of struct rec
 * arena  one block of N records, each followed by its 16-byte key, walked
 *        the same way, each key's bytes summed by bytes(): the keys are
 *        bytes of the block, not tags of records (the first 8 bytes of a
 *        key lie where a record's pointer would be, were the block an
 *        array of records)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	struct rec *next;
	char tag[8];
};

__attribute__((noipa)) static unsigned bytes(const char *p, int n)
{
	unsigned h = 0;
	for (int i = 0; i < n; i++)
		h = h * 31 + (unsigned char)p[i];
	return h;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, rounds = argc > 2 ? atol(argv[2]) : 2;
	struct rec *tags = malloc(n * sizeof *tags);
	char *arena = malloc(n * 32);
	unsigned h = 0;

	if (n < 1 || !tags || !arena)
		return 1;
	for (long i = 0; i < n; i++) {
		struct rec *r = (struct rec *)(arena + 32 * i);
		tags[i].next = i + 1 < n ? &tags[i + 1] : NULL;
		memcpy(tags[i].tag, "abcdefg", 8);
		r->next = i + 1 < n ? (struct rec *)(arena + 32 * (i + 1)) : NULL;
		memset(r->tag, 'x', sizeof r->tag);
		snprintf(arena + 32 * i + 16, 16, "key-%011ld", i % 100000000000L);
	}
	for (long k = 0; k < rounds; k++) {
		for (const struct rec *r = tags; r; r = r->next)
			h += bytes(r->tag, 8);
		for (const struct rec *r = (const struct rec *)arena; r; r = r->next)
			h += bytes((const char *)(r + 1), 16);
	}
	printf("%u\n", h);
	free(arena);
	free(tags);
	return 0;
}
