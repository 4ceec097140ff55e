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
	memcpy(t->rows, out, t->nrows * sizeof *out);
	free(out);
	free(used);
}

int ds_view_dataobjects(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[DO_NCOLS] = {
		{"kind", DS_COL_STR, true}, {"type", DS_COL_STR, false}, {"field", DS_COL_STR, false}};
	ds_view_opts all = {o ? o->sort : NULL, 0};
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

/* --type-stats: how every sample was (or was not) resolved. */
enum { TS_GROUP, TS_SAMPLES, TS_SHARE, TS_NCOLS };

static void stat_row(tb *b, const char *group, const char *what, uint64_t n, uint64_t total)
{
	char name[96];
	size_t r;
	if (!n)
		return;
	snprintf(name, sizeof name, "%s: %s", group, what);
	r = tb_row(b, name, strlen(name), name, NULL);
	tb_cell_str(&b->v.v[r], TS_GROUP, group);
	tb_cell_u64(&b->v.v[r], TS_SAMPLES, n);
	b->v.v[r].cells[TS_SHARE].d = total ? 100.0 * (double)n / (double)total : 0;
	b->v.v[r].cells[TS_SHARE].set = true;
}

int ds_view_typestats(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[TS_NCOLS] = {
		{"group", DS_COL_STR, true}, {"samples", DS_COL_U64, true}, {"percent", DS_COL_DOUBLE, true}};
	ds_view_opts keep = {o && o->sort ? o->sort : "samples", 0};
	uint64_t user = 0, resolved = 0, found = 0;
	tb b;

	if (ds_dataspace_build(s, err))
		return -1;
	for (int v = 0; v < DS_BT_NVERDICTS; v++)
		user += s->verdict_samples[v];
	found = s->verdict_samples[DS_BT_OK];
	for (int h = HOW_NONE + 1; h < HOW_NHOW; h++)
		resolved += s->how_samples[h];
	tb_init(&b, s, "typestats", "outcome", cols, TS_NCOLS, false);
	b.t->has_metrics = false;
	for (int v = 0; v < DS_BT_NVERDICTS; v++)
		stat_row(&b, "backtrack", ds_bt_verdict_name((enum ds_bt_verdict)v), s->verdict_samples[v], user);
	for (int h = 0; h < HOW_NHOW; h++)
		stat_row(&b, "resolution", ds_how_name((enum ds_how)h), s->how_samples[h], user);
	for (size_t i = 0; i < s->dobjs.n; i++)
		if (s->dobjs.v[i].kind == DOBJ_UNKNOWN) {
			uint64_t n = 0;
			for (size_t e = 0; e < s->nev; e++)
				n += s->dobj_samples.v[i * s->nev + e];
			stat_row(&b, "unknown", s->dobjs.v[i].path, n, user);
		}
	stat_row(&b, "address", "from the sample", s->ea_from_addr, user);
	stat_row(&b, "address", "from the registers", s->ea_from_regs, user);
	stat_row(&b, "address", "registers changed", s->ea_regs_changed, user);
	stat_row(&b, "address", "unknown", s->ea_none, user);
	tb_prop(b.t, "user_samples", DS_PROP_NUMBER, "%llu", (unsigned long long)user);
	tb_prop(b.t, "trigger_found", DS_PROP_NUMBER, "%llu", (unsigned long long)found);
	tb_prop(b.t, "resolved", DS_PROP_NUMBER, "%llu", (unsigned long long)resolved);
	tb_prop(b.t, "resolved_pct_of_memory_samples", DS_PROP_NUMBER, "%.1f",
		found ? 100.0 * (double)resolved / (double)found : 0.0);
	tb_prop(b.t, "addresses_checked", DS_PROP_NUMBER, "%llu", (unsigned long long)s->ea_checked);
	tb_prop(b.t, "address_disagreements", DS_PROP_NUMBER, "%llu", (unsigned long long)s->ea_disagree);
	return tb_finish(&b, &keep, out, err);
}
