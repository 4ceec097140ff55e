/*
 * Layout advice (dsprof layout --suggest): a member order for a struct,
 * from its profile, printed as a C header that compiles in place of the
 * struct's definition, and what it predicts.
 *
 * The members (each top-level member, an anonymous struct or union
 * member, or a run of bit fields sharing a storage unit, is one unit) are
 * split by what the samples saw:
 *   - hot (at least 1% of the type's samples) or cold;
 *   - among the hot ones, those that exactly one thread accesses
 *     ("owned"): when two or more threads own members of a type that is
 *     written (a sample of a write, or of a load served by another core's
 *     modified copy), each owner's go to a block of their own, aligned to
 *     a pair of lines (128 bytes: adjacent-line prefetch fetches lines in
 *     pairs, and no level has longer ones), so that no line is written by
 *     one thread and used by another (the samples of a thread may all be
 *     loads of what it writes: its misses are the loads);
 *   - hot members first, those the same function accesses most together
 *     (co-access, as the samples' code tells it), the hottest such group
 *     and member first, a smaller one moved into a hole the next would
 *     leave; cold ones last, by alignment, no holes;
 *   - when the type is an array that the program scans (the sampled
 *     instances advance in time), its cold members are half its size or
 *     more and take at most 5% of its samples: the cold members move to a
 *     struct of their own, reached by a pointer (a hot/cold split).
 * The prediction counts the lines a visit of an instance touches (the hot
 * members' bytes at the alignment most samples had; for a scanned array,
 * the distinct lines of 256 consecutive instances, shared lines counted
 * once), before and after, and scales each miss event's count on the
 * type by their ratio; a HITM event's count goes away with the sharing
 * the owners' blocks end.  --keep-abi keeps every offset: only the whole
 * struct's alignment is proposed.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OWNERS 4
#define PAIR 128          /* a pair of lines, as adjacent-line prefetch couples them */
#define HOT_SHARE 0.01    /* of the type's samples: hot */
#define SCAN_INSTANCES 256
#define FUNCS 8           /* per member: the functions whose samples it has, the first so many */

typedef struct unit {
	size_t first, last;   /* its rows in the layout */
	const ds_member *m;
	uint64_t offset, size, align, new_offset;
	uint64_t samples;     /* of the perf.data's events */
	uint64_t *count;      /* per event */
	uint32_t threads[MAX_OWNERS]; /* the threads that access it */
	size_t nthreads;      /* MAX_OWNERS + 1: more */
	struct {
		const ds_symbol *sym;
		uint64_t n;
	} fn[FUNCS];          /* the functions whose samples touched it */
	const ds_symbol *main_fn; /* of them the one with the most: its group of co-accessed members */
	uint64_t group_heat;  /* the samples of the members with the same main_fn */
	size_t group_first;   /* the first of them declared */
	bool hot, pinned, split_out;
	int group;            /* 0 shared, 1.. an owner's block */
} unit;

typedef struct plan {
	unit *u;
	size_t n;
	size_t *order;        /* the new order of the units kept in the struct */
	size_t norder;
	int ngroups;          /* owners' blocks */
	bool split, keep_abi;
	bool written;         /* a sample wrote the type, or missed on another core's write */
	uint64_t size, align, old_align;
	const char *cold_member; /* the split's pointer member */
	uint64_t cold_offset;    /* and its offset */
} plan;

/* ---- the units ---- */

static bool bit_field(const ds_layout_row *r)
{
	return r->kind == DS_LROW_MEMBER && r->bit_size;
}

/* The units of the layout's top level, in declaration order. */
static void find_units(const ds_layout *l, plan *p)
{
	p->u = ds_xcalloc(l->nrows + 1, sizeof *p->u);
	for (size_t i = 0; i < l->nrows; i++) {
		const ds_layout_row *r = &l->rows[i];
		unit u = {0};
		if (r->depth != 0 || r->pointee || (r->kind != DS_LROW_MEMBER && r->kind != DS_LROW_OPEN))
			continue;
		/* a bit field in the storage unit of the one before: that unit's */
		if (bit_field(r) && p->n && bit_field(&l->rows[p->u[p->n - 1].last]) &&
		    l->rows[p->u[p->n - 1].last].offset == r->offset) {
			p->u[p->n - 1].last = i;
			continue;
		}
		u.first = u.last = i;
		if (r->kind == DS_LROW_OPEN)
			for (size_t k = i + 1; k < l->nrows; k++)
				if (l->rows[k].kind == DS_LROW_CLOSE && l->rows[k].depth == 0) {
					u.last = k;
					break;
				}
		u.m = r->member;
		u.offset = r->offset;
		u.size = l->rows[u.last].kind == DS_LROW_CLOSE ? l->rows[u.last].size : r->size;
		u.align = u.m ? ds_type_alignment(u.m->type) : 1;
		if (u.m && u.m->align > u.align)
			u.align = u.m->align;
		u.pinned = u.m && (u.m->base_class || (u.m->name && !strncmp(u.m->name, "_vptr", 5)));
		p->u[p->n++] = u;
	}
}

