/*
 * Type tracking: what each register points into at an instruction of a
 * function, from its code and its variables' locations (the dataspace's
 * step 4, and the arguments of a call to a string function).
 *
 * A forward data flow over the function's control-flow graph, once per
 * function.  At the start of a block a register keeps what the
 * predecessors that know where it points agree on (tval_meet: a pointer
 * stepping along an array agrees modulo its element; a disagreement is a
 * clash, no target); a call clobbers the caller-saved registers; a
 * conditional move joins two values as a branch does;
 * loads of pointer members (p->a->b), array elements, and stack spills and
 * reloads carry types on; where the debug information places a pointer
 * variable in a register, it wins, the innermost scope's over an outer
 * one's (an inlined callee's typed parameter over its caller's opaque
 * pointer in the same register).
 *
 * A value whose type is not known yet (a call's result, a load of an
 * untyped word) is named by the instruction that made it.  When one of its
 * copies is stored into a typed pointer member, or the debug information
 * names a register holding it, every copy takes that type: SQLite's
 * balance_nonroot spills `sqlite3Malloc`'s result before storing it into
 * `b.apCell` and indexes the spilled copy.  A query starts from the entry
 * state of the instruction's block and steps to it.
 */
#include "analyze/analyze_int.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* Functions longer than this many instructions are not tracked. */
#define MAX_TRACK 20000
/* Data-flow passes over a function: the lattice is shallow (nothing
 * known, a target, a clash), so loops settle in a few; the bound guards. */
#define MAX_PASSES 16

typedef struct slotv {
	int64_t key;  /* a register, or a spill slot: offset * 64 + base */
	ds_tval v;
} slotv;

typedef DS_VEC(slotv) slotvec;

typedef struct tstate {
	ds_tval reg[64];
	slotvec slots;
} tstate;

struct ds_track {
	ds_dso *d;
	const ds_symbol *sym;
	int sp, fp;
	tstate st;
	ds_var vars[DS_MAX_SCOPE_VARS]; /* in scope at the current instruction */
	size_t nvars;
};

/* A basic block and the state at its start, kept compact: the registers
 * and slots that point somewhere. */
typedef struct block {
	uint64_t start;
	uint32_t first, n;  /* its instructions, during the analysis */
	slotvec in_regs, in_slots;
	bool reached;
	bool padding;       /* nothing but alignment nops */
} block;

typedef DS_VEC(ds_insn) insnvec;

typedef struct flow {
	DS_VEC(block) blocks;
} flow;

struct ds_flows {
	ds_hash *index;  /* (dso, function start) -> flow */
	DS_VEC(flow *) v;
};

/* ---- types ---- */

bool ds_is_aggregate(const ds_type *t)
{
	return t && (t->kind == DS_TYPE_STRUCT || t->kind == DS_TYPE_UNION || t->kind == DS_TYPE_CLASS);
}

const ds_type *ds_pointee(const ds_type *t)
{
	t = ds_type_strip(t);
	return t && t->kind == DS_TYPE_POINTER ? t->target : NULL;
}

const ds_type *ds_element(const ds_type *t, uint64_t *off)
{
	for (int depth = 0; t && t->kind == DS_TYPE_ARRAY && depth < 8; depth++) {
		const ds_type *e = ds_type_strip(t->target);
		if (!e || !e->size)
			return e;
		*off %= e->size;
		t = e;
	}
	return t;
}

/* ---- values ---- */

static ds_tval pointing(const ds_type *ptr)
{
	return (ds_tval){.into = ds_pointee(ptr)};
}

/* Whether v says where it points (a value named only by its maker does not). */
static bool typed(const ds_tval *v)
{
	return v->into || v->frame || v->vtable || v->tp || v->number || v->tls;
}

static bool tval_eq(const ds_tval *a, const ds_tval *b)
{
	return a->into == b->into && a->off == b->off && a->var == b->var && a->stack == b->stack &&
	       a->frame == b->frame && a->vtable == b->vtable && a->tp == b->tp && a->number == b->number &&
	       a->tls == b->tls && a->tls_other == b->tls_other && a->vid == b->vid &&
	       a->clash == b->clash;
}

/* The step a pointer into `into` moves by along an array: its innermost
 * element's size. */
static int64_t step_of(const ds_type *into)
{
	uint64_t off = 0;
	const ds_type *e = ds_element(ds_type_strip(into), &off);
	return e ? (int64_t)e->size : 0;
}

/* The thread pointer, a number, or a library's thread-local slot or block
 * not yet a variable's: a value that points nowhere by itself. */
static bool bare(const ds_tval *v)
{
	return v->tp || v->number || v->tls;
}

/* A value that came through a pointer: not a variable's address, not
 * frame-relative, not into a virtual table. */
static bool through_pointer(const ds_tval *v)
{
	return !v->var && !v->stack && !v->frame && !v->vtable && !bare(v);
}

/* A pointer to bytes (char, unsigned char, void): C's pointer to any
 * memory, which code casts to and from the types it holds. */
static bool to_bytes(const ds_tval *v)
{
	const ds_type *t = ds_type_strip(v->into);
	return v->into && through_pointer(v) &&
	       (!t || t->kind == DS_TYPE_VOID || (t->kind == DS_TYPE_BASE && t->size == 1));
}

/* How much v says of where it points: nothing, bytes, a type. */
static int says(const ds_tval *v)
{
	return !typed(v) ? 0 : to_bytes(v) ? 1 : 2;
}

/* A pointer into an aggregate at a member's bytes, as a pointer into that
 * member (&t->cells as a pointer to a struct cell *); false when off is in
 * no member. */
