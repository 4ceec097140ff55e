/*
 * Views of the dataspace: data objects (types and their fields, globals,
 * stack, unknown buckets) and how samples were resolved.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_name(enum dobj_kind k)
{
	switch (k) {
	case DOBJ_FIELD: return "field";
	case DOBJ_PADDING: return "padding";
	case DOBJ_GLOBAL: return "global";
	case DOBJ_STACK: return "stack";
	case DOBJ_SCALAR: return "scalars";
	case DOBJ_KERNEL: return "kernel";
	case DOBJ_UNKNOWN: return "unknown";
	}
	return "?";
}

enum { DO_KIND, DO_TYPE, DO_FIELD, DO_NCOLS };

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
		if (used[i] || !kind || !strcmp(kind, "field") || !strcmp(kind, "padding"))
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

int ds_view_dataobjects(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[DO_NCOLS] = {
		{"kind", DS_COL_STR, true}, {"type", DS_COL_STR, false}, {"field", DS_COL_STR, false}};
	ds_view_opts all = {.sort = o ? o->sort : NULL};
	tb b;
	int rc;

	if (ds_dataspace_build(s, err))
		return -1;
	tb_init(&b, s, "dataobjects", "data object", cols, DO_NCOLS, false);
	for (size_t i = 0; i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		bool added, any = false;
		size_t r;
		for (size_t e = 0; e < s->nev; e++)
			any |= s->dobj_samples.v[i * s->nev + e] != 0;
		if (!any)
			continue; /* named on the way to a better answer, never sampled */
		r = tb_row(&b, d->name, strlen(d->name), d->name, &added);
		if (added) {
			tb_cell_str(&b.v.v[r], DO_KIND, kind_name(d->kind));
			tb_cell_str(&b.v.v[r], DO_TYPE, d->type);
			tb_cell_str(&b.v.v[r], DO_FIELD, d->path);
		}
		add_dobj_metrics(s, &b.v.v[r], i);
		if (d->kind == DOBJ_FIELD || d->kind == DOBJ_PADDING) {
			/* the type's own row sums its fields */
			char key[512];
			snprintf(key, sizeof key, "type\x01%s", d->type);
			r = tb_row(&b, key, strlen(key), d->type, &added);
			if (added) {
				tb_cell_str(&b.v.v[r], DO_KIND, "type");
				tb_cell_str(&b.v.v[r], DO_TYPE, d->type);
			}
			add_dobj_metrics(s, &b.v.v[r], i);
		}
	}
	/* sort everything, then regroup, then cut */
	if ((rc = tb_finish(&b, &all, out, err)))
		return rc;
	group_fields(*out);
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
	for (size_t i = 0; i < s->dobjs.n; i++)
		if (s->dobjs.v[i].kind == DOBJ_UNKNOWN) {
			uint64_t n = 0;
			for (size_t e = 0; e < s->nev; e++)
				n += s->dobj_samples.v[i * s->nev + e];
			stat_add(&v, 3, s->dobjs.v[i].path, n);
		}
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
	return tb_finish(&b, &keep, out, err);
}

/* ---- datalayout: each hot type's members in offset order ---- */

enum { DL_KIND, DL_TYPE, DL_FIELD, DL_OFFSET, DL_SIZE, DL_BITS, DL_SHARE, DL_ORDER, DL_NCOLS };

typedef struct hot_type {
	const ds_type *t;
	const char *name;
	uint64_t samples;     /* first event, all fields */
} hot_type;

