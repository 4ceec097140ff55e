/*
 * The application: tabs, where the user is, and what each key does.
 *
 * Every tab shows one analyze/ view, chosen by the table below: adding a
 * tab for a new view is a line there.  A tab's view is asked of the worker
 * with a context (the function, type or memory object the user selected
 * last, or drilled into) and the user's sort; the table that comes back is
 * shown as it is.  Choosing which rows to show (a function's instructions,
 * a type's fields folded under it) and where the cursor is are the only
 * things decided here.
 *
 * Enter drills down and remembers where it came from; Backspace and Esc go
 * back; switching tabs starts a new trail.  The breadcrumb shows the trail.
 */
#include "tui/tui_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memobj/memobj.h"

const tab_def tui_tabs[T_NTABS] = {
	[T_FUNCTIONS] = {"Functions", "Fun", '1', "functions", TF_PARTIAL, "@ M ~name module", NULL,
			 "functions by samples, exclusive and (with call chains) inclusive"},
	[T_CALLERS] = {"Callers-Callees", "Cal", '2', "callers", TF_PARTIAL | TF_FUNCTION,
		       "@ relation M ~name module", NULL,
		       "who calls the selected function and whom it calls"},
	[T_SOURCE] = {"Source", "Src", '3', "source", TF_FUNCTION, "@ line M ~~name dataobject", NULL,
		      "the selected function's source file, every line with its metrics"},
	[T_DISASM] = {"Disassembly", "Asm", '4', "pcs", TF_FUNCTION | TF_ROWSEL,
		      "@ address M ~disasm dataobject verdict line trigger", "address",
		      "the selected function's every instruction (H: the next hottest), or the sampled "
		      "instructions of a data object, with the struct.field they touch"},
	[T_DATAOBJECTS] = {"DataObjects", "Dat", '5', "dataobjects", TF_TREE, "@ M ~name kind", NULL,
			   "types (Right/Left: their fields), globals, stack and unknown buckets", "type",
			   "field padding"},
	[T_LAYOUT] = {"DataLayout", "Lay", '6', "datalayout", TF_TYPE | TF_LINE, "@ offset size M bars ~name", NULL,
		      "the type's members in offset order, holes, padding, cache lines, alignment"},
	[T_MEMOBJ] = {"MemObjects", "Mem", '7', "memobj", 0, "@ M ~name *", NULL,
		      "samples by memory object: cache lines, sets, pages, your own"},
	[T_HOTLINES] = {"HotLines", "Hot", '8', "hotlines", TF_TREE | TF_LINE,
			"@ M ~name offsets loads stores nthreads threads", NULL,
			"the hottest cache lines; Enter shows their data, threads and code", "line",
			"object code"},
	[T_SHARING] = {"Sharing", "Shr", '9', "sharing", TF_TREE | TF_LINE,
		       "@ M ~name class loads stores hitm reads writes dataobjects", NULL,
		       "lines two or more threads touched: false or true sharing, who, and the fix", "line",
		       "thread evidence fix check"},
	[T_HEAP] = {"Heap", "Hep", 'h', "heap", 0, "@ M ~name asite blocks bytes peak_bytes avg_lifetime", NULL,
		    "allocation sites (record --heap): their blocks and samples; Enter: a site's fields"},
	[T_CALLTREE] = {"CallTree", "Tre", 't', "calltree", TF_DEPTH, "@ M ~name module", NULL,
			"the calling-context tree from the thread's start down (Right/Left: unfold, "
			"fold; Enter: the function's callers and callees)"},
	[T_TIMELINE] = {"Timeline", "Tim", '0', "timeline", 0, NULL, NULL,
			"per-thread strips over time, by function or data object"},
	[T_SUMMARY] = {"Summary", "Sum", 'i', "summary", 0, NULL, NULL,
		       "the experiment, machine, events, lost samples and resolution statistics"},
};

/* A tab regrouped with b shows the samples grouped by the keys chosen
 * (dsprof report --by): every column of the grouping, its rows as a tree. */
static const tab_def by_tab = {"By", "By", 'b', "by", TF_LINE, "@ M ~name *", NULL,
			       "the samples grouped by the keys chosen with b", NULL, NULL};

const tab_def *tab_def_of(const tui_app *a, int tab)
{
	return a->tabs[tab].by ? &by_tab : &tui_tabs[tab];
}

const char *tab_cols(const tui_app *a, int tab)
{
	const ds_table *t = a->tabs[tab].t;
	/* a function annotated whole: what its code touches, then (sampled
	 * instructions) how backtracking went and what the samples touched */
	if (tab == T_DISASM && !a->tabs[tab].by && t && t->view && !strcmp(t->view, "annotate"))
		return "@ address M ~disasm access verdict dataobject taken line trigger";
	return tab_def_of(a, tab)->cols;
}

/* ---- tables ---- */

int tcol(const ds_table *t, const char *name)
{
	for (size_t c = 0; t && c < t->ncols; c++)
		if (strcmp(t->cols[c].name, name) == 0)
			return (int)c;
	return -1;
}

bool diff_table(const ds_table *t)
{
	return tcol(t, "status") >= 0 && tcol(t, "before_name") >= 0 && tcol(t, "after_name") >= 0;
}

const char *cell_str(const ds_table *t, const ds_row *r, const char *col)
{
	int c = tcol(t, col);
	return c >= 0 && r->cells[c].set && r->cells[c].s ? r->cells[c].s : "";
}

static bool cell_u64(const ds_table *t, const ds_row *r, const char *col, uint64_t *v)
{
	int c = tcol(t, col);
	if (c < 0 || !r->cells[c].set)
		return false;
	*v = r->cells[c].u;
	return true;
}

static const ds_row *timeline_row(const tab_state *ts);

const ds_row *app_row(const tui_app *a, const tab_state *ts)
{
	if (ts == &a->tabs[T_TIMELINE])
		return timeline_row(ts);
	if (ts == &a->tabs[T_CALLTREE] && flame_shown(a, T_CALLTREE))
		return ts->fl_sel < ts->t->nrows ? &ts->t->rows[ts->fl_sel] : NULL;
	if (!ts->t || ts->cur >= ts->vis.n)
		return NULL;
	return &ts->t->rows[ts->vis.v[ts->cur]];
}

static bool view_exists(const char *view)
{
	for (const char *const *v = ds_view_names(); *v; v++)
		if (strcmp(*v, view) == 0 || (strncmp(*v, view, strlen(view)) == 0 && (*v)[strlen(view)] == ':'))
			return true;
	return false;
}

static void set_str(char **dst, const char *src)
{
	char *n = src ? ds_xstrdup(src) : NULL;
	free(*dst);
	*dst = n;
}

static void message(tui_app *a, int style, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void message(tui_app *a, int style, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(a->msg);
	a->msg = ds_buf_steal(&b);
	a->msg_style = style;
}

/* The function the Disassembly tab annotates whole (its context "f:NAME"),
 * NULL when it shows a data object's sampled instructions or every one. */
static const char *annotated(const tab_state *ts)
{
	return ts->ctx && ts->ctx[0] == 'f' && ts->ctx[1] == ':' && ts->ctx[2] ? ts->ctx + 2 : NULL;
}

/* "NAME@MODULE" of a row that names a function (in its name or in a
 * column), NULL when it names none. */
static char *row_function(const tab_state *ts, int tab, const ds_row *r)
{
	const ds_table *t = ts->t;
	const char *name = NULL, *module = cell_str(t, r, "module");
	if (tab == T_DISASM && tcol(t, "function") < 0) /* annotate's: one function */
		return annotated(ts) ? ds_xstrdup(annotated(ts)) : NULL;
	switch (tab) {
	case T_FUNCTIONS:
		name = r->name;
		break;
	case T_CALLERS:
		name = strcmp(r->name, "<no caller>") ? r->name : NULL;
		break;
	case T_CALLTREE:
		name = r->name;
		break;
	case T_DISASM:
	case T_SOURCE:
	case T_TIMELINE:
	case T_HOTLINES:
		name = cell_str(t, r, "function");
		if (tab == T_SOURCE && ts->ctx && strrchr(ts->ctx, '@'))
			module = strrchr(ts->ctx, '@') + 1;
		break;
	default:
		break;
	}
	if (!name || !*name || name[0] == '[')
		return NULL;
	return *module ? ds_xasprintf("%s@%s", name, module) : ds_xstrdup(name);
}

/* The type a row of the data tabs is about. */
static const char *row_type(const tab_state *ts, int tab, const ds_row *r)
{
	const char *kind = cell_str(ts->t, r, "kind");
	if ((tab == T_DATAOBJECTS && (!strcmp(kind, "type") || !strcmp(kind, "field") || !strcmp(kind, "padding") ||
				       !strcmp(kind, "via"))) ||
	    tab == T_LAYOUT)
		return *cell_str(ts->t, r, "type") ? cell_str(ts->t, r, "type") : NULL;
	return NULL;
}

/* The cursor is on a row: it becomes the selected function or type. */
static void follow_cursor(tui_app *a)
{
	tab_state *ts = &a->tabs[a->tab];
	const ds_row *r = app_row(a, ts);
	char *f;
	if (!r)
		return;
	if ((f = row_function(ts, a->tab, r))) {
		free(a->function);
		a->function = f;
	}
	if (row_type(ts, a->tab, r))
		set_str(&a->type, row_type(ts, a->tab, r));
}

/* ---- which rows show ---- */

static bool row_in_context(const tab_state *ts, int tab, const ds_row *r)
{
	const ds_table *t = ts->t;
	if (tab == T_DISASM && t->view && !strcmp(t->view, "annotate")) {
		/* one function's: none until the one asked for comes */
		const char *f = annotated(ts);
		for (size_t i = 0; f && i < t->nprops; i++)
			if (!strcmp(t->props[i].key, "function"))
				return !strcmp(t->props[i].value, f);
		return false;
	}
	if (tab == T_DISASM && ts->ctx && ts->ctx[0]) {
		const char *v = ts->ctx + 2;
		if (ts->ctx[0] == 'd') {
			/* a member that is a struct or union: everything in it */
			const char *o = cell_str(t, r, "dataobject");
			size_t n = strlen(v);
			return strncmp(o, v, n) == 0 && (!o[n] || o[n] == '.' || o[n] == '[');
		}
		if (ts->ctx[0] == 'f') {
			const char *at = strrchr(v, '@');
			size_t n = at ? (size_t)(at - v) : strlen(v);
			const char *fn = cell_str(t, r, "function");
			return strlen(fn) == n && strncmp(fn, v, n) == 0 &&
			       (!at || strcmp(cell_str(t, r, "module"), at + 1) == 0);
		}
	}
	return true;
}

static bool kind_in(const char *kind, const char *list)
{
	size_t n = strlen(kind);
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, " ");
		if (len == n && n && !strncmp(p, kind, n))
			return true;
		p += len;
		p += *p == ' ';
	}
	return false;
}

