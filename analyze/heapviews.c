/*
 * The views of the heap (record --heap): every allocation site, the sites
 * of blocks no free ended, and the bytes of small blocks their samples
 * touched.  The blocks and sites are heap.c's; the samples in them are
 * the records the filter keeps.
 */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Sites of blocks of at most this many bytes get an access map a word
 * (MAP_WORD bytes) a row, unasked; a site asked for by name
 * (--allocsite) gets one whatever its size, in at most MAP_ROWS rows of a
 * power of two bytes, a cache line or more. */
#define MAP_MAX_BYTES 1024
#define MAP_WORD 8
#define MAP_ROWS 128

/* The bytes of a row of the access map of blocks of at most size bytes. */
static uint64_t map_granule(uint64_t size)
{
	uint64_t g = 64;
	if (size <= MAP_MAX_BYTES)
		return MAP_WORD;
	while ((size + g - 1) / g > MAP_ROWS)
		g *= 2;
	return g;
}

/* Every allocation site, sampled or not: its blocks, bytes, peak, the
 * blocks' average lifetime, and the samples that fell in its blocks; a
 * note for a site that may be the program's own allocator. */
int ds_view_heap(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const char *const keys[] = {"allocsite"};
	int rc = ds_group(s, keys, 1, &(group_opts){"heap", "allocation site", false, true}, o, out, err);
	char *notes[3];

	if (!rc)
		for (size_t i = 0, n = ds_heap_wrapper_notes(s, notes, sizeof notes / sizeof *notes); i < n; i++) {
			tb_prop(*out, "note", DS_PROP_TEXT, "%s", notes[i]);
			free(notes[i]);
		}
	return rc;
}

/* The site of record k's block, UINT32_MAX: none. */
static uint32_t site_of_record(const ds_session *s, size_t k)
{
	const ds_heap *h = &s->heap;
	if (k >= h->rec_block.n || !h->rec_block.v[k] || !ds_srec_kept(s, k))
		return UINT32_MAX;
	return h->blocks.v[h->rec_block.v[k] - 1].site;
}

static void heap_props(const ds_session *s, ds_table *t)
{
	tb_prop(t, "heap_files", DS_PROP_NUMBER, "%zu", s->heap.files);
	ds_heap_notes(s, t);
	if (!s->heap.files)
		tb_prop(t, "note", DS_PROP_TEXT, "%s", DS_HEAP_NONE);
}

static int cmp_leaks(const void *pa, const void *pb, void *arg)
{
	const ds_row *a = pa, *b = pb;
	for (size_t c = 1; c < 4; c += 2) /* leaked_bytes, unended_bytes */
		if (a->cells[c].u != b->cells[c].u)
			return a->cells[c].u > b->cells[c].u ? -1 : 1;
	return tb_cmp_ties(arg, a, b);
}

/* The sites of blocks no free ended (Oracle's Leaklist): leaked when their
 * process exited, or still live when it was killed or exec'd (no exit:
 * not a leak, and not counted as one).  The samples are those in the
 * site's blocks, leaked or not; by leaked bytes. */
int ds_view_leaks(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	enum { LK_BLOCKS, LK_BYTES, LK_LIVE_BLOCKS, LK_LIVE_BYTES, LK_STACK, LK_NCOLS };
	static const ds_col cols[LK_NCOLS] = {
		{"leaked_blocks", DS_COL_U64, true}, {"leaked_bytes", DS_COL_BYTES, true},
		{"unended_blocks", DS_COL_U64, true}, {"unended_bytes", DS_COL_BYTES, true},
		{"stack", DS_COL_STR, false}};
	const ds_heap *h = &s->heap;
	ds_vec_u32 row_of = {0};
	uint64_t leaked = 0, leaked_bytes = 0;
	tb tbl;

	if (ds_dataspace_build(s, err))
		return -1;
	tb_init(&tbl, s, "leaks", "allocation site", cols, LK_NCOLS, false);
	for (uint32_t i = 0; i < h->sites.n; i++) {
		const hsite *st = &h->sites.v[i];
		size_t r;
		ds_vec_push(&row_of, UINT32_MAX);
		if (!st->leaked && !st->unended)
			continue;
		r = tb_row_new(&tbl, st->name);
		row_of.v[i] = (uint32_t)r;
		tb_cell_u64(&tbl.v.v[r], LK_BLOCKS, st->leaked);
		tb_cell_u64(&tbl.v.v[r], LK_BYTES, st->leaked_bytes);
		tb_cell_u64(&tbl.v.v[r], LK_LIVE_BLOCKS, st->unended);
		tb_cell_u64(&tbl.v.v[r], LK_LIVE_BYTES, st->unended_bytes);
		tb_cell_str(&tbl.v.v[r], LK_STACK, ds_heap_site_stack(s, i));
		leaked += st->leaked;
		leaked_bytes += st->leaked_bytes;
	}
	for (size_t k = 0; k < s->srecs.n; k++) {
		uint32_t si = site_of_record(s, k), r;
		if (si == UINT32_MAX || (r = row_of.v[si]) == UINT32_MAX)
			continue;
		tbl.v.v[r].samples[s->srecs.v[k].ev]++;
		tbl.v.v[r].count[s->srecs.v[k].ev] += s->srecs.v[k].period;
	}
	ds_vec_free(&row_of);
	tb_prop(tbl.t, "leaked_blocks", DS_PROP_NUMBER, "%" PRIu64, leaked);
	tb_prop(tbl.t, "leaked_bytes", DS_PROP_NUMBER, "%" PRIu64, leaked_bytes);
	heap_props(s, tbl.t);
	if (o && o->sort)
		return tb_finish(&tbl, o, out, err);
	/* the most bytes leaked first, then the most left when killed */
	ds_sort_r(tbl.v.v, tbl.v.n, sizeof *tbl.v.v, cmp_leaks, tbl.t);
	*out = tb_take(&tbl);
	tb_cut(*out, o ? o->limit : 0);
	return 0;
}

