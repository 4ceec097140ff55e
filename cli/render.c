/*
 * Rendering analyze/ tables as text, CSV and JSON (docs/report-formats.md).
 *
 * Text is for people: percentages of each event's total, counts in the
 * event's unit, names sanitized for the terminal.  CSV and JSON are for
 * programs: every column, raw numbers, a stable schema.
 */
#include "cli/cli.h"

#include "analyze/analyze.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Clock events count nanoseconds: show them as seconds. */
static void fmt_count(char *out, size_t n, const ds_table_event *ev, uint64_t v)
{
	ds_count_text(out, n, v, ev->time_ns);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---- text ---- */

static char *safe(const char *s, bool ascii)
{
	ds_buf b = {0};
	ds_sanitize(&b, s, ascii);
	return ds_buf_steal(&b);
}

static void text_summary(FILE *f, const ds_table *t, bool ascii)
{
	size_t w = 0;
	for (size_t i = 0; i < t->nprops; i++)
		if (strlen(t->props[i].key) > w)
			w = strlen(t->props[i].key);
	for (size_t i = 0; i < t->nprops; i++) {
		char *v = safe(t->props[i].value, ascii);
		fprintf(f, "%-*s  %s\n", (int)w, t->props[i].key, v);
		free(v);
	}
	fprintf(f, "\n%-24s %10s %8s %8s %12s %16s\n", "event", "period", "freq", "precise", "samples",
		"count");
	for (size_t r = 0; r < t->nrows; r++) {
		const ds_row *row = &t->rows[r];
		char *name = safe(row->name, ascii), cnt[32];
		size_t e = 0;
		for (size_t k = 0; k < t->nevents; k++)
			if (row->samples[k] || strcmp(t->events[k].name, row->name) == 0)
				e = k;
		fmt_count(cnt, sizeof cnt, &t->events[e], row->count[e]);
		fprintf(f, "%-24s %10" PRIu64 " %8" PRIu64 " %8s %12" PRIu64 " %16s\n", name,
			row->cells[0].u, row->cells[1].u, row->cells[2].s ? row->cells[2].s : "",
			row->samples[e], cnt);
		free(name);
	}
}

/* A metric column of text: event ev's metric m, w characters wide. */
typedef struct mcol {
	size_t ev;
	int m;
	int w;
} mcol;
typedef DS_VEC(mcol) mcol_vec;

/* The metric columns show[] picks, in blocks: an event's exclusive ones
 * under its name, then its inclusive ones under "(inclusive)"; a block
 * too narrow for its title widens its first column. */
static void metric_cols(const ds_table *t, const bool *show, mcol_vec *v)
{
	static const int width[DS_M_N] = {7, 8, 8, 7, 8, 8};

	for (size_t e = 0; t->has_metrics && e < t->nevents; e++)
		for (int incl = 0; incl < 2; incl++) {
			size_t first = v->n;
			int total = -1, need;
			for (int m = incl ? DS_M_INCL_PERCENT : 0; m < (incl ? DS_M_N : DS_M_INCL_PERCENT); m++)
				if (!show || show[e * DS_M_N + (size_t)m]) {
					if (m >= DS_M_INCL_PERCENT && !t->inclusive)
						continue;
					ds_vec_push(v, ((mcol){e, m, width[m]}));
					total += width[m] + 1;
				}
			need = (int)strlen(incl ? "(inclusive)" : t->events[e].name);
			need = need > 25 ? 25 : need;
			if (v->n > first && need > total)
				v->v[first].w += need - total;
		}
}

static void text_table(FILE *f, const ds_table *t, bool ascii, const bool *show)
{
	size_t namew = 8, *colw = ds_xcalloc(t->ncols ? t->ncols : 1, sizeof *colw);
	mcol_vec mc = {0};
	char buf[512];

	metric_cols(t, show, &mc);
	for (size_t r = 0; r < t->nrows; r++) {
		char *n = safe(t->rows[r].name, ascii);
		size_t w = 2 * t->rows[r].depth + ds_text_width(n);
		if (w > namew && (w <= 60 || !t->rows[r].note)) /* long notes overflow their row */
			namew = w;
		free(n);
		for (size_t c = 0; c < t->ncols; c++) {
			size_t cw = strlen(ds_cell_text(buf, sizeof buf, &t->cols[c], &t->rows[r].cells[c], true));
			if (cw > colw[c])
				colw[c] = cw;
		}
	}
	if (namew > 60)
		namew = 60; /* longer names overflow their own row only */
	for (size_t c = 0; c < t->ncols; c++)
		if (strlen(t->cols[c].name) > colw[c])
			colw[c] = strlen(t->cols[c].name);

	/* header: event names over their metric columns */
	fputs("#", f);
	for (size_t i = 0; i < mc.n;) {
		size_t j = i;
		int w = -1;
		bool incl = mc.v[i].m >= DS_M_INCL_PERCENT;
		char *n = safe(incl ? "(inclusive)" : t->events[mc.v[i].ev].name, ascii);
		for (; j < mc.n && mc.v[j].ev == mc.v[i].ev && (mc.v[j].m >= DS_M_INCL_PERCENT) == incl; j++)
			w += mc.v[j].w + 1;
		fprintf(f, " %-*.*s", w, w, n);
		free(n);
		i = j;
	}
	if (t->has_metrics) {
		static const char *const label[DS_M_N] = {"excl%", "samples", "count", "incl%", "samples", "count"};
		fputs("\n#", f);
		for (size_t i = 0; i < mc.n; i++)
			fprintf(f, " %*s", mc.v[i].w, label[mc.v[i].m]);
	}
	fprintf(f, "  %-*s", (int)namew, t->name_label);
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].text)
			fprintf(f, "  %-*s", (int)colw[c], t->cols[c].name);
	fputc('\n', f);

	for (size_t r = 0; r < t->nrows; r++) {
		const ds_row *row = &t->rows[r];
		char *n = safe(row->name, ascii);
		size_t pad, w;
		fputc(' ', f);
		for (size_t i = 0; i < mc.n; i++) {
			const ds_table_event *ev = &t->events[mc.v[i].ev];
			size_t e = mc.v[i].ev;
			char cnt[32];
			if (row->note) {
				fprintf(f, " %*s", mc.v[i].w, "");
				continue;
			}
			switch (mc.v[i].m) {
			case DS_M_PERCENT: fprintf(f, " %*.2f%%", mc.v[i].w - 1, pct(row->count[e], ev->count)); break;
			case DS_M_SAMPLES: fprintf(f, " %*" PRIu64, mc.v[i].w, row->samples[e]); break;
			case DS_M_COUNT:
				fmt_count(cnt, sizeof cnt, ev, row->count[e]);
				fprintf(f, " %*s", mc.v[i].w, cnt);
				break;
			case DS_M_INCL_PERCENT:
				fprintf(f, " %*.2f%%", mc.v[i].w - 1, pct(row->incl_count[e], ev->count));
				break;
			case DS_M_INCL_SAMPLES: fprintf(f, " %*" PRIu64, mc.v[i].w, row->incl_samples[e]); break;
			case DS_M_INCL_COUNT:
				fmt_count(cnt, sizeof cnt, ev, row->incl_count[e]);
				fprintf(f, " %*s", mc.v[i].w, cnt);
				break;
			}
		}
		w = 2 * row->depth + ds_text_width(n);
		pad = w < namew ? namew - w : 0;
		fprintf(f, "  %*s%s%*s", (int)(2 * row->depth), "", n, (int)pad, "");
		free(n);
		for (size_t c = 0; c < t->ncols; c++) {
			char *v;
			if (!t->cols[c].text)
				continue;
			v = safe(ds_cell_text(buf, sizeof buf, &t->cols[c], &row->cells[c], true), ascii);
			fprintf(f, "  %-*s", (int)colw[c], v);
			free(v);
		}
		fputc('\n', f);
	}
	if (t->nrows < t->total_rows)
		fprintf(f, "# ... %zu more rows (--limit)\n", t->total_rows - t->nrows);
	ds_vec_free(&mc);
	free(colw);
}

