/* The memory-object and filter language: a tokenizer, a precedence-climbing
 * parser that folds constants as it builds the tree, and a bytecode for an
 * accumulator machine that evaluates it per sample. */
#include "memobj/memobj.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Deepest tree and parser nesting; bounds every recursion here and the
 * evaluation stack, so no input can exhaust the C stack. */
#define MAX_DEPTH 128
/* Distinct MOBJ(name) a filter may use (their bits sit above the operands'). */
#define MAX_SUBS 16

/* Where C leaves a result undefined, the language defines it: arithmetic
 * wraps (it is done unsigned), and a shift count outside 0..63 shifts every
 * bit out. */
static inline int64_t shl(int64_t x, int64_t n)
{
	return (uint64_t)n > 63 ? 0 : (int64_t)((uint64_t)x << n);
}
static inline int64_t shr(int64_t x, int64_t n)
{
	return (uint64_t)n > 63 ? (x < 0 ? -1 : 0) : x >> n;
}
/* y != 0; INT64_MIN / -1 wraps like the other operators instead of trapping. */
static inline int64_t sdiv(int64_t x, int64_t y)
{
	return y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y;
}
static inline int64_t smod(int64_t x, int64_t y)
{
	return y == -1 ? 0 : x % y;
}

/* The binary operators that cannot fail (division and modulo can), as
 * X(name, value of x name y); the comparisons stay together, LT to NE. */
#define SIMPLE_BINOPS(X)                                  \
	X(MUL, (int64_t)((uint64_t)x * (uint64_t)y))      \
	X(ADD, (int64_t)((uint64_t)x + (uint64_t)y))      \
	X(SUB, (int64_t)((uint64_t)x - (uint64_t)y))      \
	X(SHL, shl(x, y))                                 \
	X(SHR, shr(x, y))                                 \
	X(LT, x < y)                                      \
	X(LE, x <= y)                                     \
	X(GT, x > y)                                      \
	X(GE, x >= y)                                     \
	X(EQ, x == y)                                     \
	X(NE, x != y)                                     \
	X(AND, x & y)                                     \
	X(XOR, x ^ y)                                     \
	X(OR, x | y)

enum op {
#define X(name, expr) O_##name,
	SIMPLE_BINOPS(X)
#undef X
	O_DIV, O_MOD, O_LAND, O_LOR,
	/* unary */
	O_NEG, O_BNOT, O_LNOT, O_PLUS, O_BOOL,
};

static int precedence(int op)
{
	switch (op) {
	case O_MUL: case O_DIV: case O_MOD: return 10;
	case O_ADD: case O_SUB: return 9;
	case O_SHL: case O_SHR: return 8;
	case O_LT: case O_LE: case O_GT: case O_GE: return 7;
	case O_EQ: case O_NE: return 6;
	case O_AND: return 5;
	case O_XOR: return 4;
	case O_OR: return 3;
	case O_LAND: return 2;
	case O_LOR: return 1;
	}
	return 0;
}

static bool is_comparison(int op)
{
	return op >= O_LT && op <= O_NE;
}

/* x op y for constants; false for a division or modulo by zero. */
static bool binop(int op, int64_t x, int64_t y, int64_t *r)
{
	switch (op) {
#define X(name, expr) case O_##name: *r = (expr); return true;
	SIMPLE_BINOPS(X)
#undef X
	case O_DIV: *r = y ? sdiv(x, y) : 0; return y != 0;
	case O_MOD: *r = y ? smod(x, y) : 0; return y != 0;
	case O_LAND: *r = x && y; return true;
	case O_LOR: *r = x || y; return true;
	}
	return false;
}

static int64_t unop(int op, int64_t x)
{
	switch (op) {
	case O_NEG: return (int64_t)(0 - (uint64_t)x);
	case O_BNOT: return ~x;
	case O_LNOT: return !x;
	case O_BOOL: return x != 0;
	}
	return x;
}

/* ---- bytecode ---- */

enum ins_op {
	I_K, I_LD, I_LDS, I_PUSH,
#define X(name, expr) I_##name, I_##name##K,
	SIMPLE_BINOPS(X)
#undef X
	I_DIV, I_DIVK, I_MOD, I_MODK,
	I_DIVP2, I_MODP2,   /* by a constant power of two, k its log */
	I_NEG, I_BNOT, I_LNOT, I_BOOL,
	I_JZ,               /* acc == 0: jump (&&'s false, ?:'s else) */
	I_JNZ1,             /* acc != 0: acc = 1 and jump (||'s true) */
	I_JMP,
	I_LDX, I_LDXS,      /* acc = op[a], the caller's operand; S: stop when unknown */
	I_STREQ, I_STRNE,   /* acc = (op[a] == k || alias[a] == k), or not */
	I_MOBJ, I_MOBJS,    /* acc = subs[a] on this access; S: stop when unknown */
	I_END,
};

