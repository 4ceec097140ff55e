/*
 * dsprof diff: one view of two experiments, side by side (analyze.h).
 *
 * Rows are matched by name, never by address: a second build of a program
 * puts every function and object somewhere else, but a function, a source
 * line and a struct field keep their names.  Each side's rows are first
 * folded by (name, object): the rows of one function that the compiler
 * cloned (foo, foo.constprop.0) become one.  Then the sides are paired by
 * (name, object), and what is left by name alone when exactly one row of
 * that name is left on each side, which matches a program whose binary
 * was renamed without pairing the [unknown] rows of two libraries.
 *
 * Counts (the sums of the samples' periods) are what compare: two
 * recordings with different periods, or one in frequency mode, count the
 * same events in the same unit.  A change that sampling alone could make
 * is marked as noise, so the verdict does not send anyone after it.
 *
 * Sampling is not the only noise: two runs of one program differ by more
 * (other load on the machine, layout, timing).  When each side merges
 * several runs (ds_merger, ds_table.nruns), every row and total gets the
 * 95% confidence interval of its change across runs (Welch's t), and a
 * change whose interval holds zero is no significant change.  With one run
 * a side, the verdict says that it cannot tell.
 */
#include "analyze/analyze_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { BEFORE, AFTER };

#define VERDICT_ROWS 5      /* rows per event in the verdict */
#define VERDICT_SHARE 100   /* ...each moved by at least 1/100 of the larger total */
#define VERDICT_NAMES 3     /* clones and renamed objects named in the verdict */

static const char *const side_name[2] = {"BEFORE", "AFTER"};

/* ---- row names across experiments ---- */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Remove GCC's clone suffixes: ".constprop.N", ".isra.N", ".part.N",
 * ".lto_priv.N", ".clone.N", ".cold.N" wherever they end a word (no C
 * name or member path contains them), and in names of functions ".cold"
 * and ".localalias" too (elsewhere they could be a member's name). */
static void strip_clones(char *s, bool function)
{
	static const char *const numbered[] = {".constprop.", ".isra.", ".part.", ".lto_priv.", ".clone.",
					       ".cold."};
	static const char *const plain[] = {".cold", ".localalias"};
	char *w = s;
	const char *p = s;

	while (*p) {
		size_t n = 0;
		for (size_t k = 0; *p == '.' && p > s && !n && k < sizeof numbered / sizeof *numbered; k++) {
			size_t l = strlen(numbered[k]);
			if (strncmp(p, numbered[k], l) != 0 || !isdigit((unsigned char)p[l]))
				continue;
			while (isdigit((unsigned char)p[l]))
				l++;
			if (!ident_char(p[l]))
				n = l;
		}
		for (size_t k = 0; function && *p == '.' && p > s && !n && k < sizeof plain / sizeof *plain; k++) {
			size_t l = strlen(plain[k]);
			if (strncmp(p, plain[k], l) == 0 && !ident_char(p[l]))
				n = l;
		}
		if (n)
			p += n;
		else
			*w++ = *p++;
	}
	*w = 0;
}

static size_t find_col(const ds_table *t, const char *name, size_t len)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strlen(t->cols[c].name) == len && strncmp(t->cols[c].name, name, len) == 0)
			return c;
	return (size_t)-1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A key column's value as a diff matches it: a list ("struct a, <scalars>,
 * struct b", as a line's data objects) is a set of its named items, in
 * order; the <...> buckets count only when nothing is named. */
static void key_value(ds_buf *b, const char *v)
{
	DS_VEC(char *) items = {0};
	bool named = false;

	if (!strstr(v, ", ")) {
		ds_buf_puts(b, v);
		return;
	}
	for (const char *p = v; *p; p += strspn(p, ", ")) {
		size_t len = strcspn(p, ",");
		ds_vec_push(&items, ds_xstrndup(p, len));
		named |= *p != '<';
		p += len;
	}
	ds_sort(items.v, items.n, sizeof *items.v, cmp_str);
	for (size_t i = 0, n = 0; i < items.n; i++) {
		if (!named || items.v[i][0] != '<')
			ds_buf_printf(b, "%s%s", n++ ? ", " : "", items.v[i]);
		free(items.v[i]);
	}
	ds_vec_free(&items);
}

/* Remove the line numbers of wheres: "struct node (tu2.c:4).v" is
 * "struct node (tu2.c).v", "(a/n.h:3 #2)" is "(a/n.h #2)".  A where is the
 * last thing in parentheses that ends in ":LINE", or ":LINE #N". */
static void strip_lines(char *s)
{
	char *w = s;
	const char *p = s;

	while (*p) {
		const char *close = *p == ':' && isdigit((unsigned char)p[1]) ? p + 1 : NULL;
		while (close && isdigit((unsigned char)*close))
			close++;
		if (close && close[0] == ' ' && close[1] == '#')
			for (close += 2; isdigit((unsigned char)*close); close++)
				;
		if (close && *close == ')' && memchr(s, '(', (size_t)(p - s))) {
			p += strspn(p + 1, "0123456789") + 1;
			continue;
		}
		*w++ = *p++;
	}
	*w = 0;
}

/* The name a row goes by in both experiments (malloc'd): its own, or the
 * values of the view's diff_key columns joined by '.'; the same without
 * clone suffixes in *key. */
static void row_key(const ds_table *t, const ds_row *r, char **name, char **key)
{
	ds_buf b = {0};
	const char *p = t->diff_key;

	while (p && *p) {
		size_t len = strcspn(p, ","), c = find_col(t, p, len);
		if (c != (size_t)-1 && r->cells[c].set && t->cols[c].kind == DS_COL_STR && r->cells[c].s) {
			if (b.len)
				ds_buf_putc(&b, '.');
			key_value(&b, r->cells[c].s);
		}
		p += len + (p[len] == ',');
	}
	if (!b.len)
		ds_buf_puts(&b, r->name);
	*name = ds_buf_steal(&b);
	*key = ds_xstrdup(*name);
	strip_clones(*key, t->name_label && strcmp(t->name_label, "function") == 0);
}

/* Whether a diff compares row r (ds_table.diff_rows). */
static bool compared(const ds_table *t, const ds_row *r)
{
	size_t kind = find_col(t, "kind", 4), len;
	const char *k, *p = t->diff_rows;

	if (!p || kind == (size_t)-1)
		return true;
	k = r->cells[kind].set ? r->cells[kind].s : NULL;
	if (!k)
		return false;
	len = strlen(k);
	for (; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		if (strcspn(p, ",") == len && strncmp(p, k, len) == 0)
			return true;
	return false;
}

/* ---- each side's rows, folded by (name, object) ---- */

typedef struct entry {
	char *key;
	const char *module;    /* the view's module column; NULL when none */
	size_t row;            /* its first (hottest) row in the side's table */
	DS_VEC(size_t) rows;   /* all its rows */
	DS_VEC(char *) names;  /* the distinct names of its rows */
	uint64_t *samples, *count; /* per event of the side's table */
	uint64_t *runs;        /* merged runs: per event, each run's count (ds_row.runs) */
	int64_t pair;          /* the other side's entry, -1 */
} entry;

typedef struct side {
	const ds_table *t;
	DS_VEC(entry) v;
	ds_hash *index;        /* key \x01 module -> entry */
} side;

static void side_load(side *sd, const ds_table *t)
{
	size_t mod = find_col(t, "module", 6);
	ds_buf hk = {0};

	sd->t = t;
	sd->index = ds_hash_new();
	if (mod != (size_t)-1 && t->cols[mod].kind != DS_COL_STR)
		mod = (size_t)-1;
	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		char *name, *key;
		const char *module;
		bool added, known = false;
		size_t k;
		entry *e;

		if (r->note)
			continue; /* boundaries, holes, remarks: no metrics */
		if (!compared(t, r))
			continue;
		row_key(t, r, &name, &key);
		module = mod != (size_t)-1 && r->cells[mod].set ? r->cells[mod].s : NULL;
		ds_buf_reset(&hk);
		ds_buf_puts(&hk, key);
		ds_buf_putc(&hk, '\x01');
		ds_buf_puts(&hk, module ? module : "");
		k = ds_hash_intern(sd->index, hk.p, hk.len, &added);
		if (added) {
			entry n = {0};
			n.key = key;
			n.module = module;
			n.row = i;
			n.samples = ds_xcalloc(t->nevents ? t->nevents : 1, sizeof *n.samples);
			n.count = ds_xcalloc(t->nevents ? t->nevents : 1, sizeof *n.count);
			if (t->nruns)
				n.runs = ds_xcalloc(t->nevents * t->nruns + 1, sizeof *n.runs);
			n.pair = -1;
			ds_vec_push(&sd->v, n);
		} else {
			free(key);
		}
		e = &sd->v.v[k];
		ds_vec_push(&e->rows, i);
		for (size_t j = 0; j < e->names.n && !known; j++)
			known = strcmp(e->names.v[j], name) == 0;
		if (known)
			free(name);
		else
			ds_vec_push(&e->names, name);
		for (size_t ev = 0; ev < t->nevents; ev++) {
			e->samples[ev] += r->samples[ev];
			e->count[ev] += r->count[ev];
		}
		for (size_t j = 0; t->nruns && r->runs && j < t->nevents * t->nruns; j++)
			e->runs[j] += r->runs[j];
	}
	ds_buf_free(&hk);
}

