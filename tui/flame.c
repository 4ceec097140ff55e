/*
 * The CallTree tab as a flame graph (an icicle: the thread's start on top,
 * callees below their callers), drawn from the calltree view's rows.
 *
 * The rows come in preorder with their depth, children of a node after it
 * in the order of their inclusive samples, so a frame's subtree is the run
 * of rows after it that are deeper, and a row's place along its line is
 * found in one pass: each line keeps where its next frame starts.  Every
 * frame is as wide as its inclusive samples of the first event; a frame
 * narrower than a column is not drawn, nor anything under it.  Zoomed into
 * a frame, that frame takes the whole width, and its callers above it are
 * drawn across the whole width, dimmed, as flamegraph.pl draws them.
 */
#include <stdlib.h>
#include <string.h>

#include "tui/tui_int.h"

static uint64_t incl(const ds_table *t, uint32_t i)
{
	return t->inclusive && t->nevents && i < t->nrows ? t->rows[i].incl_samples[0] : 0;
}

bool flame_ok(const ds_table *t)
{
	return t && t->tree && t->inclusive && t->nevents && !diff_table(t);
}

uint32_t flame_end(const ds_table *t, uint32_t i)
{
	uint32_t j = i + 1;
	if (i >= t->nrows) /* FLAME_ALL too */
		return (uint32_t)t->nrows;
	while (j < t->nrows && t->rows[j].depth > t->rows[i].depth)
		j++;
	return j;
}

uint32_t flame_parent(const ds_table *t, uint32_t i)
{
	unsigned d = i < t->nrows ? t->rows[i].depth : 0;
	/* in preorder, the nearest row before it that is less deep */
	while (d && i-- > 0)
		if (t->rows[i].depth < d)
			return i;
	return FLAME_ALL;
}

unsigned flame_line(const ds_table *t, uint32_t i)
{
	return i < t->nrows ? t->rows[i].depth + 1 : 0;
}

uint64_t flame_total(const ds_table *t, uint32_t root)
{
	uint64_t n = 0;
	if (root != FLAME_ALL)
		return incl(t, root);
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].depth == 0)
			n += incl(t, (uint32_t)i);
	return n;
}

static void flame_layout(const ds_table *t, uint32_t want, int w, int *x0, int *x1)
{
	uint32_t root = want < t->nrows ? want : FLAME_ALL, end = flame_end(t, root);
	uint64_t total = flame_total(t, root);
	unsigned base = root == FLAME_ALL ? 0 : t->rows[root].depth + 1;
	/* per line under root: where its next frame starts, and whether the
	 * frame last placed on it was drawn (its callees are only then) */
	uint64_t next[FLAME_MAX_DEPTH + 1];
	bool drawn[FLAME_MAX_DEPTH + 1];

	for (size_t i = 0; i < t->nrows; i++)
		x0[i] = x1[i] = -1;
	for (uint32_t a = root; a != FLAME_ALL; a = flame_parent(t, a)) {
		x0[a] = 0;
		x1[a] = w;
	}
	if (!total)
		return;
	next[0] = 0;
	for (uint32_t i = root == FLAME_ALL ? 0 : root + 1; i < end; i++) {
		unsigned d = t->rows[i].depth - base;
		uint64_t at;
		if (d >= FLAME_MAX_DEPTH || (d && !drawn[d - 1])) {
			if (d < FLAME_MAX_DEPTH)
				drawn[d] = false;
			continue;
		}
		at = next[d];
		next[d] = at + incl(t, i);
		next[d + 1] = at; /* its callees start where it starts */
		x0[i] = (int)((double)at * w / (double)total);
		x1[i] = (int)((double)(at + incl(t, i)) * w / (double)total);
		drawn[d] = x1[i] > x0[i];
		if (!drawn[d])
			x0[i] = x1[i] = -1;
	}
}

void flame_place(const tui_app *a, int **x0, int **x1)
{
	const tab_state *ts = &a->tabs[T_CALLTREE];
	*x0 = ds_xcalloc(ts->t->nrows + 1, sizeof **x0);
	*x1 = ds_xcalloc(ts->t->nrows + 1, sizeof **x1);
	flame_layout(ts->t, ts->fl_root, a->scr.w, *x0, *x1);
}

/* A frame's colour: by its name, so a function has one colour throughout. */
static int frame_style(const char *name)
{
	unsigned h = 5381;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = h * 33 + *p;
	return ST_PAL + (int)(h % ST_NPAL);
}