/* Tree tabs: whether a row folds under the one before it, or folds
 * others.  A diff is in the order of the changes, not the view's: no rows
 * fold. */
bool tree_child(const tab_def *td, const ds_table *t, const ds_row *r)
{
	if (td->flags & TF_DEPTH)
		return !diff_table(t) && r->depth > 0;
	return (td->flags & TF_TREE) && !diff_table(t) && kind_in(cell_str(t, r, "kind"), td->children);
}

bool tree_parent(const tab_def *td, const ds_table *t, const ds_row *r)
{
	if (td->flags & TF_DEPTH)
		return !diff_table(t) && r + 1 < t->rows + t->nrows && r[1].depth > r->depth;
	return (td->flags & TF_TREE) && !diff_table(t) && kind_in(cell_str(t, r, "kind"), td->parent);
}

/* A tree of any depth: the rows no folded row above hides. */
static void depth_vis(tab_state *ts)
{
	unsigned folded = UINT_MAX; /* the depth of the folded row whose subtree this is */

	for (size_t i = 0; i < ts->t->nrows; i++) {
		const ds_row *r = &ts->t->rows[i];
		if (r->depth > folded)
			continue;
		folded = UINT_MAX;
		ds_vec_push(&ts->vis, (uint32_t)i);
		if (r + 1 < ts->t->rows + ts->t->nrows && r[1].depth > r->depth && !ts->open[i])
			folded = r->depth;
	}
}

/* How wide the shown rows' names and cells are (the first few thousand:
 * wider ones further down are cut). */
static void measure(tui_app *a, tab_state *ts)
{
	char buf[512];
	if (!ts->t)
		return;
	ts->namew = 0;
	memset(ts->colw, 0, ts->t->ncols * sizeof *ts->colw);
	for (size_t k = 0; k < ts->vis.n && k < 5000; k++) {
		const ds_row *r = &ts->t->rows[ts->vis.v[k]];
		int w = 2 * (int)r->depth + grid_width(&a->scr, r->name);
		if (w > ts->namew)
			ts->namew = w > 200 ? 200 : w;
		for (size_t c = 0; c < ts->t->ncols; c++) {
			ds_cell_text(buf, sizeof buf, &ts->t->cols[c], &r->cells[c], true);
			if (ts->colw[c] < 60 && (w = grid_width(&a->scr, buf)) > ts->colw[c])
				ts->colw[c] = w > 60 ? 60 : w;
		}
	}
}

/* A tree of any depth comes with the paths that hold at least 1% of the
 * first event's samples unfolded: the hot paths, as Oracle's call tree
 * opens them. */
static void open_hot(tab_state *ts)
{
	const ds_table *t = ts->t;
	uint64_t total = t->nevents ? t->events[0].samples : 0;

	for (size_t i = 0; i < t->nrows; i++) {
		const ds_row *r = &t->rows[i];
		uint64_t n = r->incl_samples ? r->incl_samples[0] : r->samples ? r->samples[0] : 0;
		ts->open[i] = total && n * 100 >= total;
	}
}

/* Which rows show, in order: the context's (disassembly), or types with
 * the fields of the open ones (data objects). */
static void compute_vis(tui_app *a, int tab)
{
	tab_state *ts = &a->tabs[tab];
	bool open_type = false;
	ts->vis.n = 0;
	if (!ts->t)
		return;
	if ((tab_def_of(a, tab)->flags & TF_DEPTH) && !diff_table(ts->t)) {
		depth_vis(ts);
		if (ts->cur >= ts->vis.n)
			ts->cur = ts->vis.n ? ts->vis.n - 1 : 0;
		measure(a, ts);
		return;
	}
	for (size_t i = 0; i < ts->t->nrows; i++) {
		const ds_row *r = &ts->t->rows[i];
		if (tree_child(tab_def_of(a, tab), ts->t, r)) {
			if (!open_type)
				continue;
		} else {
			open_type = tree_parent(tab_def_of(a, tab), ts->t, r) && ts->open[i];
		}
		if (row_in_context(ts, tab, r))
			ds_vec_push(&ts->vis, (uint32_t)i);
	}
	if (ts->cur >= ts->vis.n)
		ts->cur = ts->vis.n ? ts->vis.n - 1 : 0;
	measure(a, ts);
}

/* Put the cursor on the first shown row whose column `col` is `val` (the
 * name for col NULL), numbers compared as they are shown; false when none
 * is. */
static bool focus(tab_state *ts, const char *col, const char *val)
{
	int c = col ? tcol(ts->t, col) : -1;
	char buf[512];
	if (col && c < 0)
		return false;
	for (size_t i = 0; i < ts->vis.n; i++) {
		const ds_row *r = &ts->t->rows[ts->vis.v[i]];
		if (col)
			ds_cell_text(buf, sizeof buf, &ts->t->cols[c], &r->cells[c], true);
		if (strcmp(col ? buf : r->name, val) == 0) {
			ts->cur = i;
			return true;
		}
	}
	return false;
}

/* The Source tab opens at the function's hottest line, the Disassembly
 * tab at its hottest instruction. */
static void focus_hottest(tab_state *ts, const char *function)
{
	char *name = ds_xstrdup(function);
	char *at = strrchr(name, '@');
	bool by_name = tcol(ts->t, "function") >= 0, any = false;
	uint64_t best = 0;
	if (at)
		*at = 0;
	for (size_t i = 0; i < ts->vis.n; i++) {
		const ds_row *r = &ts->t->rows[ts->vis.v[i]];
		uint64_t n = ts->t->nevents ? r->samples[0] : 0;
		if ((!by_name || strcmp(cell_str(ts->t, r, "function"), name) == 0) && !r->note && (!any || n > best)) {
			best = n;
			ts->cur = i;
			any = true;
		}
	}
	free(name);
}

/* ---- asking for views ---- */

/* The context a tab is shown with when switched to: the selection. */
static char *default_ctx(const tui_app *a, int tab)
{
	unsigned f = tab_def_of(a, tab)->flags;
	if (tab == T_DISASM)
		return a->function ? ds_xasprintf("f:%s", a->function) : ds_xstrdup("");
	if (f & TF_FUNCTION)
		return ds_xstrdup(a->function ? a->function : "");
	if (f & TF_TYPE)
		return ds_xstrdup(a->type ? a->type : "");
	if (tab == T_MEMOBJ)
		return ds_xstrdup(a->mobj ? a->mobj : "");
	return ds_xstrdup("");
}

static const char *tab_sort(const tui_app *a, int tab)
{
	const tab_state *ts = &a->tabs[tab];
	return ts->sort ? ts->sort : tab_def_of(a, tab)->sort;
}

/* Slices of the timeline: one per column of its strips. */
int timeline_slices(const tui_app *a)
{
	int n = a->scr.w - 20;
	return n > 10 ? n : 10;
}

/* What the tab's table must have been built with; a different one is
 * asked for. */
static char *request_key(const tui_app *a, int tab)
{
	const tab_state *ts = &a->tabs[tab];
	const char *sort = tab_sort(a, tab);
	const tab_def *td = tab_def_of(a, tab);
	bool lines = (td->flags & TF_LINE) != 0;
	/* a tab that picks its rows from one table has it whatever its context,
	 * but for a function annotated whole */
	bool by_ctx = !(td->flags & TF_ROWSEL) || (annotated(ts) && !a->compare);
	return ds_xasprintf("%s|%s|%u|%s|%llu|%llu|%d|%s|%s", by_ctx && ts->ctx ? ts->ctx : "", sort ? sort : "",
			    lines ? a->line : 0, lines && a->level ? a->level : "", (unsigned long long)ts->from,
			    (unsigned long long)ts->to, tab == T_TIMELINE ? timeline_slices(a) : 0,
			    a->filter ? a->filter : "", ts->by ? ts->by : "");
}

/* Ask for the tab's view unless the table shown (or on its way) is the
 * one wanted; a prefetch is built when nothing else is asked for.  A tab
 * regrouped with b asks for its grouping, with none of its own context. */