static void side_free(side *sd)
{
	for (size_t i = 0; i < sd->v.n; i++) {
		entry *e = &sd->v.v[i];
		free(e->key);
		for (size_t j = 0; j < e->names.n; j++)
			free(e->names.v[j]);
		ds_vec_free(&e->names);
		ds_vec_free(&e->rows);
		free(e->samples);
		free(e->count);
		free(e->runs);
	}
	ds_vec_free(&sd->v);
	ds_hash_free(sd->index);
}

/* Unpaired entries by name alone: how many, and the last one. */
typedef struct by_name {
	ds_hash *index;
	DS_VEC(size_t) n;
	DS_VEC(size_t) last;
} by_name;

/* lineless: by name without the line numbers of wheres (strip_lines). */
static void by_name_load(by_name *bn, const side *sd, bool lineless)
{
	bn->index = ds_hash_new();
	for (size_t i = 0; i < sd->v.n; i++) {
		char *key;
		bool added;
		size_t k;
		if (sd->v.v[i].pair >= 0)
			continue;
		key = ds_xstrdup(sd->v.v[i].key);
		if (lineless)
			strip_lines(key);
		k = ds_hash_intern(bn->index, key, strlen(key), &added);
		free(key);
		if (added) {
			ds_vec_push(&bn->n, 0);
			ds_vec_push(&bn->last, 0);
		}
		bn->n.v[k]++;
		bn->last.v[k] = i;
	}
}

static void by_name_free(by_name *bn)
{
	ds_hash_free(bn->index);
	ds_vec_free(&bn->n);
	ds_vec_free(&bn->last);
}

/* Pair the unpaired entries whose name (lineless: without the lines of
 * wheres) only one entry of each side has. */
static void pair_by_name(side *sd, bool lineless)
{
	by_name bn[2] = {{0}, {0}};

	by_name_load(&bn[BEFORE], &sd[BEFORE], lineless);
	by_name_load(&bn[AFTER], &sd[AFTER], lineless);
	for (size_t k = 0; k < ds_hash_count(bn[BEFORE].index); k++) {
		size_t len;
		const char *key = ds_hash_key(bn[BEFORE].index, k, &len);
		int64_t a = ds_hash_find(bn[AFTER].index, key, len);
		if (bn[BEFORE].n.v[k] == 1 && a >= 0 && bn[AFTER].n.v[a] == 1) {
			size_t i = bn[BEFORE].last.v[k], j = bn[AFTER].last.v[a];
			sd[BEFORE].v.v[i].pair = (int64_t)j;
			sd[AFTER].v.v[j].pair = (int64_t)i;
		}
	}
	by_name_free(&bn[BEFORE]);
	by_name_free(&bn[AFTER]);
}

/* Entries pair by name and object; then by name alone, where one entry
 * of each side has it; then by name without the lines of wheres, so that
 * a type's definition matches its own after lines above it moved
 * ("struct node (tu2.c:4)" and "struct node (tu2.c:5)"). */
static void pair_sides(side *sd)
{
	ds_buf hk = {0};

	for (size_t i = 0; i < sd[BEFORE].v.n; i++) {
		entry *e = &sd[BEFORE].v.v[i];
		int64_t j;
		ds_buf_reset(&hk);
		ds_buf_puts(&hk, e->key);
		ds_buf_putc(&hk, '\x01');
		ds_buf_puts(&hk, e->module ? e->module : "");
		j = ds_hash_find(sd[AFTER].index, hk.p, hk.len);
		if (j >= 0) {
			e->pair = j;
			sd[AFTER].v.v[j].pair = (int64_t)i;
		}
	}
	ds_buf_free(&hk);
	pair_by_name(sd, false);
	pair_by_name(sd, true);
}

/* ---- numbers in sentences, as the text report prints them ---- */

static double change_pct(uint64_t before, uint64_t after)
{
	return 100.0 * ((double)after - (double)before) / (double)before;
}

/* "EVENT B -> A (+D, +C%)": the change of one event */
static void change_text(ds_buf *b, const char *event, uint64_t before, uint64_t after, bool ns)
{
	char x[32], y[32], d[32];
	ds_count_text(x, sizeof x, before, ns);
	ds_count_text(y, sizeof y, after, ns);
	if (before == after) {
		ds_buf_printf(b, "%s %s -> %s (no change)", event, x, y);
		return;
	}
	ds_count_text(d, sizeof d, after >= before ? after - before : before - after, ns);
	ds_buf_printf(b, "%s %s -> %s (%s%s", event, x, y, after >= before ? "+" : "-", d);
	if (before) {
		double c = change_pct(before, after);
		int dec = 1;
		/* -99.99%, not -100.0%, for what did not quite go away */
		for (double half = 0.05; dec < 4 && c < half && c > -half; half /= 10)
			dec++;
		for (double half = 0.05; dec < 4 && c > -100.0 && c <= -100.0 + half; half /= 10)
			dec++;
		if (c >= 1000)
			ds_buf_printf(b, ", %.0fx", (double)after / (double)before);
		else
			ds_buf_printf(b, ", %+.*f%%", dec, c);
	}
	ds_buf_putc(b, ')');
}

/* Whether after - before is within what sampling alone makes likely: a
 * count from n samples of mean period p varies by about p * sqrt(n), so
 * the difference of two has variance nb pb^2 + na pa^2; within two
 * standard deviations is noise.  Events that count every occurrence
 * (period 1 on both sides) have no sampling noise. */
static bool within_noise(const ds_table_event *eb, const ds_table_event *ea, uint64_t nb, uint64_t cb,
			 uint64_t na, uint64_t ca)
{
	double pb, pa, var, d;
	if (eb->period == 1 && ea->period == 1)
		return false;
	pb = nb ? (double)cb / (double)nb : eb->samples ? (double)eb->count / (double)eb->samples : 0;
	pa = na ? (double)ca / (double)na : ea->samples ? (double)ea->count / (double)ea->samples : 0;
	var = (double)nb * pb * pb + (double)na * pa * pa;
	d = (double)ca - (double)cb;
	return d * d < 4 * var;
}

/* ---- run-to-run noise ---- */

/* Student's t at 97.5%, for a two-sided 95% interval with df degrees of
 * freedom: exact values to 30 (a fractional df rounds down, to the wider
 * interval), then the Cornish-Fisher expansion, within 0.001 there. */
