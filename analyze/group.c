/*
 * Groupings: the records grouped by a list of dimensions.
 *
 * One pass over the records the filter keeps finds each record's value of
 * every key (dense ids, dims.c) and the node of its path in a tree, a level
 * per key: level 0 by an array indexed by the first key's id, each level
 * below by a 64-bit map of (parent node, id).  A record adds its event's
 * sample and period to every node of its path.  Consecutive records often
 * share a path (a loop's samples), so the last path is kept and only what
 * changed is looked up.
 *
 * Inclusive metrics: when a key has values along call chains (function,
 * module) and the samples have chains, a record also counts for every path
 * its chain makes of those keys (each function of the chain in place of
 * the sampled one; a recursion once).  Records are first summed per (chain,
 * exclusive path), which are few, and each sum is then spread over the
 * paths of its chain, a prefix once.  A path only a chain makes (a caller)
 * gets a row with inclusive metrics alone.
 *
 * Rows are made only for the nodes shown: each level's siblings are sorted
 * by the --sort key and cut at --limit, so a million cache lines cost a
 * sort of numbers, not a million rows.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 8
#define NONE UINT32_MAX

typedef struct gnode {
	uint32_t parent;      /* NONE at the top */
	uint32_t id;          /* its key's value */
	uint32_t child, next; /* first child, next sibling: NONE */
	uint32_t level;
} gnode;

typedef struct grouping {
	ds_session *s;
	dim *dims[MAX_KEYS];
	size_t n, nev;
	DS_VEC(gnode) nodes;
	uint32_t roots;       /* the first top node, then their `next` */
	ds_vec_u64 m;         /* per node: samples[nev], then count[nev] */
	ds_vec_u64 incl;      /* the same, inclusive */
	ds_vec_u32 top;       /* per id of the first key: its node */
	ds_u64map child;      /* parent << 32 | id -> node, below the top */
	bool inclusive, memory;
	uint64_t *nomem;      /* left out: samples[nev], count[nev] */
	uint64_t tool;        /* of them, the heap tracker's samples */
	memtime *mt;          /* memory time per node, when an event counts it */
	size_t mt_first;      /* its columns' first */
} grouping;

static uint32_t node_of(grouping *g, uint32_t parent, uint32_t id, uint32_t level)
{
	uint32_t n = (uint32_t)g->nodes.n;
	gnode x = {parent, id, NONE, NONE, level};

	if (level == 0) {
		while (g->top.n <= id)
			ds_vec_push(&g->top, NONE);
		if (g->top.v[id] != NONE)
			return g->top.v[id];
		g->top.v[id] = n;
		x.next = g->roots;
		g->roots = n;
	} else {
		bool added;
		uint32_t at = ds_u64map_put(&g->child, (uint64_t)parent << 32 | id, n, &added);
		if (!added)
			return at;
		x.next = g->nodes.v[parent].child;
		g->nodes.v[parent].child = n;
	}
	ds_vec_push(&g->nodes, x);
	for (size_t k = 0; k < 2 * g->nev; k++) {
		ds_vec_push(&g->m, 0);
		if (g->inclusive)
			ds_vec_push(&g->incl, 0);
	}
	return n;
}

static void add(uint64_t *m, size_t nev, size_t ev, uint64_t samples, uint64_t count)
{
	m[ev] += samples;
	m[nev + ev] += count;
}

/* An inclusive sum: the records of one chain and one exclusive path. */
typedef struct ibucket {
	uint32_t chain, leaf;
	uint64_t m[];         /* samples[nev], count[nev] */
} ibucket;

/* Spread bucket b over the paths its chain makes, from level k under
 * node parent (ids: the exclusive path's values, per level). */
