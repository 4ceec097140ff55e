/* Building analyze/ tables: rows by key, sorting, limits. */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tb_init(tb *b, ds_session *s, const char *view, const char *name_label,
		    const ds_col *cols, size_t ncols, bool inclusive)
{
	ds_table *t = ds_xcalloc(1, sizeof *t);
	t->view = ds_xstrdup(view);
	t->name_label = name_label;
	t->nevents = s->nev;
	t->events = ds_xcalloc(s->nev, sizeof *t->events);
	for (size_t e = 0; e < s->nev; e++) {
		const ds_event *ev = ds_session_event(s, e);
		t->events[e].name = ds_xstrdup(ev->name);
		t->events[e].period = ev->attr.freq ? 0 : ev->attr.sample_period;
		t->events[e].freq = ev->attr.freq ? ev->attr.sample_freq : 0;
		t->events[e].precise = ds_event_precise(ev);
		t->events[e].time_ns = ds_attr_counts_time(&ev->attr);
		t->events[e].derived = e >= s->npev;
		t->events[e].samples = s->ev_samples[e];
		t->events[e].count = s->ev_count[e];
	}
	t->ncols = ncols;
	t->cols = ds_xcalloc(ncols ? ncols : 1, sizeof *t->cols);
	memcpy(t->cols, cols, ncols * sizeof *cols);
	t->inclusive = inclusive;
	t->has_metrics = true;
	if (s->filter_text) {
		/* every view says what it leaves out */
		tb_prop(t, "filter", DS_PROP_TEXT, "%s", s->filter_text);
		tb_prop(t, "samples_kept", DS_PROP_NUMBER, "%llu", (unsigned long long)s->nsamples);
		tb_prop(t, "samples_before_filter", DS_PROP_NUMBER, "%llu",
			(unsigned long long)s->unfiltered_samples);
	}
	b->t = t;
	b->rows = ds_hash_new();
	memset(&b->v, 0, sizeof b->v);
}

/* Reorder v (n elements of size sz) as perm says: new[k] = old[perm[k]]. */
static void permute(void *v, size_t n, size_t sz, const size_t *perm)
{
	char *old;
	if (!v || n < 2)
		return;
	old = ds_xmalloc(n * sz);
	memcpy(old, v, n * sz);
	for (size_t k = 0; k < n; k++)
		memcpy((char *)v + k * sz, old + perm[k] * sz, sz);
	free(old);
}

void tb_events_first(tb *b, bool (*first)(const char *event))
{
	ds_table *t = b->t;
	size_t *perm = ds_xcalloc(t->nevents ? t->nevents : 1, sizeof *perm), k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t e = 0; e < t->nevents; e++)
			if (first(t->events[e].name) == (pass == 0))
				perm[k++] = e;
	permute(t->events, t->nevents, sizeof *t->events, perm);
	for (size_t r = 0; r < b->v.n; r++) {
		ds_row *row = &b->v.v[r];
		permute(row->samples, t->nevents, sizeof *row->samples, perm);
		permute(row->count, t->nevents, sizeof *row->count, perm);
		permute(row->incl_samples, t->nevents, sizeof *row->incl_samples, perm);
		permute(row->incl_count, t->nevents, sizeof *row->incl_count, perm);
	}
	free(perm);
}

bool ds_event_coherence(const char *event)
{
	return strcasestr(event, "hitm") != NULL;
}

void tb_own_names(ds_table *t)
{
	size_t head = t->ncols * sizeof(ds_col), len = strlen(t->name_label ? t->name_label : "") + 1;
	char *block, *names;

	for (size_t c = 0; c < t->ncols; c++)
		len += strlen(t->cols[c].name) + 1;
	block = ds_xmalloc(head + len);
	names = block + head;
	memcpy(block, t->cols, head);
	for (size_t c = 0; c < t->ncols; c++) {
		size_t n = strlen(t->cols[c].name) + 1;
		memcpy(names, t->cols[c].name, n);
		((ds_col *)(void *)block)[c].name = names;
		names += n;
	}
	memcpy(names, t->name_label ? t->name_label : "", strlen(t->name_label ? t->name_label : "") + 1);
	t->name_label = names;
	free(t->cols);
	t->cols = (ds_col *)(void *)block;
}