static double t975(double df)
{
	static const double exact[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
					 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
					 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	const double z = 1.959964, z2 = z * z;

	if (df < 31)
		return exact[df < 1 ? 0 : (int)df - 1];
	return z + (z2 + 1) * z / (4 * df) + ((5 * z2 + 16) * z2 + 3) * z / (96 * df * df) +
	       (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / (384 * df * df * df) +
	       ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / (92160 * df * df * df * df);
}

/* The 95% interval of mean(a) - mean(b) over runs (Welch's t): false
 * when a side has fewer than two runs, which tell nothing of the spread. */
static bool welch(const uint64_t *b, size_t nb, const uint64_t *a, size_t na, double *lo, double *hi)
{
	double mb = 0, ma = 0, vb = 0, va = 0, se2, df, h;

	if (nb < 2 || na < 2)
		return false;
	for (size_t i = 0; i < nb; i++)
		mb += (double)b[i] / (double)nb;
	for (size_t i = 0; i < na; i++)
		ma += (double)a[i] / (double)na;
	for (size_t i = 0; i < nb; i++)
		vb += ((double)b[i] - mb) * ((double)b[i] - mb) / (double)(nb - 1);
	for (size_t i = 0; i < na; i++)
		va += ((double)a[i] - ma) * ((double)a[i] - ma) / (double)(na - 1);
	se2 = vb / (double)nb + va / (double)na;
	*lo = *hi = ma - mb;
	if (se2 <= 0)
		return true; /* every run counted the same: the change is exact */
	df = se2 * se2 / (vb * vb / ((double)nb * (double)nb * (double)(nb - 1)) +
			  va * va / ((double)na * (double)na * (double)(na - 1)));
	h = t975(df) * sqrt(se2);
	*lo -= h;
	*hi += h;
	return true;
}

/* "+1.23k" */
static void signed_text(ds_buf *b, double v, bool ns)
{
	char x[32];
	ds_count_text(x, sizeof x, (uint64_t)llround(fabs(v)), ns);
	ds_buf_printf(b, "%s%s", v < 0 ? "-" : "+", x);
}

/* "95% interval -1.2k..+3.4k over 5 and 5 runs" */
static void interval_text(ds_buf *b, double lo, double hi, size_t nb, size_t na, bool ns)
{
	ds_buf_puts(b, "95% interval ");
	signed_text(b, lo, ns);
	ds_buf_puts(b, "..");
	signed_text(b, hi, ns);
	ds_buf_printf(b, " over %zu and %zu runs", nb, na);
}

/* ---- building the diff ---- */

typedef DS_VEC(ds_diff_finding) finding_vec;

typedef struct builder {
	ds_diff *d;
	side sd[2];
	int *ev[2];            /* per event of a side's table: its index in the diff table */
	DS_VEC(ds_table_event) events;
	DS_VEC(ds_diff_event) devs;
	DS_VEC(ds_row) rows;
	DS_VEC(ds_col) cols;
	ds_buf colnames;       /* the diff's own column names, '\0' after each */
	size_t ncompared;
	size_t src_cols, status_col, names_col, delta_col;
	bool runs;             /* both sides merge runs: intervals (columns ci_low, ci_high) */
} builder;

static void add_col(builder *b, const char *name, enum ds_col_kind kind, bool text)
{
	ds_col c = {NULL, kind, text};
	ds_vec_push(&b->cols, c);
	ds_buf_append(&b->colnames, name, strlen(name) + 1);
}

/* The table's columns and name label, owned by the table. */
static void set_cols(builder *b, const char *label)
{
	ds_table *t = b->d->table;
	const char *names = b->colnames.p;

	t->cols = ds_xcalloc(b->cols.n + 1, sizeof *t->cols);
	t->ncols = b->cols.n;
	for (size_t c = 0; c < b->cols.n; c++) {
		t->cols[c] = b->cols.v[c];
		t->cols[c].name = names;
		names += strlen(names) + 1;
	}
	t->name_label = label;
	tb_own_names(t);
}

static int check_tables(const ds_table *x, const ds_table *y, ds_err *err)
{
	if (strcmp(x->view, y->view) != 0)
		return ds_err_set(err, DS_EINPUT, "cannot compare view '%s' with view '%s'", x->view, y->view);
	if (!x->has_metrics || !y->has_metrics)
		return ds_err_set(err, DS_EINPUT,
				  "view '%s' has no metrics to compare; compare functions, lines, dataobjects, "
				  "datalayout or another view with metrics",
				  x->view);
	if (x->ncols != y->ncols)
		return ds_err_set(err, DS_EINPUT, "the two '%s' tables have different columns", x->view);
	for (size_t c = 0; c < x->ncols; c++)
		if (strcmp(x->cols[c].name, y->cols[c].name) != 0 || x->cols[c].kind != y->cols[c].kind)
			return ds_err_set(err, DS_EINPUT, "the two '%s' tables have different columns", x->view);
	return 0;
}

static void event_list(ds_buf *b, const ds_table *t)
{
	for (size_t e = 0; e < t->nevents; e++)
		ds_buf_printf(b, "%s%s", e ? ", " : "", t->events[e].name);
}

/* The diff's events: every event of either side, paired by name. */
static int match_events(builder *b, const ds_table *t[2], ds_err *err)
{
	bool *used = ds_xcalloc(t[AFTER]->nevents ? t[AFTER]->nevents : 1, sizeof *used);

	for (int s = 0; s < 2; s++)
		b->ev[s] = ds_xcalloc(t[s]->nevents ? t[s]->nevents : 1, sizeof *b->ev[s]);
	for (size_t i = 0; i < t[BEFORE]->nevents; i++) {
		ds_diff_event de = {ds_xstrdup(t[BEFORE]->events[i].name), (int)i, -1};
		for (size_t j = 0; j < t[AFTER]->nevents && de.after < 0; j++)
			if (!used[j] && strcmp(t[AFTER]->events[j].name, de.name) == 0) {
				de.after = (int)j;
				used[j] = true;
			}
		ds_vec_push(&b->devs, de);
	}
	for (size_t j = 0; j < t[AFTER]->nevents; j++)
		if (!used[j]) {
			ds_diff_event de = {ds_xstrdup(t[AFTER]->events[j].name), -1, (int)j};
			ds_vec_push(&b->devs, de);
		}
	free(used);
	/* table events: before:E then after:E, in that order */
	for (size_t k = 0; k < b->devs.n; k++) {
		ds_diff_event *de = &b->devs.v[k];
		int src[2] = {de->before, de->after};
		for (int s = 0; s < 2; s++) {
			ds_table_event te;
			if (src[s] < 0)
				continue;
			te = t[s]->events[src[s]];
			te.name = ds_xasprintf("%s:%s", s == BEFORE ? "before" : "after", de->name);
			te.run_count = ds_run_counts(&t[s]->events[src[s]]);
			b->ev[s][src[s]] = (int)b->events.n;
			if (s == BEFORE)
				de->before = (int)b->events.n;
			else
				de->after = (int)b->events.n;
			ds_vec_push(&b->events, te);
		}
		b->ncompared += de->before >= 0 && de->after >= 0;
	}
	if (!b->ncompared) {
		ds_buf x = {0}, y = {0};
		event_list(&x, t[BEFORE]);
		event_list(&y, t[AFTER]);
		ds_err_set(err, DS_EINPUT,
			   "the experiments have no event in common (BEFORE: %s; AFTER: %s); record both "
			   "with the same events",
			   ds_buf_str(&x), ds_buf_str(&y));
		ds_buf_free(&x);
		ds_buf_free(&y);
		return -1;
	}
	return 0;
}

static void make_cols(builder *b, const ds_table *src)
{
	b->src_cols = src->ncols;
	for (size_t c = 0; c < src->ncols; c++)
		add_col(b, src->cols[c].name, src->cols[c].kind, src->cols[c].text);
	b->status_col = b->cols.n;
	add_col(b, "status", DS_COL_STR, true);
	b->names_col = b->cols.n;
	add_col(b, "before_name", DS_COL_STR, false);
	add_col(b, "after_name", DS_COL_STR, false);
	b->delta_col = b->cols.n;
	for (size_t k = 0; k < b->devs.n; k++) {
		const ds_diff_event *de = &b->devs.v[k];
		ds_buf n = {0};
		if (de->before < 0 || de->after < 0)
			continue;
		ds_buf_printf(&n, "delta:%s", de->name);
		add_col(b, n.p, b->events.v[de->before].time_ns ? DS_COL_DELTA_NS : DS_COL_DELTA, true);
		ds_buf_reset(&n);
		ds_buf_printf(&n, "change:%s", de->name);
		add_col(b, n.p, DS_COL_CHANGE, true);
		if (b->runs) {
			enum ds_col_kind kind = b->events.v[de->before].time_ns ? DS_COL_DELTA_NS : DS_COL_DELTA;
			ds_buf_reset(&n);
			ds_buf_printf(&n, "ci_low:%s", de->name);
			add_col(b, n.p, kind, true);
			ds_buf_reset(&n);
			ds_buf_printf(&n, "ci_high:%s", de->name);
			add_col(b, n.p, kind, true);
		}
		ds_buf_free(&n);
	}
}

/* The names of an entry's rows, " + " between them, when one is not the
 * diff row's own; else NULL. */
static char *other_names(const entry *e, const char *key)
{
	ds_buf b = {0};
	bool other = false;
	for (size_t j = 0; j < e->names.n; j++)
		other |= strcmp(e->names.v[j], key) != 0;
	for (size_t j = 0; other && j < e->names.n; j++)
		ds_buf_printf(&b, "%s%s", j ? " + " : "", e->names.v[j]);
	return other ? ds_buf_steal(&b) : NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The union of the ids ("12 14 +3": two listed, three more) in column c
 * of an entry's rows: its text, and in *n how many ids it holds (at least
 * the most any row counted in column count_col, for the ids "+N" hid). */
static char *id_union(const ds_table *t, const entry *e, size_t c, size_t count_col, uint64_t *n)
{
	DS_VEC(uint64_t) ids = {0};
	uint64_t most = 0, distinct = 0;
	bool hidden = false;
	ds_buf b = {0};

	for (size_t j = 0; j < e->rows.n; j++) {
		const ds_row *r = &t->rows[e->rows.v[j]];
		const char *p = r->cells[c].set && r->cells[c].s ? r->cells[c].s : "";
		if (count_col < t->ncols && r->cells[count_col].set && r->cells[count_col].u > most)
			most = r->cells[count_col].u;
		while (*p) {
			char *end;
			if (*p == '+')
				hidden = true;
			uint64_t v = strtoull(*p == '+' ? p + 1 : p, &end, 10);
			if (end == p || (*p == '+' && end == p + 1))
				break;
			if (*p != '+')
				ds_vec_push(&ids, v);
			p = end;
			while (*p == ' ')
				p++;
		}
	}
	if (ids.n)
		qsort(ids.v, ids.n, sizeof *ids.v, cmp_u64);
	for (size_t k = 0; k < ids.n; k++) {
		if (k && ids.v[k] == ids.v[k - 1])
			continue;
		if (distinct < DS_IDS_LISTED)
			ds_buf_printf(&b, "%s%" PRIu64, distinct ? " " : "", ids.v[k]);
		distinct++;
	}
	*n = hidden && most > distinct ? most : distinct;
	if (*n > DS_IDS_LISTED)
		ds_buf_printf(&b, " +%" PRIu64, *n - DS_IDS_LISTED);
	ds_vec_free(&ids);
	return ds_buf_steal(&b);
}

/* Cells of an entry's rows made one, as the view says (diff_combine). */
static void combine_cells(const ds_table *t, const entry *e, ds_cell *cells)
{
	/* a view's combine covers its own columns, not memory time's after them */
	for (size_t c = 0; t->diff_combine && e->rows.n > 1 && c + t->own_cols < t->ncols; c++) {
		uint64_t sum = 0, n;
		bool set = false;
		switch (t->diff_combine[c]) {
		case DS_COMBINE_SUM:
			for (size_t j = 0; j < e->rows.n; j++) {
				const ds_cell *x = &t->rows[e->rows.v[j]].cells[c];
				sum += x->set ? x->u : 0;
				set |= x->set;
			}
			cells[c].u = sum;
			cells[c].set = set;
			break;
		case DS_COMBINE_UNION:
			free(cells[c].s);
			cells[c].s = id_union(t, e, c, c > 0 ? c - 1 : t->ncols, &n);
			cells[c].set = cells[c].s[0] != 0;
			break;
		case DS_COMBINE_UNION_COUNT:
			if (c + 1 < t->ncols) {
				free(id_union(t, e, c + 1, c, &n));
				cells[c].u = n;
				cells[c].set = true;
			}
			break;
		default:
			break;
		}
	}
}

/* An entry's count of one event in each run of its side: zeros where it
 * has no row; NULL when the side did not record the event. */
static const uint64_t *entry_runs(const builder *b, int s, const entry *e, int ev_diff, size_t *n,
				  uint64_t **zeros)
{
	const ds_table *t = b->sd[s].t;
	size_t ev;

	for (ev = 0; ev < t->nevents && b->ev[s][ev] != ev_diff; ev++)
		;
	if (ev == t->nevents)
		return NULL;
	*n = t->events[ev].runs;
	if (e)
		return e->runs + ev * t->nruns;
	*zeros = ds_xcalloc(*n + 1, sizeof **zeros);
	return *zeros;
}

/* The cells ci_low and ci_high of a row: its change's 95% interval
 * across the runs of each side. */
static void row_interval(const builder *b, const entry *e[2], const ds_diff_event *de, ds_cell *lo,
			 ds_cell *hi)
{
	uint64_t *zb = NULL, *za = NULL;
	size_t nb = 0, na = 0;
	const uint64_t *rb = entry_runs(b, BEFORE, e[BEFORE], de->before, &nb, &zb);
	const uint64_t *ra = entry_runs(b, AFTER, e[AFTER], de->after, &na, &za);
	double l, h;

	if (rb && ra && welch(rb, nb, ra, na, &l, &h)) {
		lo->u = (uint64_t)(int64_t)llround(l);
		hi->u = (uint64_t)(int64_t)llround(h);
		lo->set = hi->set = true;
	}
	free(zb);
	free(za);
}

static void add_row(builder *b, const entry *e[2])
{
	ds_table *t = b->d->table;
	size_t ne = b->events.n ? b->events.n : 1;
	uint64_t any[2] = {0, 0};
	const entry *from = e[AFTER] ? e[AFTER] : e[BEFORE];
	const ds_table *ft = e[AFTER] ? b->sd[AFTER].t : b->sd[BEFORE].t;
	const ds_row *fr = &ft->rows[from->row];
	ds_row r = {0};
	size_t dc = b->delta_col;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; e[s] && i < b->sd[s].t->nevents; i++)
			any[s] += e[s]->samples[i];
	if (!any[BEFORE] && !any[AFTER])
		return; /* rows of callers only, on both sides */
	r.name = ds_xstrdup(from->key);
	r.cells = ds_xcalloc(t->ncols, sizeof *r.cells);
	r.samples = ds_xcalloc(ne, sizeof *r.samples);
	r.count = ds_xcalloc(ne, sizeof *r.count);
	for (size_t c = 0; c < b->src_cols; c++) {
		r.cells[c] = fr->cells[c];
		r.cells[c].s = fr->cells[c].s ? ds_xstrdup(fr->cells[c].s) : NULL;
	}
	combine_cells(ft, from, r.cells);
	r.cells[b->status_col].s = ds_xstrdup(!any[AFTER] ? "gone" : !any[BEFORE] ? "new" : "both");
	r.cells[b->status_col].set = true;
	for (int s = 0; s < 2; s++) {
		if (!e[s])
			continue;
		r.cells[b->names_col + s].s = other_names(e[s], from->key);
		r.cells[b->names_col + s].set = r.cells[b->names_col + s].s != NULL;
		for (size_t i = 0; i < b->sd[s].t->nevents; i++) {
			r.samples[b->ev[s][i]] = e[s]->samples[i];
			r.count[b->ev[s][i]] = e[s]->count[i];
		}
	}
	for (size_t k = 0; k < b->devs.n; k++) {
		const ds_diff_event *de = &b->devs.v[k];
		uint64_t x, y;
		if (de->before < 0 || de->after < 0)
			continue;
		x = r.count[de->before];
		y = r.count[de->after];
		r.cells[dc].u = (uint64_t)((int64_t)y - (int64_t)x);
		r.cells[dc].set = true;
		if (x) {
			r.cells[dc + 1].d = change_pct(x, y);
			r.cells[dc + 1].set = true;
		}
		dc += 2;
		if (b->runs) {
			row_interval(b, e, de, &r.cells[dc], &r.cells[dc + 1]);
			dc += 2;
		}
	}
	ds_vec_push(&b->rows, r);
}

/* ---- sorting ---- */

enum sort_by { BY_DELTA, BY_CHANGE, BY_BEFORE, BY_AFTER, BY_NAME, BY_COL };

typedef struct dsort {
	enum sort_by by;
	int b, a;              /* the compared event: its indices in the table's events */
	size_t col;
	const ds_table *t;
} dsort;

const char *ds_diff_help_sort(void)
{
	return "delta (default), change, before, after (each as KEY or KEY:EVENT), EVENT (its delta), "
	       "name, or a column name (module, status, ...)";
}

static int parse_sort(const ds_diff *d, const char *spec, dsort *out, ds_err *err)
{
	static const struct {
		const char *key;
		enum sort_by by;
	} keys[] = {{"delta", BY_DELTA}, {"change", BY_CHANGE}, {"before", BY_BEFORE}, {"after", BY_AFTER}};
	const char *colon, *ev = NULL;
	size_t klen;

	memset(out, 0, sizeof *out);
	out->t = d->table;
	out->by = BY_DELTA;
	if (spec && strcmp(spec, "name") == 0) {
		out->by = BY_NAME;
		return 0;
	}
	for (size_t c = 0; spec && c < d->table->ncols; c++)
		if (strcmp(d->table->cols[c].name, spec) == 0) {
			out->by = BY_COL;
			out->col = c;
			return 0;
		}
	if (spec && *spec) {
		bool found = false;
		colon = strchr(spec, ':');
		klen = colon ? (size_t)(colon - spec) : strlen(spec);
		for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !found; k++)
			if (strlen(keys[k].key) == klen && strncmp(spec, keys[k].key, klen) == 0) {
				out->by = keys[k].by;
				ev = colon ? colon + 1 : NULL;
				found = true;
			}
		if (!found)
			ev = spec; /* an event: its delta */
	}
	for (size_t k = 0; k < d->nevents; k++) {
		const ds_diff_event *de = &d->events[k];
		if (de->before < 0 || de->after < 0 || (ev && strcmp(de->name, ev) != 0))
			continue;
		out->b = de->before;
		out->a = de->after;
		return 0;
	}
	if (spec && ev == spec) {
		bool known = false;
		for (size_t k = 0; k < d->nevents; k++)
			known |= strcmp(d->events[k].name, ev) == 0;
		if (!known)
			return ds_err_set(err, DS_EINPUT, "unknown sort key '%s' for a diff; use %s", spec,
					  ds_diff_help_sort());
	}
	return ds_err_set(err, DS_EINPUT, "cannot sort by '%s': '%s' is not an event of both experiments",
			  spec, ev);
}

