/* Unit tests for memobj/: machines (sysfs, meta, model files, overrides),
 * the expression and filter language, memory objects and the user's file. */
#include "memobj/memobj.h"
#include "tests/unit/unit.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ---- */

static ds_machine machine; /* the test machine: a typical x86-64 */

static void make_machine(ds_machine *m)
{
	ds_err err;
	memset(m, 0, sizeof *m);
	if (ds_machine_override(m, "L1D=48K:12:64,L1I=32K:8:64,L2=1M:16:64,L3=32M:16:64,"
				   "PAGE_SIZE=4096,HUGE_PAGE_SIZE=2M", &err))
		printf("# %s\n", err.msg);
}

/* The caller's operands filters get here, as analyze/ gives its dimensions. */
enum { OP_FUNC, OP_DOBJ, OP_FIELD, OP_THREAD, NOPS };
static const ds_filter_operand ops[NOPS] = {
	{"function", "FUNC", true}, {"dataobject", "DOBJ", true}, {"field", "FIELD", true}, {"thread", NULL, false}};
static int64_t op_v[NOPS];
static int32_t alias_v[NOPS];

static ds_access access_at(int64_t vaddr, int64_t paddr)
{
	ds_access a = {.op = op_v, .alias = alias_v};
	for (size_t i = 0; i < NOPS; i++)
		op_v[i] = alias_v[i] = -1;
	a.v[DS_VADDR] = vaddr;
	a.v[DS_PADDR] = paddr;
	a.v[DS_THRID] = 4242;
	a.v[DS_CPUID] = 3;
	a.v[DS_VIRTPC] = 0x401234;
	a.v[DS_TSTAMP] = 123456789;
	a.v[DS_ASITE] = a.v[DS_BLOCKOFF] = -1;
	return a;
}

/* TEXT evaluated on an access; INT64_MIN + 7 when it does not compile. */
static int64_t eval_on(const char *text, const ds_access *a)
{
	ds_expr *e;
	ds_err err;
	int64_t v;

	if (ds_expr_compile("t", text, &machine, &e, &err)) {
		printf("# %s\n", err.msg);
		return INT64_MIN + 7;
	}
	v = ds_expr_eval(e, a);
	ds_expr_free(e);
	return v;
}

static int64_t eval_v(const char *text, int64_t vaddr)
{
	ds_access a = access_at(vaddr, 0x1234567890);
	return eval_on(text, &a);
}

/* The error message compiling TEXT gives ("" when it compiles). */
static const char *compile_error(const char *text, bool filter, const ds_mobjs *objs)
{
	static ds_err err;
	ds_expr *e;
	int rc = filter ? ds_filter_compile(text, &machine, objs, ops, NOPS, &e, &err)
			: ds_expr_compile("x", text, &machine, &e, &err);
	ds_expr_free(e);
	return rc ? err.msg : "";
}

static bool write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;
	if (f && fclose(f))
		ok = false;
	return ok;
}

static char *file_text(const char *path)
{
	char *s = ds_read_file(path, NULL);
	return s ? s : ds_xstrdup("(missing)");
}

/* ---- the language against C ---- */

/* Parentheses are left out on purpose: the table tests precedence. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
#pragma GCC diagnostic ignored "-Wlogical-not-parentheses"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
TEST(same_as_c)
{
	const int64_t VADDR = 0x7f3a12345678, PADDR = 0x1234567890, THRID = 4242, CPUID = 3,
		      VIRTPC = 0x401234, TSTAMP = 123456789;
	ds_access a = access_at(VADDR, PADDR);
	struct {
		const char *text;
		int64_t want;
	} cases[] = {
#define E(x) {#x, (int64_t)(x)}
		/* every operator */
		E(-THRID), E(~THRID), E(!THRID), E(!0), E(+CPUID), E(THRID * CPUID), E(THRID / CPUID),
		E(THRID % CPUID), E(THRID + CPUID), E(THRID - CPUID), E(THRID << CPUID),
		E(THRID >> CPUID), E(THRID < CPUID), E(THRID <= CPUID), E(THRID > CPUID),
		E(THRID >= CPUID), E(THRID == CPUID), E(THRID != CPUID), E(THRID & CPUID),
		E(THRID ^ CPUID), E(THRID | CPUID), E(THRID && CPUID), E(THRID || CPUID),
		E(THRID ? VADDR : PADDR), E(CPUID <= 3), E(CPUID >= 4), E(TSTAMP != 0),
		/* precedence, every neighbouring pair of levels */
		E(1 + 2 * 3), E((1 + 2) * 3), E(2 * 3 + 1), E(2 + 3 << 2), E(2 + (3 << 2)),
		E(1 << 4 + 1), E(VADDR >> 6 & 63), E(VADDR >> (6 & 63)), E(3 < 4 == 1),
		E(3 < (4 == 1)), E(1 == 2 < 3), E(1 & 3 == 3), E((1 & 3) == 3), E(6 ^ 3 & 5),
		E((6 ^ 3) & 5), E(6 | 3 ^ 5), E((6 | 3) ^ 5), E(6 | 3 & 5), E(1 | 2 && 0),
		E(0 && 1 || 1), E(1 || 0 && 0), E(0 || 0 && 1), E(!0 + 1), E(!(0 + 1)), E(~0 & 0xff),
		E(-VADDR >> 60), E(-CPUID * 2), E(- -5), E(-~5), E(~-5), E(!!VADDR), E(+5 - +3),
		E(1 + 1 ? 2 : 3), E(1 || 0 ? 10 : 20), E(CPUID == 3 ? 10 : 20), E(VADDR % 0x1000 < 0x800),
		E(VADDR < PADDR + 5 * 3 << 2), E(THRID - 2 * CPUID >= 4236 == 1),
		/* associativity */
		E(7 - 3 - 2), E(7 - (3 - 2)), E(100 / 10 / 5), E(100 / (10 / 5)), E(17 % 5 * 3),
		E(17 % (5 * 3)), E(1 << 4 >> 2), E(VADDR >> 12 << 12), E(5 > 4 > 3), E(5 >= 5 <= 0),
		E(1 == 2 == 0), E(1 ? 2 : 0 ? 3 : 4), E(0 ? 2 : 0 ? 3 : 4), E(0 ? 1 : 2 ? 3 : 4),
		E(1 ? 0 ? 5 : 6 : 7), E(0 ? 0 ? 5 : 6 : 7), E(THRID - CPUID - 1), E(THRID / CPUID / 2),
		/* signs and C's truncating division */
		E(-7 / 2), E(-7 % 2), E(7 % -2), E(-7 / -2), E(-THRID / 64), E(-THRID % 64),
		E(-THRID / 7 * 7), E(THRID * -64),
		/* literals */
		E(0xff + 0XfF), E(0x7fffffffffffffff), E(4096), E(0),
		/* operands and typical formulas */
		E(VADDR / 64 % 64), E(PADDR / 4096 * 4096), E(THRID * CPUID + 1), E(VIRTPC & ~0xfff),
		E(TSTAMP / 1000 % 7), E(VADDR - PADDR), E(VADDR ^ PADDR), E(VADDR > 255 ? VADDR >> 6 : -1),
		E((PADDR >> 6 ^ PADDR >> 13) & 1),
#undef E
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t got = eval_on(cases[i].text, &a);
		if (got != cases[i].want && bad++ < 10)
			printf("# %s: got %" PRId64 ", C says %" PRId64 "\n", cases[i].text, got,
			       cases[i].want);
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(sizeof cases / sizeof cases[0] > 100);
}
#pragma GCC diagnostic pop

/* ---- generated expressions: a tree evaluator and the C compiler ---- */

enum { G_OPND, G_LIT, G_UN, G_BIN, G_COND };

static const struct {
	const char *text;
	int prec;
} gbin[] = {
	{"*", 10}, {"/", 10}, {"%", 10}, {"+", 9}, {"-", 9}, {"<<", 8}, {">>", 8}, {"<", 7},
	{"<=", 7}, {">", 7}, {">=", 7}, {"==", 6}, {"!=", 6}, {"&", 5}, {"^", 4}, {"|", 3},
	{"&&", 2}, {"||", 1},
};
static const char gun[] = "-~!+";
static const char *const gopnd[] = {"VADDR", "PADDR", "THRID", "CPUID", "VIRTPC", "TSTAMP"};
static const int64_t gval[] = {0x7f3a12345678, 0x1234567890, 4242, 3, 0x401234, 123456789};

typedef struct gnode {
	int kind, op;
	int64_t v;
	bool paren; /* extra parentheses, for the parser's sake */
	struct gnode *a, *b, *c;
} gnode;