size_t *ds_table_parents(const ds_table *t)
{
	size_t *p = ds_xmalloc((t->nrows + 1) * sizeof *p);
	DS_VEC(size_t) last = {0}; /* last.v[d]: the latest row of depth d */

	for (size_t r = 0; r < t->nrows; r++) {
		unsigned d = t->rows[r].depth;
		p[r] = d && d - 1 < last.n ? last.v[d - 1] : SIZE_MAX;
		while (last.n <= d)
			ds_vec_push(&last, SIZE_MAX);
		last.v[d] = r;
		last.n = (size_t)d + 1;
	}
	ds_vec_free(&last);
	return p;
}

ds_table *tb_flatten(const ds_table *t)
{
	ds_table *f = ds_xcalloc(1, sizeof *f);
	unsigned deepest = 0;
	size_t *parent;

	*f = *t;
	f->flat = false;
	f->view = ds_xstrdup(t->view);
	f->events = ds_xcalloc(t->nevents + 1, sizeof *f->events);
	for (size_t e = 0; e < t->nevents; e++) {
		f->events[e] = t->events[e];
		f->events[e].name = ds_xstrdup(t->events[e].name);
		f->events[e].run_count = ds_run_counts(&t->events[e]);
	}
	f->cols = ds_xcalloc(t->ncols + 1, sizeof *f->cols);
	memcpy(f->cols, t->cols, t->ncols * sizeof *f->cols);
	tb_own_names(f);
	f->props = ds_xcalloc(t->nprops + 1, sizeof *f->props);
	for (size_t i = 0; i < t->nprops; i++) {
		f->props[i] = t->props[i];
		f->props[i].key = ds_xstrdup(t->props[i].key);
		f->props[i].value = ds_xstrdup(t->props[i].value);
	}
	for (size_t r = 0; r < t->nrows; r++)
		deepest = t->rows[r].depth > deepest ? t->rows[r].depth : deepest;
	parent = ds_table_parents(t);
	f->rows = ds_xcalloc(t->nrows + 1, sizeof *f->rows);
	f->nrows = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const ds_row *x = &t->rows[r];
		ds_row *y = &f->rows[f->nrows];
		size_t ne = t->nevents ? t->nevents : 1;
		ds_buf name = {0};
		if (x->depth < deepest)
			continue;
		*y = (ds_row){0};
		y->cells = ds_xcalloc(t->ncols + 1, sizeof *y->cells);
		for (size_t p = r; p != SIZE_MAX; p = parent[p]) {
			ds_buf part = {0};
			ds_buf_printf(&part, "%s%s%s", t->rows[p].name, name.len ? " > " : "", ds_buf_str(&name));
			ds_buf_free(&name);
			name = part;
			for (size_t c = 0; c < t->ncols; c++)
				if (!y->cells[c].set && t->rows[p].cells[c].set && (p == r || c + t->own_cols < t->ncols)) {
					y->cells[c] = t->rows[p].cells[c];
					y->cells[c].s = t->rows[p].cells[c].s ? ds_xstrdup(t->rows[p].cells[c].s) : NULL;
				}
		}
		y->name = ds_buf_steal(&name);
		y->samples = ds_xcalloc(ne, sizeof *y->samples);
		y->count = ds_xcalloc(ne, sizeof *y->count);
		memcpy(y->samples, x->samples, t->nevents * sizeof *y->samples);
		memcpy(y->count, x->count, t->nevents * sizeof *y->count);
		if (t->inclusive) {
			y->incl_samples = ds_xcalloc(ne, sizeof *y->incl_samples);
			y->incl_count = ds_xcalloc(ne, sizeof *y->incl_count);
			memcpy(y->incl_samples, x->incl_samples, t->nevents * sizeof *y->incl_samples);
			memcpy(y->incl_count, x->incl_count, t->nevents * sizeof *y->incl_count);
		}
		if (t->nruns) {
			y->runs = ds_xcalloc(ne * t->nruns, sizeof *y->runs);
			memcpy(y->runs, x->runs, t->nevents * t->nruns * sizeof *y->runs);
		}
		f->nrows++;
	}
	f->total_rows = f->nrows;
	free(parent);
	return f;
}

