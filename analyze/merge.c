/* Several experiments' tables of one view as one table (analyze.h: "several
 * experiments as one").
 *
 * A merger holds the rows merged so far as nodes of a tree: a node is a
 * row's place (its parent node) and its key (name, module, and which
 * occurrence of that name under that parent it is, for the rare view that
 * repeats a name).  Each experiment's table is walked once; its rows find
 * or make their nodes and add their metrics.  Nothing of the experiment is
 * kept but its counts per node (for the run-to-run statistics of a diff). */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One experiment's count of one event at a node. */
typedef struct mrun {
	uint32_t exp, ev;
	uint64_t count;
} mrun;

enum { M_SAMPLES, M_COUNT, M_INCL_SAMPLES, M_INCL_COUNT, M_N };

typedef struct mnode {
	ds_row row;           /* name, cells and flags of the first experiment's row */
	size_t parent;        /* SIZE_MAX: a top row */
	unsigned depth;
	ds_vec_u64 m;         /* per merged event, M_N metrics */
	double *avg;          /* per column, the sum of value x weight; [ncols] the weights */
	DS_VEC(mrun) runs;
	DS_VEC(size_t) kids;
} mnode;

/* A property of the tables: kept when every experiment says the same,
 * summed when it counts samples, said to differ otherwise. */
typedef struct mprop {
	ds_prop p;
	char *shape;          /* notes: the text without its figures */
	uint64_t sum;
	bool additive, differs;
} mprop;

struct ds_merger {
	enum ds_merge_how how;
	ds_table *shape;      /* the first table's view, columns and flags; no rows */
	DS_VEC(ds_table_event) events;
	DS_VEC(mnode) nodes;
	DS_VEC(size_t) top;
	DS_VEC(mprop) props;
	ds_hash *index;       /* parent, key -> node */
	bool *differs;        /* per column: a first-experiment cell that others contradict */
	unsigned own_depth;   /* rows this deep are one experiment's own (under --by's
			       * `experiment` key): a mean leaves them whole */
	size_t nexp;
};

/* Properties that count samples or things of each experiment's own: a
 * merge adds them up. */
static const char *const additive_props[] = {
	"samples", "samples_kept", "samples_before_filter", "samples_with_address",
	"samples_without_address", "heap_tracker_samples", "no_memory_access_samples", "user_samples",
	"trigger_found", "resolved", "lost_samples", "lost_records", "throttled", "leaked_bytes",
	"leaked_blocks", "addresses_checked", "address_disagreements", "heap_files", "threads", NULL,
};

/* Columns that count things of the row's own (bytes allocated, loads): a
 * merge adds them up; and those that average (weighted by the row's
 * samples, as percentages are).  Every other cell is what the row is (a
 * line number, an offset), the same in every run of one program: the
 * first experiment's is kept, and a note names the columns where another
 * experiment disagreed. */
static const char *const additive_cols[] = {
	"blocks", "bytes", "peak_bytes", "leaked_bytes", "leaked_blocks", "unended_blocks", "unended_bytes",
	"loads", "stores", "hitm", "fetched", "wasted", NULL,
};
static const char *const averaged_cols[] = {"avg_lifetime", "touched", NULL};

static bool listed(const char *const *list, const char *name)
{
	for (size_t k = 0; list[k]; k++)
		if (strcmp(list[k], name) == 0)
			return true;
	return false;
}

int ds_merge_check_view(const char *view, ds_err *err)
{
	if (strcmp(view, "samples") == 0)
		return ds_err_set(err, DS_EINPUT, "the samples view lists each sample of one experiment: "
				  "give one experiment (-i GROUP/NAME), or --by experiment,... to compare them");
	if (strcmp(view, "timeline") == 0)
		return ds_err_set(err, DS_EINPUT, "a timeline is in one run's own time: give one experiment "
				  "(-i GROUP/NAME), or --by experiment,time to compare the runs' slices");
	return 0;
}

ds_merger *ds_merger_new(enum ds_merge_how how)
{
	ds_merger *m = ds_xcalloc(1, sizeof *m);

	m->how = how;
	m->index = ds_hash_new();
	return m;
}

static void node_free(mnode *n, size_t ncols)
{
	tb_row_free(&n->row, ncols);
	ds_vec_free(&n->m);
	free(n->avg);
	ds_vec_free(&n->runs);
	ds_vec_free(&n->kids);
}