typedef struct ins {
	uint16_t op;
	uint16_t a;          /* operand, string operand or sub-object */
	uint32_t target;     /* jumps */
	int64_t k;
} ins;

struct ds_expr {
	ins *code;
	size_t ncode, cap;
	unsigned uses;
	uint32_t ops_used;       /* the caller's operands read, a bit each */
	bool is_address;
	ds_hash *strings;        /* a filter's string literals */
	ds_expr *subs[MAX_SUBS]; /* the objects a filter's MOBJ() names */
	char *sub_names[MAX_SUBS];
	int nsubs;
};

/* Evaluate: false when the result is unknown (an unknown operand read
 * where the expression does not compare it, a division by zero). */
static inline __attribute__((always_inline)) bool run(const ds_expr *e, const ds_access *in,
						       int64_t *out)
{
	int64_t st[MAX_DEPTH + 2], acc = 0;
	int sp = 0;

	for (const ins *pc = e->code;; pc++) {
		switch ((enum ins_op)pc->op) {
		case I_K: acc = pc->k; break;
		case I_LD: acc = in->v[pc->a]; break;
		case I_LDS:
			acc = in->v[pc->a];
			if (acc == -1)
				return false;
			break;
		case I_PUSH: st[sp++] = acc; break;
#define X(name, expr)                                   \
	case I_##name: {                                \
		int64_t x = st[--sp], y = acc;          \
		acc = (expr);                           \
		break;                                  \
	}                                               \
	case I_##name##K: {                             \
		int64_t x = acc, y = pc->k;             \
		acc = (expr);                           \
		break;                                  \
	}
		SIMPLE_BINOPS(X)
#undef X
		case I_DIV:
			if (!acc)
				return false;
			acc = sdiv(st[--sp], acc);
			break;
		case I_MOD:
			if (!acc)
				return false;
			acc = smod(st[--sp], acc);
			break;
		case I_DIVK:
			if (!pc->k)
				return false;
			acc = sdiv(acc, pc->k);
			break;
		case I_MODK:
			if (!pc->k)
				return false;
			acc = smod(acc, pc->k);
			break;
		case I_DIVP2:
			/* C truncates toward zero: a negative dividend is
			 * biased by divisor-1 before the arithmetic shift */
			acc = (acc + ((acc >> 63) & ((INT64_C(1) << pc->k) - 1))) >> pc->k;
			break;
		case I_MODP2: {
			int64_t r = acc & ((INT64_C(1) << pc->k) - 1);
			acc = acc < 0 && r ? r - (INT64_C(1) << pc->k) : r;
			break;
		}
		case I_NEG: acc = (int64_t)(0 - (uint64_t)acc); break;
		case I_BNOT: acc = ~acc; break;
		case I_LNOT: acc = !acc; break;
		case I_BOOL: acc = acc != 0; break;
		case I_JZ:
			if (!acc)
				pc = e->code + pc->target - 1;
			break;
		case I_JNZ1:
			if (acc) {
				acc = 1;
				pc = e->code + pc->target - 1;
			}
			break;
		case I_JMP: pc = e->code + pc->target - 1; break;
		case I_LDX: acc = in->op[pc->a]; break;
		case I_LDXS:
			acc = in->op[pc->a];
			if (acc == -1)
				return false;
			break;
		case I_STREQ: acc = in->op[pc->a] == pc->k || in->alias[pc->a] == pc->k; break;
		case I_STRNE: acc = in->op[pc->a] != pc->k && in->alias[pc->a] != pc->k; break;
		case I_MOBJ: acc = ds_expr_eval(e->subs[pc->a], in); break;
		case I_MOBJS:
			acc = ds_expr_eval(e->subs[pc->a], in);
			if (acc == -1)
				return false;
			break;
		case I_END:
			*out = acc;
			return true;
		}
	}
}

int64_t ds_expr_eval(const ds_expr *e, const ds_access *a)
{
	int64_t r;
	return run(e, a, &r) ? r : -1;
}

bool ds_filter_match(const ds_expr *f, const ds_access *a)
{
	int64_t r;
	return run(f, a, &r) && r != 0;
}

unsigned ds_expr_uses(const ds_expr *e)
{
	return e->uses;
}

bool ds_expr_is_address(const ds_expr *e)
{
	return e->is_address;
}

int32_t ds_filter_string_id(const ds_expr *f, const char *s)
{
	return f->strings ? (int32_t)ds_hash_find(f->strings, s, strlen(s)) : -1;
}

uint32_t ds_filter_ops_used(const ds_expr *f)
{
	return f->ops_used;
}

