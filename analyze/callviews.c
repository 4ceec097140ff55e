/*
 * Views of call paths and of one function: who calls it and whom it calls
 * (callers), its source file line by line (source), its instructions
 * (annotate); the whole calling-context tree, top-down (calltree) and
 * bottom-up (bottomup).
 *
 * Both name the function as the functions view does (ds_view_opts.function
 * is "NAME" or "NAME@MODULE") and sum the same per-instruction and
 * per-call-chain counts the session keeps, so their numbers are the
 * functions and lines views' numbers seen from one function.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- naming a function ---- */

static uint64_t site_total(const ds_session *s, size_t si)
{
	uint64_t n = 0;
	for (size_t e = 0; e < s->npev; e++) /* the derived events are its samples again */
		n += s->site_samples.v[si * s->nev + e];
	return n;
}

/* The function `spec` names: "NAME@MODULE", or "NAME" (several functions
 * may have it, static ones in different objects: the one with the most
 * samples, and a note naming the others' way out). */
static int find_function(ds_session *s, const char *spec, ds_table *notes_to, fkey *out, ds_err *err)
{
	const char *at = strrchr(spec, '@');
	DS_VEC(fkey) keys = {0};
	ds_vec_u64 samples = {0};
	char *name = ds_xstrdup(spec);
	const char *module = NULL;
	size_t best = 0;

	/* "memcpy@@GLIBC_2.14" is a name: only a known module after '@' splits it */
	if (at && at != spec)
		for (size_t d = 0; d < s->dsos.n && !module; d++)
			if (strcmp(s->dsos.v[d].module, at + 1) == 0) {
				module = at + 1;
				name[at - spec] = 0;
			}
	for (size_t i = 0; i < s->sites.n; i++) {
		fkey k = site_fkey(s, i);
		size_t j;
		if (strcmp(site_fname(s, i), name) != 0 ||
		    (module && strcmp(s->dsos.v[k.dso].module, module) != 0))
			continue;
		for (j = 0; j < keys.n && !fkey_eq(&keys.v[j], &k); j++)
			;
		if (j == keys.n) {
			ds_vec_push(&keys, k);
			ds_vec_push(&samples, 0);
		}
		samples.v[j] += site_total(s, i);
	}
	if (!keys.n) {
		ds_err_set(err, DS_EINPUT, "no function '%s' in the experiment (--view functions lists them)",
			   spec);
		free(name);
		return -1;
	}
	for (size_t j = 1; j < keys.n; j++)
		if (samples.v[j] > samples.v[best])
			best = j;
	*out = keys.v[best];
	if (keys.n > 1 && notes_to)
		tb_prop(notes_to, "note", DS_PROP_TEXT,
			"%zu functions are named '%s'; this is the one in %s with the most samples "
			"(name another as NAME@MODULE)",
			keys.n, name, s->dsos.v[out->dso].module);
	free(name);
	ds_vec_free(&keys);
	ds_vec_free(&samples);
	return 0;
}

/* ---- callers ---- */

enum { CC_RELATION, CC_MODULE, CC_ADDRESS, CC_NCOLS };
enum { REL_CALLER, REL_FUNCTION, REL_CALLEE };
static const char *const rel_names[] = {"caller", "function", "callee"};

/* A row of the callers view: a relation and a function (or no caller). */
typedef struct cc_key {
	uint32_t rel;
	uint32_t root;   /* 1: "<no caller>", the chains that start in the function */
	fkey f;
} cc_key;

static size_t cc_row(tb *b, ds_session *s, uint32_t rel, const fkey *f, size_t si, bool root)
{
	cc_key k;
	bool added;
	size_t r;
	memset(&k, 0, sizeof k);
	k.rel = rel;
	k.root = root;
	if (!root)
		k.f = *f;
	r = tb_row(b, &k, sizeof k, root ? "<no caller>" : site_fname(s, si), &added);
	if (added) {
		tb_cell_str(&b->v.v[r], CC_RELATION, rel_names[rel]);
		if (!root) {
			tb_cell_str(&b->v.v[r], CC_MODULE, s->dsos.v[f->dso].module);
			if (f->known)
				tb_cell_u64(&b->v.v[r], CC_ADDRESS, f->start);
		}
	}
	return r;
}