/* The unit that holds byte off, or NULL: a struct's units are in offset
 * order. */
static unit *unit_at(plan *p, uint64_t off)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->u[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && off < p->u[lo - 1].offset + (p->u[lo - 1].size ? p->u[lo - 1].size : 1))
		return &p->u[lo - 1];
	return NULL;
}

static void add_function(unit *u, const ds_symbol *sym)
{
	for (size_t k = 0; k < FUNCS; k++) {
		if (u->fn[k].sym == sym || !u->fn[k].n) {
			u->fn[k].sym = sym;
			u->fn[k].n++;
			return;
		}
	}
}

static void add_thread(unit *u, uint32_t tid)
{
	for (size_t k = 0; k < u->nthreads && k < MAX_OWNERS; k++)
		if (u->threads[k] == tid)
			return;
	if (u->nthreads < MAX_OWNERS)
		u->threads[u->nthreads] = tid;
	if (u->nthreads <= MAX_OWNERS)
		u->nthreads++;
}

/* Whether a sample's access writes: its own direction says so, or its
 * instruction writes what it reads (add [rdi], 1: a sample of its load
 * is of a write all the same). */
static bool writes(const ds_session *s, const ds_srec *r)
{
	const site_ds *x = s->sites.v[r->site].ds;
	const ds_trigger *t;

	if (r->flags & SR_STORE)
		return true;
	if (!x)
		return false;
	t = &x->trig[(r->flags & SR_PRECISE) != 0];
	return t->verdict == DS_BT_OK && (r->flags & SR_MEM2 ? t->mem2.write : t->mem.write);
}

typedef struct visit {
	uint32_t thread, ev;
	uint64_t time, base;
} visit;

static int cmp_visit(const void *a, const void *b)
{
	const visit *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Who accesses each unit, whether the type is written, and whether the
 * program scans an array of the type: of the pairs of a thread's samples
 * of one event one after the other in time on two instances, nine in ten
 * or more go to a higher address. */
static bool profile(ds_session *s, int32_t tid, const ds_type *t, plan *p)
{
	DS_VEC(visit) v = {0};
	size_t up = 0, moved = 0;

	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *r = &s->srecs.v[i];
		const dobj *d;
		unit *u;
		if (!ds_srec_kept(s, i) || r->dobj < 0)
			continue;
		d = &s->dobjs.v[r->dobj];
		if (d->kind != DOBJ_FIELD || d->tid != tid || !(u = unit_at(p, r->off)))
			continue;
		add_thread(u, s->threads.v[r->thread].tid);
		ds_site_resolve(s, r->site, false);
		add_function(u, s->sites.v[r->site].sym);
		p->written |= writes(s, r) || ds_event_coherence(ds_session_event(s, r->ev)->name);
		if ((r->flags & SR_EA) && r->time != UINT64_MAX && r->ea >= r->off) {
			visit x = {r->thread, r->ev, r->time, r->ea - r->off};
			ds_vec_push(&v, x);
		}
	}
	ds_sort(v.v, v.n, sizeof *v.v, cmp_visit);
	for (size_t i = 1; i < v.n; i++)
		if (v.v[i].thread == v.v[i - 1].thread && v.v[i].ev == v.v[i - 1].ev && v.v[i].base != v.v[i - 1].base) {
			moved++;
			up += v.v[i].base > v.v[i - 1].base;
		}
	ds_vec_free(&v);
	/* the members a function accesses most: one group, as hot as they */
	for (size_t i = 0; i < p->n; i++) {
		unit *u = &p->u[i];
		uint64_t best = 0;
		for (size_t k = 0; k < FUNCS && u->fn[k].n; k++)
			if (u->fn[k].n > best) {
				best = u->fn[k].n;
				u->main_fn = u->fn[k].sym;
			}
	}
	for (size_t i = 0; i < p->n; i++) {
		p->u[i].group_first = i;
		for (size_t k = 0; k < p->n; k++)
			if (p->u[k].main_fn == p->u[i].main_fn) {
				p->u[i].group_heat += p->u[k].samples;
				if (k < p->u[i].group_first)
					p->u[i].group_first = k;
			}
	}
	return t->size && moved >= 16 && up * 10 >= moved * 9;
}

