/*
 * Memory objects and filters over a session.
 *
 * The machine is the one the experiment was recorded on (its meta.json)
 * or a model file; the objects come from memobj/.  A filter is compiled
 * once, and its string operands are mapped to the filter's ids once per
 * function and per data object, so that judging a sample is integer
 * arithmetic over its record.  Setting a filter marks the records it keeps
 * and sums only those into the aggregates every view reads.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* The experiment's machine; a recording that kept none (an imported
 * perf.data) made on this very machine gets this machine's. */
static void experiment_machine(ds_session *s)
{
	ds_err e = {0};

	ds_machine_from_meta(&s->machine, &s->meta);
	if (s->machine.ncaches || s->machine.page_size || !s->same_machine)
		return;
	ds_machine_fini(&s->machine);
	ds_machine_sysfs(&s->machine, &e);
	ds_session_note_add(s, "the experiment does not describe its machine; memory objects use this "
			       "machine's caches and pages (the one it was recorded on)");
}

static void machine_ready(ds_session *s)
{
	if (!s->machine.source)
		experiment_machine(s);
}

static int make_mobjs(ds_session *s, ds_err *err)
{
	if (s->mobjs_ready)
		return 0;
	machine_ready(s);
	ds_mobjs_init(&s->mobjs, &s->machine);
	if (ds_mobjs_add_user(&s->mobjs, NULL, err))
		goto fail;
	for (size_t i = 0; i < s->mobj_args.n; i++)
		if (ds_mobjs_add_option(&s->mobjs, s->mobj_args.v[i], err))
			goto fail;
	s->mobjs_ready = true;
	return 0;
fail:
	ds_mobjs_fini(&s->mobjs);
	return -1;
}

static void mobjs_drop(ds_session *s)
{
	if (s->mobjs_ready)
		ds_mobjs_fini(&s->mobjs);
	s->mobjs_ready = false;
}

int ds_session_set_machine(ds_session *s, const char *model, ds_err *err)
{
	ds_machine m;
	char *text;

	if (ds_machine_load(&m, model, err))
		return -1;
	mobjs_drop(s);
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

int ds_session_add_mobj(ds_session *s, const char *arg, ds_err *err)
{
	if (make_mobjs(s, err) || ds_mobjs_add_option(&s->mobjs, arg, err))
		return -1;
	ds_vec_push(&s->mobj_args, ds_xstrdup(arg));
	return 0;
}

const ds_mobjs *ds_session_mobjs(ds_session *s, ds_err *err)
{
	return make_mobjs(s, err) ? NULL : &s->mobjs;
}

/* Where physical addresses come from, for the errors that miss them. */
#define NO_PADDR_HINT                                                                   \
	"physical addresses come with page-fault samples recorded as root "              \
	"('dsprof record -e page-faults'; see docs/memory-objects.md)"

const ds_mobj *ds_session_mobj(ds_session *s, const char *name, ds_err *err)
{
	const ds_mobj *o;

	if (make_mobjs(s, err) || !(o = ds_mobjs_find(&s->mobjs, name, err)))
		return NULL;
	if (o->needs_paddr) {
		if (ds_dataspace_build(s, err))
			return NULL;
		if (!s->has_paddr) {
			ds_err_set(err, DS_EINPUT,
				   "memory object '%s' needs physical addresses (PADDR), and experiment '%s' "
				   "has none: " NO_PADDR_HINT, name, s->path);
			return NULL;
		}
	}
	return o;
}

int ds_session_line_size(ds_session *s, const char *level, bool fallback, unsigned *line, ds_err *err)
{
	const ds_cache_level *c;

	if (!level)
		level = "L1D";
	if (strcmp(level, "L1D") != 0 && strcmp(level, "L2") != 0 && strcmp(level, "L3") != 0)
		return ds_err_set(err, DS_EINPUT, "unknown cache level '%s' (L1D, L2 or L3)", level);
	machine_ready(s);
	if (fallback && !s->machine.ncaches) {
		*line = DS_DEFAULT_LINE;
		ds_session_note_add(s, "the experiment describes no caches: cache lines are taken as %u bytes "
				       "(give --line-size N, or a machine model with --machine FILE)",
				    DS_DEFAULT_LINE);
		return 0;
	}
	c = ds_machine_level(&s->machine, level);
	if (!c || !c->line)
		return ds_err_set(err, DS_EINPUT,
				  "the machine of '%s' (%s) has no %s cache; give a machine model "
				  "(--machine FILE) or a line size (--line N)",
				  s->path, s->machine.source, level);
	*line = c->line;
	return 0;
}

/* ---- the filter ---- */

const char *ds_untagged(const char *type_name)
{
	static const char *const tags[] = {"struct ", "class ", "union ", "enum "};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strncmp(type_name, tags[i], strlen(tags[i])) == 0)
			return type_name + strlen(tags[i]);
	return type_name;
}

