/*
 * Dataspace: which data object each sampled access touched.
 *
 * Per unique instruction, once: backtrack to the trigger (precise samples
 * name it; imprecise ones are walked back), then name what its memory
 * operand points to, trying in order
 *   (1) a RIP-relative or absolute address: the global there;
 *   (2) a base register holding a variable (a pointer) at the trigger;
 *   (3) the stack or frame pointer: the stack variable at that offset;
 *   (4) the base register's type tracked over the function's control
 *       flow (track.c: p->a->b, spills, values typed by where they go);
 * and otherwise decide per sample:
 *   (5) an effective address inside a global's storage is that global.
 * Every sample lands in one object, or in a named unknown bucket, so the
 * dataobjects view adds up to 100%.
 */
#include "analyze/analyze_int.h"
#include "experiment/heapfile.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define NO_DOBJ (-1)

/* analyze_int.h promises this size: memory grows with samples by it */
_Static_assert(sizeof(ds_srec) == 64, "a per-sample record is 64 bytes");

static const char *const how_names[HOW_NHOW] = {
	[HOW_NONE] = "unresolved",
	[HOW_STATIC] = "global or thread-local (static address)",
	[HOW_REG_VAR] = "variable in a register",
	[HOW_STACK] = "stack",
	[HOW_TRACKED] = "tracked through the function",
	[HOW_ADDRESS] = "by address (global or stack frame)",
	[HOW_VIA] = "argument of a string function",
	[HOW_HEAP] = "heap block (record --heap)",
};

const char *ds_how_name(enum ds_how h)
{
	return h < HOW_NHOW ? how_names[h] : "?";
}

const char *ds_untagged(const char *type_name)
{
	static const char *const tags[] = {"struct ", "class ", "union ", "enum "};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strncmp(type_name, tags[i], strlen(tags[i])) == 0)
			return type_name + strlen(tags[i]);
	return type_name;
}

const char *ds_dobj_kind_name(enum dobj_kind k)
{
	switch (k) {
	case DOBJ_FIELD: return "field";
	case DOBJ_MISFIT: return "unknown";
	case DOBJ_GLOBAL: return "global";
	case DOBJ_STACK: return "stack";
	case DOBJ_SCALAR: return "scalars";
	case DOBJ_KERNEL: return "kernel";
	case DOBJ_UNKNOWN: return "unknown";
	case DOBJ_NOMEM: return "no-memory";
	case DOBJ_TOOL: return "tool";
	case DOBJ_VIA: return "via";
	case DOBJ_HEAP: return "heap";
	}
	return "?";
}

bool ds_dobj_scalars(const dobj *o)
{
	return o->kind == DOBJ_SCALAR || (o->kind == DOBJ_VIA && !strncmp(o->name, "<scalars>", 9));
}

/* ---- data objects ---- */

static int32_t dobj_new(ds_session *s, size_t i, dobj o)
{
	if (i == s->dobjs.n) {
		ds_vec_push(&s->dobjs, o);
		for (size_t e = 0; e < s->nev; e++) {
			ds_vec_push(&s->dobj_samples, 0);
			ds_vec_push(&s->dobj_count, 0);
		}
	}
	return (int32_t)i;
}

/* An object that is its name: a global, the stack, a bucket. */
static int32_t dobj_add(ds_session *s, enum dobj_kind kind, const char *name, const char *type,
			const char *path)
{
	bool added;
	ds_buf key = {0};
	size_t i;

	ds_buf_putc(&key, 'N');
	ds_buf_puts(&key, name);
	i = ds_hash_intern(s->dobj_index, key.p, key.len, &added);
	ds_buf_free(&key);
	if (!added)
		return (int32_t)i;
	return dobj_new(s, i, (dobj){kind, type ? ds_xstrdup(type) : NULL, path ? ds_xstrdup(path) : NULL,
				     ds_xstrdup(name), NULL, -1});
}

int32_t ds_dobj_heap(ds_session *s, const char *name)
{
	return dobj_add(s, DOBJ_HEAP, name, NULL, NULL);
}

/* A field's names: its type's, then the path; a misfit's, the reason and
 * the type ("<unknown: offset beyond struct Obj>"); an access through a
 * string function's argument, the type and the function ("struct Obj
 * (via memcpy)"). */
static void member_names(const ds_session *s, dobj *o)
{
	const tident *ti = &s->tidents.v[o->tid];

	free(o->type);
	free(o->name);
	o->type = ds_xstrdup(ti->name);
	if (o->kind == DOBJ_MISFIT)
		o->name = ds_xasprintf("<unknown: %s %s>",
				       strcmp(o->path, "offset-beyond") == 0 ? "offset beyond" : "offset in a hole of",
				       ti->name);
	else if (o->kind == DOBJ_VIA)
		o->name = ds_xasprintf("%s (via %s)", ti->name, o->path);
	else
		o->name = ds_xasprintf("%s.%s", ti->name, o->path);
}

/* A field of the type tid by path, a misfit by reason, an access through
 * a string function by the function's name. */
static int32_t dobj_member(ds_session *s, enum dobj_kind kind, int32_t tid, const char *path)
{
	bool added;
	ds_buf key = {0};
	dobj o = {kind, NULL, NULL, NULL, s->tidents.v[tid].t, tid};
	size_t i;

	ds_buf_putc(&key, kind == DOBJ_FIELD ? 'F' : kind == DOBJ_MISFIT ? 'M' : 'V');
	ds_buf_append(&key, &tid, sizeof tid);
	ds_buf_puts(&key, path);
	i = ds_hash_intern(s->dobj_index, key.p, key.len, &added);
	ds_buf_free(&key);
	if (!added)
		return (int32_t)i;
	o.path = ds_xstrdup(path);
	member_names(s, &o);
	return dobj_new(s, i, o);
}

/* ---- types as the views tell them apart ---- */

/* The name of aggregate agg, reached from t through typedefs, qualifiers
 * and arrays: its ident, or for an anonymous one the typedef that names it
 * (`typedef struct { ... } Elf64_Dyn` is "Elf64_Dyn", as C code calls it). */
static void aggregate_name(const ds_type *t, const ds_type *agg, ds_buf *out)
{
	const ds_type *tdef = NULL;
	for (int depth = 0; t && t != agg && depth < 16; depth++) {
		if (t->kind == DS_TYPE_TYPEDEF && t->name)
			tdef = t;
		t = t->target;
	}
	ds_type_ident(!agg->name && tdef ? tdef : agg, out);
}

/* "file.c:12": the declaration, as a where says it; "" when unknown. */
static char *declared_at(const ds_type *t)
{
	const char *slash = t->decl_file ? strrchr(t->decl_file, '/') : NULL;

	if (!t->decl_file)
		return ds_xstrdup("");
	return ds_xasprintf("%s:%u", slash ? slash + 1 : t->decl_file, t->decl_line);
}

/* Definitions of several objects that share an ident: each gets a where,
 * its own or its declaration, and "#N" when two are still alike.  The
 * objects of their fields are renamed with them (they are not found by
 * name). */
static void tident_tell_apart(ds_session *s, int32_t first)
{
	DS_VEC(char *) w = {0};
	bool unique = true;
	size_t n = 0;

	for (int32_t k = first; k >= 0; k = s->tidents.v[k].next, n++)
		ds_vec_push(&w, s->tidents.v[k].t->where ? ds_xstrdup(s->tidents.v[k].t->where)
							  : declared_at(s->tidents.v[k].t));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			unique &= j == i ? *w.v[i] != 0 : strcmp(w.v[i], w.v[j]) != 0;
	n = 0;
	for (int32_t k = first; k >= 0; k = s->tidents.v[k].next, n++) {
		tident *ti = &s->tidents.v[k];
		char *name = unique ? ds_xasprintf("%.*s (%s)", (int)ti->base, ti->name, w.v[n])
				    : ds_xasprintf("%.*s (%s%s#%zu)", (int)ti->base, ti->name, w.v[n],
						   *w.v[n] ? " " : "", n + 1);
		free(ti->name);
		ti->name = name;
		free(w.v[n]);
	}
	ds_vec_free(&w);
	for (size_t i = 0; i < s->dobjs.n; i++)
		for (int32_t k = first; s->dobjs.v[i].tid >= 0 && k >= 0; k = s->tidents.v[k].next)
			if (s->dobjs.v[i].tid == k) {
				member_names(s, &s->dobjs.v[i]);
				break;
			}
}

/* The tident of agg (reached from t), made when new: -1 from lookups
 * that must not make one (add false). */
static int32_t tident_get(ds_session *s, const ds_type *t, const ds_type *agg, bool add)
{
	ds_buf id = {0};
	int64_t h;
	int32_t k, last = -1;
	bool added;
	tident ti;

	aggregate_name(t, agg, &id);
	h = ds_hash_find(s->tident_index, id.p, id.len);
	for (k = h >= 0 ? s->tident_head.v[h] : -1; k >= 0; k = s->tidents.v[k].next) {
		if (ds_type_same(s->tidents.v[k].t, agg))
			break;
		last = k;
	}
	if (k >= 0 || !add) {
		ds_buf_free(&id);
		return k;
	}
	ti.t = agg;
	ti.base = id.len - (agg->where ? strlen(agg->where) + 3 : 0);
	ti.next = -1;
	ti.name = ds_buf_steal(&id);
	k = (int32_t)s->tidents.n;
	ds_vec_push(&s->tidents, ti);
	h = (int64_t)ds_hash_intern(s->tident_index, ti.name, strlen(ti.name), &added);
	if (added) {
		ds_vec_push(&s->tident_head, k);
	} else {
		s->tidents.v[last].next = k;
		tident_tell_apart(s, s->tident_head.v[h]);
	}
	return k;
}