int32_t ds_filter_compared(const ds_expr *f, size_t op, size_t i)
{
	for (size_t c = 0; c < f->ncode; c++)
		if ((f->code[c].op == I_STREQ || f->code[c].op == I_STRNE) && f->code[c].a == op && i-- == 0)
			return (int32_t)f->code[c].k;
	return -1;
}

const char *ds_filter_string(const ds_expr *f, int32_t id, size_t *len)
{
	return ds_hash_key(f->strings, (size_t)id, len);
}

void ds_expr_free(ds_expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nsubs; i++) {
		ds_expr_free(e->subs[i]);
		free(e->sub_names[i]);
	}
	ds_hash_free(e->strings);
	free(e->code);
	free(e);
}

/* ---- tokens ---- */

static const char *const operand_names[DS_NOPERANDS] = {
	"VADDR", "PADDR", "THRID", "CPUID", "VIRTPC", "TSTAMP", "ASITE", "BLOCKOFF",
};

enum tok_kind { T_END, T_NUM, T_NAME, T_STR, T_OP, T_LPAREN, T_RPAREN, T_QUEST, T_COLON, T_OTHER };

typedef struct token {
	enum tok_kind kind;
	int op;             /* T_OP: enum op (SUB and ADD also stand for unary - and +) */
	int col;            /* 1-based */
	const char *start;
	size_t len;
	uint64_t num;
	char *str;          /* T_STR: the decoded literal */
} token;

enum node_kind { N_NUM, N_OPND, N_XOPND, N_STROP, N_STRLIT, N_STREQ, N_MOBJ, N_UN, N_BIN, N_COND };

/* Bits of node.mask and parser.compared: enum ds_operand's, MOBJ() slots,
 * the caller's operands. */
#define SUB_MASK(i) ((uint64_t)1 << (16 + (i)))
#define OP_BIT(i) ((uint64_t)1 << (32 + (i)))

typedef struct node {
	enum node_kind kind;
	int op;
	int col;
	int depth;
	int64_t k;       /* N_NUM value; N_OPND operand; N_XOPND and N_STROP the caller's operand;
			  * N_STRLIT and N_STREQ string id; N_MOBJ slot */
	int a, b, c;     /* children; N_STREQ: a is the string operand */
	bool synonym;    /* N_STROP: written by its other name (FUNC) */
	uint64_t mask;   /* operands and MOBJ slots in the subtree as written, folded parts included */
} node;

typedef struct parser {
	const char *label;  /* "mobj 'x'" or "filter" */
	const char *text;
	const char *pos;
	const ds_machine *m;
	bool filter;
	const ds_mobjs *objs;
	const ds_filter_operand *ops; /* the caller's, for filters */
	size_t nops;
	token tok;
	DS_VEC(node) nodes;
	int nest;
	uint64_t compared;  /* operands and slots some comparison reads */
	ds_expr *e;
	ds_err *err;
	bool failed;
} parser;