/* C++ names go by their last scopes too, as perf and gdb take them:
 * FUNC == "sum_weights" and "Store::sum_weights" keep
 * shop::Store::sum_weights; DOBJ == "struct Item<double>", "Item<double>"
 * and "shop::Item<double>" keep struct shop::Item<double> (FIELD the same,
 * with ".path" after).  The filter's string for the longest such name of
 * name[0..len) (after its tag, "struct ", when it has one), followed by
 * tail; -1 when none. */
static int32_t last_scopes(const ds_expr *f, const char *name, size_t len, const char *tail)
{
	size_t tag = (size_t)(ds_untagged(name) - name);
	int depth = 0;
	int32_t id = -1;
	ds_buf b = {0};

	for (size_t p = tag; p < len && id < 0; p++) {
		bool start = p == tag || (!depth && p >= 2 && name[p - 2] == ':' && name[p - 1] == ':');
		if (name[p] == '<' || name[p] == '(')
			depth++;
		else if ((name[p] == '>' || name[p] == ')') && depth > 0)
			depth--;
		if (!start)
			continue;
		/* the tag and this suffix (not the whole name: that is its own), then the suffix alone */
		for (int with_tag = tag && p > tag; with_tag >= 0 && id < 0; with_tag--) {
			if (p == tag && !with_tag && !tag)
				continue;
			ds_buf_reset(&b);
			ds_buf_printf(&b, "%.*s%.*s%s", with_tag ? (int)tag : 0, name, (int)(len - p), name + p, tail);
			id = ds_filter_string_id(f, ds_buf_str(&b));
		}
	}
	ds_buf_free(&b);
	return id;
}

/* The ids of a data object's names for the filter's string operands:
 * DOBJ is the type of a field (and of padding, and of what a string
 * function did to the type) and the object itself otherwise; FIELD only exists for fields and padding.  A type told apart
 * from others of its name by where it is declared ("struct node
 * (tu2.c:3)") also goes by its name alone (id[DOBJ_ALIAS]): DOBJ ==
 * "struct node" keeps every definition of struct node. */
enum { DOBJ_NAME, DOBJ_ALIAS, FIELD_NAME, FIELD_ALIAS, DOBJ_NIDS };

static void dobj_strings(const ds_session *s, const ds_expr *f, const dobj *o, int32_t *id)
{
	const tident *ti = o->tid >= 0 ? &s->tidents.v[o->tid] : NULL;
	bool member = o->kind == DOBJ_FIELD;
	/* what a string function did to a type is the type's */
	bool of_type = member || (o->kind == DOBJ_VIA && o->tid >= 0);

	id[DOBJ_NAME] = ds_filter_string_id(f, of_type && o->type ? o->type : o->name);
	id[FIELD_NAME] = member ? ds_filter_string_id(f, o->name) : -1;
	id[DOBJ_ALIAS] = id[FIELD_ALIAS] = -1;
	if (ti && ti->name[ti->base]) {
		char *base = ds_xstrndup(ti->name, ti->base), *field = ds_xasprintf("%s.%s", base, o->path);
		id[DOBJ_ALIAS] = ds_filter_string_id(f, base);
		id[FIELD_ALIAS] = member ? ds_filter_string_id(f, field) : -1;
		free(base);
		free(field);
	}
	if (ti && of_type && id[DOBJ_ALIAS] < 0)
		id[DOBJ_ALIAS] = last_scopes(f, ti->name, ti->base, "");
	if (ti && member && id[FIELD_ALIAS] < 0) {
		char *tail = ds_xasprintf(".%s", o->path);
		id[FIELD_ALIAS] = last_scopes(f, ti->name, ti->base, tail);
		free(tail);
	}
}