int32_t ds_tident_find(ds_session *s, const ds_type *t)
{
	const ds_type *agg = ds_type_strip(t);
	uint32_t m;
	int32_t k;

	if (!s->tident_index || !agg)
		return -1;
	m = ds_u64map_get(&s->tident_memo, (uint64_t)(uintptr_t)t);
	if (m != DS_U64MAP_NONE)
		return (int32_t)m - 1;
	k = tident_get(s, t, agg, false);
	/* an anonymous struct is named by the typedef it was reached through,
	 * which t may not be: the definition then decides */
	for (size_t i = 0; k < 0 && i < s->tidents.n; i++)
		if (ds_type_same(s->tidents.v[i].t, agg))
			k = (int32_t)i;
	ds_u64map_put(&s->tident_memo, (uint64_t)(uintptr_t)t, (uint32_t)(k + 1), NULL);
	return k;
}

static dref unknown(ds_session *s, const char *reason)
{
	char name[96];
	snprintf(name, sizeof name, "<unknown: %s>", reason);
	return (dref){.id = dobj_add(s, DOBJ_UNKNOWN, name, NULL, reason), .off = 0};
}

/* The byte after agg's last member (its tail padding and anything past its
 * end lie beyond). */
static uint64_t members_end(const ds_type *agg)
{
	uint64_t end = 0;
	for (size_t i = 0; i < agg->nmembers; i++) {
		const ds_member *m = &agg->members[i];
		const ds_type *mt = ds_type_strip(m->type);
		uint64_t e = m->bit_size ? m->offset + (m->bit_offset + m->bit_size + 7) / 8
					 : m->offset + (mt ? mt->size : 0);
		if (e > end)
			end = e;
	}
	return end;
}

/* Why an access at byte off of aggregate agg is in none of its members:
 * past the end of the last one ("offset-beyond", the tail padding
 * included), or in a hole between them. */
static const char *misfit_reason(const ds_type *agg, uint64_t off)
{
	return off >= members_end(agg) ? "offset-beyond" : "offset-in-hole";
}

/* The object an access of `size` bytes at byte `off` of a `t` touches;
 * var names a variable that is the whole object (a global or a stack
 * slot), or NULL when the access came through a pointer. */
static dref object_in(ds_session *s, const ds_type *t, uint64_t off, uint32_t size,
		      const char *var, enum dobj_kind var_kind)
{
	const ds_type *agg = ds_type_strip(ds_element(ds_type_strip(t), &off));
	ds_buf tn = {0}, path = {0}, name = {0};
	const ds_member *leaf = NULL;
	dref d = {.id = NO_DOBJ, .off = off};

	if (ds_is_aggregate(agg)) {
		/* An access outside every member (C-style inheritance: a header
		 * struct's pointer cast to the larger struct it heads) is to some
		 * other type, never to the padding: an unknown named by this one. */
		if (!agg->size)
			d = unknown(s, "bad-offset");
		else if (ds_type_member_path(agg, off, size, &path, &leaf))
			d.id = dobj_member(s, DOBJ_FIELD, tident_get(s, t, agg, true), path.p);
		else
			d.id = dobj_member(s, DOBJ_MISFIT, tident_get(s, t, agg, true), misfit_reason(agg, off));
	} else if (var) {
		if (t)
			ds_type_name(t, &tn);
		if (var_kind == DOBJ_STACK)
			ds_buf_printf(&name, "<stack %s>", var);
		else
			ds_buf_printf(&name, "%s (%s)", var, t ? ds_buf_str(&tn) : "?");
		d.id = dobj_add(s, var_kind, name.p, tn.p, NULL);
	} else {
		d.id = dobj_add(s, DOBJ_SCALAR, "<scalars>", NULL, NULL);
		/* the type as declared, its typedef kept (u8), its qualifiers not */
		while (t && (t->kind == DS_TYPE_CONST || t->kind == DS_TYPE_VOLATILE || t->kind == DS_TYPE_RESTRICT))
			t = t->target;
		d.elem = t && t->kind != DS_TYPE_VOID ? t : NULL;
	}
	ds_buf_free(&tn);
	ds_buf_free(&path);
	ds_buf_free(&name);
	return d;
}

/* ---- static resolution, once per site ---- */

static const char *function_name(const site *st)
{
	return st->sym ? st->sym->name : "?";
}

/* (1) a static address: the global there. */
static dref by_static_address(ds_session *s, ds_dso *d, const ds_trigger *t)
{
	uint64_t a = (uint64_t)t->mem.disp + (t->mem.rip_relative ? t->pc + t->len : 0), off;
	const ds_var *v = ds_dso_global_at(d, a, &off);
	/* a literal or a jump table has no variable: read-only data all the same */
	if (!v && ds_dso_vaddr_readonly(d, a))
		return (dref){.id = dobj_add(s, DOBJ_GLOBAL, "<constants>", NULL, NULL), .off = 0};
	if (!v)
		return unknown(s, "no-variable");
	return object_in(s, ds_dso_type_at_die(d, v->type_die), off, t->mem.size, v->name, DOBJ_GLOBAL);
}

/* The object of a thread-local access whose address is v (ds_track_address):
 * the variable there (a program's, by its offset from the thread pointer,
 * or a library's, through its GOT), else at and above the thread pointer
 * <thread control block> (its own address, the stack protector's guard),
 * else <thread-local>.  Not the address's other names: a thread's locals
 * and control block sit at the top of its stack's mapping. */
static dref thread_local_object(ds_session *s, const ds_tval *v, uint32_t size)
{
	const char *bucket = v->tp && v->off >= 0 ? "<thread control block>" : "<thread-local>";

	if (v->var && v->off >= 0)
		return object_in(s, v->into, (uint64_t)v->off, size, v->var->name, DOBJ_GLOBAL);
	return (dref){.id = dobj_add(s, DOBJ_GLOBAL, bucket, NULL, NULL), .off = 0};
}

/* (1) an %fs-relative address (mov %fs:-16, %rax), an index choosing an
 * element.  With a base register, the offset it holds, when the code set
 * it to a number (lea 0xffffffffffffbff0, %r8; mov %fs:(%r8), %rax); else
 * a library's, loaded from its GOT (the variable when the slot names it). */
static dref by_thread_local(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t)
{
	ds_tval v = {0};
	ds_track *k;

	if (t->mem.base == DS_REG_NONE) {
		v = ds_thread_local_value(d, 0, t->mem.disp);
	} else if ((k = ds_track_to(s, d, st->sym, t->pc, NULL)) != NULL) {
		v = ds_track_address(k, &t->mem, t->pc + t->len);
		ds_track_free(k);
	}
	return thread_local_object(s, &v, t->mem.size);
}

/* (3) the stack slot at base + disp, a stack variable when one covers it. */
static dref by_stack(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t,
			const ds_var *vars, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const ds_var *v = &vars[i];
		int64_t rel = t->mem.disp - v->loc.offset;
		if (v->loc.kind != DS_LOC_MEM || v->loc.reg != t->mem.base || rel < 0 ||
		    (uint64_t)rel >= (v->size ? v->size : 1))
			continue;
		return object_in(s, ds_dso_type_at_die(d, v->type_die), (uint64_t)rel, t->mem.size,
				 function_name(st), DOBJ_STACK);
	}
	return object_in(s, NULL, 0, t->mem.size, function_name(st), DOBJ_STACK);
}

/* The object behind a register known to hold a `ptr`-typed value. */
/* A pointer to T may point into an array of T: p[i + 1].f, an unrolled
 * loop's second element, puts f's offset plus one element in the
 * displacement.  Offsets are taken modulo the element. */
static uint64_t in_element(const ds_type *target, int64_t off)
{
	int64_t size = (int64_t)(ds_type_strip(target) ? ds_type_strip(target)->size : 0);
	return size > 0 ? (uint64_t)(((off % size) + size) % size) : (uint64_t)off;
}

/* Whether aggregate c begins with t, as C-style inheritance writes it:
 * its first member is a t (or begins with one), or its first members are
 * t's, one for one (a header written as a macro: same names, offsets and
 * types). */
static bool begins_with(const ds_type *c, const ds_type *t, int depth)
{
	const ds_type *first;

	if (!ds_is_aggregate(c) || c == t || !c->nmembers || !t->nmembers || depth > 4)
		return false;
	first = ds_type_strip(c->members[0].type);
	if (c->members[0].offset == 0 && first && (ds_type_same(first, t) || begins_with(first, t, depth + 1)))
		return true;
	if (c->nmembers <= t->nmembers || ds_type_same(c, t))
		return false;
	for (size_t i = 0; i < t->nmembers; i++) {
		const ds_member *a = &c->members[i], *b = &t->members[i];
		if (a->offset != b->offset || a->bit_size != b->bit_size || !a->name || !b->name ||
		    strcmp(a->name, b->name) != 0 || !ds_type_same(ds_type_strip(a->type), ds_type_strip(b->type)))
			return false;
	}
	return true;
}

/* The object behind an access at byte off of a pointer to target.  Past
 * the members of a struct that other structs of the object begin with (a
 * header: struct obj heading struct table), the access is to the one of
 * them that has a member there, reached through a cast; when none or
 * several do, it is beyond the header (an unknown), not the next element
 * of an array of headers.  Otherwise the offset is taken in an array of
 * target (in_element). */
static dref pointer_object(ds_session *s, ds_dso *d, const ds_type *target, int64_t off, uint32_t size)
{
	const ds_type *agg = ds_type_strip(target), *found = NULL;
	size_t heads = 0, with = 0;
	ds_buf path = {0};

	if (!d || !ds_is_aggregate(agg) || !agg->size || off < 0 || (uint64_t)off < members_end(agg))
		return object_in(s, target, in_element(target, off), size, NULL, DOBJ_SCALAR);
	for (size_t i = 0; i < ds_dso_ntypes(d); i++) {
		const ds_type *c = ds_type_strip(ds_dso_type(d, i));
		if (!c || !begins_with(c, agg, 0))
			continue;
		heads++;
		ds_buf_reset(&path);
		if (!ds_type_member_path(c, (uint64_t)off, size, &path, NULL) || (found && ds_type_same(found, c)))
			continue;
		with++;
		found = c;
	}
	ds_buf_free(&path);
	if (with == 1)
		return object_in(s, found, (uint64_t)off, size, NULL, DOBJ_SCALAR);
	if (heads)
		return object_in(s, target, (uint64_t)off, size, NULL, DOBJ_SCALAR);
	return object_in(s, target, in_element(target, off), size, NULL, DOBJ_SCALAR);
}