static uint64_t rng = 0x2545f4914f6cdd1dull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static gnode *gen(int depth)
{
	static const int64_t lits[] = {0, 1, 2, 3, 5, 6, 7, 12, 13, 31, 63, 64, 4096, 0xfff,
				       0x7fffffff, 0xdeadbeef, 255, 100};
	gnode *n = ds_xcalloc(1, sizeof *n);
	unsigned k = depth <= 0 ? rnd(2) : rnd(10);

	n->paren = rnd(12) == 0;
	if (k == 0) {
		n->kind = G_OPND;
		n->op = (int)rnd(6);
	} else if (k == 1) {
		n->kind = G_LIT;
		n->v = lits[rnd(sizeof lits / sizeof lits[0])];
	} else if (k <= 3) {
		n->kind = G_UN;
		n->op = (int)rnd(4);
		n->a = gen(depth - 1);
	} else if (k <= 8) {
		n->kind = G_BIN;
		n->op = (int)rnd(sizeof gbin / sizeof gbin[0]);
		n->a = gen(depth - 1);
		n->b = gen(depth - 1);
	} else {
		n->kind = G_COND;
		n->a = gen(depth - 1);
		n->b = gen(depth - 1);
		n->c = gen(depth - 1);
	}
	return n;
}

static void gfree(gnode *n)
{
	if (!n)
		return;
	gfree(n->a);
	gfree(n->b);
	gfree(n->c);
	free(n);
}

static int gprec(const gnode *n)
{
	if (n->paren || n->kind == G_OPND || n->kind == G_LIT)
		return 12;
	return n->kind == G_UN ? 11 : n->kind == G_BIN ? gbin[n->op].prec : 0;
}

/* Whether C gives the node the type int (comparisons and logical
 * operators do; all the rest here is int64_t). */
static bool c_int(const gnode *n)
{
	switch (n->kind) {
	case G_UN: return gun[n->op] == '!' || c_int(n->a);
	case G_BIN: return gbin[n->op].prec == 7 || gbin[n->op].prec == 6 || gbin[n->op].prec <= 2 ||
			   (c_int(n->a) && c_int(n->b));
	case G_COND: return c_int(n->b) && c_int(n->c);
	}
	return false;
}

static void gprint(ds_buf *b, const gnode *n, bool c);

static void gchild(ds_buf *b, const gnode *n, bool parens, bool c)
{
	if (parens)
		ds_buf_putc(b, '(');
	gprint(b, n, c);
	if (parens)
		ds_buf_putc(b, ')');
}

/* With the fewest parentheses C's grammar needs (plus the random extra
 * ones).  For C (c true), literals are int64_t, and an int-typed left
 * operand of a shift is widened so that C shifts 64 bits as we do. */
static void gprint(ds_buf *b, const gnode *n, bool c)
{
	size_t start;

	if (n->paren)
		ds_buf_putc(b, '(');
	switch (n->kind) {
	case G_OPND:
		ds_buf_puts(b, gopnd[n->op]);
		break;
	case G_LIT:
		ds_buf_printf(b, c ? "((int64_t)%" PRId64 ")" : n->v > 4096 ? "0x%" PRIx64 : "%" PRId64, n->v);
		break;
	case G_UN:
		ds_buf_putc(b, gun[n->op]);
		start = b->len;
		gchild(b, n->a, gprec(n->a) < 11, c);
		/* "- -x", not "--x" */
		if ((gun[n->op] == '-' || gun[n->op] == '+') && b->p[start] == gun[n->op]) {
			ds_buf_putc(b, 0);
			memmove(b->p + start + 1, b->p + start, b->len - start - 1);
			b->p[start] = ' ';
		}
		break;
	case G_BIN: {
		int p = gbin[n->op].prec;
		bool shift = p == 8;
		if (c && shift && c_int(n->a)) {
			ds_buf_puts(b, "((int64_t)(");
			gprint(b, n->a, c);
			ds_buf_puts(b, "))");
		} else {
			gchild(b, n->a, gprec(n->a) < p, c);
		}
		ds_buf_printf(b, " %s ", gbin[n->op].text);
		gchild(b, n->b, gprec(n->b) <= p, c);
		break;
	}
	case G_COND:
		gchild(b, n->a, gprec(n->a) == 0, c);
		ds_buf_puts(b, " ? ");
		gchild(b, n->b, false, c);
		ds_buf_puts(b, " : ");
		gchild(b, n->c, false, c);
		break;
	}
	if (n->paren)
		ds_buf_putc(b, ')');
}

/* The reference semantics, straight from the tree.  *stop: a division by
 * zero ended the evaluation (the result is -1).  *ub: C leaves the result
 * undefined (so the C compiler cannot be asked). */
static int64_t geval(const gnode *n, bool *stop, bool *ub)
{
	int64_t x, y;

	if (*stop)
		return 0;
	switch (n->kind) {
	case G_OPND: return gval[n->op];
	case G_LIT: return n->v;
	case G_UN:
		x = geval(n->a, stop, ub);
		switch (gun[n->op]) {
		case '-': return (int64_t)(0 - (uint64_t)x);
		case '~': return ~x;
		case '!': return !x;
		}
		return x;
	case G_COND:
		x = geval(n->a, stop, ub);
		return x ? geval(n->b, stop, ub) : geval(n->c, stop, ub);
	}
	x = geval(n->a, stop, ub);
	if (strcmp(gbin[n->op].text, "&&") == 0)
		return x && geval(n->b, stop, ub);
	if (strcmp(gbin[n->op].text, "||") == 0)
		return x || geval(n->b, stop, ub);
	y = geval(n->b, stop, ub);
	if (*stop)
		return 0;
	switch (n->op) {
	case 0: return (int64_t)((uint64_t)x * (uint64_t)y);
	case 1:
	case 2:
		if (y == 0) {
			*stop = true;
			return 0;
		}
		if (y == -1) {
			*ub |= x == INT64_MIN;
			return n->op == 1 ? (int64_t)(0 - (uint64_t)x) : 0;
		}
		return n->op == 1 ? x / y : x % y;
	case 3: return (int64_t)((uint64_t)x + (uint64_t)y);
	case 4: return (int64_t)((uint64_t)x - (uint64_t)y);
	case 5:
	case 6:
		if (y < 0 || y > 63) {
			*ub = true;
			return n->op == 5 ? 0 : x < 0 ? -1 : 0;
		}
		return n->op == 5 ? (int64_t)((uint64_t)x << y) : x >> y;
	case 7: return x < y;
	case 8: return x <= y;
	case 9: return x > y;
	case 10: return x >= y;
	case 11: return x == y;
	case 12: return x != y;
	case 13: return x & y;
	case 14: return x ^ y;
	case 15: return x | y;
	}
	return 0;
}

TEST(generated_against_tree_and_c)
{
	enum { N_EXPR = 3000 };
	ds_access a = access_at(gval[0], gval[1]);
	ds_buf prog = {0};
	int64_t *want = ds_xcalloc(N_EXPR, sizeof *want);
	int bad = 0, ncc = 0, cc_bad = 0;

	a.v[DS_THRID] = gval[2];
	ds_buf_puts(&prog, "#include <stdint.h>\n#include <stdio.h>\nint main(void)\n{\n");
	for (int i = 0; i < 6; i++)
		ds_buf_printf(&prog, "\tvolatile int64_t %s_ = %" PRId64 "; int64_t %s = %s_;\n", gopnd[i],
			      gval[i], gopnd[i], gopnd[i]);
	for (int i = 0; i < N_EXPR; i++) {
		gnode *g = gen(1 + (int)rnd(6));
		ds_buf text = {0};
		bool stop = false, ub = false;
		int64_t ref = geval(g, &stop, &ub), got;

		if (stop)
			ref = -1;
		gprint(&text, g, false);
		got = eval_on(ds_buf_str(&text), &a);
		if (got != ref && bad++ < 10)
			printf("# %s: got %" PRId64 ", the tree says %" PRId64 "\n", ds_buf_str(&text), got, ref);
		if (!stop && !ub) {
			ds_buf_reset(&text);
			gprint(&text, g, true);
			ds_buf_printf(&prog, "\tprintf(\"%%lld\\n\", (long long)(%s));\n", ds_buf_str(&text));
			want[ncc++] = ref;
		}
		ds_buf_free(&text);
		gfree(g);
	}
	ds_buf_puts(&prog, "\treturn 0;\n}\n");
	CHECK_EQ_U64(bad, 0);

	/* the tree evaluator's precedence is C's: ask the compiler */
	if (!unit_have("cc")) {
		unit_skip("no C compiler to compare with");
	} else {
		char *src = unit_tpath("gen.c"), *cmd = ds_xasprintf("'%s/gen'", unit_tmp);
		FILE *p;
		char line[64];
		int n = 0;

		CHECK(write_text(src, ds_buf_str(&prog)));
		CHECK(unit_sh("cc -O0 -fwrapv -w -o gen gen.c"));
		p = popen(cmd, "r");
		while (p && fgets(line, sizeof line, p) && n < ncc) {
			int64_t v = strtoll(line, NULL, 10);
			if (v != want[n] && cc_bad++ < 10)
				printf("# expression %d: C says %" PRId64 ", the tree %" PRId64 "\n", n, v, want[n]);
			n++;
		}
		if (p)
			pclose(p);
		CHECK_EQ_U64(n, ncc);
		CHECK_EQ_U64(cc_bad, 0);
		CHECK(ncc > N_EXPR / 2);
		free(src);
		free(cmd);
	}
	ds_buf_free(&prog);
	free(want);
}

/* ---- semantics ---- */

/* ASITE and BLOCKOFF: a heap block's site and the offset in it, unknown
 * outside blocks. */
