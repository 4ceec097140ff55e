/*
 * Views of the dataspace: data objects (types and their fields, globals,
 * stack, unknown buckets) and how samples were resolved.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* DO_NOMISS only with --cross, DO_LINE_USE only with sim:L1D_EVICT (at the
 * index after the columns before it) */
enum { DO_KIND, DO_TYPE, DO_FIELD, DO_NOMISS, DO_LINE_USE, DO_NCOLS };

/* ---- line utilization (sim:L1D_EVICT) ---- */

/* The events of line utilization: the simulator's lines leaving the L1
 * and the bytes of them used (session.c derives it); false without. */
static bool line_use_events(const ds_session *s, size_t *lines, size_t *used)
{
	bool l = false, u = false;
	for (size_t e = 0; e < s->nev; e++) {
		const char *n = ds_session_event(s, e)->name;
		if (!strcmp(n, "sim:L1D_EVICT")) {
			*lines = e;
			l = true;
		} else if (!strcmp(n, "used_bytes:sim:L1D_EVICT")) {
			*used = e;
			u = true;
		}
	}
	return l && u;
}

unsigned ds_l1d_line(const ds_session *s)
{
	for (int i = 0; i < s->meta.ncaches; i++)
		if (s->meta.caches[i].level == 1 && strcmp(s->meta.caches[i].type, "Instruction") != 0 &&
		    s->meta.caches[i].line)
			return s->meta.caches[i].line;
	return 64;
}

/* The share of the bytes of a row's fetched lines that were used. */
static void set_line_use(ds_row *r, size_t col, size_t lines, size_t used, unsigned line)
{
	if (!r->count[lines])
		return;
	r->cells[col].d = 100.0 * (double)r->count[used] / ((double)r->count[lines] * line);
	r->cells[col].set = true;
}

static void add_dobj_metrics(const ds_session *s, ds_row *r, size_t id)
{
	for (size_t e = 0; e < s->nev; e++) {
		r->samples[e] += s->dobj_samples.v[id * s->nev + e];
		r->count[e] += s->dobj_count.v[id * s->nev + e];
	}
}

/* Fields follow the row of their type, however the rows were sorted: the
 * view reads as a tree, types (and the other objects) ranked by the sort
 * key, each type's fields ranked under it. */
static void group_fields(ds_table *t)
{
	ds_row *out = ds_xcalloc(t->nrows ? t->nrows : 1, sizeof *out);
	bool *used = ds_xcalloc(t->nrows ? t->nrows : 1, sizeof *used);
	size_t n = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		const char *kind = t->rows[i].cells[DO_KIND].s;
		/* a type's string-function access goes under it, as its fields */
		if (used[i] || !kind || !strcmp(kind, "field") || !strcmp(kind, "padding") ||
		    (!strcmp(kind, "via") && t->rows[i].cells[DO_TYPE].s))
			continue;
		out[n++] = t->rows[i];
		used[i] = true;
		if (strcmp(kind, "type") != 0)
			continue;
		for (size_t j = 0; j < t->nrows; j++) {
			const ds_row *f = &t->rows[j];
			if (!used[j] && f->cells[DO_TYPE].s && t->rows[i].cells[DO_TYPE].s &&
			    strcmp(f->cells[DO_TYPE].s, t->rows[i].cells[DO_TYPE].s) == 0) {
				out[n++] = *f;
				used[j] = true;
			}
		}
	}
	for (size_t i = 0; i < t->nrows; i++)
		if (!used[i])
			out[n++] = t->rows[i];
	if (n) /* no rows: t->rows is NULL */
		memcpy(t->rows, out, n * sizeof *out);
	free(out);
	free(used);
}

/* The data views speak of memory: samples in code that accesses none
 * (<no memory access>, object i) are out of the table's totals.  Returns
 * how many there are. */
static uint64_t leave_out_nomem(const ds_session *s, ds_table *t, size_t i)
{
	uint64_t n = 0;
	for (size_t e = 0; e < s->nev; e++) {
		t->events[e].samples -= s->dobj_samples.v[i * s->nev + e];
		t->events[e].count -= s->dobj_count.v[i * s->nev + e];
		if (e < s->npev) /* the derived events are its samples again */
			n += s->dobj_samples.v[i * s->nev + e];
	}
	return n;
}

/* --cross: per data object, the kept samples with a trigger, and of them
 * those at an access where the other experiment has no miss sample (looked
 * up once per site). */
static uint64_t (*cross_counts(ds_session *s))[2]
{
	uint64_t (*cx)[2] = ds_xcalloc(s->dobjs.n ? s->dobjs.n : 1, sizeof *cx);
	enum { NOT_LOOKED, MISSED, NO_MISS, NO_TRIGGER };
	uint8_t (*at)[2] = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *at); /* per site, [precise] */

	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *r = &s->srecs.v[i];
		bool pr = (r->flags & SR_PRECISE) != 0;
		uint8_t *a = &at[r->site][pr];
		if (!ds_srec_kept(s, i) || (r->flags & (SR_KERNEL | SR_IFETCH)))
			continue;
		if (*a == NOT_LOOKED) {
			int64_t m = ds_cross_misses(s, r->site, pr);
			*a = m < 0 ? NO_TRIGGER : m ? MISSED : NO_MISS;
		}
		if (*a == NO_TRIGGER)
			continue;
		cx[r->dobj][0]++;
		cx[r->dobj][1] += *a == NO_MISS;
	}
	free(at);
	return cx;
}

/* Add object i's cross counts to row r's (rows[2r], rows[2r + 1]). */
static void add_cross(ds_vec_u64 *rows, size_t r, uint64_t (*cx)[2], size_t i)
{
	if (!cx)
		return;
	while (rows->n < 2 * r + 2)
		ds_vec_push(rows, 0);
	rows->v[2 * r] += cx[i][0];
	rows->v[2 * r + 1] += cx[i][1];
}

static void say_cross(const ds_session *s, ds_table *t)
{
	if (!s->cross_path)
		return;
	tb_prop(t, "cross", DS_PROP_TEXT, "%s", s->cross_path);
	tb_prop(t, "note", DS_PROP_TEXT,
		"nomiss: of a row's samples at a known load or store, the share at those where '%s' has no "
		"miss sample; near 100%% the row's time went to something else there (a branch, a divide)",
		s->cross_path);
}

/* Memory time per row: a record counts for its object's row and, for a
 * field, its type's (rows[2 * object], rows[2 * object + 1]). */
static void add_memtime(const ds_session *s, memtime *m, const size_t *rows, tb *b, size_t first)
{
	if (!m)
		return;
	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *r = &s->srecs.v[i];
		if (r->dobj < 0 || !ds_srec_kept(s, i))
			continue;
		for (int k = 0; k < 2; k++)
			if (rows[2 * (size_t)r->dobj + (size_t)k] != SIZE_MAX)
				mt_add(m, rows[2 * (size_t)r->dobj + (size_t)k], i);
	}
	for (size_t r = 0; r < b->v.n; r++)
		mt_cells(m, r, &b->v.v[r], first);
}