static double sort_value(const dsort *sp, const ds_row *r)
{
	uint64_t x = r->count[sp->b], y = r->count[sp->a];
	switch (sp->by) {
	case BY_DELTA: return y >= x ? (double)(y - x) : (double)(x - y);
	case BY_CHANGE: {
		double c;
		if (!x)
			return y ? 1e300 : 0; /* from nothing: the largest change */
		c = change_pct(x, y);
		return c < 0 ? -c : c;
	}
	case BY_BEFORE: return (double)x;
	case BY_AFTER: return (double)y;
	default: return 0;
	}
}

static int cmp_diff_rows(const void *pa, const void *pb, void *arg)
{
	const dsort *sp = arg;
	const ds_row *a = pa, *b = pb;
	int c = 0;

	if (sp->by == BY_NAME) {
		c = strcmp(a->name, b->name);
	} else if (sp->by == BY_COL) {
		c = tb_cmp_cells(&sp->t->cols[sp->col], &a->cells[sp->col], &b->cells[sp->col]);
	} else {
		double x = sort_value(sp, a), y = sort_value(sp, b);
		c = x > y ? -1 : x < y; /* largest first */
	}
	return c ? c : tb_cmp_ties(sp->t, a, b);
}

/* ---- the verdict ---- */

static ds_diff_finding *add_finding(finding_vec *v, const char *kind, const char *event, const char *row,
				    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static ds_diff_finding *add_finding(finding_vec *v, const char *kind, const char *event, const char *row,
				    const char *fmt, ...)
{
	ds_diff_finding f = {0};
	ds_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	f.kind = kind;
	f.event = event ? ds_xstrdup(event) : NULL;
	f.row = row ? ds_xstrdup(row) : NULL;
	f.text = ds_buf_steal(&b);
	ds_vec_push(v, f);
	return &v->v[v->n - 1];
}

static void set_counts(ds_diff_finding *f, bool hb, uint64_t b, bool ha, uint64_t a)
{
	f->has_before = hb;
	f->before = b;
	f->has_after = ha;
	f->after = a;
}

static const char *row_status(uint64_t before, uint64_t after)
{
	return !after ? "gone" : !before ? "new" : after > before ? "up" : "down";
}

static void period_text(ds_buf *b, const ds_table_event *e)
{
	if (e->period)
		ds_buf_printf(b, "period %" PRIu64, e->period);
	else
		ds_buf_printf(b, "%" PRIu64 " Hz", e->freq);
}

/* The facts about one event: totals, periods, which side lacks it. */
static void verdict_event(finding_vec *v, const ds_diff *d, const ds_diff_event *de)
{
	const ds_table *t = d->table;
	const ds_table_event *eb, *ea;
	ds_diff_finding *f;
	ds_buf b = {0};
	bool noise, runs;
	double lo, hi;

	if (de->before < 0 || de->after < 0) {
		const ds_table_event *e = &t->events[de->before >= 0 ? de->before : de->after];
		char c[32];
		ds_count_text(c, sizeof c, e->count, e->time_ns);
		f = add_finding(v, "only", de->name, NULL, "%s: only %s recorded it (%s); not compared", de->name,
				side_name[de->before >= 0 ? BEFORE : AFTER], c);
		set_counts(f, de->before >= 0, de->before >= 0 ? e->count : 0, de->after >= 0,
			   de->after >= 0 ? e->count : 0);
		return;
	}
	eb = &t->events[de->before];
	ea = &t->events[de->after];
	runs = eb->run_count && ea->run_count && welch(eb->run_count, eb->runs, ea->run_count, ea->runs, &lo, &hi);
	noise = runs ? lo <= 0 && hi >= 0
		     : eb->count != ea->count &&
			       within_noise(eb, ea, eb->samples, eb->count, ea->samples, ea->count);
	if (ds_event_coherence(de->name))
		ds_buf_puts(&b, "coherence misses: ");
	change_text(&b, de->name, eb->count, ea->count, eb->time_ns);
	if (runs) {
		ds_buf_puts(&b, noise ? ", no significant change (" : ", significant (");
		interval_text(&b, lo, hi, eb->runs, ea->runs, eb->time_ns);
		ds_buf_putc(&b, ')');
	} else if (noise) {
		ds_buf_puts(&b, ", within sampling noise");
	}
	f = add_finding(v, "total", de->name, NULL, "%s", b.p);
	set_counts(f, true, eb->count, true, ea->count);
	f->noise = noise;
	if (eb->period != ea->period || eb->freq != ea->freq) {
		ds_buf_reset(&b);
		ds_buf_printf(&b, "%s: ", de->name);
		period_text(&b, eb);
		ds_buf_puts(&b, " in BEFORE, ");
		period_text(&b, ea);
		ds_buf_puts(&b, " in AFTER: counts (the sums of the periods) compare, samples do not");
		add_finding(v, "period", de->name, NULL, "%s", b.p);
	}
	ds_buf_free(&b);
}

/* The rows of one event that changed most, beyond noise and beyond
 * 1/VERDICT_SHARE of the larger total; kind "row" (or "function"). */
static void verdict_rows(finding_vec *v, const ds_diff *d, const ds_diff_event *de, const char *kind)
{
	const ds_table *t = d->table;
	const ds_table_event *eb = &t->events[de->before], *ea = &t->events[de->after];
	uint64_t total = eb->count > ea->count ? eb->count : ea->count;
	size_t *top = ds_xcalloc(VERDICT_ROWS, sizeof *top), ntop = 0;
	dsort sp = {.by = BY_DELTA, .b = de->before, .a = de->after, .t = t};
	bool noisy = false;
	ds_buf cn = {0};
	size_t lo_col, hi_col;

	ds_buf_printf(&cn, "ci_low:%s", de->name);
	lo_col = find_col(t, cn.p, cn.len);
	ds_buf_reset(&cn);
	ds_buf_printf(&cn, "ci_high:%s", de->name);
	hi_col = find_col(t, cn.p, cn.len);
	ds_buf_free(&cn);
	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		uint64_t x = r->count[de->before], y = r->count[de->after];
		double m = sort_value(&sp, r);
		size_t at;
		bool runs = lo_col != (size_t)-1 && r->cells[lo_col].set;
		if (x == y || m * VERDICT_SHARE < (double)total)
			continue;
		if (runs ? (int64_t)r->cells[lo_col].u <= 0 && (int64_t)r->cells[hi_col].u >= 0
			 : within_noise(eb, ea, r->samples[de->before], x, r->samples[de->after], y)) {
			noisy = true;
			continue;
		}
		for (at = ntop; at > 0 && cmp_diff_rows(r, &t->rows[top[at - 1]], &sp) < 0; at--)
			;
		if (at == VERDICT_ROWS)
			continue;
		if (ntop < VERDICT_ROWS)
			ntop++;
		memmove(top + at + 1, top + at, (ntop - 1 - at) * sizeof *top);
		top[at] = i;
	}
	for (size_t k = 0; k < ntop; k++) {
		const ds_row *r = &t->rows[top[k]];
		uint64_t x = r->count[de->before], y = r->count[de->after];
		ds_buf b = {0};
		ds_diff_finding *f;
		ds_buf_printf(&b, "%s%s: ", strcmp(kind, "function") == 0 ? "in function " : "", r->name);
		change_text(&b, de->name, x, y, eb->time_ns);
		if (!x || !y)
			ds_buf_printf(&b, ", %s", row_status(x, y));
		if (lo_col != (size_t)-1 && r->cells[lo_col].set) {
			ds_buf_puts(&b, " (");
			interval_text(&b, (double)(int64_t)r->cells[lo_col].u, (double)(int64_t)r->cells[hi_col].u,
				      eb->runs, ea->runs, eb->time_ns);
			ds_buf_putc(&b, ')');
		}
		/* for functions, what else they cost */
		for (size_t j = 0; strcmp(kind, "function") == 0 && j < d->nevents; j++) {
			const ds_diff_event *o = &d->events[j];
			if (o == de || o->before < 0 || o->after < 0 ||
			    r->count[o->before] == r->count[o->after])
				continue;
			ds_buf_puts(&b, "; ");
			change_text(&b, o->name, r->count[o->before], r->count[o->after],
				    t->events[o->before].time_ns);
		}
		f = add_finding(v, kind, de->name, r->name, "%s", b.p);
		f->status = row_status(x, y);
		set_counts(f, true, x, true, y);
		ds_buf_free(&b);
	}
	if (!ntop && strcmp(kind, "row") == 0)
		add_finding(v, "none", de->name, NULL, "%s: no %s changed by %s1%% of the total", de->name,
			    t->name_label,
			    !noisy ? "" : lo_col != (size_t)-1 ? "more than run-to-run noise and "
							   : "more than sampling noise and ");
	free(top);
}