static void add_chain(ds_session *s, ds_row *r, size_t c, bool excl)
{
	for (size_t e = 0; e < s->nev; e++) {
		r->incl_samples[e] += s->chain_samples.v[c * s->nev + e];
		r->incl_count[e] += s->chain_count.v[c * s->nev + e];
		if (excl) {
			r->samples[e] += s->chain_samples.v[c * s->nev + e];
			r->count[e] += s->chain_count.v[c * s->nev + e];
		}
	}
}

/* Callers first, then the function, then its callees, each group sorted
 * as the rows were. */
static void group_relations(ds_table *t)
{
	ds_row *out = ds_xcalloc(t->nrows ? t->nrows : 1, sizeof *out);
	size_t n = 0;
	for (size_t g = 0; g < 3; g++)
		for (size_t i = 0; i < t->nrows; i++)
			if (strcmp(t->rows[i].cells[CC_RELATION].s, rel_names[g]) == 0)
				out[n++] = t->rows[i];
	if (n) /* no rows: t->rows is NULL */
		memcpy(t->rows, out, n * sizeof *out);
	free(out);
}

/*
 * For each unique call chain (leaf first) through the function F: the
 * frame above each F is a caller ("<no caller>" when the chain starts in
 * F), the frame below a callee.  A chain adds its samples to a row's
 * inclusive metrics once however often it passes through the pair, as the
 * functions view counts a function once per chain.  Exclusive metrics are
 * F's own instructions' for F, the samples whose leaf is F for a caller
 * (F's own time when called from there), and those whose leaf is the
 * callee for a callee.
 */
int ds_view_callers(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[CC_NCOLS] = {{"relation", DS_COL_STR, true},
					      {"module", DS_COL_STR, true},
					      {"address", DS_COL_HEX, false}};
	ds_view_opts all = {.sort = o && o->sort ? o->sort : "incl"};
	size_t nch = ds_hash_count(s->chain_index);
	ds_vec_u64 done = {0}; /* rows the current chain has added to */
	fkey *fk, f;
	tb b;
	int rc;

	if (!o || !o->function)
		return ds_err_set(err, DS_EINPUT, "the callers view needs a function (--function NAME)");
	if (!s->callchains)
		return ds_err_set(err, DS_EINPUT,
				  "the callers view needs call chains, and this experiment has none "
				  "(record with --call-graph=fp, the default)");
	tb_init(&b, s, "callers", "function", cols, CC_NCOLS, true);
	if (find_function(s, o->function, b.t, &f, err)) {
		tb_discard(&b);
		return -1;
	}
	fk = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *fk);
	for (size_t i = 0; i < s->sites.n; i++)
		fk[i] = site_fkey(s, i);
	for (size_t i = 0; i < s->sites.n; i++)
		if (fkey_eq(&fk[i], &f)) {
			size_t r = cc_row(&b, s, REL_FUNCTION, &f, i, false); /* may move the rows */
			ds_row *self = &b.v.v[r];
			for (size_t e = 0; e < s->nev; e++) {
				self->samples[e] += s->site_samples.v[i * s->nev + e];
				self->count[e] += s->site_count.v[i * s->nev + e];
			}
		}
	for (size_t c = 0; c < nch; c++) {
		size_t len;
		const uint32_t *key = ds_chain_sites(s, c, &len);
		done.n = 0;
		for (size_t i = 0; i < len; i++) {
			size_t rows[3], nrows = 0;
			bool excl[3] = {false, i == 0, i == 1};
			if (!fkey_eq(&fk[key[i]], &f))
				continue;
			rows[nrows++] = cc_row(&b, s, REL_FUNCTION, &f, key[i], false);
			rows[nrows++] = i + 1 < len ? cc_row(&b, s, REL_CALLER, &fk[key[i + 1]], key[i + 1], false)
						    : cc_row(&b, s, REL_CALLER, NULL, 0, true);
			if (i > 0)
				rows[nrows++] = cc_row(&b, s, REL_CALLEE, &fk[key[i - 1]], key[i - 1], false);
			for (size_t k = 0; k < nrows; k++) {
				size_t j;
				for (j = 0; j < done.n && done.v[j] != rows[k]; j++)
					;
				if (j < done.n)
					continue;
				ds_vec_push(&done, rows[k]);
				add_chain(s, &b.v.v[rows[k]], c, excl[k]);
			}
		}
	}
	ds_vec_free(&done);
	free(fk);
	b.t->order = DS_ORDER_VIEW; /* callers, the function, callees */
	if ((rc = tb_finish(&b, &all, out, err)))
		return rc;
	group_relations(*out);
	if (o->limit)
		tb_cut(*out, o->limit);
	return 0;
}