static bool into_member(ds_tval *v)
{
	const ds_type *t = ds_type_strip(v->into);
	uint64_t off = (uint64_t)v->off;

	if (!t || v->off < 0 || !through_pointer(v))
		return false;
	if (t->kind == DS_TYPE_ARRAY) {
		const ds_type *e = ds_element(t, &off);
		if (!e)
			return false;
		*v = (ds_tval){.into = e, .off = (int64_t)off, .vid = v->vid};
		return true;
	}
	for (size_t i = 0; ds_is_aggregate(t) && i < t->nmembers; i++) {
		const ds_member *m = &t->members[i];
		const ds_type *mt = ds_type_strip(m->type);
		if (!m->bit_size && mt && mt->size && off >= m->offset && off < m->offset + mt->size) {
			*v = (ds_tval){.into = m->type, .off = (int64_t)(off - m->offset), .vid = v->vid};
			return true;
		}
	}
	return false;
}

/* Two targets of different types, each narrowed to the member it points
 * into (the larger first) until they are of one type. */
static bool same_target(ds_tval *a, ds_tval *b)
{
	for (int depth = 0; depth < 16; depth++) {
		const ds_type *x = ds_type_strip(a->into), *y = ds_type_strip(b->into);
		if (x == y || (x && y && ds_type_same(x, y)))
			return true;
		if (!x || !y || !(x->size >= y->size ? into_member(a) : into_member(b)))
			return false;
	}
	return false;
}

/* What a register points into where paths join.  A register the code
 * after the join reads holds one variable of the source, of one type, on
 * every path: where one path says nothing of it (a value from arithmetic,
 * a call's result) or that it points to bytes, another path's type
 * stands.  Two targets must agree:
 * the same (or members of one type in both: &a->cells and &b->spare), at
 * the same offset or at offsets a whole number of elements apart (a
 * pointer stepping along an array: the offset within one element); else
 * the paths clash, and the clash stands until the register
 * is written (a cast, a union, C-style inheritance: no guess). */
static ds_tval tval_meet(ds_tval a, ds_tval b)
{
	uint32_t vid = a.vid == b.vid ? a.vid : 0;
	int64_t step;

	if (a.clash || b.clash)
		return (ds_tval){.clash = true};
	/* the thread pointer and numbers are values, not targets: all paths
	 * must have the same, or it is not known */
	if (bare(&a) || bare(&b))
		return a.tp == b.tp && a.number == b.number && a.tls == b.tls && a.tls_other == b.tls_other && a.off == b.off
			       ? a
			       : (ds_tval){0};
	if (to_bytes(&a) && to_bytes(&b)) {
		a.vid = vid;
		a.off = 0;
		return a;
	}
	if (says(&a) < 2 || says(&b) < 2) {
		a = says(&a) >= says(&b) ? a : b;
		a.vid = vid;
		return a;
	}
	a.vid = vid;
	if (a.into != b.into && through_pointer(&a) && through_pointer(&b) && same_target(&a, &b))
		b.into = a.into;
	if (a.into != b.into || a.var != b.var || a.stack != b.stack || a.frame != b.frame || a.vtable != b.vtable)
		return (ds_tval){.clash = true};
	if (a.off != b.off) {
		step = step_of(a.into);
		if (a.frame || a.vtable || step <= 0 || (a.off - b.off) % step != 0)
			return (ds_tval){.clash = true};
		a.off = ((a.off % step) + step) % step;
	}
	return a;
}

/* Whether a state keeps v: it says something. */
static bool kept(const ds_tval *v)
{
	return typed(v) || v->vid || v->clash;
}

/* The index of key's slot in sv, or sv->n. */
static size_t slot_at(const slotvec *sv, int64_t key)
{
	size_t i;
	for (i = 0; i < sv->n && sv->v[i].key != key; i++)
		;
	return i;
}

static const ds_tval *slot_find(const slotvec *sv, int64_t key)
{
	size_t i = slot_at(sv, key);
	return i < sv->n ? &sv->v[i].v : NULL;
}

static void slot_set(slotvec *sv, int64_t key, ds_tval v)
{
	size_t i = slot_at(sv, key);
	if (i < sv->n)
		sv->v[i].v = v;
	else
		ds_vec_push(sv, ((slotv){key, v}));
}

static void state_copy(tstate *to, const tstate *from)
{
	memcpy(to->reg, from->reg, sizeof to->reg);
	to->slots.n = 0;
	for (size_t i = 0; i < from->slots.n; i++)
		ds_vec_push(&to->slots, from->slots.v[i]);
}

/* acc becomes the state where its path joins o's (a slot one path did not
 * write keeps the other's value, as a register does). */
static void state_meet(tstate *acc, const tstate *o)
{
	size_t w = 0;

	for (int r = 0; r < 64; r++)
		acc->reg[r] = tval_meet(acc->reg[r], o->reg[r]);
	for (size_t i = 0; i < o->slots.n; i++)
		if (!slot_find(&acc->slots, o->slots.v[i].key))
			ds_vec_push(&acc->slots, ((slotv){o->slots.v[i].key, {0}}));
	for (size_t i = 0; i < acc->slots.n; i++) {
		const ds_tval *p = slot_find(&o->slots, acc->slots.v[i].key);
		ds_tval m = tval_meet(acc->slots.v[i].v, p ? *p : (ds_tval){0});
		if (kept(&m))
			acc->slots.v[w++] = (slotv){acc->slots.v[i].key, m};
	}
	acc->slots.n = w;
}

static bool state_eq(const tstate *a, const tstate *b)
{
	for (int r = 0; r < 64; r++)
		if (!tval_eq(&a->reg[r], &b->reg[r]))
			return false;
	if (a->slots.n != b->slots.n)
		return false;
	for (size_t i = 0; i < a->slots.n; i++) {
		const ds_tval *p = slot_find(&b->slots, a->slots.v[i].key);
		if (!p || !tval_eq(&a->slots.v[i].v, p))
			return false;
	}
	return true;
}

