/*
 * The bundled example: a small particle simulation with the memory habits
 * real programs have.  `make demo` records it.
 *
 *  - update_particles streams an array of structs but uses only a few hot
 *    fields of each 128-byte struct, so most of every cache line it loads
 *    is wasted;
 *  - walk_cells chases ->next pointers through a linked list scattered in
 *    memory;
 *  - count_hits does random read-modify-writes in a global table larger
 *    than the caches.
 *
 *   example [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct particle {
	double x, y, z;          /* hot: read and written every step */
	char name[32];           /* cold */
	double vx, vy, vz;       /* hot: read every step */
	double mass;             /* cold */
	int id, flags;           /* cold */
	double history[4];       /* cold */
};

struct cell {
	struct cell *next;
	long count;
	double energy;
	char pad[40];
};

#define NPART (1 << 16)
#define NCELL (1 << 16)
#define NTABLE (1 << 22)

static struct particle parts[NPART];
static uint32_t table[NTABLE];

__attribute__((noinline)) static void update_particles(double dt)
{
	for (int i = 0; i < NPART; i++) {
		struct particle *p = &parts[i];
		p->x += p->vx * dt;
		p->y += p->vy * dt;
		p->z += p->vz * dt;
	}
}

__attribute__((noinline)) static double walk_cells(struct cell *head)
{
	double e = 0;
	for (struct cell *c = head; c; c = c->next) {
		c->count++;
		e += c->energy;
	}
	return e;
}

__attribute__((noinline)) static void count_hits(uint64_t *seed, int n)
{
	uint64_t s = *seed;
	for (int i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		table[(s >> 33) & (NTABLE - 1)]++;
	}
	*seed = s;
}

static struct cell *make_cells(void)
{
	struct cell *cells = calloc(NCELL, sizeof *cells), *head = NULL;
	int *order = malloc(NCELL * sizeof *order);
	uint64_t s = 42;

	if (!cells || !order)
		exit(1);
	for (int i = 0; i < NCELL; i++)
		order[i] = i;
	/* a random order, so that every ->next is a cache miss */
	for (int i = NCELL - 1; i > 0; i--) {
		int j, t;
		s = s * 6364136223846793005ull + 1;
		j = (int)((s >> 33) % (uint64_t)(i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < NCELL; i++) {
		cells[order[i]].next = head;
		cells[order[i]].energy = i * 0.5;
		head = &cells[order[i]];
	}
	free(order);
	return head;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	struct cell *head = make_cells();
	uint64_t seed = 1;
	double e = 0;

	for (int i = 0; i < NPART; i++) {
		parts[i].vx = i * 1e-3;
		parts[i].vy = 1.0;
		parts[i].vz = -1.0;
		parts[i].id = i;
	}
	for (int r = 0; r < rounds; r++) {
		update_particles(0.01);
		e += walk_cells(head);
		count_hits(&seed, 1 << 16);
	}
	printf("energy %.1f, x[1] %.3f, table[7] %u\n", e, parts[1].x, table[7]);
	return 0;
}