static void request_view(tui_app *a, int tab, bool prefetch)
{
	tab_state *ts = &a->tabs[tab];
	const tab_def *td = tab_def_of(a, tab);
	int own = ts->by ? -1 : tab; /* the tab whose own needs apply, -1 none */
	/* Disassembly annotates a function whole; comparing, it shows the diff
	 * of the sampled instructions (annotate's rows are one run's addresses) */
	bool whole = own == T_DISASM && annotated(ts) && !a->compare;
	tui_req *r;
	char *key;

	if (!td->view)
		return;
	if (own >= 0 && own != T_MEMOBJ && !view_exists(td->view)) {
		set_str(&ts->msg, NULL);
		ts->msg = ds_xasprintf("The %s view is not part of this dsprof yet: this tab shows it once "
				       "analyze/ has it.", td->view);
		return;
	}
	if ((td->flags & TF_FUNCTION) && own != T_DISASM && (!ts->ctx || !*ts->ctx)) {
		set_str(&ts->msg, "Select a function first (in Functions, Callers-Callees or Disassembly).");
		return;
	}
	if (own == T_MEMOBJ && (!ts->ctx || !*ts->ctx)) {
		set_str(&ts->msg, "Press Enter to pick a memory object (cache lines, sets, pages...), "
			"or e to define one.");
		return;
	}
	key = request_key(a, tab);
	if (ts->key && strcmp(ts->key, key) == 0 && (ts->pending || (ts->t && !ts->partial) || ts->msg)) {
		free(key);
		return;
	}
	free(ts->key);
	ts->key = key;
	r = ds_xcalloc(1, sizeof *r);
	r->tab = tab;
	r->gen = ++ts->gen;
	r->view = ts->by ? ds_xasprintf("by:%s", ts->by)
		  : own == T_MEMOBJ ? ds_xasprintf("%s:%s", td->view, ts->ctx)
		  : whole ? ds_xstrdup("annotate") : ds_xstrdup(td->view);
	if (own == T_SUMMARY)
		r->view2 = ds_xstrdup("typestats");
	r->vo.sort = tab_sort(a, tab) ? ds_xstrdup(tab_sort(a, tab)) : NULL;
	if (td->flags & TF_FUNCTION && own != T_DISASM)
		r->vo.function = ds_xstrdup(ts->ctx);
	else if (whole)
		r->vo.function = ds_xstrdup(annotated(ts));
	if (own == T_LAYOUT && ts->ctx && !strncmp(ts->ctx, "site:", 5)) {
		/* a heap site's blocks, laid out as a type's members are */
		free(r->view);
		r->view = ds_xstrdup("accessmap");
		r->vo.allocsite = ds_xstrdup(ts->ctx + 5);
	} else if (own == T_LAYOUT) {
		r->vo.type = ts->ctx && *ts->ctx ? ds_xstrdup(ts->ctx) : NULL;
	}
	/* a level: its lines (the layout draws the one size; the line views
	 * take the level, whose measured size they look up themselves) */
	if ((td->flags & TF_LINE) && own == T_LAYOUT) {
		r->vo.line = a->line ? a->line : a->level_line;
	} else if (td->flags & TF_LINE) {
		r->vo.line = a->line;
		r->vo.level = a->level ? ds_xstrdup(a->level) : NULL;
	}
	if (own == T_TIMELINE) {
		r->vo.slices = (unsigned)timeline_slices(a);
		r->vo.from_ns = ts->from;
		r->vo.to_ns = ts->to;
	}
	r->partial_ok = (td->flags & TF_PARTIAL) != 0;
	r->prefetch = prefetch;
	ts->pending = true;
	set_str(&ts->msg, NULL);
	worker_request(a->w, r);
}

static void request(tui_app *a, int tab)
{
	request_view(a, tab, false);
}

/* Once every sample is attributed, the tabs that need no selection and
 * whose views take a while on a large experiment are built ahead, while
 * the user looks at the first one (the cache-line views last: they read
 * every sample again); a key asking for another view goes first.
 * Interactive only: scripted screens stay the same on every run. */
static void prefetch(tui_app *a)
{
	static const int tabs[] = {T_DATAOBJECTS, T_DISASM, T_TIMELINE, T_SUMMARY, T_HOTLINES, T_SHARING};
	if (a->o->keys)
		return;
	for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
		tab_state *ts = &a->tabs[tabs[i]];
		if (tabs[i] == a->tab || ts->t || ts->pending)
			continue;
		if (!ts->ctx)
			ts->ctx = default_ctx(a, tabs[i]);
		request_view(a, tabs[i], true);
	}
}

/* Show tab `tab` with context ctx (NULL: the selection's). */
static void show_tab(tui_app *a, int tab, const char *ctx)
{
	tab_state *ts = &a->tabs[tab];
	char *want = ctx ? ds_xstrdup(ctx) : default_ctx(a, tab);
	a->tab = tab;
	if (!ts->ctx || strcmp(ts->ctx, want) != 0) {
		free(ts->ctx);
		ts->ctx = want;
		ts->cur = ts->top = 0;
		if (tab_def_of(a, tab)->flags & TF_ROWSEL)
			compute_vis(a, tab);
	} else {
		free(want);
	}
	request(a, tab);
	a->dirty = true;
}

/* A new trail: number keys and Tab.  A table already there (built ahead,
 * or on an earlier visit) makes its cursor's row the selection, as a new
 * one does when it comes. */
static void switch_tab(tui_app *a, int tab)
{
	for (size_t i = 0; i < a->back.n; i++)
		free(a->back.v[i].ctx);
	a->back.n = 0;
	show_tab(a, tab, NULL);
	if (a->tabs[tab].t && !a->tabs[tab].pending && tab != T_TIMELINE)
		follow_cursor(a);
}

/* Drill into (tab, ctx), remembering where we were. */
static void drill(tui_app *a, int tab, const char *ctx, const char *fcol, const char *fval)
{
	tab_state *ts = &a->tabs[a->tab];
	nav_ent e = {a->tab, ds_xstrdup(ts->ctx ? ts->ctx : ""), ts->cur, ts->top};
	ds_vec_push(&a->back, e);
	show_tab(a, tab, ctx);
	ts = &a->tabs[tab];
	if (fcol || fval) {
		set_str(&a->msg, NULL);
		if (ts->t && !ts->pending)
			focus(ts, fcol, fval);
		else {
			/* where to put the cursor when the table comes */
			free(ts->focus_col);
			free(ts->focus_val);
			ts->focus_col = fcol ? ds_xstrdup(fcol) : NULL;
			ts->focus_val = ds_xstrdup(fval);
		}
	}
}

static void go_back(tui_app *a)
{
	nav_ent e;
	tab_state *ts;
	if (!a->back.n) {
		message(a, ST_STATUS, "Nothing to go back to (q quits).");
		return;
	}
	e = a->back.v[--a->back.n];
	show_tab(a, e.tab, e.ctx);
	ts = &a->tabs[e.tab];
	ts->cur = e.cur;
	ts->top = e.top;
	free(e.ctx);
}

static void fold(tui_app *a, int how);

/* ---- Enter ---- */

static void drill_function(tui_app *a, int tab, char *f)
{
	if (!f) {
		message(a, ST_STATUS, "No function here to look into.");
		return;
	}
	set_str(&a->function, f);
	drill(a, tab, f, NULL, NULL);
	free(f);
}

/* Sharing: from a line's thread, evidence or fix to the layout of the type
 * on the line (the first of its data objects), where the fix is made. */
static void drill_shared_type(tui_app *a, const tab_state *ts)
{
	size_t i = ts->vis.v[ts->cur];
	const char *objs;
	char *type;
	while (i > 0 && !tree_parent(tab_def_of(a, a->tab), ts->t, &ts->t->rows[i]))
		i--;
	objs = cell_str(ts->t, &ts->t->rows[i], "dataobjects");
	if (strncmp(objs, "struct ", 7) && strncmp(objs, "union ", 6) && strncmp(objs, "class ", 6)) {
		message(a, ST_STATUS, "No struct, union or class on this line to show the layout of.");
		return;
	}
	/* "struct a.f, struct b": the first type */
	type = ds_xstrndup(objs, strcspn(objs, ".,("));
	ds_trim(type);
	set_str(&a->type, type);
	drill(a, T_LAYOUT, type, NULL, NULL);
	free(type);
}

/* Heap: a site's blocks, their bytes a word a row with the samples and
 * the field that touched them (its access map, in the DataLayout tab),
 * and its stack on the status line. */
static void heap_site(tui_app *a, tab_state *ts, const ds_row *r)
{
	const char *stack = cell_str(ts->t, r, "stack");
	char *ctx;
	if (ts->by || !*stack) {
		message(a, ST_STATUS, "%s", ts->by ? "b and the first item go back to the sites."
						   : "No allocation site here: these samples' reason.");
		return;
	}
	ctx = ds_xasprintf("site:%s", r->name);
	drill(a, T_LAYOUT, ctx, NULL, NULL);
	free(ctx);
	message(a, ST_STATUS, "%s", stack);
}