/* A block's entry state, kept in it compactly. */
static void block_keep(block *b, const tstate *st)
{
	b->in_regs.n = b->in_slots.n = 0;
	for (int r = 0; r < 64; r++)
		if (kept(&st->reg[r]))
			ds_vec_push(&b->in_regs, ((slotv){r, st->reg[r]}));
	for (size_t i = 0; i < st->slots.n; i++)
		ds_vec_push(&b->in_slots, st->slots.v[i]);
}

static void block_load(const block *b, tstate *st)
{
	memset(st->reg, 0, sizeof st->reg);
	st->slots.n = 0;
	for (size_t i = 0; i < b->in_regs.n; i++)
		st->reg[b->in_regs.v[i].key] = b->in_regs.v[i].v;
	for (size_t i = 0; i < b->in_slots.n; i++)
		ds_vec_push(&st->slots, b->in_slots.v[i]);
}

/* ---- one instruction ---- */

static ds_track *track_new(ds_dso *d, const ds_symbol *sym)
{
	ds_track *k = ds_xcalloc(1, sizeof *k);
	k->d = d;
	k->sym = sym;
	k->sp = ds_arch_dwarf_sp(ds_arch_host());
	k->fp = ds_arch_dwarf_fp(ds_arch_host());
	return k;
}

/* Value vid's type is told: every copy of it that had none takes it. */
static void give_type(ds_track *k, uint32_t vid, ds_tval t)
{
	if (!vid || !typed(&t))
		return;
	t.vid = vid;
	for (int r = 0; r < 64; r++)
		if (k->st.reg[r].vid == vid && !typed(&k->st.reg[r]))
			k->st.reg[r] = t;
	for (size_t i = 0; i < k->st.slots.n; i++)
		if (k->st.slots.v[i].v.vid == vid && !typed(&k->st.slots.v[i].v))
			k->st.slots.v[i].v = t;
}

static void forget_caller_saved(ds_track *k)
{
	uint64_t clobbered = ds_arch_caller_saved(ds_arch_host());
	for (int r = 0; r < 64; r++)
		if (clobbered & (1ull << r))
			k->st.reg[r] = (ds_tval){0};
}

/* The calling convention's word on where a parameter is at the entry,
 * for the parameters optimization left without a location: integer and
 * pointer ones take the argument registers in order; a floating-point one
 * takes none of them; a struct ends the guess.  Only for functions whose
 * signature the compiler could not change: a static function may get
 * other arguments than its declaration says (GCC's .isra clones, Clang's
 * argument promotion). */
static void entry_params(ds_track *k)
{
	size_t nargs, next = 0;
	const int *args = ds_arch_int_args(ds_arch_host(), &nargs);

	if (k->sym->bind == STB_LOCAL || strchr(k->sym->raw, '.'))
		return;
	for (size_t i = 0; i < k->nvars && next < nargs; i++) {
		const ds_var *v = &k->vars[i];
		const ds_type *t;
		if (!v->param)
			continue;
		t = ds_type_strip(ds_dso_type_at_die(k->d, v->type_die));
		if (!t || ds_is_aggregate(t))
			return;
		if (t->kind == DS_TYPE_BASE && t->name && (strstr(t->name, "float") || strstr(t->name, "double")))
			continue;
		if (t->kind == DS_TYPE_POINTER && v->loc.kind == DS_LOC_NONE)
			k->st.reg[args[next]] = pointing(t);
		next++;
	}
}

static void load_vars(ds_track *k, uint64_t pc)
{
	k->nvars = ds_dso_vars_at(k->d, pc, k->vars, DS_MAX_SCOPE_VARS);
	if (k->nvars > DS_MAX_SCOPE_VARS)
		k->nvars = DS_MAX_SCOPE_VARS;
}

/* Whether tracking uses variable x: a pointer in a register, or one on
 * the stack. */
static bool var_used(const ds_track *k, const ds_var *x)
{
	return (x->loc.kind == DS_LOC_REG && ds_pointee(ds_dso_type_at_die(k->d, x->type_die))) ||
	       (x->loc.kind == DS_LOC_MEM && (x->loc.reg == k->sp || x->loc.reg == k->fp));
}

/* The vars of the instruction at pc, index i of the function: read once,
 * the ones tracking uses kept in vc for the passes after the first (all
 * of them at the entry, for its parameters). */
typedef struct varcache {
	DS_VEC(ds_var) v;
	ds_vec_u32 at, n;  /* per instruction: its first in v and how many; at
			    * UINT32_MAX: not read yet */
} varcache;

static void cached_vars(ds_track *k, varcache *vc, uint32_t i, uint64_t pc)
{
	if (vc->at.v[i] == UINT32_MAX) {
		load_vars(k, pc);
		vc->at.v[i] = (uint32_t)vc->v.n;
		for (size_t j = 0; j < k->nvars; j++)
			if (i == 0 || var_used(k, &k->vars[j]))
				ds_vec_push(&vc->v, k->vars[j]);
		vc->n.v[i] = (uint32_t)(vc->v.n - vc->at.v[i]);
		return;
	}
	k->nvars = vc->n.v[i];
	if (k->nvars)
		memcpy(k->vars, vc->v.v + vc->at.v[i], k->nvars * sizeof *k->vars);
}

const ds_tval *ds_track_reg(const ds_track *k, int r)
{
	return r >= 0 && r < 64 && typed(&k->st.reg[r]) ? &k->st.reg[r] : NULL;
}