/* ---- the plan ---- */

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* Hotness by powers of two: members about as hot keep their order. */
static int heat(const unit *u)
{
	return u->samples ? 64 - __builtin_clzll(u->samples) : 0;
}

static int cmp_hotness(const void *a, const void *b, void *arg)
{
	const plan *p = arg;
	const unit *x = &p->u[*(const size_t *)a], *y = &p->u[*(const size_t *)b];
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->main_fn != y->main_fn) { /* co-accessed members together, the hottest group first */
		if (x->group_heat != y->group_heat)
			return x->group_heat > y->group_heat ? -1 : 1;
		return x->group_first < y->group_first ? -1 : 1;
	}
	if (heat(x) != heat(y))
		return heat(x) > heat(y) ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

static int cmp_packing(const void *a, const void *b, void *arg)
{
	const plan *p = arg;
	const unit *x = &p->u[*(const size_t *)a], *y = &p->u[*(const size_t *)b];
	if (x->align != y->align)
		return x->align > y->align ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

/* Place units idx[0..n) in that order from *off, except that a smaller
 * one later in the list moves into a hole the next would leave. */
static void place(plan *p, size_t *idx, size_t n, uint64_t *off, uint64_t block_align)
{
	for (size_t i = 0; i < n; i++) {
		unit *u = &p->u[idx[i]];
		uint64_t at = round_up(*off, i == 0 && block_align > u->align ? block_align : u->align);
		for (size_t k = i + 1; k < n && at > *off; k++) {
			unit *v = &p->u[idx[k]];
			uint64_t vat = round_up(*off, v->align);
			if (i > 0 && vat + v->size <= at) {
				size_t t = idx[k];
				memmove(idx + i + 1, idx + i, (k - i) * sizeof *idx);
				idx[i] = t;
				u = v;
				at = vat;
				break;
			}
		}
		u->new_offset = at;
		*off = at + u->size;
		p->order[p->norder++] = idx[i];
	}
}

/* The new order and offsets. */
static void make_plan(plan *p, const ds_type *t, bool scanned, bool keep_abi)
{
	uint64_t total = 0, cold_bytes = 0, cold_samples = 0, off = 0;
	uint32_t owners[MAX_OWNERS];
	size_t nown = 0, *idx = ds_xcalloc(p->n + 1, sizeof *idx), n;

	p->order = ds_xcalloc(p->n + 1, sizeof *p->order);
	p->old_align = ds_type_alignment(t);
	for (size_t i = 0; i < p->n; i++)
		total += p->u[i].samples;
	for (size_t i = 0; i < p->n; i++) {
		unit *u = &p->u[i];
		u->hot = u->samples && (double)u->samples >= HOT_SHARE * (double)total;
		if (!u->hot) {
			cold_bytes += u->size;
			cold_samples += u->samples;
		}
		/* a hot member of a written type that one thread alone
		 * accesses: that thread's block */
		if (u->hot && p->written && u->nthreads == 1) {
			size_t k;
			for (k = 0; k < nown && owners[k] != u->threads[0]; k++)
				;
			if (k == nown && nown < MAX_OWNERS)
				owners[nown++] = u->threads[0];
			u->group = k < MAX_OWNERS ? (int)k + 1 : 0;
		}
	}
	if (nown < 2)
		for (size_t i = 0; i < p->n; i++)
			p->u[i].group = 0;
	p->ngroups = nown >= 2 ? (int)nown : 0;
	p->keep_abi = keep_abi;
	if (keep_abi) {
		/* every offset kept: the members of different threads stay
		 * where they are; aligned to a line pair, an instance at least
		 * shares no line with the next */
		for (size_t i = 0; i < p->n; i++) {
			p->u[i].new_offset = p->u[i].offset;
			p->u[i].group = 0;
			p->order[p->norder++] = i;
		}
		p->align = p->ngroups && PAIR > p->old_align ? PAIR : p->old_align;
		p->size = round_up(t->size, p->align);
		free(idx);
		return;
	}
	p->split = scanned && !p->ngroups && cold_bytes * 2 >= t->size && cold_samples * 20 <= total;
	/* the compiler's own: base classes and the vtable pointer, first */
	n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->u[i].pinned)
			idx[n++] = i;
	place(p, idx, n, &off, 1);
	/* the hot members, the shared ones and then each owner's block */
	n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (!p->u[i].pinned && p->u[i].hot)
			idx[n++] = i;
	ds_sort_r(idx, n, sizeof *idx, cmp_hotness, p);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a; b < n && p->u[idx[b]].group == p->u[idx[a]].group; b++)
			;
		place(p, idx + a, b - a, &off, p->u[idx[a]].group ? PAIR : 1);
	}
	/* the cold ones, packed; split out, after a pointer to them */
	n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (!p->u[i].pinned && !p->u[i].hot)
			idx[n++] = i;
	ds_sort_r(idx, n, sizeof *idx, cmp_packing, p);
	if (p->split) {
		uint64_t coff = 0;
		for (size_t i = 0; i < n; i++)
			p->u[idx[i]].split_out = true;
		place(p, idx, n, &coff, 1); /* offsets in the cold struct */
		p->cold_offset = round_up(off, 8); /* the pointer to it */
		off = p->cold_offset + 8;
	} else {
		place(p, idx, n, &off, 1);
	}
	p->align = p->old_align;
	if (p->split && p->align < 8)
		p->align = 8;
	if (p->ngroups && PAIR > p->align)
		p->align = PAIR;
	p->size = round_up(off, p->align);
	free(idx);
}