static void spread(grouping *g, const ibucket *b, const uint32_t *ids, size_t k, uint32_t parent)
{
	const uint32_t *cand = &ids[k];
	size_t nc = 1;

	if (k == g->n)
		return;
	if ((g->dims[k]->def->flags & DIM_CHAIN) && b->chain != NONE)
		cand = dim_chain_ids(g->dims[k], b->chain, &nc);
	for (size_t c = 0; c < nc; c++) {
		uint32_t id = cand[c], node = node_of(g, parent, id, (uint32_t)k);
		uint64_t *m = &g->incl.v[node * 2 * g->nev];
		for (size_t e = 0; e < 2 * g->nev; e++)
			m[e] += b->m[e];
		/* below, dim_chain_ids answers for chains it has met: cand stays */
		spread(g, b, ids, k + 1, node);
	}
}

static void inclusive(grouping *g, const ds_vec_u32 *chain, const ds_vec_u32 *leaf)
{
	size_t stride = sizeof(ibucket) + 2 * g->nev * sizeof(uint64_t);
	ds_u64map at = {0};
	DS_VEC(char) buckets = {0};
	size_t nb = 0;

	for (size_t i = 0, k = 0; i < g->s->srecs.n; i++) {
		const ds_srec *r = &g->s->srecs.v[i];
		ibucket *b;
		bool added;
		uint32_t x;
		if (!ds_srec_kept(g->s, i) || (g->memory && leaf->v[k] == NONE)) {
			k += ds_srec_kept(g->s, i);
			continue;
		}
		x = ds_u64map_put(&at, (uint64_t)chain->v[k] << 32 | leaf->v[k], (uint32_t)nb, &added);
		if (added) {
			ds_vec_reserve(&buckets, (nb + 1) * stride);
			memset(buckets.v + nb * stride, 0, stride);
			((ibucket *)(buckets.v + nb * stride))->chain = chain->v[k];
			((ibucket *)(buckets.v + nb * stride))->leaf = leaf->v[k];
			nb++;
		}
		b = (ibucket *)(buckets.v + (size_t)x * stride);
		add(b->m, g->nev, r->ev, 1, r->period);
		k++;
	}
	for (size_t i = 0; i < nb; i++) {
		const ibucket *b = (const ibucket *)(buckets.v + i * stride);
		uint32_t ids[MAX_KEYS];
		for (uint32_t x = b->leaf; x != NONE; x = g->nodes.v[x].parent)
			ids[g->nodes.v[x].level] = g->nodes.v[x].id;
		spread(g, b, ids, 0, NONE);
	}
	free(buckets.v);
	ds_u64map_free(&at);
}

/* Whether record r is left out of a grouping by a dimension of memory:
 * samples in code that accesses no memory, and the heap tracker's. */
static bool no_memory(const grouping *g, const ds_srec *r)
{
	return g->memory && r->dobj >= 0 &&
	       (g->s->dobjs.v[r->dobj].kind == DOBJ_NOMEM || g->s->dobjs.v[r->dobj].kind == DOBJ_TOOL);
}

static void count(grouping *g)
{
	uint32_t path[MAX_KEYS], ids[MAX_KEYS];
	size_t valid = 0; /* levels of path that hold the last record's */
	ds_vec_u32 chain = {0}, leaf = {0}; /* per kept record, for inclusive */

	for (size_t i = 0; i < g->s->srecs.n; i++) {
		const ds_srec *r = &g->s->srecs.v[i];
		uint32_t parent = NONE;
		if (!ds_srec_kept(g->s, i))
			continue;
		if (no_memory(g, r)) {
			add(g->nomem, g->nev, r->ev, 1, r->period);
			g->tool += g->s->dobjs.v[r->dobj].kind == DOBJ_TOOL;
			if (g->inclusive) {
				ds_vec_push(&chain, NONE);
				ds_vec_push(&leaf, NONE);
			}
			continue;
		}
		for (size_t k = 0; k < g->n; k++) {
			uint32_t id = dim_id(g->dims[k], i, r);
			if (k >= valid || id != ids[k]) {
				ids[k] = id;
				path[k] = node_of(g, parent, id, (uint32_t)k);
				valid = k + 1;
			}
			parent = path[k];
			add(&g->m.v[(size_t)path[k] * 2 * g->nev], g->nev, r->ev, 1, r->period);
			mt_add(g->mt, path[k], i);
		}
		if (g->inclusive) {
			ds_vec_push(&chain, r->chain);
			ds_vec_push(&leaf, path[g->n - 1]);
		}
	}
	if (g->inclusive)
		inclusive(g, &chain, &leaf);
	ds_vec_free(&chain);
	ds_vec_free(&leaf);
}