TEST(heap_operands)
{
	ds_access a = access_at(0x7000, -1);

	CHECK(eval_on("ASITE", &a) == -1);
	CHECK(eval_on("ASITE == 3 ? BLOCKOFF >> 3 : -2", &a) == -2);
	a.v[DS_ASITE] = 3;
	a.v[DS_BLOCKOFF] = 40;
	CHECK(eval_on("ASITE == 3 ? BLOCKOFF >> 3 : -2", &a) == 5);
	CHECK(eval_on("BLOCKOFF / 64", &a) == 0);
}

TEST(unknown_and_minus_one)
{
	ds_access a = access_at(-1, -1);

	/* reading an unknown operand stops with -1 */
	CHECK(eval_on("(VADDR>>6)&63", &a) == -1);
	CHECK(eval_on("PADDR / 4096", &a) == -1);
	CHECK(eval_on("PADDR * 0", &a) == -1);
	CHECK(eval_on("THRID + (VADDR & 0)", &a) == -1);
	/* unless the expression compares it: Oracle's idiom */
	CHECK(eval_on("VADDR>255?VADDR>>6:-1", &a) == -1);
	CHECK(eval_v("VADDR>255?VADDR>>6:-1", 16) == -1);
	CHECK(eval_v("VADDR>255?VADDR>>6:-1", 0x1000) == 0x40);
	CHECK(eval_on("VADDR == -1 ? 7 : VADDR", &a) == 7);
	CHECK(eval_on("(VADDR >> 6) == 5 || THRID", &a) == 1);
	CHECK(eval_on("PADDR < 0 ? 99 : PADDR >> 12", &a) == 99);
	/* an operand that is never read cannot stop it */
	CHECK(eval_on("THRID == 4242 ? 5 : VADDR >> 6", &a) == 5);
	CHECK(eval_on("THRID != 4242 ? 5 : VADDR >> 6", &a) == -1);
	CHECK(eval_on("0 && VADDR", &a) == 0);
	CHECK(eval_on("THRID || VADDR", &a) == 1);
	CHECK(eval_on("0 ? VADDR : 5", &a) == 5);
	/* the examples of docs/memory-objects.md */
	CHECK(eval_on("VADDR >> 12", &a) == -1 && eval_v("VADDR >> 12", 0x1000) == 1);
	CHECK(eval_on("VADDR * 0", &a) == -1 && eval_v("VADDR * 0", 0x1000) == 0);
	CHECK(eval_on("VADDR == -1 ? 7 : VADDR >> 12", &a) == 7 &&
	      eval_v("VADDR == -1 ? 7 : VADDR >> 12", 0x1000) == 1);
	CHECK(eval_on("THRID > 0 ? 5 : VADDR", &a) == 5);
	/* division and modulo by zero */
	CHECK(eval_v("VADDR / 0", 100) == -1);
	CHECK(eval_v("VADDR % (THRID - THRID)", 100) == -1);
	CHECK(eval_v("1 / 0 + 3", 100) == -1);
	CHECK(eval_v("THRID / (VADDR - 100) + 1", 100) == -1);
	CHECK(eval_v("THRID == 4242 ? 5 : 1 / 0", 100) == 5);
	CHECK(eval_v("0 && 1 / 0", 100) == 0);
	CHECK(eval_v("VADDR % 1", 100) == 0);
	/* wrapping instead of overflow */
	CHECK(eval_v("0x7fffffffffffffff + 1", 0) == INT64_MIN);
	CHECK(eval_v("(-0x7fffffffffffffff - 1) / -1", 0) == INT64_MIN);
	CHECK(eval_v("(-0x7fffffffffffffff - 1) % -1", 0) == 0);
	CHECK(eval_v("(VADDR - 0x7fffffffffffffff - 1) / (THRID - 4243)", 0) == INT64_MIN);
	CHECK(eval_v("-(VADDR - 0x7fffffffffffffff - 1)", 0) == INT64_MIN);
	CHECK(eval_v("0xffffffffffffffff", 0) == -1);
	CHECK(eval_v("18446744073709551615 == -1", 0) == 1);
	/* shifts by any count */
	CHECK(eval_v("1 << 64", 0) == 0);
	CHECK(eval_v("1 << -1", 0) == 0);
	CHECK(eval_v("-8 >> 70", 0) == -1);
	CHECK(eval_v("8 >> 64", 0) == 0);
	CHECK(eval_v("VADDR << 63", 1) == INT64_MIN);
	CHECK(eval_v("VADDR >> THRID", 1) == 0);
	CHECK(eval_v("-VADDR >> THRID", 1) == -1);
}

/* The constant forms of the instructions (powers of two become shifts and
 * masks) against C on negative, zero and positive values. */
TEST(constant_forms)
{
	static const int64_t xs[] = {-4097, -129, -128, -127, -64, -63, -2, 0, 1, 63, 64, 65, 4095,
				     4096, 0x7f3a12345678, INT64_MIN + 1, INT64_MAX};
	int bad = 0;

	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		ds_access a = access_at(0, 0);
		int64_t x = xs[i];
		struct {
			const char *text;
			int64_t want;
		} c[] = {
			{"THRID / 64", x / 64}, {"THRID % 64", x % 64}, {"THRID / 1", x},
			{"THRID % 1", 0}, {"THRID * 64", (int64_t)((uint64_t)x * 64)},
			{"64 * THRID", (int64_t)((uint64_t)x * 64)}, {"THRID / 3", x / 3},
			{"THRID % 3", x % 3}, {"THRID / -64", x / -64}, {"THRID % -64", x % -64},
			{"4096 / THRID", x ? 4096 / x : -1}, {"5 < THRID", 5 < x}, {"5 <= THRID", 5 <= x},
			{"5 > THRID", 5 > x}, {"5 >= THRID", 5 >= x}, {"5 - THRID", (int64_t)(5 - (uint64_t)x)},
			{"THRID / 0x4000000000000000", x / 0x4000000000000000},
			{"THRID % 0x4000000000000000", x % 0x4000000000000000},
		};
		a.v[DS_THRID] = x;
		for (size_t j = 0; j < sizeof c / sizeof c[0]; j++) {
			int64_t got = eval_on(c[j].text, &a);
			if (got != c[j].want && bad++ < 10)
				printf("# THRID=%" PRId64 ": %s gives %" PRId64 ", C %" PRId64 "\n", x, c[j].text,
				       got, c[j].want);
		}
	}
	CHECK_EQ_U64(bad, 0);
}

TEST(errors_name_the_column)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"(VADDR >> 6", "mobj 'x': expected ')' at column 12"},
		{"((VADDR >> 6) & 63", "mobj 'x': expected ')' at column 19"},
		{"VADDR +", "mobj 'x': expected an operand, not the end at column 8"},
		{"VADDR + * 3", "mobj 'x': expected an operand, not '*' at column 9"},
		{"", "mobj 'x': expected an operand, not the end at column 1"},
		{"   ", "mobj 'x': expected an operand, not the end at column 4"},
		{"VADDR ? 1", "mobj 'x': expected ':' at column 10"},
		{"VADDR ? 1 2", "mobj 'x': expected ':' at column 11"},
		{"1 2", "mobj 'x': unexpected '2' at column 3"},
		{"VADDR )", "mobj 'x': unexpected ')' at column 7"},
		{"VADDR @ 1", "mobj 'x': unexpected '@' at column 7"},
		{"VADDR = 1", "mobj 'x': unexpected '=' at column 7"},
		{"()", "mobj 'x': expected an operand, not ')' at column 2"},
		{"foo", "mobj 'x': unknown name 'foo' at column 1"},
		{"1 + vaddr", "mobj 'x': unknown name 'vaddr' (did you mean VADDR?) at column 5"},
		{"l1d_line", "mobj 'x': unknown name 'l1d_line' (did you mean L1D_LINE?) at column 1"},
		{"010", "mobj 'x': bad number '010' (decimal or 0x hex, no leading zeros) at column 1"},
		{"1 + 0x", "mobj 'x': bad number '0x' (decimal or 0x hex, no leading zeros) at column 5"},
		{"12ab", "mobj 'x': bad number '12ab' (decimal or 0x hex, no leading zeros) at column 1"},
		{"0x1g", "mobj 'x': bad number '0x1g' (decimal or 0x hex, no leading zeros) at column 1"},
		{"0x10000000000000000", "mobj 'x': number too large at column 1"},
		{"18446744073709551616", "mobj 'x': number too large at column 1"},
		{"FUNC == \"x\"", "mobj 'x': unknown name 'FUNC' at column 1"},
		{"VADDR + \"x\"", "mobj 'x': a string is only for filters at column 9"},
		{"MOBJ(L1D_set)", "mobj 'x': MOBJ() is only for filters at column 1"},
		{"VADDR % HUGE_PAGE_SIZE + L4_SETS", "mobj 'x': unknown name 'L4_SETS' at column 26"},
	};
	char deep[600];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CHECK_STR(compile_error(cases[i].text, false, NULL), cases[i].want);
	/* nesting is bounded, whatever the input */
	memset(deep, '(', 300);
	strcpy(deep + 300, "1");
	CHECK_STR(compile_error(deep, false, NULL), "mobj 'x': expression nested too deeply at column 129");
	strcpy(deep, "VADDR");
	for (int i = 0; i < 140; i++)
		strcat(deep, "+1");
	CHECK(strstr(compile_error(deep, false, NULL), "nested too deeply at column"));
	memset(deep, '-', 300);
	strcpy(deep + 300, "1");
	CHECK(strstr(compile_error(deep, false, NULL), "nested too deeply"));
	strcpy(deep, "VADDR");
	for (int i = 0; i < 100; i++)
		strcat(deep, "+1");
	CHECK_STR(compile_error(deep, false, NULL), "");
}