/* Whether register r addresses the stack frame: the stack pointer, or
 * the frame pointer unless it holds a pointer variable (optimized code
 * uses it as any other register). */
static bool frame_reg(const ds_track *k, int r)
{
	return r == k->sp || (r == k->fp && !k->st.reg[r].into && !k->st.reg[r].vtable);
}

/* A register's value: SP and FP are frame-relative by nature. */
static ds_tval value_of(const ds_track *k, int r)
{
	if (frame_reg(k, r))
		return (ds_tval){.frame = r};
	return r >= 0 && r < 64 ? k->st.reg[r] : (ds_tval){0};
}

ds_tval ds_track_stack_var(const ds_track *k, int frame, int64_t off)
{
	for (size_t i = 0; i < k->nvars; i++) {
		const ds_var *x = &k->vars[i];
		int64_t rel = off - x->loc.offset;
		if (x->loc.kind == DS_LOC_MEM && x->loc.reg == frame && rel >= 0 &&
		    (uint64_t)rel < (x->size ? x->size : 1))
			return (ds_tval){.into = ds_dso_type_at_die(k->d, x->type_die), .off = rel, .stack = true};
	}
	return (ds_tval){0};
}

ds_tval ds_thread_local_value(ds_dso *d, int64_t a, int64_t b)
{
	uint64_t off;
	int64_t tpoff;
	const ds_var *g;

	if (__builtin_add_overflow(a, b, &tpoff))
		return (ds_tval){0};
	if (!(g = ds_dso_tls_at(d, tpoff, &off)))
		return (ds_tval){.tp = true, .off = tpoff};
	return (ds_tval){.into = ds_dso_type_at_die(d, g->type_die), .off = (int64_t)off, .var = g};
}

/* a + b bytes into the running thread's copy of the library's TLS block
 * (other: another module's): the library's thread-local variable there,
 * or the bare place. */
static ds_tval block_local(const ds_track *k, bool other, int64_t a, int64_t b)
{
	uint64_t off;
	int64_t at;
	const ds_var *g;

	if (__builtin_add_overflow(a, b, &at))
		return (ds_tval){0};
	g = other || at < 0 ? NULL : ds_dso_tls_var(k->d, (uint64_t)at, &off);
	if (!g)
		return (ds_tval){.tls = DS_TV_TLS_BLOCK, .tls_other = other, .off = at};
	return (ds_tval){.into = ds_dso_type_at_die(k->d, g->type_die), .off = (int64_t)off, .var = g};
}

/* The thread pointer plus a library's initial-exec offset, in either
 * order (p, q), plus d: its place in the block; {0} for other sums. */
static ds_tval tp_plus_offset(const ds_track *k, const ds_tval *p, const ds_tval *q, int64_t d)
{
	const ds_tval *tp = p->tp ? p : q, *ie = p->tp ? q : p;
	int64_t a;

	if (!tp->tp || ie->tls != DS_TV_TLS_TPOFF || __builtin_add_overflow(tp->off, d, &a))
		return (ds_tval){0};
	return block_local(k, ie->tls_other, ie->off, a);
}

/* A RIP-relative operand naming the library's GOT slot of a thread-local
 * of kind want (DS_TLS_SLOT_*): lea of a tls_index, for __tls_get_addr
 * (lea x@tlsgd(%rip), %rdi), or a load of an initial-exec offset (mov
 * x@gottpoff(%rip), %rax).  {0} otherwise.  The ABI tells a general-
 * dynamic index, the variable's, from a local-dynamic one, the block's
 * start (both may say offset 0), by the data16 prefix its lea carries for
 * the linker to rewrite. */
static ds_tval tls_slot(const ds_track *k, const ds_insn *in, int want)
{
	const ds_memop *m = &in->mem[0];
	uint64_t at;
	int kind;
	const uint8_t *code;
	size_t avail;
	uint8_t tls;

	if (!in->nmem || !m->rip_relative ||
	    !ds_dso_tls_slot(k->d, in->addr + in->len + (uint64_t)m->disp, &kind, &at) || kind != want)
		return (ds_tval){0};
	if (want == DS_TLS_SLOT_TPOFF)
		tls = DS_TV_TLS_TPOFF;
	else if ((code = ds_dso_code_at(k->d, in->addr, &avail)) != NULL && avail && code[0] == 0x66)
		tls = DS_TV_TLS_INDEX;
	else
		tls = DS_TV_TLS_MODULE;
	if (at == DS_TLS_ELSEWHERE || at >> 40) /* not this module's variable, or no offset in it */
		return (ds_tval){.tls = tls, .tls_other = true};
	return (ds_tval){.tls = tls, .off = (int64_t)at};
}

