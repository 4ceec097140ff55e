/*
 * Drawing: the frame (tab bar, breadcrumb, column headers, status line,
 * key bar) and each tab's body, into the screen grid.
 *
 *   row 0       tabs
 *   row 1       breadcrumb ........................ experiment
 *   rows 2, 3   event names over their metric columns; column titles
 *   rows 4..    the table (or the tab's own drawing)
 *   row h-2     the selected row in full, a message, or a prompt
 *   row h-1     keys
 *
 * Numbers are the views' own: shares are a row's count over the event's
 * total count (as dsprof report prints them); bars are a member's samples
 * over its type's, both from the same datalayout table.
 */
#include "tui/tui_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_W 80
#define MIN_H 24
#define BAR_W 10

int body_rows(const tui_app *a)
{
	return a->scr.h - 6;
}

/* ---- numbers ---- */

/* Large numbers shortened to fit a column. */
static void fmt_big(char *out, size_t n, uint64_t v)
{
	double d = (double)v;
	if (v < 10000000)
		snprintf(out, n, "%" PRIu64, v);
	else if (d < 1e9)
		snprintf(out, n, "%.1fM", d / 1e6);
	else
		snprintf(out, n, "%.1fG", d / 1e9);
}

/* Clock events count nanoseconds: seconds. */
static void fmt_count(char *out, size_t n, const ds_table_event *ev, uint64_t v)
{
	if (ev->time_ns)
		snprintf(out, n, "%.3fs", (double)v / 1e9);
	else
		fmt_big(out, n, v);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---- columns ---- */

enum { UC_MARK, UC_METRIC, UC_NAME, UC_CELL, UC_BARS };

typedef struct ucol {
	int kind;
	int ev, mt;           /* UC_METRIC, UC_BARS (ev) */
	int col;              /* UC_CELL */
	int x, w;
	bool right, flex, half;   /* half: the flexible column takes half the screen */
	char title[64];
	bool sorted;
} ucol;

#define MAX_UCOLS 64

static int metric_width(int mt)
{
	return mt == DS_M_PERCENT || mt == DS_M_INCL_PERCENT ? 6 : mt == DS_M_COUNT || mt == DS_M_INCL_COUNT ? 9 : 8;
}

/* Whether column u is the one the table is sorted by. */
static bool is_sorted(const ds_table *t, const char *sort, const ucol *u)
{
	char key[256];
	const char *ev;
	if (!sort)
		sort = "samples";
	if (u->kind == UC_NAME)
		return !strcmp(sort, "name");
	if (u->kind == UC_CELL) {
		/* a diff's "delta" is its first event's delta:E */
		const char *name = t->cols[u->col].name;
		size_t k = strlen(sort);
		if (!strcmp(sort, name))
			return true;
		if (!diff_table(t) || strchr(sort, ':') || strncmp(name, sort, k) || name[k] != ':')
			return false;
		for (size_t c = 0; c < (size_t)u->col; c++)
			if (!strncmp(t->cols[c].name, sort, k) && t->cols[c].name[k] == ':')
				return false;
		return true;
	}
	if (u->kind != UC_METRIC)
		return false;
	ev = t->events[u->ev].name;
	if (!strcmp(sort, ev))
		return u->mt == DS_M_SAMPLES;
	switch (u->mt) {
	case DS_M_SAMPLES:
		snprintf(key, sizeof key, "samples:%s", ev);
		return !strcmp(sort, key) || (u->ev == 0 && !strcmp(sort, "samples"));
	case DS_M_PERCENT: case DS_M_COUNT:
		snprintf(key, sizeof key, "count:%s", ev);
		return !strcmp(sort, key) || (u->ev == 0 && !strcmp(sort, "count"));
	case DS_M_INCL_SAMPLES:
		snprintf(key, sizeof key, "incl:%s", ev);
		return !strcmp(sort, key) || (u->ev == 0 && !strcmp(sort, "incl"));
	default:
		snprintf(key, sizeof key, "incl_count:%s", ev);
		return !strcmp(sort, key) || (u->ev == 0 && !strcmp(sort, "incl_count"));
	}
}

/* The view's own default order, when neither the user nor the tab chose. */
static const char *view_sort(const ds_table *t)
{
	static const char *const own[][2] = {{"callers", "incl"}, {"calltree", "incl"}, {"datalayout", "order"},
					     {"typestats", "order"}, {"timeline", "order"},
					     {"source", "line"}, {"samples", "time"}};
	if (diff_table(t))
		return "delta";
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (!strcmp(t->view, own[i][0]))
			return own[i][1];
	return NULL;
}

/* Lay out a tab's columns: its spec ("@ M ~name module"), the metrics
 * chosen with m, widths from the cells; cell columns that do not fit are
 * left out from the right. */
static int layout_cols(const tui_app *a, int tab, ucol *u)
{
	const tab_state *ts = &a->tabs[tab];
	const ds_table *t = ts->t;
	const tab_def *td = tab_def_of(a, tab);
	const char *sort = ts->sort ? ts->sort : td->sort ? td->sort : view_sort(t);
	char spec[256], *save = NULL;
	bool listed[MAX_UCOLS] = {false};
	int n = 0, used = 0, flex = -1;

	snprintf(spec, sizeof spec, "%s", tab_cols(a, tab) ? tab_cols(a, tab) : "@ M ~name *");
	for (char *tok = strtok_r(spec, " ", &save); tok && n < MAX_UCOLS - 8; tok = strtok_r(NULL, " ", &save)) {
		bool fl = tok[0] == '~', half = fl && tok[1] == '~';
		tok += fl + half;
		if (!strcmp(tok, "@")) {
			u[n++] = (ucol){.kind = UC_MARK, .w = 1};
		} else if (!strcmp(tok, "M")) {
			for (size_t e = 0; t->has_metrics && e < t->nevents && e < a->nev; e++)
				for (int m = 0; m < DS_M_N; m++) {
					if (!a->show[e * DS_M_N + (size_t)m] || (m >= DS_M_INCL_PERCENT && !t->inclusive))
						continue;
					u[n] = (ucol){.kind = UC_METRIC, .ev = (int)e, .mt = m, .w = metric_width(m), .right = true};
					snprintf(u[n].title, sizeof u[n].title, "%s",
						 (const char *[]){"excl%", "samples", "count", "incl%", "incl", "incl_cnt"}[m]);
					n++;
					if (n >= MAX_UCOLS - 8)
						break;
				}
			/* a diff: the change beside the metrics, before the names;
			 * "delta" and "change" when one event is compared */
			if (diff_table(t)) {
				size_t nd = 0;
				for (size_t c = 0; c < t->ncols; c++)
					nd += !strncmp(t->cols[c].name, "delta:", 6);
				for (size_t c = 0; c < t->ncols && c < MAX_UCOLS && n < MAX_UCOLS - 8; c++) {
					const char *cn = t->cols[c].name;
					if (strncmp(cn, "delta:", 6) && strncmp(cn, "change:", 7) && strcmp(cn, "status"))
						continue;
					listed[c] = true;
					u[n] = (ucol){.kind = UC_CELL, .col = (int)c, .right = t->cols[c].kind != DS_COL_STR};
					snprintf(u[n].title, sizeof u[n].title, "%.*s", nd == 1 ? (int)strcspn(cn, ":") : 63,
						 cn);
					n++;
				}
			}
		} else if (!strcmp(tok, "bars")) {
			for (size_t e = 0; t->has_metrics && e < t->nevents && e < a->nev && n < MAX_UCOLS - 8; e++)
				if (a->show[e * DS_M_N + DS_M_PERCENT] || a->show[e * DS_M_N + DS_M_SAMPLES]) {
					u[n] = (ucol){.kind = UC_BARS, .ev = (int)e, .w = BAR_W};
					snprintf(u[n].title, sizeof u[n].title, "%s",
						 t->view && !strcmp(t->view, "accessmap") ? "of site" : "of type");
					n++;
				}
		} else if (!strcmp(tok, "name")) {
			u[n] = (ucol){.kind = UC_NAME, .flex = fl, .half = half};
			snprintf(u[n].title, sizeof u[n].title, "%s", t->name_label ? t->name_label : "name");
			n++;
		} else if (!strcmp(tok, "*")) {
			for (size_t c = 0; c < t->ncols && n < MAX_UCOLS - 8; c++)
				if (t->cols[c].text && (c >= MAX_UCOLS || !listed[c])) {
					u[n] = (ucol){.kind = UC_CELL, .col = (int)c, .right = t->cols[c].kind != DS_COL_STR};
					snprintf(u[n].title, sizeof u[n].title, "%s", t->cols[c].name);
					n++;
				}
		} else {
			int c = tcol(t, tok);
			if (c < 0)
				continue;
			if (c < MAX_UCOLS)
				listed[c] = true;
			u[n] = (ucol){.kind = UC_CELL, .col = c, .flex = fl, .half = half,
				      .right = t->cols[c].kind != DS_COL_STR};
			snprintf(u[n].title, sizeof u[n].title, "%s", t->cols[c].name);
			n++;
		}
	}
	/* widths: cells as wide as their widest value (at most 40), the flexible one the rest */
	for (int i = 0; i < n; i++) {
		if (u[i].kind == UC_CELL) {
			int cw = ts->colw ? ts->colw[u[i].col] : 8;
			int tw = (int)strlen(u[i].title) + 1;
			u[i].w = cw > 40 ? 40 : cw;
			if (u[i].w < tw)
				u[i].w = tw;
		}
		if (u[i].flex)
			flex = i;
		u[i].sorted = is_sorted(t, sort, &u[i]);
	}
	/* too wide: the flexible column (names, source text, disassembly)
	 * keeps its share (a third of the screen, "~~": half, or less when
	 * its widest text is shorter) while the last columns of the spec go;
	 * then it gives up its share, then the widest text cells narrow */
	{
		int natural = flex < 0 ? 0 : u[flex].kind == UC_NAME ? ts->namew + 4
					: ts->colw ? ts->colw[u[flex].col] : 0;
		int share = flex < 0 ? 0 : a->scr.w / (u[flex].half ? 2 : 3);
		int fmin = natural < share ? natural : share;
		if (flex >= 0 && fmin < 16)
			fmin = 16;
		for (;;) {
			int victim = -1;
			used = 0;
			for (int i = 0; i < n; i++)
				used += (i == flex ? fmin : u[i].w) + 1;
			if (used <= a->scr.w)
				break;
			for (int i = n - 1; i >= 0 && victim < 0; i--)
				if ((u[i].kind == UC_CELL || u[i].kind == UC_BARS) && i > flex)
					victim = i;
			if (victim >= 0) {
				/* narrowed to 12 first, then gone */
				if (u[victim].kind == UC_CELL && u[victim].w > 12 &&
				    u[victim].w > (int)strlen(u[victim].title) + 1) {
					u[victim].w--;
				} else {
					memmove(&u[victim], &u[victim + 1], (size_t)(n - victim - 1) * sizeof *u);
					n--;
				}
				continue;
			}
			/* then the flexible column gives up its share, down to 16;
			 * then text cells narrow; numbers are never cut */
			if (flex >= 0 && fmin > 16) {
				fmin--;
				continue;
			}
			for (int i = 0; i < n; i++)
				if (u[i].kind == UC_CELL && !u[i].right && i != flex && u[i].w > 6 &&
				    (victim < 0 || u[i].w > u[victim].w))
					victim = i;
			if (victim < 0)
				break;
			u[victim].w--;
		}
		if (flex >= 0)
			u[flex].w = a->scr.w - used + fmin > fmin ? a->scr.w - used + fmin : fmin;
	}
	for (int i = 0, x = 0; i < n; i++) {
		u[i].x = x;
		x += u[i].w + 1;
	}
	return n;
}

/* ---- the frame ---- */

static void draw_tabs(tui_app *a)
{
	tui_screen *s = &a->scr;
	int full = 0, brief = 0, x = 0;
	bool longnames, active_long;
	for (int i = 0; i < T_NTABS; i++) {
		full += (int)strlen(tui_tabs[i].name) + 3;
		brief += (int)strlen(tui_tabs[i].brief) + 3;
	}
	/* every name in full; else the active one's (the line below names it
	 * anyway, so on the narrowest screens it is brief too) */
	longnames = full + 1 <= s->w;
	active_long = brief + 1 + (int)strlen(tui_tabs[a->tab].name) - (int)strlen(tui_tabs[a->tab].brief) <= s->w;
	grid_fill(s, 0, 0, s->w, ST_TABBAR);
	x = 1;
	for (int i = 0; i < T_NTABS && x < s->w; i++) {
		const char *label = longnames || (i == a->tab && active_long) ? tui_tabs[i].name : tui_tabs[i].brief;
		int style = i == a->tab ? ST_TAB_ACTIVE : ST_TABBAR;
		x += grid_rawf(s, 0, x, s->w - x, style, "%c %s", tui_tabs[i].key, label);
		x += grid_raw(s, 0, x, s->w - x, ST_TABBAR, " ");
	}
}

/* How the breadcrumb names a tab's context. */
static void ctx_label(ds_buf *b, int tab, const char *ctx)
{
	const char *at;
	ds_buf_puts(b, tui_tabs[tab].name);
	if (!ctx || !*ctx)
		return;
	if (tab == T_DISASM && (ctx[0] == 'f' || ctx[0] == 'd') && ctx[1] == ':')
		ctx += 2;
	ds_buf_puts(b, ": ");
	at = tab == T_LAYOUT || tab == T_MEMOBJ || (tab == T_DISASM && ctx[-2] == 'd') ? NULL : strrchr(ctx, '@');
	if (at)
		ds_buf_append(b, ctx, (size_t)(at - ctx));
	else
		ds_buf_puts(b, ctx);
}

static void draw_crumbs(tui_app *a)
{
	tui_screen *s = &a->scr;
	ds_buf b = {0};
	const char *p;
	char *src = a->compare ? ds_xasprintf("%s -> %s", a->o->input, a->o->input2)
		    : a->o->group  ? ds_xasprintf("%s (%zu experiments, %s)", a->o->group_name, a->o->ngroup,
						  a->o->merge == DS_MERGE_MEAN ? "mean" : "sum")
				   : ds_xstrdup(a->o->input);
	int srcw = grid_width(s, src) + 1;

	for (size_t i = 0; i < a->back.n; i++) {
		ctx_label(&b, a->back.v[i].tab, a->back.v[i].ctx);
		ds_buf_puts(&b, s->g->crumb);
	}
	if (a->tabs[a->tab].by)
		ds_buf_printf(&b, "%s by %s", tui_tabs[a->tab].name, a->tabs[a->tab].by);
	else
		ctx_label(&b, a->tab, a->tabs[a->tab].ctx);
	if (a->filter)
		ds_buf_printf(&b, "  [filter: %s]", a->filter);
	if (srcw > s->w / 3)
		srcw = s->w / 3;
	p = ds_buf_str(&b);
	if (grid_width(s, p) > s->w - srcw - 1) {
		/* a long trail loses its beginning, not where the user is */
		while (*p && grid_width(s, p) > s->w - srcw - 2)
			p += ds_utf8_len(p) ? ds_utf8_len(p) : 1;
		grid_raw(s, 1, 0, 1, ST_CRUMB, s->g->ellipsis);
		grid_text(s, 1, 1, s->w - srcw - 1, ST_CRUMB, p);
	} else {
		grid_text(s, 1, 0, s->w - srcw, ST_CRUMB, p);
	}
	/* a long path keeps its end, which names the experiment */
	p = src;
	if (grid_width(s, p) > srcw - 1) {
		while (*p && grid_width(s, p) > srcw - 2)
			p += ds_utf8_len(p) ? ds_utf8_len(p) : 1;
		grid_raw(s, 1, s->w - srcw, 1, ST_DIM, s->g->ellipsis);
		grid_text(s, 1, s->w - srcw + 1, srcw - 1, ST_DIM, p);
	} else {
		grid_text_right(s, 1, s->w - srcw, srcw, ST_DIM, p);
	}
	free(src);
	ds_buf_free(&b);
}

static void draw_keys(tui_app *a)
{
	static const char *const common[][2] = {{"F1", "Help"}, {"Enter", "Open"}, {"BS", "Back"},
						{"/", "Search"}, {"f", "Filter"}, {"s", "Sort"},
						{"m", "Metrics"}, {"l", "Line"}, {"q", "Quit"}};
	tui_screen *s = &a->scr;
	const char *extra[3][2] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
	int x = 0, y = s->h - 1;

	if (a->tab == T_DATAOBJECTS) {
		extra[0][0] = "Right";
		extra[0][1] = "Fields";
	} else if (a->tab == T_TIMELINE) {
		extra[0][0] = "+-";
		extra[0][1] = "Zoom";
		extra[1][0] = "d";
		extra[1][1] = "Colour";
	} else if (a->tab == T_MEMOBJ) {
		extra[0][0] = "e";
		extra[0][1] = "Define";
		extra[1][0] = "w";
		extra[1][1] = "Save";
	}
	grid_fill(s, y, 0, s->w, ST_KEY);
	for (size_t i = 0; i < sizeof common / sizeof common[0] + 3; i++) {
		const char *k, *what;
		int need;
		if (i < 2) {
			k = common[i][0];
			what = common[i][1];
		} else if (i < 5) {
			k = extra[i - 2][0];
			what = extra[i - 2][1];
		} else {
			k = common[i - 3][0];
			what = common[i - 3][1];
		}
		if (!k)
			continue;
		need = (int)strlen(k) + (int)strlen(what) + 2;
		if (x + need > s->w)
			break;
		x += grid_raw(s, y, x, s->w - x, ST_NORMAL, k);
		x += grid_rawf(s, y, x, s->w - x, ST_KEY, " %s ", what);
	}
}

static void loading_text(const tui_app *a, char *buf, size_t n)
{
	const tab_state *ts = &a->tabs[a->tab];
	char num[32];
	buf[0] = 0;
	fmt_big(num, sizeof num, a->st.samples);
	if (!a->st.open)
		snprintf(buf, n, "opening the experiment");
	else if (!a->st.loaded)
		snprintf(buf, n, "reading samples %.0f%% (%s)", 100 * a->st.fraction, num);
	else if (ts->pending)
		/* the table shown (if any) is not the one asked for yet; views
		 * built ahead for other tabs are not this tab's business */
		snprintf(buf, n, a->st.busy && !a->st.ready ? "attributing samples to data" : "computing");
	else if (ts->partial)
		snprintf(buf, n, "partial");
}

static void draw_status(tui_app *a)
{
	tui_screen *s = &a->scr;
	const tab_state *ts = &a->tabs[a->tab];
	int y = s->h - 2, right = 0;
	char load[96];

	grid_fill(s, y, 0, s->w, ST_STATUS);
	loading_text(a, load, sizeof load);
	if (load[0]) {
		right = (int)strlen(load) + 2;
		grid_rawf(s, y, s->w - right, right, ST_WARN, " %s", load);
	}
	if (a->mode == MODE_SEARCH || a->mode == MODE_FILTER || a->mode == MODE_DEFINE) {
		const char *q = a->mode == MODE_SEARCH ? "Search: "
				: a->mode == MODE_FILTER ? "Filter (e.g. function == \"main\" && thread == 42): "
							 : "Define NAME = EXPR: ";
		int x = grid_raw(s, y, 0, s->w - right, ST_CRUMB, q);
		x += grid_text(s, y, x, s->w - right - x - 1, ST_STATUS, ds_buf_str(&a->input));
		grid_raw(s, y, x, 1, ST_SELECTED, " ");
		return;
	}
	if (a->msg) {
		grid_text(s, y, 0, s->w - right, a->msg_style, a->msg);
		return;
	}
	if (flame_shown(a, a->tab)) {
		ds_buf b = {0};
		flame_status(a, &b);
		grid_text(s, y, 0, s->w - right, ST_STATUS, ds_buf_str(&b));
		ds_buf_free(&b);
		return;
	}
	if (ts->t && a->tab != T_SUMMARY) {
		/* the selected row in full: its name and the columns the table leaves out */
		const ds_row *r = app_row(a, ts);
		ds_buf b = {0};
		char buf[512];
		if (!r)
			return;
		ds_buf_puts(&b, r->name);
		for (size_t c = 0; c < ts->t->ncols; c++) {
			bool drawn = a->tab == T_TIMELINE ? ts->t->cols[c].text : ts->shown[c];
			if (drawn || !r->cells[c].set || !strcmp(ts->t->cols[c].name, "order"))
				continue;
			ds_cell_text(buf, sizeof buf, &ts->t->cols[c], &r->cells[c], true);
			ds_buf_printf(&b, "  %s=%s", ts->t->cols[c].name, buf);
		}
		grid_text(s, y, 0, s->w - right, ST_STATUS, ds_buf_str(&b));
		ds_buf_free(&b);
	}
}

/* A message in the middle of the body, wrapped at spaces. */
static void draw_message(tui_app *a, const char *text, int style)
{
	tui_screen *s = &a->scr;
	int y = 4 + body_rows(a) / 3, width = s->w - 8;
	const char *p = text;
	while (*p && y < s->h - 2) {
		size_t len = strlen(p), cut = len;
		if ((int)len > width) {
			cut = (size_t)width;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (!cut)
				cut = (size_t)width;
		}
		char *line = ds_xstrndup(p, cut);
		grid_text(s, y++, 4, width, style, line);
		free(line);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

static int row_style(int tab, const ds_table *t, const ds_row *r)
{
	const char *kind = cell_str(t, r, "kind");
	if (tab == T_LAYOUT) {
		if (!strcmp(kind, "hole") || !strcmp(kind, "padding"))
			return ST_WARN;
		if (!strcmp(kind, "alignment"))
			return strstr(r->name, "if aligned") ? ST_WARN : ST_DIM;
		if (!strcmp(kind, "type"))
			return ST_CRUMB;
	}
	if (r->note || !strcmp(kind, "unknown"))
		return ST_DIM;
	if (tab == T_SOURCE && t->nevents && r->count[0] && pct(r->count[0], t->events[0].count) >= 1.0)
		return ST_HOT;
	/* lines the threads fight over: false or true sharing */
	if (tab == T_SHARING && (!strncmp(cell_str(t, r, "class"), "false", 5) ||
				 !strncmp(cell_str(t, r, "class"), "true", 4)))
		return ST_HOT;
	if ((tab == T_CALLERS && !strcmp(cell_str(t, r, "relation"), "function")) ||
	    (tab == T_DATAOBJECTS && !strcmp(kind, "type")))
		return ST_CRUMB;
	return ST_NORMAL;
}

static void metric_text(char *buf, size_t n, const ds_table *t, const ds_row *r, int ev, int mt)
{
	const ds_table_event *e = &t->events[ev];
	switch (mt) {
	case DS_M_PERCENT: snprintf(buf, n, "%5.1f%%", pct(r->count[ev], e->count)); break;
	case DS_M_SAMPLES: fmt_big(buf, n, r->samples[ev]); break;
	case DS_M_COUNT: fmt_count(buf, n, e, r->count[ev]); break;
	case DS_M_INCL_PERCENT: snprintf(buf, n, "%5.1f%%", pct(r->incl_count[ev], e->count)); break;
	case DS_M_INCL_SAMPLES: fmt_big(buf, n, r->incl_samples[ev]); break;
	default: fmt_count(buf, n, e, r->incl_count[ev]); break;
	}
}

/* A bar of `frac` (0..1) in w cells, in eighths. */
static void draw_bar(tui_screen *s, int y, int x, int w, int style, double frac)
{
	int eighths = (int)(frac * w * 8 + 0.5);
	for (int i = 0; i < w; i++) {
		int k = eighths - i * 8;
		grid_raw(s, y, x + i, 1, style, s->g->eighths[k < 0 ? 0 : k > 8 ? 8 : k]);
	}
}

/* The type row a layout row belongs to (the site row, in an access map). */
static const ds_row *type_row_of(const ds_table *t, size_t i)
{
	for (size_t k = i + 1; k-- > 0;)
		if (!strcmp(cell_str(t, &t->rows[k], "kind"), "type") || !strcmp(cell_str(t, &t->rows[k], "kind"), "site"))
			return &t->rows[k];
	return NULL;
}

static void draw_table(tui_app *a)
{
	tui_screen *s = &a->scr;
	tab_state *ts = &a->tabs[a->tab];
	const ds_table *t = ts->t;
	bool tree = (tab_def_of(a, a->tab)->flags & (TF_TREE | TF_DEPTH)) && !diff_table(t);
	ucol u[MAX_UCOLS];
	int n = layout_cols(a, a->tab, u), rows = body_rows(a);
	bool named = false;
	char buf[512];

	memset(ts->shown, 0, t->ncols * sizeof *ts->shown);
	for (int i = 0; i < n; i++)
		if (u[i].kind == UC_CELL)
			ts->shown[u[i].col] = true;
		else if (u[i].kind == UC_NAME)
			named = true;

	/* event names over their metrics */
	for (int i = 0; i < n; i++) {
		int j = i;
		if (u[i].kind != UC_METRIC || (i > 0 && u[i - 1].kind == UC_METRIC && u[i - 1].ev == u[i].ev))
			continue;
		while (j + 1 < n && u[j + 1].kind == UC_METRIC && u[j + 1].ev == u[i].ev)
			j++;
		grid_text(s, 2, u[i].x, u[j].x + u[j].w - u[i].x, ST_DIM, t->events[u[i].ev].name);
	}
	grid_fill(s, 3, 0, s->w, ST_HEADER);
	for (int i = 0; i < n; i++) {
		int style = u[i].sorted ? ST_SORTED : ST_HEADER;
		/* metrics and a diff's changes sort largest first, the rest ascending */
		const char *cn = u[i].kind == UC_CELL ? t->cols[u[i].col].name : "";
		bool desc = u[i].kind == UC_METRIC ||
			    (diff_table(t) && (!strncmp(cn, "delta:", 6) || !strncmp(cn, "change:", 7)));
		const char *glyph = !u[i].sorted ? "" : desc ? s->g->sort_desc : s->g->sort_asc;
		snprintf(buf, sizeof buf, "%s%s", u[i].title, glyph);
		if (u[i].right)
			grid_text_right(s, 3, u[i].x, u[i].w, style, buf);
		else
			grid_text(s, 3, u[i].x, u[i].w, style, buf);
	}
	if (!ts->vis.n) {
		const char *why = "No rows: nothing was sampled here.";
		if (ts->ctx && ts->ctx[0] && (tab_def_of(a, a->tab)->flags & TF_ROWSEL))
			why = "No sampled instructions here.";
		else if (a->tab == T_SHARING)
			why = "No cache line was shared: none had samples of two or more threads.";
		else if (a->filter)
			why = "No rows: the filter keeps no samples here (f changes it).";
		draw_message(a, why, ST_DIM);
		return;
	}
	for (int i = 0; i < rows && ts->top + (size_t)i < ts->vis.n; i++) {
		size_t vi = ts->top + (size_t)i, ri = ts->vis.v[vi];
		const ds_row *r = &t->rows[ri];
		bool sel = vi == ts->cur;
		int y = 4 + i, style = row_style(a->tab, t, r);
		if (sel)
			grid_fill(s, y, 0, s->w, ST_SELECTED);
		for (int k = 0; k < n; k++) {
			const ucol *c = &u[k];
			int st = sel ? ST_SELECTED : style;
			switch (c->kind) {
			case UC_MARK:
				if (sel)
					grid_raw(s, y, c->x, 1, ST_SELECTED, s->g->mark);
				break;
			case UC_METRIC:
				/* unsampled source lines and instructions read better blank */
				if (r->note || !t->has_metrics || ((a->tab == T_SOURCE || a->tab == T_DISASM) && !r->samples[c->ev]))
					break;
				metric_text(buf, sizeof buf, t, r, c->ev, c->mt);
				grid_text_right(s, y, c->x, c->w, sel ? ST_SELECTED : style == ST_DIM ? ST_DIM : ST_NORMAL, buf);
				break;
			case UC_NAME: {
				int x = c->x;
				if (tree && (tab_def_of(a, a->tab)->flags & TF_DEPTH)) {
					if (tree_parent(tab_def_of(a, a->tab), t, r))
						x += grid_rawf(s, y, x, 2, st, "%s ", ts->open[ri] ? s->g->open : s->g->closed);
					else
						x += grid_raw(s, y, x, 2, st, "  ");
				} else if (tree) {
					/* the hot lines' sub-rows come indented */
					if (tree_child(tab_def_of(a, a->tab), t, r))
						x += grid_raw(s, y, x, 4, st, a->tab == T_HOTLINES ? "  " : "    ");
					else if (tree_parent(tab_def_of(a, a->tab), t, r))
						x += grid_rawf(s, y, x, 2, st, "%s ", ts->open[ri] ? s->g->open : s->g->closed);
					else
						x += grid_raw(s, y, x, 2, st, "  ");
				}
				for (unsigned d = 0; d < r->depth; d++) /* its level in the tree */
					x += grid_raw(s, y, x, 2, st, "  ");
				if (!sel && a->search && *a->search && strcasestr(r->name, a->search))
					st = ST_MATCH;
				/* a note (evidence, a fix, an alignment remark) has no
				 * metrics or cells to keep clear: it takes the rest of the row */
				grid_text(s, y, x, r->note ? s->w - x : c->w - (x - c->x), st, r->name);
				break;
			}
			case UC_CELL:
				if (r->note && !named) {
					/* a note in a tab without names (annotate's source
					 * lines) takes the rest of the row from its text column */
					if (c->flex) {
						grid_text(s, y, c->x, s->w - c->x, st, r->name);
						k = n;
					}
					break;
				}
				ds_cell_text(buf, sizeof buf, &t->cols[c->col], &r->cells[c->col], true);
				if (!sel && !strcmp(t->cols[c->col].name, "verdict") && buf[0] && strcmp(buf, "ok"))
					st = ST_WARN;
				if (c->right)
					grid_text_right(s, y, c->x, c->w, st, buf);
				else
					grid_text(s, y, c->x, c->w, st, buf);
				break;
			case UC_BARS: {
				const ds_row *tr = type_row_of(t, ri);
				const char *kind = cell_str(t, r, "kind");
				if (!tr || tr == r || (strcmp(kind, "member") && strcmp(kind, "nested") && strcmp(kind, "bytes")) ||
				    !tr->samples[c->ev])
					break;
				draw_bar(s, y, c->x, c->w, sel ? ST_SELECTED : ST_BAR,
					 (double)r->samples[c->ev] / (double)tr->samples[c->ev]);
				break;
			}
			}
		}
	}
}

/* ---- summary ---- */

typedef DS_VEC(char *) strvec;

/* An experiment's facts and events, from its summary table. */
/* "label: text" wrapped at spaces into lines of at most width columns
 * (continuations indented under the text), appended to out; without a
 * label, "  text" with continuations indented by 4. */
static void wrap_field(const tui_screen *s, const char *label, const char *text, int width, strvec *out)
{
	int lw = label ? (int)strlen(label) + 2 : 4, room = width - lw > 10 ? width - lw : 10;
	const char *p = text;
	bool first = true;

	do {
		size_t cut = 0, next = 0;
		char *part;
		/* the longest run of words that fits, or one cut word */
		while (p[next]) {
			size_t end = next;
			while (p[end] == ' ')
				end++;
			while (p[end] && p[end] != ' ')
				end++;
			part = ds_xstrndup(p, end);
			if (grid_width(s, part) > room) {
				free(part);
				break;
			}
			free(part);
			cut = next = end;
		}
		if (!cut && *p) { /* a word wider than the room: as much of it as fits */
			for (cut = 1; p[cut]; cut++) {
				bool fits;
				part = ds_xstrndup(p, cut + 1);
				fits = grid_width(s, part) <= room;
				free(part);
				if (!fits)
					break;
			}
		}
		if (first && label)
			ds_vec_push(out, ds_xasprintf("%s: %.*s", label, (int)cut, p));
		else
			ds_vec_push(out, ds_xasprintf("%*s%.*s", first ? 2 : lw, "", (int)cut, p));
		first = false;
		p += cut;
		while (*p == ' ')
			p++;
	} while (*p);
}

static void experiment_lines(const ds_table *t, strvec *out)
{
	size_t w = 8;
	for (size_t i = 0; i < t->nprops; i++)
		if (strlen(t->props[i].key) > w)
			w = strlen(t->props[i].key);
	for (size_t i = 0; i < t->nprops; i++)
		ds_vec_push(out, ds_xasprintf("%-*s  %s", (int)w, t->props[i].key, t->props[i].value));
	ds_vec_push(out, ds_xstrdup(""));
	ds_vec_push(out, ds_xasprintf("%-20s %10s %8s %8s %12s %12s", "event", "period", "freq", "precise",
				      "samples", "count"));
	for (size_t r = 0; r < t->nrows; r++) {
		const ds_row *row = &t->rows[r];
		char cnt[32], per[32] = "", fr[32] = "";
		size_t e = 0;
		int c;
		for (size_t k = 0; k < t->nevents; k++)
			if (!strcmp(t->events[k].name, row->name))
				e = k;
		fmt_count(cnt, sizeof cnt, &t->events[e], row->count[e]);
		if ((c = tcol(t, "period")) >= 0 && row->cells[c].set)
			snprintf(per, sizeof per, "%" PRIu64, row->cells[c].u);
		if ((c = tcol(t, "freq")) >= 0 && row->cells[c].set)
			snprintf(fr, sizeof fr, "%" PRIu64, row->cells[c].u);
		ds_vec_push(out, ds_xasprintf("%-20s %10s %8s %8s %12" PRIu64 " %12s", row->name, per, fr,
					      cell_str(t, row, "precise"), row->samples[e], cnt));
	}
}

static void summary_lines(const tui_app *a, strvec *out)
{
	const tab_state *ts = &a->tabs[T_SUMMARY];
	const ds_table *st = ts->t2;

	if (a->compare) {
		/* the verdict, then each side */
		ds_vec_push(out, ds_xstrdup("Verdict (dsprof diff BEFORE AFTER, on the functions):"));
		for (size_t i = 0; i < ts->nverdict; i++) /* wrapped: a finding is a sentence */
			wrap_field(&a->scr, NULL, ts->verdict[i], a->scr.w - 2, out);
		ds_vec_push(out, ds_xstrdup(""));
		ds_vec_push(out, ds_xasprintf("BEFORE: %s", a->o->input));
		experiment_lines(ts->t, out);
		ds_vec_push(out, ds_xstrdup(""));
		ds_vec_push(out, ds_xasprintf("AFTER: %s", a->o->input2));
		if (st)
			experiment_lines(st, out);
		return;
	}
	experiment_lines(ts->t, out);
	if (!st)
		return;
	ds_vec_push(out, ds_xstrdup(""));
	ds_vec_push(out, ds_xstrdup("Resolution of samples to data (dsprof report --type-stats):"));
	for (size_t i = 0; i < st->nprops; i++)
		ds_vec_push(out, ds_xasprintf("  %-32s %s", st->props[i].key, st->props[i].value));
	for (size_t r = 0; r < st->nrows; r++) {
		const ds_row *row = &st->rows[r];
		uint64_t n = 0;
		double p = 0;
		int c;
		if ((c = tcol(st, "samples")) >= 0)
			n = row->cells[c].u;
		if ((c = tcol(st, "percent")) >= 0)
			p = row->cells[c].d;
		ds_vec_push(out, ds_xasprintf("  %-56s %10" PRIu64 " %6.1f%%", row->name, n, p));
	}
}

static void draw_summary(tui_app *a)
{
	tui_screen *s = &a->scr;
	tab_state *ts = &a->tabs[T_SUMMARY];
	strvec lines = {0};
	int rows = body_rows(a) + 2;
	summary_lines(a, &lines);
	if (ts->scroll + (size_t)rows > lines.n)
		ts->scroll = lines.n > (size_t)rows ? lines.n - (size_t)rows : 0;
	for (int i = 0; i < rows && ts->scroll + (size_t)i < lines.n; i++)
		grid_text(s, 2 + i, 1, s->w - 2, ST_NORMAL, lines.v[ts->scroll + (size_t)i]);
	for (size_t i = 0; i < lines.n; i++)
		free(lines.v[i]);
	ds_vec_free(&lines);
}

/* ---- timeline ---- */

static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static void fmt_time(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 10000000000ull)
		snprintf(buf, n, "%.2fs", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, n, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3fus", (double)ns / 1e3);
}

typedef struct legend {
	ds_hash *ids;
	DS_VEC(const char *) names;
	ds_vec_u64 n;
	ds_vec_u32 order;     /* ids by slices, most first */
	ds_vec_u32 letter;    /* per id: its index in letters, or -1 */
} legend;

static int cmp_legend(const void *x, const void *y, void *arg)
{
	const legend *l = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (l->n.v[a] != l->n.v[b])
		return l->n.v[a] > l->n.v[b] ? -1 : 1;
	return strcmp(l->names.v[a], l->names.v[b]);
}

static void draw_timeline(tui_app *a)
{
	tui_screen *s = &a->scr;
	tab_state *ts = &a->tabs[T_TIMELINE];
	const ds_table *t = ts->t;
	const char *col = ts->by_object ? "dataobject" : "function";
	int x0 = 20, sw = timeline_slices(a), rows = body_rows(a), legend_rows;
	int c = tcol(t, "tid"), sc = tcol(t, "slice");
	uint64_t from = 0, to = 0, width = 0;
	legend lg = {0};
	char b1[32], b2[32];
	int x, y;

	if (c < 0 || sc < 0) { /* not the timeline view's table */
		draw_message(a, "This table has no threads and time slices to draw.", ST_WARN);
		return;
	}
	for (size_t i = 0; i < t->nprops; i++) {
		if (!strcmp(t->props[i].key, "from_ns"))
			from = strtoull(t->props[i].value, NULL, 10);
		if (!strcmp(t->props[i].key, "to_ns"))
			to = strtoull(t->props[i].value, NULL, 10);
		if (!strcmp(t->props[i].key, "slice_ns"))
			width = strtoull(t->props[i].value, NULL, 10);
	}
	if (sw > s->w - x0)
		sw = s->w - x0;
	fmt_time(b1, sizeof b1, from);
	fmt_time(b2, sizeof b2, to);
	grid_text(s, 2, x0, sw / 2, ST_DIM, b1);
	grid_text_right(s, 2, x0 + sw / 2, sw - sw / 2, ST_DIM, b2);
	fmt_time(b1, sizeof b1, width);
	grid_fill(s, 3, 0, s->w, ST_HEADER);
	grid_raw(s, 3, 0, x0, ST_HEADER, "thread");
	grid_rawf(s, 3, x0, sw, ST_HEADER, "%s a column, by %s (+ - zoom, d: %s)", b1, col,
		 ts->by_object ? "functions" : "data objects");

	/* letters for the names, most slices first */
	lg.ids = ds_hash_new();
	for (size_t i = 0; i < t->nrows; i++) {
		const char *name = cell_str(t, &t->rows[i], col);
		bool added;
		size_t id;
		if (!*name)
			continue;
		id = ds_hash_intern(lg.ids, name, strlen(name), &added);
		if (added) {
			ds_vec_push(&lg.names, name);
			ds_vec_push(&lg.n, 0);
			ds_vec_push(&lg.order, (uint32_t)id);
			ds_vec_push(&lg.letter, UINT32_MAX);
		}
		lg.n.v[id]++;
	}
	ds_sort_r(lg.order.v, lg.order.n, sizeof *lg.order.v, cmp_legend, &lg);
	for (size_t k = 0; k < lg.order.n && k < sizeof letters - 1; k++)
		lg.letter.v[lg.order.v[k]] = (uint32_t)k;

	legend_rows = rows / 3 > 1 ? rows / 3 : 1;
	for (int i = 0; i < rows - legend_rows && ts->top + (size_t)i < ts->vis.n; i++) {
		size_t vi = ts->top + (size_t)i, ri = ts->vis.v[vi];
		const ds_row *first = &t->rows[ri];
		char label[64];
		uint64_t tidv = first->cells[c].u;
		y = 4 + i;
		snprintf(label, sizeof label, "%" PRIu64, tidv);
		grid_text(s, y, 0, x0 - (int)strlen(label) - 2, vi == ts->cur ? ST_SELECTED : ST_NORMAL, first->name);
		grid_text_right(s, y, x0 - (int)strlen(label) - 2, (int)strlen(label) + 1,
			       vi == ts->cur ? ST_SELECTED : ST_DIM, label);
		for (size_t k = ri; k < t->nrows && t->rows[k].cells[c].u == tidv; k++) {
			const char *name = cell_str(t, &t->rows[k], col);
			uint64_t sl = t->rows[k].cells[sc].u;
			char ch[2] = {'.', 0};
			int style = ST_NORMAL;
			if (sl >= (uint64_t)sw)
				continue;
			if (*name) {
				uint32_t id = (uint32_t)ds_hash_find(lg.ids, name, strlen(name));
				uint32_t l = lg.letter.v[id];
				ch[0] = l == UINT32_MAX ? '*' : letters[l];
				style = l == UINT32_MAX ? ST_DIM : ST_PAL + (int)(l % ST_NPAL);
			}
			grid_raw(s, y, x0 + (int)sl, 1, style, ch);
		}
		if (vi == ts->cur && ts->slice < (size_t)sw)
			grid_restyle(s, y, x0 + (int)ts->slice, 1, ST_SELECTED);
	}
	if (!ts->vis.n)
		draw_message(a, "No samples in this window.", ST_DIM);
	/* the legend */
	y = 4 + rows - legend_rows;
	x = 0;
	for (size_t k = 0; k < lg.order.n && k < sizeof letters - 1 && y < 4 + rows; k++) {
		const char *name = lg.names.v[lg.order.v[k]];
		int need = 2 + (grid_width(s, name) > 28 ? 28 : grid_width(s, name)) + 2;
		if (x + need > s->w) {
			y++;
			x = 0;
			if (y >= 4 + rows)
				break;
		}
		x += grid_rawf(s, y, x, 1, ST_PAL + (int)(k % ST_NPAL), "%c", letters[k]);
		x += grid_raw(s, y, x, 1, ST_NORMAL, " ");
		x += grid_text(s, y, x, 28, ST_NORMAL, name);
		x += grid_raw(s, y, x, 2, ST_NORMAL, "  ");
	}
	ds_hash_free(lg.ids);
	ds_vec_free(&lg.names);
	ds_vec_free(&lg.n);
	ds_vec_free(&lg.order);
	ds_vec_free(&lg.letter);
}

/* ---- help and menus ---- */

/* The help screen: a NULL key starts a section, "" continues a line. */
static const char *const help_text[][2] = {
	{NULL, "Moving"},
	{"Up Down, k j", "move the cursor (Timeline: between threads)"},
	{"PgUp PgDn, C-b C-f", "a page up, down; C-u C-d: half a page"},
	{"Home End, g G", "the first, the last row"},
	{"Right Left, + -", "DataObjects, HotLines, Sharing: show, hide the rows"},
	{"", "folded under a type, a cache line"},
	{"Space", "there: show or hide them; elsewhere a page down"},
	{NULL, "Tabs"},
	{"Tab S-Tab", "the next, the previous tab"},
	{"1 2 3 4 5", "Functions, Callers-Callees, Source, Disassembly,"},
	{"", "DataObjects"},
	{"6 7 8 9 0 i", "DataLayout, MemObjects, HotLines, Sharing, Timeline,"},
	{"", "Summary"},
	{"h t", "Heap, CallTree"},
	{NULL, "Looking closer"},
	{"Enter", "drill down: a function to its source; a source line"},
	{"", "to its instructions; an instruction to its line; a"},
	{"", "caller or callee to its own callers and callees; a"},
	{"", "type to its layout; a field or a member to the"},
	{"", "instructions that touch it; a hot line to its fields,"},
	{"", "threads and functions, and those to their code; a"},
	{"", "shared line to its threads, evidence and fix, and those"},
	{"", "to the layout of the type on it"},
	{"BS Esc", "back to where Enter came from (see the breadcrumb)"},
	{"/ F3", "search the rows' names and text"},
	{"n N", "the next, the previous match"},
	{"S", "DataObjects, DataLayout: a new member order for the selected"},
	{"", "type, from its profile, and its predicted effect (as dsprof"},
	{"", "layout --suggest prints it)"},
	{"H", "the next hottest row: in Disassembly the function's next hottest"},
	{"", "instruction, in Source its next hottest line"},
	{"f F4", "filter the samples, e.g. function == \"main\" && thread == 42;"},
	{"", "also field dataobject cacheline verdict VADDR MOBJ(name)...; empty: none"},
	{"s F6", "sort by a column, as dsprof report --sort does"},
	{"m", "choose the metric columns of each event"},
	{"b", "regroup this tab by other keys (function, field, cacheline...)"},
	{"v", "the selected row in full: every column, long text wrapped"},
	{"l", "the cache lines of DataLayout, HotLines and Sharing:"},
	{"", "a level's (L1D L2 L3, measured), or a size"},
	{NULL, "MemObjects"},
	{"Enter", "pick a predefined, machine, your or this session's one"},
	{"e", "define one for this session: NAME = EXPR"},
	{"w", "save the one shown to your memory objects file"},
	{NULL, "CallTree"},
	{"F", "the tree as a flame graph (an icicle: callers above), and back"},
	{"Left Right", "there: the frame before, after on its line"},
	{"Up Down", "its caller, its widest callee"},
	{"Enter BS", "zoom into the frame, out a level; Home: the whole graph"},
	{"/ n N", "search: the frames that match, and their share of the samples"},
	{NULL, "Timeline"},
	{"Left Right", "move along time"},
	{"+ - z Z", "zoom in, out around the cursor; Home: the whole run"},
	{"d", "colour by data object instead of function, and back"},
	{NULL, "Other"},
	{"? F1", "this help: Up Down scroll it, other keys close it"},
	{"C-l", "draw the screen again"},
	{"q F10 C-c", "quit"},
};

size_t help_lines(void)
{
	return sizeof help_text / sizeof help_text[0];
}

const char *help_line(size_t i, char *buf, size_t n)
{
	if (!help_text[i][0])
		snprintf(buf, n, "%s", help_text[i][1]);
	else
		snprintf(buf, n, "  %-19s %s", help_text[i][0], help_text[i][1]);
	return buf;
}

static void draw_help(tui_app *a)
{
	tui_screen *s = &a->scr;
	int rows = body_rows(a) + 2;
	char buf[256];
	grid_fill(s, 2, 0, s->w, ST_HEADER);
	grid_raw(s, 2, 1, s->w - 2, ST_HEADER, "Keys of dsprof tui (man dsprof-tui tells more)");
	for (int i = 0; i < rows - 1 && a->help_top + (size_t)i < help_lines(); i++) {
		size_t k = a->help_top + (size_t)i;
		grid_raw(s, 3 + i, 1, s->w - 2, help_text[k][0] ? ST_NORMAL : ST_CRUMB, help_line(k, buf, sizeof buf));
	}
}

static void draw_menu(tui_app *a)
{
	tui_screen *s = &a->scr;
	menu *m = &a->menu;
	int w = (int)strlen(m->title) + 4, h, x, y, rows;
	for (size_t i = 0; i < m->items.n; i++) {
		int iw = grid_width(s, m->items.v[i]) + 8;
		if (iw > w)
			w = iw;
	}
	if (w > s->w - 4)
		w = s->w - 4;
	rows = (int)m->items.n < s->h - 8 ? (int)m->items.n : s->h - 8;
	h = rows + 2;
	x = (s->w - w) / 2;
	y = (s->h - h) / 2;
	if (m->cur < m->top)
		m->top = m->cur;
	if (m->cur >= m->top + (size_t)rows)
		m->top = m->cur - (size_t)rows + 1;
	grid_fill(s, y, x, w, ST_POPUP_SEL);
	grid_raw(s, y, x + 1, w - 2, ST_POPUP_SEL, m->title);
	for (int i = 0; i < rows; i++) {
		size_t k = m->top + (size_t)i;
		int st = k == m->cur ? ST_POPUP_SEL : ST_POPUP;
		int cx = x + 1;
		grid_fill(s, y + 1 + i, x, w, st);
		if (m->kind == MENU_METRICS || (m->kind == MENU_BY && k > 0))
			cx += grid_raw(s, y + 1 + i, cx, 4, st, m->on.v[k] ? "[x] " : "[ ] ");
		grid_text(s, y + 1 + i, cx, w - (cx - x) - 1, st, m->items.v[k]);
	}
	grid_fill(s, y + h - 1, x, w, ST_POPUP);
	grid_raw(s, y + h - 1, x + 1, w - 2, ST_POPUP,
		m->kind == MENU_METRICS ? "Space toggles, Enter or Esc closes"
		: m->kind == MENU_BY	? "Space adds a key (in order), Enter groups, Esc cancels"
					: "Enter chooses, Esc cancels");
}

/* The selected row in full: its name, every column with a value and each
 * event's metrics, long text wrapped; Up and Down scroll. */
static void draw_detail(tui_app *a)
{
	tui_screen *s = &a->scr;
	const tab_state *ts = &a->tabs[a->tab];
	const ds_table *t = ts->t;
	const ds_row *r = app_row(a, ts);
	strvec lines = {0};
	char buf[512], m[4][64];
	int rows = body_rows(a) + 1, width = s->w - 4;

	wrap_field(s, t->name_label ? t->name_label : "name", r->name, width, &lines);
	for (size_t c = 0; c < t->ncols; c++) {
		if (!r->cells[c].set || !strcmp(t->cols[c].name, "order"))
			continue;
		wrap_field(s, t->cols[c].name, ds_cell_text(buf, sizeof buf, &t->cols[c], &r->cells[c], true), width,
			   &lines);
	}
	for (size_t e = 0; t->has_metrics && e < t->nevents; e++) {
		metric_text(m[0], sizeof m[0], t, r, (int)e, DS_M_PERCENT);
		metric_text(m[1], sizeof m[1], t, r, (int)e, DS_M_SAMPLES);
		metric_text(m[2], sizeof m[2], t, r, (int)e, DS_M_COUNT);
		snprintf(buf, sizeof buf, "%s of the samples, %s samples, count %s", m[0], m[1], m[2]);
		wrap_field(s, t->events[e].name, buf, width, &lines);
	}
	if (a->help_top >= lines.n)
		a->help_top = lines.n ? lines.n - 1 : 0;
	grid_fill(s, 2, 0, s->w, ST_HEADER);
	grid_raw(s, 2, 1, s->w - 2, ST_HEADER, "The row in full (Up Down scroll, other keys close)");
	for (int i = 0; i < rows - 1 && a->help_top + (size_t)i < lines.n; i++)
		grid_text(s, 3 + i, 2, width, ST_NORMAL, lines.v[a->help_top + (size_t)i]);
	for (size_t i = 0; i < lines.n; i++)
		free(lines.v[i]);
	ds_vec_free(&lines);
}

/* A layout suggestion, a line of the text a row. */
static void draw_text(tui_app *a)
{
	tui_screen *s = &a->scr;
	int rows = body_rows(a) + 1;
	size_t n = 0, skip = a->help_top;
	char title[256];

	for (const char *p = a->text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n++;
	if (a->help_top >= n)
		a->help_top = skip = n ? n - 1 : 0;
	grid_fill(s, 2, 0, s->w, ST_HEADER);
	snprintf(title, sizeof title, "A member order for %s (Up Down PgUp PgDn scroll, other keys close)",
		 a->text_title ? a->text_title : "the type");
	grid_text(s, 2, 1, s->w - 2, ST_HEADER, title);
	for (const char *p = a->text; p && *p && rows > 1;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (skip) {
			skip--;
		} else {
			ds_buf line = {0};
			for (size_t i = 0; i < len; i++)
				ds_buf_puts(&line, p[i] == '\t' ? "    " : (char[2]){p[i], 0});
			grid_text(s, 3 + (body_rows(a) + 1 - rows), 1, s->w - 2, ST_NORMAL, ds_buf_str(&line));
			ds_buf_free(&line);
			rows--;
		}
		p += len + (nl ? 1 : 0);
	}
}

/* ---- the whole screen ---- */

void draw(tui_app *a)
{
	tui_screen *s = &a->scr;
	tab_state *ts = &a->tabs[a->tab];
	char load[96];

	grid_clear(s);
	a->dirty = false;
	if (s->w < MIN_W || s->h < MIN_H) {
		grid_rawf(s, s->h / 2 - 1, 0, s->w, ST_WARN, "dsprof tui needs %dx%d at least;", MIN_W, MIN_H);
		grid_rawf(s, s->h / 2, 0, s->w, ST_WARN, "this terminal is %dx%d.", s->w, s->h);
		grid_raw(s, s->h / 2 + 1, 0, s->w, ST_NORMAL, "Make it larger, or q to quit.");
		return;
	}
	draw_tabs(a);
	draw_crumbs(a);
	if (a->mode == MODE_HELP) {
		draw_help(a);
	} else if (a->mode == MODE_DETAIL && app_row(a, ts)) {
		draw_detail(a);
	} else if (a->mode == MODE_TEXT) {
		draw_text(a);
	} else if (ts->t && a->tab == T_SUMMARY) {
		draw_summary(a);
	} else if (ts->t && a->tab == T_TIMELINE) {
		draw_timeline(a);
	} else if (flame_shown(a, a->tab)) {
		draw_flame(a);
	} else if (ts->t) {
		draw_table(a);
	} else if (ts->msg) {
		draw_message(a, ts->msg, ST_WARN);
	} else {
		loading_text(a, load, sizeof load);
		if (a->st.open && !a->st.loaded && !(tab_def_of(a, a->tab)->flags & TF_PARTIAL))
			draw_message(a, "This tab needs every sample: it shows when they are read.", ST_DIM);
		else
			draw_message(a, load[0] ? load : "computing", ST_DIM);
	}
	draw_status(a);
	draw_keys(a);
	if (a->mode == MODE_MENU)
		draw_menu(a);
}