void ds_merger_free(ds_merger *m)
{
	size_t ncols;

	if (!m)
		return;
	ncols = m->shape ? m->shape->ncols : 0;
	for (size_t i = 0; i < m->nodes.n; i++)
		node_free(&m->nodes.v[i], ncols);
	ds_vec_free(&m->nodes);
	ds_vec_free(&m->top);
	for (size_t e = 0; e < m->events.n; e++) {
		free(m->events.v[e].name);
		free(m->events.v[e].run_count);
	}
	ds_vec_free(&m->events);
	for (size_t i = 0; i < m->props.n; i++) {
		free(m->props.v[i].p.key);
		free(m->props.v[i].p.value);
		free(m->props.v[i].shape);
	}
	ds_vec_free(&m->props);
	ds_hash_free(m->index);
	free(m->differs);
	ds_table_free(m->shape);
	free(m);
}

/* The first table's everything but its rows and events. */
/* The depth of --by's `experiment` key in a grouping "by:K1,K2,...";
 * UINT_MAX in other views. */
static unsigned own_depth(const char *view)
{
	unsigned depth = 0;

	if (strncmp(view, "by:", 3) != 0)
		return UINT_MAX;
	for (const char *p = view + 3; *p; depth++) {
		size_t len = strcspn(p, ",");
		if (len == 10 && strncmp(p, "experiment", 10) == 0)
			return depth;
		p += len + (p[len] == ',');
	}
	return UINT_MAX;
}

static ds_table *shape_of(const ds_table *t)
{
	ds_table *s = ds_xcalloc(1, sizeof *s);

	*s = *t;
	s->view = ds_xstrdup(t->view);
	s->events = NULL;
	s->nevents = 0;
	s->rows = NULL;
	s->nrows = s->total_rows = 0;
	s->props = NULL;
	s->nprops = 0;
	s->nruns = 0;
	s->cols = ds_xcalloc(t->ncols + 1, sizeof *s->cols);
	memcpy(s->cols, t->cols, t->ncols * sizeof *s->cols);
	tb_own_names(s);
	return s;
}

static int same_shape(const ds_merger *m, const ds_table *t, ds_err *err)
{
	const ds_table *s = m->shape;
	bool same = strcmp(s->view, t->view) == 0 && s->ncols == t->ncols && s->tree == t->tree &&
		    s->flat == t->flat;

	for (size_t c = 0; same && c < t->ncols; c++)
		same = strcmp(s->cols[c].name, t->cols[c].name) == 0 && s->cols[c].kind == t->cols[c].kind;
	if (!same)
		return ds_err_set(err, DS_EINPUT, "experiment %zu's %s view has other columns than the first's: "
				  "they are not views of one kind to merge", m->nexp + 1, t->view);
	return 0;
}

/* The merged event of t's event e. */
static size_t event_of(ds_merger *m, const ds_table_event *e)
{
	for (size_t i = 0; i < m->events.n; i++)
		if (strcmp(m->events.v[i].name, e->name) == 0)
			return i;
	ds_table_event n = *e;
	n.name = ds_xstrdup(e->name);
	n.samples = n.count = 0;
	n.runs = 0;
	n.run_count = NULL;
	ds_vec_push(&m->events, n);
	return m->events.n - 1;
}

/* Digits out: a note's shape, the same in every experiment that says it. */
static char *note_shape(const char *s)
{
	ds_buf b = {0};

	for (; *s; s++)
		if (*s < '0' || *s > '9')
			ds_buf_putc(&b, *s);
	ds_buf_putc(&b, 0);
	return ds_buf_steal(&b);
}

static void add_props(ds_merger *m, const ds_table *t)
{
	for (size_t i = 0; i < t->nprops; i++) {
		const ds_prop *p = &t->props[i];
		bool note = strcmp(p->key, "note") == 0, additive = listed(additive_props, p->key);
		char *shape = note ? note_shape(p->value) : NULL;
		mprop *have = NULL;

		for (size_t k = 0; k < m->props.n && !have; k++) {
			mprop *q = &m->props.v[k];
			if (strcmp(q->p.key, p->key) == 0 && (!note || strcmp(q->shape, shape) == 0))
				have = q;
		}
		if (!have) {
			mprop q = {.p = {ds_xstrdup(p->key), ds_xstrdup(p->value), p->kind}, .shape = shape,
				   .additive = additive && p->kind == DS_PROP_NUMBER};
			q.sum = q.additive ? strtoull(p->value, NULL, 10) : 0;
			ds_vec_push(&m->props, q);
			continue;
		}
		free(shape);
		if (have->additive)
			have->sum += strtoull(p->value, NULL, 10);
		else if (strcmp(have->p.value, p->value) != 0)
			have->differs = true;
	}
}