TEST(machine_constants)
{
	ds_machine none = {0};
	ds_expr *e;
	ds_err err;
	int64_t v;

	CHECK(eval_v("L1D_LINE + L1D_SETS + L1D_WAYS", 0) == 64 + 64 + 12);
	CHECK(eval_v("L1D_SIZE", 0) == 48 * 1024);
	CHECK(eval_v("L2_LINE * L2_SETS * L2_WAYS == L2_SIZE", 0) == 1);
	CHECK(eval_v("L3_SETS", 0) == 32768);
	CHECK(eval_v("PAGE_SIZE + HUGE_PAGE_SIZE", 0) == 4096 + 2 * 1024 * 1024);
	CHECK(ds_machine_constant(&machine, "L3_WAYS", &v) && v == 16);
	CHECK(!ds_machine_constant(&machine, "L1I_LINE", &v));
	CHECK(ds_machine_level(&machine, "L1I") && ds_machine_level(&machine, "L1I")->size == 32768);
	CHECK(ds_machine_level(&machine, "L1D")->ways == 12);
	CHECK(!ds_machine_level(&machine, "L4"));
	CHECK(!ds_machine_level(&machine, "X"));
	/* a machine without them: the error names what is missing */
	CHECK(ds_expr_compile("x", "VADDR / L3_LINE % L3_SETS", &none, &e, &err) == -1);
	CHECK_STR(err.msg, "mobj 'x': the machine has no L3 cache for L3_LINE at column 9");
	CHECK(ds_expr_compile("x", "VADDR & ~(HUGE_PAGE_SIZE - 1)", &none, &e, &err) == -1);
	CHECK_STR(err.msg, "mobj 'x': the machine does not know HUGE_PAGE_SIZE at column 11");
	/* syntax only: any machine's constants */
	CHECK(ds_expr_compile("x", "VADDR / L3_LINE % L3_SETS", NULL, &e, &err) == 0);
	ds_expr_free(e);
}

