/*
 * Memory time per row: for each event that counts memory cycles, the
 * average latency of the row's accesses and where their cycles came from.
 *
 * The events: latency:E (session.c), whose records are E's samples that
 * carry a latency, each counted as E's period times it, so that a row's
 * count of it is its accesses' cycles; and the simulator's
 * sim:MEM_CYCLES, whose count is the cycles too, and whose accesses are
 * sim:loads' when that was recorded.  An average is the row's cycles over
 * the accesses that made them (E's periods of those samples; sim:loads'
 * count), so that loads without a latency (IBS and SPE stores) do not
 * lower it.  Where the cycles came from is each level's share of them, by
 * the data source of the records (memlevel): "71% local DRAM; 20% L3"
 * (semicolons, which CSV leaves unquoted).  Rows keep a list of the
 * levels they met, not a slot for each: hotlines may have millions.
 */
#include "analyze/analyze_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_LEVELS 24 /* slots for memlevel's names, and <unknown> */
#define UNKNOWN_LEVEL "<unknown>"
#define NO_NODE UINT32_MAX

typedef struct mt_event {
	uint16_t ev;      /* the event that counts cycles */
	uint16_t base;    /* latency:E: E; else UINT16_MAX */
	char *avg_name, *from_name;
} mt_event;

/* A row's cycles from one level: a row meets a few levels, and views
 * have up to millions of rows (hotlines' lines). */
typedef struct mt_node {
	uint64_t cycles;
	uint32_t next;    /* the row's next level, NO_NODE */
	uint8_t level;
} mt_node;

/* A row's memory time of one event. */
typedef struct mt_cell {
	uint64_t accesses;
	uint32_t first;   /* its levels, NO_NODE */
} mt_cell;

struct memtime {
	const ds_session *s;
	DS_VEC(mt_event) evs;
	int32_t *cycles_of;   /* per session event: its mt_event, -1 */
	int32_t *access_of;   /* per session event: the mt_event it gives the accesses of, -1 */
	const char *levels[MT_LEVELS];
	size_t nlevels;
	DS_VEC(mt_cell) cells; /* per row, per mt_event */
	DS_VEC(mt_node) nodes;
};

memtime *mt_new(const ds_session *s)
{
	memtime *m = ds_xcalloc(1, sizeof *m);
	int32_t loads = -1;

	m->s = s;
	m->cycles_of = ds_xcalloc(s->nev + 1, sizeof *m->cycles_of);
	m->access_of = ds_xcalloc(s->nev + 1, sizeof *m->access_of);
	for (size_t e = 0; e < s->nev; e++) {
		m->cycles_of[e] = m->access_of[e] = -1;
		if (!strcmp(ds_session_event(s, e)->name, "sim:loads"))
			loads = (int32_t)e;
	}
	for (size_t e = 0; e < s->npev; e++) {
		const char *name = ds_session_event(s, e)->name;
		mt_event x = {.base = UINT16_MAX};
		if (s->lat_ev[e] != UINT16_MAX && strncmp(ds_session_event(s, s->lat_ev[e])->name, "latency:", 8) == 0) {
			x.ev = s->lat_ev[e];
			x.base = (uint16_t)e;
		} else if (!strcmp(name, "sim:MEM_CYCLES")) {
			x.ev = (uint16_t)e;
			if (loads >= 0)
				m->access_of[loads] = (int32_t)m->evs.n;
		} else {
			continue;
		}
		x.avg_name = ds_xasprintf("avg_latency:%s", name);
		x.from_name = ds_xasprintf("latency_from:%s", name);
		m->cycles_of[x.ev] = (int32_t)m->evs.n;
		ds_vec_push(&m->evs, x);
	}
	if (!m->evs.n) {
		mt_free(m);
		return NULL;
	}
	return m;
}

memtime *mt_tb_init(tb *b, ds_session *s, const char *view, const char *label, const ds_col *cols, size_t ncols)
{
	memtime *m = mt_new(s);
	ds_col *all = ds_xcalloc(ncols + mt_ncols(m) + 1, sizeof *all);

	memcpy(all, cols, ncols * sizeof *cols);
	mt_cols(m, &all[ncols]);
	tb_init(b, s, view, label, all, ncols + mt_ncols(m), false);
	b->t->own_cols = mt_ncols(m);
	tb_own_names(b->t); /* the names of memory time's columns die with m */
	free(all);
	return m;
}

void mt_free(memtime *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->evs.n; i++) {
		free(m->evs.v[i].avg_name);
		free(m->evs.v[i].from_name);
	}
	ds_vec_free(&m->evs);
	ds_vec_free(&m->cells);
	ds_vec_free(&m->nodes);
	free(m->cycles_of);
	free(m->access_of);
	free(m);
}

size_t mt_ncols(const memtime *m)
{
	return m ? 2 * m->evs.n : 0;
}

void mt_cols(const memtime *m, ds_col *cols)
{
	for (size_t i = 0; m && i < m->evs.n; i++) {
		cols[2 * i] = (ds_col){m->evs.v[i].avg_name, DS_COL_U64, true};
		cols[2 * i + 1] = (ds_col){m->evs.v[i].from_name, DS_COL_STR, true};
	}
}