ds_tval ds_track_address(const ds_track *k, const ds_memop *m, uint64_t next)
{
	const ds_tval *b, *x;
	ds_tval v = {0};
	uint64_t off;

	if (m->segment) {
		/* with a register, the offset it holds: a number the code set
		 * (lea 0xffffffffffffbff0, %r8; mov %fs:(%r8), %rax), else a
		 * library's, placed at load time and loaded from its GOT
		 * (tls_slot); %gs is no thread pointer of glibc's */
		b = ds_track_reg(k, m->base);
		if (m->fs && (m->base == DS_REG_NONE || (b && b->number))) /* an index: which element */
			v = ds_thread_local_value(k->d, b ? b->off : 0, m->disp);
		else if (m->fs && b && b->tls == DS_TV_TLS_TPOFF)
			v = block_local(k, b->tls_other, b->off, m->disp);
	} else if ((b = ds_track_reg(k, m->base)) != NULL && m->scale == 1 && (x = ds_track_reg(k, m->index)) != NULL &&
		   ((b->tp && x->tls == DS_TV_TLS_TPOFF) || (b->tls == DS_TV_TLS_TPOFF && x->tp))) {
		v = tp_plus_offset(k, b, x, m->disp); /* lea (%r13,%r12), %rax */
	} else if (b && b->tp) {
		v = ds_thread_local_value(k->d, b->off, m->disp); /* an index: which element */
	} else if (b && b->tls == DS_TV_TLS_BLOCK) {
		v = block_local(k, b->tls_other, b->off, m->disp);
	} else if (m->rip_relative) {
		const ds_var *g = ds_dso_global_at(k->d, next + (uint64_t)m->disp, &off);
		if (g)
			v = (ds_tval){.into = ds_dso_type_at_die(k->d, g->type_die), .off = (int64_t)off, .var = g};
	} else if (frame_reg(k, m->base)) {
		v = ds_track_stack_var(k, m->base, m->disp);
	} else if ((b = ds_track_reg(k, m->base)) != NULL && b->frame) {
		v = ds_track_stack_var(k, b->frame, b->off + m->disp);
	} else if (b) {
		/* an index register steps through array elements: it changes which
		 * element, not the offset within one */
		v = *b;
		v.off += m->disp;
		v.vid = 0;
	}
	return v;
}

/* The address the instruction's operand names. */
static ds_tval address_of(const ds_track *k, const ds_insn *in)
{
	return ds_track_address(k, &in->mem[0], in->addr + in->len);
}

/* What a word at the operand's address holds, when it is a pointer-typed
 * member (or variable) of something tracked; a C++ class's _vptr (GCC's
 * _vptr.X, clang's _vptr$X) points into its virtual table. */
static ds_tval held_at(const ds_track *k, const ds_insn *in)
{
	ds_tval at = address_of(k, in);
	const ds_type *agg;
	const ds_member *leaf = NULL;
	ds_buf path = {0};
	uint64_t off;

	if (!at.into || at.off < 0)
		return (ds_tval){0};
	off = (uint64_t)at.off;
	agg = ds_type_strip(ds_element(ds_type_strip(at.into), &off));
	if (agg && agg->kind == DS_TYPE_POINTER && off == 0)
		return pointing(agg);
	if (!ds_is_aggregate(agg) || !ds_type_member_path(agg, off, in->mem[0].size, &path, &leaf) || !leaf) {
		ds_buf_free(&path);
		return (ds_tval){0};
	}
	ds_buf_free(&path);
	if (leaf->name && strncmp(leaf->name, "_vptr", 5) == 0)
		return (ds_tval){.vtable = agg};
	return ds_pointee(leaf->type) ? pointing(leaf->type) : (ds_tval){0};
}

/* mov %fs:0, r: the thread's control block begins with its own address,
 * the thread pointer, which code loads to address its thread-locals
 * (lea -0x8010(r), an array of them). */
static bool thread_pointer_load(const ds_insn *in)
{
	const ds_memop *m = &in->mem[0];
	return in->nmem && m->fs && m->base == DS_REG_NONE && m->index == DS_REG_NONE && m->disp == 0 &&
	       m->size == 8;
}

/* One instruction's effect; vid names the values it makes. */
static void track_one(ds_track *k, const ds_insn *in, uint32_t vid)
{
	bool on_stack = in->nmem && frame_reg(k, in->mem[0].base) &&
			in->mem[0].index == DS_REG_NONE;
	/* spill slots are keyed by base register and offset */
	int64_t slot = in->nmem ? in->mem[0].disp * 64 + in->mem[0].base : 0;
	ds_tval v = {0}, a, c;
	const ds_tval *sv;

	switch (in->move) {
	case DS_MOVE_REG:
		v = value_of(k, in->src);
		break;
	case DS_MOVE_LOAD:
		if (thread_pointer_load(in)) {
			v = (ds_tval){.tp = true};
			break;
		}
		if ((v = tls_slot(k, in, DS_TLS_SLOT_TPOFF)).tls)
			break;
		sv = on_stack ? slot_find(&k->st.slots, slot) : NULL;
		v = sv && typed(sv) ? *sv : held_at(k, in);
		if (!typed(&v) && sv)
			v = *sv;
		if (!v.vid)
			v.vid = vid;
		break;
	case DS_MOVE_STORE:
		if (in->src < 0 || in->src >= 64)
			return;
		/* a value stored into a pointer member has that member's type */
		if (!typed(&k->st.reg[in->src]) && k->st.reg[in->src].vid)
			give_type(k, k->st.reg[in->src].vid, held_at(k, in));
		if (on_stack)
			slot_set(&k->st.slots, slot, k->st.reg[in->src]);
		return;
	case DS_MOVE_LEA:
		if ((v = tls_slot(k, in, DS_TLS_SLOT_INDEX)).tls)
			break;
		if (in->mem[0].base == DS_REG_NONE && in->mem[0].index == DS_REG_NONE && !in->mem[0].rip_relative) {
			v = (ds_tval){.number = true, .off = in->mem[0].disp};
			break;
		}
		v = address_of(k, in);
		/* an index computed (lea r, [i * 8 + 8]) is named by it too:
		 * ds_track_index_form reads it back */
		if (!typed(&v) && !v.vid)
			v.vid = vid;
		break;
	case DS_MOVE_SELECT:
		/* two paths' values joined in one instruction */
		v = tval_meet(value_of(k, in->dst), value_of(k, in->src));
		break;
	case DS_MOVE_ADD_IMM:
		a = value_of(k, in->dst);
		if (a.tp) { /* add $-0x8010, r after mov %fs:0, r */
			v = ds_thread_local_value(k->d, a.off, in->imm);
		} else if (ds_track_reg(k, in->dst)) {
			v = k->st.reg[in->dst];
			if (__builtin_add_overflow(v.off, in->imm, &v.off))
				v = (ds_tval){0};
			v.vid = 0;
		}
		break;
	case DS_MOVE_ADD_REG:
		a = value_of(k, in->dst);
		c = value_of(k, in->src);
		if (bare(&a) || bare(&c)) {
			/* the thread pointer plus a number the code set: a
			 * thread-local; plus anything else, not known */
			if ((a.tp && c.number) || (a.number && c.tp))
				v = ds_thread_local_value(k->d, a.off, c.off);
			else
				v = tp_plus_offset(k, &a, &c, 0);
			break;
		}
		/* pointer + index: still into the same array (whichever operand
		 * is the pointer) */
		v = ds_track_reg(k, in->dst) ? k->st.reg[in->dst] : value_of(k, in->src);
		if (!typed(&v))
			v = (ds_tval){0};
		v.vid = 0;
		break;
	case DS_MOVE_IMM:
		v = (ds_tval){.number = true, .off = in->imm};
		break;
	case DS_MOVE_ADD_LOAD:
		/* add %fs:0, r: a number the code set, from the thread pointer */
		a = value_of(k, in->dst);
		if (thread_pointer_load(in) && a.number)
			v = ds_thread_local_value(k->d, a.off, 0);
		else if (thread_pointer_load(in) && a.tls == DS_TV_TLS_TPOFF)
			v = block_local(k, a.tls_other, a.off, 0);
		break;
	case DS_MOVE_NONE:
		return;
	default:
		if (in->alu == DS_ALU_SHL)
			v.vid = vid; /* an index scaled in place */
		break;
	}
	if (in->dst >= 0 && in->dst < 64)
		k->st.reg[in->dst] = v;
}