static int cmp_hot(const void *a, const void *b)
{
	const hot_type *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool type_matches(const char *name, const char *want)
{
	const char *sp;
	if (strcmp(name, want) == 0)
		return true;
	/* "node" names "struct node" */
	sp = strchr(name, ' ');
	return sp && strcmp(sp + 1, want) == 0;
}

/* One aggregate in two handles on a binary (or in two binaries that share
 * a header): same kind, name, size and members at the same places. */
static bool same_type(const ds_type *a, const ds_type *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind || a->size != b->size || a->nmembers != b->nmembers ||
	    !a->name != !b->name || (a->name && strcmp(a->name, b->name) != 0))
		return false;
	for (size_t i = 0; i < a->nmembers; i++) {
		const ds_member *x = &a->members[i], *y = &b->members[i];
		if (x->offset != y->offset || x->bit_offset != y->bit_offset || x->bit_size != y->bit_size ||
		    !x->name != !y->name || (x->name && strcmp(x->name, y->name) != 0))
			return false;
	}
	return true;
}

/* Types with samples on their fields, hottest first; `want` keeps one name. */
static size_t hot_types(const ds_session *s, const char *want, hot_type **out)
{
	DS_VEC(hot_type) v = {0};
	for (size_t i = 0; i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		size_t k;
		if (!d->t || (want && !type_matches(d->type, want)))
			continue;
		for (k = 0; k < v.n && !same_type(v.v[k].t, d->t); k++)
			;
		if (k == v.n)
			ds_vec_push(&v, ((hot_type){d->t, d->type, 0}));
		for (size_t e = 0; e < s->nev; e++)
			v.v[k].samples += s->dobj_samples.v[i * s->nev + e];
	}
	ds_sort(v.v, v.n, sizeof *v.v, cmp_hot);
	/* types named on the way to another answer, or whose samples the
	 * filter left out, come last: they have none */
	while (v.n && !v.v[v.n - 1].samples)
		v.n--;
	*out = v.v;
	return v.n;
}

/* Metrics of a member: its own field and everything nested in it ("b"
 * sums "b.c" and "b.d" when b is a struct shown as one member); the empty
 * path sums the whole type.  samples and count have one slot per event. */
