/*
 * The timeline: per thread, the run cut into slices of time, each with its
 * samples and the function and data object most of them were in.
 *
 * It reads the per-sample records of the dataspace (dataspace.c): their
 * time, thread, instruction and data object.  The first timeline view
 * sorts, per thread, the indices of its records by time (4 bytes a
 * sample); every later one (another window, another number of slices:
 * zooming) is a binary search and a walk over the records of the window
 * that the filter keeps, with each instruction's function looked up once
 * per view.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SLICES 100000

typedef struct tl_thread {
	size_t thread;            /* index in the session's threads */
	ds_vec_u32 rec;           /* its records, by time */
} tl_thread;

struct ds_timeline {
	DS_VEC(tl_thread) th;     /* in (pid, tid) order */
	uint64_t t0, t1;          /* first and last sample time */
	uint64_t untimed;         /* samples without a time: not on the timeline */
};

void ds_timeline_free(ds_session *s)
{
	struct ds_timeline *tl = s->timeline;
	if (!tl)
		return;
	for (size_t i = 0; i < tl->th.n; i++)
		ds_vec_free(&tl->th.v[i].rec);
	ds_vec_free(&tl->th);
	free(tl);
	s->timeline = NULL;
}

static int cmp_by_time(const void *a, const void *b, void *arg)
{
	const ds_session *s = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = s->srecs.v[i].time, y = s->srecs.v[j].time;
	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int cmp_threads(const void *a, const void *b, void *arg)
{
	const ds_session *s = arg;
	const thread_ent *x = &s->threads.v[((const tl_thread *)a)->thread];
	const thread_ent *y = &s->threads.v[((const tl_thread *)b)->thread];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int timeline_index(ds_session *s, ds_err *err)
{
	struct ds_timeline *tl;
	int64_t *slot;

	if (s->timeline)
		return 0;
	if (ds_dataspace_build(s, err))
		return -1;
	if (s->srecs.n > UINT32_MAX)
		return ds_err_set(err, DS_EINPUT, "the timeline shows at most %u samples", UINT32_MAX);
	tl = ds_xcalloc(1, sizeof *tl);
	slot = ds_xmalloc((s->threads.n ? s->threads.n : 1) * sizeof *slot);
	for (size_t i = 0; i < s->threads.n; i++)
		slot[i] = -1;
	for (size_t i = 0; i < s->srecs.n; i++) {
		const ds_srec *r = &s->srecs.v[i];
		if (r->time == UINT64_MAX) {
			tl->untimed++;
			continue;
		}
		if (slot[r->thread] < 0) {
			tl_thread t;
			memset(&t, 0, sizeof t);
			t.thread = r->thread;
			slot[r->thread] = (int64_t)tl->th.n;
			ds_vec_push(&tl->th, t);
		}
		ds_vec_push(&tl->th.v[slot[r->thread]].rec, (uint32_t)i);
		if (!tl->t0 || r->time < tl->t0)
			tl->t0 = r->time;
		if (r->time > tl->t1)
			tl->t1 = r->time;
	}
	free(slot);
	/* perf.data holds each CPU's buffer in turn: a thread that moved
	 * between CPUs has its samples out of order */
	for (size_t i = 0; i < tl->th.n; i++) {
		ds_vec_u32 *v = &tl->th.v[i].rec;
		bool sorted = true;
		for (size_t k = 1; k < v->n && sorted; k++)
			sorted = s->srecs.v[v->v[k - 1]].time <= s->srecs.v[v->v[k]].time;
		if (!sorted)
			ds_sort_r(v->v, v->n, sizeof *v->v, cmp_by_time, s);
	}
	ds_sort_r(tl->th.v, tl->th.n, sizeof *tl->th.v, cmp_threads, s);
	s->timeline = tl;
	return 0;
}

/* ---- the view ---- */

enum { TL_PID, TL_TID, TL_SLICE, TL_START, TL_END, TL_FUNCTION, TL_DATAOBJECT, TL_ORDER, TL_NCOLS };

/* Names of the instructions' functions and data objects as dense ids,
 * and a count per id for the slice being summed. */
typedef struct namer {
	ds_hash *ids;
	DS_VEC(const char *) names;
	ds_vec_u64 n;
	ds_vec_u32 touched;
} namer;

static int32_t namer_id(namer *m, const void *key, size_t len, const char *name)
{
	bool added;
	size_t i = ds_hash_intern(m->ids, key, len, &added);
	if (added) {
		ds_vec_push(&m->names, name);
		ds_vec_push(&m->n, 0);
	}
	return (int32_t)i;
}

static void namer_count(namer *m, int32_t id)
{
	if (id < 0)
		return;
	if (!m->n.v[id]++)
		ds_vec_push(&m->touched, (uint32_t)id);
}

/* The name with the most counts (ties: the first by name); resets. */
static const char *namer_top(namer *m)
{
	const char *best = NULL;
	uint64_t most = 0;
	for (size_t i = 0; i < m->touched.n; i++) {
		uint32_t id = m->touched.v[i];
		if (m->n.v[id] > most || (m->n.v[id] == most && best && strcmp(m->names.v[id], best) < 0)) {
			most = m->n.v[id];
			best = m->names.v[id];
		}
		m->n.v[id] = 0;
	}
	m->touched.n = 0;
	return best;
}

static void namer_free(namer *m)
{
	ds_hash_free(m->ids);
	ds_vec_free(&m->names);
	ds_vec_free(&m->n);
	ds_vec_free(&m->touched);
}

/* The first of a thread's records at or after time t. */
static size_t lower_bound(const ds_session *s, const ds_vec_u32 *v, uint64_t t)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->srecs.v[v->v[mid]].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef struct slice_acc {
	tb *b;
	ds_session *s;
	const tl_thread *t;
	size_t order;             /* the thread's rank */
	uint64_t from, to, width;
	namer *fn, *dobj;
} slice_acc;

static void flush_slice(slice_acc *a, uint64_t sl, const uint64_t *samples, const uint64_t *count)
{
	const thread_ent *te = &a->s->threads.v[a->t->thread];
	struct {
		uint64_t order, slice;
	} key = {a->order, sl};
	uint64_t start = a->from + sl * a->width, end = start + a->width;
	size_t r = tb_row(a->b, &key, sizeof key, ds_thread_comm(a->s, a->t->thread), NULL);
	ds_row *row = &a->b->v.v[r];

	tb_cell_u64(row, TL_PID, te->pid);
	tb_cell_u64(row, TL_TID, te->tid);
	tb_cell_u64(row, TL_SLICE, sl);
	tb_cell_u64(row, TL_START, start);
	tb_cell_u64(row, TL_END, end < a->to ? end : a->to);
	tb_cell_str(row, TL_FUNCTION, namer_top(a->fn));
	tb_cell_str(row, TL_DATAOBJECT, namer_top(a->dobj));
	tb_cell_u64(row, TL_ORDER, key.order * MAX_SLICES + sl);
	memcpy(row->samples, samples, a->s->nev * sizeof *samples);
	memcpy(row->count, count, a->s->nev * sizeof *count);
}

int ds_view_timeline(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[TL_NCOLS] = {
		{"pid", DS_COL_U64, true},        {"tid", DS_COL_U64, true},
		{"slice", DS_COL_U64, true},      {"start_ns", DS_COL_U64, true},
		{"end_ns", DS_COL_U64, false},    {"function", DS_COL_STR, true},
		{"dataobject", DS_COL_STR, true}, {"order", DS_COL_U64, false}};
	ds_view_opts keep = {.sort = o && o->sort ? o->sort : "order", .limit = o ? o->limit : 0};
	uint64_t span, from, to, width, slices = o && o->slices ? o->slices : 100;
	uint64_t *samples, *count;
	int32_t *site_fn;
	namer fn = {0}, objs = {0};
	struct ds_timeline *tl;
	tb b;

	if (timeline_index(s, err))
		return -1;
	tl = s->timeline;
	span = tl->th.n ? tl->t1 - tl->t0 + 1 : 1;
	from = o ? o->from_ns : 0;
	to = o && o->to_ns && o->to_ns < span ? o->to_ns : span;
	if (slices > MAX_SLICES)
		slices = MAX_SLICES;
	if (from >= to)
		return ds_err_set(err, DS_EINPUT,
				  "the timeline window %llu..%llu ns is empty (the run lasted %llu ns)",
				  (unsigned long long)from, (unsigned long long)to, (unsigned long long)span);
	width = (to - from + slices - 1) / slices;

	/* each instruction's function, once; data objects are the records' own */
	fn.ids = ds_hash_new();
	objs.ids = ds_hash_new();
	site_fn = ds_xmalloc((s->sites.n ? s->sites.n : 1) * sizeof *site_fn);
	for (size_t i = 0; i < s->sites.n; i++) {
		fkey k = site_fkey(s, i);
		site_fn[i] = namer_id(&fn, &k, sizeof k, site_fname(s, i));
	}
	for (size_t i = 0; i < s->dobjs.n; i++)
		namer_id(&objs, &i, sizeof i, s->dobjs.v[i].name);
	samples = ds_xcalloc(s->nev ? s->nev : 1, sizeof *samples);
	count = ds_xcalloc(s->nev ? s->nev : 1, sizeof *count);

	tb_init(&b, s, "timeline", "thread", cols, TL_NCOLS, false);
	for (size_t ti = 0; ti < tl->th.n; ti++) {
		const tl_thread *t = &tl->th.v[ti];
		size_t lo = lower_bound(s, &t->rec, tl->t0 + from), hi = lower_bound(s, &t->rec, tl->t0 + to);
		slice_acc a = {&b, s, t, ti, from, to, width, &fn, &objs};
		uint64_t cur = UINT64_MAX;
		for (size_t k = lo; k < hi; k++) {
			uint32_t i = t->rec.v[k];
			const ds_srec *r = &s->srecs.v[i];
			uint64_t sl;
			if (!ds_srec_kept(s, i))
				continue;
			sl = (r->time - tl->t0 - from) / width;
			if (sl != cur) {
				if (cur != UINT64_MAX)
					flush_slice(&a, cur, samples, count);
				memset(samples, 0, s->nev * sizeof *samples);
				memset(count, 0, s->nev * sizeof *count);
				cur = sl;
			}
			samples[r->ev]++;
			count[r->ev] += r->period ? r->period : 1;
			namer_count(&fn, site_fn[r->site]);
			namer_count(&objs, r->dobj);
		}
		if (cur != UINT64_MAX)
			flush_slice(&a, cur, samples, count);
	}
	tb_prop(b.t, "first_sample_ns", DS_PROP_NUMBER, "%llu", (unsigned long long)tl->t0);
	tb_prop(b.t, "duration_ns", DS_PROP_NUMBER, "%llu", (unsigned long long)span);
	tb_prop(b.t, "from_ns", DS_PROP_NUMBER, "%llu", (unsigned long long)from);
	tb_prop(b.t, "to_ns", DS_PROP_NUMBER, "%llu", (unsigned long long)to);
	tb_prop(b.t, "slices", DS_PROP_NUMBER, "%llu", (unsigned long long)slices);
	tb_prop(b.t, "slice_ns", DS_PROP_NUMBER, "%llu", (unsigned long long)width);
	tb_prop(b.t, "threads", DS_PROP_NUMBER, "%zu", tl->th.n);
	if (tl->untimed)
		tb_prop(b.t, "note", DS_PROP_TEXT, "%llu samples have no time and are not on the timeline",
			(unsigned long long)tl->untimed);
	free(site_fn);
	namer_free(&fn);
	namer_free(&objs);
	free(samples);
	free(count);
	return tb_finish(&b, &keep, out, err);
}