/* A derived event's average weight: its count over its samples' periods,
 * when its event samples at a fixed period ("latency:NAME" is NAME's
 * samples again, each counted as period x weight; "used_bytes:NAME" the
 * same with the bytes of each line used). */
static void derived_average(FILE *f, const ds_table *t, size_t e)
{
	const char *name = t->events[e].name, *base = strchr(name, ':');
	bool bytes = !strncmp(name, "used_bytes:", 11);
	for (size_t b = 0; base && b < t->nevents; b++)
		if (!t->events[b].derived && !strcmp(t->events[b].name, base + 1) && t->events[b].period &&
		    t->events[e].samples)
			fprintf(f, bytes ? " (%.1f bytes of a line used on average)" : " (%.1f cycles a sample on average)",
				(double)t->events[e].count / ((double)t->events[e].samples * (double)t->events[b].period));
}

/* "# dsprof report: VIEW  (SOURCE)" and a line per event */
static void text_head(FILE *f, const char *cmd, const ds_table *t, const char *source, bool ascii)
{
	char *src = safe(source, ascii);
	fprintf(f, "# dsprof %s: %s  (%s)\n", cmd, t->view, src);
	free(src);
	for (size_t e = 0; t->has_metrics && e < t->nevents; e++) {
		char *n = safe(t->events[e].name, ascii), cnt[32];
		fmt_count(cnt, sizeof cnt, &t->events[e], t->events[e].count);
		fprintf(f, "# %s: %" PRIu64 " samples, count %s", n, t->events[e].samples, cnt);
		if (t->events[e].period)
			fprintf(f, " (period %" PRIu64 ")", t->events[e].period);
		else if (t->events[e].freq)
			fprintf(f, " (%" PRIu64 " Hz)", t->events[e].freq);
		else if (t->events[e].derived)
			derived_average(f, t, e);
		fputc('\n', f);
		free(n);
	}
}

