/*
 * One frame up: the caller's registers from a frame's, by the row of the
 * call-frame table at the frame's address (cfi.c).
 *
 * The CFA is a register plus an offset or a DWARF expression; each
 * register's rule says where the caller's value is: at CFA + N, CFA + N
 * itself, another register, at or equal to an expression's result, or
 * nowhere (undefined: for the return address, the thread's first frame).
 * Expressions appear in hand-written and linker-made code: PLT entries
 * compute the CFA from the instruction pointer, signal trampolines read
 * every register from the saved context, realigned stacks take the CFA
 * from a saved slot.  The evaluator below is DWARF 5, 2.5.1, over the
 * operations a CFI expression may use; it reads memory only through the
 * caller's reader, which knows how much of the stack was copied.
 *
 * All registers are read from the frame as it was before the step, so a
 * rule that names another register sees that register's value in the
 * frame being unwound, as the DWARF table means it.  A register saved in
 * memory stays an address until a rule needs its value: most saved
 * registers never are, and a frame is then one read of the stack, its
 * return address.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <dwarf.h>

/* CFI expressions are a few operations long; the cap bounds a hostile
 * one that loops through DW_OP_skip/bra. */
#define MAX_EXPR_OPS 1024
#define EXPR_STACK 64

typedef struct expr {
	const ds_unwind_env *env;
	ds_uregs *regs;
	uint64_t st[EXPR_STACK];
	size_t n;
	int rc; /* DS_UNWIND_OK until an operation fails */
} expr;

static void push(expr *x, uint64_t v)
{
	if (x->n == EXPR_STACK)
		x->rc = DS_UNWIND_BAD_CFI;
	else
		x->st[x->n++] = v;
}

static uint64_t pop(expr *x)
{
	if (x->n == 0) {
		x->rc = DS_UNWIND_BAD_CFI;
		return 0;
	}
	return x->st[--x->n];
}

bool ds_uregs_get(ds_uregs *regs, int reg, const ds_unwind_env *env, uint64_t *v)
{
	uint64_t bit;

	if (reg < 0 || reg >= DS_UNWIND_NREGS || !(regs->known & (bit = 1ull << reg)))
		return false;
	if (regs->deferred & bit) {
		if (!env->read(env->ctx, regs->v[reg], &regs->v[reg]))
			return false;
		regs->deferred &= ~bit;
	}
	*v = regs->v[reg];
	return true;
}

static uint64_t reg_value(expr *x, uint64_t reg)
{
	uint64_t v;

	if (reg >= DS_UNWIND_NREGS || !(x->regs->known & (1ull << reg))) {
		x->rc = DS_UNWIND_BAD_CFI;
		return 0;
	}
	if (!ds_uregs_get(x->regs, (int)reg, x->env, &v)) {
		x->rc = DS_UNWIND_NO_MEMORY;
		return 0;
	}
	return v;
}

static uint64_t deref(expr *x, uint64_t addr, unsigned size)
{
	uint64_t v;

	if (x->rc)
		return 0;
	if (!x->env->read(x->env->ctx, addr, &v)) {
		x->rc = DS_UNWIND_NO_MEMORY;
		return 0;
	}
	if (size < 8)
		v &= (1ull << (8 * size)) - 1;
	return v;
}