TEST(addresses_print_in_hex)
{
	static const struct {
		const char *text;
		bool hex;
	} cases[] = {
		{"VADDR", true}, {"VADDR & ~63", true}, {"~63 & PADDR", true}, {"VADDR & 63", false},
		{"(VADDR>>6)&63", false}, {"VADDR / 128 * 128", true}, {"128 * (VADDR / 128)", true},
		{"VADDR >> 12 << 12", true}, {"VADDR / 128", false}, {"THRID & ~1", false},
		{"VADDR>255 ? VADDR & ~63 : -1", true}, {"VADDR>255 ? VADDR >> 6 : -1", false},
		{"VIRTPC & -16", true}, {"VADDR / L1D_LINE * L1D_LINE", true},
		{"VADDR / L1D_LINE % L1D_SETS", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ds_expr *e;
		ds_err err;
		bool ok = ds_expr_compile("x", cases[i].text, &machine, &e, &err) == 0 &&
			  ds_expr_is_address(e) == cases[i].hex;
		if (!ok)
			printf("# %s\n", cases[i].text);
		CHECK(ok);
		ds_expr_free(e);
	}
}

TEST(uses)
{
	ds_expr *e;
	ds_err err;

	CHECK(ds_expr_compile("x", "VADDR + THRID", &machine, &e, &err) == 0);
	CHECK_EQ_U64(ds_expr_uses(e), (1u << DS_VADDR) | (1u << DS_THRID));
	ds_expr_free(e);
	CHECK(ds_expr_compile("x", "0 ? PADDR : VADDR", &machine, &e, &err) == 0);
	CHECK_EQ_U64(ds_expr_uses(e), 1u << DS_VADDR);
	ds_expr_free(e);
	CHECK(ds_expr_compile("x", "L1D_LINE * 2", &machine, &e, &err) == 0);
	CHECK_EQ_U64(ds_expr_uses(e), 0);
	ds_expr_free(e);
}

/* ---- filters ---- */

TEST(filters)
{
	ds_mobjs objs;
	ds_expr *f;
	ds_err err;
	ds_access a = access_at(5 * 64, 0x1000);

	ds_mobjs_init(&objs, &machine);
	CHECK(ds_filter_compile("FUNC == \"main\" && VADDR > 0x100", &machine, &objs, ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_string_id(f, "main") == 0);
	CHECK(ds_filter_string_id(f, "other") == -1);
	CHECK_EQ_U64(ds_expr_uses(f), 1u << DS_VADDR);
	CHECK_EQ_U64(ds_filter_ops_used(f), 1u << OP_FUNC);
	op_v[OP_FUNC] = ds_filter_string_id(f, "main");
	CHECK(ds_filter_match(f, &a));
	op_v[OP_FUNC] = ds_filter_string_id(f, "other");
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	/* the operand's own name is the synonym's */
	CHECK(ds_filter_compile("function == \"main\"", &machine, &objs, ops, NOPS, &f, &err) == 0);
	op_v[OP_FUNC] = ds_filter_string_id(f, "main");
	CHECK(ds_filter_match(f, &a));
	CHECK_EQ_U64(ds_filter_compared(f, OP_FUNC, 0), 0);
	CHECK(ds_filter_compared(f, OP_FUNC, 1) == -1);
	CHECK(ds_filter_compared(f, OP_DOBJ, 0) == -1);
	ds_expr_free(f);

	CHECK(ds_filter_compile("\"struct node.next\" != FIELD || DOBJ == \"a\\\"b\\\\\"", &machine, &objs,
				ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_string_id(f, "struct node.next") == 0);
	CHECK(ds_filter_string_id(f, "a\"b\\") == 1);
	op_v[OP_FIELD] = 0;
	op_v[OP_DOBJ] = -1;
	CHECK(!ds_filter_match(f, &a));
	op_v[OP_DOBJ] = 1;
	CHECK(ds_filter_match(f, &a));
	CHECK_EQ_U64(ds_filter_ops_used(f), 1u << OP_FIELD | 1u << OP_DOBJ);
	ds_expr_free(f);

	/* a value with two names (a definition's label and its bare name):
	 * each comparison holds when either name is its string */
	CHECK(ds_filter_compile("DOBJ == \"struct node\" && DOBJ == \"struct node (b.c:3)\"", &machine,
				&objs, ops, NOPS, &f, &err) == 0);
	op_v[OP_DOBJ] = ds_filter_string_id(f, "struct node (b.c:3)");
	alias_v[OP_DOBJ] = ds_filter_string_id(f, "struct node");
	CHECK(ds_filter_match(f, &a));
	op_v[OP_DOBJ] = ds_filter_string_id(f, "struct node (a.c:1)");
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	CHECK(ds_filter_compile("DOBJ != \"struct node\"", &machine, &objs, ops, NOPS, &f, &err) == 0);
	op_v[OP_DOBJ] = -1;
	alias_v[OP_DOBJ] = ds_filter_string_id(f, "struct node");
	CHECK(!ds_filter_match(f, &a));
	alias_v[OP_DOBJ] = -1;
	CHECK(ds_filter_match(f, &a));
	ds_expr_free(f);

	/* an operand of numbers: an unknown one (-1) stops the evaluation
	 * where nothing compares it, and reads as -1 where something does */
	CHECK(ds_filter_compile("thread == 42 && FIELD == \"x\"", &machine, &objs, ops, NOPS, &f, &err) == 0);
	op_v[OP_THREAD] = 42;
	op_v[OP_FIELD] = ds_filter_string_id(f, "x");
	CHECK(ds_filter_match(f, &a));
	op_v[OP_THREAD] = 43;
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	CHECK(ds_filter_compile("thread + 1", &machine, &objs, ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_match(f, &a));
	op_v[OP_THREAD] = -1;
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	CHECK(ds_filter_compile("thread != 5", &machine, &objs, ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_match(f, &a));
	CHECK_EQ_U64(ds_filter_ops_used(f), 1u << OP_THREAD);
	ds_expr_free(f);

	/* memory objects by name */
	CHECK(ds_filter_compile("MOBJ(L1D_set) == 5 && MOBJ(L2_set) != MOBJ(L1D_set)", &machine, &objs,
				ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_match(f, &a));
	CHECK(ds_expr_uses(f) & (1u << DS_PADDR));
	CHECK(ds_expr_uses(f) & DS_USES_MOBJ);
	a.v[DS_VADDR] = 6 * 64;
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	/* an unknown result does not pass; a compared unknown is just -1 */
	a.v[DS_VADDR] = -1;
	CHECK(ds_filter_compile("MOBJ(L1D_line) & 1 || 1", &machine, &objs, ops, NOPS, &f, &err) == 0);
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	CHECK(ds_filter_compile("MOBJ(L1D_line) != 64", &machine, &objs, ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_match(f, &a));
	ds_expr_free(f);
	CHECK(ds_filter_compile("!(VADDR > 0)", &machine, &objs, ops, NOPS, &f, &err) == 0);
	CHECK(ds_filter_match(f, &a));
	ds_expr_free(f);
	CHECK(ds_filter_compile("VADDR / 0 == -1", &machine, &objs, ops, NOPS, &f, &err) == 0);
	a.v[DS_VADDR] = 64;
	CHECK(!ds_filter_match(f, &a));
	ds_expr_free(f);
	ds_mobjs_fini(&objs);
}

TEST(filter_errors)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"FUNC", "filter: FUNC is a string: compare it with == or != to a \"string\" at column 1"},
		{"FUNC == 3", "filter: FUNC is a string: compare it with == or != to a \"string\" at column 1"},
		{"3 != DOBJ", "filter: DOBJ is a string: compare it with == or != to a \"string\" at column 6"},
		{"FIELD < \"a\"", "filter: FIELD is a string: compare it with == or != to a \"string\" at column 1"},
		{"FUNC == DOBJ", "filter: FUNC is a string: compare it with == or != to a \"string\" at column 1"},
		{"!FUNC", "filter: FUNC is a string: compare it with == or != to a \"string\" at column 2"},
		{"\"a\" == \"b\"", "filter: a string can only be compared with a name: function, dataobject, field at column 1"},
		{"1 ? \"a\" : 2", "filter: a string can only be compared with a name: function, dataobject, field at column 5"},
		{"function < \"a\"", "filter: function is a string: compare it with == or != to a \"string\" at column 1"},
		{"thread == \"a\"", "filter: a string can only be compared with a name: function, dataobject, field at column 11"},
		{"FUNC == \"abc", "filter: unterminated string at column 9"},
		{"FUNC == \"a\\qb\"", "filter: unknown escape in a string (only \\\" and \\\\) at column 11"},
		{"MOBJ(nope) == 1",
		 "filter: MOBJ(nope): unknown memory object 'nope' (see 'dsprof mobj list') at column 1"},
		{"MOBJ L1D_set", "filter: expected '(' after MOBJ at column 6"},
		{"MOBJ(L1D_set", "filter: expected ')' at column 13"},
		{"MOBJ(3)", "filter: expected a memory-object name, not '3' at column 6"},
		{"(FUNC == \"x\"", "filter: expected ')' at column 13"},
	};
	ds_mobjs objs;

	ds_mobjs_init(&objs, &machine);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CHECK_STR(compile_error(cases[i].text, true, &objs), cases[i].want);
	CHECK_STR(compile_error("FUNC == \"main\" && MOBJ(L1D_set) > 3", true, &objs), "");
	ds_mobjs_fini(&objs);
}

/* ---- machines ---- */

TEST(model_files)
{
	char *path = unit_tpath("m.machine");
	ds_machine m;
	ds_mobjs objs;
	ds_err err;
	const ds_mobj *o;
	char buf[32];

	CHECK(write_text(path, "# a machine with 128-byte lines\n"
			       "L1D = 32K:8:128\n"
			       "L2=1M:16:128   # trailing comment\n"
			       "\n"
			       "mobj L1D_bank = (VADDR >> 3) & 7\n"
			       "mobj dram_ch = (PADDR >> 8 ^ PADDR >> 13) & 1\n"
			       "mobj L1D_set = (VADDR / L1D_LINE ^ VADDR >> 12) % L1D_SETS\n"
			       "PAGE_SIZE = 16K\n"
			       "LATENCY_L2 = 12\n"
			       "LATENCY_DRAM = 300\n"));
	CHECK(ds_machine_load(&m, path, &err) == 0);
	/* --sim's latencies: those it gives, 0 (the model's) for the others */
	CHECK_EQ_U64(m.latency[1], 12);
	CHECK_EQ_U64(m.latency[4], 300);
	CHECK_EQ_U64(m.latency[0] + m.latency[2] + m.latency[3], 0);
	CHECK_STR(m.source, path);
	CHECK_EQ_U64(m.ncaches, 2);
	CHECK_EQ_U64(ds_machine_level(&m, "L1D")->sets, 32);
	CHECK_EQ_U64(ds_machine_level(&m, "L2")->line, 128);
	CHECK_EQ_U64(m.page_size, 16384);
	CHECK_EQ_U64(m.huge_page_size, 0);
	CHECK_EQ_U64(m.nmobjs, 3);
	ds_mobjs_init(&objs, &m);
	{
		ds_buf names = {0};
		for (size_t i = 0; i < objs.n; i++)
			ds_buf_printf(&names, "%s%s", i ? " " : "", objs.v[i].name);
		CHECK_STR(ds_buf_str(&names), "L1D_line L1D_set L2_line L2_set vpage ppage L1D_bank dram_ch");
		ds_buf_free(&names);
	}
	o = ds_mobjs_find(&objs, "L1D_line", &err);
	{
		ds_access a = access_at(0x7f00000012ff, 0x3000);
		CHECK(o && ds_expr_eval(o->code, &a) == 0x7f0000001280);
		ds_mobj_format(o, ds_expr_eval(o->code, &a), buf, sizeof buf);
		CHECK_STR(buf, "0x7f0000001280");
		o = ds_mobjs_find(&objs, "L1D_set", &err);
		CHECK(o && o->origin == DS_MOBJ_MACHINE && ds_expr_eval(o->code, &a) == ((0x7f00000012ff / 128) ^ (0x7f00000012ff >> 12)) % 32);
		o = ds_mobjs_find(&objs, "vpage", &err);
		CHECK(o && ds_expr_eval(o->code, &a) == 0x7f0000000000);
		o = ds_mobjs_find(&objs, "dram_ch", &err);
		CHECK(o && o->needs_paddr && !o->hex && ds_expr_eval(o->code, &a) == ((0x3000 >> 8 ^ 0x3000 >> 13) & 1));
	}
	CHECK(!ds_mobjs_find(&objs, "L3_set", &err));
	CHECK_STR(err.msg, "mobj 'L3_set': the machine has no L3 cache for L3_LINE at column 9");
	CHECK(!ds_mobjs_find(&objs, "vpage_2M", &err));
	CHECK_STR(err.msg, "unknown memory object 'vpage_2M' (see 'dsprof mobj list')");
	ds_mobjs_fini(&objs);
	ds_machine_fini(&m);
	free(path);
}

TEST(model_file_errors)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"L1D = 32K:8\n", "line 1: L1D = 32K:8: expected SIZE:WAYS:LINE, as in 32K:8:64"},
		{"# c\nL1D = 32K:7:64\n",
		 "line 2: L1D = 32K:7:64: the size is not a whole number of sets of 7 ways of 64 bytes"},
		{"L1D = 0:8:64\n", "line 1: L1D = 0:8:64: expected SIZE:WAYS:LINE, as in 32K:8:64"},
		{"FOO = 1\n", "line 1: unknown setting 'FOO' (L1D, L1I, L2, L3, L4, PAGE_SIZE, HUGE_PAGE_SIZE, "
			      "NUMA_NODES, LATENCY_L1, LATENCY_L2, LATENCY_LLC, LATENCY_HITM, LATENCY_DRAM, or mobj "
			      "NAME = EXPR)"},
		{"LATENCY_DRAM = 0\n", "line 1: LATENCY_DRAM = 0: expected cycles, from 1 to 100000"},
		{"PAGE_SIZE = 3000\n", "line 1: PAGE_SIZE = 3000: expected a power of two, as in 4096 or 2M"},
		{"NUMA_NODES = many\n", "line 1: NUMA_NODES = many: expected a number of nodes"},
		{"L1D 32K:8:64\n", "line 1: expected KEY = VALUE or mobj NAME = EXPR"},
		{"\n\nmobj x = (VADDR\n", "line 3: mobj 'x': expected ')' at column 7"},
		{"mobj 1x = VADDR\n", "line 1: bad memory-object name '1x' (letters, digits and _, starting with a letter)"},
		{"mobj x VADDR\n", "line 1: expected mobj NAME = EXPR"},
		{"mobj x =\n", "line 1: mobj 'x' has no expression"},
		{"L1D = 32K:8:64\nmobj x = L3_SETS\n", "line 2: mobj 'x': the machine has no L3 cache for L3_SETS at column 1"},
	};
	char *path = unit_tpath("bad.machine"), want[512];
	ds_machine m;
	ds_err err;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK(write_text(path, cases[i].text));
		snprintf(want, sizeof want, "cannot read machine '%s': %s", path, cases[i].want);
		CHECK(ds_machine_load(&m, path, &err) == -1);
		CHECK_STR(err.msg, want);
		CHECK(m.source == NULL && m.nmobjs == 0);
	}
	/* constants may be given after the definitions that use them */
	CHECK(write_text(path, "mobj x = VADDR / L1D_LINE\nL1D = 32K:8:64\n"));
	CHECK(ds_machine_load(&m, path, &err) == 0);
	ds_machine_fini(&m);
	CHECK(ds_machine_load(&m, "/nonexistent/m", &err) == -1);
	CHECK_STR(err.msg, "cannot open '/nonexistent/m': No such file or directory");
	CHECK_EQ_U64(err.kind, DS_EINPUT);
	free(path);
}

