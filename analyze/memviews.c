/*
 * Views over the per-sample records: the indices of a memory object
 * (memobj:NAME), and the hottest cache lines with the data that lives in
 * them and the threads, CPUs and code that touched them (hotlines).
 */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The data object most samples of each row touched: counts per (row,
 * object), then the largest per row. */
typedef struct top_objs {
	ds_hash *index;           /* top_key -> slot in n */
	ds_vec_u64 n;
} top_objs;

typedef struct top_key {
	uint32_t row;
	int32_t dobj;
} top_key;

static void top_add(top_objs *t, size_t row, int32_t obj)
{
	top_key k = {(uint32_t)row, obj};
	bool added;
	size_t i = ds_hash_intern(t->index, &k, sizeof k, &added);
	if (added)
		ds_vec_push(&t->n, 0);
	t->n.v[i]++;
}

/* Put each row's top object (ties: the first name) into column col. */
static void top_cells(const ds_session *s, top_objs *t, ds_row *rows, size_t nrows, size_t col)
{
	uint64_t *best = ds_xcalloc(nrows ? nrows : 1, sizeof *best);
	int32_t *which = ds_xcalloc(nrows ? nrows : 1, sizeof *which);

	for (size_t i = 0; i < ds_hash_count(t->index); i++) {
		const top_key *k = ds_hash_key(t->index, i, NULL);
		uint64_t n = t->n.v[i];
		if (n > best[k->row] ||
		    (n == best[k->row] &&
		     strcmp(s->dobjs.v[k->dobj].name, s->dobjs.v[which[k->row]].name) < 0)) {
			best[k->row] = n;
			which[k->row] = k->dobj;
		}
	}
	for (size_t r = 0; r < nrows; r++)
		if (best[r])
			tb_cell_str(&rows[r], col, s->dobjs.v[which[r]].name);
	free(best);
	free(which);
	ds_hash_free(t->index);
	ds_vec_free(&t->n);
}

/* ---- memobj:NAME ---- */

enum { MO_INDEX, MO_DATAOBJECT, MO_NCOLS };

typedef struct mo_build {
	tb b;
	const ds_mobj *m;
	top_objs top;
	memtime *mt;
} mo_build;

static void mo_add(ds_session *s, size_t i, const ds_srec *r, void *ctx)
{
	mo_build *m = ctx;
	ds_access a;
	int64_t v, at;
	size_t row;

	ds_srec_operands(s, i, &a);
	v = ds_expr_eval(m->m->code, &a);
	at = ds_hash_find(m->b.rows, &v, sizeof v);
	if (at < 0) {
		char name[32];
		ds_mobj_format(m->m, v, name, sizeof name);
		row = tb_row(&m->b, &v, sizeof v, name, NULL);
		if (v >= 0)
			tb_cell_u64(&m->b.v.v[row], MO_INDEX, (uint64_t)v);
	} else {
		row = (size_t)at;
	}
	m->b.v.v[row].samples[r->ev]++;
	m->b.v.v[row].count[r->ev] += r->period;
	top_add(&m->top, row, r->dobj);
	mt_add(m->mt, row, i);
}

int ds_view_memobj(ds_session *s, const char *name, const ds_view_opts *o, ds_table **out,
		   ds_err *err)
{
	ds_col cols[MO_NCOLS] = {{"index", DS_COL_U64, false}, {"dataobject", DS_COL_STR, true}};
	mo_build m = {0};
	char *view;
	int rc;

	if (!(m.m = ds_session_mobj(s, name, err)) || ds_dataspace_build(s, err))
		return -1;
	/* the row's name is the index as the object prints it; the column
	 * keeps the number for programs (and --sort index) */
	if (m.m->hex)
		cols[MO_INDEX].kind = DS_COL_HEX;
	view = ds_xasprintf("memobj:%s", m.m->name);
	m.mt = mt_tb_init(&m.b, s, view, "index", cols, MO_NCOLS);
	free(view);
	tb_prop(m.b.t, "memory_object", DS_PROP_TEXT, "%s", m.m->name);
	tb_prop(m.b.t, "expression", DS_PROP_TEXT, "%s", m.m->text);
	tb_prop(m.b.t, "machine", DS_PROP_TEXT, "%s", s->machine.source ? s->machine.source : "?");
	m.top.index = ds_hash_new();
	(void)ds_srec_visit(s, mo_add, &m, err); /* cannot fail: the dataspace is built */
	top_cells(s, &m.top, m.b.v.v, m.b.v.n, MO_DATAOBJECT);
	for (size_t r = 0; r < m.b.v.n; r++)
		mt_cells(m.mt, r, &m.b.v.v[r], MO_NCOLS);
	rc = tb_finish(&m.b, o, out, err);
	mt_free(m.mt);
	return rc;
}