/* A new row without a key (the view finds its rows itself); its index. */
size_t tb_row_new(tb *b, const char *name)
{
	ds_row r = {0};
	size_t ne = b->t->nevents ? b->t->nevents : 1;

	r.name = ds_xstrdup(name);
	r.cells = ds_xcalloc(b->t->ncols ? b->t->ncols : 1, sizeof *r.cells);
	r.samples = ds_xcalloc(ne, sizeof *r.samples);
	r.count = ds_xcalloc(ne, sizeof *r.count);
	if (b->t->inclusive) {
		r.incl_samples = ds_xcalloc(ne, sizeof *r.incl_samples);
		r.incl_count = ds_xcalloc(ne, sizeof *r.incl_count);
	}
	ds_vec_push(&b->v, r);
	return b->v.n - 1;
}

/* The row for key, created with `name` when new; returns its index. */
size_t tb_row(tb *b, const void *key, size_t keylen, const char *name, bool *added)
{
	bool a;
	size_t i = ds_hash_intern(b->rows, key, keylen, &a);
	if (a)
		tb_row_new(b, name);
	if (added)
		*added = a;
	return i;
}

void tb_cell_str(ds_row *r, size_t col, const char *s)
{
	free(r->cells[col].s);
	r->cells[col].s = s ? ds_xstrdup(s) : NULL;
	r->cells[col].set = s != NULL;
}

void tb_cell_u64(ds_row *r, size_t col, uint64_t v)
{
	r->cells[col].u = v;
	r->cells[col].set = true;
}

/* The data object an instruction's samples touched, where the access was
 * (the trigger: the sampled instruction or one before it) and how
 * backtracking went, in columns of a row (-1: no such column). */
void site_trigger_cells(const ds_session *s, ds_row *r, size_t si, size_t obj_col, size_t trig_col,
			size_t verdict_col)
{
	const char *verdict;
	const ds_trigger *t;
	const char *obj = ds_site_dataobject(s, si, &verdict, &t);
	const site *st = &s->sites.v[si];

	tb_cell_str(r, obj_col, obj);
	if (verdict_col != (size_t)-1)
		tb_cell_str(r, verdict_col, verdict);
	if (trig_col != (size_t)-1 && t && t->verdict == DS_BT_OK && st->sym) {
		char text[512];
		snprintf(text, sizeof text, "%s+0x%" PRIx64, st->sym->name, t->pc - st->sym->start);
		tb_cell_str(r, trig_col, text);
	}
}

void ds_session_debug_notes(ds_session *s, ds_table *t)
{
	for (size_t i = 0; i < s->dsos.n; i++) {
		const char *note = s->dsos.v[i].dso ? ds_dso_note(s->dsos.v[i].dso) : NULL;
		bool shown = false;
		if (!note)
			continue;
		ds_session_note_add(s, "%s", note);
		for (size_t k = 0; t && k < t->nprops && !shown; k++)
			shown = strcmp(t->props[k].key, "note") == 0 && strcmp(t->props[k].value, note) == 0;
		if (t && !shown)
			tb_prop(t, "note", DS_PROP_TEXT, "%s", note);
	}
}

void ds_line_props(ds_session *s, ds_table *t, const ds_view_opts *o, unsigned line)
{
	const char *level = o && o->level ? o->level : "L1D";
	const char *src = s->meta.cache_source;

	if (!o || !o->line)
		tb_prop(t, "level", DS_PROP_TEXT, "%s", level);
	tb_prop(t, "line_size", DS_PROP_NUMBER, "%u", line);
	/* where the geometry came from, the recording's or not */
	if (o && o->line)
		tb_prop(t, "line_from", DS_PROP_TEXT, "--line-size");
	else if (!ds_machine_level(&s->machine, level))
		tb_prop(t, "line_from", DS_PROP_TEXT, "default (the experiment describes no caches)");
	else if (strcmp(s->machine.source, "experiment") != 0)
		tb_prop(t, "line_from", DS_PROP_TEXT, "%s (not the recording's)", s->machine.source);
	else
		tb_prop(t, "line_from", DS_PROP_TEXT, "the recording (%s)", src ? src : "meta.json");
}