static int fail(parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(parser *p, int col, const char *fmt, ...)
{
	va_list ap;
	ds_buf b = {0};

	if (p->failed)
		return -1;
	p->failed = true;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ds_err_set(p->err, DS_EINPUT, "%s: %s at column %d", p->label, ds_buf_str(&b), col);
	ds_buf_free(&b);
	return -1;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void lex_number(parser *p, token *t)
{
	bool hex = p->pos[0] == '0' && (p->pos[1] == 'x' || p->pos[1] == 'X');
	const char *digits = p->pos + (hex ? 2 : 0), *end = digits;
	unsigned base = hex ? 16 : 10;
	uint64_t v = 0;

	while (name_char(*end))
		end++;
	t->len = (size_t)(end - p->pos);
	/* "010" is octal in C: refused rather than read differently */
	if (end == digits || (!hex && p->pos[0] == '0' && t->len > 1))
		goto bad;
	for (const char *c = digits; c < end; c++) {
		unsigned d;
		if (hex ? !isxdigit((unsigned char)*c) : !isdigit((unsigned char)*c))
			goto bad;
		d = isdigit((unsigned char)*c) ? (unsigned)(*c - '0')
					       : (unsigned)(tolower((unsigned char)*c) - 'a' + 10);
		if (v > (UINT64_MAX - d) / base) {
			fail(p, t->col, "number too large");
			return;
		}
		v = v * base + d;
	}
	t->kind = T_NUM;
	t->num = v;
	return;
bad:
	fail(p, t->col, "bad number '%.*s' (decimal or 0x hex, no leading zeros)",
	     (int)(t->len > 40 ? 40 : t->len), p->pos);
}

static void lex_string(parser *p, token *t)
{
	ds_buf b = {0};
	const char *s = p->pos + 1;

	for (; *s && *s != '"'; s++) {
		if (*s == '\\') {
			if (s[1] != '"' && s[1] != '\\') {
				fail(p, (int)(s - p->text) + 1, "unknown escape in a string (only \\\" and \\\\)");
				ds_buf_free(&b);
				return;
			}
			s++;
		}
		ds_buf_putc(&b, *s);
	}
	if (!*s) {
		fail(p, t->col, "unterminated string");
		ds_buf_free(&b);
		return;
	}
	t->kind = T_STR;
	t->len = (size_t)(s + 1 - p->pos);
	t->str = ds_buf_steal(&b);
}

/* The operator at p->pos, longest match first. */
static void lex_operator(parser *p, token *t)
{
	static const struct {
		const char *text;
		enum tok_kind kind;
		int op;
	} ops[] = {
		{"<<", T_OP, O_SHL}, {">>", T_OP, O_SHR}, {"<=", T_OP, O_LE}, {">=", T_OP, O_GE},
		{"==", T_OP, O_EQ}, {"!=", T_OP, O_NE}, {"&&", T_OP, O_LAND}, {"||", T_OP, O_LOR},
		{"*", T_OP, O_MUL}, {"/", T_OP, O_DIV}, {"%", T_OP, O_MOD}, {"+", T_OP, O_ADD},
		{"-", T_OP, O_SUB}, {"<", T_OP, O_LT}, {">", T_OP, O_GT}, {"&", T_OP, O_AND},
		{"^", T_OP, O_XOR}, {"|", T_OP, O_OR}, {"!", T_OP, O_LNOT}, {"~", T_OP, O_BNOT},
		{"(", T_LPAREN, 0}, {")", T_RPAREN, 0}, {"?", T_QUEST, 0}, {":", T_COLON, 0},
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].text);
		if (strncmp(p->pos, ops[i].text, n) == 0) {
			t->kind = ops[i].kind;
			t->op = ops[i].op;
			t->len = n;
			return;
		}
	}
	t->kind = T_OTHER;
	t->len = ds_utf8_len(p->pos) ? ds_utf8_len(p->pos) : 1;
}

static void next(parser *p)
{
	token *t = &p->tok;

	free(t->str);
	memset(t, 0, sizeof *t);
	while (isspace((unsigned char)*p->pos))
		p->pos++;
	t->col = (int)(p->pos - p->text) + 1;
	t->start = p->pos;
	if (!*p->pos)
		t->kind = T_END;
	else if (isdigit((unsigned char)*p->pos))
		lex_number(p, t);
	else if (isalpha((unsigned char)*p->pos) || *p->pos == '_') {
		t->kind = T_NAME;
		while (name_char(p->pos[t->len]))
			t->len++;
	} else if (*p->pos == '"')
		lex_string(p, t);
	else
		lex_operator(p, t);
	if (p->failed)
		t->kind = T_END;
	p->pos += t->len;
}