/* Without heap data, where <scalars> (bytes through a u8 *, a double *)
 * hold a tenth of the first event's samples: the way to name them. */
static void say_scalars(const ds_session *s, ds_table *t)
{
	uint64_t n = 0, all = t->nevents ? t->events[0].samples : 0;

	if (s->heap.files || !all)
		return;
	for (size_t i = 0; i < s->dobjs.n; i++)
		if (ds_dobj_scalars(&s->dobjs.v[i]))
			n += s->dobj_samples.v[i * s->nev];
	if (n * 10 >= all)
		tb_prop(t, "note", DS_PROP_TEXT,
			"%.0f%% of the %s samples are <scalars>, bytes read through pointers to base types that "
			"no variable names: record with --heap to name the heap blocks among them by their "
			"allocation sites",
			100.0 * (double)n / (double)all, t->events[0].name);
}

int ds_view_dataobjects(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	ds_col cols[DO_NCOLS] = {{"kind", DS_COL_STR, true},
				 {"type", DS_COL_STR, false},
				 {"field", DS_COL_STR, false}};
	memtime *mt;
	size_t ncols = DO_NOMISS, c_use = 0, c_mt, lines_ev = 0, used_ev = 0, *rows;
	ds_view_opts all = {.sort = o ? o->sort : NULL};
	uint64_t nomem = 0, tool = 0;
	uint64_t (*cx)[2] = NULL; /* per object: samples with a trigger; of them, at no miss */
	ds_vec_u64 rcx = {0};     /* the same per row, two slots each */
	tb b;
	int rc;

	if (ds_dataspace_build(s, err))
		return -1;
	if (s->cross_index)
		cols[ncols++] = (ds_col){"nomiss", DS_COL_PERCENT, true};
	if (line_use_events(s, &lines_ev, &used_ev)) {
		c_use = ncols;
		cols[ncols++] = (ds_col){"line_use", DS_COL_PERCENT, true};
	}
	c_mt = ncols;
	mt = mt_tb_init(&b, s, "dataobjects", "data object", cols, ncols);
	rows = ds_xcalloc(2 * s->dobjs.n + 1, sizeof *rows);
	for (size_t i = 0; i < 2 * s->dobjs.n; i++)
		rows[i] = SIZE_MAX;
	if (s->cross_index)
		cx = cross_counts(s);
	for (size_t i = 0; i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		bool added, any = false;
		size_t r;
		for (size_t e = 0; e < s->nev; e++)
			any |= s->dobj_samples.v[i * s->nev + e] != 0;
		if (!any)
			continue; /* named on the way to a better answer, never sampled */
		if (d->kind == DOBJ_NOMEM || d->kind == DOBJ_TOOL) {
			uint64_t n = leave_out_nomem(s, b.t, i);
			nomem += n;
			tool += d->kind == DOBJ_TOOL ? n : 0;
			continue;
		}
		r = tb_row(&b, d->name, strlen(d->name), d->name, &added);
		if (added) {
			tb_cell_str(&b.v.v[r], DO_KIND, ds_dobj_kind_name(d->kind));
			tb_cell_str(&b.v.v[r], DO_TYPE, d->type);
			tb_cell_str(&b.v.v[r], DO_FIELD, d->kind == DOBJ_VIA ? NULL : d->path);
		}
		add_dobj_metrics(s, &b.v.v[r], i);
		add_cross(&rcx, r, cx, i);
		rows[2 * i] = r;
		if (d->kind == DOBJ_FIELD || (d->kind == DOBJ_VIA && d->tid >= 0)) {
			/* the type's own row sums its fields, and what string
			 * functions did to it */
			char key[512];
			snprintf(key, sizeof key, "type\x01%s", d->type);
			r = tb_row(&b, key, strlen(key), d->type, &added);
			if (added) {
				tb_cell_str(&b.v.v[r], DO_KIND, "type");
				tb_cell_str(&b.v.v[r], DO_TYPE, d->type);
			}
			add_dobj_metrics(s, &b.v.v[r], i);
			add_cross(&rcx, r, cx, i);
			rows[2 * i + 1] = r;
		}
	}
	add_memtime(s, mt, rows, &b, c_mt);
	for (size_t r = 0; cx && r < b.v.n && 2 * r + 1 < rcx.n; r++)
		if (rcx.v[2 * r]) {
			b.v.v[r].cells[DO_NOMISS].d = 100.0 * (double)rcx.v[2 * r + 1] / (double)rcx.v[2 * r];
			b.v.v[r].cells[DO_NOMISS].set = true;
		}
	for (size_t r = 0; c_use && r < b.v.n; r++)
		set_line_use(&b.v.v[r], c_use, lines_ev, used_ev, ds_l1d_line(s));
	free(cx);
	ds_vec_free(&rcx);
	free(rows);
	/* sort everything, then regroup, then cut */
	rc = tb_finish(&b, &all, out, err);
	mt_free(mt);
	if (rc)
		return rc;
	say_cross(s, *out);
	group_fields(*out);
	ds_session_debug_notes(s, *out); /* first: see ds_say_nomem */
	ds_say_nomem(*out, nomem, tool);
	ds_say_timer(*out);
	say_scalars(s, *out);
	if (o && o->limit && o->limit < (*out)->nrows) {
		ds_table *t = *out;
		for (size_t i = o->limit; i < t->nrows; i++) {
			free(t->rows[i].name);
			for (size_t c = 0; c < t->ncols; c++)
				free(t->rows[i].cells[c].s);
			free(t->rows[i].cells);
			free(t->rows[i].samples);
			free(t->rows[i].count);
		}
		t->nrows = o->limit;
	}
	return 0;
}

/* --type-stats: how every sample was (or was not) resolved, group by group
 * (backtrack, address, resolution, unknown buckets), largest first in each;
 * then per module its memory samples and the share of them resolved, so
 * that a library without debug information does not hide the program's. */
enum { TS_GROUP, TS_SAMPLES, TS_SHARE, TS_ORDER, TS_NCOLS };

typedef struct stat_ent {
	int group;            /* index in stat_groups */
	const char *what;
	uint64_t n;
	double pct;           /* module rows: the share resolved; else < 0 (of all samples) */
} stat_ent;

typedef DS_VEC(stat_ent) stat_vec;

static const char *const stat_groups[] = {"backtrack", "address", "resolution", "unknown", "module"};

static int cmp_stat(const void *a, const void *b)
{
	const stat_ent *x = a, *y = b;
	if (x->group != y->group)
		return x->group - y->group;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->what, y->what);
}

static void stat_add(stat_vec *v, int group, const char *what, uint64_t n)
{
	if (n)
		ds_vec_push(v, ((stat_ent){group, what, n, -1}));
}