static bool matches(const tui_app *a, const ds_row *r)
{
	return a->search && *a->search && strcasestr(r->name, a->search);
}

/* The share of the frames shown that matches the search: each matching
 * frame's inclusive samples, once, not again for matches under it. */
static double search_share(const tui_app *a, const ds_table *t, uint32_t root)
{
	uint64_t total = flame_total(t, root), n = 0;
	unsigned inside = UINT32_MAX; /* the depth of the match whose subtree this is */
	uint32_t end = flame_end(t, root);
	for (uint32_t i = root == FLAME_ALL ? 0 : root; i < end; i++) {
		if (inside != UINT32_MAX && t->rows[i].depth > inside)
			continue;
		inside = UINT32_MAX;
		if (matches(a, &t->rows[i])) {
			n += incl(t, i);
			inside = t->rows[i].depth;
		}
	}
	return total ? 100.0 * (double)n / (double)total : 0;
}

void draw_flame(tui_app *a)
{
	tui_screen *s = &a->scr;
	tab_state *ts = &a->tabs[a->tab];
	const ds_table *t = ts->t;
	uint32_t root = ts->fl_root, end = flame_end(t, root);
	int rows = body_rows(a), first = 0, x, *x0, *x1;
	uint64_t total = flame_total(t, FLAME_ALL);

	flame_place(a, &x0, &x1);
	if (ts->fl_sel < t->nrows && (int)flame_line(t, ts->fl_sel) >= rows)
		first = (int)flame_line(t, ts->fl_sel) - rows + 1;
	x = grid_rawf(s, 2, 0, s->w, ST_HEADER, " Flame graph of %s: each frame as wide as its inclusive samples",
		      t->events[0].name);
	grid_fill(s, 2, x, s->w - x, ST_HEADER);
	x = grid_raw(s, 3, 0, s->w, ST_DIM,
		     root == FLAME_ALL ? " Enter: zoom into the frame, / search, F the tree"
				       : " zoomed: BS zooms out, Home shows all, F the tree");
	if (a->search && *a->search) {
		x += grid_raw(s, 3, x, s->w - x, ST_MATCH, "   search: ");
		x += grid_text(s, 3, x, s->w - x > 40 ? 40 : s->w - x, ST_MATCH, a->search);
		grid_rawf(s, 3, x, s->w - x, ST_MATCH, " matches %.1f%% of the samples shown",
			  search_share(a, t, root));
	}
	if (!first) {
		int st = root == FLAME_ALL ? ST_PAL + ST_NPAL - 1 : ST_DIM;
		grid_fill(s, 4, 0, s->w, st);
		grid_rawf(s, 4, 0, s->w, st, "all (%llu samples)", (unsigned long long)total);
	}
	for (uint32_t i = 0; i < t->nrows; i++) {
		int y = 4 + (int)flame_line(t, i) - first, w = x1[i] - x0[i], st;
		if (x0[i] < 0 || w <= 0 || y < 4 || y >= 4 + rows)
			continue;
		st = i == ts->fl_sel ? ST_SELECTED
		     : (i < root || i >= end) && root != FLAME_ALL ? ST_DIM
		     : matches(a, &t->rows[i]) ? ST_MATCH : frame_style(t->rows[i].name);
		/* a blank column after each frame keeps neighbours apart without colour */
		if (w == 1) {
			grid_raw(s, y, x0[i], 1, st, ".");
			continue;
		}
		grid_fill(s, y, x0[i], w - 1, st);
		grid_text(s, y, x0[i], w - 1, st, t->rows[i].name);
	}
	free(x0);
	free(x1);
}

void flame_status(const tui_app *a, ds_buf *b)
{
	const tab_state *ts = &a->tabs[a->tab];
	const ds_table *t = ts->t;
	const ds_row *r;
	uint64_t total = flame_total(t, FLAME_ALL);
	if (ts->fl_sel >= t->nrows)
		return;
	r = &t->rows[ts->fl_sel];
	ds_buf_printf(b, "%s  module=%s  incl=%.1f%% (%llu)  excl=%.1f%% (%llu)", r->name, cell_str(t, r, "module"),
		      total ? 100.0 * (double)r->incl_samples[0] / (double)total : 0,
		      (unsigned long long)r->incl_samples[0],
		      total ? 100.0 * (double)r->samples[0] / (double)total : 0, (unsigned long long)r->samples[0]);
}

bool flame_shown(const tui_app *a, int tab)
{
	return tab == T_CALLTREE && a->tabs[tab].flame && !a->tabs[tab].by && flame_ok(a->tabs[tab].t);
}