/* ---- calltree, bottomup: the calling-context tree ----
 *
 * Every distinct path of functions the chains make is a node, under the
 * node of the path one frame shorter: from the outermost caller down
 * (calltree, top-down), or from the sampled function up through its
 * callers (bottomup, inverted).  A node's inclusive metrics are the
 * samples whose chain begins with its path, its exclusive ones those whose
 * chain is its path and no longer (top-down), or whose leaf it is (the
 * first level of bottomup).  A recursion makes nested nodes, each counted
 * once.  Chains that differ only in call sites share their nodes: the tree
 * is of functions, as the callpath key folds them.  Siblings are sorted by
 * --sort (default: inclusive samples) and --limit keeps as many at each
 * level.
 */

enum { CT_MODULE, CT_NCOLS };

typedef struct ct_node {
	uint32_t parent; /* UINT32_MAX at the top */
	uint32_t site;   /* a site of its function, for its name */
	uint32_t first_child, next_sibling; /* UINT32_MAX: none */
} ct_node;

typedef struct ct {
	ds_session *s;
	DS_VEC(ct_node) nodes;
	ds_hash *index;          /* (parent, fkey) -> node */
	ds_vec_u64 excl, incl;   /* per node x event: samples, then counts after them */
	ds_vec_u64 excl_n, incl_n;
	size_t nev;
	sort_spec sort;
} ct;

static uint32_t ct_child(ct *t, uint32_t parent, uint32_t si)
{
	struct {
		uint32_t parent;
		fkey f;
	} key;
	bool added;
	size_t id;

	memset(&key, 0, sizeof key);
	key.parent = parent;
	key.f = site_fkey(t->s, si);
	id = ds_hash_intern(t->index, &key, sizeof key, &added);
	if (added) {
		ds_vec_push(&t->nodes, ((ct_node){parent, si, UINT32_MAX, UINT32_MAX}));
		for (size_t e = 0; e < t->nev; e++) {
			ds_vec_push(&t->excl, 0);
			ds_vec_push(&t->incl, 0);
			ds_vec_push(&t->excl_n, 0);
			ds_vec_push(&t->incl_n, 0);
		}
	}
	return (uint32_t)id;
}

static void ct_add_chain(ct *t, size_t c, bool inverted)
{
	ds_session *s = t->s;
	const uint64_t *cs = &s->chain_samples.v[c * s->nev], *cc = &s->chain_count.v[c * s->nev];
	uint32_t node = UINT32_MAX;
	const uint32_t *key;
	size_t len;
	bool any = false;

	for (size_t e = 0; e < s->nev; e++)
		any |= cs[e] != 0;
	if (!any)
		return;
	key = ds_chain_sites(s, c, &len);
	for (size_t k = 0; k < len; k++) {
		uint32_t si = key[inverted ? k : len - 1 - k];
		ds_site_resolve(s, si, false);
		node = ct_child(t, node, si);
		for (size_t e = 0; e < s->nev; e++) {
			t->incl.v[node * s->nev + e] += cs[e];
			t->incl_n.v[node * s->nev + e] += cc[e];
			if (inverted ? k == 0 : k + 1 == len) {
				t->excl.v[node * s->nev + e] += cs[e];
				t->excl_n.v[node * s->nev + e] += cc[e];
			}
		}
	}
}

static uint64_t ct_metric(const ct *t, uint32_t n)
{
	return tb_sort_metric(&t->sort, &t->excl.v[n * t->nev], &t->excl_n.v[n * t->nev],
			      &t->incl.v[n * t->nev], &t->incl_n.v[n * t->nev]);
}

static int ct_cmp(const void *a, const void *b, void *ctx)
{
	const ct *t = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t mx, my;
	int c;

	if (t->sort.what == SORT_NAME) {
		c = strcmp(site_fname(t->s, t->nodes.v[x].site), site_fname(t->s, t->nodes.v[y].site));
		return c ? c : (x > y) - (x < y);
	}
	mx = ct_metric(t, x);
	my = ct_metric(t, y);
	if (mx != my)
		return mx < my ? 1 : -1;
	c = strcmp(site_fname(t->s, t->nodes.v[x].site), site_fname(t->s, t->nodes.v[y].site));
	return c ? c : (x > y) - (x < y);
}

