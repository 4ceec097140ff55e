/*
 * Backtracking from a sampled IP to its trigger.
 *
 * A function is decoded once, from its symbol's start to its end: the
 * instruction boundaries, and every address control can arrive at other
 * than by falling through (direct branch and call targets, jump-table
 * entries).  Walking back from the IP then only needs the previous
 * instruction of each boundary and whether it is such a target.
 */
#include "backtrack/backtrack.h"

#include <stdlib.h>
#include <string.h>

/* Instructions walked back at most: beyond a few the trigger is doubtful,
 * and blocks are short. */
#define MAX_WALK 24
/* Functions larger than this are not decoded (generated code, data). */
#define MAX_FUNCTION (4u << 20)
/* Jump-table entries read per table at most. */
#define MAX_TABLE 4096

typedef struct fn_insn {
	uint64_t addr;
	ds_insn insn;
} fn_insn;

/* One decoded function. */
typedef struct fn {
	ds_dso *dso;
	uint64_t start, end;
	bool bad;                /* did not decode cleanly */
	bool indirect;           /* indirect jumps whose targets are unknown */
	bool entry_jumped;       /* a jump of the function's own goes to its first instruction */
	DS_VEC(ds_insn) insns;   /* in address order */
	ds_hash *targets;        /* addresses control may jump to */
} fn;

struct ds_backtracker {
	const ds_arch *arch;
	ds_decoder *dec;
	ds_hash *fn_index;       /* (dso, start) -> fn */
	DS_VEC(fn *) fns;
};

static const char *const verdict_names[DS_BT_NVERDICTS] = {
	[DS_BT_OK] = "ok",
	[DS_BT_BRANCH_TARGET] = "crossed-branch-target",
	[DS_BT_CALL] = "after-call",
	[DS_BT_JUMP] = "after-jump",
	[DS_BT_INDIRECT] = "indirect-jumps",
	[DS_BT_NOT_FOUND] = "trigger-not-found",
	[DS_BT_NOT_MEMORY] = "not-memory",
	[DS_BT_NO_CODE] = "no-code",
	[DS_BT_NO_FUNCTION] = "no-function",
	[DS_BT_BAD_DECODE] = "bad-decode",
	[DS_BT_NO_MEMORY] = "no-memory-access",
};

const char *ds_bt_verdict_name(enum ds_bt_verdict v)
{
	return v < DS_BT_NVERDICTS ? verdict_names[v] : "unknown";
}

ds_backtracker *ds_backtracker_new(const ds_arch *a, ds_err *err)
{
	ds_backtracker *b = ds_xcalloc(1, sizeof *b);
	b->arch = a;
	b->dec = ds_decoder_new(a, err);
	if (!b->dec) {
		free(b);
		return NULL;
	}
	b->fn_index = ds_hash_new();
	return b;
}

void ds_backtracker_free(ds_backtracker *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->fns.n; i++) {
		ds_vec_free(&b->fns.v[i]->insns);
		ds_hash_free(b->fns.v[i]->targets);
		free(b->fns.v[i]);
	}
	ds_vec_free(&b->fns);
	ds_hash_free(b->fn_index);
	ds_decoder_free(b->dec);
	free(b);
}

ds_decoder *ds_backtracker_decoder(ds_backtracker *b)
{
	return b->dec;
}

static void add_target(fn *f, uint64_t a)
{
	if (a >= f->start && a < f->end)
		ds_hash_intern(f->targets, &a, sizeof a, NULL);
}

static bool is_target(const fn *f, uint64_t a)
{
	return ds_hash_find(f->targets, &a, sizeof a) >= 0;
}

/* Entries of a jump table at `table`: `rel` tables hold 32-bit offsets
 * from the table (position-independent code), others 64-bit addresses.
 * Reading stops at the first entry that points outside the function. */
static bool read_table(fn *f, uint64_t table, bool rel)
{
	size_t avail, n = 0;
	const uint8_t *p = ds_dso_bytes_at(f->dso, table, &avail);
	size_t esz = rel ? 4 : 8;

	for (size_t i = 0; p && i + esz <= avail && i / esz < MAX_TABLE; i += esz) {
		uint64_t target;
		if (rel) {
			int32_t e;
			memcpy(&e, p + i, 4);
			target = table + (uint64_t)(int64_t)e;
		} else {
			memcpy(&target, p + i, 8);
		}
		if (target < f->start || target >= f->end)
			break;
		add_target(f, target);
		n++;
	}
	return n > 0;
}