/* What a call to __tls_get_addr (by the PLT, or direct: static code)
 * returns, when its argument is the address of a tls_index of the
 * library's: the thread's copy of that thread-local.  {0} for any other
 * call. */
static ds_tval tls_get_addr(const ds_track *k, const ds_insn *in)
{
	size_t nargs;
	const int *args = ds_arch_int_args(ds_arch_host(), &nargs);
	const ds_tval *a = nargs ? ds_track_reg(k, args[0]) : NULL;
	const ds_symbol *f;

	if (!a || (a->tls != DS_TV_TLS_INDEX && a->tls != DS_TV_TLS_MODULE) || in->flow != DS_FLOW_CALL ||
	    !(f = ds_dso_symbol_at(k->d, in->target)) || !f->raw ||
	    (strcmp(f->raw, "__tls_get_addr@plt") != 0 && strcmp(f->raw, "__tls_get_addr") != 0))
		return (ds_tval){0};
	if (a->tls == DS_TV_TLS_INDEX)
		return block_local(k, a->tls_other, a->off, 0);
	return (ds_tval){.tls = DS_TV_TLS_BLOCK, .tls_other = a->tls_other, .off = a->off};
}

/* An instruction on state k, whose vars are those in scope there: the
 * variables in registers first, then its effect.  The values it makes are
 * named by its offset in the function, plus one. */
static void step(ds_track *k, const ds_insn *in)
{
	uint32_t vid = (uint32_t)(in->addr - k->sym->start) + 1;

	if (in->addr == k->sym->start)
		entry_params(k);
	/* innermost first: the outermost is set first, so that inner ones win */
	for (size_t i = k->nvars; i-- > 0;) {
		const ds_var *x = &k->vars[i];
		const ds_type *pt;
		ds_tval *cur;
		if (x->loc.kind != DS_LOC_REG || x->loc.reg < 0 || x->loc.reg >= 64 ||
		    !ds_pointee(pt = ds_dso_type_at_die(k->d, x->type_die)))
			continue;
		cur = &k->st.reg[x->loc.reg];
		if (!typed(cur))
			give_type(k, cur->vid, pointing(pt));
		*cur = (ds_tval){.into = ds_pointee(pt), .vid = cur->vid};
	}
	track_one(k, in, vid);
	if (in->flow == DS_FLOW_CALL || in->flow == DS_FLOW_INDIRECT_CALL) {
		int ret = ds_arch_int_return(ds_arch_host());
		ds_tval got = tls_get_addr(k, in);
		forget_caller_saved(k);
		if (ret >= 0 && ret < 64)
			k->st.reg[ret] = typed(&got) ? got : (ds_tval){.vid = vid};
	}
}

/* ---- the control-flow graph and the flow over it ---- */

static bool ends_block(enum ds_flow f)
{
	return f == DS_FLOW_JUMP || f == DS_FLOW_COND || f == DS_FLOW_INDIRECT_JUMP || f == DS_FLOW_RET ||
	       f == DS_FLOW_STOP;
}

static bool falls_through(enum ds_flow f)
{
	return f != DS_FLOW_JUMP && f != DS_FLOW_INDIRECT_JUMP && f != DS_FLOW_RET && f != DS_FLOW_STOP;
}

/* Alignment padding: a nop (of any length) between a function's blocks. */
static bool padding(const ds_insn *in)
{
	if (in->flow != DS_FLOW_NEXT || in->move != DS_MOVE_NONE || in->regs_written)
		return false;
	for (uint32_t i = 0; i < in->nmem; i++)
		if (!in->mem[i].address_only)
			return false;
	return true;
}