TEST(overrides)
{
	ds_machine m;
	ds_err err;

	make_machine(&m);
	CHECK(ds_machine_override(&m, "L1D=32k:8:128,L2 = 2M:16:64", &err) == 0);
	CHECK_EQ_U64(ds_machine_level(&m, "L1D")->line, 128);
	CHECK_EQ_U64(ds_machine_level(&m, "L1D")->sets, 32);
	CHECK_EQ_U64(ds_machine_level(&m, "L2")->sets, 2048);
	CHECK_EQ_U64(ds_machine_level(&m, "L3")->size, 32u << 20);
	CHECK_EQ_U64(m.ncaches, 4);
	CHECK_STR(m.caches[0].type, "Data");
	CHECK_STR(m.caches[1].type, "Instruction");
	CHECK(ds_machine_override(&m, "PAGE_SIZE=64K,HUGE_PAGE_SIZE=0x20000000,NUMA_NODES=2,L4=128M:16:64", &err) == 0);
	CHECK_EQ_U64(m.page_size, 65536);
	CHECK_EQ_U64(m.huge_page_size, 512u << 20);
	CHECK_EQ_U64(m.numa_nodes, 2);
	CHECK(m.caches[4].level == 4);
	CHECK(ds_machine_override(&m, "L1D", &err) == -1);
	CHECK_STR(err.msg, "bad machine override 'L1D': expected KEY=VALUE, as in L1D=32K:8:64");
	CHECK(ds_machine_override(&m, "L1D=32k:8:64,L2=x", &err) == -1);
	CHECK_STR(err.msg, "bad machine override 'L1D=32k:8:64,L2=x': L2 = x: expected SIZE:WAYS:LINE, as in 32K:8:64");
	CHECK(ds_machine_override(&m, "L9=1:1:1", &err) == -1);
	CHECK(strstr(err.msg, "unknown setting 'L9'"));
	ds_machine_fini(&m);

	/* on an empty machine, levels land in sysfs order */
	memset(&m, 0, sizeof m);
	CHECK(ds_machine_override(&m, "L3=8M:16:64,L1I=32K:8:64,L2=256K:4:64,L1D=32K:8:64", &err) == 0);
	CHECK(m.ncaches == 4 && m.caches[0].level == 1 && strcmp(m.caches[0].type, "Data") == 0 &&
	      strcmp(m.caches[1].type, "Instruction") == 0 && m.caches[2].level == 2 && m.caches[3].level == 3);
	ds_machine_fini(&m);
}

static void fake_cache(const char *root, int idx, int level, const char *type, const char *size,
		       int line, int ways, int sets, const char *shared)
{
	unit_sh("d=%s/devices/system/cpu/cpu0/cache/index%d && mkdir -p $d && echo %d >$d/level && "
		"echo %s >$d/type && echo %s >$d/size && echo %d >$d/coherency_line_size && "
		"echo %d >$d/ways_of_associativity && echo %s >$d/shared_cpu_list",
		root, idx, level, type, size, line, ways, shared);
	if (sets)
		unit_sh("echo %d >%s/devices/system/cpu/cpu0/cache/index%d/number_of_sets", sets, root, idx);
}

TEST(sysfs_machine)
{
	ds_machine m;
	ds_mobjs objs;
	ds_err err;
	char *sys = unit_tpath("sys"), *proc = unit_tpath("proc");
	const ds_mobj *o;
	char buf[32];

	fake_cache("sys", 0, 1, "Data", "48K", 64, 12, 64, "0,8");
	fake_cache("sys", 1, 1, "Instruction", "32K", 64, 8, 64, "0,8");
	fake_cache("sys", 2, 2, "Unified", "2048K", 64, 16, 0, "0,8"); /* sets left out */
	fake_cache("sys", 3, 3, "Unified", "32M", 64, 16, 32768, "0-15");
	CHECK(unit_sh("mkdir -p sys/kernel/mm/transparent_hugepage proc sys/devices/system/memory && "
		      "echo 2097152 >sys/kernel/mm/transparent_hugepage/hpage_pmd_size && "
		      "echo 8000000 >sys/devices/system/memory/block_size_bytes && "
		      "mkdir -p sys/devices/system/node/node0/memory0 sys/devices/system/node/node0/memory1 "
		      "sys/devices/system/node/node1/memory3 sys/devices/system/node/node1/memory4 "
		      "sys/devices/system/node/node1/cpu1"));
	CHECK(ds_machine_sysfs_at(&m, sys, proc, &err) == 0);
	CHECK_STR(m.source, "sysfs");
	CHECK_EQ_U64(m.ncaches, 4);
	CHECK_EQ_U64(ds_machine_level(&m, "L2")->sets, 2048);
	CHECK_STR(ds_machine_level(&m, "L3")->shared_cpus, "0-15");
	CHECK_EQ_U64(m.page_size, (uint64_t)sysconf(_SC_PAGESIZE));
	CHECK_EQ_U64(m.huge_page_size, 2u << 20);
	CHECK_EQ_U64(m.numa_nodes, 2);
	CHECK(m.nmobjs == 1 && strcmp(m.mobj_names[0], "numa_node") == 0);
	CHECK_STR(m.mobj_exprs[0], "PADDR < 0 ? -1 : PADDR < 0x10000000 ? 0 : PADDR < 0x18000000 ? -1 : "
				   "PADDR < 0x28000000 ? 1 : -1");

	ds_mobjs_init(&objs, &m);
	{
		ds_buf names = {0};
		for (size_t i = 0; i < objs.n; i++)
			ds_buf_printf(&names, "%s%s%s", i ? " " : "", objs.v[i].name,
				      objs.v[i].needs_paddr ? "(P)" : "");
		CHECK_STR(ds_buf_str(&names), "L1D_line L1D_set L2_line L2_set(P) L3_line L3_set(P) vpage "
					      "ppage(P) vpage_2M ppage_2M(P) numa_node(P)");
		ds_buf_free(&names);
	}
	{
		ds_access a = access_at(0x7f0000001234, 0x1a000040);
		o = ds_mobjs_find(&objs, "numa_node", &err);
		CHECK(o && ds_expr_eval(o->code, &a) == 1);
		a.v[DS_PADDR] = 0x1000;
		CHECK(o && ds_expr_eval(o->code, &a) == 0);
		a.v[DS_PADDR] = 0x12000000; /* in no node's memory */
		CHECK(o && ds_expr_eval(o->code, &a) == -1);
		a.v[DS_PADDR] = -1;
		CHECK(o && ds_expr_eval(o->code, &a) == -1);
		ds_mobj_format(o, -1, buf, sizeof buf);
		CHECK_STR(buf, "<unknown>");
		o = ds_mobjs_find(&objs, "L1D_line", &err);
		ds_mobj_format(o, ds_expr_eval(o->code, &a), buf, sizeof buf);
		CHECK_STR(buf, "0x7f0000001200");
		o = ds_mobjs_find(&objs, "L1D_set", &err);
		ds_mobj_format(o, ds_expr_eval(o->code, &a), buf, sizeof buf);
		CHECK_STR(buf, "8");
		o = ds_mobjs_find(&objs, "L2_set", &err);
		CHECK(o && ds_expr_eval(o->code, &a) == -1); /* PADDR unknown */
		a.v[DS_PADDR] = 0x12345678;
		CHECK(o && ds_expr_eval(o->code, &a) == (0x12345678 / 64) % 2048);
		o = ds_mobjs_find(&objs, "vpage_2M", &err);
		CHECK(o && o->hex && ds_expr_eval(o->code, &a) == 0x7f0000000000);
	}
	ds_mobjs_fini(&objs);
	ds_machine_fini(&m);

	/* huge pages from /proc/meminfo, then from the hugetlbfs sizes */
	CHECK(unit_sh("rm sys/kernel/mm/transparent_hugepage/hpage_pmd_size && "
		      "printf 'MemTotal: 1 kB\\nHugepagesize:       4096 kB\\n' >proc/meminfo"));
	CHECK(ds_machine_sysfs_at(&m, sys, proc, &err) == 0);
	CHECK_EQ_U64(m.huge_page_size, 4u << 20);
	ds_machine_fini(&m);
	CHECK(unit_sh("rm proc/meminfo && mkdir -p sys/kernel/mm/hugepages/hugepages-1048576kB "
		      "sys/kernel/mm/hugepages/hugepages-2048kB"));
	CHECK(ds_machine_sysfs_at(&m, sys, proc, &err) == 0);
	CHECK_EQ_U64(m.huge_page_size, 2u << 20);
	ds_machine_fini(&m);

	/* one node needs no memory map; no sysfs at all is still a machine */
	CHECK(unit_sh("rm -rf sys/devices/system/node/node1 sys/devices/system/memory"));
	CHECK(ds_machine_sysfs_at(&m, sys, proc, &err) == 0);
	CHECK(m.numa_nodes == 1 && m.nmobjs == 1);
	CHECK_STR(m.mobj_exprs[0], "PADDR < 0 ? -1 : 0");
	ds_machine_fini(&m);
	CHECK(ds_machine_sysfs_at(&m, "/nonexistent", "/nonexistent", &err) == 0);
	CHECK(m.ncaches == 0 && m.huge_page_size == 0 && m.numa_nodes == 0 && m.nmobjs == 0);
	ds_mobjs_init(&objs, &m);
	CHECK(objs.n == 2 && strcmp(objs.v[0].name, "vpage") == 0 && strcmp(objs.v[1].name, "ppage") == 0);
	ds_mobjs_fini(&objs);
	ds_machine_fini(&m);
	free(sys);
	free(proc);
}

