/*
 * Filters: the samples an expression over their dimensions accepts.
 *
 * Every dimension (dims.c) but mobj:NAME is an operand, by its name
 * (function, thread, field...) and the capital name Oracle's analyzer
 * gave the first three (FUNC, DOBJ, FIELD); memory objects are read with
 * MOBJ(name), and the address, thread, CPU, PC and time of the access with
 * VADDR, THRID, CPUID, VIRTPC and TSTAMP (docs/memory-objects.md).  A
 * filter is compiled once; a dimension's value is mapped to the filter's
 * strings once per value, so that judging a sample is integer arithmetic
 * over its record.  Setting a filter marks the records it keeps and sums
 * only those into the aggregates every view reads.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- the filter ---- */

int ds_session_set_machine(ds_session *s, const char *model, ds_err *err)
{
	ds_machine m;
	char *text;

	if (ds_machine_load(&m, model, err))
		return -1;
	ds_mobjs_drop(s);
	ds_machine_fini(&s->machine);
	s->machine = m;
	if (!s->filter_text)
		return 0;
	/* the filter's constants were the old machine's */
	text = ds_xstrdup(s->filter_text);
	free(s->filter_text);
	s->filter_text = NULL;
	ds_expr_free(s->filter);
	s->filter = NULL;
	if (ds_session_set_filter(s, text, err)) {
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* The filter's operands, as ds_filter_compile takes them. */
typedef struct fops {
	ds_filter_operand op[DS_MAX_FILTER_OPERANDS];
	size_t n;
} fops;

/* One operand the filter reads, prepared for a session: its dimension,
 * and per value the ids of the filter's strings it goes by. */
typedef struct fop {
	dim *d;
	bool string;
	DS_VEC(int32_t) ids;  /* per value: [2 id, 2 id + 1] = its name's, another's; INT32_MIN not yet */
} fop;

static void fop_ids(fop *o, const ds_expr *f, uint32_t id, int32_t *str, int32_t *alias)
{
	while (o->ids.n <= 2 * (size_t)id + 1)
		ds_vec_push(&o->ids, INT32_MIN);
	if (o->ids.v[2 * id] == INT32_MIN)
		dim_filter_ids(o->d, id, f, &o->ids.v[2 * id], &o->ids.v[2 * id + 1]);
	*str = o->ids.v[2 * id];
	*alias = o->ids.v[2 * id + 1];
}

static void fops_free(fop *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dim_free(v[i].d);
		ds_vec_free(&v[i].ids);
	}
	free(v);
}

/* The operands filter f reads, prepared for session s. */
static fop *prepare(ds_session *s, const ds_expr *f, const fops *ops, ds_err *err)
{
	fop *v = ds_xcalloc(ops->n + 1, sizeof *v);
	uint32_t used = ds_filter_ops_used(f);

	for (size_t k = 0; k < ops->n; k++) {
		if (!(used >> k & 1))
			continue;
		v[k].string = ops->op[k].string;
		if (!(v[k].d = dim_new(s, ops->op[k].name, NULL, err))) {
			fops_free(v, ops->n);
			return NULL;
		}
	}
	return v;
}

static void mark_kept(ds_session *s, const ds_expr *f, const fops *ops, fop *v)
{
	int64_t op[DS_MAX_FILTER_OPERANDS];
	int32_t alias[DS_MAX_FILTER_OPERANDS];
	ds_access a = {.op = op, .alias = alias};

	s->keep.n = 0;
	ds_vec_reserve(&s->keep, s->srecs.n / 64 + 1);
	memset(s->keep.v, 0, (s->srecs.n / 64 + 1) * sizeof *s->keep.v);
	s->keep.n = s->srecs.n / 64 + 1;
	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *r = &s->srecs.v[i];
		ds_srec_operands(s, i, &a);
		for (size_t k = 0; k < ops->n; k++) {
			if (!v[k].d)
				continue;
			if (v[k].string) {
				int32_t str;
				fop_ids(&v[k], f, dim_id(v[k].d, i, r), &str, &alias[k]);
				op[k] = str;
			} else if (!dim_record_number(v[k].d, i, r, &op[k])) {
				op[k] = -1;
			}
		}
		if (ds_filter_match(f, &a))
			s->keep.v[i / 64] |= 1ull << (i % 64);
	}
}

/* ---- names that nothing goes by ---- */