/* The binary operations, with b the top of the stack and a below it. */
static bool binary(expr *x, uint8_t op)
{
	uint64_t b, a;

	switch (op) {
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
	case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
	case DW_OP_lt: case DW_OP_ne:
		break;
	default:
		return false;
	}
	b = pop(x);
	a = pop(x);
	switch (op) {
	case DW_OP_and: push(x, a & b); break;
	case DW_OP_div:
		if (b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
			x->rc = DS_UNWIND_BAD_CFI;
		else
			push(x, (uint64_t)((int64_t)a / (int64_t)b));
		break;
	case DW_OP_minus: push(x, a - b); break;
	case DW_OP_mod:
		if (b == 0)
			x->rc = DS_UNWIND_BAD_CFI;
		else
			push(x, a % b);
		break;
	case DW_OP_mul: push(x, a * b); break;
	case DW_OP_or: push(x, a | b); break;
	case DW_OP_plus: push(x, a + b); break;
	case DW_OP_shl: push(x, b >= 64 ? 0 : a << b); break;
	case DW_OP_shr: push(x, b >= 64 ? 0 : a >> b); break;
	case DW_OP_shra: push(x, (uint64_t)((int64_t)a >> (b >= 64 ? 63 : b))); break;
	case DW_OP_xor: push(x, a ^ b); break;
	case DW_OP_eq: push(x, a == b); break;
	case DW_OP_ge: push(x, (int64_t)a >= (int64_t)b); break;
	case DW_OP_gt: push(x, (int64_t)a > (int64_t)b); break;
	case DW_OP_le: push(x, (int64_t)a <= (int64_t)b); break;
	case DW_OP_lt: push(x, (int64_t)a < (int64_t)b); break;
	case DW_OP_ne: push(x, a != b); break;
	}
	return true;
}

/* A branch by a signed 2-byte offset from the end of the operation; one
 * that leaves the expression is malformed (DWARF 5, 2.5.1.5). */
static void branch(expr *x, ds_rd *r, const uint8_t *start, bool taken)
{
	int16_t off = (int16_t)ds_rd_uint(r, 2);
	const uint8_t *to = r->p + off;

	if (!taken || r->bad)
		return;
	if (to < start || to > r->end)
		x->rc = DS_UNWIND_BAD_CFI;
	else
		r->p = to;
}

static void operation(expr *x, ds_rd *r, const uint8_t *start, const ds_frame *fr)
{
	uint8_t op = (uint8_t)ds_rd_uint(r, 1);
	uint64_t a, b, c;

	if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
		push(x, op - DW_OP_lit0);
		return;
	}
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
		int64_t off = ds_rd_sleb(r);
		push(x, reg_value(x, op - DW_OP_breg0) + (uint64_t)off);
		return;
	}
	if (binary(x, op))
		return;
	switch (op) {
	case DW_OP_addr:
		push(x, ds_rd_uint(r, fr->addr_size) + x->env->bias);
		break;
	case DW_OP_const1u: push(x, ds_rd_uint(r, 1)); break;
	case DW_OP_const1s: push(x, (uint64_t)(int64_t)(int8_t)ds_rd_uint(r, 1)); break;
	case DW_OP_const2u: push(x, ds_rd_uint(r, 2)); break;
	case DW_OP_const2s: push(x, (uint64_t)(int64_t)(int16_t)ds_rd_uint(r, 2)); break;
	case DW_OP_const4u: push(x, ds_rd_uint(r, 4)); break;
	case DW_OP_const4s: push(x, (uint64_t)(int64_t)(int32_t)ds_rd_uint(r, 4)); break;
	case DW_OP_const8u:
	case DW_OP_const8s: push(x, ds_rd_uint(r, 8)); break;
	case DW_OP_constu: push(x, ds_rd_uleb(r)); break;
	case DW_OP_consts: push(x, (uint64_t)ds_rd_sleb(r)); break;
	case DW_OP_bregx:
		a = ds_rd_uleb(r);
		push(x, reg_value(x, a) + (uint64_t)ds_rd_sleb(r));
		break;
	case DW_OP_dup:
		a = pop(x);
		push(x, a);
		push(x, a);
		break;
	case DW_OP_drop: pop(x); break;
	case DW_OP_over:
		b = pop(x);
		a = pop(x);
		push(x, a);
		push(x, b);
		push(x, a);
		break;
	case DW_OP_pick:
		a = ds_rd_uint(r, 1);
		if (a >= x->n)
			x->rc = DS_UNWIND_BAD_CFI;
		else
			push(x, x->st[x->n - 1 - a]);
		break;
	case DW_OP_swap:
		b = pop(x);
		a = pop(x);
		push(x, b);
		push(x, a);
		break;
	case DW_OP_rot:
		c = pop(x);
		b = pop(x);
		a = pop(x);
		push(x, c);
		push(x, a);
		push(x, b);
		break;
	case DW_OP_deref: push(x, deref(x, pop(x), 8)); break;
	case DW_OP_deref_size:
		a = ds_rd_uint(r, 1);
		b = pop(x);
		if (a == 0 || a > 8)
			x->rc = DS_UNWIND_BAD_CFI;
		else
			push(x, deref(x, b, (unsigned)a));
		break;
	case DW_OP_abs:
		a = pop(x);
		push(x, (int64_t)a < 0 ? -a : a);
		break;
	case DW_OP_neg: push(x, -pop(x)); break;
	case DW_OP_not: push(x, ~pop(x)); break;
	case DW_OP_plus_uconst: push(x, pop(x) + ds_rd_uleb(r)); break;
	case DW_OP_skip: branch(x, r, start, true); break;
	case DW_OP_bra: branch(x, r, start, pop(x) != 0); break;
	case DW_OP_nop: break;
	default: /* a register location, a call, a typed operation: not a value a CFI rule may compute */
		x->rc = DS_UNWIND_BAD_CFI;
	}
}