static void member_metrics(const ds_session *s, const ds_type *t, const char *path, uint64_t *samples,
			   uint64_t *count)
{
	size_t pl = strlen(path);
	for (size_t i = 0; i < s->dobjs.n; i++) {
		const dobj *d = &s->dobjs.v[i];
		if (!d->t || !same_type(d->t, t))
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

typedef struct dl_build {
	tb b;
	uint64_t order;
} dl_build;

static ds_row *dl_row(dl_build *d, const char *kind, const char *type, const char *name)
{
	uint64_t key = d->order;
	size_t r = tb_row(&d->b, &key, sizeof key, name, NULL);
	ds_row *row = &d->b.v.v[r];
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

/* Where instances start relative to a line of `line` bytes, as seen in the
 * samples: the most common start, how often, and what it costs when an
 * instance touches more lines than it would if it were aligned. */
static void alignment_row(dl_build *d, const ds_session *s, const hot_type *h, unsigned line)
{
	uint64_t total = 0, best = 0, best_res = 0, *per = ds_xcalloc(line, sizeof *per);
	size_t distinct = 0;
	ds_buf name = {0};

	for (size_t i = 0; i < ds_hash_count(s->align_index); i++) {
		const struct {
			const void *t;
			uint64_t residue;
		} *k = ds_hash_key(s->align_index, i, NULL);
		if (k->t == h->t)
			for (size_t e = 0; e < s->nev; e++)
				per[k->residue % line] += s->align_samples.v[i * s->nev + e];
	}
	for (unsigned r = 0; r < line; r++) {
		total += per[r];
		distinct += per[r] != 0;
		if (per[r] > best) {
			best = per[r];
			best_res = r;
		}
	}
	free(per);
	if (!total)
		return;
	ds_buf_printf(&name, "  instances start at byte %llu of a %u-byte line in %.0f%% of samples (%zu offsets seen)",
		      (unsigned long long)best_res, line, 100.0 * (double)best / (double)total, distinct);
	if (h->t->size) {
		uint64_t aligned = (h->t->size + line - 1) / line;
		uint64_t touched = (best_res + h->t->size + line - 1) / line;
		if (touched > aligned)
			ds_buf_printf(&name, ": each spans %llu lines, %llu if aligned", (unsigned long long)touched,
				      (unsigned long long)aligned);
	}
	dl_row(d, "alignment", h->name, name.p)->note = true;
	ds_buf_free(&name);
}

/* The cache-line boundaries of every drawn size up to offset, one row per
 * size: like pahole, lines that begin inside one long member are not drawn
 * one by one; the member carries a "[spans N lines]" note instead. */
static void boundaries(dl_build *d, const hot_type *h, uint64_t *next, const unsigned *sizes,
		       const char **names, size_t nsizes, uint64_t offset, unsigned depth)
{
	for (size_t z = 0; z < nsizes; z++) {
		uint64_t last = offset - offset % sizes[z];
		ds_buf name = {0};
		ds_row *row;
		if (next[z] > offset)
			continue;
		for (unsigned k = 0; k <= depth; k++)
			ds_buf_puts(&name, "  ");
		ds_buf_printf(&name, "--- %s%sline %llu (%llu bytes) ---", names[z] ? names[z] : "",
			      names[z] ? " " : "", (unsigned long long)(last / sizes[z]), (unsigned long long)last);
		row = dl_row(d, "boundary", h->name, name.p);
		row->note = true;
		tb_cell_u64(row, DL_OFFSET, last);
		next[z] = last + sizes[z];
		ds_buf_free(&name);
	}
}

static double share(const ds_row *r, const ds_row *type_row)
{
	return type_row->samples[0] ? 100.0 * (double)r->samples[0] / (double)type_row->samples[0] : 0;
}

/* Under a member shown as one row (a named struct or union, an array), the
 * deeper fields that have samples, each on its own row: "v.f" under "v". */
static void nested_rows(dl_build *d, const ds_session *s, const hot_type *h, const char *path,
			unsigned depth, size_t type_row)
{
	size_t pl = strlen(path);
	ds_buf name = {0};
	for (size_t i = 0; i < s->dobjs.n; i++) {
		const dobj *o = &s->dobjs.v[i];
		bool any = false;
		ds_row *row;
		if (!o->t || !same_type(o->t, h->t) || !o->path || strncmp(o->path, path, pl) != 0 ||
		    (o->path[pl] != '.' && o->path[pl] != '['))
			continue;
		for (size_t e = 0; e < s->nev; e++)
			any |= s->dobj_samples.v[i * s->nev + e] != 0;
		if (!any)
			continue;
		ds_buf_reset(&name);
		for (unsigned k = 0; k <= depth + 1; k++)
			ds_buf_puts(&name, "  ");
		ds_buf_puts(&name, o->path);
		row = dl_row(d, "nested", h->name, name.p);
		tb_cell_str(row, DL_FIELD, o->path);
		add_dobj_metrics(s, row, i);
		row->cells[DL_SHARE].d = share(row, &d->b.v.v[type_row]);
		row->cells[DL_SHARE].set = true;
	}
	ds_buf_free(&name);
}

static void layout_type(dl_build *d, const ds_session *s, const hot_type *h, const unsigned *sizes,
			const char **names, size_t nsizes, ds_err *err)
{
	ds_layout *l = ds_layout_build(h->t, sizes[0], err);
	uint64_t next[4];
	size_t type_row;
	ds_buf name = {0};
	ds_row *row;

	if (!l)
		return;
	for (size_t z = 0; z < nsizes; z++)
		next[z] = sizes[z];
	row = dl_row(d, "type", h->name, h->name);
	type_row = d->b.v.n - 1;
	tb_cell_u64(row, DL_SIZE, h->t->size);
	member_metrics(s, h->t, "", row->samples, row->count);
	alignment_row(d, s, h, sizes[0]);
	for (size_t i = 0; i < l->nrows; i++) {
		const ds_layout_row *lr = &l->rows[i];
		const char *kind;
		ds_buf_reset(&name);
		for (unsigned k = 0; k <= lr->depth; k++)
			ds_buf_puts(&name, "  ");
		switch (lr->kind) {
		case DS_LROW_MEMBER:
			if (!lr->path || lr->pointee)
				continue; /* a pointee's members belong to another object */
			kind = "member";
			ds_buf_puts(&name, lr->path);
			if (lr->bit_size)
				ds_buf_printf(&name, ":%u", lr->bit_size);
			break;
		case DS_LROW_HOLE:
			kind = "hole";
			ds_buf_printf(&name, "<hole: %llu bytes>", (unsigned long long)lr->size);
			break;
		case DS_LROW_BIT_HOLE:
			kind = "hole";
			ds_buf_printf(&name, "<hole: %u bits>", lr->bit_size);
			break;
		case DS_LROW_PADDING:
			kind = "padding";
			ds_buf_printf(&name, "<padding: %llu bytes>", (unsigned long long)lr->size);
			break;
		default:
			continue;
		}
		boundaries(d, h, next, sizes, names, nsizes, lr->offset, lr->depth);
		for (size_t z = 0; z < nsizes && lr->kind == DS_LROW_MEMBER; z++) {
			uint64_t first = lr->offset / sizes[z];
			uint64_t lines = (lr->offset + (lr->size ? lr->size : 1) - 1) / sizes[z] - first + 1;
			if (lines > 1)
				ds_buf_printf(&name, "  [spans %llu %u-byte lines]", (unsigned long long)lines,
					      sizes[z]);
		}
		row = dl_row(d, kind, h->name, name.p);
		row->note = lr->kind != DS_LROW_MEMBER;
		tb_cell_str(row, DL_FIELD, lr->kind == DS_LROW_MEMBER ? lr->path : NULL);
		tb_cell_u64(row, DL_OFFSET, lr->offset);
		tb_cell_u64(row, DL_SIZE, lr->size);
		if (lr->bit_size) {
			char bits[32];
			snprintf(bits, sizeof bits, "%u..%u", lr->bit_offset, lr->bit_offset + lr->bit_size - 1);
			tb_cell_str(row, DL_BITS, bits);
		}
		if (lr->kind == DS_LROW_MEMBER) {
			member_metrics(s, h->t, lr->path, row->samples, row->count);
			row->cells[DL_SHARE].d = share(row, &d->b.v.v[type_row]);
			row->cells[DL_SHARE].set = true;
			nested_rows(d, s, h, lr->path, lr->depth, type_row);
		}
	}
	boundaries(d, h, next, sizes, names, nsizes, h->t->size ? h->t->size - 1 : 0, 0);
	ds_buf_free(&name);
	ds_layout_free(l);
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
	size_t nsizes, nhot, shown = 0;
	hot_type *hot = NULL;
	dl_build d = {0};

	if (!o)
		o = &none;
	if (ds_dataspace_build(s, err))
		return -1;
	nsizes = line_sizes(s, o, sizes, names);
	nhot = hot_types(s, o->type, &hot);
	if (o->type && !nhot) {
		free(hot);
		return ds_err_set(err, DS_EINPUT,
				  "no samples touched type '%s' (see --view dataobjects for the types that were)",
				  o->type);
	}
	tb_init(&d.b, s, "datalayout", "member", cols, DL_NCOLS, false);
	d.b.t->diff_key = "type,field"; /* rows are indented text; a diff names them type.field */
	for (size_t i = 0; i < nhot && (!o->limit || shown < o->limit); i++, shown++)
		layout_type(&d, s, &hot[i], sizes, names, nsizes, err);
	free(hot);
	return tb_finish(&d.b, &all, out, err);
}

/* ---- data-object metrics for other printers of types (dsprof layout) ---- */

size_t ds_session_nevents(const ds_session *s)
{
	return s->nev;
}

const char *ds_session_event_name(const ds_session *s, size_t ev)
{
	return ds_perfdata_event(s->pd, ev)->name;
}

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
	member_metrics(s, t, path ? path : "", samples, count);
	return 0;
}