/* Whether two names differ in the lines of their wheres only. */
static bool moved(const char *x, const char *y)
{
	char *a = ds_xstrdup(x), *b = ds_xstrdup(y);
	bool same;

	strip_lines(a);
	strip_lines(b);
	same = strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

/* Rows matched across clone suffixes or the lines of their definitions,
 * and objects matched across names. */
static void verdict_names(finding_vec *v, const builder *b)
{
	const ds_table *t = b->d->table;
	size_t n = 0, more = 0;
	DS_VEC(const char *) seen = {0};

	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		const ds_cell *cb = &r->cells[b->names_col], *ca = &r->cells[b->names_col + 1];
		const char *nb = cb->set ? cb->s : r->name, *na = ca->set ? ca->s : r->name;
		if (strcmp(r->cells[b->status_col].s, "both") != 0 || strcmp(nb, na) == 0)
			continue; /* the same clones on both sides */
		if (n++ >= VERDICT_NAMES) {
			more++;
			continue;
		}
		if (moved(nb, na))
			add_finding(v, "moved", NULL, r->name,
				    "%s: %s in BEFORE, %s in AFTER (the type of that name in that file, declared on another line)",
				    r->name, nb, na);
		else
			add_finding(v, "clone", NULL, r->name,
				    "%s: %s in BEFORE, %s in AFTER (compiler clones compare as one function)",
				    r->name, nb, na);
	}
	if (more)
		add_finding(v, "clone", NULL, NULL,
			    "%zu more rows matched under other names (columns before_name, after_name)", more);
	/* objects that changed names: a binary built twice under two names */
	for (size_t i = 0; i < b->sd[BEFORE].v.n; i++) {
		const entry *e = &b->sd[BEFORE].v.v[i], *o;
		bool dup = false;
		if (e->pair < 0 || !e->module)
			continue;
		o = &b->sd[AFTER].v.v[e->pair];
		if (!o->module || strcmp(e->module, o->module) == 0)
			continue;
		for (size_t k = 0; k < seen.n; k += 2)
			dup |= strcmp(seen.v[k], e->module) == 0 && strcmp(seen.v[k + 1], o->module) == 0;
		if (dup)
			continue;
		ds_vec_push(&seen, e->module);
		ds_vec_push(&seen, o->module);
		add_finding(v, "module", NULL, NULL, "%s in BEFORE is %s in AFTER: its rows matched by name",
			    e->module, o->module);
	}
	ds_vec_free(&seen);
}