/* ---- prediction ---- */

/* The lines a visit of an instance touches: its hot units' bytes, an
 * instance of `size` bytes starting `start` bytes into a line; for a
 * scanned array, the distinct lines of SCAN_INSTANCES instances in a row
 * (the stride is the size), per instance. */
static double lines_per_visit(const plan *p, bool after, uint64_t start, uint64_t size, unsigned line,
			      bool scanned)
{
	size_t k = scanned && size ? SCAN_INSTANCES : 1, *idx = ds_xcalloc(p->n + 1, sizeof *idx), m = 0;
	uint64_t last = UINT64_MAX, lines = 0;

	/* the hot units by offset (placed in that order): lines come in order */
	for (size_t i = 0; i < (after ? p->norder : p->n); i++) {
		const unit *x = &p->u[after ? p->order[i] : i];
		if (x->hot && !(after && x->split_out))
			idx[m++] = after ? p->order[i] : i;
	}
	for (size_t i = 0; i < k; i++)
		for (size_t h = 0; h < m; h++) {
			const unit *x = &p->u[idx[h]];
			uint64_t o = start + i * size + (after ? x->new_offset : x->offset);
			for (uint64_t ln = o / line; ln <= (o + (x->size ? x->size : 1) - 1) / line; ln++)
				if (ln != last) {
					lines++;
					last = ln;
				}
		}
	free(idx);
	return (double)lines / (double)k;
}

/* ---- printing ---- */

/* A layout row's declaration: its text without the offset comment, runs
 * of blanks made one, its indentation kept. */