/* ---- hotlines ---- */

/* Sub-rows under each line: its data objects, then the source lines that
 * touched it, each sorted like the lines and cut at these counts. */
#define HL_MAX_OBJECTS 8
#define HL_MAX_CODE 5
/* Threads and CPUs listed by number in a row's cell (all are counted). */
#define HL_MAX_LISTED DS_IDS_LISTED
/* With --limit, the top lines are sorted out this many rows at a time
 * (or the limit's, when larger): the line rows never shown are never all
 * made at once. */
#define HL_PICK_BATCH 65536

enum {
	HL_KIND, HL_LINE, HL_OFFSETS, HL_LOADS, HL_STORES, HL_NTHREADS, HL_THREADS, HL_NCPUS,
	HL_CPUS, HL_DATAOBJECT, HL_FUNCTION, HL_SOURCE, HL_NCOLS
};

enum hl_kind { HL_ROW_LINE, HL_ROW_OBJECT, HL_ROW_CODE };

/* What the samples of a row (a line, or an object or a source line on a
 * line) add up to.  Rows are counted here, a few dozen bytes each, and
 * made table rows (with their names and strings) only when shown: a
 * memory-bound program touches millions of lines. */
typedef struct hl_ent {
	uint64_t line;
	int32_t id;            /* object: dobj; code: index in code */
	uint32_t parent;       /* object, code: the line's entry */
	uint32_t lo, hi;       /* bytes of the line touched, lo..hi (lo > hi: none known) */
	uint32_t thread, cpu;  /* the first thread (index) and CPU seen; UINT32_MAX: none */
	uint32_t next;         /* a line: its first sub-row's entry; a sub-row: the line's next
				* (UINT32_MAX: none) */
	uint8_t kind;          /* enum hl_kind */
	uint8_t more;          /* HL_MORE_*: others were seen, all are in hl_build.who */
	uint64_t loads, stores;
	uint64_t m[];          /* [ev]: samples, [nev + ev]: count (one cache line less to miss) */
} hl_ent;

enum { HL_MORE_THREADS = 1, HL_MORE_CPUS = 2 };

typedef struct hl_build {
	tb b;
	uint64_t line_size;
	size_t nev;
	uint8_t *ents;         /* nent entries of `stride` bytes, in the order rows first appear */
	size_t nent, cap, stride;
	ds_u64map lines;       /* line -> entry */
	ds_u64map who;         /* a set of hl_who_key: the threads and CPUs of entries with several */
	uint32_t last_le, last_obj, last_code; /* the previous sample's entries, or DS_U64MAP_NONE */
	uint64_t *who_sorted;  /* who's keys, sorted: each entry's together */
	ds_hash *code;         /* "function\x01file\x01line" -> index */
	DS_VEC(char *) code_name;
	DS_VEC(char *) code_source;
	int32_t *site_code;    /* per site: index in code, -1 before it is known */
	ds_vec_u32 ids;        /* scratch: one row's thread ids or CPUs */
	uint64_t with_ea, without_ea;
	memtime *mt;           /* memory time per entry, when an event counts it */
} hl_build;

/* Thread indices and CPUs fit 32 bits, entries 31 (two billion rows
 * would take some 700 million samples). */
static uint64_t hl_who_key(uint32_t e, bool cpu, uint32_t id)
{
	return (uint64_t)e << 33 | (uint64_t)cpu << 32 | id;
}

/* The source line of a site as a code row's key, name and source. */
static int32_t site_code(ds_session *s, hl_build *h, uint32_t si)
{
	const site *st;
	const char *fn, *base;
	ds_buf key = {0};
	bool added;
	size_t i;

	if (h->site_code[si] >= 0)
		return h->site_code[si];
	ds_site_resolve(s, si, true);
	st = &s->sites.v[si];
	fn = site_fname(s, si);
	ds_buf_printf(&key, "%s\x01%s\x01%u", fn, st->file ? st->file : "", st->line);
	i = ds_hash_intern(h->code, key.p, key.len, &added);
	if (added) {
		ds_buf_reset(&key);
		if (st->file) {
			base = strrchr(st->file, '/');
			ds_buf_printf(&key, "%s:%u", base ? base + 1 : st->file, st->line);
			ds_vec_push(&h->code_source, ds_buf_steal(&key));
		} else {
			ds_vec_push(&h->code_source, NULL);
		}
		ds_vec_push(&h->code_name, ds_xstrdup(fn));
	}
	ds_buf_free(&key);
	h->site_code[si] = (int32_t)i;
	return (int32_t)i;
}