/* The index of the instruction at addr, or -1 (outside, or inside one). */
static int64_t insn_at(const ds_insn *ins, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ins[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ins[lo].addr == addr ? (int64_t)lo : -1;
}

/* The function's code, decoded up to its end (or the first bytes that do
 * not decode); false when longer than MAX_TRACK. */
static bool decode_function(ds_session *s, ds_dso *d, const ds_symbol *sym, insnvec *out)
{
	size_t avail;
	const uint8_t *code = ds_dso_code_at(d, sym->start, &avail);
	ds_decoder *dec = ds_backtracker_decoder(s->bt);

	if (!code || !sym->size || sym->size > avail)
		return false;
	for (uint64_t a = sym->start; a < sym->start + sym->size;) {
		ds_insn in;
		if (out->n >= MAX_TRACK)
			return false;
		if (!ds_decode(dec, code + (a - sym->start), sym->start + sym->size - a, a, &in))
			break;
		ds_vec_push(out, in);
		a += in.len;
	}
	return true;
}

/* Blocks of the decoded function, each with its predecessors (indices
 * into preds from pred_at[b] to pred_at[b + 1]). */
static void build_blocks(flow *f, const ds_insn *ins, size_t n, ds_vec_u32 *preds, ds_vec_u32 *pred_at)
{
	bool *lead = ds_xcalloc(n + 1, 1);
	uint32_t *block_of = ds_xcalloc(n + 1, sizeof *block_of);
	ds_vec_u32 from = {0}, to = {0};

	lead[0] = true;
	for (size_t i = 0; i < n; i++) {
		int64_t t;
		if ((ins[i].flow == DS_FLOW_JUMP || ins[i].flow == DS_FLOW_COND) &&
		    (t = insn_at(ins, n, ins[i].target)) >= 0)
			lead[t] = true;
		if (ends_block(ins[i].flow))
			lead[i + 1] = true;
	}
	for (size_t i = 0; i < n; i++) {
		if (lead[i])
			ds_vec_push(&f->blocks, ((block){.start = ins[i].addr, .first = (uint32_t)i}));
		f->blocks.v[f->blocks.n - 1].n++;
		block_of[i] = (uint32_t)(f->blocks.n - 1);
	}
	for (size_t b = 0; b < f->blocks.n; b++) {
		const ds_insn *last = &ins[f->blocks.v[b].first + f->blocks.v[b].n - 1];
		int64_t t;
		f->blocks.v[b].padding = true;
		for (uint32_t i = f->blocks.v[b].first; i < f->blocks.v[b].first + f->blocks.v[b].n; i++)
			f->blocks.v[b].padding &= padding(&ins[i]);
		if (falls_through(last->flow) && b + 1 < f->blocks.n) {
			ds_vec_push(&from, (uint32_t)b);
			ds_vec_push(&to, (uint32_t)b + 1);
		}
		if ((last->flow == DS_FLOW_JUMP || last->flow == DS_FLOW_COND) &&
		    (t = insn_at(ins, n, last->target)) >= 0) {
			ds_vec_push(&from, (uint32_t)b);
			ds_vec_push(&to, block_of[t]);
		}
	}
	/* predecessors by target block, in one array */
	for (size_t b = 0; b <= f->blocks.n; b++)
		ds_vec_push(pred_at, 0);
	for (size_t e = 0; e < to.n; e++)
		pred_at->v[to.v[e] + 1]++;
	for (size_t b = 0; b < f->blocks.n; b++)
		pred_at->v[b + 1] += pred_at->v[b];
	for (size_t e = 0; e < to.n; e++)
		ds_vec_push(preds, 0);
	{
		uint32_t *fill = ds_xcalloc(f->blocks.n + 1, sizeof *fill);
		for (size_t e = 0; e < to.n; e++)
			preds->v[pred_at->v[to.v[e]] + fill[to.v[e]]++] = from.v[e];
		free(fill);
	}
	ds_vec_free(&from);
	ds_vec_free(&to);
	free(lead);
	free(block_of);
}

/* The entry state of block b from its predecessors' exit states: what the
 * reached ones agree on.  The entry block starts with nothing known; a
 * block no edge reaches (a jump table's target, a landing pad) starts
 * from what the function's indirect jumps agree on, or nothing, unless it
 * is alignment padding, which execution never reaches.  False when no
 * predecessor is reached yet. */
static bool entry_state(const flow *f, size_t b, const tstate *out, const ds_vec_u32 *preds,
			const ds_vec_u32 *pred_at, const ds_vec_u32 *indirect, tstate *in)
{
	const uint32_t *p;
	size_t np = pred_at->v[b + 1] - pred_at->v[b];
	bool any = false;

	memset(in->reg, 0, sizeof in->reg);
	in->slots.n = 0;
	if (b == 0)
		return true;
	if (np) {
		p = &preds->v[pred_at->v[b]];
	} else {
		if (f->blocks.v[b].padding)
			return false;
		if ((np = indirect->n) == 0)
			return true;
		p = indirect->v;
	}
	for (size_t i = 0; i < np; i++) {
		if (!f->blocks.v[p[i]].reached)
			continue;
		if (!any)
			state_copy(in, &out[p[i]]);
		else
			state_meet(in, &out[p[i]]);
		any = true;
	}
	return any;
}

/* The flow over sym's function: every block's entry state. */
static flow *analyze(ds_session *s, ds_dso *d, const ds_symbol *sym)
{
	flow *f = ds_xcalloc(1, sizeof *f);
	insnvec ins = {0};
	ds_vec_u32 preds = {0}, pred_at = {0}, indirect = {0};
	ds_track *k;
	tstate *out, in = {0};
	varcache vc = {0};
	bool changed = true;

	if (!decode_function(s, d, sym, &ins) || ins.n == 0) {
		ds_vec_free(&ins);
		return f;
	}
	build_blocks(f, ins.v, ins.n, &preds, &pred_at);
	for (size_t b = 0; b < f->blocks.n; b++)
		if (ins.v[f->blocks.v[b].first + f->blocks.v[b].n - 1].flow == DS_FLOW_INDIRECT_JUMP)
			ds_vec_push(&indirect, (uint32_t)b);
	out = ds_xcalloc(f->blocks.n, sizeof *out);
	for (size_t i = 0; i < ins.n; i++) {
		ds_vec_push(&vc.at, UINT32_MAX);
		ds_vec_push(&vc.n, 0);
	}
	k = track_new(d, sym);
	for (int pass = 0; pass < MAX_PASSES && changed; pass++) {
		changed = false;
		for (size_t b = 0; b < f->blocks.n; b++) {
			block *bl = &f->blocks.v[b];
			if (!entry_state(f, b, out, &preds, &pred_at, &indirect, &in))
				continue;
			block_keep(bl, &in);
			state_copy(&k->st, &in);
			for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
				cached_vars(k, &vc, i, ins.v[i].addr);
				step(k, &ins.v[i]);
			}
			if (!bl->reached || !state_eq(&k->st, &out[b])) {
				changed = true;
				state_copy(&out[b], &k->st);
			}
			bl->reached = true;
		}
	}
	for (size_t b = 0; b < f->blocks.n; b++)
		ds_vec_free(&out[b].slots);
	free(out);
	ds_vec_free(&in.slots);
	ds_track_free(k);
	ds_vec_free(&ins);
	ds_vec_free(&preds);
	ds_vec_free(&pred_at);
	ds_vec_free(&indirect);
	ds_vec_free(&vc.v);
	ds_vec_free(&vc.at);
	ds_vec_free(&vc.n);
	return f;
}