static int32_t function_alias(const ds_expr *f, const char *name)
{
	return last_scopes(f, name, strlen(name), "");
}

#define ID_UNSET INT32_MIN

static void mark_kept(ds_session *s, const ds_expr *f)
{
	unsigned uses = ds_expr_uses(f);
	int32_t *fn = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *fn);
	int32_t *fn_alias = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *fn_alias);
	int32_t(*obj)[DOBJ_NIDS] = ds_xcalloc(s->dobjs.n ? s->dobjs.n : 1, sizeof *obj);
	ds_access a = {.str = {-1, -1, -1}, .alias = {-1, -1, -1}};

	for (size_t i = 0; i < s->sites.n; i++)
		fn[i] = ID_UNSET;
	for (size_t i = 0; i < s->dobjs.n; i++)
		dobj_strings(s, f, &s->dobjs.v[i], obj[i]);
	s->keep.n = 0;
	ds_vec_reserve(&s->keep, s->srecs.n / 64 + 1);
	memset(s->keep.v, 0, (s->srecs.n / 64 + 1) * sizeof *s->keep.v);
	s->keep.n = s->srecs.n / 64 + 1;
	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *r = &s->srecs.v[i];
		ds_srec_operands(s, i, &a);
		if (uses & DS_USES_FUNC) {
			if (fn[r->site] == ID_UNSET) {
				ds_site_resolve(s, r->site, false);
				fn[r->site] = ds_filter_string_id(f, site_fname(s, r->site));
				fn_alias[r->site] = function_alias(f, site_fname(s, r->site));
			}
			a.str[DS_FUNC] = fn[r->site];
			a.alias[DS_FUNC] = fn_alias[r->site];
		}
		a.str[DS_DOBJ] = obj[r->dobj][DOBJ_NAME];
		a.alias[DS_DOBJ] = obj[r->dobj][DOBJ_ALIAS];
		a.str[DS_FIELD] = obj[r->dobj][FIELD_NAME];
		a.alias[DS_FIELD] = obj[r->dobj][FIELD_ALIAS];
		if (ds_filter_match(f, &a))
			s->keep.v[i / 64] |= 1ull << (i % 64);
	}
	free(fn);
	free(fn_alias);
	free(obj);
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

/* Mark the filter's strings (seen[op * nstr + id]) that one of a session's
 * sampled functions or data objects goes by. */
static void mark_names(ds_session *s, const ds_expr *f, bool *seen, size_t nstr)
{
#define SEEN(op, id) do { if ((id) >= 0) seen[(size_t)(op) * nstr + (size_t)(id)] = true; } while (0)
	for (size_t i = 0; i < s->sites.n; i++) {
		const char *fn;
		ds_site_resolve(s, i, false);
		fn = site_fname(s, i);
		SEEN(DS_FUNC, ds_filter_string_id(f, fn));
		SEEN(DS_FUNC, function_alias(f, fn));
	}
	for (size_t i = 0; i < s->dobjs.n; i++) {
		int32_t id[DOBJ_NIDS];
		dobj_strings(s, f, &s->dobjs.v[i], id);
		SEEN(DS_DOBJ, id[DOBJ_NAME]);
		SEEN(DS_DOBJ, id[DOBJ_ALIAS]);
		SEEN(DS_FIELD, id[FIELD_NAME]);
		SEEN(DS_FIELD, id[FIELD_ALIAS]);
	}
#undef SEEN
}

/* A session's names of kind op nearest `want`, into n. */
static void near_names(const ds_session *s, int op, const char *want, size_t len, nearest *n)
{
	for (size_t k = 0; op == DS_FUNC && k < s->sites.n; k++)
		consider(n, want, len, site_fname(s, k));
	for (size_t k = 0; op != DS_FUNC && k < s->dobjs.n; k++) {
		const dobj *o = &s->dobjs.v[k];
		if (op == DS_FIELD && o->kind != DOBJ_FIELD)
			continue;
		consider(n, want, len, op == DS_DOBJ && o->kind == DOBJ_FIELD ? o->type : o->name);
	}
}

/* A name the filter compares FUNC, DOBJ or FIELD with that no sampled
 * function or data object goes by (of the session, or of the one it is
 * compared with) is a mistake, not a question whose answer is nothing: an
 * error naming it, with the nearest names there are. */
