/*
 * Bit fields that share a storage unit, each one read, written or
 * incremented by a function of its own, for dataspace attribution: every
 * access to the unit touches the same bytes, and only what the code does
 * to the value (shifts and masks, and in which register) says which field
 * it means.  raw_byte copies the unit's first byte whole: no field is
 * singled out, and the answer must say so, not name one of them.  The
 * e2e test dataspace.sh builds this file with gcc and clang at -O0 and
 * -O2, records it with --sim (every load and store sampled), and wants
 * every access in a function named by its field, raw_byte's by the
 * bucket "<one of ready|busy|count>".
 *
 *   bitunits [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	unsigned ready : 1;
	unsigned busy : 1;
	unsigned count : 6;
	unsigned level : 5;
	unsigned mode : 3;
	unsigned char kind;
};

#define NUNITS 64

/* Not static, so that the compilers keep each one as it is written. */
void set_ready(struct unit *u);
int test_busy(const struct unit *u);
void bump_count(struct unit *u);
unsigned get_level(const struct unit *u);
void set_mode(struct unit *u, unsigned m);
unsigned char raw_byte(const struct unit *u);

__attribute__((noinline)) void set_ready(struct unit *u)
{
	u->ready = 1;
}

__attribute__((noinline)) int test_busy(const struct unit *u)
{
	return u->busy;
}

__attribute__((noinline)) void bump_count(struct unit *u)
{
	u->count++;
}

__attribute__((noinline)) unsigned get_level(const struct unit *u)
{
	return u->level;
}

__attribute__((noinline)) void set_mode(struct unit *u, unsigned m)
{
	u->mode = m;
}

__attribute__((noinline)) unsigned char raw_byte(const struct unit *u)
{
	unsigned char c;
	memcpy(&c, u, 1);
	return c;
}

int main(int argc, char **argv)
{
	static struct unit units[NUNITS];
	long rounds = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long sum = 0;

	for (long r = 0; r < rounds; r++)
		for (unsigned i = 0; i < NUNITS; i++) {
			struct unit *u = &units[i];
			set_ready(u);
			bump_count(u);
			set_mode(u, i & 7);
			sum += (unsigned long)test_busy(u) + get_level(u) + raw_byte(u);
		}
	printf("%lu %u\n", sum, units[3].count);
	return 0;
}