/* An indirect jump is a jump table when the jump reads `[table + r * 8]`
 * (absolute entries) or the code computes the table's address with
 * `lea r, [rip + table]` (32-bit relative entries, as GCC and Clang emit
 * for position-independent code): just before the jump, or anywhere in
 * the function when the entry is loaded as `[base + i * 4]` from a base
 * register the compiler set up once, outside a loop.  Any other indirect
 * jump is a tail call through a function pointer (`jmp [rip + slot]`,
 * `mov rax, [rdi + 8]; jmp rax`, SQLite's `jmp` to pPage->xParseCell)
 * or through an array of them (`[r * 8]`), and leaves the function;
 * unless the jump follows a 32-bit entry (`[base + i * 4]`: a relative
 * table dsprof could not find) or the function takes the address of its
 * own code (computed goto): then it might land anywhere in the function,
 * whose blocks are unknown. */
static void resolve_indirect(fn *f, size_t k, bool own_labels)
{
	const ds_insn *j = &f->insns.v[k];
	int base = DS_REG_NONE;
	bool rel_entry = false;

	if (j->nmem && j->mem[0].base == DS_REG_NONE && !j->mem[0].rip_relative &&
	    j->mem[0].index != DS_REG_NONE && j->mem[0].scale == 8 &&
	    read_table(f, (uint64_t)j->mem[0].disp, false))
		return;
	for (size_t i = k; i-- > 0 && k - i <= 12;) {
		const ds_insn *l = &f->insns.v[i];
		if (l->flow != DS_FLOW_NEXT && l->flow != DS_FLOW_COND)
			break;
		if (l->move == DS_MOVE_LEA && l->nmem && l->mem[0].rip_relative &&
		    read_table(f, l->addr + l->len + (uint64_t)l->mem[0].disp, true))
			return;
		if (l->nmem && !l->mem[0].address_only && l->mem[0].scale == 4 &&
		    l->mem[0].index != DS_REG_NONE && !l->mem[0].rip_relative) {
			rel_entry = true;
			if (base == DS_REG_NONE)
				base = l->mem[0].base;
		}
	}
	for (size_t i = 0; base != DS_REG_NONE && i < f->insns.n; i++) {
		const ds_insn *l = &f->insns.v[i];
		if (l->move == DS_MOVE_LEA && l->dst == base && l->nmem && l->mem[0].rip_relative &&
		    read_table(f, l->addr + l->len + (uint64_t)l->mem[0].disp, true))
			return;
	}
	if (rel_entry || own_labels)
		f->indirect = true;
}

/* Whether f computes the address of an instruction of its own (`lea r,
 * [rip + label]` into f, past its entry): a computed goto's labels. */
static bool takes_own_address(const fn *f)
{
	for (size_t k = 0; k < f->insns.n; k++) {
		const ds_insn *l = &f->insns.v[k];
		uint64_t a;
		if (l->move != DS_MOVE_LEA || !l->nmem || !l->mem[0].rip_relative)
			continue;
		a = l->addr + l->len + (uint64_t)l->mem[0].disp;
		if (a > f->start && a < f->end)
			return true;
	}
	return false;
}

static fn *decode_function(ds_backtracker *b, ds_dso *d, uint64_t start, uint64_t end)
{
	fn *f = ds_xcalloc(1, sizeof *f);
	size_t avail;
	const uint8_t *code = ds_dso_code_at(d, start, &avail);
	uint64_t a = start;
	bool own_labels;

	f->dso = d;
	f->start = start;
	f->end = end;
	f->targets = ds_hash_new();
	if (!code || end - start > avail || end - start > MAX_FUNCTION) {
		f->bad = true;
		return f;
	}
	while (a < end) {
		ds_insn in;
		if (!ds_decode(b->dec, code + (a - start), end - a, a, &in)) {
			f->bad = true; /* data in the code, or padding that does not decode */
			break;
		}
		ds_vec_push(&f->insns, in);
		a += in.len;
	}
	own_labels = takes_own_address(f);
	for (size_t k = 0; k < f->insns.n; k++) {
		const ds_insn *in = &f->insns.v[k];
		if (in->flow == DS_FLOW_JUMP || in->flow == DS_FLOW_COND || in->flow == DS_FLOW_CALL)
			add_target(f, in->target); /* calls: recursive or local helpers */
		if ((in->flow == DS_FLOW_JUMP || in->flow == DS_FLOW_COND) && in->target == start)
			f->entry_jumped = true;
		else if (in->flow == DS_FLOW_INDIRECT_JUMP)
			resolve_indirect(f, k, own_labels);
	}
	return f;
}