static void enter(tui_app *a)
{
	tab_state *ts = &a->tabs[a->tab];
	const ds_row *r = app_row(a, ts);
	uint64_t line;
	char buf[64];
	char *ctx;

	if (!r)
		return;
	switch (a->tab) {
	case T_FUNCTIONS:
		drill_function(a, T_SOURCE, row_function(ts, a->tab, r));
		break;
	case T_CALLERS:
		drill_function(a, strcmp(cell_str(ts->t, r, "relation"), "function") ? T_CALLERS : T_SOURCE,
			       row_function(ts, a->tab, r));
		break;
	case T_SOURCE:
		if (!cell_u64(ts->t, r, "line", &line) || !r->samples[0]) {
			message(a, ST_STATUS, "No sampled instructions on this line.");
			break;
		}
		ctx = ds_xasprintf("f:%s", ts->ctx);
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)line);
		drill(a, T_DISASM, ctx, "line", buf);
		free(ctx);
		break;
	case T_DISASM: {
		char *f = row_function(ts, a->tab, r);
		if (!f || !cell_u64(ts->t, r, "line", &line)) {
			message(a, ST_STATUS, "No source line for this instruction.");
			free(f);
			break;
		}
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)line);
		set_str(&a->function, f);
		drill(a, T_SOURCE, f, "line", buf);
		free(f);
		break;
	}
	case T_DATAOBJECTS:
		if (!strcmp(cell_str(ts->t, r, "kind"), "type")) {
			drill(a, T_LAYOUT, r->name, NULL, NULL);
		} else {
			ctx = ds_xasprintf("d:%s", r->name);
			drill(a, T_DISASM, ctx, NULL, NULL);
			free(ctx);
		}
		break;
	case T_LAYOUT: {
		const char *field = cell_str(ts->t, r, "field");
		if (!*field) {
			message(a, ST_STATUS, "Enter on a member shows the instructions that touch it.");
			break;
		}
		/* an access map's word names its data object whole */
		ctx = tcol(ts->t, "type") < 0 ? ds_xasprintf("d:%s", field)
					      : ds_xasprintf("d:%s.%s", cell_str(ts->t, r, "type"), field);
		drill(a, T_DISASM, ctx, NULL, NULL);
		free(ctx);
		break;
	}
	case T_TIMELINE:
		drill_function(a, T_SOURCE, row_function(ts, a->tab, r));
		break;
	case T_HOTLINES:
		if (tree_parent(tab_def_of(a, a->tab), ts->t, r)) {
			fold(a, -1);
		} else if (*cell_str(ts->t, r, "dataobject")) {
			ctx = ds_xasprintf("d:%s", cell_str(ts->t, r, "dataobject"));
			drill(a, T_DISASM, ctx, NULL, NULL);
			free(ctx);
		} else {
			const char *src = strrchr(cell_str(ts->t, r, "source"), ':');
			char *f = row_function(ts, a->tab, r);
			if (f)
				set_str(&a->function, f);
			if (f && src)
				drill(a, T_SOURCE, f, "line", src + 1);
			else
				message(a, ST_STATUS, "No source line here.");
			free(f);
		}
		break;
	case T_SHARING:
		if (tree_parent(tab_def_of(a, a->tab), ts->t, r))
			fold(a, -1);
		else
			drill_shared_type(a, ts);
		break;
	case T_HEAP:
		heap_site(a, ts, r);
		break;
	case T_CALLTREE:
		drill_function(a, T_CALLERS, row_function(ts, a->tab, r));
		break;
	default:
		message(a, ST_STATUS, "Enter has nothing to open here.");
		break;
	}
}

/* ---- moving ---- */

void app_scroll_into_view(tui_app *a, tab_state *ts)
{
	int rows = body_rows(a);
	if (rows < 1)
		rows = 1;
	if (ts->cur < ts->top)
		ts->top = ts->cur;
	if (ts->cur >= ts->top + (size_t)rows)
		ts->top = ts->cur - (size_t)rows + 1;
	if (ts->top + (size_t)rows > ts->vis.n)
		ts->top = ts->vis.n > (size_t)rows ? ts->vis.n - (size_t)rows : 0;
}

static void move(tui_app *a, long delta)
{
	tab_state *ts = &a->tabs[a->tab];
	long n = (long)ts->vis.n, c = (long)ts->cur + delta;
	if (a->tab == T_SUMMARY) {
		long sc = (long)ts->scroll + delta;
		ts->scroll = sc < 0 ? 0 : (size_t)sc;
		return;
	}
	if (!n)
		return;
	ts->cur = (size_t)(c < 0 ? 0 : c >= n ? n - 1 : c);
	app_scroll_into_view(a, ts);
	follow_cursor(a);
}

/* H, as perf annotate's Tab: the row after the cursor's in order of
 * samples (most first, equal ones as shown), the hottest after the last. */
static void next_hottest(tui_app *a)
{
	tab_state *ts = &a->tabs[a->tab];
	const ds_row *r = app_row(a, ts);
	size_t next = SIZE_MAX, top = SIZE_MAX, rank = 1, nsampled = 0;
	uint64_t cn, nn = 0, tn = 0;

	if (!r || a->tab == T_TIMELINE || !ts->t->has_metrics || !ts->t->nevents) {
		message(a, ST_STATUS, "No rows with samples here.");
		return;
	}
	cn = r->note ? 0 : r->samples[0];
	for (size_t i = 0; i < ts->vis.n; i++) {
		const ds_row *o = &ts->t->rows[ts->vis.v[i]];
		uint64_t n = o->note ? 0 : o->samples[0];
		if (!n)
			continue;
		nsampled++;
		if (n > tn)
			tn = n, top = i;
		if ((n < cn || (n == cn && i > ts->cur)) && n > nn)
			nn = n, next = i;
	}
	if (next == SIZE_MAX)
		next = top, nn = tn;
	if (next == SIZE_MAX) {
		message(a, ST_STATUS, "No rows with samples here.");
		return;
	}
	for (size_t i = 0; i < ts->vis.n; i++) {
		const ds_row *o = &ts->t->rows[ts->vis.v[i]];
		uint64_t n = o->note ? 0 : o->samples[0];
		rank += n > nn || (n == nn && n && i < next);
	}
	ts->cur = next;
	app_scroll_into_view(a, ts);
	follow_cursor(a);
	message(a, ST_STATUS, "Hot row %zu of %zu, by samples (H: the next one).", rank, nsampled);
}

/* Fold or unfold the type under the cursor (data objects), or the node
 * (call tree). */
static void fold(tui_app *a, int how) /* 1 open, 0 close, -1 toggle */
{
	tab_state *ts = &a->tabs[a->tab];
	const ds_row *r = app_row(a, ts);
	size_t i;
	if (!r || !(tab_def_of(a, a->tab)->flags & (TF_TREE | TF_DEPTH)))
		return;
	i = ts->vis.v[ts->cur];
	if (tab_def_of(a, a->tab)->flags & TF_DEPTH) {
		/* closing a leaf or a folded row: its parent, the row above one level up */
		if (how == 0 && (!tree_parent(tab_def_of(a, a->tab), ts->t, r) || !ts->open[i]))
			while (i > 0 && ts->t->rows[i].depth >= r->depth && r->depth > 0)
				i--;
	} else if (tree_child(tab_def_of(a, a->tab), ts->t, r)) {
		if (how == 1)
			return;
		/* closing from a child: to its parent */
		while (i > 0 && tree_child(tab_def_of(a, a->tab), ts->t, &ts->t->rows[i]))
			i--;
	}
	if (!tree_parent(tab_def_of(a, a->tab), ts->t, &ts->t->rows[i]))
		return;
	ts->open[i] = how < 0 ? !ts->open[i] : how == 1;
	compute_vis(a, a->tab);
	for (size_t k = 0; k < ts->vis.n; k++)
		if (ts->vis.v[k] == i)
			ts->cur = k;
	app_scroll_into_view(a, ts);
}

/* ---- search ---- */

static bool row_matches(const ds_table *t, const ds_row *r, const char *what)
{
	if (strcasestr(r->name, what))
		return true;
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].kind == DS_COL_STR && r->cells[c].set && r->cells[c].s && strcasestr(r->cells[c].s, what))
			return true;
	return false;
}

/* From the row after (or, with `again` false, at) the cursor, forward or
 * backward, wrapping. */
/* ---- the flame graph's keys (flame.c draws it) ---- */

/* The drawn frame nearest sel along its line in direction dir, or sel. */
static uint32_t flame_step(const ds_table *t, const int *x0, uint32_t root, uint32_t sel, int dir)
{
	uint32_t lo = root == FLAME_ALL ? 0 : root, hi = flame_end(t, root);
	for (uint32_t i = sel + (uint32_t)dir; i >= lo && i < hi; i += (uint32_t)dir)
		if (t->rows[i].depth == t->rows[sel].depth && x0[i] >= 0)
			return i;
	return sel;
}

/* The widest callee of sel drawn, or sel. */
static uint32_t flame_callee(const ds_table *t, const int *x0, const int *x1, uint32_t sel)
{
	uint32_t best = sel;
	for (uint32_t i = sel + 1, end = flame_end(t, sel); i < end; i++)
		if (t->rows[i].depth == t->rows[sel].depth + 1 && x0[i] >= 0 &&
		    (best == sel || x1[i] - x0[i] > x1[best] - x0[best]))
			best = i;
	return best;
}

/* A key of the flame graph; false when it is not one (the tab's others). */
static bool flame_key(tui_app *a, int c)
{
	tab_state *ts = &a->tabs[T_CALLTREE];
	const ds_table *t = ts->t;
	uint32_t sel = ts->fl_sel, p;
	int *x0, *x1;

	if (c != K_LEFT && c != K_RIGHT && c != K_UP && c != 'k' && c != K_DOWN && c != 'j' && c != K_ENTER &&
	    c != K_BS && c != K_ESC && c != K_HOME && c != 'g')
		return false;
	if ((c == K_BS || c == K_ESC) && ts->fl_root == FLAME_ALL)
		return false; /* not zoomed: back where Enter came from */
	if (!t->nrows)
		return true;
	if (sel >= t->nrows)
		sel = 0;
	flame_place(a, &x0, &x1);
	switch (c) {
	case K_LEFT: case K_RIGHT:
		sel = flame_step(t, x0, ts->fl_root, sel, c == K_LEFT ? -1 : 1);
		break;
	case K_UP: case 'k':
		p = flame_parent(t, sel);
		if (p != FLAME_ALL && (ts->fl_root == FLAME_ALL || p >= ts->fl_root))
			sel = p;
		else
			message(a, ST_STATUS, "The top of the graph shown%s.",
				ts->fl_root == FLAME_ALL ? "" : ": BS zooms out");
		break;
	case K_DOWN: case 'j':
		sel = flame_callee(t, x0, x1, sel);
		break;
	case K_ENTER:
		ts->fl_root = sel;
		message(a, ST_STATUS, "Zoomed into %s: BS zooms out, Home shows all.", t->rows[sel].name);
		break;
	case K_BS: case K_ESC:
		ts->fl_root = flame_parent(t, ts->fl_root);
		break;
	default: /* Home, g */
		ts->fl_root = FLAME_ALL;
		break;
	}
	free(x0);
	free(x1);
	ts->fl_sel = sel;
	follow_cursor(a);
	return true;
}