/* ---- sorting ---- */

const char *ds_view_help_sort(void)
{
	return "samples, count, incl, incl_count (each as KEY or KEY:EVENT), EVENT, name, "
	       "or a column name (module, file, line, address, pid, tid, ...)";
}

static int find_event(const ds_table *t, const char *name, size_t *ev)
{
	for (size_t e = 0; e < t->nevents; e++)
		if (strcmp(t->events[e].name, name) == 0) {
			*ev = e;
			return 0;
		}
	return -1;
}

int tb_parse_sort(const ds_table *t, const char *spec, sort_spec *out, ds_err *err)
{
	static const struct {
		const char *key;
		enum sort_what w;
	} keys[] = {{"samples", SORT_SAMPLES}, {"count", SORT_COUNT}, {"incl", SORT_INCL},
		    {"incl_samples", SORT_INCL}, {"incl_count", SORT_INCL_COUNT}};
	const char *colon;
	size_t klen;

	memset(out, 0, sizeof *out);
	out->t = t;
	if (!spec || !*spec) {
		out->what = t->has_metrics ? SORT_SAMPLES : SORT_COL;
		return 0;
	}
	if (strcmp(spec, "name") == 0) {
		out->what = SORT_NAME;
		return 0;
	}
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, spec) == 0) {
			out->what = SORT_COL;
			out->col = c;
			return 0;
		}
	if (t->has_metrics && find_event(t, spec, &out->ev) == 0) {
		out->what = SORT_SAMPLES;
		return 0;
	}
	colon = strchr(spec, ':');
	klen = colon ? (size_t)(colon - spec) : strlen(spec);
	for (size_t k = 0; t->has_metrics && k < sizeof keys / sizeof keys[0]; k++) {
		if (strlen(keys[k].key) != klen || strncmp(spec, keys[k].key, klen) != 0)
			continue;
		if ((keys[k].w == SORT_INCL || keys[k].w == SORT_INCL_COUNT) && !t->inclusive)
			return ds_err_set(err, DS_EINPUT,
					  "cannot sort by '%s': this view has no inclusive metrics "
					  "(record with --call-graph=fp)", spec);
		out->what = keys[k].w;
		if (colon && find_event(t, colon + 1, &out->ev) < 0)
			return ds_err_set(err, DS_EINPUT,
					  "cannot sort by '%s': the experiment has no event '%s'", spec,
					  colon + 1);
		return 0;
	}
	return ds_err_set(err, DS_EINPUT, "unknown sort key '%s' for view '%s'; use %s", spec,
			  t->view, ds_view_help_sort());
}

static uint64_t metric(const sort_spec *sp, const ds_row *r)
{
	switch (sp->what) {
	case SORT_SAMPLES: return r->samples[sp->ev];
	case SORT_COUNT: return r->count[sp->ev];
	case SORT_INCL: return r->incl_samples[sp->ev];
	case SORT_INCL_COUNT: return r->incl_count[sp->ev];
	default: return 0;
	}
}

uint64_t tb_sort_metric(const sort_spec *sp, const uint64_t *samples, const uint64_t *count,
			const uint64_t *incl_samples, const uint64_t *incl_count)
{
	switch (sp->what) {
	case SORT_SAMPLES: return samples[sp->ev];
	case SORT_COUNT: return count[sp->ev];
	case SORT_INCL: return incl_samples ? incl_samples[sp->ev] : 0;
	case SORT_INCL_COUNT: return incl_count ? incl_count[sp->ev] : 0;
	default: return 0;
	}
}