static hl_ent *hl_at(const hl_build *h, size_t e)
{
	return (hl_ent *)(h->ents + e * h->stride);
}

/* A new entry; its index. */
static uint32_t hl_new(hl_build *h, uint64_t line, enum hl_kind kind, int32_t id, uint32_t parent)
{
	hl_ent *a;

	if (h->nent == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->ents = ds_xrealloc(h->ents, h->cap * h->stride);
	}
	a = hl_at(h, h->nent);
	memset(a, 0, h->stride);
	*a = (hl_ent){.line = line, .kind = (uint8_t)kind, .id = id, .parent = parent, .lo = UINT32_MAX,
		      .thread = UINT32_MAX, .cpu = UINT32_MAX, .next = UINT32_MAX};
	return (uint32_t)h->nent++;
}

/* The entry of a line, made when new. */
static uint32_t hl_line(hl_build *h, uint64_t line)
{
	bool added;
	uint32_t e = ds_u64map_put(&h->lines, line, (uint32_t)h->nent, &added);

	if (added)
		hl_new(h, line, HL_ROW_LINE, 0, 0);
	return e;
}

/* The entry of an object or source line on line entry le, made when new.
 * A line's sub-rows are a list from the line's entry, searched in turn
 * (most lines have a few; a hash table of them all would miss the cache on
 * every sample, the list mostly stays near the line's entry), the one
 * found moved to the front, so that a line touched from many places finds
 * its hot ones first. */
static uint32_t hl_sub(hl_build *h, uint32_t le, enum hl_kind kind, int32_t id)
{
	uint32_t prev = UINT32_MAX, e;
	hl_ent *l = hl_at(h, le), *a;

	for (e = l->next; e != UINT32_MAX; prev = e, e = a->next) {
		a = hl_at(h, e);
		if (a->kind != kind || a->id != id)
			continue;
		if (prev != UINT32_MAX) {
			hl_at(h, prev)->next = a->next;
			a->next = l->next;
			l->next = e;
		}
		return e;
	}
	e = hl_new(h, hl_at(h, le)->line, kind, id, le);
	l = hl_at(h, le); /* the entries may have moved */
	hl_at(h, e)->next = l->next;
	l->next = e;
	return e;
}

/* Thread or CPU id touched entry e, whose first one is *first: the
 * second distinct one puts both into the set, later ones themselves. */
static void hl_who(hl_build *h, uint32_t e, uint32_t *first, uint8_t more, uint32_t id)
{
	hl_ent *a = hl_at(h, e);

	if (*first == UINT32_MAX) {
		*first = id;
		return;
	}
	if (*first == id)
		return;
	if (!(a->more & more)) {
		a->more |= more;
		ds_u64map_put(&h->who, hl_who_key(e, more == HL_MORE_CPUS, *first), 0, NULL);
	}
	ds_u64map_put(&h->who, hl_who_key(e, more == HL_MORE_CPUS, id), 0, NULL);
}

static void hl_count(hl_build *h, uint32_t e, size_t i, const ds_srec *x, uint32_t lo, uint32_t hi)
{
	hl_ent *a = hl_at(h, e);

	mt_add(h->mt, e, i);
	a->m[x->ev]++;
	a->m[h->nev + x->ev] += x->period;
	if (lo < a->lo)
		a->lo = lo;
	if (hi > a->hi)
		a->hi = hi;
	/* a derived record is its sample again: its access counted already */
	if (!h->b.t->events[x->ev].derived) {
		a->loads += (x->flags & SR_LOAD) != 0;
		a->stores += (x->flags & SR_STORE) != 0;
	}
	hl_who(h, e, &a->thread, HL_MORE_THREADS, x->thread);
	if (x->cpu != UINT32_MAX)
		hl_who(h, e, &a->cpu, HL_MORE_CPUS, x->cpu);
}