/* How far apart two names are: the edits between them (Levenshtein, on
 * their first 128 bytes), 0 when one holds the other (a part of a name;
 * a name of fewer than 4 bytes is part of too many to say so). */
static size_t name_distance(const char *a, size_t na, const char *b)
{
	size_t nb = strlen(b), row[129];

	if (memmem(b, nb, a, na) || (nb >= 4 && memmem(a, na, b, nb)))
		return 0;
	na = na > 128 ? 128 : na;
	nb = nb > 128 ? 128 : nb;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

/* Up to 3 names nearest the one wanted, nearest first. */
typedef struct nearest {
	const char *name[3];
	size_t dist[3];
} nearest;

static void consider(nearest *n, const char *want, size_t len, const char *name)
{
	size_t d;
	int at;

	if (!name || name[0] == '[' || name[0] == '<')
		return;
	for (int i = 0; i < 3; i++)
		if (n->name[i] && strcmp(n->name[i], name) == 0)
			return;
	d = name_distance(want, len, name);
	/* names far from it are no hint: more edits than a third of its length */
	if (d > len / 3 + 1)
		return;
	for (at = 3; at > 0 && (!n->name[at - 1] || d < n->dist[at - 1]); at--)
		;
	if (at == 3)
		return;
	memmove(&n->name[at + 1], &n->name[at], (size_t)(2 - at) * sizeof n->name[0]);
	memmove(&n->dist[at + 1], &n->dist[at], (size_t)(2 - at) * sizeof n->dist[0]);
	n->name[at] = name;
	n->dist[at] = d;
}

/* Mark the filter's strings (seen[op * nstr + id]) that a value of one of
 * the session's string operands goes by: of a sample, or of a frame of its
 * call chain (a caller is a function that was sampled too). */
static void mark_names(ds_session *s, const ds_expr *f, const fops *ops, fop *v, bool *seen, size_t nstr)
{
#define SEEN(op, id) do { if ((id) >= 0) seen[(op) * nstr + (size_t)(id)] = true; } while (0)
	for (size_t k = 0; k < ops->n; k++) {
		int32_t str, alias;
		if (!v[k].d || !v[k].string)
			continue;
		for (size_t i = 0; i < s->srecs.n; i++) {
			const ds_srec *r = &s->srecs.v[i];
			uint32_t id = dim_id(v[k].d, i, r);
			fop_ids(&v[k], f, id, &str, &alias);
			SEEN(k, str);
			SEEN(k, alias);
			if (!(v[k].d->def->flags & DIM_CHAIN) || r->chain == UINT32_MAX)
				continue;
			for (size_t c = 0, n = 1; c < n; c++) {
				const uint32_t *ids = dim_chain_ids(v[k].d, r->chain, &n);
				fop_ids(&v[k], f, ids[c], &str, &alias);
				SEEN(k, str);
				SEEN(k, alias);
			}
		}
	}
#undef SEEN
}

/* How an error names an operand's values. */
static const char *values_of(const char *op)
{
	return strcmp(op, "dataobject") == 0 ? "data object" : op;
}

/* Where the names of an operand's values are listed. */
static const char *see_also(const char *op)
{
	if (strcmp(op, "function") == 0)
		return "--view functions";
	if (strcmp(op, "dataobject") == 0 || strcmp(op, "field") == 0)
		return "--view dataobjects";
	return "--by KEY";
}

/* A name the filter compares a string operand with that no value of the
 * session (or of the one it is compared with) goes by is a mistake, not a
 * question whose answer is nothing: an error naming it, with the nearest
 * names there are. */
static int check_names(ds_session *s, const ds_expr *f, const fops *ops, fop *v, ds_err *err)
{
	fop *pv = NULL;
	int nsides = s->partner ? 2 : 1, rc = 0;
	size_t nstr = 0;
	bool *seen;

	for (size_t op = 0; op < ops->n; op++)
		for (size_t i = 0, id; (id = (size_t)ds_filter_compared(f, op, i)) != (size_t)-1; i++)
			nstr = id + 1 > nstr ? id + 1 : nstr;
	if (!nstr)
		return 0;
	if (s->partner && (ds_session_load(s->partner, 0, err) || ds_dataspace_build(s->partner, err) ||
			   !(pv = prepare(s->partner, f, ops, err))))
		return -1;
	seen = ds_xcalloc(nstr * ops->n, sizeof *seen);
	mark_names(s, f, ops, v, seen, nstr);
	if (pv)
		mark_names(s->partner, f, ops, pv, seen, nstr);
	for (size_t op = 0; op < ops->n && !rc; op++) {
		int32_t id;
		for (size_t i = 0; !rc && (id = ds_filter_compared(f, op, i)) >= 0; i++) {
			nearest n = {{NULL}, {0}};
			size_t len;
			const char *want = ds_filter_string(f, id, &len);
			ds_buf b = {0};

			if (seen[op * nstr + (size_t)id])
				continue;
			for (int k = 0; k < nsides; k++) {
				dim *d = (k ? pv : v)[op].d;
				for (uint32_t x = 0; x < d->raw.n; x++)
					consider(&n, want, len, dim_value_name(d, x));
			}
			ds_buf_printf(&b, "filter: no sampled %s is named '%.*s' in '%s'%s%s%s",
				      values_of(ops->op[op].name), (int)len, want, s->path, s->partner ? " or '" : "",
				      s->partner ? s->partner->path : "", s->partner ? "'" : "");
			for (int k = 0; k < 3 && n.name[k]; k++)
				ds_buf_printf(&b, "%s'%s'", k ? ", " : "; nearest: ", n.name[k]);
			if (!n.name[0])
				ds_buf_printf(&b, "; see %s", see_also(ops->op[op].name));
			if (s->opts.lenient_names) {
				ds_vec_push(&s->filter_misses, ds_xstrndup(want, len));
				ds_vec_push(&s->filter_misses, ds_buf_steal(&b));
				continue;
			}
			rc = ds_err_set(err, DS_EINPUT, "%s", ds_buf_str(&b));
			ds_buf_free(&b);
		}
	}
	free(seen);
	if (pv)
		fops_free(pv, ops->n);
	return rc;
}

void ds_session_pair(ds_session *s, ds_session *other)
{
	s->partner = other;
}

int ds_session_set_filter(ds_session *s, const char *text, ds_err *err)
{
	ds_expr *f = NULL;
	fops ops;
	fop *v = NULL;

	if (text && !*text)
		text = NULL;
	if (!text && !s->filter)
		return 0;
	ops.n = ds_dim_filter_operands(ops.op, DS_MAX_FILTER_OPERANDS);
	if (text && (!ds_session_mobjs(s, err) ||
		     ds_filter_compile(text, &s->machine, &s->mobjs, ops.op, ops.n, &f, err)))
		return -1;
	for (size_t i = 0; i < s->filter_misses.n; i++)
		free(s->filter_misses.v[i]);
	s->filter_misses.n = 0;
	if (ds_session_load(s, 0, err) || ds_dataspace_build(s, err) || (f && !(v = prepare(s, f, &ops, err))) ||
	    (f && check_names(s, f, &ops, v, err))) {
		ds_expr_free(f);
		if (v)
			fops_free(v, ops.n);
		return -1;
	}
	if (f && (ds_expr_uses(f) & (1u << DS_PADDR)) && !s->has_paddr) {
		ds_expr_free(f);
		fops_free(v, ops.n);
		return ds_err_set(err, DS_EINPUT,
				  "the filter reads physical addresses (PADDR), and experiment '%s' has none: "
				  NO_PADDR_HINT, s->path);
	}
	ds_expr_free(s->filter);
	free(s->filter_text);
	s->filter = f;
	s->filter_text = text ? ds_xstrdup(text) : NULL;
	s->unfiltered_samples = s->srecs.n;
	if (f) {
		mark_kept(s, f, &ops, v);
		fops_free(v, ops.n);
	} else {
		s->keep.n = 0;
	}
	ds_session_recount(s);
	ds_dataspace_recount(s);
	return 0;
}

const char *ds_session_filter(const ds_session *s)
{
	return s->filter_text;
}

void ds_filter_free(ds_session *s)
{
	ds_expr_free(s->filter);
	free(s->filter_text);
	ds_vec_free(&s->keep);
	for (size_t i = 0; i < s->filter_misses.n; i++)
		free(s->filter_misses.v[i]);
	ds_vec_free(&s->filter_misses);
}

const char *ds_session_filter_miss(const ds_session *s, size_t i, const char **name)
{
	if (2 * i >= s->filter_misses.n)
		return NULL;
	*name = s->filter_misses.v[2 * i];
	return s->filter_misses.v[2 * i + 1];
}