static fn *function_of(ds_backtracker *b, ds_dso *d, uint64_t start, uint64_t end)
{
	struct {
		const void *dso;
		uint64_t start;
	} key = {d, start};
	bool added;
	size_t i = ds_hash_intern(b->fn_index, &key, sizeof key, &added);
	if (added)
		ds_vec_push(&b->fns, decode_function(b, d, start, end));
	return b->fns.v[i];
}

/* Index of the instruction at address a, or -1 when a is no boundary. */
static int64_t insn_at(const fn *f, uint64_t a)
{
	size_t lo = 0, hi = f->insns.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->insns.v[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->insns.n && f->insns.v[lo].addr == a ? (int64_t)lo : -1;
}

/* Whether an instruction reads or writes memory (an lea computes an
 * address and touches none). */
static bool accesses_memory(const ds_insn *in)
{
	return in->nmem && !in->mem[0].address_only;
}

static void set_trigger(ds_trigger *out, const ds_insn *in)
{
	out->verdict = DS_BT_OK;
	out->pc = in->addr;
	out->len = in->len;
	out->mem = in->mem[0];
	if (in->nmem > 1 && !in->mem[1].address_only)
		out->mem2 = in->mem[1];
}

/* Whether the block around instruction k, from k to the block's end (its
 * part before k was walked back without finding one), accesses memory.
 * A block longer than the walk limit is taken to. */
static bool block_accesses_memory(const fn *f, int64_t k)
{
	for (uint32_t steps = 0; steps < MAX_WALK && (size_t)k < f->insns.n; steps++, k++) {
		const ds_insn *in = &f->insns.v[k];
		if (steps && is_target(f, in->addr))
			return false; /* the next block begins */
		if (accesses_memory(in))
			return true;
		if (in->flow != DS_FLOW_NEXT)
			return false; /* the block ends with it */
	}
	return true;
}

/* A stop at a branch target, or at an entry a jump comes back to: when the
 * whole block accesses no memory, the time was spent computing there. */
static enum ds_bt_verdict at_target(const fn *f, int64_t ip_k)
{
	return block_accesses_memory(f, ip_k) ? DS_BT_BRANCH_TARGET : DS_BT_NO_MEMORY;
}

/* Whether in adds a constant to a whole register, and which and how much:
 * add/sub with an immediate, lea of the register itself plus a
 * displacement.  A 32-bit operation clears the upper half: no. */
static bool steps_register(const ds_insn *in, int *reg, int64_t *delta)
{
	const ds_memop *m = &in->mem[0];

	if (in->dst == DS_REG_NONE || in->move_size != 8 || in->regs_written != (1ull << in->dst))
		return false;
	*reg = in->dst;
	if (in->move == DS_MOVE_ADD_IMM) {
		*delta = in->imm;
		return true;
	}
	if (in->move == DS_MOVE_LEA && in->nmem && m->base == in->dst && m->index == DS_REG_NONE &&
	    !m->rip_relative && !m->segment) {
		*delta = m->disp;
		return true;
	}
	return false;
}

/* The trigger's registers that were only stepped since it ran. */
static void keep_steps(ds_trigger *out, uint64_t stepped, const int64_t *delta)
{
	const int regs[] = {out->mem.base, out->mem.index, out->mem2.base, out->mem2.index};

	out->nstepped = 0;
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		int r = regs[i];
		bool dup = false;
		if (r == DS_REG_NONE || r < 0 || r >= 64 || !(stepped & (1ull << r)))
			continue;
		for (uint32_t j = 0; j < out->nstepped; j++)
			dup |= out->stepped[j].reg == r;
		if (dup)
			continue;
		out->stepped[out->nstepped].reg = r;
		out->stepped[out->nstepped++].delta = delta[r];
	}
}