/* Link each node's children in sort order, the top level's into *top. */
static void ct_link(ct *t, uint32_t *top)
{
	size_t n = t->nodes.n;
	uint32_t *order = ds_xcalloc(n ? n : 1, sizeof *order);

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	/* sorted as a whole, then linked back to front: each parent's list
	 * comes out in the order of the sort */
	qsort_r(order, n, sizeof *order, ct_cmp, t);
	*top = UINT32_MAX;
	for (size_t i = n; i-- > 0;) {
		ct_node *nd = &t->nodes.v[order[i]];
		uint32_t *head = nd->parent == UINT32_MAX ? top : &t->nodes.v[nd->parent].first_child;
		nd->next_sibling = *head;
		*head = order[i];
	}
	free(order);
}

static void ct_rows(ct *t, tb *b, uint32_t first, unsigned depth, size_t limit)
{
	size_t kept = 0;

	for (uint32_t n = first; n != UINT32_MAX && (!limit || kept < limit); n = t->nodes.v[n].next_sibling) {
		const ct_node *nd = &t->nodes.v[n];
		size_t r = tb_row_new(b, site_fname(t->s, nd->site));
		ds_row *w = &b->v.v[r];
		w->depth = depth;
		tb_cell_str(w, CT_MODULE, t->s->dsos.v[t->s->sites.v[nd->site].dso].module);
		memcpy(w->samples, &t->excl.v[n * t->nev], t->nev * sizeof *w->samples);
		memcpy(w->count, &t->excl_n.v[n * t->nev], t->nev * sizeof *w->count);
		memcpy(w->incl_samples, &t->incl.v[n * t->nev], t->nev * sizeof *w->incl_samples);
		memcpy(w->incl_count, &t->incl_n.v[n * t->nev], t->nev * sizeof *w->incl_count);
		kept++;
		ct_rows(t, b, nd->first_child, depth + 1, limit);
	}
}

static int view_tree(ds_session *s, const ds_view_opts *o, bool inverted, ds_table **out, ds_err *err)
{
	static const ds_col cols[CT_NCOLS] = {{"module", DS_COL_STR, true}};
	const char *view = inverted ? "bottomup" : "calltree";
	ct t = {.s = s, .nev = s->nev};
	uint32_t top;
	tb b;

	if (!s->callchains)
		return ds_err_set(err, DS_EINPUT,
				  "the %s view needs call chains, and this experiment has none "
				  "(record with --call-graph auto, the default)", view);
	tb_init(&b, s, view, "function", cols, CT_NCOLS, true);
	if (tb_parse_sort(b.t, o && o->sort ? o->sort : "incl", &t.sort, err)) {
		tb_discard(&b);
		return -1;
	}
	if (t.sort.what == SORT_COL) {
		tb_discard(&b);
		return ds_err_set(err, DS_EINPUT, "the %s view sorts by a metric or by name, not by a column",
				  view);
	}
	t.index = ds_hash_new();
	for (size_t c = 0; c < ds_hash_count(s->chain_index); c++)
		ct_add_chain(&t, c, inverted);
	ct_link(&t, &top);
	ct_rows(&t, &b, top, 0, o ? o->limit : 0);
	b.t->tree = true;
	b.t->sort_default = "incl";
	*out = tb_take(&b);
	(*out)->total_rows = t.nodes.n;
	ds_hash_free(t.index);
	ds_vec_free(&t.nodes);
	ds_vec_free(&t.excl);
	ds_vec_free(&t.incl);
	ds_vec_free(&t.excl_n);
	ds_vec_free(&t.incl_n);
	return 0;
}

int ds_view_calltree(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	return view_tree(s, o, false, out, err);
}

int ds_view_bottomup(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	return view_tree(s, o, true, out, err);
}

/* ---- source ---- */

enum { SR_LINE, SR_FILE, SR_FUNCTION, SR_DATAOBJECT, SR_NCOLS };

/* Larger files are not read: the view shows their sampled lines only. */
#define SOURCE_MAX_BYTES (64u << 20)

/* "example.c" and "programs/example.c" name "/src/tests/programs/example.c". */
static bool file_matches(const char *path, const char *want)
{
	size_t pl = strlen(path), wl = strlen(want);
	if (strcmp(path, want) == 0)
		return true;
	return wl < pl && path[pl - wl - 1] == '/' && strcmp(path + pl - wl, want) == 0;
}