/* Whether the diff could tell run-to-run noise from change: else say so. */
static void verdict_runs(finding_vec *v, const builder *b)
{
	size_t n[2];

	for (int s = 0; s < 2; s++) {
		const ds_table *t = b->sd[s].t;
		n[s] = t->nruns ? t->nruns : 1;
	}
	if (n[BEFORE] >= 2 && n[AFTER] >= 2)
		return;
	add_finding(v, "runs", NULL, NULL,
		    "%s: run-to-run noise (other load, memory layout, timing) cannot be told from change; "
		    "record each side with --repeat 5 (or more) and compare the groups",
		    n[BEFORE] < 2 && n[AFTER] < 2 ? "one run a side"
		    : n[BEFORE] < 2		  ? "one run in BEFORE"
						  : "one run in AFTER");
}

static void verdict(builder *b, finding_vec *v)
{
	const ds_diff *d = b->d;
	for (size_t k = 0; k < d->nevents; k++)
		verdict_event(v, d, &d->events[k]);
	for (size_t k = 0; k < d->nevents; k++)
		if (d->events[k].before >= 0 && d->events[k].after >= 0)
			verdict_rows(v, d, &d->events[k], "row");
	verdict_names(v, b);
	verdict_runs(v, b);
}

/* ---- the API ---- */

static void builder_free(builder *b)
{
	side_free(&b->sd[BEFORE]);
	side_free(&b->sd[AFTER]);
	free(b->ev[BEFORE]);
	free(b->ev[AFTER]);
	ds_vec_free(&b->cols);
	ds_buf_free(&b->colnames);
}

static int diff_tables(const ds_table *before, const ds_table *after, const ds_diff_opts *o, ds_diff **out,
		       ds_err *err)
{
	const ds_table *t[2] = {before, after};
	builder b = {0};
	finding_vec v = {0};
	ds_diff *d;
	dsort sp;

	*out = NULL;
	if (check_tables(before, after, err))
		return -1;
	d = b.d = ds_xcalloc(1, sizeof *d);
	d->table = ds_xcalloc(1, sizeof *d->table);
	d->table->view = ds_xstrdup(before->view);
	d->table->has_metrics = true;
	b.runs = before->nruns && after->nruns;
	if (match_events(&b, t, err)) {
		d->events = b.devs.v;
		d->nevents = b.devs.n;
		for (size_t i = 0; i < b.events.n; i++) {
			free(b.events.v[i].name);
			free(b.events.v[i].run_count);
		}
		ds_vec_free(&b.events);
		builder_free(&b);
		ds_diff_free(d);
		return -1;
	}
	d->events = b.devs.v;
	d->nevents = b.devs.n;
	d->table->events = b.events.v;
	d->table->nevents = b.events.n;
	make_cols(&b, before);
	set_cols(&b, before->name_label ? before->name_label : "name");

	side_load(&b.sd[BEFORE], before);
	side_load(&b.sd[AFTER], after);
	pair_sides(b.sd);
	for (size_t i = 0; i < b.sd[BEFORE].v.n; i++) {
		const entry *e[2] = {&b.sd[BEFORE].v.v[i], NULL};
		if (e[BEFORE]->pair >= 0)
			e[AFTER] = &b.sd[AFTER].v.v[e[BEFORE]->pair];
		add_row(&b, e);
	}
	for (size_t j = 0; j < b.sd[AFTER].v.n; j++) {
		const entry *e[2] = {NULL, &b.sd[AFTER].v.v[j]};
		if (e[AFTER]->pair < 0)
			add_row(&b, e);
	}
	d->table->rows = b.rows.v;
	d->table->nrows = d->table->total_rows = b.rows.n;

	if (parse_sort(d, o ? o->sort : NULL, &sp, err)) {
		builder_free(&b);
		ds_diff_free(d);
		return -1;
	}
	/* the verdict ranks rows itself; it sees them all, before --limit */
	verdict(&b, &v);
	d->verdict = v.v;
	d->nverdict = v.n;
	ds_sort_r(d->table->rows, d->table->nrows, sizeof *d->table->rows, cmp_diff_rows, &sp);
	tb_cut(d->table, o ? o->limit : 0);
	builder_free(&b);
	*out = d;
	return 0;
}

/* A grouping compares its combinations of keys, each named by its path. */
int ds_diff_tables(const ds_table *before, const ds_table *after, const ds_diff_opts *o, ds_diff **out,
		   ds_err *err)
{
	ds_table *fb, *fa;
	int rc;

	if (!before->flat && !after->flat)
		return diff_tables(before, after, o, out, err);
	fb = tb_flatten(before);
	fa = tb_flatten(after);
	rc = diff_tables(fb, fa, o, out, err);
	ds_table_free(fb);
	ds_table_free(fa);
	return rc;
}