static int check_names(ds_session *s, const ds_expr *f, ds_err *err)
{
	static const char *const what[DS_NSTR_OPERANDS] = {"function", "data object", "field"};
	ds_session *side[2] = {s, s->partner};
	int nsides = s->partner ? 2 : 1, rc = 0;
	size_t nstr = 0;
	bool *seen;

	for (int op = 0; op < DS_NSTR_OPERANDS; op++)
		for (size_t i = 0, id; (id = (size_t)ds_filter_compared(f, op, i)) != (size_t)-1; i++)
			nstr = id + 1 > nstr ? id + 1 : nstr;
	if (!nstr)
		return 0;
	if (s->partner && (ds_session_load(s->partner, 0, err) || ds_dataspace_build(s->partner, err)))
		return -1;
	seen = ds_xcalloc(nstr * DS_NSTR_OPERANDS, sizeof *seen);
	for (int k = 0; k < nsides; k++)
		mark_names(side[k], f, seen, nstr);
	for (int op = 0; op < DS_NSTR_OPERANDS && !rc; op++) {
		int32_t id;
		for (size_t i = 0; !rc && (id = ds_filter_compared(f, op, i)) >= 0; i++) {
			nearest n = {{NULL}, {0}};
			size_t len;
			const char *want = ds_filter_string(f, id, &len);
			ds_buf b = {0};

			if (seen[(size_t)op * nstr + (size_t)id])
				continue;
			for (int k = 0; k < nsides; k++)
				near_names(side[k], op, want, len, &n);
			ds_buf_printf(&b, "filter: no sampled %s is named '%.*s' in '%s'%s%s%s", what[op], (int)len,
				      want, s->path, s->partner ? " or '" : "", s->partner ? s->partner->path : "",
				      s->partner ? "'" : "");
			for (int k = 0; k < 3 && n.name[k]; k++)
				ds_buf_printf(&b, "%s'%s'", k ? ", " : "; nearest: ", n.name[k]);
			if (!n.name[0])
				ds_buf_puts(&b, op == DS_FUNC ? "; see --view functions" : "; see --view dataobjects");
			rc = ds_err_set(err, DS_EINPUT, "%s", ds_buf_str(&b));
			ds_buf_free(&b);
		}
	}
	free(seen);
	return rc;
}

void ds_session_pair(ds_session *s, ds_session *other)
{
	s->partner = other;
}

int ds_session_set_filter(ds_session *s, const char *text, ds_err *err)
{
	ds_expr *f = NULL;

	if (text && !*text)
		text = NULL;
	if (!text && !s->filter)
		return 0;
	if (text && (make_mobjs(s, err) || ds_filter_compile(text, &s->machine, &s->mobjs, &f, err)))
		return -1;
	if (ds_session_load(s, 0, err) || ds_dataspace_build(s, err)) {
		ds_expr_free(f);
		return -1;
	}
	if (f && check_names(s, f, err)) {
		ds_expr_free(f);
		return -1;
	}
	if (f && (ds_expr_uses(f) & (1u << DS_PADDR)) && !s->has_paddr) {
		ds_expr_free(f);
		return ds_err_set(err, DS_EINPUT,
				  "the filter reads physical addresses (PADDR), and experiment '%s' has none: "
				  NO_PADDR_HINT, s->path);
	}
	ds_expr_free(s->filter);
	free(s->filter_text);
	s->filter = f;
	s->filter_text = text ? ds_xstrdup(text) : NULL;
	s->unfiltered_samples = s->srecs.n;
	if (f)
		mark_kept(s, f);
	else
		s->keep.n = 0;
	if (ds_session_recount(s, err))
		return -1;
	ds_dataspace_recount(s);
	return 0;
}

const char *ds_session_filter(const ds_session *s)
{
	return s->filter_text;
}

void ds_session_mobjs_free(ds_session *s)
{
	mobjs_drop(s);
	ds_machine_fini(&s->machine);
	for (size_t i = 0; i < s->mobj_args.n; i++)
		free(s->mobj_args.v[i]);
	ds_vec_free(&s->mobj_args);
	ds_expr_free(s->filter);
	free(s->filter_text);
	ds_vec_free(&s->keep);
}