static void render_text(FILE *f, const ds_table *t, const char *source, bool ascii, const bool *show)
{
	text_head(f, "report", t, source, ascii);
	if (strcmp(t->view, "summary") == 0) {
		fputs("#\n", f);
		text_summary(f, t, ascii);
		return;
	}
	/* other views' facts head the table as comments */
	for (size_t i = 0; i < t->nprops; i++) {
		char *v = safe(t->props[i].value, ascii);
		fprintf(f, "# %s: %s\n", t->props[i].key, v);
		free(v);
	}
	fputs("#\n", f);
	text_table(f, t, ascii, show);
}

/* ---- CSV (RFC 4180) ---- */

static void csv_field(FILE *f, const char *s)
{
	ds_buf b = {0};
	bool quote = strpbrk(s, ",\"\r\n") != NULL;
	/* control characters are escaped like on the terminal: CSV ends up there too */
	ds_sanitize(&b, s, false);
	if (!quote) {
		fputs(ds_buf_str(&b), f);
	} else {
		fputc('"', f);
		for (const char *p = ds_buf_str(&b); *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	}
	ds_buf_free(&b);
}

/* What CSV and JSON make of a tree (ds_table.tree) or a grouping
 * (ds_table.flat): each row's parent, and the depth of a grouping's
 * deepest rows, the only ones they list. */
typedef struct tree_out {
	size_t *parent;
	unsigned deepest;
} tree_out;

static void tree_begin(tree_out *o, const ds_table *t)
{
	o->parent = ds_table_parents(t);
	o->deepest = 0;
	for (size_t r = 0; t->flat && r < t->nrows; r++)
		if (t->rows[r].depth > o->deepest)
			o->deepest = t->rows[r].depth;
}

/* The name of row r's parent, NULL at the top. */
static const char *parent_of(const ds_table *t, const tree_out *o, size_t r)
{
	return o->parent[r] == SIZE_MAX ? NULL : t->rows[o->parent[r]].name;
}

/* Row r's cell of column c: in a grouping, the row above it holds its
 * key's cells. */
static const ds_cell *out_cell(const ds_table *t, const tree_out *o, size_t r, size_t c)
{
	size_t p = r;
	while (t->flat && c + t->own_cols < t->ncols && p != SIZE_MAX && !t->rows[p].cells[c].set)
		p = o->parent[p];
	return p != SIZE_MAX ? &t->rows[p].cells[c] : &t->rows[r].cells[c];
}

/* Whether CSV and JSON leave row r out: a row of a grouping above the
 * deepest level, whose rows below hold its columns. */
static bool above_leaves(const ds_table *t, const tree_out *o, size_t r)
{
	return t->flat && t->rows[r].depth < o->deepest;
}

/* The metrics CSV and JSON give, in their order: without a choice
 * (--metrics), each event's samples and count and, inclusive tables, their
 * inclusive ones; with one, those it picks, the shares too. */
static const int out_metrics[] = {DS_M_PERCENT, DS_M_SAMPLES, DS_M_COUNT, DS_M_INCL_PERCENT,
				  DS_M_INCL_SAMPLES, DS_M_INCL_COUNT};

static bool metric_out(const ds_table *t, const bool *show, size_t e, int m)
{
	if (!t->has_metrics || (!t->inclusive && m >= DS_M_INCL_PERCENT))
		return false;
	if (!show)
		return m != DS_M_PERCENT && m != DS_M_INCL_PERCENT;
	return show[e * DS_M_N + (size_t)m];
}

/* Metric m of row r, event e, as CSV and JSON write it. */
static void metric_text(const ds_table *t, const ds_row *r, size_t e, int m, char *buf, size_t n)
{
	switch (m) {
	case DS_M_PERCENT: snprintf(buf, n, "%.2f", pct(r->count[e], t->events[e].count)); break;
	case DS_M_SAMPLES: snprintf(buf, n, "%" PRIu64, r->samples[e]); break;
	case DS_M_COUNT: snprintf(buf, n, "%" PRIu64, r->count[e]); break;
	case DS_M_INCL_PERCENT: snprintf(buf, n, "%.2f", pct(r->incl_count[e], t->events[e].count)); break;
	case DS_M_INCL_SAMPLES: snprintf(buf, n, "%" PRIu64, r->incl_samples[e]); break;
	default: snprintf(buf, n, "%" PRIu64, r->incl_count[e]); break;
	}
}

static void render_csv(FILE *f, const ds_table *t, const bool *show)
{
	char buf[512];
	tree_out o;

	tree_begin(&o, t);
	fputs(t->tree ? "name,parent" : "name", f);
	for (size_t c = 0; c < t->ncols; c++) {
		fputc(',', f);
		csv_field(f, t->cols[c].name);
	}
	for (size_t e = 0; e < t->nevents; e++)
		for (size_t k = 0; k < DS_M_N; k++)
			if (metric_out(t, show, e, out_metrics[k])) {
				snprintf(buf, sizeof buf, "%s:%s", ds_metric_name(out_metrics[k]), t->events[e].name);
				fputc(',', f);
				csv_field(f, buf);
			}
	fputs("\r\n", f);
	for (size_t r = 0; r < t->nrows; r++) {
		const ds_row *row = &t->rows[r];
		if (row->text_only || above_leaves(t, &o, r))
			continue;
		csv_field(f, row->name);
		if (t->tree) {
			fputc(',', f);
			csv_field(f, parent_of(t, &o, r) ? parent_of(t, &o, r) : "");
		}
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(',', f);
			csv_field(f, ds_cell_text(buf, sizeof buf, &t->cols[c], out_cell(t, &o, r, c), false));
		}
		for (size_t e = 0; e < t->nevents; e++)
			for (size_t k = 0; k < DS_M_N; k++) {
				if (!metric_out(t, show, e, out_metrics[k]))
					continue;
				fputc(',', f);
				if (!row->note) { /* a note has no metrics: empty */
					metric_text(t, row, e, out_metrics[k], buf, sizeof buf);
					fputs(buf, f);
				}
			}
		fputs("\r\n", f);
	}
	free(o.parent);
}

