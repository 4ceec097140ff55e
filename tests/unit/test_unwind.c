/*
 * dwarfmap unwinding (ds_dso_unwind_step): this process's own stack,
 * unwound from registers and a copy of the stack, against glibc's
 * backtrace(), which walks it with libgcc's unwinder; then every kind of
 * rule on hand-written CFI with made-up registers and memory; then hostile
 * expressions and memory that ends.
 */
#include "dwarfmap/dwarfmap.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_dso.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15, RIP };

typedef struct mem {
	const uint8_t *bytes;
	uint64_t base, size;
	unsigned reads;
} mem;

static bool read_mem(void *ctx, uint64_t addr, uint64_t *val)
{
	mem *m = ctx;

	m->reads++;
	if (addr < m->base || addr - m->base > m->size || m->size - (addr - m->base) < 8)
		return false;
	memcpy(val, m->bytes + (addr - m->base), 8);
	return true;
}

/* ---- this process's stack ---- */

#define MAX_FRAMES 64
#define COPY 16384

typedef struct live {
	ds_uregs regs;
	uint8_t stack[COPY];
	uint64_t copied;
	void *bt[MAX_FRAMES];
	int nbt;
} live;

/* The end of the main thread's stack, from /proc/self/maps. */
static uint64_t stack_end(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi, end = 0;

	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

/* The stack as it is, with the redzones the address sanitizer puts around
 * other frames' variables (make check): read byte by byte without its
 * checks, which would stop at them; volatile keeps the loop a loop, not a
 * call of the checked memcpy. */
__attribute__((noinline, no_sanitize("address"))) static void copy_stack(uint8_t *to, uint64_t from,
									   size_t n)
{
	const volatile uint8_t *p = (const volatile uint8_t *)from;

	for (size_t i = 0; i < n; i++)
		to[i] = p[i];
}

/* The callee-saved registers, the stack pointer and the address of the
 * instruction after the capture, as they are at that instruction; then
 * the stack above, and backtrace()'s answer from here. */
__attribute__((noinline)) static void capture(live *l)
{
	uint64_t v[9], end;

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 : : "r"(v) : "rax", "memory");
	l->regs.v[RIP] = v[0];
	l->regs.v[RSP] = v[1];
	l->regs.v[RBP] = v[2];
	l->regs.v[RBX] = v[3];
	l->regs.v[R12] = v[4];
	l->regs.v[R13] = v[5];
	l->regs.v[R14] = v[6];
	l->regs.v[R15] = v[7];
	l->regs.known = 1ull << RIP | 1ull << RSP | 1ull << RBP | 1ull << RBX | 1ull << R12 | 1ull << R13 |
			1ull << R14 | 1ull << R15;
	end = stack_end();
	l->copied = end > v[1] && end - v[1] < COPY ? end - v[1] : COPY;
	copy_stack(l->stack, v[1], l->copied);
	l->nbt = backtrace(l->bt, MAX_FRAMES);
}

