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
 * the data source of the records (memlevel): "71% local DRAM, 20% L3".
 */
#include "analyze/analyze_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_LEVELS 24 /* memlevel's names, and <unknown> */
#define UNKNOWN_LEVEL "<unknown>"

typedef struct mt_event {
	uint16_t ev;      /* the event that counts cycles */
	uint16_t base;    /* latency:E: E; else UINT16_MAX */
	char *avg_name, *from_name;
} mt_event;

struct memtime {
	const ds_session *s;
	DS_VEC(mt_event) evs;
	int32_t *cycles_of;   /* per session event: its mt_event, -1 */
	int32_t *access_of;   /* per session event: the mt_event it gives the accesses of, -1 */
	const char *levels[MT_LEVELS];
	size_t nlevels;
	ds_vec_u64 acc;       /* per row, per mt_event: accesses, then cycles per level */
};

static size_t stride(const memtime *m)
{
	return m->evs.n * (1 + MT_LEVELS);
}

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

void mt_free(memtime *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->evs.n; i++) {
		free(m->evs.v[i].avg_name);
		free(m->evs.v[i].from_name);
	}
	ds_vec_free(&m->evs);
	ds_vec_free(&m->acc);
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

static size_t level_of(memtime *m, const char *name)
{
	for (size_t i = 0; i < m->nlevels; i++)
		if (m->levels[i] == name || !strcmp(m->levels[i], name))
			return i;
	if (m->nlevels == MT_LEVELS)
		return level_of(m, UNKNOWN_LEVEL);
	m->levels[m->nlevels] = name;
	return m->nlevels++;
}

static uint64_t *row_acc(memtime *m, size_t row)
{
	while (m->acc.n < (row + 1) * stride(m))
		ds_vec_push(&m->acc, 0);
	return &m->acc.v[row * stride(m)];
}

bool mt_wants(const memtime *m, size_t ev)
{
	return m && (m->cycles_of[ev] >= 0 || m->access_of[ev] >= 0);
}

void mt_add(memtime *m, size_t row, size_t rec)
{
	const ds_srec *r;
	uint64_t *a, src;
	int32_t k;
	const char *lvl;

	if (!m)
		return;
	r = &m->s->srecs.v[rec];
	if ((k = m->access_of[r->ev]) >= 0) {
		row_acc(m, row)[(size_t)k * (1 + MT_LEVELS)] += r->period;
		return;
	}
	if ((k = m->cycles_of[r->ev]) < 0)
		return;
	a = row_acc(m, row) + (size_t)k * (1 + MT_LEVELS);
	/* latency:E's record follows E's: its accesses are E's period */
	if (m->evs.v[k].base != UINT16_MAX && rec > 0 && m->s->srecs.v[rec - 1].ev == m->evs.v[k].base)
		a[0] += m->s->srecs.v[rec - 1].period;
	lvl = ds_srec_data_src(m->s, rec, &src) ? ds_mem_level(src) : NULL;
	a[1 + level_of(m, lvl ? lvl : UNKNOWN_LEVEL)] += r->period;
}

void mt_sum(memtime *m, size_t row, size_t from)
{
	uint64_t *a, *b;

	if (!m || (from + 1) * stride(m) > m->acc.n)
		return;
	a = row_acc(m, row);
	b = &m->acc.v[from * stride(m)]; /* after row_acc: it may move acc */
	for (size_t k = 0; k < stride(m); k++)
		a[k] += b[k];
}

void mt_cells(const memtime *m, size_t row, ds_row *out, size_t first)
{
	for (size_t i = 0; m && i < m->evs.n && (row + 1) * stride(m) <= m->acc.n; i++) {
		const uint64_t *a = &m->acc.v[row * stride(m) + i * (1 + MT_LEVELS)];
		uint64_t total = 0;
		size_t order[MT_LEVELS], n = 0;
		ds_buf text = {0};
		for (size_t l = 0; l < m->nlevels; l++)
			if (a[1 + l]) {
				total += a[1 + l];
				order[n++] = l;
			}
		if (!total)
			continue;
		if (a[0]) {
			out->cells[first + 2 * i].u = (total + a[0] / 2) / a[0];
			out->cells[first + 2 * i].set = true;
		}
		/* the levels, most cycles first, down to the last of 1% or more */
		for (size_t x = 1; x < n; x++)
			for (size_t y = x; y > 0 && a[1 + order[y]] > a[1 + order[y - 1]]; y--) {
				size_t t = order[y];
				order[y] = order[y - 1];
				order[y - 1] = t;
			}
		for (size_t x = 0; x < n && (x == 0 || 100.0 * (double)a[1 + order[x]] / (double)total >= 1.0); x++)
			ds_buf_printf(&text, "%s%.0f%% %s", x ? "; " : "", 100.0 * (double)a[1 + order[x]] / (double)total,
				      m->levels[order[x]]);
		free(out->cells[first + 2 * i + 1].s);
		out->cells[first + 2 * i + 1].s = ds_buf_steal(&text);
		out->cells[first + 2 * i + 1].set = true;
	}
}