/* ---- the verdict with sessions: shared lines ----
 *
 * The story of a diff of a multi-threaded program is the cache lines its
 * threads share: which stopped being shared (the padding worked), which
 * started (it moved the problem), and how their cost changed.  The lines
 * come from the sharing view, which classifies each (false, true,
 * read-mostly, private); a line is known across experiments by the data it
 * holds, not by its address.  With an event that counts coherence misses
 * (HITM) the lines are told for it; else for the first event both record
 * (cpu-clock: statistical, as the view is). */

typedef struct sline {
	DS_VEC(char *) objs;        /* the data objects on the line */
	const char *cls;            /* the view's class */
	uint64_t threads;
	uint64_t count;             /* of the event told */
} sline;

typedef DS_VEC(sline) sline_vec;

static void lines_free(sline_vec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		for (size_t k = 0; k < v->v[i].objs.n; k++)
			free(v->v[i].objs.v[k]);
		ds_vec_free(&v->v[i].objs);
	}
	ds_vec_free(v);
}

/* The line rows of a sharing table (its thread and note rows follow each). */
static void lines_load(sline_vec *out, const ds_table *t, const char *event)
{
	size_t kind = find_col(t, "kind", 4), nthreads = find_col(t, "nthreads", 8);
	size_t cls = find_col(t, "class", 5), objs = find_col(t, "dataobjects", 11), ev = t->nevents;

	for (size_t e = 0; e < t->nevents; e++)
		if (strcmp(t->events[e].name, event) == 0)
			ev = e;
	if (kind == (size_t)-1 || nthreads == (size_t)-1 || cls == (size_t)-1 || objs == (size_t)-1 ||
	    ev == t->nevents)
		return;
	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		sline n = {0};
		if (!r->cells[kind].s || strcmp(r->cells[kind].s, "line") != 0 || !r->cells[cls].s)
			continue;
		n.cls = r->cells[cls].s;
		n.threads = r->cells[nthreads].u;
		n.count = r->count[ev];
		for (const char *p = r->cells[objs].s; p && *p;) {
			size_t len = strcspn(p, ",");
			ds_vec_push(&n.objs, ds_xstrndup(p, len));
			p += len;
			p += strspn(p, ", ");
		}
		ds_vec_push(out, n);
	}
}

/* Whether two lines hold the same data: a named object in common (the
 * <scalars> and <unknown> buckets name nothing). */
static bool same_line(const sline *a, const sline *b)
{
	for (size_t i = 0; i < a->objs.n; i++) {
		if (a->objs.v[i][0] == '<')
			continue;
		for (size_t j = 0; j < b->objs.n; j++)
			if (strcmp(a->objs.v[i], b->objs.v[j]) == 0)
				return true;
	}
	return false;
}

/* "the line of struct a, struct b": its named objects (its <...> buckets
 * when it has nothing named), four at most. */
static void line_label(ds_buf *b, const sline *l)
{
	size_t named = 0, listed, n = 0;

	for (size_t i = 0; i < l->objs.n; i++)
		named += l->objs.v[i][0] != '<';
	listed = named ? named : l->objs.n;
	ds_buf_puts(b, "the line of ");
	for (size_t i = 0; i < l->objs.n && n < 4; i++)
		if (!named || l->objs.v[i][0] != '<')
			ds_buf_printf(b, "%s%s", n++ ? ", " : "", l->objs.v[i]);
	if (listed > 4)
		ds_buf_printf(b, " and %zu more", listed - 4);
	if (!l->objs.n)
		ds_buf_puts(b, "no known data");
}

/* What the data on a line costs in a side's dataobjects table: the sum of
 * the rows named by names ("struct a, struct b"; the <...> buckets name
 * nothing), for event.  false when the table lacks the event or any row. */
static bool data_cost(const ds_table *t, const char *names, const char *event, uint64_t *cost)
{
	size_t ev = t ? t->nevents : 0;
	bool found = false;

	*cost = 0;
	for (size_t e = 0; t && e < t->nevents; e++)
		if (strcmp(t->events[e].name, event) == 0)
			ev = e;
	if (!t || ev == t->nevents)
		return false;
	for (const char *p = names; p && *p;) {
		size_t len = strcspn(p, ",");
		for (size_t i = 0; *p != '<' && i < t->nrows; i++)
			if (strlen(t->rows[i].name) == len && strncmp(t->rows[i].name, p, len) == 0) {
				*cost += t->rows[i].count[ev];
				found = true;
				break;
			}
		p += len;
		p += strspn(p, ", ");
	}
	return found;
}

/* "; its data: EVENT X -> Y (...)" from the data objects views, when they
 * name the line's data. */
static void data_cost_text(ds_buf *b, ds_table *const objs_t[2], const char *names, const char *event,
			   bool ns)
{
	uint64_t x, y;
	if (objs_t && data_cost(objs_t[BEFORE], names, event, &x) | data_cost(objs_t[AFTER], names, event, &y)) {
		ds_buf_puts(b, "; as data (dataobjects): ");
		change_text(b, event, x, y, ns);
	}
}

/* False, true or both: the sharing that costs (read-mostly does not). */
static bool shared(const sline *l)
{
	return strstr(l->cls, "sharing") != NULL && l->count > 0;
}

/* The lines of one side that are shared, and how the other side has
 * them: status "stopped" or "still" from BEFORE, "started" from AFTER. */
static void verdict_side_lines(finding_vec *v, const sline_vec *ln, int from, const ds_diff_event *de,
			       bool ns, uint64_t total, ds_table *const objs_t[2])
{
	const sline_vec *mine = &ln[from], *other = &ln[!from];
	size_t shown = 0;
	bool *done = ds_xcalloc(mine->n ? mine->n : 1, sizeof *done);

	while (shown < VERDICT_ROWS) {
		size_t best = mine->n, most = other->n;
		uint64_t there = 0, x, y;
		bool still = false;
		ds_buf label = {0}, b = {0}, names = {0};
		ds_diff_finding *f;

		for (size_t i = 0; i < mine->n; i++)
			if (!done[i] && shared(&mine->v[i]) && mine->v[i].count * VERDICT_SHARE >= total &&
			    (best == mine->n || mine->v[i].count > mine->v[best].count))
				best = i;
		if (best == mine->n)
			break;
		done[best] = true;
		/* the other side's lines of the same data; the class told is
		 * that of the costliest, shared ones first */
		for (size_t j = 0; j < other->n; j++) {
			const sline *o = &other->v[j];
			if (!same_line(&mine->v[best], o) && !same_line(o, &mine->v[best]))
				continue;
			there += o->count;
			if (most == other->n || (shared(o) && !still) ||
			    (shared(o) == still && o->count > other->v[most].count))
				most = j;
			still |= shared(o);
		}
		if (from == AFTER && still)
			continue; /* told from BEFORE's side */
		x = from == AFTER ? there : mine->v[best].count;
		y = from == AFTER ? mine->v[best].count : there;
		line_label(&label, &mine->v[best]);
		ds_buf_printf(&b, "%s: %s ",
			      from == AFTER ? "started being shared" : still ? "still shared" : "stopped being shared",
			      label.p);
		if (most == other->n)
			ds_buf_printf(&b, "(%s, %" PRIu64 " threads; not shared in %s); ", mine->v[best].cls,
				      mine->v[best].threads, from == AFTER ? "BEFORE" : "AFTER");
		else if (from == AFTER)
			ds_buf_printf(&b, "(%s -> %s, %" PRIu64 " threads); ", other->v[most].cls,
				      mine->v[best].cls, mine->v[best].threads);
		else
			ds_buf_printf(&b, "(%s -> %s, %" PRIu64 " -> %" PRIu64 " threads); ", mine->v[best].cls,
				      other->v[most].cls, mine->v[best].threads, other->v[most].threads);
		/* a line that stopped being shared costs nothing as a shared
		 * line; what its data still costs is the data objects' to say */
		change_text(&b, de->name, x, y, ns);
		for (size_t k = 0; k < mine->v[best].objs.n; k++)
			ds_buf_printf(&names, "%s%s", k ? ", " : "", mine->v[best].objs.v[k]);
		data_cost_text(&b, objs_t, ds_buf_str(&names), de->name, ns);
		f = add_finding(v, "line", de->name, label.p, "%s", b.p);
		f->status = from == AFTER ? "started" : still ? "still" : "stopped";
		set_counts(f, true, x, true, y);
		ds_buf_free(&label);
		ds_buf_free(&names);
		ds_buf_free(&b);
		shown++;
	}
	free(done);
}