/* ---- the access map ----
 * DHAT's, from samples: for each site of small blocks with samples, the
 * hottest first, its blocks' bytes a word (8 bytes) a row, with the samples
 * that touched the word, in any block of the site, and the field most of
 * them were in; runs of words no sample touched are one row.  With every
 * access a sample (record --sim -c 1) those bytes were never touched; with
 * sampling, no sample saw them. */

enum { AM_KIND, AM_OFFSET, AM_SIZE, AM_FIELD, AM_BLOCKS, AM_ORDER, AM_NCOLS };

typedef struct map_site {
	uint32_t site;
	uint64_t samples;     /* of the first event: the order */
} map_site;

static int cmp_map_sites(const void *a, const void *b)
{
	const map_site *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static void map_site_rows(ds_session *s, tb *b, uint32_t si, const ds_vec_u32 *recs, uint64_t *order)
{
	const hsite *st = &s->heap.sites.v[si];
	uint64_t g = map_granule(st->max_size);
	size_t words = (size_t)((st->max_size + g - 1) / g), nev = s->nev, r;
	uint64_t *m = ds_xcalloc(2 * nev * (words + 1), sizeof *m);
	int32_t *most = ds_xcalloc(words + 1, sizeof *most);
	uint64_t *most_n = ds_xcalloc(words + 1, sizeof *most_n);
	ds_buf name = {0};

	for (size_t w = 0; w < words; w++)
		most[w] = -1;
	r = tb_row_new(b, st->name);
	tb_cell_str(&b->v.v[r], AM_KIND, "site");
	tb_cell_u64(&b->v.v[r], AM_SIZE, st->max_size);
	tb_cell_u64(&b->v.v[r], AM_BLOCKS, st->blocks);
	tb_cell_u64(&b->v.v[r], AM_ORDER, (*order)++);
	for (size_t i = 0; i < recs->n; i++) {
		const ds_srec *x = &s->srecs.v[recs->v[i]];
		const hblock *hb = &s->heap.blocks.v[s->heap.rec_block.v[recs->v[i]] - 1];
		size_t w = (size_t)((x->ea - hb->addr) / g);
		b->v.v[r].samples[x->ev]++;
		b->v.v[r].count[x->ev] += x->period;
		if (w >= words)
			continue;
		m[w * 2 * nev + x->ev]++;
		m[w * 2 * nev + nev + x->ev] += x->period;
		/* the word's field: the object of most of its samples, counted
		 * while that object stays the same */
		if (x->dobj == most[w])
			most_n[w]++;
		else if (!most_n[w] || !--most_n[w])
			most[w] = x->dobj, most_n[w] = 1;
	}
	for (size_t w = 0; w < words;) {
		size_t end = w + 1;
		bool touched = false;
		for (size_t e = 0; e < nev; e++)
			touched |= m[w * 2 * nev + e] != 0;
		if (!touched)
			for (; end < words; end++) {
				bool t2 = false;
				for (size_t e = 0; e < nev; e++)
					t2 |= m[end * 2 * nev + e] != 0;
				if (t2)
					break;
			}
		ds_buf_reset(&name);
		ds_buf_printf(&name, "+%" PRIu64 "..%" PRIu64, w * g,
			      (end * g < st->max_size ? end * g : st->max_size) - 1);
		if (touched && most[w] >= 0)
			ds_buf_printf(&name, " %s", s->dobjs.v[most[w]].name);
		else if (!touched)
			ds_buf_puts(&name, " unsampled");
		r = tb_row_new(b, ds_buf_str(&name));
		b->v.v[r].depth = 1;
		tb_cell_str(&b->v.v[r], AM_KIND, touched ? "bytes" : "unsampled");
		tb_cell_u64(&b->v.v[r], AM_OFFSET, w * g);
		tb_cell_u64(&b->v.v[r], AM_SIZE, (end * g < st->max_size ? end * g : st->max_size) - w * g);
		tb_cell_u64(&b->v.v[r], AM_ORDER, (*order)++);
		if (touched) {
			if (most[w] >= 0)
				tb_cell_str(&b->v.v[r], AM_FIELD, s->dobjs.v[most[w]].name);
			for (size_t e = 0; e < nev; e++) {
				b->v.v[r].samples[e] = m[w * 2 * nev + e];
				b->v.v[r].count[e] = m[w * 2 * nev + nev + e];
			}
		}
		w = end;
	}
	ds_buf_free(&name);
	free(m);
	free(most);
	free(most_n);
}

int ds_view_accessmap(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[AM_NCOLS] = {
		{"kind", DS_COL_STR, false}, {"offset", DS_COL_U64, true}, {"size", DS_COL_U64, true},
		{"field", DS_COL_STR, false}, {"blocks", DS_COL_U64, true}, {"order", DS_COL_U64, false}};
	ds_view_opts keep = {.sort = "order"};
	const ds_heap *h = &s->heap;
	DS_VEC(ds_vec_u32) recs = {0};
	DS_VEC(map_site) hot = {0};
	uint64_t order = 0;
	size_t limit = o && o->limit ? o->limit : 10;
	bool named = o && o->allocsite, coarse = false;
	tb b;
	int rc;

	if (ds_dataspace_build(s, err))
		return -1;
	for (size_t i = 0; i < h->sites.n; i++)
		ds_vec_push(&recs, (ds_vec_u32){0});
	for (size_t k = 0; k < s->srecs.n; k++) {
		uint32_t si = site_of_record(s, k);
		if (si != UINT32_MAX && (named || h->sites.v[si].max_size <= MAP_MAX_BYTES))
			ds_vec_push(&recs.v[si], (uint32_t)k);
	}
	for (uint32_t i = 0; i < h->sites.n; i++) {
		uint64_t n = 0;
		for (size_t k = 0; k < recs.v[i].n; k++)
			n += s->srecs.v[recs.v[i].v[k]].ev == 0;
		if (recs.v[i].n)
			ds_vec_push(&hot, ((map_site){i, n ? n : recs.v[i].n}));
	}
	ds_sort(hot.v, hot.n, sizeof *hot.v, cmp_map_sites);
	if (o && o->allocsite) {
		size_t kept = 0, len = strlen(o->allocsite);
		for (size_t i = 0; i < hot.n; i++) {
			const char *nm = h->sites.v[hot.v[i].site].name;
			if (!strcmp(nm, o->allocsite) || (!strncmp(nm, o->allocsite, len) && !strncmp(nm + len, " (", 2)))
				hot.v[kept++] = hot.v[i];
		}
		hot.n = kept;
		if (!kept) {
			for (size_t i = 0; i < recs.n; i++)
				ds_vec_free(&recs.v[i]);
			ds_vec_free(&recs);
			ds_vec_free(&hot);
			return ds_err_set(err, DS_EINPUT, "no sampled allocation site is named '%s' (see --view heap)",
					  o->allocsite);
		}
	}
	tb_init(&b, s, "accessmap", "allocation site, bytes", cols, AM_NCOLS, false);
	b.t->tree = true;
	b.t->order = DS_ORDER_KIDS;
	for (size_t i = 0; i < hot.n && i < limit; i++) {
		map_site_rows(s, &b, hot.v[i].site, &recs.v[hot.v[i].site], &order);
		coarse |= h->sites.v[hot.v[i].site].max_size > MAP_MAX_BYTES;
	}
	heap_props(s, b.t);
	tb_prop(b.t, "sites", DS_PROP_NUMBER, "%zu", hot.n);
	if (named)
		tb_prop(b.t, "note", DS_PROP_TEXT, "the sites named '%s' (%zu of %zu; --limit N)", o->allocsite,
			hot.n < limit ? hot.n : limit, hot.n);
	else
		tb_prop(b.t, "note", DS_PROP_TEXT,
			"sites of blocks of at most %d bytes, the most sampled first (%zu of %zu; --limit N; "
			"--allocsite NAME for one of larger blocks)",
			MAP_MAX_BYTES, hot.n < limit ? hot.n : limit, hot.n);
	if (coarse)
		tb_prop(b.t, "note", DS_PROP_TEXT,
			"blocks of more than %d bytes: %d rows at most, of a power of two bytes, 64 or more",
			MAP_MAX_BYTES, MAP_ROWS);
	tb_prop(b.t, "note", DS_PROP_TEXT,
		"'unsampled' bytes had no sample: never touched when every access is one (--sim -c 1)");
	for (size_t i = 0; i < recs.n; i++)
		ds_vec_free(&recs.v[i]);
	ds_vec_free(&recs);
	ds_vec_free(&hot);
	if ((rc = tb_finish(&b, &keep, out, err)))
		return rc;
	ds_say_timer(*out);
	return 0;
}