/* The instruction that accessed memory at or before ip, in the same block. */
static void walk_back(const fn *f, int64_t k, ds_trigger *out)
{
	const int64_t ip_k = k;
	uint64_t clobbered = 0, stepped = 0;
	int64_t delta[64] = {0};

	for (uint32_t steps = 0; steps < MAX_WALK; steps++) {
		const ds_insn *prev;
		/* the function's entry: what ran before it is the caller's call
		 * (or tail jump), unless a jump of the function's own comes back */
		if (k == 0) {
			out->verdict = f->entry_jumped ? at_target(f, ip_k) : DS_BT_CALL;
			return;
		}
		/* control may have reached this instruction from elsewhere: what
		 * ran before it is unknown */
		if (is_target(f, f->insns.v[k].addr)) {
			out->verdict = at_target(f, ip_k);
			return;
		}
		if (f->indirect) {
			out->verdict = DS_BT_INDIRECT;
			return;
		}
		prev = &f->insns.v[--k];
		switch (prev->flow) {
		case DS_FLOW_CALL:
		case DS_FLOW_INDIRECT_CALL:
		case DS_FLOW_SYSCALL: /* the time was the kernel's, not the load's before it */
			out->verdict = DS_BT_CALL;
			return;
		case DS_FLOW_JUMP:
		case DS_FLOW_INDIRECT_JUMP:
		case DS_FLOW_RET:
		case DS_FLOW_STOP:
			out->verdict = DS_BT_JUMP;
			return;
		default:
			break;
		}
		out->distance = steps + 1;
		if (accesses_memory(prev)) {
			set_trigger(out, prev);
			out->clobbered = clobbered | prev->regs_written;
			keep_steps(out, stepped & ~out->clobbered, delta);
			return;
		}
		{
			int r;
			int64_t d;
			if (steps_register(prev, &r, &d) && r < 64 && !(clobbered & (1ull << r))) {
				stepped |= 1ull << r;
				delta[r] += d;
			} else {
				clobbered |= prev->regs_written;
			}
		}
	}
	out->verdict = DS_BT_NOT_FOUND;
}

void ds_backtrack(ds_backtracker *b, ds_dso *d, uint64_t ip, bool precise, ds_trigger *out)
{
	const ds_symbol *sym;
	uint64_t start, end;
	size_t avail;
	fn *f;
	int64_t k;

	memset(out, 0, sizeof *out);
	if (!d || !ds_dso_code_at(d, ip, &avail)) {
		out->verdict = DS_BT_NO_CODE;
		return;
	}
	if (precise) {
		/* the trigger is the IP itself: decode just that instruction */
		ds_insn in;
		const uint8_t *code = ds_dso_code_at(d, ip, &avail);
		if (!ds_decode(b->dec, code, avail, ip, &in)) {
			out->verdict = DS_BT_BAD_DECODE;
		} else if (!accesses_memory(&in)) {
			out->verdict = DS_BT_NOT_MEMORY;
		} else {
			/* registers were sampled at the access (a fault stops before
			 * the instruction runs); such events give the address anyway */
			set_trigger(out, &in);
		}
		return;
	}
	/* the function's bounds: its symbol, else (a stripped library's static
	 * functions) the FDE that unwinds it */
	sym = ds_dso_symbol_at(d, ip);
	if (sym && sym->size) {
		start = sym->start;
		end = sym->start + sym->size;
	} else if (!ds_dso_fde_range(d, ip, &start, &end)) {
		out->verdict = DS_BT_NO_FUNCTION;
		return;
	}
	f = function_of(b, d, start, end);
	k = insn_at(f, ip);
	if (f->bad || k < 0) {
		out->verdict = DS_BT_BAD_DECODE;
		return;
	}
	walk_back(f, k, out);
}

/* Value of DWARF register r in a sample's user registers. */
static bool reg_value(const ds_arch *a, const ds_sample *s, int r, uint64_t *v)
{
	return ds_arch_sampled_reg(a, s->regs_mask, s->regs, r, v);
}

enum ds_ea_status ds_trigger_ea(const ds_arch *a, const ds_trigger *t, const ds_sample *s,
				uint64_t ip_vaddr, uint64_t *ea)
{
	const ds_memop *m = &t->mem;
	uint64_t base = 0, index = 0;

	if (t->verdict != DS_BT_OK)
		return DS_EA_NO_TRIGGER;
	if (m->segment)
		return DS_EA_SEGMENT;
	if (m->rip_relative || (m->base == DS_REG_NONE && m->index == DS_REG_NONE)) {
		/* relocate the object's address by the sample's own */
		uint64_t end = m->rip_relative ? s->ip - (ip_vaddr - t->pc) + t->len : 0;
		*ea = end + (uint64_t)m->disp;
		return DS_EA_STATIC;
	}
	if ((m->base != DS_REG_NONE && (t->clobbered & (1ull << m->base))) ||
	    (m->index != DS_REG_NONE && (t->clobbered & (1ull << m->index))))
		return DS_EA_REGS_CHANGED;
	if ((m->base != DS_REG_NONE && !reg_value(a, s, m->base, &base)) ||
	    (m->index != DS_REG_NONE && !reg_value(a, s, m->index, &index)))
		return DS_EA_NO_REGS;
	for (uint32_t i = 0; i < t->nstepped; i++) {
		if (t->stepped[i].reg == m->base)
			base -= (uint64_t)t->stepped[i].delta;
		if (t->stepped[i].reg == m->index)
			index -= (uint64_t)t->stepped[i].delta;
	}
	*ea = base + index * (uint64_t)m->scale + (uint64_t)m->disp;
	return DS_EA_OK;
}