static dref through_pointer(ds_session *s, ds_dso *d, const ds_type *ptr, const ds_trigger *t)
{
	const ds_type *target = ds_pointee(ptr);
	if (!target)
		return (dref){.id = NO_DOBJ, .off = 0};
	return pointer_object(s, d, target, t->mem.disp, t->mem.size);
}

/* The element size of the outermost array member of agg that holds byte
 * off (an array nested in a struct member counts), 0 when none does. */
static uint64_t array_stride_at(const ds_type *agg, uint64_t off, int depth)
{
	for (size_t i = 0; ds_is_aggregate(agg) && depth < 8 && i < agg->nmembers; i++) {
		const ds_member *m = &agg->members[i];
		const ds_type *mt = ds_type_strip(m->type);
		if (!mt || m->bit_size || off < m->offset || off - m->offset >= (mt->size ? mt->size : 1))
			continue;
		if (mt->kind == DS_TYPE_ARRAY) {
			uint64_t n = 1;
			for (size_t k = 0; k < mt->ndims; k++)
				n *= mt->dims[k] ? mt->dims[k] : 1;
			return n && mt->size ? mt->size / n : ds_type_strip(mt->target) ? ds_type_strip(mt->target)->size : 0;
		}
		return array_stride_at(mt, off - m->offset, depth + 1);
	}
	return 0;
}

/* An access [base + index * scale + disp] through a pointer to a struct,
 * whose index the code made as a multiple of a stride plus a constant
 * (lea index, [i * 8 + 8]; ds_track_index_form): which member the index
 * steps along.
 * A stride of whole elements is p[i].f (the offset is taken in the
 * element, as without an index); one of an array member's elements, that
 * member (LevelDB's skip list node: next_[level], declared next_[1] and
 * allocated longer, not the key before it); any other crosses members, and
 * no one member is the answer.  *disp gets the constant's part. */
static bool indexed_member(ds_session *s, const ds_track *k, const ds_tval *v, int index, int scale, int64_t *disp,
			   bool *crosses)
{
	const ds_type *agg = ds_type_strip(v->into);
	int64_t stride, add, at;

	*crosses = false;
	if (index == DS_REG_NONE || !agg || !ds_is_aggregate(agg) || !agg->size || v->var || v->stack || v->frame ||
	    v->vtable || !ds_track_index_form(k, ds_backtracker_decoder(s->bt), index, &stride, &add))
		return false;
	stride *= scale;
	*disp += add * scale;
	at = (int64_t)in_element(v->into, v->off + *disp);
	if (stride % (int64_t)agg->size == 0)
		return true;
	{
		uint64_t es = array_stride_at(agg, (uint64_t)at, 0);
		*crosses = !es || stride % (int64_t)es != 0;
	}
	return true;
}

/* A pointer variable's access with an index register (indexed_member):
 * its object, or NO_DOBJ to go on as without one. */
static dref indexed_variable(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t, const ds_type *pt,
			     bool in_index)
{
	ds_tval v = {.into = ds_pointee(pt)};
	int64_t disp = t->mem.disp;
	dref r = {.id = NO_DOBJ};
	bool crosses;
	ds_track *k;

	if (!v.into || (in_index && t->mem.scale != 1) || !(k = ds_track_to(s, d, st->sym, t->pc, NULL)))
		return r;
	if (indexed_member(s, k, &v, in_index ? t->mem.base : t->mem.index, in_index ? 1 : t->mem.scale, &disp,
			   &crosses))
		r = crosses ? unknown(s, "indexed") : pointer_object(s, d, v.into, disp, t->mem.size);
	ds_track_free(k);
	return r;
}

/* (2) a variable in the base (or, for p[i] forms, the index) register. */
static dref by_register_variable(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t,
				 const ds_var *vars, size_t n)
{
	int regs[2] = {t->mem.base, t->mem.index};
	/* a typed pointer says more than a void * in the same register (a
	 * thread function's `void *arg` and the `struct x *c = arg` it uses) */
	for (int untyped = 0; untyped < 2; untyped++)
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; regs[k] != DS_REG_NONE && i < n; i++) {
				const ds_type *pt, *target;
				dref r;
				if (vars[i].loc.kind != DS_LOC_REG || vars[i].loc.reg != regs[k])
					continue;
				pt = ds_dso_type_at_die(d, vars[i].type_die);
				target = ds_type_strip(ds_pointee(pt));
				if ((target && target->kind == DS_TYPE_VOID) != untyped)
					continue;
				if (t->mem.index != DS_REG_NONE && t->mem.base != DS_REG_NONE &&
				    (r = indexed_variable(s, d, st, t, pt, k == 1)).id != NO_DOBJ)
					return r;
				r = through_pointer(s, d, pt, t);
				if (r.id != NO_DOBJ)
					return r;
			}
	return (dref){.id = NO_DOBJ, .off = 0};
}

static bool has_types(ds_dso *d)
{
	return ds_dso_debug_file(d) != NULL || ds_dso_ntypes(d) > 0;
}

/* A class's virtual table, read by a virtual call: no object of the
 * program's types, named by the class as C++ names it (<vtable of
 * geo::Shape>; its tident, where two classes share the name). */
static dref vtable_object(ds_session *s, const ds_type *cls)
{
	/* the index first: making the tident may move s->tidents.v */
	int32_t k = tident_get(s, cls, ds_type_strip(cls), true);
	char *name = ds_xasprintf("<vtable of %s>", ds_untagged(s->tidents.v[k].name));
	dref r = {.id = NO_DOBJ};

	r.id = dobj_add(s, DOBJ_GLOBAL, name, NULL, NULL);
	free(name);
	return r;
}

/* The object `disp` bytes past what v points into, for an access of
 * `size` bytes: variables are bounded objects; pointers may run along
 * arrays. */
static dref tracked_object(ds_session *s, ds_dso *d, const ds_track *k, const site *st, ds_tval v,
			   int64_t disp, uint32_t size)
{
	int64_t off = v.off + disp;

	if (v.vtable)
		return vtable_object(s, v.vtable);
	if (v.frame) {
		v = ds_track_stack_var(k, v.frame, off);
		off = v.off;
	}
	if (!v.into)
		return (dref){.id = NO_DOBJ, .off = 0};
	if (v.var || v.stack)
		return off < 0 ? unknown(s, "bad-offset")
			       : object_in(s, v.into, (uint64_t)off, size, v.var ? v.var->name : function_name(st),
					   v.stack ? DOBJ_STACK : DOBJ_GLOBAL);
	return pointer_object(s, d, v.into, off, size);
}

/* (4) the base register's target, tracked over the function's flow. */
static dref by_tracking(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t, uint8_t *how)
{
	ds_track *k;
	const ds_tval *b, *x;
	dref r = {.id = NO_DOBJ};
	int index = t->mem.index, scale = t->mem.scale;
	int64_t disp = t->mem.disp;
	bool crosses;

	if (t->mem.base == DS_REG_NONE && t->mem.index == DS_REG_NONE)
		return r;
	if (!(k = ds_track_to(s, d, st->sym, t->pc, NULL)))
		return r;
	/* with scale 1 base and index are interchangeable: the pointer may be
	 * either (GCC writes table + i * 64 as [rcx + rdx] both ways) */
	b = ds_track_reg(k, t->mem.base);
	x = t->mem.scale == 1 ? ds_track_reg(k, t->mem.index) : NULL;
	if (b && (b->tp || b->tls == DS_TV_TLS_BLOCK || (b->tls == DS_TV_TLS_TPOFF && x && x->tp))) {
		/* from the thread pointer (mov %fs:0, %rax; mov -16(%rax), %rdx), plus
		 * a library's initial-exec offset, or in a library's block */
		ds_tval v = ds_track_address(k, &t->mem, t->pc + t->len);
		r = thread_local_object(s, &v, t->mem.size);
		*how = HOW_STATIC;
		ds_track_free(k);
		return r;
	}
	if (b && (b->number || b->tls))
		b = NULL; /* a number (or a GOT slot's address) is no pointer */
	if (!b && t->mem.scale == 1) {
		b = ds_track_reg(k, t->mem.index);
		index = t->mem.base;
		scale = 1;
	}
	if (b && indexed_member(s, k, b, index, scale, &disp, &crosses) && crosses)
		r = unknown(s, "indexed");
	else if (b)
		r = tracked_object(s, d, k, st, *b, disp, t->mem.size);
	/* a thread-local's address is as static as the thread pointer: the
	 * heap's blocks never hold it */
	if (r.id != NO_DOBJ)
		*how = b->var && b->var->loc.kind == DS_LOC_TLS ? HOW_STATIC : HOW_TRACKED;
	ds_track_free(k);
	return r;
}

/* ---- (6) string functions, through their callers ---- */

/* The C library's string and memory functions are hand-written, without
 * variables: what they read and write is what their pointer arguments
 * point into, which the caller's code knows.  Each with its first two
 * arguments: R read, W written (C's signatures; glibc's variants are
 * named after them: __memmove_avx_unaligned_erms, __memcpy_chk). */
typedef struct strfn {
	const char *name;
	char arg[3];
} strfn;

static const strfn string_functions[] = {
	{"memcpy", "WR"},  {"memmove", "WR"},    {"mempcpy", "WR"},     {"memset", "W"},     {"memcmp", "RR"},
	{"bcmp", "RR"},    {"memchr", "R"},      {"memrchr", "R"},      {"rawmemchr", "R"},  {"strlen", "R"},
	{"strnlen", "R"},  {"strcmp", "RR"},     {"strncmp", "RR"},     {"strcasecmp", "RR"}, {"strncasecmp", "RR"},
	{"strcpy", "WR"},  {"stpcpy", "WR"},     {"strncpy", "WR"},     {"stpncpy", "WR"},   {"strcat", "WR"},
	{"strncat", "WR"}, {"strchr", "R"},      {"strrchr", "R"},      {"strchrnul", "R"},  {"strstr", "RR"},
	{"strspn", "RR"},  {"strcspn", "RR"},    {"strpbrk", "RR"},
};