static uint64_t *node_metrics(mnode *n, size_t ev)
{
	size_t want = (ev + 1) * M_N;

	if (n->m.n < want) {
		ds_vec_reserve(&n->m, want);
		memset(n->m.v + n->m.n, 0, (want - n->m.n) * sizeof *n->m.v);
		n->m.n = want;
	}
	return n->m.v + ev * M_N;
}

/* A column of whole numbers (bytes and ns among them). */
static bool counted(const ds_col *c)
{
	return c->kind == DS_COL_U64 || c->kind == DS_COL_BYTES || c->kind == DS_COL_NS;
}

static bool averaged(const ds_col *c)
{
	return c->kind == DS_COL_PERCENT || (counted(c) && listed(averaged_cols, c->name));
}

static bool added(const ds_col *c)
{
	return counted(c) && listed(additive_cols, c->name);
}

static double cell_number(const ds_col *c, const ds_cell *v)
{
	return c->kind == DS_COL_PERCENT ? v->d : (double)v->u;
}

static bool same_cell(const ds_col *c, const ds_cell *a, const ds_cell *b)
{
	if (a->set != b->set)
		return false;
	if (!a->set)
		return true;
	if (c->kind == DS_COL_STR)
		return (!a->s && !b->s) || (a->s && b->s && strcmp(a->s, b->s) == 0);
	return a->u == b->u && a->d == b->d;
}

/* The row's weight in averaged cells: its samples of every event. */
static double row_weight(const ds_table *t, const ds_row *r)
{
	double w = 0;

	for (size_t e = 0; e < t->nevents; e++)
		w += (double)r->samples[e];
	return w > 0 ? w : 1;
}

/* t's module column, (size_t)-1 when it has none. */
static size_t module_col(const ds_table *t)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, "module") == 0 && t->cols[c].kind == DS_COL_STR)
			return c;
	return (size_t)-1;
}

static size_t find_node(ds_merger *m, const ds_row *r, size_t module, size_t parent, ds_hash *seen,
			ds_vec_u32 *occ, bool *is_new)
{
	size_t n, k;
	ds_buf key = {0};
	bool fresh;

	ds_buf_append(&key, &parent, sizeof parent);
	ds_buf_puts(&key, r->note ? "n" : "r");
	ds_buf_puts(&key, r->name);
	ds_buf_putc(&key, 1);
	if (module != (size_t)-1 && r->cells[module].set && r->cells[module].s)
		ds_buf_puts(&key, r->cells[module].s);
	/* the k-th row of this key in this table is the k-th in the others */
	k = ds_hash_intern(seen, key.p, key.len, &fresh);
	if (fresh)
		ds_vec_push(occ, 0);
	ds_buf_printf(&key, "\001%u", occ->v[k]++);
	n = ds_hash_intern(m->index, key.p, key.len, is_new);
	ds_buf_free(&key);
	return n;
}

static void new_node(ds_merger *m, const ds_table *t, const ds_row *r, size_t parent)
{
	mnode n = {0};

	n.row.name = ds_xstrdup(r->name);
	n.row.cells = ds_xcalloc(t->ncols + 1, sizeof *n.row.cells);
	for (size_t c = 0; c < t->ncols; c++) {
		n.row.cells[c] = r->cells[c];
		n.row.cells[c].s = r->cells[c].s ? ds_xstrdup(r->cells[c].s) : NULL;
	}
	n.row.note = r->note;
	n.row.text_only = r->text_only;
	n.parent = parent;
	n.depth = r->depth;
	n.avg = ds_xcalloc(t->ncols + 1, sizeof *n.avg);
	ds_vec_push(&m->nodes, n);
	if (parent == SIZE_MAX)
		ds_vec_push(&m->top, m->nodes.n - 1);
	else
		ds_vec_push(&m->nodes.v[parent].kids, m->nodes.n - 1);
}