/* A line of source as a terminal shows it: tabs to the next multiple of
 * 8 columns, no carriage return. */
static void expand_tabs(ds_buf *out, const char *p, size_t len)
{
	size_t col = 0;
	ds_buf_reset(out);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\t') {
			do
				ds_buf_putc(out, ' ');
			while (++col % 8);
		} else if (p[i] != '\r') {
			ds_buf_putc(out, p[i]);
			col += ((unsigned char)p[i] & 0xc0) != 0x80;
		}
	}
	ds_buf_append(out, "", 0);
}

/* The file that holds most of the function's sampled instructions. */
static const char *function_file(ds_session *s, const fkey *f)
{
	DS_VEC(const char *) files = {0};
	ds_vec_u64 n = {0};
	const char *best = NULL;
	uint64_t most = 0;

	for (size_t i = 0; i < s->sites.n; i++) {
		fkey k = site_fkey(s, i);
		size_t j;
		if (!fkey_eq(&k, f) || !site_total(s, i))
			continue;
		ds_site_resolve(s, i, true);
		if (!s->sites.v[i].file)
			continue;
		for (j = 0; j < files.n && strcmp(files.v[j], s->sites.v[i].file) != 0; j++)
			;
		if (j == files.n) {
			ds_vec_push(&files, s->sites.v[i].file);
			ds_vec_push(&n, 0);
		}
		n.v[j] += site_total(s, i);
		if (n.v[j] > most) {
			most = n.v[j];
			best = files.v[j];
		}
	}
	ds_vec_free(&files);
	ds_vec_free(&n);
	return best;
}

/* One row per line of the file, in order, its text as the row's name. */
static size_t source_rows(tb *b, const char *path, ds_err *note)
{
	size_t len = 0, nlines = 0;
	char *text = ds_read_file_err(path, &len, note);
	ds_buf line = {0};
	const char *p, *end;

	if (!text) {
		ds_err_prefix(note, "only the sampled lines are shown: ");
		return 0;
	}
	if (len > SOURCE_MAX_BYTES) {
		ds_err_set(note, DS_EINPUT, "'%s' is larger than %u MB: only its sampled lines are shown",
			   path, SOURCE_MAX_BYTES >> 20);
		free(text);
		return 0;
	}
	for (p = text, end = text + len; p < end; nlines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		uint32_t no = (uint32_t)nlines + 1;
		size_t r;
		expand_tabs(&line, p, nl ? (size_t)(nl - p) : (size_t)(end - p));
		r = tb_row(b, &no, sizeof no, ds_buf_str(&line), NULL);
		tb_cell_u64(&b->v.v[r], SR_LINE, no);
		p = nl ? nl + 1 : end;
	}
	ds_buf_free(&line);
	free(text);
	return nlines;
}

/*
 * Every line of one source file with the metrics of the sampled
 * instructions the line table puts on it (all of the file's functions, in
 * the object the function is in), and for sampled lines the function and
 * data object of the line's most sampled instruction, as the lines view
 * names them.
 */