/* ---- JSON ---- */

/* "KEY": {EVENT: value...} for metric m, the events show picks (all
 * without a choice); null for a note, which has no metrics. */
static void json_per_event(ds_jw *w, const ds_table *t, const bool *show, const ds_row *r, int m)
{
	bool any = false;
	char buf[64];

	for (size_t e = 0; e < t->nevents; e++)
		any |= metric_out(t, show, e, m);
	if (!any)
		return;
	ds_jw_key(w, ds_metric_name(m));
	if (r->note) {
		ds_jw_null(w);
		return;
	}
	ds_jw_obj_begin(w);
	for (size_t e = 0; e < t->nevents; e++)
		if (metric_out(t, show, e, m)) {
			ds_jw_key(w, t->events[e].name);
			metric_text(t, r, e, m, buf, sizeof buf);
			ds_jw_number_text(w, buf);
		}
	ds_jw_obj_end(w);
}

/* An event's period, frequency, precision and totals. */
static void json_event_facts(ds_jw *w, const ds_table_event *e)
{
	ds_jw_key(w, "period"); ds_jw_u64(w, e->period);
	ds_jw_key(w, "freq"); ds_jw_u64(w, e->freq);
	ds_jw_key(w, "precise"); ds_jw_bool(w, e->precise);
	ds_jw_key(w, "samples"); ds_jw_u64(w, e->samples);
	ds_jw_key(w, "count"); ds_jw_u64(w, e->count);
}