/* Search the frames drawn, in the order of the tree. */
static void flame_search(tui_app *a, const char *what, int dir, bool again)
{
	tab_state *ts = &a->tabs[T_CALLTREE];
	const ds_table *t = ts->t;
	size_t n = t->nrows;
	int *x0, *x1;
	bool found = false;

	flame_place(a, &x0, &x1);
	for (size_t k = again ? 1 : 0; k <= n && !found && n; k++) {
		size_t i = (ts->fl_sel + (dir > 0 ? k : n - k % n)) % n;
		if (x0[i] >= 0 && row_matches(t, &t->rows[i], what)) {
			ts->fl_sel = (uint32_t)i;
			follow_cursor(a);
			set_str(&a->msg, NULL);
			found = true;
		}
	}
	if (!found)
		message(a, ST_WARN, "Not found among the frames shown: %s", what);
	free(x0);
	free(x1);
}

static void search(tui_app *a, const char *what, int dir, bool again)
{
	tab_state *ts = &a->tabs[a->tab];
	size_t n = ts->vis.n;
	if (!what || !*what)
		return;
	if (flame_shown(a, a->tab)) {
		flame_search(a, what, dir, again);
		return;
	}
	if (!ts->t || !n) {
		message(a, ST_STATUS, "Nothing to search in this tab.");
		return;
	}
	for (size_t k = again ? 1 : 0; k <= n; k++) {
		size_t i = (ts->cur + (dir > 0 ? k : n - k % n)) % n;
		if (row_matches(ts->t, &ts->t->rows[ts->vis.v[i]], what)) {
			ts->cur = i;
			app_scroll_into_view(a, ts);
			follow_cursor(a);
			set_str(&a->msg, NULL);
			return;
		}
	}
	message(a, ST_WARN, "Not found: %s", what);
}

/* ---- menus ---- */

static void menu_clear(menu *m)
{
	for (size_t i = 0; i < m->items.n; i++) {
		free(m->items.v[i]);
		free(m->keys.v[i]);
	}
	m->items.n = m->keys.n = m->on.n = m->picked.n = 0;
	m->cur = m->top = 0;
}

static void menu_add(menu *m, const char *item, const char *key, bool on)
{
	ds_vec_push(&m->items, ds_xstrdup(item));
	ds_vec_push(&m->keys, ds_xstrdup(key));
	ds_vec_push(&m->on, on);
}

static const char *const metric_names[DS_M_N] = {"excl%", "samples", "count", "incl%", "incl samples",
					       "incl count"};
static const char *const metric_sort[DS_M_N] = {"count", "samples", "count", "incl_count", "incl",
					      "incl_count"};

static void open_sort_menu(tui_app *a)
{
	tab_state *ts = &a->tabs[a->tab];
	const ds_table *t = ts->t;
	char item[256], key[256];
	if (!t) {
		message(a, ST_STATUS, "Nothing to sort yet.");
		return;
	}
	menu_clear(&a->menu);
	a->menu.kind = MENU_SORT;
	a->menu.title = "Sort by";
	/* a diff's keys (dsprof diff --sort), for the events both sides recorded */
	for (size_t e = 0; diff_table(t) && e < t->nevents; e++) {
		static const char *const dkeys[] = {"delta", "change", "before", "after"};
		const char *ev = t->events[e].name + strlen("before:");
		bool both = false;
		if (strncmp(t->events[e].name, "before:", 7) != 0)
			continue;
		for (size_t k = 0; k < t->nevents; k++)
			both |= !strncmp(t->events[k].name, "after:", 6) && !strcmp(t->events[k].name + 6, ev);
		for (size_t k = 0; both && k < sizeof dkeys / sizeof dkeys[0]; k++) {
			snprintf(item, sizeof item, "%s %s", ev, dkeys[k]);
			snprintf(key, sizeof key, "%s:%s", dkeys[k], ev);
			menu_add(&a->menu, item, key, false);
		}
	}
	for (size_t e = 0; t->has_metrics && !diff_table(t) && e < t->nevents; e++)
		for (int m = DS_M_SAMPLES; m < DS_M_N; m++) {
			if (m == DS_M_INCL_PERCENT || (m >= DS_M_INCL_PERCENT && !t->inclusive))
				continue;
			snprintf(item, sizeof item, "%s %s", t->events[e].name, metric_names[m]);
			snprintf(key, sizeof key, "%s:%s", metric_sort[m], t->events[e].name);
			menu_add(&a->menu, item, key, false);
		}
	menu_add(&a->menu, t->name_label ? t->name_label : "name", "name", false);
	for (size_t c = 0; c < t->ncols; c++)
		menu_add(&a->menu, t->cols[c].name, t->cols[c].name, false);
	a->mode = MODE_MENU;
}

static void open_metrics_menu(tui_app *a)
{
	char item[256];
	if (!a->nev) {
		message(a, ST_STATUS, "No metrics yet.");
		return;
	}
	menu_clear(&a->menu);
	a->menu.kind = MENU_METRICS;
	a->menu.title = "Metrics shown (Space toggles, Enter closes)";
	for (size_t e = 0; e < a->nev; e++)
		for (int m = 0; m < DS_M_N; m++) {
			snprintf(item, sizeof item, "%s %s", a->event_names[e], metric_names[m]);
			menu_add(&a->menu, item, "", a->show[e * DS_M_N + (size_t)m]);
		}
	a->mode = MODE_MENU;
}

/* The keys a tab can be regrouped by (dsprof report --by): the first item
 * goes back to the tab's own view; Space checks keys, which nest in the
 * order checked. */
static void by_labels(tui_app *a)
{
	menu *m = &a->menu;
	for (size_t i = 1; i < m->items.n; i++) {
		size_t at = 0;
		free(m->items.v[i]);
		for (size_t k = 0; k < m->picked.n; k++)
			if (m->picked.v[k] == i)
				at = k + 1;
		m->items.v[i] = at ? ds_xasprintf("%zu. %s", at, m->keys.v[i]) : ds_xasprintf("   %s", m->keys.v[i]);
	}
}

static void open_by_menu(tui_app *a)
{
	tab_state *ts = &a->tabs[a->tab];
	if (a->tab == T_TIMELINE || a->tab == T_SUMMARY) { /* pictures of their own, not tables */
		message(a, ST_STATUS, "%s is not a table of samples: b groups the other tabs.", tui_tabs[a->tab].name);
		return;
	}
	menu_clear(&a->menu);
	a->menu.kind = MENU_BY;
	a->menu.title = "Group this tab's samples by (dsprof report --by)";
	menu_add(&a->menu, "the tab's own view", "", !ts->by);
	for (size_t i = 0; ds_dim_name(i); i++) {
		char *key = strcmp(ds_dim_name(i), "mobj:NAME") ? ds_xstrdup(ds_dim_name(i))
							       : ds_xasprintf("mobj:%s", a->mobj ? a->mobj : "L1D_set");
		menu_add(&a->menu, "", key, false);
		free(key);
	}
	/* what the tab is grouped by now, checked in its order */
	for (const char *p = ts->by; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t len = strcspn(p, ",");
		for (size_t i = 1; i < a->menu.keys.n; i++)
			if (strlen(a->menu.keys.v[i]) == len && !strncmp(a->menu.keys.v[i], p, len)) {
				ds_vec_push(&a->menu.picked, (uint32_t)i);
				a->menu.on.v[i] = true;
			}
	}
	by_labels(a);
	a->mode = MODE_MENU;
}

/* Check or uncheck the key under the cursor. */
static void by_toggle(tui_app *a)
{
	menu *m = &a->menu;
	size_t k;
	bool was;

	if (!m->cur)
		return;
	for (k = 0; k < m->picked.n && m->picked.v[k] != m->cur; k++)
		;
	was = k < m->picked.n;
	if (was) {
		memmove(&m->picked.v[k], &m->picked.v[k + 1], (m->picked.n - k - 1) * sizeof *m->picked.v);
		m->picked.n--;
	} else {
		ds_vec_push(&m->picked, (uint32_t)m->cur);
	}
	m->on.v[m->cur] = !was;
	by_labels(a);
}

/* Enter: the tab's own view, or the checked keys (none checked: the one
 * under the cursor). */
static void by_choose(tui_app *a)
{
	menu *m = &a->menu;
	tab_state *ts = &a->tabs[a->tab];
	ds_buf b = {0};

	if (m->cur == 0) {
		set_str(&ts->by, NULL);
	} else {
		for (size_t k = 0; k < m->picked.n; k++)
			ds_buf_printf(&b, "%s%s", k ? "," : "", m->keys.v[m->picked.v[k]]);
		if (!m->picked.n)
			ds_buf_puts(&b, m->keys.v[m->cur]);
		set_str(&ts->by, ds_buf_str(&b));
		ds_buf_free(&b);
	}
	ts->cur = ts->top = 0;
	request(a, a->tab);
	if (ts->by)
		message(a, ST_STATUS, "%s grouped by %s; b and the first item go back.", tui_tabs[a->tab].name,
			ts->by);
}

/* Cache lines: a level's (L1D, L2, L3, as measured on the recording
 * machine) or a size of one's own; keys "L2:64" and "128". */