static void hl_add(ds_session *s, size_t i, const ds_srec *x, void *ctx)
{
	hl_build *h = ctx;
	uint64_t line;
	uint32_t lo, hi, le;
	int32_t code;

	if (!(x->flags & SR_EA)) {
		h->without_ea += ds_srec_own(s, x);
		return;
	}
	h->with_ea += ds_srec_own(s, x);
	ds_srec_line_span(s, x, h->line_size, &line, &lo, &hi);
	code = site_code(s, h, x->site);
	/* a loop walking memory touches a line several times in a row, mostly
	 * from the same code on the same object: those need no lookup */
	if (h->last_le == DS_U64MAP_NONE || hl_at(h, h->last_le)->line != line) {
		h->last_le = hl_line(h, line);
		h->last_obj = h->last_code = DS_U64MAP_NONE;
	}
	le = h->last_le;
	if (h->last_obj == DS_U64MAP_NONE || hl_at(h, h->last_obj)->id != x->dobj)
		h->last_obj = hl_sub(h, le, HL_ROW_OBJECT, x->dobj);
	if (h->last_code == DS_U64MAP_NONE || hl_at(h, h->last_code)->id != code)
		h->last_code = hl_sub(h, le, HL_ROW_CODE, code);
	hl_count(h, le, i, x, lo, hi);
	hl_count(h, h->last_obj, i, x, lo, hi);
	hl_count(h, h->last_code, i, x, lo, hi);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The threads (by tid) or CPUs of entry e into the row: count and list. */
static void who_cells(const ds_session *s, hl_build *h, uint32_t e, bool cpu, ds_row *row)
{
	const hl_ent *a = hl_at(h, e);
	uint32_t first = cpu ? a->cpu : a->thread;
	ds_vec_u32 *v = &h->ids;
	ds_buf b = {0};

	v->n = 0;
	if (a->more & (cpu ? HL_MORE_CPUS : HL_MORE_THREADS)) {
		/* its keys are together in who_sorted: find the first */
		uint64_t want = hl_who_key(e, cpu, 0);
		size_t lo = 0, hi = h->who.n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (h->who_sorted[mid] < want)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < h->who.n && h->who_sorted[lo] >> 32 == want >> 32; lo++)
			ds_vec_push(v, (uint32_t)h->who_sorted[lo]);
	} else if (first != UINT32_MAX) {
		ds_vec_push(v, first);
	}
	if (!cpu)
		for (size_t k = 0; k < v->n; k++)
			v->v[k] = s->threads.v[v->v[k]].tid;
	ds_sort(v->v, v->n, sizeof *v->v, cmp_u32);
	for (size_t k = 0; k < v->n && k < HL_MAX_LISTED; k++)
		ds_buf_printf(&b, "%s%u", k ? " " : "", v->v[k]);
	if (v->n > HL_MAX_LISTED)
		ds_buf_printf(&b, " +%zu", v->n - HL_MAX_LISTED);
	tb_cell_u64(row, cpu ? HL_NCPUS : HL_NTHREADS, v->n);
	if (v->n)
		tb_cell_str(row, cpu ? HL_CPUS : HL_THREADS, ds_buf_str(&b));
	ds_buf_free(&b);
}

/* Entry e as a row of b. */
static void hl_row(ds_session *s, hl_build *h, tb *b, uint32_t e)
{
	const hl_ent *a = hl_at(h, e);
	ds_buf name = {0};
	ds_row *row;
	size_t r;
	char text[32];

	switch (a->kind) {
	case HL_ROW_LINE:
		ds_buf_printf(&name, "0x%" PRIx64, a->line);
		break;
	case HL_ROW_OBJECT:
		ds_buf_puts(&name, s->dobjs.v[a->id].name);
		break;
	case HL_ROW_CODE:
		ds_buf_puts(&name, h->code_name.v[a->id]);
		if (h->code_source.v[a->id])
			ds_buf_printf(&name, "  %s", h->code_source.v[a->id]);
		break;
	}
	r = tb_row_new(b, name.p); /* first: it may move b->v */
	row = &b->v.v[r];
	ds_buf_free(&name);
	row->depth = a->kind != HL_ROW_LINE; /* objects and code under their line */
	memcpy(row->samples, a->m, h->nev * sizeof *row->samples);
	memcpy(row->count, a->m + h->nev, h->nev * sizeof *row->count);
	tb_cell_str(row, HL_KIND,
		    a->kind == HL_ROW_LINE ? "line" : a->kind == HL_ROW_OBJECT ? "object" : "code");
	tb_cell_u64(row, HL_LINE, a->line);
	if (a->kind == HL_ROW_OBJECT)
		tb_cell_str(row, HL_DATAOBJECT, s->dobjs.v[a->id].name);
	if (a->kind == HL_ROW_CODE) {
		tb_cell_str(row, HL_FUNCTION, h->code_name.v[a->id]);
		tb_cell_str(row, HL_SOURCE, h->code_source.v[a->id]);
	}
	if (a->lo <= a->hi) {
		if (a->lo == a->hi)
			snprintf(text, sizeof text, "%u", a->lo);
		else
			snprintf(text, sizeof text, "%u-%u", a->lo, a->hi);
		tb_cell_str(row, HL_OFFSETS, text);
	}
	tb_cell_u64(row, HL_LOADS, a->loads);
	tb_cell_u64(row, HL_STORES, a->stores);
	who_cells(s, h, e, false, row);
	who_cells(s, h, e, true, row);
	mt_cells(h->mt, e, row, HL_NCOLS);
}