/* "rows": every row, its name, every column and the metrics */
static void json_rows(ds_jw *w, const ds_table *t, const bool *show)
{
	tree_out o;

	tree_begin(&o, t);
	ds_jw_key(w, "rows");
	ds_jw_arr_begin(w);
	for (size_t r = 0; r < t->nrows; r++) {
		const ds_row *row = &t->rows[r];
		if (row->text_only || above_leaves(t, &o, r))
			continue;
		ds_jw_obj_begin(w);
		ds_jw_key(w, "name");
		ds_jw_str(w, row->name);
		if (t->tree) {
			ds_jw_key(w, "parent");
			if (parent_of(t, &o, r))
				ds_jw_str(w, parent_of(t, &o, r));
			else
				ds_jw_null(w);
		}
		for (size_t c = 0; c < t->ncols; c++) {
			const ds_cell *v = out_cell(t, &o, r, c);
			ds_jw_key(w, t->cols[c].name);
			if (!v->set) {
				ds_jw_null(w);
			} else if (t->cols[c].kind == DS_COL_STR) {
				ds_jw_str(w, v->s);
			} else if (t->cols[c].kind == DS_COL_HEX) {
				char hex[24];
				snprintf(hex, sizeof hex, "0x%" PRIx64, v->u);
				ds_jw_str(w, hex);
			} else if (t->cols[c].kind == DS_COL_PERCENT || t->cols[c].kind == DS_COL_CHANGE) {
				ds_jw_double(w, v->d);
			} else if (t->cols[c].kind == DS_COL_DELTA || t->cols[c].kind == DS_COL_DELTA_NS) {
				ds_jw_i64(w, (int64_t)v->u);
			} else {
				ds_jw_u64(w, v->u);
			}
		}
		for (size_t k = 0; k < DS_M_N; k++)
			json_per_event(w, t, show, row, out_metrics[k]);
		ds_jw_obj_end(w);
	}
	ds_jw_arr_end(w);
	free(o.parent);
}

