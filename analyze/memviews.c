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
}

int ds_view_memobj(ds_session *s, const char *name, const ds_view_opts *o, ds_table **out,
		   ds_err *err)
{
	ds_col cols[MO_NCOLS] = {{"index", DS_COL_U64, false}, {"dataobject", DS_COL_STR, true}};
	mo_build m = {0};
	char *view;

	if (!(m.m = ds_session_mobj(s, name, err)) || ds_dataspace_build(s, err))
		return -1;
	/* the row's name is the index as the object prints it; the column
	 * keeps the number for programs (and --sort index) */
	if (m.m->hex)
		cols[MO_INDEX].kind = DS_COL_HEX;
	view = ds_xasprintf("memobj:%s", m.m->name);
	tb_init(&m.b, s, view, "index", cols, MO_NCOLS, false);
	free(view);
	tb_prop(m.b.t, "memory_object", DS_PROP_TEXT, "%s", m.m->name);
	tb_prop(m.b.t, "expression", DS_PROP_TEXT, "%s", m.m->text);
	tb_prop(m.b.t, "machine", DS_PROP_TEXT, "%s", s->machine.source ? s->machine.source : "?");
	m.top.index = ds_hash_new();
	(void)ds_srec_visit(s, mo_add, &m, err); /* cannot fail: the dataspace is built */
	top_cells(s, &m.top, m.b.v.v, m.b.v.n, MO_DATAOBJECT);
	return tb_finish(&m.b, o, out, err);
}

/* ---- hotlines ---- */

/* Sub-rows under each line: its data objects, then the source lines that
 * touched it, each sorted like the lines and cut at these counts. */
#define HL_MAX_OBJECTS 8
#define HL_MAX_CODE 5
/* Threads and CPUs listed by number in a row's cell (all are counted). */
#define HL_MAX_LISTED 8

enum {
	HL_KIND, HL_LINE, HL_OFFSETS, HL_LOADS, HL_STORES, HL_NTHREADS, HL_THREADS, HL_NCPUS,
	HL_CPUS, HL_DATAOBJECT, HL_FUNCTION, HL_SOURCE, HL_NCOLS
};

enum hl_kind { HL_ROW_LINE, HL_ROW_OBJECT, HL_ROW_CODE };

typedef struct hl_key {
	uint64_t line;
	uint32_t kind;         /* enum hl_kind */
	int32_t id;            /* object: dobj; code: index in code */
} hl_key;

typedef struct hl_aux {
	uint64_t line;
	enum hl_kind kind;
	uint32_t lo, hi;       /* bytes of the line touched, lo..hi (lo > hi: none known) */
	uint64_t loads, stores;
} hl_aux;

/* A thread or CPU that touched a row. */
typedef struct hl_who {
	uint32_t row;
	uint32_t cpu;          /* 0: a thread (id is its index), 1: a CPU (id is its number) */
	uint32_t id;
} hl_who;

typedef struct hl_build {
	tb b;
	uint64_t line_size;
	DS_VEC(hl_aux) aux;
	ds_hash *who;
	ds_hash *code;         /* "function\x01file\x01line" -> index */
	DS_VEC(char *) code_name;
	DS_VEC(char *) code_source;
	int32_t *site_code;    /* per site: index in code, -1 before it is known */
	uint64_t with_ea, without_ea;
} hl_build;

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