/* Drop rows[from..n) of a table of ncols columns. */
static void hl_free_rows(ds_row *rows, size_t from, size_t n, size_t ncols)
{
	for (size_t i = from; i < n; i++)
		tb_row_free(&rows[i], ncols);
}

/* The table as a tree (what ds_group_lines makes of a sorted table, made
 * directly): the lines sorted, cut at `limit` (0: all), and under each its
 * objects and its code, each sorted and cut at their caps.  Only the
 * lines are sorted all together (with a limit, a batch at a time, keeping
 * the top: the sort is a total order), and rows are made only for the
 * lines that may be shown and the sub-rows of those that are: a
 * memory-bound program touches millions of lines. */
static void hl_rows(ds_session *s, hl_build *h, const char *sort, size_t limit)
{
	static const size_t caps[] = {[HL_ROW_OBJECT] = HL_MAX_OBJECTS, [HL_ROW_CODE] = HL_MAX_CODE};
	size_t batch = limit > HL_PICK_BATCH ? limit : HL_PICK_BATCH, nent = h->nent;
	uint32_t *start = ds_xcalloc(nent + 1, sizeof *start), *bucket, *fill;
	tb lt = {.t = h->b.t}, sub = {.t = h->b.t};
	const ds_table *t = h->b.t;

	for (size_t e = 0; e < nent; e++) {
		if (hl_at(h, e)->kind != HL_ROW_LINE)
			continue;
		hl_row(s, h, &lt, (uint32_t)e);
		if (limit && lt.v.n >= limit + batch) {
			(void)tb_sort_rows(t, sort, lt.v.v, lt.v.n, NULL);
			hl_free_rows(lt.v.v, limit, lt.v.n, t->ncols);
			lt.v.n = limit;
		}
	}
	(void)tb_sort_rows(t, sort, lt.v.v, lt.v.n, NULL);
	if (limit && lt.v.n > limit) {
		hl_free_rows(lt.v.v, limit, lt.v.n, t->ncols);
		lt.v.n = limit;
	}

	/* each line's sub-rows, in the order they appeared */
	for (size_t e = 0; e < nent; e++)
		if (hl_at(h, e)->kind != HL_ROW_LINE)
			start[hl_at(h, e)->parent + 1]++;
	for (size_t e = 0; e < nent; e++)
		start[e + 1] += start[e];
	bucket = ds_xmalloc((start[nent] ? start[nent] : 1) * sizeof *bucket);
	fill = ds_xcalloc(nent + 1, sizeof *fill);
	for (size_t e = 0; e < nent; e++)
		if (hl_at(h, e)->kind != HL_ROW_LINE) {
			uint32_t p = hl_at(h, e)->parent;
			bucket[start[p] + fill[p]++] = (uint32_t)e;
		}
	free(fill);

	for (size_t i = 0; i < lt.v.n; i++) {
		uint32_t le = ds_u64map_get(&h->lines, lt.v.v[i].cells[HL_LINE].u);
		ds_vec_push(&h->b.v, lt.v.v[i]);
		for (enum hl_kind kind = HL_ROW_OBJECT; kind <= HL_ROW_CODE; kind++) {
			size_t n;
			sub.v.n = 0;
			for (size_t k = start[le]; k < start[le + 1]; k++)
				if (hl_at(h, bucket[k])->kind == kind)
					hl_row(s, h, &sub, bucket[k]);
			(void)tb_sort_rows(t, sort, sub.v.v, sub.v.n, NULL);
			n = sub.v.n < caps[kind] ? sub.v.n : caps[kind];
			for (size_t k = 0; k < n; k++)
				ds_vec_push(&h->b.v, sub.v.v[k]);
			hl_free_rows(sub.v.v, n, sub.v.n, t->ncols);
		}
	}
	ds_vec_free(&lt.v);
	ds_vec_free(&sub.v);
	free(start);
	free(bucket);
}