/* ---- rows ---- */

typedef struct sorter {
	grouping *g;
	sort_spec sp;
	ds_row *rows;         /* SORT_COL: every node's row, for its cells */
	const size_t *first;  /* where each level's columns start */
	bool value_cols;
	ds_row scratch[2];    /* two nodes' cells, to break a tie of names */
} sorter;

static void fill_row(grouping *g, ds_row *r, uint32_t n, const size_t *first, bool value_cols);

/* Nodes a and b in the table's order of columns, as tb_cmp_ties does. */
static int cmp_cells(sorter *so, uint32_t a, uint32_t b)
{
	const ds_table *t = so->sp.t;
	int c = 0;

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < t->ncols; i++) {
			free(so->scratch[k].cells[i].s);
			so->scratch[k].cells[i] = (ds_cell){0};
		}
		fill_row(so->g, &so->scratch[k], k ? b : a, so->first, so->value_cols);
	}
	for (size_t i = 0; !c && i < t->ncols; i++)
		c = tb_cmp_cells(&t->cols[i], &so->scratch[0].cells[i], &so->scratch[1].cells[i]);
	return c;
}

static const uint64_t *node_m(const grouping *g, const ds_vec_u64 *v, uint32_t n)
{
	return v->n ? &v->v[(size_t)n * 2 * g->nev] : NULL;
}

static int cmp_nodes(const void *pa, const void *pb, void *arg)
{
	sorter *so = arg;
	grouping *g = so->g;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	dim *d = g->dims[g->nodes.v[a].level];
	int64_t x, y;
	int c = 0;

	if (so->sp.what == SORT_COL) {
		const ds_col *col = &so->sp.t->cols[so->sp.col];
		c = tb_cmp_cells(col, &so->rows[a].cells[so->sp.col], &so->rows[b].cells[so->sp.col]);
	} else if (so->sp.what != SORT_NAME) {
		const uint64_t *ma = node_m(g, &g->m, a), *mb = node_m(g, &g->m, b);
		const uint64_t *ia = node_m(g, &g->incl, a), *ib = node_m(g, &g->incl, b);
		uint64_t u = tb_sort_metric(&so->sp, ma, ma + g->nev, ia, ia ? ia + g->nev : NULL);
		uint64_t v = tb_sort_metric(&so->sp, mb, mb + g->nev, ib, ib ? ib + g->nev : NULL);
		c = u > v ? -1 : u < v; /* metrics: largest first */
	}
	if (!c)
		c = strcmp(dim_value_name(d, g->nodes.v[a].id), dim_value_name(d, g->nodes.v[b].id));
	if (!c && dim_value_number(d, g->nodes.v[a].id, &x) && dim_value_number(d, g->nodes.v[b].id, &y))
		c = x < y ? -1 : x > y;
	if (!c)
		c = cmp_cells(so, a, b);
	return c ? c : (a < b ? -1 : a > b);
}

/* The row of node n: its name, the cells of its level (CSV and JSON add
 * those of the rows above it: ds_table.flat), its metrics. */
