/* Memory-object evaluation speed: compiled expressions evaluated over a
 * stream of accesses on one core.  Target: >= 50 M evaluations/s for a line
 * formula and a set formula.
 *
 *   build/bench/mobj_eval [SECONDS_EACH]
 */
#include "memobj/memobj.h"

#include <stdlib.h>
#include <string.h>

#define NACCESS 4096 /* a stream that stays in L1D: the evaluator is measured, not memory */

static double rate(const ds_expr *e, const ds_access *acc, double seconds, int64_t *sink)
{
	double start = ds_now(), now;
	uint64_t n = 0;
	int64_t sum = 0;

	do {
		for (int i = 0; i < NACCESS; i++)
			sum += ds_expr_eval(e, &acc[i]);
		n += NACCESS;
		now = ds_now();
	} while (now - start < seconds);
	*sink += sum;
	return (double)n / (now - start);
}

int main(int argc, char **argv)
{
	static const char *const exprs[] = {
		"(VADDR>>6)&63",
		"VADDR / L1D_LINE % L1D_SETS",
		"PADDR / L2_LINE % L2_SETS",
		"VADDR>255 ? VADDR / L1D_LINE * L1D_LINE : -1",
	};
	double seconds = argc > 1 ? atof(argv[1]) : 0.5, worst = 0;
	ds_machine m = {0};
	ds_access *acc = ds_xcalloc(NACCESS, sizeof *acc);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int64_t sink = 0;
	ds_err err;

	/* a fixed machine, so that runs compare across hosts */
	if (ds_machine_override(&m, "L1D=48K:12:64,L2=1M:16:64,L3=32M:16:64,PAGE_SIZE=4096", &err)) {
		fprintf(stderr, "mobj_eval: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < NACCESS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		acc[i].v[DS_VADDR] = (int64_t)(0x7f0000000000ull + (x & 0xffffffffull));
		acc[i].v[DS_PADDR] = i % 16 ? (int64_t)(x >> 28 & 0xfffffffffull) : -1;
		acc[i].v[DS_THRID] = 1000 + i % 8;
		acc[i].v[DS_CPUID] = i % 4;
		acc[i].v[DS_VIRTPC] = 0x401000 + i * 4;
		acc[i].v[DS_TSTAMP] = i * 1000;
	}
	printf("== memory-object evaluation (one core, %d accesses in a loop, %.1f s each)\n", NACCESS,
	       seconds);
	for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
		ds_expr *e;
		double r;
		if (ds_expr_compile("bench", exprs[i], &m, &e, &err)) {
			fprintf(stderr, "mobj_eval: %s\n", err.msg);
			return 1;
		}
		r = rate(e, acc, seconds, &sink);
		/* the target is for the line and set formulas */
		if (i < 2 && (worst == 0 || r < worst))
			worst = r;
		printf("%-48s %7.1f M evaluations/s\n", exprs[i], r / 1e6);
		ds_expr_free(e);
	}
	printf("line and set formulas: %.1f M evaluations/s (target >= 50): %s\n", worst / 1e6,
	       worst >= 50e6 ? "PASS" : "FAIL");
	/* keep the sums alive so that no evaluation is optimized away */
	if (sink == 42)
		printf("\n");
	free(acc);
	ds_machine_fini(&m);
	return 0;
}