int ds_merger_add(ds_merger *m, const ds_table *t, ds_err *err)
{
	size_t *parent, *node, *ev;
	ds_hash *seen;
	ds_vec_u32 occ = {0};
	size_t module = module_col(t);

	if (ds_merge_check_view(t->view, err))
		return -1;
	if (!t->has_metrics)
		return ds_err_set(err, DS_EINPUT, "the %s view has no metrics to merge: give one experiment",
				  t->view);
	if (!m->shape) {
		m->shape = shape_of(t);
		m->own_depth = own_depth(t->view);
		m->differs = ds_xcalloc(t->ncols + 1, sizeof *m->differs);
	} else if (same_shape(m, t, err)) {
		return -1;
	}
	m->shape->inclusive &= t->inclusive;
	ev = ds_xcalloc(t->nevents + 1, sizeof *ev);
	for (size_t e = 0; e < t->nevents; e++) {
		ev[e] = event_of(m, &t->events[e]);
		m->events.v[ev[e]].samples += t->events[e].samples;
		m->events.v[ev[e]].count += t->events[e].count;
	}
	add_props(m, t);
	parent = ds_table_parents(t);
	node = ds_xcalloc(t->nrows + 1, sizeof *node);
	seen = ds_hash_new();
	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		size_t up = parent[i] == SIZE_MAX ? SIZE_MAX : node[parent[i]];
		bool fresh;
		size_t n = find_node(m, r, module, up, seen, &occ, &fresh);
		mnode *x;
		double w = row_weight(t, r);

		if (fresh)
			new_node(m, t, r, up);
		node[i] = n;
		x = &m->nodes.v[n];
		for (size_t c = 0; c < t->ncols; c++) {
			const ds_col *col = &t->cols[c];
			if (!r->cells[c].set)
				continue;
			if (averaged(col)) {
				x->avg[c] += cell_number(col, &r->cells[c]) * w;
			} else if (added(col)) {
				if (!fresh)
					x->row.cells[c].u += r->cells[c].u;
			} else if (!fresh && !same_cell(col, &x->row.cells[c], &r->cells[c])) {
				m->differs[c] = true;
			}
		}
		x->avg[t->ncols] += w;
		for (size_t e = 0; e < t->nevents; e++) {
			uint64_t *v = node_metrics(x, ev[e]);
			mrun run = {(uint32_t)m->events.v[ev[e]].runs, (uint32_t)ev[e], r->count[e]};
			v[M_SAMPLES] += r->samples[e];
			v[M_COUNT] += r->count[e];
			if (t->inclusive && r->incl_samples) {
				v[M_INCL_SAMPLES] += r->incl_samples[e];
				v[M_INCL_COUNT] += r->incl_count[e];
			}
			ds_vec_push(&x->runs, run);
		}
	}
	ds_hash_free(seen);
	ds_vec_free(&occ);
	free(node);
	free(parent);
	for (size_t e = 0; e < t->nevents; e++) {
		ds_table_event *x = &m->events.v[ev[e]];
		x->run_count = ds_xrealloc(x->run_count, (x->runs + 1) * sizeof *x->run_count);
		x->run_count[x->runs++] = t->events[e].count;
	}
	free(ev);
	m->nexp++;
	return 0;
}

/* ---- the merged table ---- */

/* v's share of n experiments: a mean's, or all of it. */
static uint64_t share(const ds_merger *m, uint64_t v, size_t n)
{
	return m->how == DS_MERGE_MEAN && n ? (v + n / 2) / n : v;
}

/* A node's metric of event e (SIZE_MAX: of no one event); under an
 * experiment's own row, the experiment's.  An event's mean is over the
 * experiments that recorded it. */
static uint64_t node_share(const ds_merger *m, const mnode *n, size_t e, uint64_t v)
{
	if (n->depth >= m->own_depth)
		return v;
	return share(m, v, e == SIZE_MAX ? m->nexp : m->shape->events[e].runs);
}