static void render_json(FILE *f, const ds_table *t, const char *source, const bool *show)
{
	ds_buf b = {0};
	ds_jw w;

	ds_jw_init(&w, &b, false);
	ds_jw_obj_begin(&w);
	ds_jw_key(&w, "view");
	ds_jw_str(&w, t->view);
	ds_jw_key(&w, "experiment");
	ds_jw_str(&w, source);
	ds_jw_key(&w, "events");
	ds_jw_arr_begin(&w);
	for (size_t e = 0; e < t->nevents; e++) {
		ds_jw_obj_begin(&w);
		ds_jw_key(&w, "name"); ds_jw_str(&w, t->events[e].name);
		json_event_facts(&w, &t->events[e]);
		ds_jw_obj_end(&w);
	}
	ds_jw_arr_end(&w);
	ds_jw_key(&w, "total");
	ds_jw_obj_begin(&w);
	for (size_t e = 0; e < t->nevents; e++) {
		ds_jw_key(&w, t->events[e].name);
		ds_jw_u64(&w, t->events[e].samples);
	}
	ds_jw_obj_end(&w);
	ds_jw_key(&w, "total_count");
	ds_jw_obj_begin(&w);
	for (size_t e = 0; e < t->nevents; e++) {
		ds_jw_key(&w, t->events[e].name);
		ds_jw_u64(&w, t->events[e].count);
	}
	ds_jw_obj_end(&w);
	ds_jw_key(&w, "inclusive");
	ds_jw_bool(&w, t->inclusive);
	ds_jw_key(&w, "total_rows");
	ds_jw_u64(&w, t->total_rows);
	if (t->nprops) {
		ds_jw_key(&w, "properties");
		ds_jw_obj_begin(&w);
		for (size_t i = 0; i < t->nprops; i++) {
			if (strcmp(t->props[i].key, "note") == 0)
				continue;
			ds_jw_key(&w, t->props[i].key);
			switch (t->props[i].kind) {
			case DS_PROP_NUMBER: ds_jw_number_text(&w, t->props[i].value); break;
			case DS_PROP_BOOL: ds_jw_bool(&w, strcmp(t->props[i].value, "yes") == 0); break;
			case DS_PROP_TEXT: ds_jw_str(&w, t->props[i].value); break;
			}
		}
		/* notes: always an array, however many there are */
		ds_jw_key(&w, "notes");
		ds_jw_arr_begin(&w);
		for (size_t i = 0; i < t->nprops; i++)
			if (strcmp(t->props[i].key, "note") == 0)
				ds_jw_str(&w, t->props[i].value);
		ds_jw_arr_end(&w);
		ds_jw_obj_end(&w);
	}
	json_rows(&w, t, show);
	ds_jw_obj_end(&w);
	ds_buf_putc(&b, '\n');
	fwrite(b.p, 1, b.len, f);
	ds_buf_free(&b);
}

/* The folded stacks that flame-graph tools (flamegraph.pl, inferno,
 * speedscope) read: "outer;inner;leaf N" a line, N the first event's
 * samples (the callpath dimension makes the names).  A name's spaces are
 * kept: the count is after the last one. */
static void render_folded(FILE *f, const ds_table *t, bool ascii)
{
	ds_buf b = {0};

	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		if (r->note || !t->nevents || !r->samples[0])
			continue;
		ds_buf_reset(&b);
		ds_sanitize(&b, r->name, ascii);
		fprintf(f, "%s %llu\n", ds_buf_str(&b), (unsigned long long)r->samples[0]);
	}
	ds_buf_free(&b);
}

void cli_render(FILE *f, const ds_table *t, enum cli_format fmt, const char *source, bool ascii,
		const bool *show)
{
	switch (fmt) {
	case CLI_TEXT: render_text(f, t, source, ascii, show); break;
	case CLI_CSV: render_csv(f, t, show); break;
	case CLI_JSON: render_json(f, t, source, show); break;
	case CLI_FOLDED: render_folded(f, t, ascii); break;
	}
}

int cli_metrics(const ds_table *t, const char *spec, enum cli_format fmt, bool **show, ds_err *err)
{
	*show = NULL;
	if (!spec && fmt != CLI_TEXT)
		return 0; /* programs get every metric */
	*show = ds_xcalloc(t->nevents * DS_M_N + 1, sizeof **show);
	if (ds_metrics_select(t, spec, *show, err)) {
		free(*show);
		*show = NULL;
		return -1;
	}
	return 0;
}

/* ---- diffs (dsprof diff) ----
 * The diff's table renders as any view's; text adds the verdict over it,
 * JSON adds the verdict and each event's facts on both sides. */

static void text_diff(FILE *f, const ds_diff *d, const char *before, const char *after, bool ascii,
		      const bool *show)
{
	char *src = ds_xasprintf("%s -> %s", before, after);
	text_head(f, "diff", d->table, src, ascii);
	free(src);
	fputs("#\n# verdict:\n", f);
	for (size_t i = 0; i < d->nverdict; i++) {
		char *v = safe(d->verdict[i].text, ascii);
		fprintf(f, "#   %s\n", v);
		free(v);
	}
	fputs("#\n", f);
	text_table(f, d->table, ascii, show);
}