int ds_view_source(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[SR_NCOLS] = {{"line", DS_COL_U64, true}, {"file", DS_COL_STR, false},
					      {"function", DS_COL_STR, false},
					      {"dataobject", DS_COL_STR, true}};
	ds_view_opts keep = {.sort = o && o->sort ? o->sort : "line", .limit = o ? o->limit : 0};
	const char *path = NULL;
	bool by_function = o && o->function;
	ds_vec_u64 best = {0}; /* per row: samples of the instruction that named it */
	ds_err note = {0};
	size_t nlines = 0;
	fkey f = {0, 0, 0};
	ds_charge c;
	tb b;

	if (!o || (!o->function && !o->file))
		return ds_err_set(err, DS_EINPUT,
				  "the source view needs a function (--function NAME) or a file (--file PATH)");
	if (ds_dataspace_build(s, err))
		return -1;
	tb_init(&b, s, "source", "source", cols, SR_NCOLS, false);
	if (by_function) {
		if (find_function(s, o->function, b.t, &f, err)) {
			tb_discard(&b);
			return -1;
		}
		if (!(path = function_file(s, &f))) {
			tb_discard(&b);
			return ds_err_set(err, DS_EINPUT,
					  "function '%s' has no line information (was %s built with -g?)",
					  o->function, s->dsos.v[f.dso].module);
		}
	} else {
		for (size_t i = 0; i < s->sites.n && !path; i++) {
			if (!site_total(s, i))
				continue;
			ds_site_resolve(s, i, true);
			if (s->sites.v[i].file && file_matches(s->sites.v[i].file, o->file))
				path = s->sites.v[i].file;
		}
		if (!path) {
			tb_discard(&b);
			return ds_err_set(err, DS_EINPUT,
					  "no samples in a file named '%s' (--view lines lists the sampled files)",
					  o->file);
		}
	}
	nlines = source_rows(&b, path, &note);
	for (size_t r = 0; r < b.v.n; r++)
		ds_vec_push(&best, 0);
	ds_charge_build(s, &c);
	for (size_t i = 0; i < c.nsites; i++) {
		const site *st = &s->sites.v[i];
		uint32_t no;
		bool added;
		size_t r;
		uint64_t n;
		if (!ds_charge_has(s, &c, i) || (by_function && st->dso != f.dso))
			continue;
		ds_site_resolve(s, i, true);
		if (!st->file || strcmp(st->file, path) != 0)
			continue;
		no = st->line;
		r = tb_row(&b, &no, sizeof no, "", &added);
		if (added) {
			tb_cell_u64(&b.v.v[r], SR_LINE, no);
			ds_vec_push(&best, 0);
		}
		ds_charge_add(s, &c, i, &b.v.v[r]);
		n = ds_charge_total(s, &c, i);
		if (n >= best.v[r]) {
			const char *verdict;
			const ds_trigger *trig;
			best.v[r] = n;
			tb_cell_str(&b.v.v[r], SR_FUNCTION, site_fname(s, i));
			tb_cell_str(&b.v.v[r], SR_DATAOBJECT, ds_site_dataobject(s, c.lead.v[i], &verdict, &trig));
		}
	}
	ds_charge_free(&c);
	ds_vec_free(&best);
	for (size_t r = 0; r < b.v.n; r++)
		tb_cell_str(&b.v.v[r], SR_FILE, path);
	tb_prop(b.t, "file", DS_PROP_TEXT, "%s", path);
	if (by_function)
		tb_prop(b.t, "function", DS_PROP_TEXT, "%s", o->function);
	tb_prop(b.t, "lines", DS_PROP_NUMBER, "%zu", nlines);
	if (note.msg[0])
		tb_prop(b.t, "note", DS_PROP_TEXT, "%s", note.msg);
	else if (b.v.n > nlines)
		tb_prop(b.t, "note", DS_PROP_TEXT,
			"the line table names lines past the end of '%s': it changed since the build", path);
	b.t->order = DS_ORDER_VIEW;
	return tb_finish(&b, &keep, out, err);
}

/* ---- annotate: one function, every instruction ----
 *
 * perf annotate's view with dsprof's data: every instruction of the
 * function in address order, sampled or not, each with the samples
 * charged to it (the pcs view's: a load or store gets the samples its
 * trigger search led to), the samples taken at it (`taken`: where an
 * imprecise sample's IP was, which the charging moves to the access
 * before), and the data object it accesses as the code alone says (its
 * struct.field, a global, the stack).  A row of the source line, from the
 * file, comes before each run of instructions of one line.
 */

enum {
	AN_ADDRESS, AN_DISASM, AN_ACCESS, AN_TAKEN, AN_DATAOBJECT, AN_TRIGGER, AN_VERDICT, AN_LINE, AN_FILE,
	AN_NCOLS
};

/* The file's lines, read once: lines[n - 1] is line n. */
typedef struct src_file {
	char *text;
	DS_VEC(const char *) lines;
} src_file;