static const flow *flow_of(ds_session *s, ds_dso *d, const ds_symbol *sym)
{
	struct {
		ds_dso *d;
		uint64_t start;
	} key = {d, sym->start};
	bool added;
	size_t i;

	if (!s->flows) {
		s->flows = ds_xcalloc(1, sizeof *s->flows);
		s->flows->index = ds_hash_new();
	}
	i = ds_hash_intern(s->flows->index, &key, sizeof key, &added);
	if (added)
		ds_vec_push(&s->flows->v, analyze(s, d, sym));
	return s->flows->v.v[i];
}

void ds_flows_free(ds_flows *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->v.n; i++) {
		flow *f = fl->v.v[i];
		for (size_t b = 0; b < f->blocks.n; b++) {
			ds_vec_free(&f->blocks.v[b].in_regs);
			ds_vec_free(&f->blocks.v[b].in_slots);
		}
		ds_vec_free(&f->blocks);
		free(f);
	}
	ds_vec_free(&fl->v);
	ds_hash_free(fl->index);
	free(fl);
}

/* ---- queries ---- */

ds_track *ds_track_to(ds_session *s, ds_dso *d, const ds_symbol *sym, uint64_t pc, ds_insn *call)
{
	const flow *f;
	const block *bl;
	ds_decoder *dec = ds_backtracker_decoder(s->bt);
	const uint8_t *code;
	size_t lo = 0, hi, avail;
	ds_track *k;
	uint64_t a;

	if (!sym || !sym->size || (call ? pc <= sym->start || pc > sym->start + sym->size
				      : pc < sym->start || pc >= sym->start + sym->size) ||
	    !(code = ds_dso_code_at(d, sym->start, &avail)) || sym->size > avail)
		return NULL;
	f = flow_of(s, d, sym);
	/* the last block starting before pc (at it, when pc is not a return address) */
	hi = f->blocks.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->blocks.v[mid].start < pc || (!call && f->blocks.v[mid].start == pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !(bl = &f->blocks.v[lo - 1])->reached)
		return NULL;
	k = track_new(d, sym);
	block_load(bl, &k->st);
	for (a = bl->start; a < pc;) {
		ds_insn in;
		if (!ds_decode(dec, code + (a - sym->start), sym->start + sym->size - a, a, &in))
			break;
		if (call && a + in.len == pc) {
			if (in.flow != DS_FLOW_CALL && in.flow != DS_FLOW_INDIRECT_CALL)
				break;
			*call = in;
			load_vars(k, a);
			return k;
		}
		load_vars(k, a);
		step(k, &in);
		a += in.len;
	}
	if (call || a != pc) {
		ds_track_free(k);
		return NULL;
	}
	load_vars(k, pc);
	return k;
}

bool ds_track_index_form(const ds_track *k, ds_decoder *dec, int r, int64_t *stride, int64_t *add)
{
	const uint8_t *code;
	size_t avail, at;
	ds_insn in;

	/* the instruction that made the register's value, on every path */
	if (r < 0 || r >= 64 || typed(&k->st.reg[r]) || !k->st.reg[r].vid ||
	    !(code = ds_dso_code_at(k->d, k->sym->start, &avail)) || (at = k->st.reg[r].vid - 1) >= avail ||
	    !ds_decode(dec, code + at, avail - at, k->sym->start + at, &in))
		return false;
	/* lea x, [i * s + d] */
	if (in.move == DS_MOVE_LEA && in.nmem && in.mem[0].base == DS_REG_NONE && in.mem[0].index != DS_REG_NONE &&
	    !in.mem[0].rip_relative) {
		*stride = in.mem[0].scale;
		*add = in.mem[0].disp;
		return true;
	}
	/* shl x, k */
	if (in.alu == DS_ALU_SHL && in.alu_imm > 0 && in.alu_imm < 32) {
		*stride = (int64_t)1 << in.alu_imm;
		*add = 0;
		return true;
	}
	return false;
}

void ds_track_free(ds_track *k)
{
	if (!k)
		return;
	ds_vec_free(&k->st.slots);
	free(k);
}