/* The value of an expression of the row fr, with `initial` pushed first
 * when has_initial (the CFA, for a register's rule). */
static int evaluate(const ds_frame *fr, const uint8_t *p, uint32_t len, const ds_unwind_env *env,
		    ds_uregs *regs, bool has_initial, uint64_t initial, uint64_t *out)
{
	expr x = {.env = env, .regs = regs};
	ds_rd r = {p, p + len, fr->msb, false};
	unsigned ops = 0;

	if (has_initial)
		push(&x, initial);
	while (x.rc == DS_UNWIND_OK && r.p < r.end) {
		if (++ops > MAX_EXPR_OPS) {
			x.rc = DS_UNWIND_BAD_CFI;
			break;
		}
		operation(&x, &r, p, fr);
		if (r.bad)
			x.rc = DS_UNWIND_BAD_CFI;
	}
	if (x.rc == DS_UNWIND_OK)
		*out = pop(&x);
	return x.rc;
}

static int cfa_of(const ds_frame *fr, const ds_unwind_env *env, ds_uregs *regs, uint64_t *cfa)
{
	uint64_t v;

	if (fr->cfa == DS_CFA_EXPR)
		return evaluate(fr, fr->cfa_expr, fr->cfa_len, env, regs, false, 0, cfa);
	if (fr->cfa_reg < 0 || fr->cfa_reg >= DS_UNWIND_NREGS || !(regs->known & (1ull << fr->cfa_reg)))
		return DS_UNWIND_BAD_CFI;
	if (!ds_uregs_get(regs, fr->cfa_reg, env, &v))
		return DS_UNWIND_NO_MEMORY;
	*cfa = v + (uint64_t)fr->cfa_off;
	return DS_UNWIND_OK;
}

/* Register r of the caller, by its rule, into *v: its value, or where in
 * memory it is (*in_memory: read when a rule needs it).  DS_UNWIND_OUTERMOST:
 * undefined in the caller. */
static int recover(const ds_frame *fr, int r, uint64_t cfa, const ds_unwind_env *env, ds_uregs *regs,
		   uint64_t *v, bool *in_memory)
{
	const ds_frame_rule *ru = &fr->reg[r];

	*in_memory = false;
	switch (ru->kind) {
	case DS_RULE_UNDEF:
		return DS_UNWIND_OUTERMOST;
	case DS_RULE_OFFSET:
		*v = cfa + (uint64_t)ru->n;
		*in_memory = true;
		return DS_UNWIND_OK;
	case DS_RULE_VAL_OFFSET:
		*v = cfa + (uint64_t)ru->n;
		return DS_UNWIND_OK;
	case DS_RULE_REG:
		if (ru->n < 0 || ru->n >= DS_UNWIND_NREGS || !(regs->known & (1ull << ru->n)))
			return DS_UNWIND_BAD_CFI;
		*v = regs->v[ru->n];
		*in_memory = (regs->deferred >> ru->n) & 1;
		return DS_UNWIND_OK;
	case DS_RULE_EXPR:
		*in_memory = true;
		return evaluate(fr, ru->expr, ru->len, env, regs, true, cfa, v);
	case DS_RULE_VAL_EXPR:
		return evaluate(fr, ru->expr, ru->len, env, regs, true, cfa, v);
	default:
		return DS_UNWIND_BAD_CFI;
	}
}