int ds_view_typestats(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[TS_NCOLS] = {{"group", DS_COL_STR, true},
					      {"samples", DS_COL_U64, true},
					      {"percent", DS_COL_PERCENT, true},
					      {"order", DS_COL_U64, false}};
	ds_view_opts keep = {.sort = o && o->sort ? o->sort : "order"};
	uint64_t user = 0, resolved = 0, found = 0;
	uint64_t misfit[2] = {0, 0};
	stat_vec v = {0};
	ds_buf name = {0};
	tb b;

	if (ds_dataspace_build(s, err))
		return -1;
	for (int k = 0; k < DS_BT_NVERDICTS; k++)
		user += s->verdict_samples[k];
	found = s->verdict_samples[DS_BT_OK];
	for (int h = HOW_NONE + 1; h < HOW_NHOW; h++)
		resolved += s->how_samples[h];
	for (int k = 0; k < DS_BT_NVERDICTS; k++)
		stat_add(&v, 0, ds_bt_verdict_name((enum ds_bt_verdict)k), s->verdict_samples[k]);
	stat_add(&v, 1, "from the sample", s->ea_from_addr);
	stat_add(&v, 1, "from the registers", s->ea_from_regs);
	stat_add(&v, 1, "registers changed", s->ea_regs_changed);
	stat_add(&v, 1, "unknown", s->ea_none);
	stat_add(&v, 1, "instruction fetch (not data)", s->ea_ifetch);
	for (int h = 0; h < HOW_NHOW; h++)
		stat_add(&v, 2, ds_how_name((enum ds_how)h), s->how_samples[h]);
	for (size_t i = 0; i < s->dobjs.n; i++) {
		uint64_t n = 0;
		for (size_t e = 0; e < s->npev; e++)
			n += s->dobj_samples.v[i * s->nev + e];
		if (s->dobjs.v[i].kind == DOBJ_UNKNOWN)
			stat_add(&v, 3, s->dobjs.v[i].path, n);
		else if (s->dobjs.v[i].kind == DOBJ_MISFIT) /* one line per reason, every type's */
			misfit[strcmp(s->dobjs.v[i].path, "offset-beyond") != 0] += n;
	}
	stat_add(&v, 3, "offset-beyond", misfit[0]);
	stat_add(&v, 3, "offset-in-hole", misfit[1]);
	for (size_t i = 0; i < s->dso_mem.n; i++)
		if (s->dso_mem.v[i]) {
			stat_add(&v, 4, s->dsos.v[i].module, s->dso_mem.v[i]);
			v.v[v.n - 1].pct = 100.0 * (double)s->dso_resolved.v[i] / (double)s->dso_mem.v[i];
		}
	ds_sort(v.v, v.n, sizeof *v.v, cmp_stat);

	tb_init(&b, s, "typestats", "outcome", cols, TS_NCOLS, false);
	b.t->has_metrics = false;
	for (size_t i = 0; i < v.n; i++) {
		ds_row *row;
		size_t r;
		ds_buf_reset(&name);
		ds_buf_printf(&name, "%s: %s", stat_groups[v.v[i].group], v.v[i].what);
		r = tb_row(&b, name.p, name.len, name.p, NULL); /* may move b.v.v */
		row = &b.v.v[r];
		tb_cell_str(row, TS_GROUP, stat_groups[v.v[i].group]);
		tb_cell_u64(row, TS_SAMPLES, v.v[i].n);
		tb_cell_u64(row, TS_ORDER, i);
		row->cells[TS_SHARE].d = v.v[i].pct >= 0 ? v.v[i].pct
					 : user ? 100.0 * (double)v.v[i].n / (double)user : 0;
		row->cells[TS_SHARE].set = true;
	}
	ds_buf_free(&name);
	ds_vec_free(&v);
	tb_prop(b.t, "user_samples", DS_PROP_NUMBER, "%llu", (unsigned long long)user);
	tb_prop(b.t, "trigger_found", DS_PROP_NUMBER, "%llu", (unsigned long long)found);
	tb_prop(b.t, "resolved", DS_PROP_NUMBER, "%llu", (unsigned long long)resolved);
	tb_prop(b.t, "resolved_pct_of_memory_samples", DS_PROP_NUMBER, "%.1f",
		found ? 100.0 * (double)resolved / (double)found : 0.0);
	tb_prop(b.t, "addresses_checked", DS_PROP_NUMBER, "%llu", (unsigned long long)s->ea_checked);
	tb_prop(b.t, "address_disagreements", DS_PROP_NUMBER, "%llu", (unsigned long long)s->ea_disagree);
	if (s->tool_samples)
		tb_prop(b.t, "heap_tracker_samples", DS_PROP_NUMBER, "%llu", (unsigned long long)s->tool_samples);
	return tb_finish(&b, &keep, out, err);
}

/* ---- datalayout: each hot type's members in offset order ---- */

enum { DL_KIND, DL_TYPE, DL_FIELD, DL_OFFSET, DL_SIZE, DL_BITS, DL_SHARE, DL_ORDER, DL_NCOLS };

typedef struct hot_type {
	int32_t tid;
	const ds_type *t;
	const char *name;
	uint64_t samples;     /* every event, all fields */
} hot_type;

static int cmp_hot(const void *a, const void *b)
{
	const hot_type *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The length of s's tag word ("struct " in "struct node"), and in *kind
 * which tag it is (struct and class are one, as C++ has them), 0 none. */
static size_t tag_word(const char *s, int *kind)
{
	static const char *const tags[] = {"struct ", "class ", "union ", "enum "};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strncmp(s, tags[i], strlen(tags[i])) == 0) {
			*kind = i < 2 ? 1 : (int)i;
			return strlen(tags[i]);
		}
	*kind = 0;
	return 0;
}

/* Whether `want` (--type) names the type: its name with or without the
 * tag word ("struct node (tu2.c:3)", "node (tu2.c:3)"), or without the
 * where that tells it from other definitions, which names them all
 * ("struct node", "node"); with tail, also a C++ name's last scopes
 * ("Node" for "struct a::Node", ds_name_tail). */
static bool type_matches(const tident *ti, const char *want, bool tail)
{
	int kind, wkind;
	size_t tag = tag_word(ti->name, &kind), wtag = tag_word(want, &wkind), wlen = strlen(want + wtag);
	const char *name = ti->name + tag, *w = want + wtag;

	if (wkind && wkind != kind)
		return false;
	if (strcmp(name, w) == 0)
		return true;
	return tail ? ds_name_tail(name, ti->base - tag, w, wlen)
		    : wlen == ti->base - tag && strncmp(name, w, wlen) == 0;
}

/* Types with samples on their fields, hottest first; `want` keeps the
 * types it names, or when it names none by its whole name, those whose
 * last scopes it is. */