/* The rows the whole tree has: each line and its sub-rows up to the caps. */
static size_t hl_total(const hl_build *h)
{
	uint32_t *n = ds_xcalloc(h->nent ? 2 * h->nent : 1, sizeof *n);
	size_t total = 0;

	for (size_t e = 0; e < h->nent; e++)
		if (hl_at(h, e)->kind != HL_ROW_LINE)
			n[2 * hl_at(h, e)->parent + (hl_at(h, e)->kind == HL_ROW_CODE)]++;
	for (size_t e = 0; e < h->nent; e++)
		if (hl_at(h, e)->kind == HL_ROW_LINE)
			total += 1 + (n[2 * e] < HL_MAX_OBJECTS ? n[2 * e] : HL_MAX_OBJECTS) +
				 (n[2 * e + 1] < HL_MAX_CODE ? n[2 * e + 1] : HL_MAX_CODE);
	free(n);
	return total;
}

/* ---- cache lines: what the hotlines and sharing views share (analyze_int.h) ---- */

void ds_srec_line_span(const ds_session *s, const ds_srec *x, uint64_t line_size, uint64_t *line,
		       uint32_t *lo, uint32_t *hi)
{
	uint32_t size = ds_srec_size(s, x);
	uint64_t end;

	*line = x->ea / line_size * line_size;
	*lo = (uint32_t)(x->ea - *line);
	end = *lo + (uint64_t)(size ? size : 1) - 1;
	/* an access that runs into the next line is counted in the first */
	*hi = (uint32_t)(end >= line_size ? line_size - 1 : end);
}

/* The sorted table as a tree: each top row (in the sorted order), then
 * its sub-rows, kind by kind in the order of `subs`, each kind in the
 * sorted order and up to its cap; then only the first `limit` top rows.
 * Rows are put in buckets per line first, so that the cost stays linear
 * in the rows. */