/* How the current token reads in a message. */
static const char *tok_text(parser *p, char *buf, size_t n)
{
	if (p->tok.kind == T_END)
		return "the end";
	snprintf(buf, n, "'%.*s'", (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.start);
	return buf;
}

/* ---- the tree ---- */

static node *N(parser *p, int i)
{
	return &p->nodes.v[i];
}

static int add_node(parser *p, node n)
{
	if (n.depth > MAX_DEPTH)
		return fail(p, n.col, "expression nested too deeply");
	ds_vec_push(&p->nodes, n);
	return (int)p->nodes.n - 1;
}

static int leaf(parser *p, enum node_kind kind, int64_t k, int col, uint64_t mask)
{
	return add_node(p, (node){.kind = kind, .k = k, .col = col, .depth = 1, .mask = mask});
}

/* A string where a number belongs. */
static int not_a_number(parser *p, int n)
{
	node *x = N(p, n);
	if (x->kind == N_STROP)
		return fail(p, x->col, "%s is a string: compare it with == or != to a \"string\"",
			    x->synonym ? p->ops[x->k].synonym : p->ops[x->k].name);
	if (x->kind == N_STRLIT) {
		ds_buf b = {0};
		for (size_t i = 0, k = 0; i < p->nops; i++)
			if (p->ops[i].string)
				ds_buf_printf(&b, "%s%s", k++ ? ", " : "", p->ops[i].name);
		fail(p, x->col, "a string can only be compared with a name: %s",
		     b.len ? ds_buf_str(&b) : "this filter has none");
		ds_buf_free(&b);
		return -1;
	}
	return 0;
}

static int make_un(parser *p, int op, int a, int col)
{
	node *x = N(p, a);
	if (not_a_number(p, a))
		return -1;
	if (op == O_PLUS)
		return a;
	if (x->kind == N_NUM) {
		x->k = unop(op, x->k);
		return a;
	}
	return add_node(p, (node){.kind = N_UN, .op = op, .a = a, .col = col, .depth = x->depth + 1,
				  .mask = x->mask});
}

/* FUNC == "main" and the like: the only use strings have. */
static int make_streq(parser *p, int op, int a, int b)
{
	node *x = N(p, a), *y = N(p, b);

	if (x->kind == N_STROP && y->kind == N_STRLIT)
		return add_node(p, (node){.kind = N_STREQ, .op = op, .a = (int)x->k, .k = y->k,
					  .col = x->col, .depth = 1});
	if (y->kind == N_STROP && x->kind == N_STRLIT)
		return add_node(p, (node){.kind = N_STREQ, .op = op, .a = (int)y->k, .k = x->k,
					  .col = y->col, .depth = 1});
	/* blame a string operand whose partner is no literal, else the literal */
	if (x->kind == N_STROP)
		return not_a_number(p, a);
	if (y->kind == N_STROP)
		return not_a_number(p, b);
	return not_a_number(p, x->kind == N_STRLIT ? a : b);
}

static int make_bin(parser *p, int op, int a, int b, int col)
{
	node *x = N(p, a), *y = N(p, b);
	uint64_t mask = x->mask | y->mask;
	int64_t v;

	if ((op == O_EQ || op == O_NE) &&
	    (x->kind == N_STROP || x->kind == N_STRLIT || y->kind == N_STROP || y->kind == N_STRLIT))
		return make_streq(p, op, a, b);
	if (not_a_number(p, a) || not_a_number(p, b))
		return -1;
	if (is_comparison(op))
		p->compared |= mask;
	if (x->kind == N_NUM && y->kind == N_NUM && binop(op, x->k, y->k, &v))
		return leaf(p, N_NUM, v, x->col, mask);
	/* && and || with a constant left side: decided, or the right side's truth */
	if (x->kind == N_NUM && (op == O_LAND || op == O_LOR)) {
		if (!x->k == (op == O_LAND))
			return leaf(p, N_NUM, op == O_LOR, x->col, mask);
		return add_node(p, (node){.kind = N_UN, .op = O_BOOL, .a = b, .col = col,
					  .depth = y->depth + 1, .mask = mask});
	}
	return add_node(p, (node){.kind = N_BIN, .op = op, .a = a, .b = b, .col = col,
				  .depth = (x->depth > y->depth ? x->depth : y->depth) + 1, .mask = mask});
}

static int make_cond(parser *p, int c, int a, int b, int col)
{
	node *x = N(p, c), *y = N(p, a), *z = N(p, b);
	uint64_t mask = x->mask | y->mask | z->mask;
	int d = x->depth > y->depth ? x->depth : y->depth;

	if (not_a_number(p, c) || not_a_number(p, a) || not_a_number(p, b))
		return -1;
	if (x->kind == N_NUM) {
		int r = x->k ? a : b;
		N(p, r)->mask = mask;
		return r;
	}
	return add_node(p, (node){.kind = N_COND, .a = c, .b = a, .c = b, .col = col,
				  .depth = (d > z->depth ? d : z->depth) + 1, .mask = mask});
}

/* ---- the parser ---- */

static int parse_cond(parser *p);

static int constant(parser *p, const char *name, int col)
{
	int64_t v;
	size_t n = strcspn(name, "_");
	char level[8];

	if (!p->m)
		return leaf(p, N_NUM, 64, col, 0); /* syntax only: any plausible value */
	if (ds_machine_constant(p->m, name, &v))
		return leaf(p, N_NUM, v, col, 0);
	snprintf(level, sizeof level, "%.*s", (int)(n < 7 ? n : 7), name);
	if (name[0] == 'L' && !ds_machine_level(p->m, level))
		return fail(p, col, "the machine has no %s cache for %s", level, name);
	return fail(p, col, "the machine does not know %s", name);
}

static int mobj_ref(parser *p, int col)
{
	char name[72], buf[64];
	const ds_mobj *o;
	ds_err suberr = {0};
	int slot;

	next(p);
	if (p->tok.kind != T_LPAREN)
		return fail(p, p->tok.col, "expected '(' after MOBJ");
	next(p);
	if (p->tok.kind != T_NAME)
		return fail(p, p->tok.col, "expected a memory-object name, not %s", tok_text(p, buf, sizeof buf));
	snprintf(name, sizeof name, "%.*s", (int)(p->tok.len < 71 ? p->tok.len : 71), p->tok.start);
	next(p);
	if (p->tok.kind != T_RPAREN)
		return fail(p, p->tok.col, "expected ')'");
	next(p);
	for (slot = 0; slot < p->e->nsubs; slot++)
		if (strcmp(p->e->sub_names[slot], name) == 0)
			return leaf(p, N_MOBJ, slot, col, SUB_MASK(slot));
	if (slot == MAX_SUBS)
		return fail(p, col, "more than %d memory objects in one filter", MAX_SUBS);
	if (!p->objs || !(o = ds_mobjs_find(p->objs, name, &suberr)))
		return fail(p, col, "MOBJ(%s): %s", name,
			    p->objs ? suberr.msg : "no memory objects here");
	if (ds_expr_compile(o->name, o->text, p->m, &p->e->subs[slot], &suberr))
		return fail(p, col, "MOBJ(%s): %s", name, suberr.msg);
	p->e->sub_names[slot] = ds_xstrdup(name);
	p->e->nsubs++;
	return leaf(p, N_MOBJ, slot, col, SUB_MASK(slot));
}

static int name_ref(parser *p)
{
	token t = p->tok;
	char name[72];

	snprintf(name, sizeof name, "%.*s", (int)(t.len < 71 ? t.len : 71), t.start);
	for (int i = 0; i < DS_NOPERANDS; i++)
		if (strcmp(name, operand_names[i]) == 0) {
			next(p);
			return leaf(p, N_OPND, i, t.col, 1u << i);
		}
	for (size_t i = 0; i < p->nops; i++) {
		bool syn = p->ops[i].synonym && strcmp(name, p->ops[i].synonym) == 0;
		int n;
		if (!syn && strcmp(name, p->ops[i].name) != 0)
			continue;
		next(p);
		if (!p->ops[i].string)
			return leaf(p, N_XOPND, (int64_t)i, t.col, OP_BIT(i));
		if ((n = leaf(p, N_STROP, (int64_t)i, t.col, 0)) >= 0)
			N(p, n)->synonym = syn;
		return n;
	}
	if (strcmp(name, "MOBJ") == 0) {
		if (!p->filter)
			return fail(p, t.col, "MOBJ() is only for filters");
		return mobj_ref(p, t.col);
	}
	for (int i = 0; ds_machine_constants[i]; i++)
		if (strcmp(name, ds_machine_constants[i]) == 0) {
			next(p);
			return constant(p, name, t.col);
		}
	/* a likely slip: the right name in the wrong case */
	for (int i = 0; i < DS_NOPERANDS; i++)
		if (strcasecmp(name, operand_names[i]) == 0)
			return fail(p, t.col, "unknown name '%s' (did you mean %s?)", name, operand_names[i]);
	for (int i = 0; ds_machine_constants[i]; i++)
		if (strcasecmp(name, ds_machine_constants[i]) == 0)
			return fail(p, t.col, "unknown name '%s' (did you mean %s?)", name,
				    ds_machine_constants[i]);
	return fail(p, t.col, "unknown name '%s'", name);
}

static int parse_primary(parser *p)
{
	token t = p->tok;
	char buf[64];
	int r;

	switch (t.kind) {
	case T_NUM:
		next(p);
		return leaf(p, N_NUM, (int64_t)t.num, t.col, 0);
	case T_NAME:
		return name_ref(p);
	case T_STR: {
		bool added;
		if (!p->filter)
			return fail(p, t.col, "a string is only for filters");
		if (!p->e->strings)
			p->e->strings = ds_hash_new();
		r = (int)ds_hash_intern(p->e->strings, p->tok.str, strlen(p->tok.str), &added);
		next(p);
		return leaf(p, N_STRLIT, r, t.col, 0);
	}
	case T_LPAREN:
		next(p);
		r = parse_cond(p);
		if (r < 0)
			return -1;
		if (p->tok.kind != T_RPAREN)
			return fail(p, p->tok.col, "expected ')'");
		next(p);
		return r;
	default:
		if (t.kind == T_OTHER)
			return fail(p, t.col, "unexpected %s", tok_text(p, buf, sizeof buf));
		return fail(p, t.col, "expected an operand, not %s", tok_text(p, buf, sizeof buf));
	}
}

static int parse_unary(parser *p)
{
	token t = p->tok;
	int op, r;

	if (t.kind != T_OP || (t.op != O_SUB && t.op != O_ADD && t.op != O_LNOT && t.op != O_BNOT))
		return parse_primary(p);
	op = t.op == O_SUB ? O_NEG : t.op == O_ADD ? O_PLUS : t.op;
	if (++p->nest > MAX_DEPTH)
		return fail(p, t.col, "expression nested too deeply");
	next(p);
	r = parse_unary(p);
	p->nest--;
	return r < 0 ? -1 : make_un(p, op, r, t.col);
}

/* Binary operators of precedence >= minprec, all left-associative. */
static int parse_binary(parser *p, int minprec)
{
	int lhs = parse_unary(p);

	while (lhs >= 0 && p->tok.kind == T_OP && precedence(p->tok.op) >= minprec) {
		token t = p->tok;
		int rhs;
		if (++p->nest > MAX_DEPTH)
			return fail(p, t.col, "expression nested too deeply");
		next(p);
		rhs = parse_binary(p, precedence(t.op) + 1);
		p->nest--;
		lhs = rhs < 0 ? -1 : make_bin(p, t.op, lhs, rhs, t.col);
	}
	return lhs;
}

/* cond ? expr : cond, right-associative as in C. */
static int parse_cond(parser *p)
{
	int c, a, b, col;

	if (++p->nest > MAX_DEPTH)
		return fail(p, p->tok.col, "expression nested too deeply");
	c = parse_binary(p, 1);
	if (c >= 0 && p->tok.kind == T_QUEST) {
		col = p->tok.col;
		next(p);
		a = parse_cond(p);
		if (a >= 0 && p->tok.kind != T_COLON)
			a = fail(p, p->tok.col, "expected ':'");
		if (a >= 0)
			next(p);
		b = a < 0 ? -1 : parse_cond(p);
		c = b < 0 ? -1 : make_cond(p, c, a, b, col);
	}
	p->nest--;
	return c;
}

/* ---- code generation ---- */

static uint32_t emit_ins(parser *p, int op, int a, int64_t k)
{
	ins *e;
	if (p->e->ncode == p->e->cap) {
		p->e->cap = p->e->cap ? 2 * p->e->cap : 16;
		p->e->code = ds_xrealloc(p->e->code, p->e->cap * sizeof *p->e->code);
	}
	e = &p->e->code[p->e->ncode];
	*e = (ins){.op = (uint16_t)op, .a = (uint16_t)a, .k = k};
	return (uint32_t)p->e->ncode++;
}

static void patch(parser *p, uint32_t at)
{
	p->e->code[at].target = (uint32_t)p->e->ncode;
}

static int log2_exact(int64_t k)
{
	if (k <= 1 || (k & (k - 1)))
		return -1;
	return __builtin_ctzll((unsigned long long)k);
}

static int bin_ins(int op, bool konst)
{
	switch (op) {
#define X(name, expr) case O_##name: return konst ? I_##name##K : I_##name;
	SIMPLE_BINOPS(X)
#undef X
	case O_DIV: return konst ? I_DIVK : I_DIV;
	case O_MOD: return konst ? I_MODK : I_MOD;
	}
	return I_END;
}

/* The same comparison with its operands swapped. */
static int swapped(int op)
{
	switch (op) {
	case O_LT: return O_GT;
	case O_GT: return O_LT;
	case O_LE: return O_GE;
	case O_GE: return O_LE;
	case O_MUL: case O_ADD: case O_EQ: case O_NE: case O_AND: case O_XOR: case O_OR: return op;
	}
	return -1;
}

static void emit(parser *p, int n);

static void emit_bin(parser *p, node *x)
{
	int a = x->a, b = x->b, op = x->op, lg;
	int64_t k;

	/* a constant on the left of a commutative operator goes right, where
	 * the constant forms of the instructions take it */
	if (N(p, a)->kind == N_NUM && N(p, b)->kind != N_NUM && swapped(op) >= 0) {
		int t = a;
		a = b;
		b = t;
		op = swapped(op);
	}
	emit(p, a);
	if (N(p, b)->kind != N_NUM) {
		/* the stack grows once per level of the tree, so MAX_DEPTH bounds it */
		emit_ins(p, I_PUSH, 0, 0);
		emit(p, b);
		emit_ins(p, bin_ins(op, false), 0, 0);
		return;
	}
	k = N(p, b)->k;
	lg = log2_exact(k);
	if (op == O_DIV && lg > 0)
		emit_ins(p, I_DIVP2, 0, lg);
	else if (op == O_MOD && lg > 0)
		emit_ins(p, I_MODP2, 0, lg);
	else if (op == O_MUL && lg > 0)
		emit_ins(p, I_SHLK, 0, lg);
	else
		emit_ins(p, bin_ins(op, true), 0, k);
}

static void emit(parser *p, int n)
{
	node *x = N(p, n);
	uint32_t j1, j2;

	switch (x->kind) {
	case N_NUM:
		emit_ins(p, I_K, 0, x->k);
		break;
	case N_OPND:
		emit_ins(p, p->compared & ((uint64_t)1 << x->k) ? I_LD : I_LDS, (int)x->k, 0);
		p->e->uses |= 1u << x->k;
		break;
	case N_XOPND:
		emit_ins(p, p->compared & OP_BIT(x->k) ? I_LDX : I_LDXS, (int)x->k, 0);
		p->e->ops_used |= 1u << x->k;
		break;
	case N_MOBJ:
		emit_ins(p, p->compared & SUB_MASK(x->k) ? I_MOBJ : I_MOBJS, (int)x->k, 0);
		p->e->uses |= ds_expr_uses(p->e->subs[x->k]) | DS_USES_MOBJ;
		break;
	case N_STREQ:
		emit_ins(p, x->op == O_EQ ? I_STREQ : I_STRNE, x->a, x->k);
		p->e->ops_used |= 1u << x->a;
		break;
	case N_UN:
		emit(p, x->a);
		emit_ins(p, x->op == O_NEG ? I_NEG : x->op == O_BNOT ? I_BNOT : x->op == O_LNOT ? I_LNOT : I_BOOL,
			 0, 0);
		break;
	case N_BIN:
		if (x->op == O_LAND || x->op == O_LOR) {
			emit(p, x->a);
			j1 = emit_ins(p, x->op == O_LAND ? I_JZ : I_JNZ1, 0, 0);
			emit(p, x->b);
			emit_ins(p, I_BOOL, 0, 0);
			patch(p, j1);
		} else {
			emit_bin(p, x);
		}
		break;
	case N_COND:
		emit(p, x->a);
		j1 = emit_ins(p, I_JZ, 0, 0);
		emit(p, x->b);
		j2 = emit_ins(p, I_JMP, 0, 0);
		patch(p, j1);
		emit(p, x->c);
		patch(p, j2);
		break;
	case N_STROP:
	case N_STRLIT:
		break; /* refused by the parser */
	}
}

/* ---- addresses ---- */

static bool is_num(parser *p, int n, int64_t *k)
{
	if (N(p, n)->kind != N_NUM)
		return false;
	*k = N(p, n)->k;
	return true;
}

/* Whether node n is an address with low bits cleared (ds_expr_is_address). */
static bool address_shaped(parser *p, int n)
{
	node *x = N(p, n), *y;
	int64_t k;

	switch (x->kind) {
	case N_OPND:
		return x->k == DS_VADDR || x->k == DS_PADDR || x->k == DS_VIRTPC;
	case N_BIN:
		if (x->op == O_AND)
			return (address_shaped(p, x->a) && is_num(p, x->b, &k) && k < 0) ||
			       (address_shaped(p, x->b) && is_num(p, x->a, &k) && k < 0);
		if (x->op == O_MUL || x->op == O_SHL) {
			int inner = is_num(p, x->b, &k) ? x->a : x->op == O_MUL && is_num(p, x->a, &k) ? x->b : -1;
			if (inner < 0 || k <= 0)
				return false;
			y = N(p, inner);
			return y->kind == N_BIN && y->op == (x->op == O_MUL ? O_DIV : O_SHR) &&
			       address_shaped(p, y->a) && is_num(p, y->b, &k) && k > 0;
		}
		return false;
	case N_COND:
		return (address_shaped(p, x->b) && (address_shaped(p, x->c) || N(p, x->c)->kind == N_NUM)) ||
		       (address_shaped(p, x->c) && N(p, x->b)->kind == N_NUM);
	default:
		return false;
	}
}

/* ---- compiling ---- */

static int compile(parser *p, ds_expr **out)
{
	char buf[64];
	int root;

	*out = NULL;
	p->e = ds_xcalloc(1, sizeof *p->e);
	p->pos = p->text;
	next(p);
	root = parse_cond(p);
	if (root >= 0 && p->tok.kind != T_END)
		root = fail(p, p->tok.col, "unexpected %s", tok_text(p, buf, sizeof buf));
	if (root >= 0 && not_a_number(p, root))
		root = -1;
	if (p->failed) /* a token the parser stopped at may have failed to lex */
		root = -1;
	if (root >= 0) {
		emit(p, root);
		emit_ins(p, I_END, 0, 0);
		p->e->is_address = address_shaped(p, root);
	}
	free(p->tok.str);
	ds_vec_free(&p->nodes);
	if (root < 0) {
		ds_expr_free(p->e);
		return -1;
	}
	*out = p->e;
	return 0;
}

int ds_expr_compile(const char *name, const char *text, const ds_machine *m, ds_expr **out,
		    ds_err *err)
{
	char *label = ds_xasprintf("mobj '%s'", name);
	parser p = {.label = label, .text = text, .m = m, .err = err};
	int rc = compile(&p, out);
	free(label);
	return rc;
}

int ds_filter_compile(const char *text, const ds_machine *m, const ds_mobjs *objs,
		      const ds_filter_operand *ops, size_t nops, ds_expr **out, ds_err *err)
{
	parser p = {.label = "filter", .text = text, .m = m, .filter = true, .objs = objs,
		    .ops = ops, .nops = nops < DS_MAX_FILTER_OPERANDS ? nops : DS_MAX_FILTER_OPERANDS, .err = err};
	return compile(&p, out);
}