/* 1 + the index of the string function a symbol is a variant of, or 0. */
static uint8_t string_function(const char *sym)
{
	size_t best = 0, best_len = 0;

	sym += strspn(sym, "_");
	if (strncmp(sym, "GI_", 3) == 0) /* glibc's internal aliases */
		sym += 3 + strspn(sym + 3, "_");
	for (size_t i = 0; i < sizeof string_functions / sizeof string_functions[0]; i++) {
		size_t n = strlen(string_functions[i].name);
		if (n > best_len && strncmp(sym, string_functions[i].name, n) == 0 &&
		    (!sym[n] || sym[n] == '_' || sym[n] == '@')) {
			best = i + 1;
			best_len = n;
		}
	}
	return (uint8_t)best;
}

/* The return address of the sample's user-space leaf (from the call
 * chain, or the stack copy), or 0. */
static uint64_t leaf_return_address(ds_session *s, const ds_sample *sm)
{
	size_t n;
	const uint64_t *chain = ds_session_full_chain(s, sm, &n);
	bool user = false, leaf = false;

	for (size_t i = 0; i < n; i++) {
		if (chain[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			user = chain[i] == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		if (leaf)
			return chain[i];
		leaf = true;
	}
	return 0;
}

/* Site si's dataspace state, made on first use. */
static site_ds *site_ds_of(ds_session *s, uint32_t si)
{
	if (!s->sites.v[si].ds)
		s->sites.v[si].ds = ds_xcalloc(1, sizeof(site_ds));
	return s->sites.v[si].ds;
}

/* What the arguments of the call that returns to site ci point into, and
 * the string function it calls (1 + index; 0: an indirect call, unknown;
 * -1: another function, which may have passed its own arguments on in
 * another order), once per call site. */
static const site_ds *call_arguments(ds_session *s, uint32_t ci)
{
	site *cs = &s->sites.v[ci];
	dso_ent *de;
	ds_track *k;
	ds_insn call;
	size_t nargs;
	const int *args = ds_arch_int_args(ds_arch_host(), &nargs);

	site_ds_of(s, ci);
	if (cs->ds->args_done)
		return cs->ds;
	cs->ds->args_done = true;
	cs->ds->arg[0] = cs->ds->arg[1] = (dref){.id = NO_DOBJ, .off = 0};
	ds_site_resolve(s, ci, false);
	cs = &s->sites.v[ci];
	de = &s->dsos.v[cs->dso];
	if (!cs->has_vaddr || de->kernel || !de->dso || !has_types(de->dso) ||
	    !(k = ds_track_to(s, de->dso, cs->sym, cs->vaddr, &call)))
		return cs->ds;
	if (call.flow == DS_FLOW_CALL) {
		const ds_symbol *callee = ds_dso_symbol_at(de->dso, call.target);
		uint8_t f = callee ? string_function(callee->raw) : 0;
		cs->ds->call_strfn = f ? (int8_t)f : -1;
	}
	for (size_t i = 0; i < 2 && i < nargs; i++) {
		const ds_tval *b = ds_track_reg(k, args[i]);
		if (b)
			cs->ds->arg[i] = tracked_object(s, de->dso, k, cs, *b, 0, 1);
	}
	ds_track_free(k);
	return cs->ds;
}

/* The object an argument's access charges: a type's, when the argument
 * points into a member of an aggregate (at no known field: the function
 * runs along it); a global's, a stack slot's or scalars' own; none when
 * the argument's static type does not fit where it points (a misfit). */
static dref via_object(ds_session *s, int32_t arg, const char *fn)
{
	const dobj *a = &s->dobjs.v[arg];
	dref r = {.id = NO_DOBJ};
	char *name;

	if (a->kind == DOBJ_FIELD)
		return (dref){.id = dobj_member(s, DOBJ_VIA, a->tid, fn), .off = 0};
	if (a->kind != DOBJ_GLOBAL && a->kind != DOBJ_STACK && a->kind != DOBJ_SCALAR)
		return r;
	name = ds_xasprintf("%s (via %s)", a->name, fn);
	r.id = dobj_add(s, DOBJ_VIA, name, NULL, fn);
	free(name);
	return r;
}

/* (6) A sample in a string function: the object its caller's argument
 * points into, named by the function the caller called (memcpy, which
 * glibc runs as __memmove_avx_unaligned_erms).  Which argument: the one
 * whose register the access goes through, else the ones the access's
 * direction fits (a store writes memcpy's first); all that fit must point
 * into the same object.  Not when the caller called another function that
 * went on to this one (a tail call: the arguments may be others). */
static dref by_caller_argument(ds_session *s, const ds_sample *sm, uint32_t si, const ds_trigger *t)
{
	const strfn *f = &string_functions[s->sites.v[si].ds->strfn - 1];
	size_t nargs;
	const int *args = ds_arch_int_args(ds_arch_host(), &nargs);
	uint64_t ra = leaf_return_address(s, sm);
	const site_ds *call;
	int32_t id = NO_DOBJ;
	int which = -1;

	if (!ra || nargs < 2)
		return (dref){.id = NO_DOBJ, .off = 0};
	call = call_arguments(s, ds_session_site(s, sm->pid, (sm->type & PERF_SAMPLE_TIME) ? sm->time : UINT64_MAX,
						 ra, false));
	if (call->call_strfn < 0)
		return (dref){.id = NO_DOBJ, .off = 0};
	if (call->call_strfn > 0)
		f = &string_functions[call->call_strfn - 1];
	for (int i = 0; i < 2 && f->arg[i]; i++)
		if (t->mem.base == args[i] || (t->mem.scale == 1 && t->mem.index == args[i]))
			which = i;
	for (int i = 0; i < 2 && f->arg[i]; i++) {
		bool fits = which >= 0 ? i == which
				       : (f->arg[i] == 'R' && t->mem.read) || (f->arg[i] == 'W' && t->mem.write);
		if (!fits)
			continue;
		if (call->arg[i].id == NO_DOBJ || (id != NO_DOBJ && call->arg[i].id != id))
			return (dref){.id = NO_DOBJ, .off = 0};
		id = call->arg[i].id;
	}
	return id == NO_DOBJ ? (dref){.id = NO_DOBJ, .off = 0} : via_object(s, id, f->name);
}

/* ---- bit fields ---- */

/* A bit-field access reads or writes its whole storage unit; which field
 * it means shows in what the code does to the value: masks (and, or, xor,
 * test), an increment of 1 << k, shifts before a mask.  After a load they
 * come next, on the registers the loaded value went to; before a store
 * they came just before, on the registers the stored value was made of.
 * Only those registers count: clang -O0 reloads the unit to merge an
 * incremented field back while the field is shifted into place in
 * another register, and that register's mask and shift are no hint about
 * the reload.
 *
 * An and either picks a field out (a read: the mask is the field) or
 * keeps the rest of the unit while a field is written (the field is the
 * complement).  Which one shows in where the value goes: back into the
 * unit it was loaded from (a write), or from that unit into a store (the
 * part of the stored value that was the old unit). */
enum hint_kind {
	HINT_EXACT,   /* the field's bits */
	HINT_ONE_BIT, /* a bit inside the field (an increment) */
	HINT_SHIFTED, /* the bits a shift left of the value: the unit's top field */
	HINT_OTHER,   /* the other reading of an and whose role did not show */
	HINT_NKINDS
};

typedef struct bit_hint {
	uint64_t mask; /* bits of the unit, from the start of the access */
	enum hint_kind kind;
} bit_hint;

typedef struct bit_hints {
	bit_hint v[32];
	size_t n;
	uint64_t unit; /* the bits the access covers */
} bit_hints;

static void add_hint(bit_hints *h, uint64_t mask, enum hint_kind kind)
{
	if (h->n < sizeof h->v / sizeof h->v[0] && mask)
		h->v[h->n++] = (bit_hint){mask, kind};
}

/* An and's mask m (bits of the unit): the field, or (keep) the bits kept
 * while the field is written. */
static void and_hints(bit_hints *h, uint64_t m, bool keep)
{
	add_hint(h, keep ? h->unit & ~m : m, HINT_EXACT);
	add_hint(h, keep ? m : h->unit & ~m, HINT_OTHER);
}

/* The immediate of in, an instruction applied to the value shifted right
 * by shift bits, as bits of the unit (0 when out of reach). */
static uint64_t imm_bits(const ds_insn *in, int shift, const bit_hints *h)
{
	return shift < 0 || shift >= 64 ? 0 : (((uint64_t)in->alu_imm & h->unit) << shift) & h->unit;
}

/* The hints of an instruction that works on memory or, with an
 * immediate, on the value; an and's only when it works on memory (it
 * keeps the rest of the unit: a read-modify-write). */
static void alu_hints(const ds_insn *in, int shift, bit_hints *h)
{
	if (shift < 0 || shift >= 64)
		return;
	switch (in->alu) {
	case DS_ALU_ADD:
		if (in->alu_imm)
			add_hint(h, 1ull << ((__builtin_ctzll((uint64_t)in->alu_imm) + shift) & 63), HINT_ONE_BIT);
		break;
	case DS_ALU_AND:
		if (in->nmem)
			and_hints(h, imm_bits(in, 0, h), true);
		break;
	case DS_ALU_TEST:
	case DS_ALU_OR:
	case DS_ALU_XOR:
		add_hint(h, imm_bits(in, shift, h), HINT_EXACT);
		break;
	default:
		break;
	}
}

/* The registers that hold the value: bit n of register r is bit
 * n + shift[r] of the unit; ands[r] the masks of the ands the value met
 * in r, whose role shows when r lets it go. */
typedef struct value_regs {
	uint64_t regs;
	int shift[64];
	uint64_t ands[64][4];
	unsigned nands[64];
} value_regs;

static bool holds(const value_regs *v, int reg)
{
	return reg >= 0 && reg < 64 && (v->regs >> reg & 1);
}

/* reg holds the value as from (another register, or -1: as it is at the
 * access) holds it. */
static void hold(value_regs *v, int reg, int from)
{
	if (reg < 0 || reg >= 64 || reg == from)
		return;
	v->regs |= 1ull << reg;
	v->shift[reg] = 0;
	v->nands[reg] = 0;
	if (from >= 0) {
		v->shift[reg] = v->shift[from];
		v->nands[reg] = v->nands[from];
		memcpy(v->ands[reg], v->ands[from], sizeof v->ands[reg]);
	}
}

/* reg no longer holds the value; keep: it went into, or came from, the
 * accessed unit (its ands kept the rest of the unit). */
static void let_go(value_regs *v, int reg, bool keep, bit_hints *h)
{
	for (unsigned i = 0; i < v->nands[reg]; i++)
		and_hints(h, v->ands[reg][i], keep);
	v->regs &= ~(1ull << reg);
}

static void let_go_all(value_regs *v, uint64_t regs, bit_hints *h)
{
	regs &= v->regs;
	for (int r = 0; regs; r++, regs >>= 1)
		if (regs & 1)
			let_go(v, r, false, h);
}

/* An instruction with an immediate on a register that holds the value:
 * its hint, its and, or its shift (dir +1 going forward from a load,
 * where a right shift moves the unit's bits down; -1 going back from a
 * store, where a left shift moved them up into place; either way the
 * shift grows).  False when it is none of those. */
static bool value_alu(const ds_insn *in, value_regs *v, int dir, bit_hints *h)
{
	int r = in->dst;

	if (in->alu == DS_ALU_NONE || in->nmem || !holds(v, r))
		return false;
	if (in->alu == DS_ALU_SHR || in->alu == DS_ALU_SHL) {
		int from = v->shift[r], k = (in->alu == DS_ALU_SHR ? dir : -dir) * (int)in->alu_imm;
		unsigned top = from + in->move_size * 8;
		v->shift[r] = from + k;
		/* shifted toward bit 0 of the unit, the value has lost the
		 * bits below the field; what is left up to the register's top
		 * may be the field (the unit's top field needs no mask) */
		if (k > 0 && from >= 0 && in->move_size && top <= 64 && from + k < (int)top)
			add_hint(h, (top == 64 ? ~0ull : (1ull << top) - 1) & ~((1ull << (from + k)) - 1) & h->unit,
				 HINT_SHIFTED);
	} else if (in->alu != DS_ALU_AND) {
		alu_hints(in, v->shift[r], h);
	} else if (v->nands[r] < sizeof v->ands[r] / sizeof v->ands[r][0] && imm_bits(in, v->shift[r], h)) {
		v->ands[r][v->nands[r]++] = imm_bits(in, v->shift[r], h);
	}
	return true;
}

/* Whether two instructions' memory operands name one place. */
static bool same_place(const ds_insn *a, const ds_memop *ma, const ds_insn *b, const ds_memop *mb)
{
	int64_t da = ma->disp + (ma->rip_relative ? (int64_t)(a->addr + a->len) : 0);
	int64_t db = mb->disp + (mb->rip_relative ? (int64_t)(b->addr + b->len) : 0);

	return ma->base == mb->base && ma->index == mb->index && (ma->index == DS_REG_NONE || ma->scale == mb->scale) &&
	       da == db && ma->rip_relative == mb->rip_relative && ma->segment == mb->segment;
}

/* regs without the stack and instruction pointers, which hold no data. */
static uint64_t data_regs(uint64_t regs)
{
	const ds_arch *arch = ds_arch_host();
	return regs & ~(1ull << ds_arch_dwarf_sp(arch)) & ~(1ull << ds_arch_dwarf_ip(arch));
}

/* After the load ld (code: its bytes, avail of them; mem: its access):
 * the loaded value, shifted and masked, as it moves between registers,
 * until no register holds it or it is stored back. */
static void hints_after_load(ds_decoder *dec, const uint8_t *code, size_t avail, const ds_insn *ld,
			     const ds_memop *mem, bit_hints *h)
{
	value_regs v = {0};
	uint64_t a = ld->addr + ld->len;

	hold(&v, ld->dst, -1);
	for (int i = 0; i < 8 && v.regs && ld->flow == DS_FLOW_NEXT; i++) {
		ds_insn in;
		if (a - ld->addr >= avail || !ds_decode(dec, code + (a - ld->addr), avail - (a - ld->addr), a, &in))
			break;
		a += in.len;
		if (value_alu(&in, &v, +1, h)) {
			continue;
		} else if (in.move == DS_MOVE_STORE && holds(&v, in.src) && same_place(ld, mem, &in, &in.mem[0])) {
			let_go(&v, in.src, true, h);
			break;
		} else if (in.move == DS_MOVE_REG && holds(&v, in.src)) {
			hold(&v, in.dst, in.src);
		} else if ((in.move == DS_MOVE_OTHER || in.move == DS_MOVE_ADD_REG) && !in.nmem &&
			   (holds(&v, in.dst) || (data_regs(in.regs_read) & v.regs))) {
			/* or %dl,%cl: merged with another value, still in it */
			if (!holds(&v, in.dst))
				hold(&v, in.dst, __builtin_ctzll(data_regs(in.regs_read) & v.regs));
		} else {
			let_go_all(&v, in.regs_written, h);
		}
		if (in.flow != DS_FLOW_NEXT)
			break;
	}
	let_go_all(&v, v.regs, h);
}

#define STORE_WINDOW 16

/* Before the store st (mem: its access; win: the up to STORE_WINDOW
 * instructions before it, oldest first from win[first]): the stored
 * value, followed back through the registers it was made of (copies,
 * masks, shifts, the or that merged a field into the rest of its unit)
 * to where they were loaded. */
static void hints_before_store(const ds_insn *win, size_t nwin, size_t first, const ds_insn *st,
			       const ds_memop *mem, bit_hints *h)
{
	value_regs v = {0};

	hold(&v, st->src, -1);
	for (size_t k = nwin; k-- > 0 && v.regs;) {
		const ds_insn *in = &win[(first + k) % STORE_WINDOW];
		if (in->flow != DS_FLOW_NEXT && in->flow != DS_FLOW_COND)
			break; /* what came before it does not run into the store */
		if (value_alu(in, &v, -1, h))
			continue;
		if (in->move == DS_MOVE_LOAD && holds(&v, in->dst)) {
			let_go(&v, in->dst, same_place(st, mem, in, &in->mem[0]), h);
		} else if (in->move == DS_MOVE_REG && holds(&v, in->dst)) {
			if (in->src != in->dst) { /* its value was src's */
				if (!holds(&v, in->src))
					hold(&v, in->src, in->dst);
				v.regs &= ~(1ull << in->dst);
			}
		} else if ((in->move == DS_MOVE_OTHER || in->move == DS_MOVE_ADD_REG) && !in->nmem &&
			   holds(&v, in->dst)) {
			/* or %dl,%cl: the bits of both registers are in the value */
			uint64_t r = data_regs(in->regs_read) & ~v.regs;
			for (int reg = 0; r; reg++, r >>= 1)
				if (r & 1) {
					hold(&v, reg, -1);
					v.shift[reg] = v.shift[in->dst];
				}
		} else {
			let_go_all(&v, in->regs_written, h);
		}
	}
	let_go_all(&v, v.regs, h);
}

/* The hints of trigger t's access: its own immediate (addb $4, (%rdi)),
 * or what is done to the value it loads, or to the value it stores. */
static void access_hints(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t, bit_hints *h)
{
	ds_decoder *dec = ds_backtracker_decoder(s->bt);
	ds_insn acc, win[STORE_WINDOW];
	size_t avail, nwin = 0, first = 0;
	const uint8_t *code = ds_dso_code_at(d, t->pc, &avail);
	uint64_t a;

	h->n = 0;
	h->unit = t->mem.size >= 8 ? ~0ull : (1ull << (t->mem.size * 8)) - 1;
	if (!code || !ds_decode(dec, code, avail, t->pc, &acc))
		return;
	if (acc.move == DS_MOVE_LOAD) {
		hints_after_load(dec, code, avail, &acc, &t->mem, h);
	} else if (acc.move == DS_MOVE_STORE) {
		/* x86 does not decode backwards: from the function's start */
		if (!st->sym || !(code = ds_dso_code_at(d, st->sym->start, &avail)))
			return;
		for (a = st->sym->start; a < t->pc;) {
			ds_insn *in = &win[(first + nwin) % STORE_WINDOW];
			if (!ds_decode(dec, code + (a - st->sym->start), avail - (a - st->sym->start), a, in))
				break;
			a += in->len;
			if (nwin < STORE_WINDOW)
				nwin++;
			else
				first = (first + 1) % STORE_WINDOW;
		}
		if (a == t->pc)
			hints_before_store(win, nwin, first, &acc, &t->mem, h);
	} else {
		alu_hints(&acc, 0, h);
	}
}

/* The bit of an access at byte off where member m begins. */
static int64_t unit_bit(const ds_member *m, uint64_t off)
{
	return ((int64_t)m->offset - (int64_t)off) * 8 + m->bit_offset;
}

/* Among the bit fields a storage-unit access covers, the one the code's
 * masks single out.  When they single out none (the unit copied whole, or
 * code this reads no hint in), the access is to one of them, and which
 * one is not known: "struct flags.<one of ready|busy|count>", never the
 * first of them, which the offset alone would name. */
static void refine_bitfield(ds_session *s, ds_dso *d, const site *st, const ds_trigger *t, dref *r)
{
	const dobj *o = r->id >= 0 ? &s->dobjs.v[r->id] : NULL;
	const ds_member *best = NULL;
	bit_hints h;
	ds_buf which = {0};
	size_t nbits = 0;

	if (!o || o->kind != DOBJ_FIELD || !o->t)
		return;
	for (size_t i = 0; i < o->t->nmembers; i++) {
		const ds_member *m = &o->t->members[i];
		if (m->bit_size && m->offset < r->off + t->mem.size && m->offset + 8 > r->off)
			nbits++;
	}
	if (nbits < 2)
		return;
	access_hints(s, d, st, t, &h);
	/* in the order of enum hint_kind: an exact mask first, the other
	 * reading of an and last */
	for (int kind = 0; kind < HINT_NKINDS && !best; kind++)
		for (size_t i = 0; i < o->t->nmembers && !best; i++) {
			const ds_member *m = &o->t->members[i];
			int64_t lo = unit_bit(m, r->off);
			uint64_t fm;
			if (!m->bit_size || !m->name || lo < 0 || lo + m->bit_size > 64)
				continue;
			fm = (m->bit_size == 64 ? ~0ull : ((1ull << m->bit_size) - 1)) << lo;
			for (size_t k = 0; k < h.n && !best; k++)
				if (h.v[k].kind == (enum hint_kind)kind &&
				    (kind == HINT_ONE_BIT ? (h.v[k].mask & fm) != 0 : h.v[k].mask == fm))
					best = m;
		}
	if (best) {
		if (!o->path || strcmp(o->path, best->name) != 0)
			r->id = dobj_member(s, DOBJ_FIELD, o->tid, best->name);
		return;
	}
	ds_buf_puts(&which, "<one of ");
	for (size_t i = 0; i < o->t->nmembers; i++) {
		const ds_member *m = &o->t->members[i];
		if (m->bit_size && m->name && unit_bit(m, r->off) >= 0 && unit_bit(m, r->off) < (int64_t)t->mem.size * 8)
			ds_buf_printf(&which, "%s%s", which.len > 8 ? "|" : "", m->name);
	}
	ds_buf_putc(&which, '>');
	r->id = dobj_member(s, DOBJ_FIELD, o->tid, ds_buf_str(&which));
	ds_buf_free(&which);
}

/* Steps (1)-(4) for trigger t's access t->mem at site st: its object (id
 * NO_DOBJ leaves the decision to each sample) and how it was found
 * (HOW_NONE: not found, or only an unknown bucket). */
static dref resolve_access(ds_session *s, const site *st, ds_dso *d, const ds_trigger *t, uint8_t *how)
{
	const ds_arch *arch = ds_arch_host();
	dref r = {.id = NO_DOBJ};

	*how = HOW_NONE;
	if (t->mem.segment) { /* %gs: no thread pointer of glibc's, nothing known */
		if (t->mem.fs)
			r = by_thread_local(s, d, st, t);
		*how = HOW_STATIC;
	} else if (t->mem.rip_relative || (t->mem.base == DS_REG_NONE && t->mem.index == DS_REG_NONE)) {
		r = by_static_address(s, d, t);
		*how = HOW_STATIC;
	} else {
		ds_var vars[DS_MAX_SCOPE_VARS];
		size_t n = ds_dso_vars_at(d, t->pc, vars, DS_MAX_SCOPE_VARS);
		if (n > DS_MAX_SCOPE_VARS)
			n = DS_MAX_SCOPE_VARS;
		if ((r = by_register_variable(s, d, st, t, vars, n)).id != NO_DOBJ) {
			*how = HOW_REG_VAR;
		} else if (t->mem.base == ds_arch_dwarf_sp(arch) || t->mem.base == ds_arch_dwarf_fp(arch)) {
			r = by_stack(s, d, st, t, vars, n);
			*how = HOW_STACK;
		} else {
			r = by_tracking(s, d, st, t, how);
		}
	}
	refine_bitfield(s, d, st, t, &r);
	/* a misfit names the static type only to say it is not the one; an
	 * unknown bucket is no answer */
	if (r.id == NO_DOBJ || s->dobjs.v[r.id].kind == DOBJ_MISFIT || s->dobjs.v[r.id].kind == DOBJ_UNKNOWN)
		*how = HOW_NONE;
	return r;
}

/* The trigger t with its second access as the one it makes. */
static ds_trigger second_access(const ds_trigger *t)
{
	ds_trigger u = *t;
	u.mem = t->mem2;
	memset(&u.mem2, 0, sizeof u.mem2);
	return u;
}

/* A site's trigger and the objects of its accesses, once per precision. */
static void resolve_site(ds_session *s, size_t si, bool precise)
{
	site *st = &s->sites.v[si];
	site_ds *x = st->ds;
	dso_ent *de = &s->dsos.v[st->dso];
	ds_trigger *t = &x->trig[precise];

	x->done[precise] = true;
	ds_site_resolve(s, si, false);
	st = &s->sites.v[si];
	if (!st->has_vaddr || !de->dso) {
		t->verdict = DS_BT_NO_CODE;
		x->obj[precise] = unknown(s, de->kernel ? "kernel" : "no-code");
		return;
	}
	ds_backtrack(s->bt, de->dso, st->vaddr, precise, t);
	if (t->verdict == DS_BT_NO_MEMORY) {
		x->obj[precise] = (dref){.id = dobj_add(s, DOBJ_NOMEM, "<no memory access>", NULL, NULL), .off = 0};
		return;
	}
	if (t->verdict != DS_BT_OK) {
		x->obj[precise] = unknown(s, ds_bt_verdict_name(t->verdict));
		return;
	}
	/* its samples may still be charged through the caller (6) */
	x->strfn = st->sym ? string_function(st->sym->name) : 0;
	if (!has_types(de->dso)) {
		x->obj[precise] = x->strfn ? (dref){.id = NO_DOBJ, .off = 0} : unknown(s, "no-debuginfo");
		x->obj2[precise] = unknown(s, "no-debuginfo");
		return;
	}
	x->obj[precise] = resolve_access(s, st, de->dso, t, &x->how[precise]);
	if (t->mem2.size) {
		ds_trigger u = second_access(t);
		x->obj2[precise] = resolve_access(s, st, de->dso, &u, &x->how2[precise]);
	}
}

/* ---- per sample ---- */

/* (5) the global whose storage holds a runtime address. */
static dref by_address(ds_session *s, uint32_t pid, uint64_t time, uint64_t ea, uint32_t size)
{
	uint32_t di;
	uint64_t vaddr, off;
	const ds_var *v;
	ds_dso *d;

	if (!ds_session_data_at(s, pid, time, ea, &di, &vaddr) || !(d = s->dsos.v[di].dso) ||
	    !(v = ds_dso_global_at(d, vaddr, &off)))
		return (dref){.id = NO_DOBJ, .off = 0};
	return object_in(s, ds_dso_type_at_die(d, v->type_die), off, size, v->name, DOBJ_GLOBAL);
}

/* The sample's user stack pointer, when its registers were sampled (the
 * simulator's samples charged after the fact, an eviction's, carry 0). */
static bool sp_of(const ds_sample *sm, uint64_t *sp)
{
	const ds_arch *arch = ds_arch_host();
	return sm->regs_abi && sm->regs &&
	       ds_arch_sampled_reg(arch, sm->regs_mask, sm->regs, ds_arch_dwarf_sp(arch), sp) && *sp;
}

/* An address in a thread's stack: the frame that holds it, as the sample's
 * stack unwinds (<stack F>: a char buffer of F's that a callee reads
 * through a pointer), or <stack> when the walk does not reach it. */
static dref by_stack_address(ds_session *s, const ds_sample *sm, uint64_t ea, uint32_t size)
{
	uint32_t si;
	int found = ds_session_stack_frame(s, sm, ea, &si);

	if (found < 0)
		return (dref){.id = NO_DOBJ, .off = 0};
	if (!found)
		return (dref){.id = dobj_add(s, DOBJ_STACK, "<stack>", NULL, NULL), .off = 0};
	ds_site_resolve(s, si, false);
	return object_in(s, NULL, 0, size, function_name(&s->sites.v[si]), DOBJ_STACK);
}

/* Where instances of the type sit relative to cache lines: the sample's
 * address minus its offset in the instance, modulo DS_ALIGN_MOD. */
static void count_alignment(ds_session *s, const dobj *o, uint64_t instance, int ev)
{
	align_key key = {o->tid, instance % DS_ALIGN_MOD};
	bool added;
	size_t i = ds_hash_intern(s->align_index, &key, sizeof key, &added);
	if (added)
		for (size_t e = 0; e < s->nev; e++)
			ds_vec_push(&s->align_samples, 0);
	s->align_samples.v[i * s->nev + (size_t)ev]++;
}

static void note_seen(site_ds *x, int32_t id)
{
	size_t i;
	for (i = 0; i < 4 && x->seen[i].n && x->seen[i].id != id; i++)
		;
	if (i == 4)
		return;
	x->seen[i].id = id;
	x->seen[i].n++;
}

/* The sample's effective address: its ADDR when the event gives one
 * (checked against the trigger's computation), else from the registers.
 * Where it came from, and the check, go into the record's flags. */
static bool sample_ea(const ds_sample *sm, const ds_trigger *t, uint64_t ip_vaddr, uint64_t *ea,
		      enum ds_ea_status *es, uint16_t *flags)
{
	uint64_t computed = 0;
	*es = t->verdict == DS_BT_OK ? ds_trigger_ea(ds_arch_host(), t, sm, ip_vaddr, &computed)
				     : DS_EA_NO_TRIGGER;
	if ((sm->type & PERF_SAMPLE_ADDR) && sm->addr) {
		*ea = sm->addr;
		*flags |= EA_FROM_ADDR << SR_EA_SHIFT;
		if (*es == DS_EA_OK || *es == DS_EA_STATIC)
			*flags |= SR_CHECKED | (computed != sm->addr ? SR_DISAGREE : 0);
		return true;
	}
	if (*es == DS_EA_OK || *es == DS_EA_STATIC) {
		*ea = computed;
		*flags |= EA_FROM_REGS << SR_EA_SHIFT;
		return true;
	}
	if (*es == DS_EA_REGS_CHANGED)
		*flags |= EA_FROM_REGS_CHANGED << SR_EA_SHIFT;
	return false;
}

/* Load or store: the sample's data source says when the event gives one
 * (the simulator, PEBS, IBS, and so for kernel code too); else the trigger
 * instruction's operand (t NULL: there is none). */
static uint16_t access_kind(const ds_sample *sm, const ds_trigger *t)
{
	uint64_t op = sm->type & PERF_SAMPLE_DATA_SRC ? (sm->data_src >> PERF_MEM_OP_SHIFT) : 0;
	uint16_t f = 0;

	if (op & (PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE))
		return (op & PERF_MEM_OP_LOAD ? SR_LOAD : 0) | (op & PERF_MEM_OP_STORE ? SR_STORE : 0);
	if (!t || t->verdict != DS_BT_OK || t->mem.address_only)
		return 0;
	if (t->mem.read)
		f |= SR_LOAD;
	if (t->mem.write)
		f |= SR_STORE;
	return f;
}

/* Add record i to the aggregates: the data object's metrics, the type's
 * alignment, the resolution statistics and the site's annotation. */
static void count_record(ds_session *s, size_t i)
{
	const ds_srec *rc = &s->srecs.v[i];
	const dobj *o = &s->dobjs.v[rc->dobj];
	size_t slot = (size_t)rc->dobj * s->nev + rc->ev;
	site_ds *x;
	const ds_trigger *t;
	unsigned how = (rc->flags >> SR_HOW_SHIFT) & 7;

	s->dobj_samples.v[slot]++;
	s->dobj_count.v[slot] += rc->period;
	if (!ds_srec_own(s, rc))
		return; /* its sample counted in the statistics already */
	if (rc->flags & SR_KERNEL)
		return;
	if (s->dobjs.v[rc->dobj].kind == DOBJ_TOOL) {
		s->tool_samples++;
		return;
	}
	x = s->sites.v[rc->site].ds;
	t = &x->trig[(rc->flags & SR_PRECISE) != 0];
	s->verdict_samples[t->verdict]++;
	note_seen(x, rc->dobj);
	if (rc->flags & SR_IFETCH) {
		s->ea_ifetch++;
		s->how_samples[HOW_NONE]++;
		return;
	}
	switch ((rc->flags >> SR_EA_SHIFT) & 3) {
	case EA_FROM_ADDR: s->ea_from_addr++; break;
	case EA_FROM_REGS: s->ea_from_regs++; break;
	case EA_FROM_REGS_CHANGED: s->ea_regs_changed++; break;
	default: s->ea_none++; break;
	}
	s->ea_checked += (rc->flags & SR_CHECKED) != 0;
	s->ea_disagree += (rc->flags & SR_DISAGREE) != 0;
	s->how_samples[how]++;
	if (t->verdict == DS_BT_OK) {
		uint32_t dso = s->sites.v[rc->site].dso;
		while (s->dso_mem.n <= dso) {
			ds_vec_push(&s->dso_mem, 0);
			ds_vec_push(&s->dso_resolved, 0);
		}
		s->dso_mem.v[dso]++;
		s->dso_resolved.v[dso] += how != HOW_NONE;
	}
	if ((rc->flags & SR_EA) && o->kind == DOBJ_FIELD)
		count_alignment(s, o, rc->ea - rc->off, rc->ev);
}

/* What object d is to the heap tracker (a dso_tool value): its library
 * (record --heap preloads it), libunwind (which it calls, and which a
 * program hardly maps of its own), or the program's. */
static uint8_t dso_tool(ds_session *s, uint32_t d)
{
	const char *m;

	while (s->dso_tool.n <= d)
		ds_vec_push(&s->dso_tool, 0);
	if (s->dso_tool.v[d])
		return s->dso_tool.v[d];
	m = s->dsos.v[d].module;
	s->dso_tool.v[d] = !strncmp(m, DS_HEAP_LIB, strlen(DS_HEAP_LIB)) ? 2 : !strncmp(m, "libunwind", 9) ? 3 : 1;
	return s->dso_tool.v[d];
}

/* Whether the heap tracker is mapped in the recording: an experiment of
 * record --heap (looked for once). */
static bool tracker_mapped(ds_session *s)
{
	if (!s->tracker_mapped) {
		s->tracker_mapped = 1;
		for (uint32_t d = 0; d < s->dsos.n; d++)
			if (dso_tool(s, d) == 2)
				s->tracker_mapped = 2;
	}
	return s->tracker_mapped == 2;
}

/* Whether a sample is the heap tracker's own work: in its library, in
 * libunwind beside it, or with one of its frames in the call chain (the
 * clock it reads, the C library it writes through). */
static bool tracker_sample(ds_session *s, const ds_srec *rc)
{
	const uint32_t *key;
	size_t len;

	/* no chain is looked at in an experiment without the tracker */
	if (!tracker_mapped(s))
		return false;
	if (dso_tool(s, s->sites.v[rc->site].dso) >= 2)
		return true;
	if (rc->chain == UINT32_MAX)
		return false;
	while (s->chain_tool.n <= rc->chain)
		ds_vec_push(&s->chain_tool, 0);
	if (!s->chain_tool.v[rc->chain]) {
		s->chain_tool.v[rc->chain] = 1;
		key = ds_chain_sites(s, rc->chain, &len);
		for (size_t i = 0; i < len; i++)
			if (dso_tool(s, s->sites.v[key[i]].dso) == 2)
				s->chain_tool.v[rc->chain] = 2;
	}
	return s->chain_tool.v[rc->chain] == 2;
}

/* Whether a sample is of its trigger's second access (call [mem] reads
 * the pointer and writes the return address): the direction the event
 * gives (the simulator, PEBS, IBS) tells them apart, else an address
 * outside the first access's static one (a page fault's). */
static bool of_second_access(const ds_sample *sm, const ds_trigger *t)
{
	uint64_t op = sm->type & PERF_SAMPLE_DATA_SRC ? sm->data_src >> PERF_MEM_OP_SHIFT : 0;
	uint64_t a;

	if (t->verdict != DS_BT_OK || !t->mem2.size)
		return false;
	if (op & PERF_MEM_OP_LOAD)
		return !t->mem.read && t->mem2.read;
	if (op & PERF_MEM_OP_STORE)
		return !t->mem.write && t->mem2.write;
	if (!(sm->type & PERF_SAMPLE_ADDR) || !sm->addr ||
	    !(t->mem.rip_relative || (t->mem.base == DS_REG_NONE && t->mem.index == DS_REG_NONE)))
		return false;
	a = (uint64_t)t->mem.disp + (t->mem.rip_relative ? t->pc + t->len : 0);
	return sm->addr - a >= t->mem.size;
}

/* The optional columns of the record just kept: physical address, data
 * source, weight. */
static void keep_columns(ds_session *s, const ds_sample *sm)
{
	if (s->srec_paddr.cap) {
		uint64_t pa = (sm->type & PERF_SAMPLE_PHYS_ADDR) ? sm->phys_addr : 0;
		ds_vec_push(&s->srec_paddr, pa);
		s->has_paddr |= pa != 0;
	}
	if (s->srec_data_src.cap)
		ds_vec_push(&s->srec_data_src, (sm->type & PERF_SAMPLE_DATA_SRC) ? sm->data_src : 0);
	if (s->srec_weight.cap)
		ds_vec_push(&s->srec_weight, (sm->type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) &&
						     sm->weight <= UINT32_MAX ? (uint32_t)sm->weight : 0);
}

/* Attribute sample k (the record loading made of it) to its data object. */
static void attribute(ds_session *s, const ds_record *r, const bool *precise, size_t k)
{
	const ds_sample *sm = &r->u.sample;
	bool pr = precise[r->evidx], kernel = ds_ip_is_kernel(r->misc);
	ds_srec rc = s->srecs.v[k];
	site_ds *x;
	const ds_trigger *trig;
	ds_trigger second;
	dref d, a;
	enum ds_ea_status es;
	uint64_t sp;
	thread_ent *te;

	rc.ea = 0;
	rc.off = 0;
	rc.flags = pr ? SR_PRECISE : 0;
	/* the kernel's too, when the tracker called it (its writes) */
	if (tracker_sample(s, &rc)) {
		rc.dobj = dobj_add(s, DOBJ_TOOL, "<heap tracker>", NULL, NULL);
		goto keep;
	}
	if (kernel) {
		/* a fault the kernel took on a user address still has it */
		rc.flags |= SR_KERNEL;
		if ((sm->type & PERF_SAMPLE_ADDR) && sm->addr) {
			rc.ea = sm->addr;
			rc.flags |= SR_EA | EA_FROM_ADDR << SR_EA_SHIFT;
		}
		rc.dobj = dobj_add(s, DOBJ_KERNEL, "<kernel>", NULL, NULL);
		rc.flags |= access_kind(sm, NULL);
		goto keep;
	}
	x = site_ds_of(s, rc.site);
	if (!x->done[pr])
		resolve_site(s, rc.site, pr);
	trig = &x->trig[pr];
	if (of_second_access(sm, trig)) {
		second = second_access(trig);
		trig = &second;
		rc.flags |= SR_MEM2;
	}
	if ((sm->type & PERF_SAMPLE_ADDR) && sm->addr - sm->ip < 16) {
		/* a fault on the instruction's own bytes (up to 15, and the page
		 * after them): fetching code, not touching data */
		rc.flags |= SR_IFETCH;
		rc.dobj = unknown(s, "instruction-fetch").id;
		goto keep;
	}
	if (sample_ea(sm, trig, s->sites.v[rc.site].vaddr, &rc.ea, &es, &rc.flags))
		rc.flags |= SR_EA;
	d = rc.flags & SR_MEM2 ? x->obj2[pr] : x->obj[pr];
	rc.flags |= (uint16_t)((rc.flags & SR_MEM2 ? x->how2[pr] : x->how[pr]) << SR_HOW_SHIFT);
	/* a thread's stack stays where it is: a few samples find it */
	te = &s->threads.v[rc.thread];
	if (te->stack_looks < 8 && sp_of(sm, &sp))
		te->stack_looks = ds_session_note_sp(s, sm->pid, rc.time, sp) ? UINT8_MAX : te->stack_looks + 1;
	/* a string function's access: what its caller's argument points
	 * into, named by the function, whether or not the address is known */
	if (d.id == NO_DOBJ && x->strfn && trig->verdict == DS_BT_OK &&
	    (d = by_caller_argument(s, sm, rc.site, trig)).id != NO_DOBJ)
		rc.flags = (uint16_t)((rc.flags & ~(7u << SR_HOW_SHIFT)) | HOW_VIA << SR_HOW_SHIFT);
	/* the address names the global or the stack frame it is in where the
	 * code said nothing, or only scalars (an array's elements through a
	 * double *, a caller's buffer through a char *) */
	if ((d.id == NO_DOBJ || s->dobjs.v[d.id].kind == DOBJ_SCALAR) && (rc.flags & SR_EA) &&
	    ((a = by_address(s, sm->pid, rc.time, rc.ea, trig->mem.size)).id != NO_DOBJ ||
	     (a = by_stack_address(s, sm, rc.ea, trig->mem.size)).id != NO_DOBJ)) {
		d = a;
		rc.flags = (uint16_t)((rc.flags & ~(7u << SR_HOW_SHIFT)) | HOW_ADDRESS << SR_HOW_SHIFT);
	}
	if (d.id == NO_DOBJ && es == DS_EA_REGS_CHANGED)
		d = unknown(s, "regs-changed");
	else if (d.id == NO_DOBJ && x->strfn) /* what its caller passed is not known */
		d = unknown(s, "caller-argument");
	else if (d.id == NO_DOBJ)
		d = unknown(s, "no-variable");
	rc.dobj = d.id;
	/* offsets inside one aggregate; none is 4 GiB */
	rc.off = d.off <= UINT32_MAX ? (uint32_t)d.off : 0;
	rc.flags |= access_kind(sm, trig);
keep:
	s->srecs.v[k] = rc;
	keep_columns(s, sm);
	count_record(s, k);
}

/* A derived record (ds_session_event) is the record of its sample, the
 * one before it, with its own event and period. */
static void derived_record(ds_session *s, const ds_sample *sm, size_t k)
{
	ds_srec rc = s->srecs.v[k - 1];
	rc.ev = s->srecs.v[k].ev;
	rc.period = s->srecs.v[k].period;
	s->srecs.v[k] = rc;
	keep_columns(s, sm);
	count_record(s, k);
}

/* Whether an access to a `want` (the base type a pointer reached it
 * through) can be to member m: the member's elements are of the same
 * kind and size (char read through an unsigned char * still is). */
static bool element_fits(const ds_member *m, const ds_type *want)
{
	const ds_type *t = ds_type_strip(m->type), *w = ds_type_strip(want);

	while (t && t->kind == DS_TYPE_ARRAY)
		t = ds_type_strip(t->target);
	if (!t || !w)
		return false;
	if (t->kind == DS_TYPE_ENUM)
		t = t->target ? ds_type_strip(t->target) : t;
	if (w->kind == DS_TYPE_ENUM)
		w = w->target ? ds_type_strip(w->target) : w;
	return t->kind == w->kind && t->size == w->size;
}

int32_t ds_dobj_in_type(ds_session *s, int32_t tid, uint64_t off, const ds_srec *x, const ds_type *elem,
			const char *via, bool probe)
{
	const site_ds *sd = s->sites.v[x->site].ds;
	const ds_trigger *t = &sd->trig[(x->flags & SR_PRECISE) != 0];
	const ds_type *agg = s->tidents.v[tid].t;
	const ds_member *leaf = NULL;
	ds_buf path = {0};
	int32_t id = NO_DOBJ;

	if (via)
		return probe ? 0 : dobj_member(s, DOBJ_VIA, tid, via);
	if (ds_type_member_path(agg, off, x->flags & SR_MEM2 ? t->mem2.size : t->mem.size, &path, &leaf) &&
	    leaf && (!elem || element_fits(leaf, elem)))
		id = probe ? 0 : dobj_member(s, DOBJ_FIELD, tid, path.p);
	ds_buf_free(&path);
	return id;
}

const char *ds_site_access(ds_session *s, uint32_t si)
{
	const site_ds *x = site_ds_of(s, si);

	if (!x->done[1])
		resolve_site(s, si, true);
	x = s->sites.v[si].ds;
	if (x->trig[1].verdict != DS_BT_OK || x->obj[1].id == NO_DOBJ)
		return NULL;
	return s->dobjs.v[x->obj[1].id].name;
}

const char *ds_site_dataobject(const ds_session *s, size_t si, const char **verdict,
			       const ds_trigger **trig)
{
	const site_ds *x = s->sites.v[si].ds;
	int32_t best = NO_DOBJ;
	uint32_t n = 0;

	*verdict = NULL;
	*trig = NULL;
	if (!x)
		return NULL;
	*trig = &x->trig[x->done[0] ? 0 : 1];
	*verdict = ds_bt_verdict_name((*trig)->verdict);
	for (size_t i = 0; i < 4; i++)
		if (x->seen[i].n > n) {
			n = x->seen[i].n;
			best = x->seen[i].id;
		}
	return best == NO_DOBJ ? NULL : s->dobjs.v[best].name;
}

int ds_dataspace_build(ds_session *s, ds_err *err)
{
	uint64_t cur = 0, n = 0, total = ds_perfdata_data_size(s->pd), types = 0;
	size_t k = 0;
	bool *precise;
	ds_progress pr;
	ds_record r;
	int rc = 0;

	if (s->ds_built)
		return 0;
	if (ds_session_load(s, 0, err))
		return -1;
	s->ds_built = true;
	precise = ds_xcalloc(s->nev, sizeof *precise);
	s->bt = ds_backtracker_new(ds_arch_host(), err);
	if (!s->bt) {
		free(precise);
		return -1;
	}
	s->dobj_index = ds_hash_new();
	s->tident_index = ds_hash_new();
	s->align_index = ds_hash_new();
	for (size_t e = 0; e < s->nev; e++) {
		const struct perf_event_attr *a = &ds_session_event(s, e)->attr;
		precise[e] = ds_event_precise(ds_session_event(s, e));
		types |= a->sample_type;
	}
	/* the optional columns exist (have a capacity) only when some event
	 * samples them */
	if (types & PERF_SAMPLE_PHYS_ADDR)
		ds_vec_reserve(&s->srec_paddr, s->srecs.n + 1);
	if (types & PERF_SAMPLE_DATA_SRC)
		ds_vec_reserve(&s->srec_data_src, s->srecs.n + 1);
	if (types & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		ds_vec_reserve(&s->srec_weight, s->srecs.n + 1);
	ds_progress_begin(&pr, "attributing samples to data");
	while (k < s->srecs.n && (rc = ds_perfdata_next(s->pd, &cur, &r, err)) > 0) {
		if (s->opts.progress && (++n & 0xffff) == 0)
			ds_progress_update(&pr, cur, total);
		if (r.kind == DS_REC_SAMPLE && ds_sample_wanted(s, r.u.sample.tid)) {
			attribute(s, &r, precise, k++);
			while (k < s->srecs.n && !ds_srec_own(s, &s->srecs.v[k]))
				derived_record(s, &r.u.sample, k++);
		}
	}
	ds_progress_end(&pr);
	free(precise);
	if (rc < 0 || ds_heap_build(s, err))
		return -1;
	if (s->heap.files)
		ds_dataspace_recount(s); /* heap blocks renamed some records' objects */
	return 0;
}

void ds_dataspace_recount(ds_session *s)
{
	ds_zero_u64(s->dobj_samples.v, s->dobj_samples.n);
	ds_zero_u64(s->dobj_count.v, s->dobj_count.n);
	ds_hash_free(s->align_index);
	s->align_index = ds_hash_new();
	s->align_samples.n = 0;
	memset(s->how_samples, 0, sizeof s->how_samples);
	memset(s->verdict_samples, 0, sizeof s->verdict_samples);
	s->ea_from_addr = s->ea_from_regs = s->ea_regs_changed = s->ea_none = 0;
	s->ea_checked = s->ea_disagree = s->ea_ifetch = s->tool_samples = 0;
	ds_zero_u64(s->dso_mem.v, s->dso_mem.n);
	ds_zero_u64(s->dso_resolved.v, s->dso_resolved.n);
	for (size_t i = 0; i < s->sites.n; i++)
		if (s->sites.v[i].ds)
			memset(s->sites.v[i].ds->seen, 0, sizeof s->sites.v[i].ds->seen);
	for (size_t i = 0; i < s->srecs.n; i++)
		if (ds_srec_kept(s, i))
			count_record(s, i);
}

void ds_dataspace_free(ds_session *s)
{
	ds_vec_free(&s->srec_paddr);
	ds_vec_free(&s->srec_data_src);
	ds_vec_free(&s->srec_weight);
	for (size_t i = 0; i < s->dobjs.n; i++) {
		free(s->dobjs.v[i].type);
		free(s->dobjs.v[i].path);
		free(s->dobjs.v[i].name);
	}
	ds_vec_free(&s->dobjs);
	for (size_t i = 0; i < s->tidents.n; i++)
		free(s->tidents.v[i].name);
	ds_vec_free(&s->tidents);
	ds_vec_free(&s->tident_head);
	ds_hash_free(s->tident_index);
	ds_u64map_free(&s->tident_memo);
	ds_vec_free(&s->dobj_samples);
	ds_vec_free(&s->dobj_count);
	ds_vec_free(&s->align_samples);
	ds_vec_free(&s->dso_mem);
	ds_vec_free(&s->dso_resolved);
	ds_vec_free(&s->dso_tool);
	ds_vec_free(&s->chain_tool);
	ds_hash_free(s->dobj_index);
	ds_hash_free(s->align_index);
	ds_backtracker_free(s->bt);
	ds_flows_free(s->flows);
	for (size_t i = 0; i < s->sites.n; i++)
		free(s->sites.v[i].ds);
}