/* Node n as a row of the merged table (its contents move out of the node). */
static ds_row node_row(ds_merger *m, mnode *n)
{
	ds_row r = n->row;
	size_t ne = m->shape->nevents, ncols = m->shape->ncols;

	n->row = (ds_row){0};
	r.depth = n->depth;
	r.samples = ds_xcalloc(ne + 1, sizeof *r.samples);
	r.count = ds_xcalloc(ne + 1, sizeof *r.count);
	if (m->shape->inclusive) {
		r.incl_samples = ds_xcalloc(ne + 1, sizeof *r.incl_samples);
		r.incl_count = ds_xcalloc(ne + 1, sizeof *r.incl_count);
	}
	for (size_t e = 0; e < ne; e++) {
		uint64_t *v = node_metrics(n, e);
		r.samples[e] = node_share(m, n, e, v[M_SAMPLES]);
		r.count[e] = node_share(m, n, e, v[M_COUNT]);
		if (r.incl_samples) {
			r.incl_samples[e] = node_share(m, n, e, v[M_INCL_SAMPLES]);
			r.incl_count[e] = node_share(m, n, e, v[M_INCL_COUNT]);
		}
	}
	r.runs = ds_xcalloc(ne * m->nexp + 1, sizeof *r.runs);
	for (size_t i = 0; i < n->runs.n; i++)
		r.runs[n->runs.v[i].ev * m->nexp + n->runs.v[i].exp] += n->runs.v[i].count;
	for (size_t c = 0; c < ncols; c++) {
		const ds_col *col = &m->shape->cols[c];
		double avg = n->avg[ncols] > 0 ? n->avg[c] / n->avg[ncols] : 0;
		if (!r.cells[c].set)
			continue;
		if (col->kind == DS_COL_PERCENT)
			r.cells[c].d = avg;
		else if (averaged(col))
			r.cells[c].u = (uint64_t)(avg + 0.5);
		else if (added(col))
			r.cells[c].u = node_share(m, n, SIZE_MAX, r.cells[c].u);
	}
	return r;
}

typedef DS_VEC(ds_row) row_vec;

typedef struct emit {
	ds_merger *m;
	ds_table *t;
	const char *sort;
	size_t limit;
	row_vec out;
	ds_u64map at;         /* a row's cells -> its node, to follow a sorted row's kids */
} emit;

/* The rows of nodes ids[0..n) at one level, in order, each followed by its own. */
static int emit_level(emit *x, const size_t *ids, size_t n, unsigned level, ds_err *err)
{
	const ds_table *s = x->m->shape;
	bool sorted = s->order == DS_ORDER_SORT || (s->order == DS_ORDER_KIDS && level == 0);
	size_t keep = n;
	ds_row *rows = ds_xcalloc(n + 1, sizeof *rows);

	for (size_t i = 0; i < n; i++) {
		rows[i] = node_row(x->m, &x->m->nodes.v[ids[i]]);
		ds_u64map_set(&x->at, (uintptr_t)rows[i].cells, (uint32_t)ids[i]);
	}
	if (sorted && tb_sort_rows(x->t, x->sort, rows, n, err)) {
		for (size_t i = 0; i < n; i++)
			tb_row_free(&rows[i], s->ncols);
		free(rows);
		return -1;
	}
	if (x->limit && (level == 0 || s->flat) && x->limit < n)
		keep = x->limit;
	for (size_t i = keep; i < n; i++)
		tb_row_free(&rows[i], s->ncols);
	for (size_t i = 0; i < keep; i++) {
		const mnode *nd = &x->m->nodes.v[ds_u64map_get(&x->at, (uintptr_t)rows[i].cells)];
		ds_vec_push(&x->out, rows[i]);
		if (nd->kids.n && emit_level(x, nd->kids.v, nd->kids.n, level + 1, err)) {
			for (size_t j = i + 1; j < keep; j++)
				tb_row_free(&rows[j], s->ncols);
			free(rows);
			return -1;
		}
	}
	free(rows);
	return 0;
}

static void finish_props(ds_merger *m, ds_table *t)
{
	ds_buf differ = {0};

	for (size_t i = 0; i < m->props.n; i++) {
		mprop *q = &m->props.v[i];
		if (q->additive) {
			tb_prop(t, q->p.key, q->p.kind, "%" PRIu64, share(m, q->sum, m->nexp));
		} else if (strcmp(q->p.key, "note") == 0) {
			tb_prop(t, "note", DS_PROP_TEXT, "%s%s", q->p.value,
				q->differs ? " (the first experiment's figures; the others' differ)" : "");
		} else if (!q->differs) {
			tb_prop(t, q->p.key, q->p.kind, "%s", q->p.value);
		} else {
			ds_buf_printf(&differ, "%s%s", differ.len ? ", " : "", q->p.key);
		}
	}
	tb_prop(t, "experiments", DS_PROP_NUMBER, "%zu", m->nexp);
	tb_prop(t, "merge", DS_PROP_TEXT, "%s", m->how == DS_MERGE_MEAN ? "mean" : "sum");
	if (differ.len)
		tb_prop(t, "note", DS_PROP_TEXT, "the experiments differ in %s: see each one's report",
			ds_buf_str(&differ));
	ds_buf_reset(&differ);
	for (size_t c = 0; c < t->ncols; c++)
		if (m->differs[c])
			ds_buf_printf(&differ, "%s%s", differ.len ? ", " : "", t->cols[c].name);
	if (differ.len)
		tb_prop(t, "note", DS_PROP_TEXT, "column%s %s: rows whose value differs between the experiments "
			"show the first one's", strchr(ds_buf_str(&differ), ',') ? "s" : "", ds_buf_str(&differ));
	ds_buf_free(&differ);
}