int tb_cmp_cells(const ds_col *c, const ds_cell *a, const ds_cell *b)
{
	if (a->set != b->set)
		return a->set ? -1 : 1;
	switch (c->kind) {
	case DS_COL_STR:
		return strcmp(a->s ? a->s : "", b->s ? b->s : "");
	case DS_COL_PERCENT:
	case DS_COL_CHANGE:
		return a->d < b->d ? -1 : a->d > b->d;
	case DS_COL_DELTA:
	case DS_COL_DELTA_NS:
		return (int64_t)a->u < (int64_t)b->u ? -1 : (int64_t)a->u > (int64_t)b->u;
	default:
		return a->u < b->u ? -1 : a->u > b->u;
	}
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const sort_spec *sp = arg;
	const ds_row *a = pa, *b = pb;
	int c;

	switch (sp->what) {
	case SORT_NAME:
		c = strcmp(a->name, b->name);
		break;
	case SORT_COL:
		c = sp->t->ncols ? tb_cmp_cells(&sp->t->cols[sp->col], &a->cells[sp->col], &b->cells[sp->col]) : 0;
		break;
	default: {
		uint64_t x = metric(sp, a), y = metric(sp, b);
		c = x > y ? -1 : x < y; /* metrics: largest first */
		break;
	}
	}
	return c ? c : tb_cmp_ties(sp->t, a, b);
}

int tb_cmp_ties(const ds_table *t, const ds_row *a, const ds_row *b)
{
	int c = strcmp(a->name, b->name);
	for (size_t i = 0; !c && i < t->ncols; i++)
		c = tb_cmp_cells(&t->cols[i], &a->cells[i], &b->cells[i]);
	return c;
}

void tb_row_free(ds_row *r, size_t ncols)
{
	free(r->name);
	for (size_t c = 0; c < ncols; c++)
		free(r->cells[c].s);
	free(r->cells);
	free(r->samples);
	free(r->count);
	free(r->incl_samples);
	free(r->incl_count);
	free(r->runs);
}

int tb_sort_rows(const ds_table *t, const char *sort, ds_row *rows, size_t n, ds_err *err)
{
	sort_spec sp;

	if (tb_parse_sort(t, sort, &sp, err))
		return -1;
	ds_sort_r(rows, n, sizeof *rows, cmp_rows, &sp);
	return 0;
}

ds_table *tb_take(tb *b)
{
	ds_table *t = b->t;

	ds_hash_free(b->rows);
	t->rows = b->v.v;
	t->nrows = t->total_rows = b->v.n;
	return t;
}

int tb_finish(tb *b, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	ds_table *t = b->t;
	sort_spec sp;

	ds_hash_free(b->rows);
	t->rows = b->v.v;
	t->nrows = t->total_rows = b->v.n;
	if (tb_parse_sort(t, o ? o->sort : NULL, &sp, err)) {
		ds_table_free(t);
		return -1;
	}
	ds_sort_r(t->rows, t->nrows, sizeof *t->rows, cmp_rows, &sp);
	if (o && o->limit && o->limit < t->nrows) {
		for (size_t i = o->limit; i < t->nrows; i++)
			tb_row_free(&t->rows[i], t->ncols);
		t->nrows = o->limit;
	}
	*out = t;
	return 0;
}

void tb_cut(ds_table *t, size_t limit)
{
	if (!limit || limit >= t->nrows)
		return;
	for (size_t i = limit; i < t->nrows; i++)
		tb_row_free(&t->rows[i], t->ncols);
	t->nrows = limit;
}

void tb_discard(tb *b)
{
	ds_hash_free(b->rows);
	b->t->rows = b->v.v;
	b->t->nrows = b->v.n;
	ds_table_free(b->t);
}

void ds_table_free(ds_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		tb_row_free(&t->rows[i], t->ncols);
	free(t->rows);
	for (size_t e = 0; e < t->nevents; e++) {
		free(t->events[e].name);
		free(t->events[e].run_count);
	}
	free(t->events);
	free(t->cols);
	for (size_t i = 0; i < t->nprops; i++) {
		free(t->props[i].key);
		free(t->props[i].value);
	}
	free(t->props);
	free(t->view);
	free(t);
}

uint64_t *ds_run_counts(const ds_table_event *e)
{
	uint64_t *v;

	if (!e->run_count)
		return NULL;
	v = ds_xcalloc(e->runs + 1, sizeof *v);
	memcpy(v, e->run_count, e->runs * sizeof *v);
	return v;
}

void tb_prop(ds_table *t, const char *key, enum ds_prop_kind kind, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	t->props = ds_xrealloc(t->props, (t->nprops + 1) * sizeof *t->props);
	t->props[t->nprops].key = ds_xstrdup(key);
	t->props[t->nprops].value = ds_buf_steal(&b);
	t->props[t->nprops].kind = kind;
	t->nprops++;
}