static size_t hot_types(const ds_session *s, const char *want, hot_type **out)
{
	hot_type *v = ds_xcalloc(s->tidents.n ? s->tidents.n : 1, sizeof *v);
	size_t n = 0;

	for (size_t k = 0; k < s->tidents.n; k++)
		v[k] = (hot_type){(int32_t)k, s->tidents.v[k].t, s->tidents.v[k].name, 0};
	for (size_t i = 0; i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		for (size_t e = 0; d->kind == DOBJ_FIELD && e < s->npev; e++)
			v[d->tid].samples += s->dobj_samples.v[i * s->nev + e];
	}
	/* types named on the way to another answer, or whose samples the
	 * filter left out, are not hot */
	for (int tail = 0; !n && tail < 2; tail++)
		for (size_t k = 0; k < s->tidents.n; k++)
			if (v[k].samples && (!want || type_matches(&s->tidents.v[k], want, tail)))
				v[n++] = v[k];
	ds_sort(v, n, sizeof *v, cmp_hot);
	*out = v;
	return n;
}

/* Metrics of a member of type tid: its own field and everything nested
 * in it ("b" sums "b.c" and "b.d" when b is a struct shown as one member);
 * the empty path sums the whole type.  samples and count have one slot per
 * event. */
static void member_metrics(const ds_session *s, int32_t tid, const char *path, uint64_t *samples,
			   uint64_t *count)
{
	size_t pl = strlen(path);
	for (size_t i = 0; tid >= 0 && i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		if (d->tid != tid || d->kind != DOBJ_FIELD)
			continue;
		if (pl && (!d->path || strncmp(d->path, path, pl) != 0 ||
			   (d->path[pl] && d->path[pl] != '.' && d->path[pl] != '[')))
			continue;
		for (size_t e = 0; e < s->nev; e++) {
			samples[e] += s->dobj_samples.v[i * s->nev + e];
			count[e] += s->dobj_count.v[i * s->nev + e];
		}
	}
}

/* The row of the expanded member whose OPEN or CLOSE row is i: the other
 * one of the pair. */
static size_t pair_row(const ds_layout *l, size_t i)
{
	const ds_layout_row *r = &l->rows[i];
	bool open = r->kind == DS_LROW_OPEN;

	for (size_t k = i; open ? ++k < l->nrows : k-- > 0;) {
		const ds_layout_row *x = &l->rows[k];
		if (x->kind == (open ? DS_LROW_CLOSE : DS_LROW_OPEN) && x->member == r->member &&
		    x->depth == r->depth)
			return k;
	}
	return i;
}

/* Metrics of layout row i: a member's (a struct or union member's with
 * everything in it); for an anonymous struct or union without a name, which
 * no path names, the sum of the members it holds.  Other rows: zeros. */
static void row_metrics(const ds_session *s, int32_t tid, const ds_layout *l, size_t i, uint64_t *samples,
			uint64_t *count, int depth)
{
	const ds_layout_row *r = &l->rows[i];
	size_t lo, hi;

	if (r->pointee || (r->kind != DS_LROW_MEMBER && r->kind != DS_LROW_OPEN && r->kind != DS_LROW_CLOSE))
		return;
	if (r->path) {
		member_metrics(s, tid, r->path, samples, count);
		return;
	}
	if (r->kind == DS_LROW_MEMBER || depth > 32)
		return;
	lo = r->kind == DS_LROW_OPEN ? i : pair_row(l, i);
	hi = r->kind == DS_LROW_OPEN ? pair_row(l, i) : i;
	for (size_t k = lo + 1; k < hi; k++)
		if (l->rows[k].depth == r->depth + 1 &&
		    (l->rows[k].kind == DS_LROW_MEMBER || l->rows[k].kind == DS_LROW_OPEN))
			row_metrics(s, tid, l, k, samples, count, depth + 1);
}

typedef struct dl_build {
	tb b;
	uint64_t order;
	const ds_session *s;
	const hot_type *h;
	size_t type_row;
	const unsigned *sizes;
	const char **names;
	size_t nsizes;
	uint64_t next[4];      /* the next cache-line boundary to draw, per size */
} dl_build;

/* A row of the layout at depth (0 the type, 1 its members...): text indents
 * its name by it, CSV and JSON name its parent. */
static ds_row *dl_row(dl_build *d, const char *kind, const char *type, const char *name, unsigned depth)
{
	uint64_t key = d->order;
	size_t r = tb_row(&d->b, &key, sizeof key, name, NULL);
	ds_row *row = &d->b.v.v[r];
	row->depth = depth;
	tb_cell_str(row, DL_KIND, kind);
	tb_cell_str(row, DL_TYPE, type);
	tb_cell_u64(row, DL_ORDER, d->order++);
	return row;
}

/* The cache-line sizes to draw: --line, or every data level's measured
 * one (different levels may have different lines). */
static size_t line_sizes(const ds_session *s, const ds_view_opts *o, unsigned *sizes, const char **names)
{
	size_t n = 0;
	if (o->line) {
		sizes[0] = o->line;
		names[0] = NULL;
		return 1;
	}
	for (int i = 0; i < s->meta.ncaches && n < 4; i++) {
		const ds_cache_level *c = &s->meta.caches[i];
		static const char *const level_names[] = {"?", "L1D", "L2", "L3", "L4"};
		bool seen = false;
		if (!strcmp(c->type, "Instruction") || !c->line)
			continue;
		for (size_t k = 0; k < n; k++)
			seen |= sizes[k] == c->line;
		if (!seen) {
			sizes[n] = c->line;
			names[n++] = c->level >= 1 && c->level <= 4 ? level_names[c->level] : "line";
		}
	}
	if (!n) {
		sizes[0] = 64;
		names[0] = NULL; /* nothing measured: 64 bytes */
		n = 1;
	}
	return n;
}

bool ds_usual_start(const ds_session *s, int32_t tid, unsigned line, uint64_t *start, uint64_t *best,
			uint64_t *total, size_t *distinct)
{
	uint64_t *per = ds_xcalloc(line, sizeof *per);

	*start = *best = *total = 0;
	*distinct = 0;
	for (size_t i = 0; i < ds_hash_count(s->align_index); i++) {
		const align_key *k = ds_hash_key(s->align_index, i, NULL);
		if (k->tid == tid)
			for (size_t e = 0; e < s->nev; e++)
				per[k->residue % line] += s->align_samples.v[i * s->nev + e];
	}
	for (unsigned r = 0; r < line; r++) {
		*total += per[r];
		*distinct += per[r] != 0;
		if (per[r] > *best) {
			*best = per[r];
			*start = r;
		}
	}
	free(per);
	return *total != 0;
}

/* The lines an instance of `size` bytes starting at byte `start` of a line
 * spans. */
static uint64_t lines_spanned(uint64_t start, uint64_t size, unsigned line)
{
	return size ? (start % line + size + line - 1) / line : 0;
}