static void open_line_menu(tui_app *a)
{
	const ds_meta *m = a->st.open ? worker_meta(a->w) : NULL;
	static const unsigned sizes[] = {32, 64, 128, 256};
	char item[128], key[32];
	menu_clear(&a->menu);
	a->menu.kind = MENU_LINE;
	a->menu.title = "Cache lines of DataLayout, HotLines and Sharing";
	menu_add(&a->menu, "L1D, and DataLayout draws each level's measured line", "0", !a->line && !a->level);
	for (int i = 0; m && i < m->ncaches; i++) {
		const ds_cache_level *c = &m->caches[i];
		if (!strcmp(c->type, "Instruction") || !c->line || c->level < 1 || c->level > 3)
			continue;
		snprintf(key, sizeof key, "%s:%u", c->level == 1 ? "L1D" : c->level == 2 ? "L2" : "L3", c->line);
		snprintf(item, sizeof item, "%.*s: its %u-byte lines (measured)", (int)strcspn(key, ":"), key, c->line);
		menu_add(&a->menu, item, key, false);
		if (a->level && !strncmp(key, a->level, strlen(a->level)) && key[strlen(a->level)] == ':')
			a->menu.cur = a->menu.items.n - 1;
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		snprintf(item, sizeof item, "%u-byte lines", sizes[i]);
		snprintf(key, sizeof key, "%u", sizes[i]);
		menu_add(&a->menu, item, key, false);
		if (a->line == sizes[i])
			a->menu.cur = a->menu.items.n - 1;
	}
	a->mode = MODE_MENU;
}

static void menu_choose(tui_app *a)
{
	menu *m = &a->menu;
	tab_state *ts = &a->tabs[a->tab];
	const char *key;
	if (m->cur >= m->items.n)
		return;
	key = m->keys.v[m->cur];
	switch (m->kind) {
	case MENU_SORT:
		set_str(&ts->sort, key);
		request(a, a->tab);
		break;
	case MENU_METRICS:
		break;
	case MENU_LINE: {
		const char *colon = strchr(key, ':');
		free(a->level);
		a->level = colon ? ds_xstrndup(key, (size_t)(colon - key)) : NULL;
		a->level_line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
		a->line = colon ? 0 : (unsigned)strtoul(key, NULL, 10);
		if (tab_def_of(a, a->tab)->flags & TF_LINE)
			request(a, a->tab);
		if (a->level)
			message(a, ST_STATUS, "DataLayout, HotLines and Sharing use %s's %u-byte lines.", a->level,
				a->level_line);
		else if (a->line)
			message(a, ST_STATUS, "DataLayout, HotLines and Sharing use %u-byte lines.", a->line);
		else
			message(a, ST_STATUS, "HotLines and Sharing use L1D's lines, DataLayout each level's.");
		break;
	}
	case MENU_MOBJ:
		set_str(&a->mobj, key);
		show_tab(a, T_MEMOBJ, key);
		break;
	case MENU_BY:
		by_choose(a);
		break;
	}
	a->mode = MODE_NORMAL;
}

static void menu_key(tui_app *a, int code)
{
	menu *m = &a->menu;
	switch (code) {
	case K_UP: case 'k':
		if (m->cur)
			m->cur--;
		break;
	case K_DOWN: case 'j':
		if (m->cur + 1 < m->items.n)
			m->cur++;
		break;
	case K_HOME: case 'g':
		m->cur = 0;
		break;
	case K_END: case 'G':
		m->cur = m->items.n ? m->items.n - 1 : 0;
		break;
	case ' ':
		if (m->kind == MENU_METRICS && m->cur < m->on.n) {
			m->on.v[m->cur] = !m->on.v[m->cur];
			a->show[m->cur] = m->on.v[m->cur];
		}
		if (m->kind == MENU_BY)
			by_toggle(a);
		break;
	case K_ENTER:
		menu_choose(a);
		break;
	case K_ESC: case 'q': case K_BS:
		a->mode = MODE_NORMAL;
		break;
	default:
		break;
	}
}

/* ---- memory objects and the filter: asked of the worker ---- */

static void ask(tui_app *a, enum req_kind kind, const char *arg)
{
	tui_req *r = ds_xcalloc(1, sizeof *r);
	r->kind = kind;
	r->tab = a->tab;
	r->arg = arg ? ds_xstrdup(arg) : NULL;
	worker_request(a->w, r);
}

/* S: a new member order for the selected row's type, from the worker. */
static void suggest(tui_app *a)
{
	tab_state *ts = &a->tabs[a->tab];
	const ds_row *r = app_row(a, ts);
	const char *type = r && (a->tab == T_LAYOUT || a->tab == T_DATAOBJECTS) ? row_type(ts, a->tab, r) : NULL;

	if (!type) {
		message(a, ST_STATUS, "S suggests a member order: select a type, field or member in DataObjects or DataLayout.");
		return;
	}
	ask(a, REQ_SUGGEST, type);
	message(a, ST_STATUS, "Suggesting a layout for %s...", type);
}

static void mobjs_clear(tui_app *a)
{
	for (size_t i = 0; i < a->nmobjs; i++) {
		free(a->mobjs[i].name);
		free(a->mobjs[i].text);
		free(a->mobjs[i].error);
	}
	free(a->mobjs);
	a->mobjs = NULL;
	a->nmobjs = 0;
}

/* The list came: pick one from it. */
static void open_mobj_menu(tui_app *a)
{
	static const char *const origin[] = {"predefined", "machine", "yours", "this session"};
	char item[512];
	menu_clear(&a->menu);
	a->menu.kind = MENU_MOBJ;
	a->menu.title = "Memory objects (Enter shows one; e defines one, w saves it)";
	for (size_t i = 0; i < a->nmobjs; i++) {
		const mobj_item *o = &a->mobjs[i];
		snprintf(item, sizeof item, "%-14s %-12s %-36s %s", o->name,
			 o->origin >= 0 && o->origin < 4 ? origin[o->origin] : "?", o->text,
			 o->error ? o->error : "");
		menu_add(&a->menu, item, o->name, false);
		if (a->mobj && !strcmp(a->mobj, o->name))
			a->menu.cur = i;
	}
	a->mode = MODE_MENU;
}

/* "NAME = EXPR" as in the user's file, or NAME=EXPR as on the command line. */
static void define_mobj(tui_app *a, const char *text)
{
	const char *eq = strchr(text, '=');
	char *lhs, *arg;
	if (!eq) {
		message(a, ST_ERROR, "Write NAME = EXPR, e.g. line128 = VADDR >> 7");
		return;
	}
	lhs = ds_xstrndup(text, (size_t)(eq - text));
	arg = ds_xasprintf("%s=%s", ds_trim(lhs), eq + 1);
	ask(a, REQ_DEFINE, arg);
	free(lhs);
	free(arg);
}

/* Objects defined in this session go to the user's file. */
static void save_mobj(tui_app *a)
{
	const mobj_item *o = NULL;
	ds_err err = {0};
	char *path = NULL;
	for (size_t i = 0; i < a->nmobjs; i++)
		if (a->mobj && !strcmp(a->mobjs[i].name, a->mobj))
			o = &a->mobjs[i];
	if (!o || o->origin != DS_MOBJ_OPTION) {
		message(a, ST_STATUS, "Only an object defined in this session (e) needs saving.");
		return;
	}
	if (ds_mobj_user_path(&path, &err) || ds_mobj_file_define(path, o->name, o->text, false, &err))
		message(a, ST_ERROR, "%s", err.msg);
	else
		message(a, ST_STATUS, "Saved %s = %s in %s.", o->name, o->text, path);
	free(path);
}

/* Every table was for the old filter. */
static void filter_changed(tui_app *a, const char *text)
{
	set_str(&a->filter, text && *text ? text : NULL);
	for (int i = 0; i < T_NTABS; i++)
		set_str(&a->tabs[i].key, NULL);
	request(a, a->tab);
	if (a->filter)
		message(a, ST_STATUS, "Filter: %s", a->filter);
	else
		message(a, ST_STATUS, "No filter: every sample counts.");
}

static void action_done(tui_app *a, tui_res *res)
{
	if (res->msg) {
		message(a, ST_ERROR, "%s", res->msg);
		return;
	}
	switch (res->kind) {
	case REQ_FILTER:
		filter_changed(a, res->arg);
		break;
	case REQ_DEFINE: {
		char *name = ds_xstrndup(res->arg, strcspn(res->arg, "="));
		set_str(&a->mobj, name);
		a->tabs[T_MEMOBJ].cur = a->tabs[T_MEMOBJ].top = 0;
		show_tab(a, T_MEMOBJ, name);
		ask(a, REQ_MOBJS, NULL); /* its entry, for w */
		message(a, ST_STATUS, "Defined %s for this session; w saves it to your memory objects.", name);
		free(name);
		break;
	}
	case REQ_SUGGEST:
		free(a->text);
		a->text = res->text;
		res->text = NULL;
		set_str(&a->text_title, res->arg);
		a->mode = MODE_TEXT;
		a->help_top = 0;
		break;
	case REQ_MOBJS:
		mobjs_clear(a);
		a->mobjs = res->mobjs;
		a->nmobjs = res->nmobjs;
		res->mobjs = NULL;
		res->nmobjs = 0;
		if (a->want_menu)
			open_mobj_menu(a);
		a->want_menu = false;
		break;
	case REQ_VIEW:
		break;
	}
}

/* ---- the timeline ---- */

static uint64_t prop_u64(const ds_table *t, const char *key)
{
	for (size_t i = 0; t && i < t->nprops; i++)
		if (strcmp(t->props[i].key, key) == 0)
			return strtoull(t->props[i].value, NULL, 10);
	return 0;
}