void ds_count_text(char *out, size_t n, uint64_t v, bool ns)
{
	double d = (double)v;
	if (ns)
		snprintf(out, n, "%.3fs", d / 1e9);
	else if (d >= 1e9)
		snprintf(out, n, "%.2fG", d / 1e9);
	else if (d >= 1e6)
		snprintf(out, n, "%.2fM", d / 1e6);
	else if (d >= 1e4)
		snprintf(out, n, "%.1fk", d / 1e3);
	else
		snprintf(out, n, "%" PRIu64, v);
}

/* A duration for people: "850ns", "3.8us", "146.8ms", "1.25s". */
static void fmt_ns(char *out, size_t n, uint64_t v)
{
	double d = (double)v;
	/* each unit up to what its one decimal rounds to 1000 of it */
	if (v < 1000)
		snprintf(out, n, "%" PRIu64 "ns", v);
	else if (v < 999950)
		snprintf(out, n, "%.1fus", d / 1e3);
	else if (v < 999950000)
		snprintf(out, n, "%.1fms", d / 1e6);
	else
		snprintf(out, n, "%.2fs", d / 1e9);
}

/* A diff's signed difference: text like a count with its sign ("-99.8k",
 * "+0.250s"), CSV the integer. */
static void fmt_delta(char *out, size_t n, const ds_cell *v, bool ns, bool text)
{
	int64_t d = (int64_t)v->u;
	if (!text) {
		snprintf(out, n, "%" PRId64, d);
		return;
	}
	if (!d) {
		ds_count_text(out, n, 0, ns);
		return;
	}
	out[0] = d < 0 ? '-' : '+';
	ds_count_text(out + 1, n - 1, d < 0 ? -(uint64_t)d : (uint64_t)d, ns);
}

/* A relative change: text with its sign and one decimal, more where one
 * would round what did not quite go away to -100% (or a change to 0). */
static void fmt_change(char *out, size_t n, double d, bool text)
{
	int dec = 1;
	for (double half = 0.05; dec < 4 && d != 0 && (d < half && d > -half); half /= 10)
		dec++;
	for (double half = 0.05; dec < 4 && d > -100.0 && d <= -100.0 + half; half /= 10)
		dec++;
	if (!text)
		snprintf(out, n, "%.2f", d);
	else if (d == 0)
		snprintf(out, n, "0.0%%");
	else
		snprintf(out, n, "%+.*f%%", dec, d);
}

const char *ds_cell_text(char *out, size_t n, const ds_col *c, const ds_cell *v, bool text)
{
	if (!v->set) {
		out[0] = 0;
		return out;
	}
	switch (c->kind) {
	case DS_COL_STR:
		snprintf(out, n, "%s", v->s ? v->s : "");
		return v->s ? v->s : out;
	case DS_COL_U64: snprintf(out, n, "%" PRIu64, v->u); break;
	case DS_COL_BYTES:
	case DS_COL_NS:
		if (!text)
			snprintf(out, n, "%" PRIu64, v->u);
		else if (c->kind == DS_COL_BYTES)
			ds_size_text(out, n, v->u);
		else
			fmt_ns(out, n, v->u);
		break;
	case DS_COL_HEX: snprintf(out, n, "0x%" PRIx64, v->u); break;
	case DS_COL_PERCENT: snprintf(out, n, text ? "%.1f%%" : "%.2f", v->d); break;
	case DS_COL_DELTA: fmt_delta(out, n, v, false, text); break;
	case DS_COL_DELTA_NS: fmt_delta(out, n, v, true, text); break;
	case DS_COL_CHANGE: fmt_change(out, n, v->d, text); break;
	}
	return out;
}

/* ---- metric columns ---- */

static const char *const metric_names[DS_M_N] = {"percent", "samples", "count", "incl_percent",
						 "incl_samples", "incl_count"};

const char *ds_metric_name(enum ds_metric m)
{
	return m < DS_M_N ? metric_names[m] : "?";
}