TEST(experiment_machine)
{
	ds_meta meta;
	ds_machine m;

	ds_meta_init(&meta);
	meta.arch = ds_xstrdup("x86_64");
	meta.page_size = 4096;
	meta.ncaches = 2;
	meta.caches[0] = (ds_cache_level){.level = 1, .type = "Data", .size = 32768, .line = 64, .ways = 8};
	meta.caches[1] = (ds_cache_level){.level = 2, .type = "Unified", .size = 1 << 20, .line = 64,
					  .ways = 16, .sets = 1024};
	ds_machine_from_meta(&m, &meta);
	CHECK_STR(m.source, "experiment");
	CHECK_EQ_U64(m.ncaches, 2);
	CHECK_EQ_U64(ds_machine_level(&m, "L1D")->sets, 64); /* implied by the rest */
	CHECK_EQ_U64(m.huge_page_size, 2u << 20);
	CHECK_EQ_U64(m.numa_nodes, 0);
	ds_machine_fini(&m);
	free(meta.arch);
	meta.arch = ds_xstrdup("riscv64");
	ds_machine_from_meta(&m, &meta);
	CHECK_EQ_U64(m.huge_page_size, 0);
	ds_machine_fini(&m);
	ds_meta_fini(&meta);
}

/* ---- the user's file ---- */

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

TEST(user_file)
{
	char *dir = unit_tpath("cfg"), *path = unit_tpath("cfg/a/b/mobj"), *text, want[512];
	ds_mobj_def *defs;
	size_t n;
	ds_err err;

	/* where it lives */
	setenv("DSPROF_MOBJ", "/x/y", 1);
	CHECK(ds_mobj_user_path(&text, &err) == 0);
	CHECK_STR(text, "/x/y");
	free(text);
	unsetenv("DSPROF_MOBJ");
	setenv("HOME", "/home/h", 1);
	CHECK(ds_mobj_user_path(&text, &err) == 0);
	CHECK_STR(text, "/home/h/.config/dsprof/mobj");
	free(text);

	/* a missing file defines nothing; defining makes it, and its directories */
	CHECK(ds_mobj_file_read(path, &defs, &n, &err) == 0 && n == 0);
	CHECK(ds_mobj_file_define(path, "myset", "(VADDR>>6)&63", false, &err) == 0);
	CHECK(ds_mobj_file_define(path, "myline", "VADDR & ~63", false, &err) == 0);
	text = file_text(path);
	CHECK_STR(text, "myset = (VADDR>>6)&63\nmyline = VADDR & ~63\n");
	free(text);

	/* redefinition needs force, and keeps the line's place and the comments */
	CHECK(write_text(path, "# mine\nmyset = (VADDR>>6)&63\n\nmyline = VADDR & ~63"));
	CHECK(ds_mobj_file_define(path, "myset", "VADDR % 4096", false, &err) == -1);
	snprintf(want, sizeof want, "'myset' is already defined in '%s' (line 2): redefine it with --force", path);
	CHECK_STR(err.msg, want);
	CHECK(ds_mobj_file_define(path, "myset", "VADDR % 4096", true, &err) == 0);
	CHECK(ds_mobj_file_define(path, "third", "THRID", false, &err) == 0);
	text = file_text(path);
	CHECK_STR(text, "# mine\nmyset = VADDR % 4096\n\nmyline = VADDR & ~63\nthird = THRID\n");
	free(text);
	CHECK(ds_mobj_file_read(path, &defs, &n, &err) == 0);
	CHECK(n == 3 && strcmp(defs[1].name, "myline") == 0 && strcmp(defs[1].text, "VADDR & ~63") == 0 &&
	      defs[1].line == 4);
	ds_mobj_defs_free(defs, n);

	/* what define refuses */
	CHECK(ds_mobj_file_define(path, "bad", "(VADDR", false, &err) == -1);
	CHECK_STR(err.msg, "mobj 'bad': expected ')' at column 7");
	CHECK(ds_mobj_file_define(path, "L1D_line", "VADDR", true, &err) == -1);
	CHECK_STR(err.msg, "'L1D_line' is a predefined memory object; choose another name");
	CHECK(ds_mobj_file_define(path, "vpage_1G", "VADDR", true, &err) == -1);
	CHECK(ds_mobj_file_define(path, "numa_node", "VADDR", true, &err) == -1);
	CHECK(ds_mobj_file_define(path, "_x", "VADDR", false, &err) == -1);
	CHECK_STR(err.msg, "bad memory-object name '_x' (letters, digits and _, starting with a letter)");
	CHECK(ds_mobj_file_define(path, "a-b", "VADDR", false, &err) == -1);
	CHECK(ds_mobj_file_define(path, "nl", "VADDR\n+1", false, &err) == -1);
	CHECK_STR(err.msg, "mobj 'nl': the expression must be one line");
	CHECK(ds_mobj_file_define(path, "other", "L3_SETS", false, &err) == 0); /* any machine's */

	/* undefine */
	CHECK(ds_mobj_file_undefine(path, "myline", &err) == 0);
	CHECK(ds_mobj_file_undefine(path, "myline", &err) == -1);
	snprintf(want, sizeof want, "'myline' is not defined in '%s'", path);
	CHECK_STR(err.msg, want);
	text = file_text(path);
	CHECK_STR(text, "# mine\nmyset = VADDR % 4096\n\nthird = THRID\nother = L3_SETS\n");
	free(text);
	/* every write went through a temporary file that is gone */
	{
		char *d = unit_tpath("cfg/a/b");
		CHECK_EQ_U64(count_entries(d), 1);
		free(d);
	}

	/* a link to the file is written through, and stays a link */
	{
		char *link = unit_tpath("link"), *target = unit_tpath("target");
		struct stat st;
		CHECK(write_text(target, "a = VADDR\n") && symlink(target, link) == 0);
		CHECK(ds_mobj_file_define(link, "b", "PADDR", false, &err) == 0);
		CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
		text = file_text(target);
		CHECK_STR(text, "a = VADDR\nb = PADDR\n");
		free(text);
		free(link);
		free(target);
	}

	/* a hand-edited file with mistakes */
	CHECK(write_text(path, "a = VADDR\nnonsense\n"));
	CHECK(ds_mobj_file_read(path, &defs, &n, &err) == -1);
	snprintf(want, sizeof want, "memory objects of '%s': line 2: expected NAME = EXPR", path);
	CHECK_STR(err.msg, want);
	CHECK(write_text(path, "a = VADDR\n# b\na = PADDR\n"));
	CHECK(ds_mobj_file_read(path, &defs, &n, &err) == -1);
	snprintf(want, sizeof want, "memory objects of '%s': line 3: 'a' is defined twice (first on line 1)", path);
	CHECK_STR(err.msg, want);
	CHECK(ds_mobj_file_define(path, "c", "VADDR", false, &err) == -1); /* it is not rewritten blindly */
	CHECK(write_text(path, "a = \n"));
	CHECK(ds_mobj_file_read(path, &defs, &n, &err) == -1);
	CHECK(strstr(err.msg, "line 1: 'a' has no expression"));
	free(dir);
	free(path);
}