/* The slice row under the cursor: thread ts->cur, slice ts->slice. */
static const ds_row *timeline_row(const tab_state *ts)
{
	uint64_t tid, sl;
	if (!ts->t || ts->cur >= ts->vis.n)
		return NULL;
	cell_u64(ts->t, &ts->t->rows[ts->vis.v[ts->cur]], "tid", &tid);
	for (size_t i = ts->vis.v[ts->cur]; i < ts->t->nrows; i++) {
		const ds_row *r = &ts->t->rows[i];
		uint64_t t2;
		if (!cell_u64(ts->t, r, "tid", &t2) || t2 != tid)
			break;
		if (cell_u64(ts->t, r, "slice", &sl) && sl == ts->slice)
			return r;
	}
	return NULL;
}

/* Zoom by `factor` (0.5: in, 2: out) around the slice under the cursor. */
static void zoom(tui_app *a, double factor)
{
	tab_state *ts = &a->tabs[T_TIMELINE];
	uint64_t dur = prop_u64(ts->t, "duration_ns"), from = prop_u64(ts->t, "from_ns");
	uint64_t to = prop_u64(ts->t, "to_ns"), w = prop_u64(ts->t, "slice_ns");
	double center, span;
	if (!ts->t || !dur)
		return;
	center = (double)from + ((double)ts->slice + 0.5) * (double)w;
	span = (double)(to - from) * factor;
	if (span < (double)timeline_slices(a))
		span = (double)timeline_slices(a); /* a nanosecond a column at most */
	if (span >= (double)dur) {
		ts->from = ts->to = 0;
	} else {
		double f = center - span / 2;
		if (f < 0)
			f = 0;
		if (f + span > (double)dur)
			f = (double)dur - span;
		ts->from = (uint64_t)f;
		ts->to = (uint64_t)(f + span);
	}
	ts->slice = (size_t)timeline_slices(a) / 2;
	request(a, T_TIMELINE);
}

static void timeline_move(tui_app *a, long delta)
{
	tab_state *ts = &a->tabs[T_TIMELINE];
	long s = (long)ts->slice + delta, n = timeline_slices(a);
	ts->slice = (size_t)(s < 0 ? 0 : s >= n ? n - 1 : s);
	follow_cursor(a);
}

/* ---- keys ---- */

static void prompt_key(tui_app *a, const tui_key *k)
{
	char *text;
	if (k->code == K_ESC) {
		a->mode = MODE_NORMAL;
		set_str(&a->msg, NULL);
		return;
	}
	if (k->code == K_BS) {
		while (a->input.len && (a->input.p[a->input.len - 1] & 0xc0) == 0x80)
			a->input.len--;
		if (a->input.len)
			a->input.len--;
		ds_buf_append(&a->input, "", 0);
		return;
	}
	if (k->code != K_ENTER) {
		char u[5] = {0};
		int c = k->code;
		if (c < 0x20 || c >= 0x110000)
			return;
		if (c < 0x80) {
			u[0] = (char)c;
		} else if (c < 0x800) {
			u[0] = (char)(0xc0 | c >> 6);
			u[1] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			u[0] = (char)(0xe0 | c >> 12);
			u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			u[2] = (char)(0x80 | (c & 0x3f));
		} else {
			u[0] = (char)(0xf0 | c >> 18);
			u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			u[3] = (char)(0x80 | (c & 0x3f));
		}
		ds_buf_puts(&a->input, u);
		if (a->mode == MODE_SEARCH)
			search(a, ds_buf_str(&a->input), 1, false);
		return;
	}
	a->mode = MODE_NORMAL;
	text = ds_xstrdup(ds_buf_str(&a->input));
	switch (a->mode_was) {
	case MODE_SEARCH:
		set_str(&a->search, text);
		search(a, text, 1, false);
		break;
	case MODE_FILTER:
		ask(a, REQ_FILTER, ds_trim(text));
		break;
	case MODE_DEFINE:
		define_mobj(a, text);
		break;
	default:
		break;
	}
	free(text);
}

static void start_prompt(tui_app *a, enum mode m)
{
	a->mode = a->mode_was = m;
	ds_buf_reset(&a->input);
	ds_buf_append(&a->input, "", 0);
	set_str(&a->msg, NULL);
}

/* F: the CallTree as a flame graph and back, the same node selected. */
static void toggle_flame(tui_app *a)
{
	tab_state *ts = &a->tabs[T_CALLTREE];
	if (a->tab != T_CALLTREE)
		return;
	if (!flame_ok(ts->t) || ts->by) {
		message(a, ST_STATUS, "The flame graph draws the call tree of one experiment%s.",
			ts->t ? "" : " once it is built");
		return;
	}
	if (!ts->flame) {
		ts->flame = true;
		ts->fl_root = FLAME_ALL;
		ts->fl_sel = ts->cur < ts->vis.n ? ts->vis.v[ts->cur] : 0;
		return;
	}
	ts->flame = false;
	for (uint32_t p = flame_parent(ts->t, ts->fl_sel); p != FLAME_ALL; p = flame_parent(ts->t, p))
		ts->open[p] = true;
	compute_vis(a, T_CALLTREE);
	for (size_t i = 0; i < ts->vis.n; i++)
		if (ts->vis.v[i] == ts->fl_sel)
			ts->cur = i;
	app_scroll_into_view(a, ts);
}

static void normal_key(tui_app *a, const tui_key *k)
{
	int rows = body_rows(a);
	bool timeline = a->tab == T_TIMELINE;
	int c = k->code;

	if (c >= '0' && c <= '9') {
		switch_tab(a, c == '0' ? T_TIMELINE : c - '1');
		return;
	}
	if (flame_shown(a, a->tab) && flame_key(a, c))
		return;
	switch (c) {
	case 'q': case K_F1 + 9: case K_CTRL('c'):
		a->quit = true;
		break;
	case 'i':
		switch_tab(a, T_SUMMARY);
		break;
	case 'h':
		switch_tab(a, T_HEAP);
		break;
	case 't':
		switch_tab(a, T_CALLTREE);
		break;
	case K_TAB:
		switch_tab(a, (a->tab + 1) % T_NTABS);
		break;
	case K_BTAB:
		switch_tab(a, (a->tab + T_NTABS - 1) % T_NTABS);
		break;
	case K_UP: case 'k': move(a, -1); break;
	case K_DOWN: case 'j': move(a, 1); break;
	case K_PGUP: case K_CTRL('b'): move(a, -rows); break;
	case K_PGDN: case K_CTRL('f'): move(a, rows); break;
	case K_CTRL('u'): move(a, -rows / 2); break;
	case K_CTRL('d'): move(a, rows / 2); break;
	case K_HOME: case 'g':
		if (timeline && c == K_HOME) {
			a->tabs[T_TIMELINE].from = a->tabs[T_TIMELINE].to = 0;
			request(a, T_TIMELINE);
		} else {
			move(a, -(long)SIZE_MAX / 2);
		}
		break;
	case K_END: case 'G': move(a, (long)SIZE_MAX / 2); break;
	case K_RIGHT: case '+': case '=': case 'z':
		if (timeline && (c == K_RIGHT))
			timeline_move(a, 1);
		else if (timeline)
			zoom(a, 0.5);
		else
			fold(a, c == K_RIGHT ? -1 : 1);
		break;
	case K_LEFT: case '-': case 'Z':
		if (timeline && c == K_LEFT)
			timeline_move(a, -1);
		else if (timeline)
			zoom(a, 2);
		else
			fold(a, 0);
		break;
	case K_ENTER:
		if (a->tab == T_MEMOBJ) {
			a->want_menu = true;
			ask(a, REQ_MOBJS, NULL);
		} else {
			enter(a);
		}
		break;
	case K_BS: case K_ESC:
		go_back(a);
		break;
	case '/': case K_F1 + 2:
		start_prompt(a, MODE_SEARCH);
		break;
	case 'n':
		search(a, a->search, 1, true);
		break;
	case 'N':
		search(a, a->search, -1, true);
		break;
	case 'f': case K_F1 + 3:
		start_prompt(a, MODE_FILTER);
		break;
	case 's': case K_F1 + 5:
		open_sort_menu(a);
		break;
	case 'b':
		open_by_menu(a);
		break;
	case 'm':
		open_metrics_menu(a);
		break;
	case 'l':
		open_line_menu(a);
		break;
	case 'e':
		if (a->tab == T_MEMOBJ)
			start_prompt(a, MODE_DEFINE);
		break;
	case 'w':
		if (a->tab == T_MEMOBJ)
			save_mobj(a);
		break;
	case 'H':
		next_hottest(a);
		break;
	case 'S':
		suggest(a);
		break;
	case 'F':
		toggle_flame(a);
		break;
	case 'd':
		if (timeline) {
			a->tabs[T_TIMELINE].by_object = !a->tabs[T_TIMELINE].by_object;
			message(a, ST_STATUS, "Coloured by %s.", a->tabs[T_TIMELINE].by_object ? "data object" : "function");
		}
		break;
	case '?': case K_F1:
		a->mode = MODE_HELP;
		a->help_top = 0;
		break;
	case 'v':
		if (app_row(a, &a->tabs[a->tab]) && a->tab != T_SUMMARY) {
			a->mode = MODE_DETAIL;
			a->help_top = 0;
		}
		break;
	case ' ':
		if (tab_def_of(a, a->tab)->flags & (TF_TREE | TF_DEPTH))
			fold(a, -1);
		else
			move(a, rows);
		break;
	case K_CTRL('l'):
		break; /* the caller redraws everything */
	default:
		message(a, ST_STATUS, "Unknown key (? lists the keys).");
		break;
	}
}