/* A level's index (memlevel has fewer names than slots: the last one
 * takes any more, as <unknown>). */
static size_t level_of(memtime *m, const char *name)
{
	for (size_t i = 0; i < m->nlevels; i++)
		if (m->levels[i] == name || !strcmp(m->levels[i], name))
			return i;
	if (m->nlevels == MT_LEVELS - 1)
		name = UNKNOWN_LEVEL;
	if (m->nlevels == MT_LEVELS)
		return MT_LEVELS - 1;
	m->levels[m->nlevels] = name;
	return m->nlevels++;
}

/* Row's cells, one per event, made when new. */
static mt_cell *row_cells(memtime *m, size_t row)
{
	while (m->cells.n < (row + 1) * m->evs.n)
		ds_vec_push(&m->cells, ((mt_cell){0, NO_NODE}));
	return &m->cells.v[row * m->evs.n];
}

/* Add cycles from level to cell c (of m->cells: its index, as pushing a
 * node does not move the cells). */
static void add_level(memtime *m, size_t c, uint8_t level, uint64_t cycles)
{
	uint32_t n;

	for (n = m->cells.v[c].first; n != NO_NODE; n = m->nodes.v[n].next)
		if (m->nodes.v[n].level == level) {
			m->nodes.v[n].cycles += cycles;
			return;
		}
	ds_vec_push(&m->nodes, ((mt_node){cycles, m->cells.v[c].first, level}));
	m->cells.v[c].first = (uint32_t)(m->nodes.n - 1);
}

bool mt_wants(const memtime *m, size_t ev)
{
	return m && (m->cycles_of[ev] >= 0 || m->access_of[ev] >= 0);
}

void mt_add(memtime *m, size_t row, size_t rec)
{
	const ds_srec *r;
	uint64_t src;
	int32_t k;
	size_t c;
	const char *lvl;

	if (!m)
		return;
	r = &m->s->srecs.v[rec];
	if ((k = m->access_of[r->ev]) >= 0) {
		row_cells(m, row)[k].accesses += r->period;
		return;
	}
	if ((k = m->cycles_of[r->ev]) < 0)
		return;
	row_cells(m, row);
	c = row * m->evs.n + (size_t)k;
	/* latency:E's record follows E's: its accesses are E's period */
	if (m->evs.v[k].base != UINT16_MAX && rec > 0 && m->s->srecs.v[rec - 1].ev == m->evs.v[k].base)
		m->cells.v[c].accesses += m->s->srecs.v[rec - 1].period;
	lvl = ds_srec_data_src(m->s, rec, &src) ? ds_mem_level(src) : NULL;
	add_level(m, c, (uint8_t)level_of(m, lvl ? lvl : UNKNOWN_LEVEL), r->period);
}

void mt_sum(memtime *m, size_t row, size_t from)
{
	if (!m || (from + 1) * m->evs.n > m->cells.n)
		return;
	row_cells(m, row);
	for (size_t k = 0; k < m->evs.n; k++) {
		size_t c = row * m->evs.n + k, f = from * m->evs.n + k;
		m->cells.v[c].accesses += m->cells.v[f].accesses;
		for (uint32_t n = m->cells.v[f].first; n != NO_NODE; n = m->nodes.v[n].next)
			add_level(m, c, m->nodes.v[n].level, m->nodes.v[n].cycles);
	}
}

void mt_cells(const memtime *m, size_t row, ds_row *out, size_t first)
{
	for (size_t i = 0; m && i < m->evs.n && (row + 1) * m->evs.n <= m->cells.n; i++) {
		const mt_cell *c = &m->cells.v[row * m->evs.n + i];
		const mt_node *order[MT_LEVELS];
		uint64_t total = 0;
		size_t n = 0;
		ds_buf text = {0};
		for (uint32_t x = c->first; x != NO_NODE && n < MT_LEVELS; x = m->nodes.v[x].next)
			if (m->nodes.v[x].cycles) {
				total += m->nodes.v[x].cycles;
				order[n++] = &m->nodes.v[x];
			}
		if (!total)
			continue;
		if (c->accesses) {
			out->cells[first + 2 * i].u = (total + c->accesses / 2) / c->accesses;
			out->cells[first + 2 * i].set = true;
		}
		/* the levels, most cycles first (a tie: in the order met), down to
		 * the last of 1% or more */
		for (size_t x = 1; x < n; x++)
			for (size_t y = x; y > 0 && (order[y]->cycles > order[y - 1]->cycles ||
						     (order[y]->cycles == order[y - 1]->cycles &&
						      order[y]->level < order[y - 1]->level)); y--) {
				const mt_node *t = order[y];
				order[y] = order[y - 1];
				order[y - 1] = t;
			}
		for (size_t x = 0; x < n && (x == 0 || 100.0 * (double)order[x]->cycles / (double)total >= 1.0); x++)
			ds_buf_printf(&text, "%s%.0f%% %s", x ? "; " : "", 100.0 * (double)order[x]->cycles / (double)total,
				      m->levels[order[x]->level]);
		free(out->cells[first + 2 * i + 1].s);
		out->cells[first + 2 * i + 1].s = ds_buf_steal(&text);
		out->cells[first + 2 * i + 1].set = true;
	}
}