/* The lines of the sharing tables t (each side's) for event de. */
static void verdict_lines(finding_vec *v, const ds_diff *d, ds_table *const t[2], const ds_diff_event *de,
			  ds_table *const objs_t[2])
{
	sline_vec ln[2] = {{0}, {0}};
	const ds_table_event *eb = &d->table->events[de->before], *ea = &d->table->events[de->after];
	uint64_t total = eb->count > ea->count ? eb->count : ea->count;

	lines_load(&ln[BEFORE], t[BEFORE], de->name);
	lines_load(&ln[AFTER], t[AFTER], de->name);
	verdict_side_lines(v, ln, BEFORE, de, eb->time_ns, total, objs_t);
	verdict_side_lines(v, ln, AFTER, de, eb->time_ns, total, objs_t);
	lines_free(&ln[BEFORE]);
	lines_free(&ln[AFTER]);
}

static void findings_free(ds_diff_finding *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].event);
		free(v[i].row);
		free(v[i].text);
	}
	free(v);
}

/* A sharing diff's row findings that say a line went or came: that is
 * its sharing, not its cost, which the data objects tell. */
static void sharing_rows_as_data(ds_diff *d, ds_table *const objs_t[2])
{
	for (size_t i = 0; i < d->nverdict; i++) {
		ds_diff_finding *f = &d->verdict[i];
		uint64_t x, y;
		bool ns = false;
		ds_buf b = {0};
		if (strcmp(f->kind, "row") != 0 || !f->row || !f->event || !f->status ||
		    (strcmp(f->status, "gone") != 0 && strcmp(f->status, "new") != 0))
			continue;
		for (size_t e = 0; e < d->table->nevents; e++)
			if (strcmp(d->table->events[e].name + strcspn(d->table->events[e].name, ":") + 1,
				   f->event) == 0)
				ns = d->table->events[e].time_ns;
		ds_buf_printf(&b, "%s: %s a shared line", f->row,
			      strcmp(f->status, "gone") == 0 ? "no longer on" : "now on");
		if (data_cost(objs_t[BEFORE], f->row, f->event, &x) | data_cost(objs_t[AFTER], f->row, f->event, &y)) {
			ds_buf_puts(&b, "; as data (dataobjects): ");
			change_text(&b, f->event, x, y, ns);
			set_counts(f, true, x, true, y);
		}
		free(f->text);
		f->text = ds_buf_steal(&b);
	}
}

/* Put v's findings at d->verdict[at]. */
static void splice(ds_diff *d, size_t at, finding_vec *v)
{
	if (!v->n)
		return;
	d->verdict = ds_xrealloc(d->verdict, (d->nverdict + v->n + 1) * sizeof *d->verdict);
	memmove(d->verdict + at + v->n, d->verdict + at, (d->nverdict - at) * sizeof *d->verdict);
	memcpy(d->verdict + at, v->v, v->n * sizeof *v->v);
	d->nverdict += v->n;
	ds_vec_free(v);
}

static size_t first_kind(const ds_diff *d, const char *const *kinds, bool in)
{
	size_t i = 0;
	for (; i < d->nverdict; i++) {
		bool match = false;
		for (const char *const *k = kinds; *k; k++)
			match |= strcmp(d->verdict[i].kind, *k) == 0;
		if (match == in)
			break;
	}
	return i;
}

/* vt: the tables of `view` the diff was made of. */
static int verdict_sessions(ds_diff *d, ds_session *s[2], const char *view, ds_table *const vt[2],
			    ds_err *err)
{
	static const char *const facts[] = {"total", "period", "only", NULL};
	static const char *const names[] = {"clone", "module", NULL};
	ds_table *t[2] = {NULL, NULL}, *sh[2] = {NULL, NULL}, *objs_t[2] = {NULL, NULL};
	bool own = strcmp(view, "sharing") != 0;
	ds_diff *f = NULL;
	finding_vec lines = {0}, fns = {0};
	size_t told = 0;
	ds_err ignore = {0};

	/* shared lines, from the sharing view (the diff's own tables when it is
	 * that view).  Without data addresses or a cache geometry there are no
	 * lines to tell of; the rest of the verdict stands. */
	if (!own) {
		sh[BEFORE] = vt[BEFORE];
		sh[AFTER] = vt[AFTER];
	} else if (ds_view_build(s[BEFORE], "sharing", NULL, &sh[BEFORE], &ignore) ||
		   ds_view_build(s[AFTER], "sharing", NULL, &sh[AFTER], &ignore)) {
		ds_table_free(sh[BEFORE]);
		sh[BEFORE] = sh[AFTER] = NULL;
	}
	/* what the data on the lines costs, shared or not */
	if (sh[BEFORE] && (ds_view_build(s[BEFORE], "dataobjects", NULL, &objs_t[BEFORE], &ignore) ||
			   ds_view_build(s[AFTER], "dataobjects", NULL, &objs_t[AFTER], &ignore))) {
		ds_table_free(objs_t[BEFORE]);
		objs_t[BEFORE] = objs_t[AFTER] = NULL;
	}
	/* for each coherence event, or else the first event of both */
	for (size_t k = 0; sh[BEFORE] && k < d->nevents; k++)
		if (d->events[k].before >= 0 && d->events[k].after >= 0 && ds_event_coherence(d->events[k].name)) {
			verdict_lines(&lines, d, sh, &d->events[k], objs_t[BEFORE] ? objs_t : NULL);
			told++;
		}
	for (size_t k = 0; sh[BEFORE] && k < d->nevents && !told; k++)
		if (d->events[k].before >= 0 && d->events[k].after >= 0) {
			verdict_lines(&lines, d, sh, &d->events[k], objs_t[BEFORE] ? objs_t : NULL);
			told++;
		}
	/* the sharing view's rows are shared lines: one that left the view
	 * stopped being shared, and still costs what its data costs */
	if (!own && objs_t[BEFORE])
		sharing_rows_as_data(d, objs_t);
	ds_table_free(objs_t[BEFORE]);
	ds_table_free(objs_t[AFTER]);
	if (own) {
		ds_table_free(sh[BEFORE]);
		ds_table_free(sh[AFTER]);
	}
	if (strcmp(view, "functions") != 0) {
		if (ds_view_build(s[BEFORE], "functions", NULL, &t[BEFORE], err) ||
		    ds_view_build(s[AFTER], "functions", NULL, &t[AFTER], err) ||
		    ds_diff_tables(t[BEFORE], t[AFTER], NULL, &f, err)) {
			ds_table_free(t[BEFORE]);
			ds_table_free(t[AFTER]);
			findings_free(lines.v, lines.n);
			return -1;
		}
		for (size_t k = 0; k < f->nevents; k++)
			if (f->events[k].before >= 0 && f->events[k].after >= 0 && ds_event_coherence(f->events[k].name))
				verdict_rows(&fns, f, &f->events[k], "function");
		ds_diff_free(f);
		ds_table_free(t[BEFORE]);
		ds_table_free(t[AFTER]);
	}
	/* the lines after the totals, the functions after the view's rows */
	splice(d, first_kind(d, names, true), &fns);
	splice(d, first_kind(d, facts, false), &lines);
	return 0;
}

int ds_diff_sessions(ds_session *before, ds_session *after, const char *view, const ds_diff_opts *o,
		     ds_diff **out, ds_err *err)
{
	ds_session *s[2] = {before, after};
	ds_table *t[2] = {NULL, NULL};
	bool coherence = false;
	int rc = -1;

	*out = NULL;
	for (int i = 0; i < 2; i++)
		if (ds_view_build(s[i], view, NULL, &t[i], err)) {
			ds_err_prefix(err, "%s (%s): ", s[i]->path, side_name[i]);
			goto out;
		}
	if (ds_diff_tables(t[BEFORE], t[AFTER], o, out, err))
		goto out;
	for (size_t k = 0; k < (*out)->nevents; k++)
		coherence |= (*out)->events[k].before >= 0 && (*out)->events[k].after >= 0 &&
			     ds_event_coherence((*out)->events[k].name);
	/* without coherence misses, the lines are told in the views about lines */
	if ((coherence || strcmp(view, "sharing") == 0 || strcmp(view, "hotlines") == 0) &&
	    verdict_sessions(*out, s, view, t, err)) {
		ds_diff_free(*out);
		*out = NULL;
		goto out;
	}
	rc = 0;
out:
	ds_table_free(t[BEFORE]);
	ds_table_free(t[AFTER]);
	return rc;
}

void ds_diff_free(ds_diff *d)
{
	if (!d)
		return;
	ds_table_free(d->table);
	for (size_t i = 0; i < d->nevents; i++)
		free(d->events[i].name);
	free(d->events);
	findings_free(d->verdict, d->nverdict);
	free(d);
}