void app_key(tui_app *a, const tui_key *k)
{
	a->dirty = true;
	if (k->code == K_RESIZE) {
		grid_resize(&a->scr, k->w, k->h);
		if (a->tab == T_TIMELINE)
			request(a, T_TIMELINE); /* slices follow the width */
		app_scroll_into_view(a, &a->tabs[a->tab]);
		return;
	}
	switch (a->mode) {
	case MODE_SEARCH: case MODE_FILTER: case MODE_DEFINE:
		prompt_key(a, k);
		break;
	case MODE_MENU:
		menu_key(a, k->code);
		break;
	case MODE_DETAIL:
		if (k->code == K_DOWN || k->code == 'j')
			a->help_top++;
		else if ((k->code == K_UP || k->code == 'k') && a->help_top)
			a->help_top--;
		else
			a->mode = MODE_NORMAL;
		break;
	case MODE_TEXT: case MODE_HELP:
		/* a pane of text: a line, a page, or close it */
		if (k->code == K_DOWN || k->code == 'j')
			a->help_top++;
		else if ((k->code == K_UP || k->code == 'k') && a->help_top)
			a->help_top--;
		else if (k->code == K_PGDN || k->code == ' ')
			a->help_top += (size_t)body_rows(a);
		else if (k->code == K_PGUP)
			a->help_top = a->help_top > (size_t)body_rows(a) ? a->help_top - (size_t)body_rows(a) : 0;
		else
			a->mode = MODE_NORMAL;
		/* the suggestion's text is measured where it is drawn */
		if (a->mode == MODE_HELP && a->help_top >= help_lines())
			a->help_top = help_lines() ? help_lines() - 1 : 0;
		break;
	case MODE_NORMAL:
		if (a->msg && a->msg_style != ST_ERROR)
			set_str(&a->msg, NULL);
		normal_key(a, k);
		break;
	}
}

/* ---- views coming back ---- */

static void init_metrics(tui_app *a, const ds_table *t)
{
	ds_err err = {0};

	a->nev = t->nevents;
	a->show = ds_xcalloc(a->nev * DS_M_N + 1, sizeof *a->show);
	a->event_names = ds_xcalloc(a->nev + 1, sizeof *a->event_names);
	for (size_t e = 0; e < a->nev; e++)
		a->event_names[e] = ds_xstrdup(t->events[e].name);
	/* --metrics, else the first two events' shares and samples and the
	 * inclusive share of the first: columns for a narrow screen */
	if (a->o->metrics && ds_metrics_select(t, a->o->metrics, a->show, &err) == 0)
		return;
	if (a->o->metrics)
		message(a, ST_ERROR, "%s", err.msg);
	memset(a->show, 0, a->nev * DS_M_N * sizeof *a->show);
	for (size_t e = 0; e < a->nev && e < 2; e++) {
		a->show[e * DS_M_N + DS_M_PERCENT] = true;
		a->show[e * DS_M_N + DS_M_SAMPLES] = true;
	}
	if (a->nev)
		a->show[DS_M_INCL_PERCENT] = true;
}

static void install(tui_app *a, tui_res *res)
{
	tab_state *ts = &a->tabs[res->tab];
	const ds_row *r = app_row(a, ts);
	char *keep = r ? ds_xstrdup(r->name) : NULL;
	bool had = ts->t != NULL;
	int rows = body_rows(a);

	if (res->gen != ts->gen) {
		free(keep);
		return; /* stale: the caller frees it */
	}
	if (res->dropped) {
		/* never built: asked again when the tab shows */
		ts->pending = false;
		set_str(&ts->key, NULL);
		free(keep);
		if (res->tab == a->tab)
			request(a, a->tab);
		return;
	}
	ds_table_free(ts->t);
	ds_table_free(ts->t2);
	free(ts->msg);
	free(ts->open);
	free(ts->colw);
	ts->t = res->t;
	ts->t2 = res->t2;
	ts->msg = res->msg;
	res->t = res->t2 = NULL;
	for (size_t i = 0; i < ts->nverdict; i++)
		free(ts->verdict[i]);
	free(ts->verdict);
	ts->verdict = res->verdict;
	ts->nverdict = res->nverdict;
	res->verdict = NULL;
	res->nverdict = 0;
	res->msg = NULL;
	ts->partial = res->partial;
	ts->pending = false;
	ts->open = ds_xcalloc(ts->t ? ts->t->nrows + 1 : 1, sizeof *ts->open);
	if (ts->t && (tab_def_of(a, res->tab)->flags & TF_DEPTH))
		open_hot(ts);
	ts->fl_root = FLAME_ALL; /* a new tree: its rows are others */
	ts->fl_sel = 0;
	ts->colw = ds_xcalloc(ts->t ? ts->t->ncols + 1 : 1, sizeof *ts->colw);
	free(ts->shown);
	ts->shown = ds_xcalloc(ts->t ? ts->t->ncols + 1 : 1, sizeof *ts->shown);
	if (ts->t && !a->show && ts->t->has_metrics)
		init_metrics(a, ts->t);
	if (res->tab == T_TIMELINE) {
		/* one strip per thread: the first row of each */
		uint64_t last = UINT64_MAX;
		ts->vis.n = 0;
		for (size_t i = 0; ts->t && i < ts->t->nrows; i++) {
			uint64_t tid = 0;
			cell_u64(ts->t, &ts->t->rows[i], "tid", &tid);
			if (tid != last)
				ds_vec_push(&ts->vis, (uint32_t)i);
			last = tid;
		}
		if (ts->cur >= ts->vis.n)
			ts->cur = 0;
		measure(a, ts);
	} else {
		compute_vis(a, res->tab);
	}
	if (ts->t && ts->focus_val) {
		focus(ts, ts->focus_col, ts->focus_val);
		set_str(&ts->focus_col, NULL);
		set_str(&ts->focus_val, NULL);
		ts->top = ts->cur > (size_t)rows / 2 ? ts->cur - (size_t)rows / 2 : 0;
	} else if (ts->t && keep && had && focus(ts, NULL, keep)) {
		; /* the row the cursor was on */
	} else if (ts->t && (res->tab == T_SOURCE || (res->tab == T_DISASM && annotated(ts))) && ts->ctx) {
		focus_hottest(ts, ts->ctx);
		ts->top = ts->cur > (size_t)rows / 2 ? ts->cur - (size_t)rows / 2 : 0;
	} else if (ts->t && res->tab == T_CALLERS) {
		focus(ts, "relation", "function");
	}
	app_scroll_into_view(a, ts);
	/* where the cursor lands is the selection (the timeline's cursor is
	 * only a moment of it) */
	if (res->tab == a->tab && res->tab != T_TIMELINE && !had)
		follow_cursor(a);
	/* what the view says of itself (debug information it could not read,
	 * a name that meant several functions): the summary lists them all */
	for (size_t i = 0; ts->t && res->tab == a->tab && res->tab != T_SUMMARY && !a->msg && i < ts->t->nprops; i++)
		if (!strcmp(ts->t->props[i].key, "note"))
			message(a, ST_WARN, "Note: %s", ts->t->props[i].value);
	free(keep);
}

bool app_poll(tui_app *a)
{
	tui_status old = a->st;
	tui_res res;
	bool changed;

	worker_status(a->w, &a->st);
	changed = old.open != a->st.open || old.loaded != a->st.loaded || old.ready != a->st.ready ||
		  old.busy != a->st.busy || old.samples != a->st.samples || strcmp(old.error, a->st.error) != 0;
	while (worker_result(a->w, &res)) {
		if (res.kind == REQ_VIEW)
			install(a, &res);
		else
			action_done(a, &res);
		tui_res_fini(&res);
		changed = true;
	}
	if (!old.loaded && a->st.loaded)
		request(a, a->tab); /* a partial table, or a tab that waited */
	if (!old.ready && a->st.ready)
		prefetch(a);
	if (changed)
		a->dirty = true;
	return changed;
}

bool app_waiting(const tui_app *a)
{
	const tab_state *ts = &a->tabs[a->tab];
	return ts->pending || ts->partial;
}

void app_init(tui_app *a, const tui_opts *o, tui_worker *w, int width, int height)
{
	memset(a, 0, sizeof *a);
	a->o = o;
	a->compare = o->input2 != NULL;
	a->w = w;
	grid_init(&a->scr, width, height, o->ascii);
	a->tabs[T_CALLTREE].fl_root = FLAME_ALL;
	worker_status(w, &a->st);
	show_tab(a, T_FUNCTIONS, NULL);
	app_poll(a);
}

void app_fini(tui_app *a)
{
	for (int i = 0; i < T_NTABS; i++) {
		tab_state *ts = &a->tabs[i];
		ds_table_free(ts->t);
		ds_table_free(ts->t2);
		for (size_t k = 0; k < ts->nverdict; k++)
			free(ts->verdict[k]);
		free(ts->verdict);
		free(ts->msg);
		free(ts->ctx);
		free(ts->sort);
		free(ts->open);
		free(ts->colw);
		free(ts->shown);
		free(ts->key);
		free(ts->by);
		free(ts->focus_col);
		free(ts->focus_val);
		ds_vec_free(&ts->vis);
	}
	for (size_t i = 0; i < a->back.n; i++)
		free(a->back.v[i].ctx);
	ds_vec_free(&a->back);
	free(a->text);
	free(a->text_title);
	for (size_t e = 0; e < a->nev; e++)
		free(a->event_names[e]);
	free(a->event_names);
	free(a->show);
	mobjs_clear(a);
	free(a->filter);
	free(a->level);
	free(a->function);
	free(a->type);
	free(a->mobj);
	free(a->search);
	free(a->msg);
	ds_buf_free(&a->input);
	menu_clear(&a->menu);
	ds_vec_free(&a->menu.items);
	ds_vec_free(&a->menu.keys);
	ds_vec_free(&a->menu.on);
	ds_vec_free(&a->menu.picked);
	grid_fini(&a->scr);
}