/* The lines of `line` bytes an instance of type tid spans where most of
 * its samples found instances start. */
static uint64_t instance_lines(const ds_session *s, int32_t tid, uint64_t size, unsigned line)
{
	uint64_t start = 0, best, total;
	size_t distinct;

	ds_usual_start(s, tid, line, &start, &best, &total, &distinct);
	return lines_spanned(start, size, line);
}

/* Where instances start relative to a line of `line` bytes, as seen in the
 * samples of this type (and no other of its name): the most common start,
 * how often, and what it costs when an instance touches more lines than it
 * would if it were aligned. */
static void alignment_row(dl_build *d, unsigned line)
{
	const hot_type *h = d->h;
	uint64_t best, best_res, total;
	size_t distinct;
	ds_buf name = {0};

	if (!ds_usual_start(d->s, h->tid, line, &best_res, &best, &total, &distinct))
		return;
	ds_buf_printf(&name, "instances start at byte %llu of a %u-byte line in %.0f%% of samples (%zu offsets seen)",
		      (unsigned long long)best_res, line, 100.0 * (double)best / (double)total, distinct);
	if (h->t->size) {
		uint64_t aligned = lines_spanned(0, h->t->size, line);
		uint64_t touched = lines_spanned(best_res, h->t->size, line);
		if (touched > aligned)
			ds_buf_printf(&name, ": each spans %llu lines, %llu if aligned", (unsigned long long)touched,
				      (unsigned long long)aligned);
	}
	dl_row(d, "alignment", h->name, name.p, 1)->note = true;
	ds_buf_free(&name);
}

/* How a type's instances use their bytes, by its fields' samples: each
 * member's size times the share of visits that touch it, a visit counted
 * by the samples of the hottest member (every visit touches that one).
 * An estimate: a member accessed twice a visit makes the others look half
 * touched, and samples are not accesses (a timer's fall on slow ones). */
static double touched_bytes(const ds_session *s, int32_t tid, const ds_type *t)
{
	ds_err err = {0};
	ds_layout *l = ds_layout_build(t, 64, &err);
	uint64_t *samples = ds_xcalloc(2 * (s->nev ? s->nev : 1), sizeof *samples), *count = samples + s->nev;
	DS_VEC(uint64_t) n = {0};
	uint64_t max = 0;
	double bytes = 0;

	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0, k = 0; l && i < l->nrows; i++) {
			const ds_layout_row *r = &l->rows[i];
			uint64_t x = 0;
			if (r->kind != DS_LROW_MEMBER || !r->path || r->pointee)
				continue;
			if (pass == 0) {
				memset(samples, 0, 2 * s->nev * sizeof *samples);
				member_metrics(s, tid, r->path, samples, count);
				for (size_t e = 0; e < s->npev; e++)
					x += samples[e];
				ds_vec_push(&n, x);
				max = x > max ? x : max;
			} else if (max) {
				x = n.v[k++];
				bytes += (double)r->size * (double)x / (double)max;
			}
		}
	ds_vec_free(&n);
	free(samples);
	ds_layout_free(l);
	return t->size && bytes > (double)t->size ? (double)t->size : bytes;
}

/* The row that says how the type uses the lines it is fetched in: the
 * samples' estimate of the bytes a visit uses and, simulated, the bytes
 * of each line fetched that were used before it left the L1. */
static void line_use_row(dl_build *d, unsigned line)
{
	const ds_session *s = d->s;
	const hot_type *h = d->h;
	uint64_t size = h->t->size;
	size_t lines_ev, used_ev;
	const ds_row *t = &d->b.v.v[d->type_row];
	double touched = touched_bytes(s, h->tid, h->t);
	ds_buf name = {0};

	if (!size)
		return;
	ds_buf_printf(&name, "line use: %llu bytes, %llu %u-byte lines an instance; about %.0f of its %llu bytes used a visit (%.0f%%), by its members' samples",
		      (unsigned long long)size, (unsigned long long)instance_lines(s, h->tid, size, line), line, touched,
		      (unsigned long long)size, 100.0 * touched / (double)size);
	if (line_use_events(s, &lines_ev, &used_ev) && t->count[lines_ev]) {
		unsigned l1 = ds_l1d_line(s);
		double per = (double)t->count[used_ev] / (double)t->count[lines_ev];
		ds_buf_printf(&name, "; simulated, %.1f of each %u-byte line fetched used (%.0f%%)", per, l1,
			      100.0 * per / l1);
	}
	dl_row(d, "line use", h->name, name.p, 1)->note = true;
	ds_buf_free(&name);
}

/* The cache-line boundaries of every drawn size up to offset, one row per
 * size: like pahole, lines that begin inside one long member are not drawn
 * one by one; the member carries a "[spans N lines]" note instead. */
static void boundaries(dl_build *d, uint64_t offset, unsigned depth)
{
	for (size_t z = 0; z < d->nsizes; z++) {
		uint64_t last = offset - offset % d->sizes[z];
		ds_buf name = {0};
		ds_row *row;
		if (d->next[z] > offset)
			continue;
		ds_buf_printf(&name, "--- %s%sline %llu (%llu bytes) ---", d->names[z] ? d->names[z] : "",
			      d->names[z] ? " " : "", (unsigned long long)(last / d->sizes[z]),
			      (unsigned long long)last);
		row = dl_row(d, "boundary", d->h->name, name.p, depth + 1);
		row->note = true;
		tb_cell_u64(row, DL_OFFSET, last);
		d->next[z] = last + d->sizes[z];
		ds_buf_free(&name);
	}
}

static void set_share(dl_build *d, ds_row *r)
{
	const ds_row *t = &d->b.v.v[d->type_row];
	r->cells[DL_SHARE].d = t->samples[0] ? 100.0 * (double)r->samples[0] / (double)t->samples[0] : 0;
	r->cells[DL_SHARE].set = true;
}

/* A member row: kind "member" in the layout, "nested" under a member shown
 * as one row; at its depth, with "[spans N lines]" when it does. */
static ds_row *member_row(dl_build *d, const char *kind, const ds_layout_row *lr, const char *path,
			  const char *label, uint64_t offset, unsigned depth)
{
	ds_buf name = {0};
	ds_row *row;

	ds_buf_puts(&name, path ? path : label);
	if (lr->bit_size)
		ds_buf_printf(&name, ":%u", lr->bit_size);
	for (size_t z = 0; z < d->nsizes; z++) {
		uint64_t first = offset / d->sizes[z];
		uint64_t lines = (offset + (lr->size ? lr->size : 1) - 1) / d->sizes[z] - first + 1;
		if (lines > 1)
			ds_buf_printf(&name, "  [spans %llu %u-byte lines]", (unsigned long long)lines, d->sizes[z]);
	}
	boundaries(d, offset, depth);
	row = dl_row(d, kind, d->h->name, name.p, depth + 1);
	tb_cell_str(row, DL_FIELD, path ? path : label);
	tb_cell_u64(row, DL_OFFSET, offset);
	tb_cell_u64(row, DL_SIZE, lr->size);
	if (lr->bit_size) {
		char bits[32];
		snprintf(bits, sizeof bits, "%u..%u", lr->bit_offset, lr->bit_offset + lr->bit_size - 1);
		tb_cell_str(row, DL_BITS, bits);
	}
	ds_buf_free(&name);
	return row;
}