__attribute__((noinline)) static void inner(live *l, int depth)
{
	if (depth)
		inner(l, depth - 1);
	else
		capture(l);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

/* The object holding pc and its load bias, opened once per path. */
typedef struct objs {
	char *path[8];
	ds_dso *dso[8];
	size_t n;
} objs;

static ds_dso *object_of(objs *o, uint64_t pc, uint64_t *bias)
{
	Dl_info info;
	struct link_map *lm;
	const char *path;

	if (!dladdr1((void *)pc, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	*bias = lm->l_addr;
	path = lm->l_name && *lm->l_name ? lm->l_name : "/proc/self/exe";
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->path[i], path) == 0)
			return o->dso[i];
	if (o->n == 8)
		return NULL;
	o->path[o->n] = ds_xstrdup(path);
	o->dso[o->n] = ds_dso_open(path, NULL, &(ds_err){0});
	return o->dso[o->n++];
}

TEST(own_stack)
{
	live *l = ds_xcalloc(1, sizeof *l);
	mem m;
	objs o = {0};
	uint64_t pcs[MAX_FRAMES];
	size_t n = 0;
	bool exact = true;
	int rc = DS_UNWIND_OK;
	ds_unwind_env env = {.sp_reg = RSP, .read = read_mem};

	inner(l, 3);
	m = (mem){l->stack, l->regs.v[RSP], l->copied, 0};
	env.ctx = &m;
	while (n < MAX_FRAMES && rc == DS_UNWIND_OK) {
		uint64_t pc = l->regs.v[RIP], at = exact ? pc : pc - 1, bias, ra;
		ds_dso *d = object_of(&o, at, &bias);
		pcs[n++] = pc;
		if (!d)
			break;
		env.bias = bias;
		rc = ds_dso_unwind_step(d, at - bias, &env, &l->regs, &ra, &exact);
		l->regs.v[RIP] = ra;
	}
	/* backtrace()'s first frame is its return into capture (or, under the
	 * address sanitizer, into its interceptor, one frame more), ours the
	 * captured instruction: from the caller of capture on, the same, to
	 * the end of backtrace()'s */
	int j = 0;
	while (j < l->nbt && n > 1 && (uint64_t)l->bt[j] != pcs[1])
		j++;
	CHECK(l->nbt >= 8); /* capture, inner x4, the test, main, libc... */
	CHECK(j < l->nbt && n >= (size_t)(l->nbt - j + 1));
	for (int i = 1; j < l->nbt && (size_t)i < n; i++, j++) {
		char d[80];
		snprintf(d, sizeof d, "frame %d: %#llx, backtrace %p", i, (unsigned long long)pcs[i], l->bt[j]);
		unit_report(pcs[i] == (uint64_t)l->bt[j], __FILE__, __LINE__, "frame as backtrace's",
			    pcs[i] == (uint64_t)l->bt[j] ? NULL : d);
	}
	CHECK(rc == DS_UNWIND_OUTERMOST);
	printf("# own stack: %zu frames, backtrace() %d\n", n, l->nbt);
	for (size_t i = 0; i < o.n; i++) {
		free(o.path[i]);
		ds_dso_close(o.dso[i]);
	}
	free(l);
}

/* ---- every kind of rule ---- */

static const char rules_s[] =
	"  .text\n"
	"  .macro fn name\n"
	"  .globl \\name\n"
	"  .type \\name, @function\n"
	"\\name:\n"
	"  .cfi_startproc\n"
	"  .endm\n"
	"  .macro endfn name\n"
	"  nop\n"
	"  nop\n"
	"  ret\n"
	"  .cfi_endproc\n"
	"  .size \\name, .-\\name\n"
	"  .endm\n"
	/* push rbx; sub 32: the CFA 48 above rsp, rbx at CFA-16 */
	"  fn saved\n"
	"  nop\n"
	"  .cfi_def_cfa_offset 48\n"
	"  .cfi_offset rbx, -16\n"
	"  endfn saved\n"
	/* a realigned stack: CFA = *(rbp - 8), rbp at CFA-16 */
	"  fn expr_cfa\n"
	"  nop\n"
	"  .cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06\n" /* def_cfa_expression: breg6 -8; deref */
	"  .cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00\n" /* expression rbp: breg6 0 */
	"  endfn expr_cfa\n"
	/* rules that are values: r12 = CFA - 64; rbx = r13; r14 = CFA + 5 * 3 */
	"  fn values\n"
	"  nop\n"
	"  .cfi_val_offset r12, -64\n"
	"  .cfi_register rbx, r13\n"
	"  .cfi_escape 0x16, 0x0e, 0x04, 0x35, 0x33, 0x1e, 0x22\n" /* val_expression r14: lit5 lit3 mul plus */
	"  endfn values\n"
	/* a signal trampoline: the return address read from a context at rsp + 40 */
	"  nop\n"
	"  fn tramp\n"
	"  .cfi_signal_frame\n"
	"  .cfi_escape 0x0f, 0x02, 0x77, 0x30\n"       /* def_cfa_expression: breg7 +48 */
	"  .cfi_escape 0x10, 0x10, 0x02, 0x77, 0x28\n" /* expression rip: breg7 +40 */
	"  nop\n"
	"  endfn tramp\n"
	/* the first frame of a thread */
	"  fn first\n"
	"  .cfi_undefined rip\n"
	"  endfn first\n"
	/* a branch out of the expression, and one that loops */
	"  fn bad_branch\n"
	"  .cfi_escape 0x0f, 0x03, 0x2f, 0x10, 0x00\n" /* def_cfa_expression: skip +16 */
	"  endfn bad_branch\n"
	"  fn loop\n"
	"  .cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n" /* def_cfa_expression: skip -3 */
	"  endfn loop\n"
	"  fn div0\n"
	"  .cfi_escape 0x0f, 0x03, 0x31, 0x30, 0x1b\n" /* def_cfa_expression: lit1 lit0 div */
	"  endfn div0\n"
	"  fn unknown_reg\n"
	"  .cfi_escape 0x0f, 0x02, 0x78, 0x00\n" /* def_cfa_expression: breg8 0: r8, not sampled here */
	"  endfn unknown_reg\n"
	"  .section .note.GNU-stack,\"\",@progbits\n";

static const char rules_main_c[] = "int main(void) { return 0; }\n";

static void set(ds_uregs *r, int reg, uint64_t v)
{
	r->v[reg] = v;
	r->known |= 1ull << reg;
}

TEST(rules)
{
	uint64_t stack[32] = {0}, ra, a, v;
	const uint64_t sp = 0x7000;
	mem m = {(const uint8_t *)stack, sp, sizeof stack, 0};
	ds_unwind_env env = {.sp_reg = RSP, .read = read_mem, .ctx = &m};
	ds_uregs r;
	bool exact;
	ds_dso *d;

	CHECK(unit_write_text("rules.s", rules_s) && unit_write_text("rmain.c", rules_main_c));
	CHECK(unit_sh("gcc -O2 -o rules rmain.c rules.s"));
	d = unit_open_dso("rules", NULL);
	CHECK(d != NULL);
	if (!d)
		return;

	/* saved: CFA = sp + 48, return address at sp + 40, rbx at sp + 32 */
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	set(&r, RBX, 1);
	set(&r, R12, 12);
	stack[5] = 0x401234;
	stack[4] = 77;
	a = unit_nm_addr("rules", "saved");
	CHECK(a && ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_OK);
	CHECK_EQ_U64(ra, 0x401234);
	CHECK_EQ_U64(r.v[RSP], sp + 48);
	CHECK(r.deferred & (1ull << RBX)); /* saved in memory: read when needed */
	CHECK(ds_uregs_get(&r, RBX, &env, &v) && v == 77);
	CHECK(!(r.deferred & (1ull << RBX)));
	CHECK_EQ_U64(r.v[R12], 12); /* no rule: kept */
	CHECK(!exact);
	/* before the rules: CFA = sp + 8 */
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	stack[0] = 0x405555;
	CHECK(ds_dso_unwind_step(d, a, &env, &r, &ra, &exact) == DS_UNWIND_OK && ra == 0x405555);

	/* expr_cfa: rbp = sp + 16, CFA = *(rbp - 8) = sp + 64 */
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	set(&r, RBP, sp + 16);
	stack[1] = sp + 64;
	stack[7] = 0x406666; /* CFA - 8 */
	stack[6] = 0xbbbb;   /* CFA - 16: the caller's rbp */
	a = unit_nm_addr("rules", "expr_cfa");
	CHECK(a && ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_OK);
	CHECK_EQ_U64(ra, 0x406666);
	CHECK_EQ_U64(r.v[RSP], sp + 64);
	/* expression rbp: the address is rbp's own value, sp + 16: stack[2] */
	stack[2] = 0xcccc;
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	set(&r, RBP, sp + 16);
	CHECK(ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_OK);
	CHECK(ds_uregs_get(&r, RBP, &env, &v) && v == 0xcccc);

	/* values: r12 = CFA - 64, rbx = r13, r14 = CFA + 15 */
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	set(&r, R13, 1313);
	stack[0] = 0x407777;
	a = unit_nm_addr("rules", "values");
	CHECK(a && ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_OK);
	CHECK_EQ_U64(r.v[R12], sp + 8 - 64);
	CHECK_EQ_U64(r.v[RBX], 1313);
	CHECK_EQ_U64(r.v[R14], sp + 8 + 15);
	/* rbx from a register not known: unknown in the caller, not an error */
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	CHECK(ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_OK);
	CHECK(!(r.known & (1ull << RBX)));

	/* the trampoline: the interrupted code's address is exact */
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	stack[5] = 0x408888;
	a = unit_nm_addr("rules", "tramp");
	CHECK(a && ds_dso_unwind_step(d, a, &env, &r, &ra, &exact) == DS_UNWIND_OK);
	CHECK_EQ_U64(ra, 0x408888);
	CHECK_EQ_U64(r.v[RSP], sp + 48);
	CHECK(exact);

	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	a = unit_nm_addr("rules", "first");
	CHECK(a && ds_dso_unwind_step(d, a, &env, &r, &ra, &exact) == DS_UNWIND_OUTERMOST);

	/* expressions that cannot be evaluated, in bounded time */
	static const char *const bad[] = {"bad_branch", "loop", "div0", "unknown_reg"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&r, 0, sizeof r);
		set(&r, RSP, sp);
		a = unit_nm_addr("rules", bad[i]);
		CHECK(a && ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_BAD_CFI);
		CHECK_EQ_U64(r.v[RSP], sp); /* left as they were */
	}

	/* memory that ends: the return address beyond the copy */
	m.size = 16;
	memset(&r, 0, sizeof r);
	set(&r, RSP, sp);
	a = unit_nm_addr("rules", "saved");
	CHECK(ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_NO_MEMORY);
	/* no CFI at all */
	CHECK(ds_dso_unwind_step(d, 0x10, &env, &r, &ra, &exact) == DS_UNWIND_NO_CFI);
	/* no stack pointer */
	memset(&r, 0, sizeof r);
	CHECK(ds_dso_unwind_step(d, a + 1, &env, &r, &ra, &exact) == DS_UNWIND_BAD_CFI);
	ds_dso_close(d);
}

int main(void)
{
	if (!unit_tmpdir("unwind"))
		return 1;
	RUN(own_stack);
	RUN(rules);
	return unit_done();
}