void ds_group_lines(ds_table *t, size_t line_col, size_t kind_col, const char *top,
		    const char *const *subs, const size_t *caps, size_t nsubs, size_t limit)
{
	size_t n = t->nrows, nl, out_n = 0, lines_out = 0, cut = SIZE_MAX;
	size_t *line_of = ds_xcalloc(n ? n : 1, sizeof *line_of);
	size_t *bucket = ds_xcalloc(n ? n : 1, sizeof *bucket);
	size_t *start, *fill;
	bool *used = ds_xcalloc(n ? n : 1, sizeof *used);
	ds_row *out = ds_xcalloc(n ? n : 1, sizeof *out);
	ds_hash *lines = ds_hash_new();

	for (size_t i = 0; i < n; i++)
		line_of[i] = ds_hash_intern(lines, &t->rows[i].cells[line_col].u, sizeof(uint64_t), NULL);
	nl = ds_hash_count(lines);
	start = ds_xcalloc(nl + 1, sizeof *start);
	fill = ds_xcalloc(nl + 1, sizeof *fill);
	for (size_t i = 0; i < n; i++)
		start[line_of[i] + 1]++;
	for (size_t l = 0; l < nl; l++)
		start[l + 1] += start[l];
	for (size_t i = 0; i < n; i++)
		bucket[start[line_of[i]] + fill[line_of[i]]++] = i;
	for (size_t i = 0; i < n; i++) {
		size_t l = line_of[i];
		if (strcmp(t->rows[i].cells[kind_col].s, top) != 0)
			continue;
		if (limit && lines_out++ == limit)
			cut = out_n;
		out[out_n++] = t->rows[i];
		used[i] = true;
		for (size_t sub = 0; sub < nsubs; sub++) {
			size_t taken = 0;
			for (size_t k = start[l]; k < start[l + 1] && taken < caps[sub]; k++) {
				size_t j = bucket[k];
				if (strcmp(t->rows[j].cells[kind_col].s, subs[sub]) != 0)
					continue;
				out[out_n++] = t->rows[j];
				used[j] = true;
				taken++;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!used[i])
			tb_row_free(&t->rows[i], t->ncols);
	if (out_n)
		memcpy(t->rows, out, out_n * sizeof *out);
	t->total_rows = t->nrows = out_n;
	if (cut != SIZE_MAX) {
		for (size_t i = cut; i < out_n; i++)
			tb_row_free(&t->rows[i], t->ncols);
		t->nrows = cut;
	}
	ds_hash_free(lines);
	free(line_of);
	free(bucket);
	free(start);
	free(fill);
	free(used);
	free(out);
}

static const uint8_t hl_combine[HL_NCOLS] = {
	[HL_LOADS] = DS_COMBINE_SUM,          [HL_STORES] = DS_COMBINE_SUM,
	[HL_NTHREADS] = DS_COMBINE_UNION_COUNT, [HL_THREADS] = DS_COMBINE_UNION,
	[HL_NCPUS] = DS_COMBINE_UNION_COUNT,  [HL_CPUS] = DS_COMBINE_UNION,
};

int ds_view_hotlines(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[HL_NCOLS] = {
		{"kind", DS_COL_STR, true},     {"line", DS_COL_HEX, false},
		{"offsets", DS_COL_STR, true},  {"loads", DS_COL_U64, true},
		{"stores", DS_COL_U64, true},   {"nthreads", DS_COL_U64, false},
		{"threads", DS_COL_STR, true},  {"ncpus", DS_COL_U64, false},
		{"cpus", DS_COL_STR, true},     {"dataobject", DS_COL_STR, false},
		{"function", DS_COL_STR, false}, {"source", DS_COL_STR, false}};
	const char *sort = o ? o->sort : NULL;
	hl_build h = {0};
	unsigned line;

	if (ds_view_line_size(s, o, &line, err) || ds_dataspace_build(s, err))
		return -1;
	h.mt = mt_tb_init(&h.b, s, "hotlines", "cache line", cols, HL_NCOLS);
	if (tb_sort_rows(h.b.t, sort, NULL, 0, err)) {
		tb_discard(&h.b);
		mt_free(h.mt);
		return -1;
	}
	h.line_size = line;
	h.nev = s->nev;
	h.stride = sizeof(hl_ent) + 2 * s->nev * sizeof(uint64_t);
	h.last_le = DS_U64MAP_NONE;
	h.code = ds_hash_new();
	h.site_code = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *h.site_code);
	for (size_t i = 0; i < s->sites.n; i++)
		h.site_code[i] = -1;
	/* two runs share no addresses: a diff compares the objects and the code */
	h.b.t->diff_rows = "object,code";
	h.b.t->tree = true;
	h.b.t->order = DS_ORDER_KIDS;
	/* a field or a line of code on several lines is one row of a diff:
	 * its accesses add up, its threads and CPUs are the union */
	h.b.t->diff_combine = hl_combine;
	ds_line_props(s, h.b.t, o, line);
	(void)ds_srec_visit(s, hl_add, &h, err); /* cannot fail: the dataspace is built */
	tb_prop(h.b.t, "samples_with_address", DS_PROP_NUMBER, "%llu", (unsigned long long)h.with_ea);
	tb_prop(h.b.t, "samples_without_address", DS_PROP_NUMBER, "%llu",
		(unsigned long long)h.without_ea);
	h.who_sorted = ds_xmalloc(h.who.n ? h.who.n * sizeof *h.who_sorted : 1);
	for (size_t i = 0, k = 0; i < h.who.cap; i++)
		if (h.who.slot[i].val != DS_U64MAP_NONE)
			h.who_sorted[k++] = h.who.slot[i].key;
	ds_sort(h.who_sorted, h.who.n, sizeof *h.who_sorted, cmp_u64);
	hl_rows(s, &h, sort, o ? o->limit : 0);
	*out = tb_take(&h.b);
	(*out)->total_rows = hl_total(&h);
	mt_free(h.mt);

	ds_hash_free(h.code);
	for (size_t i = 0; i < h.code_name.n; i++) {
		free(h.code_name.v[i]);
		free(h.code_source.v[i]);
	}
	ds_vec_free(&h.code_name);
	ds_vec_free(&h.code_source);
	free(h.ents);
	ds_vec_free(&h.ids);
	ds_u64map_free(&h.lines);
	ds_u64map_free(&h.who);
	free(h.who_sorted);
	free(h.site_code);
	return 0;
}