/* What a struct or union member without a name is called: "<union at
 * 16>", inside the path of the member that holds it ("u.<struct at 20>"). */
static char *unnamed_label(const ds_layout *l, size_t i)
{
	const ds_layout_row *r = &l->rows[i];
	const ds_type *t = ds_type_strip(r->member->type);
	const char *parent = NULL;

	/* the enclosing named member's path, from the OPEN row around it */
	for (size_t k = i; k-- > 0 && !parent;)
		if (l->rows[k].kind == DS_LROW_OPEN && l->rows[k].depth < r->depth && pair_row(l, k) > i)
			parent = l->rows[k].path;
	return ds_xasprintf("%s%s<%s at %llu>", parent ? parent : "", parent ? "." : "",
			    t && t->kind == DS_TYPE_UNION ? "union" : "struct", (unsigned long long)r->offset);
}

static void layout_rows(dl_build *d, const ds_type *t, const char *prefix, uint64_t base, unsigned depth,
			bool nested);

/* Under a member shown as one row (a named struct or union, or an array
 * of them) that has samples, its sampled members, each on its own row at
 * every level ("a", then "a.b", then "a.b.c"). */
static void expand_named(dl_build *d, const ds_layout_row *lr, const char *path, uint64_t offset, unsigned depth)
{
	const ds_type *t = lr->member ? ds_type_strip(lr->member->type) : NULL;
	ds_buf prefix = {0};

	ds_buf_puts(&prefix, path);
	for (int k = 0; t && t->kind == DS_TYPE_ARRAY && k < 8; k++) {
		for (size_t i = 0; i < t->ndims; i++)
			ds_buf_puts(&prefix, "[]");
		t = ds_type_strip(t->target);
	}
	if (t && (t->kind == DS_TYPE_STRUCT || t->kind == DS_TYPE_CLASS || t->kind == DS_TYPE_UNION) &&
	    t->nmembers && depth < 16)
		layout_rows(d, t, prefix.p, offset, depth + 1, true);
	ds_buf_free(&prefix);
}

/* Metrics of C++ base class bt's members in the hot type: their paths have
 * no component for the base (struct geo::Square.scale is Shape's). */
static void base_metrics(const dl_build *d, const ds_type *bt, const char *prefix, uint64_t *samples,
			 uint64_t *count, int depth)
{
	for (size_t i = 0; bt && depth < 16 && i < bt->nmembers; i++) {
		const ds_member *m = &bt->members[i];
		char *p;
		if (m->base_class) {
			base_metrics(d, ds_type_strip(m->type), prefix, samples, count, depth + 1);
			continue;
		}
		if (!m->name)
			continue;
		p = ds_xasprintf("%s%s%s", prefix ? prefix : "", prefix ? "." : "", m->name);
		member_metrics(d->s, d->h->tid, p, samples, count);
		free(p);
	}
}

/* A C++ base class subobject: a row "<base geo::Shape>" with everything in
 * it, and under it its sampled members, as a named struct member's. */
static void base_row(dl_build *d, const ds_layout_row *lr, const char *prefix, uint64_t offset, unsigned depth,
		     bool nested)
{
	const ds_type *bt = ds_type_strip(lr->member->type);
	uint64_t *samples = ds_xcalloc(2 * (d->s->nev ? d->s->nev : 1), sizeof *samples);
	uint64_t *count = samples + (d->s->nev ? d->s->nev : 1);
	bool sampled = false;
	ds_buf name = {0};
	char *label;
	ds_row *row;

	if (bt)
		ds_type_ident(bt, &name);
	label = ds_xasprintf("<base %s>", name.p ? ds_untagged(name.p) : "?");
	base_metrics(d, bt, prefix, samples, count, 0);
	for (size_t e = 0; e < d->s->nev; e++)
		sampled |= samples[e] != 0;
	if (!nested || sampled) {
		row = member_row(d, nested ? "nested" : "member", lr, NULL, label, offset, depth);
		for (size_t e = 0; e < d->s->nev; e++) {
			row->samples[e] += samples[e];
			row->count[e] += count[e];
		}
		set_share(d, row);
		if (sampled && bt && bt->nmembers && depth < 16)
			layout_rows(d, bt, prefix, offset, depth + 1, true);
	}
	free(label);
	ds_buf_free(&name);
	free(samples);
}

/* The rows of t's layout at byte base of the hot type, each member's path
 * after prefix (NULL for the type itself), indented from depth.  nested:
 * t is a member shown as one row, of which only the sampled members are
 * shown. */