TEST(user_objects_and_options)
{
	char *path = unit_tpath("objs"), *name, *text, want[512];
	ds_machine none = {0};
	ds_mobjs objs;
	ds_err err;
	const ds_mobj *o, *p;

	CHECK(write_text(path, "myset = (VADDR>>6)&63\nbig = VADDR / L3_LINE % L3_SETS\n"));
	ds_mobjs_init(&objs, &machine);
	CHECK(ds_mobjs_add_user(&objs, path, &err) == 0);
	o = ds_mobjs_find(&objs, "myset", &err);
	CHECK(o && o->origin == DS_MOBJ_USER && !o->hex && !o->needs_paddr);
	/* the same object from the command line gives the same indices */
	CHECK(ds_mobjs_add_option(&objs, "cmdset = (VADDR>>6)&63", &err) == 0);
	o = ds_mobjs_find(&objs, "myset", &err);
	p = ds_mobjs_find(&objs, "cmdset", &err);
	CHECK(o && p && p->origin == DS_MOBJ_OPTION);
	{
		bool same = true;
		for (int64_t v = 0; v < 100000; v += 37) {
			ds_access a = access_at(0x7f0000000000 + v * 13, -1);
			same = same && ds_expr_eval(o->code, &a) == ds_expr_eval(p->code, &a);
		}
		CHECK(same);
	}
	/* and replaces a user object of the same name */
	CHECK(ds_mobjs_add_option(&objs, "myset=VADDR & ~4095", &err) == 0);
	o = ds_mobjs_find(&objs, "myset", &err);
	CHECK(o && o->origin == DS_MOBJ_OPTION && o->hex);
	CHECK(ds_mobjs_add_option(&objs, "L1D_set=VADDR", &err) == -1);
	CHECK_STR(err.msg, "'L1D_set' is a predefined memory object; choose another name");
	CHECK(ds_mobjs_add_option(&objs, "x=(VADDR", &err) == -1);
	CHECK_STR(err.msg, "mobj 'x': expected ')' at column 7");
	ds_mobjs_fini(&objs);

	/* a machine without L3: the user's object stays, with its reason */
	ds_mobjs_init(&objs, &none);
	CHECK(objs.n == 0);
	CHECK(ds_mobjs_add_user(&objs, path, &err) == 0);
	CHECK(objs.n == 2 && objs.v[1].error && !objs.v[1].code);
	CHECK(!ds_mobjs_find(&objs, "big", &err));
	CHECK_STR(err.msg, "mobj 'big': the machine has no L3 cache for L3_LINE at column 9");
	/* but an option must work here */
	CHECK(ds_mobjs_add_option(&objs, "big2=L3_SETS", &err) == -1);
	CHECK_STR(err.msg, "mobj 'big2': the machine has no L3 cache for L3_SETS at column 1");
	ds_mobjs_fini(&objs);

	/* a syntax error in the file stops the load, naming the line */
	CHECK(write_text(path, "ok = VADDR\nbad = VADDR +\n"));
	ds_mobjs_init(&objs, &machine);
	CHECK(ds_mobjs_add_user(&objs, path, &err) == -1);
	snprintf(want, sizeof want,
		 "memory objects of '%s': line 2: mobj 'bad': expected an operand, not the end at column 8", path);
	CHECK_STR(err.msg, want);
	ds_mobjs_fini(&objs);

	/* --mobj NAME=EXPR */
	CHECK(ds_mobj_parse_option(" a = VADDR >> 12 ", &name, &text, &err) == 0);
	CHECK_STR(name, "a");
	CHECK_STR(text, "VADDR >> 12");
	free(name);
	free(text);
	CHECK(ds_mobj_parse_option("a=VADDR==1", &name, &text, &err) == 0);
	CHECK_STR(text, "VADDR==1");
	free(name);
	free(text);
	CHECK(ds_mobj_parse_option("VADDR", &name, &text, &err) == -1);
	CHECK_STR(err.msg, "--mobj 'VADDR': expected NAME=EXPR");
	CHECK(ds_mobj_parse_option("a=", &name, &text, &err) == -1);
	CHECK(ds_mobj_parse_option("1a=VADDR", &name, &text, &err) == -1);
	CHECK_STR(err.msg, "--mobj '1a=VADDR': bad name (letters, digits and _, starting with a letter)");
	CHECK(!name && !text);
	CHECK(ds_mobj_name_ok("a1_B"));
	CHECK(!ds_mobj_name_ok(""));
	CHECK(!ds_mobj_name_ok("a b"));
	CHECK(ds_mobj_predefined_name("ppage_2M") && ds_mobj_predefined_name("vpage_64K"));
	CHECK(!ds_mobj_predefined_name("vpage_") && !ds_mobj_predefined_name("vpage_2Mx"));
	free(path);
}

/* ---- cache geometry from CPUID, on recorded answers ---- */

typedef struct cpuid_row {
	uint32_t leaf, sub, r[4];
} cpuid_row;

static bool fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	for (const cpuid_row *x = ctx; x->leaf || x->r[0]; x++)
		if (x->leaf == leaf && (x->sub == sub || leaf == 0 || (leaf >= 0x80000000u && leaf != 0x8000001Du))) {
			memcpy(r, x->r, sizeof x->r);
			return true;
		}
	memset(r, 0, 4 * sizeof *r);
	return true;
}

static const uint32_t GENU = 0x756e6547, INEI = 0x49656e69, NTEL = 0x6c65746e;
static const uint32_t AUTH = 0x68747541, ENTI = 0x69746e65, CAMD = 0x444d4163;

static void cpuid_levels(const cpuid_row *rows, ds_buf *out)
{
	ds_cache_level c[8];
	int n = ds_geometry_cpuid(fake_cpuid, (void *)rows, c, 8);
	for (int i = 0; i < n; i++)
		ds_buf_printf(out, "%sL%d %s %llu %u %u %u", i ? ", " : "", c[i].level, c[i].type,
			      (unsigned long long)c[i].size, c[i].ways, c[i].line, c[i].sets);
}

TEST(cpuid_geometry)
{
	/* Skylake (i7-6700): leaf 4 */
	const cpuid_row intel[] = {
		{0, 0, {0x16, GENU, NTEL, INEI}},
		{4, 0, {0x1c004121, 0x01c0003f, 0x3f, 0}},
		{4, 1, {0x1c004122, 0x01c0003f, 0x3f, 0}},
		{4, 2, {0x1c004143, 0x00c0003f, 0x3ff, 0}},
		{4, 3, {0x1c03c163, 0x03c0003f, 0x1fff, 6}},
		{0, 0, {0, 0, 0, 0}},
	};
	/* a Zen 3 with the topology extensions: leaf 0x8000001D */
	const cpuid_row zen[] = {
		{0, 0, {0x10, AUTH, CAMD, ENTI}},
		{0x80000000u, 0, {0x80000021u, 0, 0, 0}},
		{0x80000001u, 0, {0, 0, 1u << 22, 0}},
		{0x8000001Du, 0, {0x00004121, 0x01c0003f, 0x3f, 0}},
		{0x8000001Du, 1, {0x00004122, 0x01c0003f, 0x3f, 0}},
		{0x8000001Du, 2, {0x00004143, 0x01c0003f, 0x3ff, 2}},
		{0x8000001Du, 3, {0x0003c163, 0x03c0003f, 0x7fff, 1}},
		{0, 0, {0, 0, 0, 0}},
	};
	/* an EPYC guest without them (a Firecracker VM): the legacy leaves,
	 * whose L3 associativity code 9 means "see 0x8000001D" */
	const cpuid_row legacy[] = {
		{0, 0, {0xd, AUTH, CAMD, ENTI}},
		{0x80000000u, 0, {0x80000021u, 0, 0, 0}},
		{0x80000001u, 0, {0, 0, 0, 0}},
		{0x80000005u, 0, {0, 0, 48u << 24 | 12u << 16 | 1u << 8 | 64, 32u << 24 | 8u << 16 | 1u << 8 | 64}},
		{0x80000006u, 0, {0, 0, 1024u << 16 | 6u << 12 | 64, 1016u << 18 | 9u << 12 | 64}},
		{0, 0, {0, 0, 0, 0}},
	};
	/* a fully associative cache (EAX bit 9) has no ways or sets */
	const cpuid_row full[] = {
		{0, 0, {0x16, GENU, NTEL, INEI}},
		{4, 0, {0x1c004321, 0x01c0003f, 0, 0}},
		{0, 0, {0, 0, 0, 0}},
	};
	ds_buf b = {0};

	cpuid_levels(intel, &b);
	CHECK_STR(ds_buf_str(&b), "L1 Data 32768 8 64 64, L1 Instruction 32768 8 64 64, "
				  "L2 Unified 262144 4 64 1024, L3 Unified 8388608 16 64 8192");
	ds_buf_reset(&b);
	cpuid_levels(zen, &b);
	CHECK_STR(ds_buf_str(&b), "L1 Data 32768 8 64 64, L1 Instruction 32768 8 64 64, "
				  "L2 Unified 524288 8 64 1024, L3 Unified 33554432 16 64 32768");
	ds_buf_reset(&b);
	cpuid_levels(legacy, &b);
	CHECK_STR(ds_buf_str(&b), "L1 Data 49152 12 64 64, L1 Instruction 32768 8 64 64, "
				  "L2 Unified 1048576 8 64 2048, L3 Unified 532676608 0 64 0");
	ds_buf_reset(&b);
	cpuid_levels(full, &b);
	CHECK_STR(ds_buf_str(&b), "L1 Data 512 0 64 0");
	ds_buf_free(&b);
}

int main(void)
{
	if (!unit_tmpdir("dsprof-memobj"))
		return 1;
	make_machine(&machine);
	RUN(same_as_c);
	RUN(generated_against_tree_and_c);
	RUN(heap_operands);
	RUN(unknown_and_minus_one);
	RUN(constant_forms);
	RUN(errors_name_the_column);
	RUN(machine_constants);
	RUN(addresses_print_in_hex);
	RUN(uses);
	RUN(filters);
	RUN(filter_errors);
	RUN(model_files);
	RUN(model_file_errors);
	RUN(overrides);
	RUN(sysfs_machine);
	RUN(cpuid_geometry);
	RUN(experiment_machine);
	RUN(user_file);
	RUN(user_objects_and_options);
	ds_machine_fini(&machine);
	unit_sh("rm -rf '%s'", unit_tmp);
	return unit_done();
}