static size_t hl_row(ds_session *s, hl_build *h, uint64_t line, enum hl_kind kind, int32_t id)
{
	hl_key k = {line, kind, id};
	int64_t at = ds_hash_find(h->b.rows, &k, sizeof k);
	ds_buf name = {0};
	ds_row *row;
	size_t r;

	if (at >= 0)
		return (size_t)at;
	switch (kind) {
	case HL_ROW_LINE:
		ds_buf_printf(&name, "0x%" PRIx64, line);
		break;
	case HL_ROW_OBJECT:
		ds_buf_printf(&name, "  %s", s->dobjs.v[id].name);
		break;
	case HL_ROW_CODE:
		ds_buf_printf(&name, "  %s", h->code_name.v[id]);
		if (h->code_source.v[id])
			ds_buf_printf(&name, "  %s", h->code_source.v[id]);
		break;
	}
	r = tb_row(&h->b, &k, sizeof k, name.p, NULL);
	ds_buf_free(&name);
	row = &h->b.v.v[r];
	tb_cell_str(row, HL_KIND, kind == HL_ROW_LINE ? "line" : kind == HL_ROW_OBJECT ? "object" : "code");
	tb_cell_u64(row, HL_LINE, line);
	if (kind == HL_ROW_OBJECT)
		tb_cell_str(row, HL_DATAOBJECT, s->dobjs.v[id].name);
	if (kind == HL_ROW_CODE) {
		tb_cell_str(row, HL_FUNCTION, h->code_name.v[id]);
		tb_cell_str(row, HL_SOURCE, h->code_source.v[id]);
	}
	ds_vec_push(&h->aux, ((hl_aux){line, kind, UINT32_MAX, 0, 0, 0}));
	return r;
}

static void hl_count(hl_build *h, size_t r, const ds_srec *x, uint32_t lo, uint32_t hi)
{
	ds_row *row = &h->b.v.v[r];
	hl_aux *a = &h->aux.v[r];
	hl_who w = {(uint32_t)r, 0, x->thread};

	row->samples[x->ev]++;
	row->count[x->ev] += x->period;
	if (lo < a->lo)
		a->lo = lo;
	if (hi > a->hi)
		a->hi = hi;
	a->loads += (x->flags & SR_LOAD) != 0;
	a->stores += (x->flags & SR_STORE) != 0;
	ds_hash_intern(h->who, &w, sizeof w, NULL);
	if (x->cpu != UINT32_MAX) {
		w.cpu = 1;
		w.id = x->cpu;
		ds_hash_intern(h->who, &w, sizeof w, NULL);
	}
}