static void layout_rows(dl_build *d, const ds_type *t, const char *prefix, uint64_t base, unsigned depth,
			bool nested)
{
	ds_err err = {0}; /* t is a struct or union: nothing to report */
	ds_layout *l = ds_layout_build(t, d->sizes[0], &err);
	uint64_t *samples = ds_xcalloc(2 * (d->s->nev ? d->s->nev : 1), sizeof *samples);
	uint64_t *count = samples + (d->s->nev ? d->s->nev : 1);
	ds_buf path = {0};

	for (size_t i = 0; l && i < l->nrows; i++) {
		const ds_layout_row *lr = &l->rows[i];
		unsigned dep = depth + lr->depth;
		uint64_t offset = base + lr->offset;
		const char *p = NULL;
		char *label = NULL;
		bool sampled;
		ds_row *row;

		/* a pointee's members belong to another object */
		if (lr->pointee || lr->kind == DS_LROW_CLOSE)
			continue;
		if (lr->kind == DS_LROW_MEMBER && lr->member && lr->member->base_class) {
			base_row(d, lr, prefix, offset, dep, nested);
			continue;
		}
		if (lr->kind == DS_LROW_MEMBER || lr->kind == DS_LROW_OPEN) {
			if (!lr->path && (lr->kind == DS_LROW_MEMBER || !lr->member))
				continue; /* a bit-field filler */
			ds_buf_reset(&path);
			if (lr->path)
				ds_buf_printf(&path, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", lr->path);
			else
				label = unnamed_label(l, i);
			p = lr->path ? path.p : NULL;
			memset(samples, 0, 2 * d->s->nev * sizeof *samples);
			if (p)
				member_metrics(d->s, d->h->tid, p, samples, count);
			else if (!prefix)
				row_metrics(d->s, d->h->tid, l, i, samples, count, 0);
			sampled = false;
			for (size_t e = 0; e < d->s->nev; e++)
				sampled |= samples[e] != 0;
			if (nested && (!p || !sampled)) {
				free(label);
				continue;
			}
			row = member_row(d, nested ? "nested" : "member", lr, p, label, offset, dep);
			for (size_t e = 0; e < d->s->nev; e++) {
				row->samples[e] += samples[e];
				row->count[e] += count[e];
			}
			set_share(d, row);
			free(label);
			if (lr->kind == DS_LROW_MEMBER && p && sampled)
				expand_named(d, lr, p, offset, dep);
			continue;
		}
		if (nested)
			continue;
		ds_buf_reset(&path);
		switch (lr->kind) {
		case DS_LROW_HOLE:
			ds_buf_printf(&path, "<hole: %llu bytes>", (unsigned long long)lr->size);
			break;
		case DS_LROW_BIT_HOLE:
			ds_buf_printf(&path, "<hole: %u bits>", lr->bit_size);
			break;
		case DS_LROW_PADDING:
			ds_buf_printf(&path, "<padding: %llu bytes>", (unsigned long long)lr->size);
			break;
		default:
			continue;
		}
		boundaries(d, offset, dep);
		row = dl_row(d, lr->kind == DS_LROW_PADDING ? "padding" : "hole", d->h->name, path.p, dep + 1);
		row->note = true;
		tb_cell_u64(row, DL_OFFSET, offset);
		tb_cell_u64(row, DL_SIZE, lr->size);
		if (lr->kind == DS_LROW_BIT_HOLE) {
			char bits[32];
			snprintf(bits, sizeof bits, "%u..%u", lr->bit_offset, lr->bit_offset + lr->bit_size - 1);
			tb_cell_str(row, DL_BITS, bits);
		}
	}
	ds_buf_free(&path);
	free(samples);
	ds_layout_free(l);
}

static void layout_type(dl_build *d, const hot_type *h)
{
	ds_row *row;

	d->h = h;
	for (size_t z = 0; z < d->nsizes; z++)
		d->next[z] = d->sizes[z];
	row = dl_row(d, "type", h->name, h->name, 0);
	d->type_row = d->b.v.n - 1;
	tb_cell_u64(row, DL_SIZE, h->t->size);
	member_metrics(d->s, h->tid, "", row->samples, row->count);
	alignment_row(d, d->sizes[0]);
	line_use_row(d, d->sizes[0]);
	layout_rows(d, h->t, NULL, 0, 0, false);
	boundaries(d, h->t->size ? h->t->size - 1 : 0, 0);
}

/* Memory time per layout row: a record of field T.a.b counts for T's row
 * and the rows of a and a.b (the rows of members without a name, which no
 * path names, get none). */
static void layout_memtime(const ds_session *s, memtime *mt, tb *b)
{
	ds_hash *ix;
	ds_vec_u32 head = {0}, next = {0};
	ds_buf key = {0};

	if (!mt)
		return;
	ix = ds_hash_new();
	for (size_t r = 0; r < b->v.n; r++) {
		const ds_row *row = &b->v.v[r];
		const char *kind = row->cells[DL_KIND].s, *field = row->cells[DL_FIELD].s;
		bool added;
		size_t k;
		if (!kind || !row->cells[DL_TYPE].s || (strcmp(kind, "type") && !field))
			continue;
		ds_buf_reset(&key);
		ds_buf_printf(&key, "%s\x01%s", row->cells[DL_TYPE].s, strcmp(kind, "type") ? field : "");
		k = ds_hash_intern(ix, key.p, key.len, &added);
		if (added)
			ds_vec_push(&head, UINT32_MAX);
		ds_vec_push(&next, head.v[k]);
		head.v[k] = (uint32_t)r;
	}
	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *x = &s->srecs.v[i];
		const dobj *d;
		size_t len;
		if (x->dobj < 0 || !mt_wants(mt, x->ev) || !ds_srec_kept(s, i))
			continue;
		d = &s->dobjs.v[x->dobj];
		if (d->kind != DOBJ_FIELD || !d->type || !d->path)
			continue;
		len = strlen(d->path);
		for (size_t at = 0; at <= len; at++) {
			int64_t k;
			/* the type's row, then each member on the path */
			if (at && at < len && d->path[at] != '.' && d->path[at] != '[')
				continue;
			ds_buf_reset(&key);
			ds_buf_printf(&key, "%s\x01%.*s", d->type, (int)at, d->path);
			if ((k = ds_hash_find(ix, key.p, key.len)) >= 0)
				for (uint32_t r = head.v[k]; r != UINT32_MAX; r = next.v[r])
					mt_add(mt, r, i);
		}
	}
	for (size_t r = 0; r < b->v.n; r++)
		mt_cells(mt, r, &b->v.v[r], DL_NCOLS);
	ds_hash_free(ix);
	ds_vec_free(&head);
	ds_vec_free(&next);
	ds_buf_free(&key);
}

int ds_view_datalayout(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[DL_NCOLS] = {
		{"kind", DS_COL_STR, false},  {"type", DS_COL_STR, false},   {"field", DS_COL_STR, false},
		{"offset", DS_COL_U64, true}, {"size", DS_COL_U64, true},
		{"bits", DS_COL_STR, true},   {"share", DS_COL_PERCENT, true},
		{"order", DS_COL_U64, false}};
	ds_view_opts all = {.sort = "order"};
	ds_view_opts none = {0};
	unsigned sizes[4];
	const char *names[4];
	size_t nhot, shown = 0;
	int rc;
	hot_type *hot = NULL;
	dl_build d = {0};
	memtime *mt;

	if (!o)
		o = &none;
	if (ds_dataspace_build(s, err))
		return -1;
	d.s = s;
	d.sizes = sizes;
	d.names = names;
	d.nsizes = line_sizes(s, o, sizes, names);
	nhot = hot_types(s, o->type, &hot);
	if (o->type && !nhot) {
		free(hot);
		return ds_err_set(err, DS_EINPUT,
				  "no samples touched type '%s' (see --view dataobjects for the types that were)",
				  o->type);
	}
	mt = mt_tb_init(&d.b, s, "datalayout", "member", cols, DL_NCOLS);
	d.b.t->tree = true;
	d.b.t->order = DS_ORDER_KIDS;
	d.b.t->diff_key = "type,field"; /* a diff names a member type.field */
	for (size_t i = 0; i < nhot && (!o->limit || shown < o->limit); i++, shown++)
		layout_type(&d, &hot[i]);
	free(hot);
	layout_memtime(s, mt, &d.b);
	rc = tb_finish(&d.b, &all, out, err);
	mt_free(mt);
	if (rc)
		return rc;
	ds_say_timer(*out);
	return 0;
}

/* ---- lineuse: the types (and other objects) that waste fetched bytes ---- */