static void fill_row(grouping *g, ds_row *r, uint32_t n, const size_t *first, bool value_cols)
{
	const uint64_t *m = node_m(g, &g->m, n), *im = node_m(g, &g->incl, n);

	{
		const gnode *nd = &g->nodes.v[n];
		dim *d = g->dims[nd->level];
		if (value_cols) {
			d->def->cells(d, nd->id, r, first[nd->level]);
		} else if (d->def->ncols > 1) {
			/* the other columns only: the value's goes into a scratch row */
			ds_row tmp = {0};
			tmp.cells = ds_xcalloc(d->def->ncols, sizeof *tmp.cells);
			d->def->cells(d, nd->id, &tmp, 0);
			for (size_t c = 1; c < d->def->ncols; c++) {
				r->cells[first[nd->level] + c - 1] = tmp.cells[c];
				tmp.cells[c].s = NULL;
			}
			free(tmp.cells[0].s);
			free(tmp.cells);
		}
	}
	mt_cells(g->mt, n, r, g->mt_first);
	r->depth = g->nodes.v[n].level;
	memcpy(r->samples, m, g->nev * sizeof *m);
	memcpy(r->count, m + g->nev, g->nev * sizeof *m);
	if (im) {
		memcpy(r->incl_samples, im, g->nev * sizeof *im);
		memcpy(r->incl_count, im + g->nev, g->nev * sizeof *im);
	}
}

/* The siblings from `first` (a `next` list), sorted; their count in *n. */
static uint32_t *sorted_siblings(sorter *so, uint32_t first, size_t *n)
{
	grouping *g = so->g;
	ds_vec_u32 v = {0};
	for (uint32_t x = first; x != NONE; x = g->nodes.v[x].next)
		ds_vec_push(&v, x);
	ds_sort_r(v.v, v.n, sizeof *v.v, cmp_nodes, so);
	*n = v.n;
	return v.v;
}

static void emit(sorter *so, tb *b, uint32_t first, size_t limit, const size_t *cols, bool value_cols)
{
	size_t n;
	uint32_t *v = sorted_siblings(so, first, &n);
	grouping *g = so->g;

	for (size_t i = 0; i < n && (!limit || i < limit); i++) {
		const gnode *nd = &g->nodes.v[v[i]];
		size_t r = tb_row_new(b, dim_value_name(g->dims[nd->level], nd->id));
		fill_row(g, &b->v.v[r], v[i], cols, value_cols);
		if (nd->child != NONE)
			emit(so, b, nd->child, limit, cols, value_cols);
	}
	free(v);
}

/* The columns: each key's (without their value columns when the view names
 * its own), a name met twice prefixed with its key's ("field.kind"); where
 * each key's start. */
typedef DS_VEC(ds_col) col_vec;
typedef DS_VEC(char *) str_vec;

static void make_cols(grouping *g, bool value_cols, col_vec *cols, size_t *first, str_vec *names)
{
	for (size_t k = 0; k < g->n; k++) {
		dim *d = g->dims[k];
		first[k] = cols->n;
		for (size_t c = value_cols ? 0 : 1; c < d->def->ncols; c++) {
			ds_col col = d->cols[c];
			bool dup = false;
			for (size_t j = 0; j < cols->n && !dup; j++)
				dup = strcmp(cols->v[j].name, col.name) == 0;
			if (dup) {
				char *name = ds_xasprintf("%s.%s", d->label, col.name);
				ds_vec_push(names, name);
				col.name = name;
			}
			ds_vec_push(cols, col);
		}
	}
	g->mt_first = cols->n;
	for (size_t i = 0; i < mt_ncols(g->mt); i++)
		ds_vec_push(cols, (ds_col){0});
	mt_cols(g->mt, &cols->v[g->mt_first]);
}

void ds_say_nomem(ds_table *t, uint64_t n, uint64_t tool)
{
	if (n > tool) {
		tb_prop(t, "no_memory_access_samples", DS_PROP_NUMBER, "%llu", (unsigned long long)(n - tool));
		tb_prop(t, "note", DS_PROP_TEXT,
			"%llu samples were in code that accesses no memory (<no memory access>): not in this view or its totals",
			(unsigned long long)(n - tool));
	}
	if (tool) {
		tb_prop(t, "heap_tracker_samples", DS_PROP_NUMBER, "%llu", (unsigned long long)tool);
		tb_prop(t, "note", DS_PROP_TEXT,
			"%llu samples were the heap tracker's own work (<heap tracker>: record --heap's library in the "
			"target, the unwinder and clock it calls, its writes): not in this view or its totals",
			(unsigned long long)tool);
	}
}