static void hl_add(ds_session *s, size_t i, const ds_srec *x, void *ctx)
{
	hl_build *h = ctx;
	uint64_t line;
	uint32_t lo, hi;

	(void)i;
	if (!(x->flags & SR_EA)) {
		h->without_ea++;
		return;
	}
	h->with_ea++;
	ds_srec_line_span(s, x, h->line_size, &line, &lo, &hi);
	hl_count(h, hl_row(s, h, line, HL_ROW_LINE, 0), x, lo, hi);
	hl_count(h, hl_row(s, h, line, HL_ROW_OBJECT, x->dobj), x, lo, hi);
	hl_count(h, hl_row(s, h, line, HL_ROW_CODE, site_code(s, h, x->site)), x, lo, hi);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The threads (by tid) and CPUs of every row: counts and short lists. */
static void who_cells(ds_session *s, hl_build *h)
{
	size_t nrows = h->b.v.n, n = ds_hash_count(h->who);
	ds_vec_u32 *ids = ds_xcalloc(nrows ? nrows * 2 : 1, sizeof *ids);
	ds_buf b = {0};

	for (size_t i = 0; i < n; i++) {
		const hl_who *w = ds_hash_key(h->who, i, NULL);
		ds_vec_push(&ids[w->row * 2 + w->cpu], w->cpu ? w->id : s->threads.v[w->id].tid);
	}
	for (size_t r = 0; r < nrows; r++)
		for (int cpu = 0; cpu < 2; cpu++) {
			ds_vec_u32 *v = &ids[r * 2 + cpu];
			ds_buf_reset(&b);
			if (v->n)
				qsort(v->v, v->n, sizeof *v->v, cmp_u32);
			for (size_t k = 0; k < v->n && k < HL_MAX_LISTED; k++)
				ds_buf_printf(&b, "%s%u", k ? " " : "", v->v[k]);
			if (v->n > HL_MAX_LISTED)
				ds_buf_printf(&b, " +%zu", v->n - HL_MAX_LISTED);
			tb_cell_u64(&h->b.v.v[r], cpu ? HL_NCPUS : HL_NTHREADS, v->n);
			if (v->n)
				tb_cell_str(&h->b.v.v[r], cpu ? HL_CPUS : HL_THREADS, ds_buf_str(&b));
			ds_vec_free(v);
		}
	free(ids);
	ds_buf_free(&b);
}

static void aux_cells(hl_build *h)
{
	for (size_t r = 0; r < h->b.v.n; r++) {
		const hl_aux *a = &h->aux.v[r];
		ds_row *row = &h->b.v.v[r];
		char text[32];
		if (a->lo <= a->hi) {
			if (a->lo == a->hi)
				snprintf(text, sizeof text, "%u", a->lo);
			else
				snprintf(text, sizeof text, "%u-%u", a->lo, a->hi);
			tb_cell_str(row, HL_OFFSETS, text);
		}
		tb_cell_u64(row, HL_LOADS, a->loads);
		tb_cell_u64(row, HL_STORES, a->stores);
	}
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

int ds_view_line_size(ds_session *s, const ds_view_opts *o, unsigned *line, ds_err *err)
{
	*line = o ? o->line : 0;
	return !*line && ds_session_line_size(s, o ? o->level : NULL, line, err) ? -1 : 0;
}

void ds_line_props(ds_table *t, const ds_view_opts *o, unsigned line)
{
	if (!o || !o->line)
		tb_prop(t, "level", DS_PROP_TEXT, "%s", o && o->level ? o->level : "L1D");
	tb_prop(t, "line_size", DS_PROP_NUMBER, "%u", line);
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

int ds_view_hotlines(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[HL_NCOLS] = {
		{"kind", DS_COL_STR, true},     {"line", DS_COL_HEX, false},
		{"offsets", DS_COL_STR, true},  {"loads", DS_COL_U64, true},
		{"stores", DS_COL_U64, true},   {"nthreads", DS_COL_U64, false},
		{"threads", DS_COL_STR, true},  {"ncpus", DS_COL_U64, false},
		{"cpus", DS_COL_STR, true},     {"dataobject", DS_COL_STR, false},
		{"function", DS_COL_STR, false}, {"source", DS_COL_STR, false}};
	static const char *const subs[] = {"object", "code"};
	static const size_t caps[] = {HL_MAX_OBJECTS, HL_MAX_CODE};
	ds_view_opts all = {.sort = o ? o->sort : NULL};
	hl_build h = {0};
	unsigned line;
	int rc;

	if (ds_view_line_size(s, o, &line, err) || ds_dataspace_build(s, err))
		return -1;
	h.line_size = line;
	h.who = ds_hash_new();
	h.code = ds_hash_new();
	h.site_code = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *h.site_code);
	for (size_t i = 0; i < s->sites.n; i++)
		h.site_code[i] = -1;
	tb_init(&h.b, s, "hotlines", "cache line", cols, HL_NCOLS, false);
	/* two runs share no addresses: a diff compares the objects and the code */
	h.b.t->diff_rows = "object,code";
	ds_line_props(h.b.t, o, line);
	(void)ds_srec_visit(s, hl_add, &h, err); /* cannot fail: the dataspace is built */
	tb_prop(h.b.t, "samples_with_address", DS_PROP_NUMBER, "%llu", (unsigned long long)h.with_ea);
	tb_prop(h.b.t, "samples_without_address", DS_PROP_NUMBER, "%llu",
		(unsigned long long)h.without_ea);
	who_cells(s, &h);
	aux_cells(&h);
	rc = tb_finish(&h.b, &all, out, err);
	if (rc == 0)
		ds_group_lines(*out, HL_LINE, HL_KIND, "line", subs, caps, 2, o ? o->limit : 0);
	ds_hash_free(h.who);
	ds_hash_free(h.code);
	for (size_t i = 0; i < h.code_name.n; i++) {
		free(h.code_name.v[i]);
		free(h.code_source.v[i]);
	}
	ds_vec_free(&h.code_name);
	ds_vec_free(&h.code_source);
	ds_vec_free(&h.aux);
	free(h.site_code);
	return rc;
}