static void decl_line(const char *text, ds_buf *out)
{
	const char *end = text + strlen(text), *c = strstr(text, "/*");
	bool blank = false;

	if (c)
		end = c;
	while (end > text && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	while (text < end && *text == '\t') {
		ds_buf_putc(out, '\t');
		text++;
	}
	for (; text < end; text++) {
		if (*text == ' ' || *text == '\t') {
			blank = true;
			continue;
		}
		if (blank)
			ds_buf_putc(out, ' ');
		blank = false;
		ds_buf_putc(out, *text);
	}
	ds_buf_putc(out, '\n');
}

static void unit_decl(const ds_layout *l, const unit *u, ds_buf *out, uint64_t align)
{
	for (size_t r = u->first; r <= u->last; r++) {
		const ds_layout_row *x = &l->rows[r];
		if (!x->text || x->kind == DS_LROW_HOLE || x->kind == DS_LROW_BIT_HOLE ||
		    x->kind == DS_LROW_CACHELINE || x->kind == DS_LROW_COMMENT || x->kind == DS_LROW_BLANK)
			continue;
		if (r == u->first && align)
			ds_buf_printf(out, "\t_Alignas(%llu)\n", (unsigned long long)align);
		decl_line(x->text, out);
	}
}

static double share(uint64_t x, uint64_t total)
{
	return total ? 100.0 * (double)x / (double)total : 0;
}

/* The struct's opening line: "struct node {", "typedef struct {". */
static void open_struct(const ds_layout *l, const char *suffix, ds_buf *out)
{
	const ds_type *t = l->type;
	const char *kw = t->kind == DS_TYPE_UNION ? "union" : t->kind == DS_TYPE_CLASS ? "class" : "struct";
	if (l->typedef_name && !suffix)
		ds_buf_printf(out, "typedef %s {\n", kw);
	else
		ds_buf_printf(out, "%s %s%s {\n", kw, t->name ? t->name : l->typedef_name, suffix ? suffix : "");
}

static void close_struct(const ds_layout *l, const char *suffix, ds_buf *out)
{
	if (l->typedef_name && !suffix)
		ds_buf_printf(out, "} %s;\n", l->typedef_name);
	else
		ds_buf_puts(out, "};\n");
}

static void print_c(const ds_layout *l, const plan *p, uint64_t total, ds_buf *out)
{
	int section = -1;
	uint64_t cold = 0;

	for (size_t i = 0; i < p->n; i++)
		cold += p->u[i].split_out ? p->u[i].samples : 0;
	if (p->split) {
		open_struct(l, "_cold", out);
		ds_buf_printf(out, "\t/* cold: %.1f%% of the type's samples, moved out of the array's stride */\n",
			      share(cold, total));
		for (size_t i = 0; i < p->norder; i++)
			if (p->u[p->order[i]].split_out)
				unit_decl(l, &p->u[p->order[i]], out, 0);
		close_struct(l, "_cold", out);
	}
	open_struct(l, NULL, out);
	if (p->keep_abi) {
		if (p->ngroups)
			ds_buf_puts(out, "\t/* members that different threads write share lines: apart, they would\n"
					 "\t * need new offsets, which --keep-abi forbids; aligned to a line pair,\n"
					 "\t * an instance shares no line with its neighbours */\n");
		for (size_t i = 0; i < p->norder; i++)
			unit_decl(l, &p->u[p->order[i]], out, i == 0 && p->align > p->old_align ? p->align : 0);
		close_struct(l, NULL, out);
		return;
	}
	for (size_t i = 0; i < p->norder; i++) {
		const unit *u = &p->u[p->order[i]];
		int sec = u->pinned ? 0 : !u->hot ? 99 : 1 + u->group;
		uint64_t align = 0;
		if (u->split_out)
			continue;
		if (sec != section) {
			if (sec == 0)
				ds_buf_puts(out, "\t/* placed by the compiler: kept first */\n");
			else if (sec == 99)
				ds_buf_puts(out, "\t/* cold: few or no samples */\n");
			else if (u->group)
				ds_buf_printf(out, "\t/* hot, thread %u's alone: a line pair of its own */\n",
					      u->threads[0]);
			else
				ds_buf_puts(out, "\t/* hot, in the first lines: what one function accesses side by side, the "
						 "hottest first */\n");
			if (u->group && sec != section)
				align = PAIR;
			section = sec;
		}
		if (u->hot)
			ds_buf_printf(out, "\t/* %.1f%% of the type's samples */\n", share(u->samples, total));
		unit_decl(l, u, out, align);
	}
	if (p->split)
		ds_buf_printf(out, "\t/* the cold members, allocated apart: x->%s->NAME */\n\tstruct %s_cold *%s;\n",
			      p->cold_member, l->type->name ? l->type->name : l->typedef_name, p->cold_member);
	close_struct(l, NULL, out);
}

/* The new layout as pahole draws it, in // comments. */
static void print_new_layout(const ds_layout *l, const plan *p, unsigned line, ds_buf *out)
{
	uint64_t next_line = line;

	ds_buf_puts(out, "//\n// the new layout:\n");
	for (size_t i = 0; i < p->norder; i++) {
		const unit *u = &p->u[p->order[i]];
		ds_buf d = {0};
		if (u->split_out)
			continue;
		while (u->new_offset >= next_line) {
			ds_buf_printf(out, "//\t/* --- cacheline %llu boundary (%llu bytes) --- */\n",
				      (unsigned long long)(next_line / line), (unsigned long long)next_line);
			next_line += line;
		}
		unit_decl(l, u, &d, 0);
		for (char *s = d.p, *nl; s && *s; s = nl + 1) {
			nl = strchr(s, '\n');
			*nl = 0;
			ds_buf_printf(out, "//%-40s /* %5llu %5llu */\n", s, (unsigned long long)u->new_offset,
				      (unsigned long long)u->size);
		}
		ds_buf_free(&d);
	}
	if (p->split) {
		ds_buf d = {0};
		ds_buf_printf(&d, "\tstruct %s_cold * %s;", l->type->name ? l->type->name : l->typedef_name,
			      p->cold_member);
		ds_buf_printf(out, "//%-40s /* %5llu %5llu */\n", ds_buf_str(&d), (unsigned long long)p->cold_offset,
			      8ull);
		ds_buf_free(&d);
	}
	ds_buf_printf(out, "//\t/* size: %llu, cachelines: %llu */\n", (unsigned long long)p->size,
		      (unsigned long long)((p->size + line - 1) / line));
}

/* A member name that the type does not have, for the split's pointer. */
static const char *free_name(const plan *p)
{
	static const char *const names[] = {"cold", "cold_part", "cold_members", "dsprof_cold"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		bool used = false;
		for (size_t i = 0; i < p->n; i++)
			used |= p->u[i].m && p->u[i].m->name && !strcmp(p->u[i].m->name, names[k]);
		if (!used)
			return names[k];
	}
	return "dsprof_cold_";
}

/* Whether an event counts what lines cost (misses, memory cycles,
 * latency), rather than time spent anywhere. */
static bool counts_lines(const char *ev)
{
	static const char *const words[] = {"MISS", "miss", "HITM", "hitm", "EVICT", "MEM", "mem", "latency", "LOAD", "load"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(ev, words[i]))
			return true;
	return false;
}

int ds_layout_suggest(ds_session *s, const ds_layout *l, const ds_suggest_opts *o, ds_buf *out, ds_err *err)
{
	const ds_type *t = l->type;
	plan p = {0};
	int32_t tid;
	uint64_t total = 0, start = 0, best, all;
	size_t distinct;
	unsigned line = o && o->line ? o->line : l->line_size;
	bool scanned, moved = false, ends;
	uint64_t gone_hitm = 0;
	double before, after;
	ds_buf name = {0};

	if (ds_dataspace_build(s, err))
		return -1;
	if (l->typedef_name)
		ds_buf_puts(&name, l->typedef_name);
	else if (t->name)
		ds_type_name(t, &name);
	else
		ds_buf_puts(&name, "an anonymous union");
	if (t->kind == DS_TYPE_UNION) {
		ds_buf_printf(out, "/* dsprof layout --suggest: %s is a union: its members share their bytes, no order to suggest */\n",
			      name.p);
		ds_buf_free(&name);
		return 0;
	}
	tid = ds_tident_find(s, t);
	find_units(l, &p);
	for (size_t i = 0; i < p.n; i++) {
		uint64_t *sm = ds_xcalloc(s->nev + 1, sizeof *sm);
		p.u[i].count = ds_xcalloc(s->nev + 1, sizeof *p.u[i].count);
		ds_session_layout_metrics(s, l, p.u[i].first, sm, p.u[i].count, err);
		for (size_t e = 0; e < s->npev; e++)
			p.u[i].samples += sm[e];
		total += p.u[i].samples;
		free(sm);
	}
	if (!total) {
		/* none, or only in base classes, which stay where they are */
		ds_buf_printf(out, "/* dsprof layout --suggest: %s: no sample touched a member it can move: nothing to suggest */\n",
			      name.p);
		goto done;
	}
	scanned = tid >= 0 && profile(s, tid, t, &p);
	make_plan(&p, t, scanned, o && o->keep_abi);
	p.cold_member = free_name(&p);
	if (tid >= 0)
		ds_usual_start(s, tid, line, &start, &best, &all, &distinct);

	ds_buf_printf(out, "/* dsprof layout --suggest: %s, %llu bytes, from %llu samples of its members */\n",
		      name.p, (unsigned long long)t->size,
		      (unsigned long long)total);
	if (o && o->keep_abi)
		ds_buf_puts(out, "/* --keep-abi: the members keep their order and offsets */\n");
	print_c(l, &p, total, out);
	print_new_layout(l, &p, line, out);
	before = lines_per_visit(&p, false, start, t->size, line, scanned);
	/* instances aligned to a line start on one; else where they did */
	after = lines_per_visit(&p, true, p.align >= line ? 0 : start, p.size, line, scanned);
	ends = p.ngroups && !p.keep_abi;
	if (ends)
		ds_buf_puts(out, "//\n// predicted, from the samples: each thread's members in lines of their own, "
				 "its visits touching as many lines as before\n");
	else
		ds_buf_printf(out, "//\n// predicted, from the samples (%s): lines a visit touches %.2f -> %.2f\n",
			      scanned ? "an array scanned in order: lines shared by instances count once"
				      : "instances visited one at a time",
			      before, after);
	/* the owners' blocks end the coherence misses of what they hold;
	 * each thread's visits touch as many lines as before, so a miss
	 * event loses those misses and no more */
	for (size_t e = 0; e < s->npev; e++)
		for (size_t i = 0; ends && i < p.n; i++)
			if (p.u[i].group && ds_event_coherence(ds_session_event(s, e)->name))
				gone_hitm += p.u[i].count[e];
	for (size_t e = 0; o && o->predicted && e < s->nev; e++) {
		o->predicted[e] = -1;
		o->before[e] = 0;
	}
	for (size_t e = 0; e < s->npev; e++) {
		uint64_t c = 0, gone = 0;
		const char *ev = ds_session_event(s, e)->name;
		bool coherence = ds_event_coherence(ev);
		double predicted;
		for (size_t i = 0; i < p.n; i++) {
			c += p.u[i].count[e];
			if (p.u[i].group)
				gone += p.u[i].count[e];
		}
		if (!c)
			continue;
		if (ends && coherence)
			predicted = (double)(c - gone);
		else if (ends)
			predicted = strstr(ev, "MISS") && c > gone_hitm ? (double)(c - gone_hitm) : (double)c;
		else
			predicted = before > 0 ? (double)c * after / before : (double)c;
		if (o && o->predicted) {
			o->predicted[e] = predicted;
			o->before[e] = c;
		}
		ds_buf_printf(out, "//   %s on the type: %llu -> %.0f (%+.0f%%)%s\n", ev, (unsigned long long)c, predicted,
			      100.0 * (predicted - (double)c) / (double)c,
			      ends && coherence ? ": the owners' blocks end the sharing"
			      : counts_lines(ev) ? ""
						 : ": as far as its samples are the lines the type fetches");
	}
	for (size_t i = 0; i < p.n; i++)
		moved |= p.u[i].new_offset != p.u[i].offset || p.u[i].split_out;
	ds_buf_printf(out, "//   size %llu -> %llu bytes, alignment %llu -> %llu%s\n", (unsigned long long)t->size,
		      (unsigned long long)p.size, (unsigned long long)p.old_align, (unsigned long long)p.align,
		      p.size != t->size || p.align != p.old_align
			      ? ": the ABI changes (recompile everything that uses the type)"
		      : moved ? ": the member offsets change (recompile everything that uses the type)"
			      : ": the layout is already this one");
	if (p.split)
		ds_buf_printf(out, "//   the cold members move to struct %s_cold: allocate it with each instance and reach them through ->%s\n",
			      t->name ? t->name : l->typedef_name, p.cold_member);
done:
	for (size_t i = 0; i < p.n; i++)
		free(p.u[i].count);
	free(p.u);
	free(p.order);
	ds_buf_free(&name);
	return 0;
}

int ds_session_suggest(ds_session *s, const char *type, const ds_suggest_opts *o, ds_buf *out, ds_err *err)
{
	ds_suggest_opts so = o ? *o : (ds_suggest_opts){0};
	ds_layout *l;
	int rc;

	if (ds_dataspace_build(s, err))
		return -1;
	for (size_t k = 0; k < s->tidents.n; k++) {
		if (strcmp(s->tidents.v[k].name, type) != 0)
			continue;
		if (!so.line)
			so.line = ds_l1d_line(s);
		if (!(l = ds_layout_build(s->tidents.v[k].t, so.line, err)))
			return -1;
		rc = ds_layout_suggest(s, l, &so, out, err);
		ds_layout_free(l);
		return rc;
	}
	return ds_err_set(err, DS_EINPUT, "no type '%s' in this experiment's data objects", type);
}