void ds_say_timer(ds_table *t)
{
	for (size_t e = 0; e < t->nevents; e++)
		if (t->events[e].time_ns && !t->events[e].precise) {
			tb_prop(t, "note", DS_PROP_TEXT,
				"%s samples are charged to the load or store before the interrupted instruction, "
				"with the time of any stall there that was no memory access (a mispredicted branch, "
				"a divide); --cross with a --sim recording of the program tells which accesses missed",
				t->events[e].name);
			return;
		}
}

static void grouping_free(grouping *g)
{
	for (size_t k = 0; k < g->n; k++)
		dim_free(g->dims[k]);
	ds_vec_free(&g->nodes);
	ds_vec_free(&g->m);
	ds_vec_free(&g->incl);
	ds_vec_free(&g->top);
	ds_u64map_free(&g->child);
	free(g->nomem);
	mt_free(g->mt);
}

int ds_group(ds_session *s, const char *const *keys, size_t n, const group_opts *go,
	     const ds_view_opts *o, ds_table **out, ds_err *err)
{
	grouping g = {.s = s, .nev = s->nev, .roots = NONE};
	col_vec cols = {0};
	str_vec colnames = {0};
	size_t first[MAX_KEYS];
	bool value_cols = !go->no_value_columns, chains = false;
	sorter so = {.g = &g};
	ds_buf label = {0};
	uint64_t nomem = 0;
	tb b;
	int rc = -1;

	if (n == 0 || n > MAX_KEYS)
		return ds_err_set(err, DS_EINPUT, "group by 1 to %d keys, not %zu", MAX_KEYS, n);
	g.nomem = ds_xcalloc(2 * g.nev + 1, sizeof *g.nomem);
	for (size_t k = 0; k < n; k++) {
		if (!(g.dims[k] = dim_new(s, keys[k], o, err)))
			goto out;
		g.n = k + 1;
		g.memory |= (g.dims[k]->def->flags & DIM_MEMORY) != 0;
		chains |= (g.dims[k]->def->flags & DIM_CHAIN) != 0;
		ds_buf_printf(&label, "%s%s", k ? " > " : "", g.dims[k]->label);
	}
	g.inclusive = chains && s->callchains;
	/* memory time by level needs the samples' data sources, which the
	 * dataspace's pass over the samples keeps: a code grouping
	 * (functions) builds it too */
	if ((g.mt = mt_new(s)) && ds_dataspace_build(s, err))
		goto out;
	count(&g);
	if (go->every_value && n == 1 && g.dims[0]->def->values && !s->keep.n) { /* a filter keeps sampled ones */
		g.dims[0]->def->values(g.dims[0]);
		for (uint32_t id = 0; id < g.dims[0]->raw.n; id++)
			node_of(&g, NONE, id, 0);
	}
	make_cols(&g, value_cols, &cols, first, &colnames);
	tb_init(&b, s, go->view, go->label ? go->label : ds_buf_str(&label), cols.v, cols.n, g.inclusive);
	b.t->flat = n > 1;
	b.t->own_cols = mt_ncols(g.mt);
	for (size_t e = 0; e < g.nev; e++) {
		b.t->events[e].samples -= g.nomem[e];
		b.t->events[e].count -= g.nomem[g.nev + e];
		nomem += g.nomem[e];
	}
	for (size_t k = 0; k < n; k++) {
		bool again = false;
		for (size_t j = 0; j < k && !again; j++)
			again = g.dims[j]->def == g.dims[k]->def;
		if (!again)
			dim_props(g.dims[k], b.t);
	}
	if (tb_parse_sort(b.t, o ? o->sort : NULL, &so.sp, err)) {
		tb_discard(&b);
		goto out;
	}
	so.first = first;
	so.value_cols = value_cols;
	for (int k = 0; k < 2; k++) {
		so.scratch[k].cells = ds_xcalloc(cols.n + 1, sizeof *so.scratch[k].cells);
		so.scratch[k].samples = ds_xcalloc(4 * g.nev + 1, sizeof *so.scratch[k].samples);
		so.scratch[k].count = so.scratch[k].samples + g.nev;
		so.scratch[k].incl_samples = so.scratch[k].samples + 2 * g.nev;
		so.scratch[k].incl_count = so.scratch[k].samples + 3 * g.nev;
	}
	if (so.sp.what == SORT_COL) {
		/* a column to sort by: every node's cells */
		so.rows = ds_xcalloc(g.nodes.n + 1, sizeof *so.rows);
		for (uint32_t x = 0; x < g.nodes.n; x++) {
			so.rows[x].cells = ds_xcalloc(cols.n + 1, sizeof *so.rows[x].cells);
			so.rows[x].samples = ds_xcalloc(2 * g.nev + 1, sizeof *so.rows[x].samples);
			so.rows[x].count = so.rows[x].samples + g.nev;
			so.rows[x].incl_samples = g.inclusive ? ds_xcalloc(2 * g.nev + 1, sizeof(uint64_t)) : NULL;
			so.rows[x].incl_count = g.inclusive ? so.rows[x].incl_samples + g.nev : NULL;
			fill_row(&g, &so.rows[x], x, first, value_cols);
		}
	}
	emit(&so, &b, g.roots, o ? o->limit : 0, first, value_cols);
	if (so.rows) {
		for (uint32_t x = 0; x < g.nodes.n; x++) {
			for (size_t c = 0; c < cols.n; c++)
				free(so.rows[x].cells[c].s);
			free(so.rows[x].cells);
			free(so.rows[x].samples);
			free(so.rows[x].incl_samples);
		}
		free(so.rows);
	}
	for (int k = 0; k < 2; k++) {
		for (size_t c = 0; c < cols.n; c++)
			free(so.scratch[k].cells[c].s);
		free(so.scratch[k].cells);
		free(so.scratch[k].samples);
	}
	*out = tb_take(&b);
	(*out)->total_rows = g.nodes.n;
	tb_own_names(*out); /* the keys' and labels' names die with the grouping */
	if (g.memory) {
		ds_session_debug_notes(s, *out); /* first: see ds_say_nomem */
		ds_say_nomem(*out, nomem, g.tool);
		ds_say_timer(*out);
	}
	rc = 0;
out:
	for (size_t i = 0; i < colnames.n; i++)
		free(colnames.v[i]);
	ds_vec_free(&colnames);
	ds_vec_free(&cols);
	ds_buf_free(&label);
	grouping_free(&g);
	return rc;
}

int ds_view_by(ds_session *s, const char *keys, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	char *copy = ds_xstrdup(keys), *view = ds_xasprintf("by:%s", keys), *k = copy;
	const char *list[MAX_KEYS];
	size_t n = 0;
	int rc = 0;

	for (;;) {
		size_t len = strcspn(k, ",");
		bool last = !k[len];
		if (!len) {
			ds_buf names = {0};
			ds_dim_list(&names);
			rc = ds_err_set(err, DS_EINPUT, "--by '%s': an empty key; keys: %s", keys, ds_buf_str(&names));
			ds_buf_free(&names);
			break;
		}
		if (n == MAX_KEYS) {
			rc = ds_err_set(err, DS_EINPUT, "--by takes at most %d keys", MAX_KEYS);
			break;
		}
		k[len] = 0;
		list[n++] = k;
		if (last)
			break;
		k += len + 1;
	}
	if (!rc)
		rc = ds_group(s, list, n, &(group_opts){.view = view}, o, out, err);
	free(view);
	free(copy);
	return rc;
}