static void json_side(ds_jw *w, const char *key, const ds_table *t, int ev)
{
	ds_jw_key(w, key);
	if (ev < 0) {
		ds_jw_null(w);
		return;
	}
	ds_jw_obj_begin(w);
	json_event_facts(w, &t->events[ev]);
	ds_jw_obj_end(w);
}

static void json_finding(ds_jw *w, const ds_diff_finding *v)
{
	ds_jw_obj_begin(w);
	ds_jw_key(w, "kind"); ds_jw_str(w, v->kind);
	ds_jw_key(w, "status"); ds_jw_str(w, v->status);
	ds_jw_key(w, "event"); ds_jw_str(w, v->event);
	ds_jw_key(w, "row"); ds_jw_str(w, v->row);
	ds_jw_key(w, "before");
	if (v->has_before)
		ds_jw_u64(w, v->before);
	else
		ds_jw_null(w);
	ds_jw_key(w, "after");
	if (v->has_after)
		ds_jw_u64(w, v->after);
	else
		ds_jw_null(w);
	ds_jw_key(w, "delta");
	if (v->has_before && v->has_after)
		ds_jw_i64(w, (int64_t)v->after - (int64_t)v->before);
	else
		ds_jw_null(w);
	ds_jw_key(w, "change");
	if (v->has_before && v->has_after && v->before)
		ds_jw_double(w, 100.0 * ((double)v->after - (double)v->before) / (double)v->before);
	else
		ds_jw_null(w);
	ds_jw_key(w, "noise"); ds_jw_bool(w, v->noise);
	ds_jw_key(w, "text"); ds_jw_str(w, v->text);
	ds_jw_obj_end(w);
}

static void json_diff(FILE *f, const ds_diff *d, const char *before, const char *after, const bool *show)
{
	ds_buf b = {0};
	ds_jw w;

	ds_jw_init(&w, &b, false);
	ds_jw_obj_begin(&w);
	ds_jw_key(&w, "view");
	ds_jw_str(&w, d->table->view);
	ds_jw_key(&w, "before");
	ds_jw_str(&w, before);
	ds_jw_key(&w, "after");
	ds_jw_str(&w, after);
	ds_jw_key(&w, "events");
	ds_jw_arr_begin(&w);
	for (size_t e = 0; e < d->nevents; e++) {
		ds_jw_obj_begin(&w);
		ds_jw_key(&w, "name");
		ds_jw_str(&w, d->events[e].name);
		json_side(&w, "before", d->table, d->events[e].before);
		json_side(&w, "after", d->table, d->events[e].after);
		ds_jw_obj_end(&w);
	}
	ds_jw_arr_end(&w);
	ds_jw_key(&w, "verdict");
	ds_jw_arr_begin(&w);
	for (size_t i = 0; i < d->nverdict; i++)
		json_finding(&w, &d->verdict[i]);
	ds_jw_arr_end(&w);
	ds_jw_key(&w, "total_rows");
	ds_jw_u64(&w, d->table->total_rows);
	json_rows(&w, d->table, show);
	ds_jw_obj_end(&w);
	ds_buf_putc(&b, '\n');
	fwrite(b.p, 1, b.len, f);
	ds_buf_free(&b);
}

void cli_render_diff(FILE *f, const ds_diff *d, enum cli_format fmt, const char *before, const char *after,
		     bool ascii, const bool *show)
{
	switch (fmt) {
	case CLI_TEXT: text_diff(f, d, before, after, ascii, show); break;
	case CLI_CSV: render_csv(f, d->table, show); break;
	case CLI_JSON: json_diff(f, d, before, after, show); break;
	case CLI_FOLDED: break; /* report's alone (cli_parse_format) */
	}
}

void cli_print_keys(FILE *f)
{
	fputs("keys of --by (nested in the order given: --by function,field):\n", f);
	for (size_t i = 0; ds_dim_name(i); i++)
		fprintf(f, "  %-12s %s\n", ds_dim_name(i), ds_dim_help(i));
	fputs("Each is also a --filter operand: field == \"struct node.next\" && thread == 42.\n", f);
}