int ds_dso_unwind_step(ds_dso *d, uint64_t vaddr, const ds_unwind_env *env, ds_uregs *regs,
		       uint64_t *ra, bool *exact)
{
	/* valid until the next query, and this step makes no other */
	const ds_frame *fr = ds_dso_frame_at(d, vaddr);
	uint64_t cfa, start, end, v[DS_UNWIND_NREGS], set = 0, unset = 0, mem = 0, rbit;
	int rc;

	if (!fr) /* an FDE that covers vaddr but cannot be read is bad CFI */
		return d->kallsyms || !ds_dso_fde_range(d, vaddr, &start, &end) ? DS_UNWIND_NO_CFI
									   : DS_UNWIND_BAD_CFI;
	if (fr->ra_reg < 0 || fr->ra_reg >= DS_UNWIND_NREGS)
		return DS_UNWIND_BAD_CFI;
	if (fr->reg[fr->ra_reg].kind == DS_RULE_UNDEF)
		return DS_UNWIND_OUTERMOST;
	if ((rc = cfa_of(fr, env, regs, &cfa)) != DS_UNWIND_OK)
		return rc;
	/* The caller's registers are gathered in v (set, unset, mem) and only
	 * then replace the frame's, which every rule reads.  A register that
	 * cannot be recovered is unknown in the caller, which matters only if
	 * a rule further up needs it: an epilogue's rules still place
	 * registers in slots below the stack pointer, outside any copy of the
	 * stack.  The return address must be recovered.  The registers
	 * without a rule keep their values. */
	for (uint64_t m = fr->ruled; m; m &= m - 1) {
		int r = __builtin_ctzll(m);
		bool in_memory;
		if (r >= DS_UNWIND_NREGS)
			continue;
		rc = recover(fr, r, cfa, env, regs, &v[r], &in_memory);
		if (rc == DS_UNWIND_OK) {
			set |= 1ull << r;
			mem |= (uint64_t)in_memory << r;
			continue;
		}
		if (r == fr->ra_reg && rc != DS_UNWIND_OUTERMOST)
			return rc;
		unset |= 1ull << r;
	}
	/* The CFA is by definition the caller's stack pointer, unless a rule
	 * says otherwise (a signal trampoline restores it from the context). */
	if (env->sp_reg >= 0 && env->sp_reg < DS_UNWIND_NREGS && fr->reg[env->sp_reg].kind == DS_RULE_SAME) {
		v[env->sp_reg] = cfa;
		set |= 1ull << env->sp_reg;
		unset &= ~(1ull << env->sp_reg);
		mem &= ~(1ull << env->sp_reg);
	}
	rbit = 1ull << fr->ra_reg;
	if (!(set & rbit) && (unset & rbit || !(regs->known & rbit)))
		return DS_UNWIND_BAD_CFI;
	if (env->has_ra) {
		v[fr->ra_reg] = env->ra;
		set |= rbit;
		mem &= ~rbit;
	} else if (!(set & rbit)) { /* no rule: the frame's own */
		v[fr->ra_reg] = regs->v[fr->ra_reg];
		set |= rbit;
		mem |= regs->deferred & rbit;
	}
	/* the return address and the stack pointer are read before anything
	 * changes: a frame whose copy ends there leaves regs as they were */
	if (mem & rbit) {
		if (!env->read(env->ctx, v[fr->ra_reg], &v[fr->ra_reg]))
			return DS_UNWIND_NO_MEMORY;
		mem &= ~rbit;
	}
	if (env->sp_reg >= 0 && env->sp_reg < DS_UNWIND_NREGS) {
		uint64_t sbit = 1ull << env->sp_reg;
		if (set & sbit) {
			if ((mem & sbit) && !env->read(env->ctx, v[env->sp_reg], &v[env->sp_reg]))
				return DS_UNWIND_NO_MEMORY;
			mem &= ~sbit;
		} else if (unset & sbit || !(regs->known & sbit) ||
			   ((regs->deferred & sbit) && !ds_uregs_get(regs, env->sp_reg, env, &cfa))) {
			return DS_UNWIND_NO_MEMORY;
		}
	}
	*ra = v[fr->ra_reg];
	for (uint64_t m = set; m; m &= m - 1)
		regs->v[__builtin_ctzll(m)] = v[__builtin_ctzll(m)];
	regs->known = (regs->known | set) & ~unset;
	regs->deferred = ((regs->deferred & ~(set | unset)) | mem);
	*exact = fr->signal;
	return DS_UNWIND_OK;
}