static void src_load(src_file *f, const char *path)
{
	size_t len = 0;
	ds_err none = {0};

	f->text = path ? ds_read_file_err(path, &len, &none) : NULL;
	if (!f->text || len > SOURCE_MAX_BYTES)
		return;
	for (char *p = f->text, *end = f->text + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		ds_vec_push(&f->lines, p);
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
}

/* "54:    double e = 0;", or "54:" when the file cannot be read. */
static void source_note(tb *b, src_file *f, const char *file, unsigned line, ds_buf *text)
{
	ds_buf name = {0};
	size_t r;

	ds_buf_reset(text);
	if (line && line <= f->lines.n)
		expand_tabs(text, f->lines.v[line - 1], strlen(f->lines.v[line - 1]));
	ds_buf_printf(&name, "%u: %s", line, ds_buf_str(text));
	r = tb_row_new(b, ds_buf_str(&name));
	ds_buf_free(&name);
	b->v.v[r].note = true;
	tb_cell_str(&b->v.v[r], AN_FILE, file);
	tb_cell_u64(&b->v.v[r], AN_LINE, line);
}

int ds_view_annotate(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[AN_NCOLS] = {
		{"address", DS_COL_HEX, true}, {"disasm", DS_COL_STR, true}, {"access", DS_COL_STR, true},
		{"taken", DS_COL_U64, true},   {"dataobject", DS_COL_STR, true}, {"trigger", DS_COL_STR, true},
		{"verdict", DS_COL_STR, true}, {"line", DS_COL_U64, false}, {"file", DS_COL_STR, false}};
	src_file src = {0};
	const char *src_path = NULL, *last_file = NULL;
	unsigned last_line = 0;
	ds_buf name = {0}, text = {0};
	uint32_t first = UINT32_MAX;
	ds_charge c;
	fkey f;
	site st0;
	tb b;

	if (!o || !o->function)
		return ds_err_set(err, DS_EINPUT, "the annotate view needs a function (--function NAME)");
	if (ds_dataspace_build(s, err))
		return -1;
	tb_init(&b, s, "annotate", "instruction", cols, AN_NCOLS, false);
	if (find_function(s, o->function, b.t, &f, err)) {
		tb_discard(&b);
		return -1;
	}
	for (size_t i = 0; i < s->sites.n && first == UINT32_MAX; i++) {
		fkey k = site_fkey(s, i);
		if (fkey_eq(&k, &f) && s->sites.v[i].sym && s->sites.v[i].has_vaddr)
			first = (uint32_t)i;
	}
	if (first == UINT32_MAX) {
		tb_discard(&b);
		return ds_err_set(err, DS_EINPUT, "'%s' has no symbol with a size to annotate", o->function);
	}
	st0 = s->sites.v[first];
	ds_charge_build(s, &c);
	for (uint64_t a = st0.sym->start, end = st0.sym->start + st0.sym->size; a < end;) {
		uint32_t si = ds_session_site_at(s, st0.dso, st0.off + (a - st0.vaddr));
		char dis[160];
		size_t len, r;
		uint64_t taken = 0;
		const site *st;
		ds_site_resolve(s, si, true);
		st = &s->sites.v[si];
		if (st->file && (st->file != last_file || st->line != last_line)) {
			if (st->file != src_path) {
				free(src.text);
				ds_vec_free(&src.lines);
				memset(&src, 0, sizeof src);
				src_load(&src, st->file);
				src_path = st->file;
			}
			source_note(&b, &src, st->file, st->line, &text);
			last_file = st->file;
			last_line = st->line;
		}
		len = site_disasm(s, si, dis, sizeof dis);
		site_label(s, si, &name);
		r = tb_row_new(&b, ds_buf_str(&name));
		tb_cell_u64(&b.v.v[r], AN_ADDRESS, a);
		tb_cell_str(&b.v.v[r], AN_DISASM, dis);
		tb_cell_str(&b.v.v[r], AN_ACCESS, ds_site_access(s, si));
		for (size_t e = 0; (size_t)si * s->nev + e < s->site_samples.n && e < s->npev; e++)
			taken += s->site_samples.v[(size_t)si * s->nev + e];
		tb_cell_u64(&b.v.v[r], AN_TAKEN, taken);
		if (st->file) {
			tb_cell_u64(&b.v.v[r], AN_LINE, st->line);
			tb_cell_str(&b.v.v[r], AN_FILE, st->file);
		}
		if (si < c.nsites && ds_charge_has(s, &c, si))
			site_trigger_cells(s, &b.v.v[r], c.lead.v[si], AN_DATAOBJECT, AN_TRIGGER, AN_VERDICT);
		if (si < c.nsites)
			ds_charge_add(s, &c, si, &b.v.v[r]);
		if (!len) /* undecodable bytes: one at a time, as objdump shows them */
			len = 1;
		a += len;
	}
	tb_prop(b.t, "function", DS_PROP_TEXT, "%s", o->function);
	ds_charge_free(&c);
	free(src.text);
	ds_vec_free(&src.lines);
	ds_buf_free(&name);
	ds_buf_free(&text);
	b.t->order = DS_ORDER_VIEW;
	*out = tb_take(&b);
	return 0;
}