/* The columns `name` stands for, as bits; 0 when it is none. */
static unsigned metric_bits(const char *name, size_t len)
{
	if (len == 4 && strncmp(name, "incl", 4) == 0)
		return 1u << DS_M_INCL_PERCENT | 1u << DS_M_INCL_SAMPLES | 1u << DS_M_INCL_COUNT;
	for (int m = 0; m < DS_M_N; m++)
		if (strlen(metric_names[m]) == len && strncmp(name, metric_names[m], len) == 0)
			return 1u << m;
	return 0;
}

/* Whether event e of t goes by name[0..len): its name, or in a diff its
 * name after the side's prefix. */
static bool event_is(const ds_table *t, size_t e, const char *name, size_t len)
{
	const char *n = t->events[e].name;
	if (strlen(n) == len && strncmp(n, name, len) == 0)
		return true;
	for (int k = 0; k < 2; k++) {
		const char *side = k ? "after:" : "before:";
		if (ds_str_has_prefix(n, side) && strlen(n + strlen(side)) == len &&
		    strncmp(n + strlen(side), name, len) == 0)
			return true;
	}
	return false;
}

/* An event's name without a diff's side. */
static const char *unsided(const char *n)
{
	if (ds_str_has_prefix(n, "before:"))
		return n + strlen("before:");
	if (ds_str_has_prefix(n, "after:"))
		return n + strlen("after:");
	return n;
}

int ds_metrics_select(const ds_table *t, const char *spec, bool *show, ds_err *err)
{
	const unsigned all = (1u << DS_M_N) - 1;
	unsigned global = 0, *per = ds_xcalloc(t->nevents + 1, sizeof *per);
	bool *named = ds_xcalloc(t->nevents + 1, sizeof *named), any_named = false;
	const char *p = spec;
	int rc = 0;

	memset(show, 0, t->nevents * DS_M_N * sizeof *show);
	while (spec && *p && !rc) {
		size_t len = strcspn(p, ","), col_at = len;
		unsigned bits;
		bool found = false;
		if (len == 3 && strncmp(p, "all", 3) == 0) {
			global = all;
			p += len + (p[len] == ',');
			continue;
		}
		/* EVENT:COLUMN when the part after the last ':' is a column */
		for (size_t i = len; i-- > 0;)
			if (p[i] == ':') {
				col_at = i;
				break;
			}
		bits = col_at < len ? metric_bits(p + col_at + 1, len - col_at - 1) : 0;
		if (!bits)
			col_at = len;
		if (col_at == len && (bits = metric_bits(p, len))) {
			global |= bits;
			p += len + (p[len] == ',');
			continue;
		}
		for (size_t e = 0; e < t->nevents; e++)
			if (event_is(t, e, p, col_at)) {
				named[e] = any_named = found = true;
				per[e] |= bits;
			}
		if (!found) {
			ds_buf b = {0};
			for (size_t e = 0; e < t->nevents; e++) {
				const char *n = unsided(t->events[e].name);
				bool again = false;
				for (size_t k = 0; k < e && !again; k++)
					again = strcmp(unsided(t->events[k].name), n) == 0;
				if (!again)
					ds_buf_printf(&b, ", %s", n);
			}
			rc = ds_err_set(err, DS_EINPUT,
					"--metrics: '%.*s' is no column (percent, samples, count, incl, incl_percent, "
					"incl_samples, incl_count, all) and no event of this view (%s)",
					(int)len, p, b.len ? ds_buf_str(&b) + 2 : "none");
			ds_buf_free(&b);
		}
		p += len + (p[len] == ',');
	}
	for (size_t e = 0; e < t->nevents && !rc; e++) {
		unsigned cols;
		if (!spec) /* the first event's columns (both sides of a diff's), the others' share */
			cols = strcmp(unsided(t->events[e].name), unsided(t->events[0].name)) == 0
				       ? all : 1u << DS_M_PERCENT;
		else if (any_named && !named[e])
			cols = 0;
		else if ((cols = global | per[e]) == 0)
			cols = all;
		if (!t->inclusive)
			cols &= ~(1u << DS_M_INCL_PERCENT | 1u << DS_M_INCL_SAMPLES | 1u << DS_M_INCL_COUNT);
		for (int m = 0; m < DS_M_N; m++)
			show[e * DS_M_N + (size_t)m] = cols >> m & 1;
	}
	free(per);
	free(named);
	return rc;
}