int ds_merger_finish(ds_merger *m, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	emit x = {.m = m};
	ds_table *t;

	*out = NULL;
	if (!m->nexp)
		return ds_err_set(err, DS_EINPUT, "no experiment to report");
	t = m->shape;
	m->shape = NULL;
	x.t = t;
	t->events = ds_xcalloc(m->events.n + 1, sizeof *t->events);
	t->nevents = m->events.n;
	for (size_t e = 0; e < m->events.n; e++) {
		t->events[e] = m->events.v[e];
		t->events[e].samples = share(m, t->events[e].samples, t->events[e].runs);
		t->events[e].count = share(m, t->events[e].count, t->events[e].runs);
	}
	m->events.n = 0;
	t->nruns = m->nexp;
	finish_props(m, t);
	m->shape = t; /* for emit_level's policy; handed out below */
	x.sort = o && o->sort ? o->sort : t->sort_default;
	x.limit = o ? o->limit : 0;
	if (emit_level(&x, m->top.v, m->top.n, 0, err)) {
		for (size_t i = 0; i < x.out.n; i++)
			tb_row_free(&x.out.v[i], t->ncols);
		ds_vec_free(&x.out);
		ds_u64map_free(&x.at);
		return -1;
	}
	m->shape = NULL;
	t->rows = x.out.v;
	t->nrows = x.out.n;
	t->total_rows = m->nodes.n;
	ds_u64map_free(&x.at);
	*out = t;
	return 0;
}

/* ---- experiments read one at a time ---- */

typedef struct miss {
	size_t n;             /* the members that lacked the name */
	char *msg;            /* the first one's error */
} miss;

int ds_merged_view(const ds_merge_input *mv, size_t n, enum ds_merge_how how, const ds_session_opts *so,
		   const char *view, const ds_view_opts *o, ds_merge_prepare_fn *prepare, ds_merge_done_fn *done,
		   void *ctx, ds_table **out, ds_err *err)
{
	ds_view_opts all = o ? *o : (ds_view_opts){0};
	ds_hash *missed = ds_hash_new(); /* a filter's name some member lacks -> misses */
	DS_VEC(miss) misses = {0};
	ds_merger *m;
	int rc = 0;

	*out = NULL;
	if (ds_merge_check_view(view, err)) {
		ds_hash_free(missed);
		return -1;
	}
	m = ds_merger_new(how);
	all.limit = 0; /* the merge cuts */
	for (size_t i = 0; i < n && !rc; i++) {
		ds_session_opts so1 = *so;
		ds_session *s = NULL;
		ds_table *t = NULL;
		const char *msg, *name;

		so1.label = mv[i].label;
		so1.lenient_names = true;
		rc = ds_session_open(mv[i].path, &so1, &s, err) || (prepare && prepare(s, ctx, err)) ||
		     ds_view_build(s, view, &all, &t, err) || ds_merger_add(m, t, err);
		for (size_t k = 0; s && (msg = ds_session_filter_miss(s, k, &name)); k++) {
			bool added;
			size_t at = ds_hash_intern(missed, name, strlen(name), &added);
			if (added) {
				miss x = {0, ds_xstrdup(msg)};
				ds_vec_push(&misses, x);
			}
			misses.v[at].n++;
		}
		if (s && done)
			done(s, ctx);
		ds_table_free(t);
		ds_session_close(s);
	}
	for (size_t k = 0; !rc && k < misses.n; k++)
		if (misses.v[k].n == n)
			rc = ds_err_set(err, DS_EINPUT, "%s (nor in the %zu other experiments)", misses.v[k].msg, n - 1);
	for (size_t k = 0; k < misses.n; k++)
		free(misses.v[k].msg);
	ds_vec_free(&misses);
	ds_hash_free(missed);
	if (!rc)
		rc = ds_merger_finish(m, o, out, err);
	ds_merger_free(m);
	return rc ? -1 : 0;
}