enum { LU_KIND, LU_SIZE, LU_LINES, LU_TOUCHED, LU_TOUCHED_PCT, LU_FETCHED, LU_USED, LU_LINE_USE, LU_WASTED,
       LU_NCOLS };

static int cmp_wasted(const void *pa, const void *pb, void *arg)
{
	const ds_row *a = pa, *b = pb;
	uint64_t x = a->cells[LU_WASTED].u, y = b->cells[LU_WASTED].u;
	return x != y ? (x > y ? -1 : 1) : tb_cmp_ties(arg, a, b);
}

/* The lines of a lineuse row, simulated: fetched, used per line, their
 * use, the bytes wasted. */
static void lineuse_sim(ds_row *r, size_t lines_ev, size_t used_ev, unsigned l1)
{
	char per[32];
	uint64_t fetched = r->count[lines_ev], used = r->count[used_ev];

	if (!fetched)
		return;
	tb_cell_u64(r, LU_FETCHED, fetched);
	snprintf(per, sizeof per, "%.1f", (double)used / (double)fetched);
	tb_cell_str(r, LU_USED, per);
	set_line_use(r, LU_LINE_USE, lines_ev, used_ev, l1);
	tb_cell_u64(r, LU_WASTED, fetched * l1 > used ? fetched * l1 - used : 0);
}

int ds_view_lineuse(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[LU_NCOLS] = {
		{"kind", DS_COL_STR, true},           {"size", DS_COL_U64, true},
		{"lines", DS_COL_U64, true},          {"touched", DS_COL_U64, true},
		{"touched_pct", DS_COL_PERCENT, true}, {"fetched", DS_COL_U64, true},
		{"used_per_line", DS_COL_STR, true},  {"line_use", DS_COL_PERCENT, true},
		{"wasted", DS_COL_U64, true}};
	ds_view_opts all = {.sort = o ? o->sort : NULL};
	size_t lines_ev = 0, used_ev = 0, nhot;
	bool sim;
	unsigned l1;
	hot_type *hot = NULL;
	tb b;
	int rc;

	if (ds_dataspace_build(s, err))
		return -1;
	sim = line_use_events(s, &lines_ev, &used_ev);
	l1 = ds_l1d_line(s);
	tb_init(&b, s, "lineuse", "data object", cols, LU_NCOLS, false);
	nhot = hot_types(s, NULL, &hot);
	for (size_t i = 0; i < nhot; i++) {
		const hot_type *h = &hot[i];
		uint64_t size = h->t->size, lines = instance_lines(s, h->tid, size, l1);
		double touched = touched_bytes(s, h->tid, h->t);
		size_t ri = tb_row(&b, &h->tid, sizeof h->tid, h->name, NULL);
		ds_row *r = &b.v.v[ri];

		member_metrics(s, h->tid, "", r->samples, r->count);
		tb_cell_str(r, LU_KIND, "type");
		tb_cell_u64(r, LU_SIZE, size);
		tb_cell_u64(r, LU_LINES, lines);
		tb_cell_u64(r, LU_TOUCHED, (uint64_t)(touched + 0.5));
		if (size) {
			r->cells[LU_TOUCHED_PCT].d = 100.0 * touched / (double)size;
			r->cells[LU_TOUCHED_PCT].set = true;
		}
		if (sim) {
			lineuse_sim(r, lines_ev, used_ev, l1);
		} else if (lines) {
			/* the samples' estimate: the row's samples, each a visit
			 * that fetched its lines, times the share of them unused */
			double unused = 1.0 - touched / ((double)lines * l1);
			uint64_t n = 0;
			for (size_t e = 0; e < s->npev; e++)
				n += r->samples[e];
			tb_cell_u64(r, LU_WASTED, (uint64_t)((double)n * unused * l1 * lines + 0.5));
		}
	}
	free(hot);
	/* simulated, the other objects that fetch lines: heap blocks,
	 * globals, the stack */
	for (size_t i = 0; sim && i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		size_t ri;
		ds_row *r;
		if (d->tid >= 0 || d->kind == DOBJ_NOMEM || d->kind == DOBJ_TOOL ||
		    !s->dobj_count.v[i * s->nev + lines_ev])
			continue;
		ri = tb_row(&b, d->name, strlen(d->name), d->name, NULL);
		r = &b.v.v[ri];
		add_dobj_metrics(s, r, i);
		tb_cell_str(r, LU_KIND, ds_dobj_kind_name(d->kind));
		lineuse_sim(r, lines_ev, used_ev, l1);
	}
	if ((rc = tb_finish(&b, &all, out, err)))
		return rc;
	if (!all.sort)
		ds_sort_r((*out)->rows, (*out)->nrows, sizeof *(*out)->rows, cmp_wasted, *out);
	tb_cut(*out, o ? o->limit : 0);
	tb_prop(*out, "line", DS_PROP_NUMBER, "%u", l1);
	tb_prop(*out, "note", DS_PROP_TEXT, "%s",
		sim ? "fetched: lines the simulated L1 fetched for the object (sim:L1D_EVICT); used_per_line: the "
		      "bytes of each used before it left; wasted: the bytes fetched and never used"
		    : "touched: the bytes of an instance a visit uses, estimated from its members' samples; "
		      "wasted: the row's samples times the bytes of the lines an instance spans that a visit "
		      "leaves unused (an estimate; record with --sim -e sim:L1D_EVICT for exact bytes)");
	ds_say_timer(*out);
	return 0;
}

/* ---- data-object metrics for other printers of types (dsprof layout) ---- */

int ds_session_hot_types(ds_session *s, const struct ds_type ***out, size_t *n, ds_err *err)
{
	hot_type *hot = NULL;
	if (ds_dataspace_build(s, err))
		return -1;
	*n = hot_types(s, NULL, &hot);
	*out = ds_xcalloc(*n ? *n : 1, sizeof **out);
	for (size_t i = 0; i < *n; i++)
		(*out)[i] = hot[i].t;
	free(hot);
	return 0;
}

int ds_session_member_metrics(ds_session *s, const struct ds_type *t, const char *path, uint64_t *samples,
			      uint64_t *count, ds_err *err)
{
	if (ds_dataspace_build(s, err))
		return -1;
	memset(samples, 0, s->nev * sizeof *samples);
	memset(count, 0, s->nev * sizeof *count);
	member_metrics(s, ds_tident_find(s, t), path ? path : "", samples, count);
	return 0;
}

int ds_session_layout_metrics(ds_session *s, const ds_layout *l, size_t i, uint64_t *samples, uint64_t *count,
			      ds_err *err)
{
	if (ds_dataspace_build(s, err))
		return -1;
	memset(samples, 0, s->nev * sizeof *samples);
	memset(count, 0, s->nev * sizeof *count);
	if (i < l->nrows)
		row_metrics(s, ds_tident_find(s, l->type), l, i, samples, count, 0);
	return 0;
}
