/*
 * libFuzzer target: a heap file (experiment/heapfile.h), as record --heap
 * writes one into DIR/heap/.  What a report reads must come out the same
 * whichever way it is read: the records of the whole file in one sweep,
 * again after its pages were let go (ds_heapfile_drop), and chunk by chunk
 * from each chunk's start, as the heap views merge the chunks by time.
 * Each record handed out is whole and of a kind a reader knows; the tally
 * record's summary (ds_heap_count) reads the file too.  A damaged file
 * gives counted bad bytes, never a crash, an over-read or a hang.
 *
 * The input is the file.
 */
#include "experiment/experiment.h"
#include "experiment/heapfile.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>

/* What a way of reading saw. */
typedef struct seen {
	uint64_t kinds[DS_HEAP_TALLY + 1];
	uint64_t sum;         /* of times, addresses, sizes, sites and frames */
} seen;

static void fail(const char *what, uint64_t v)
{
	fprintf(stderr, "fuzz_heap: %s (%llu)\n", what, (unsigned long long)v);
	abort();
}

static void take(seen *s, const ds_heap_rec *r)
{
	if (r->type != DS_HEAP_SITE && r->type != DS_HEAP_ALLOC && r->type != DS_HEAP_FREE &&
	    r->type != DS_HEAP_EXIT)
		fail("a record of a kind no reader takes", r->type);
	if (r->type == DS_HEAP_SITE ? r->nframes < 1 || r->nframes > DS_HEAP_MAX_FRAMES : r->fn >= DS_HEAP_NFN)
		fail("a record that cannot be", r->type == DS_HEAP_SITE ? r->nframes : r->fn);
	s->kinds[r->type]++;
	s->sum += r->time + r->addr + r->bytes + r->site + r->tid;
	for (unsigned i = 0; r->type == DS_HEAP_SITE && i < r->nframes; i++)
		s->sum += r->frames[i];
}

/* Every record, from the start. */
static void sweep(ds_heapfile *f, seen *s)
{
	ds_heap_cursor c = {0};
	ds_heap_rec r;
	uint64_t last = 0;

	while (ds_heapfile_next(f, &c, &r)) {
		if (c.off <= last || c.off > ds_heapfile_size(f))
			fail("the cursor went back or past the end", c.off);
		last = c.off;
		take(s, &r);
	}
}

/* Chunk by chunk, each from its start, as analyze/heap.c's runs read them. */
static void by_chunk(ds_heapfile *f, seen *s)
{
	for (uint64_t start = DS_HEAP_HEADER; start < ds_heapfile_size(f); start += DS_HEAP_CHUNK) {
		ds_heap_cursor c = {.off = start};
		ds_heap_rec r;
		while (c.off < start + DS_HEAP_CHUNK && ds_heapfile_next(f, &c, &r) && c.off <= start + DS_HEAP_CHUNK)
			take(s, &r);
		ds_heapfile_drop(f, start, DS_HEAP_CHUNK);
	}
}

static void same(const seen *a, const seen *b, const char *how)
{
	for (size_t k = 0; k <= DS_HEAP_TALLY; k++)
		if (a->kinds[k] != b->kinds[k])
			fail(how, k);
	if (a->sum != b->sum)
		fail(how, a->sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *dir = ds_xasprintf("%s/exp", fz_dir()), *path = ds_xasprintf("%s/heap/1-1.heap", dir);
	seen whole = {0}, again = {0}, chunks = {0};
	ds_heap_totals t;
	ds_heapfile *f;
	ds_err err = {0};

	fz_clear();
	fz_write("exp/heap/1-1.heap", data, size);
	if (ds_heap_count(dir, &t, &err))
		fail("the heap files could not be counted", 0);
	if (ds_heapfile_open(path, &f, &err) == 0) {
		if (t.files != 1 || t.cut != ds_heapfile_cut(f))
			fail("the count and the file disagree", t.files);
		sweep(f, &whole);
		if (ds_heapfile_bad_bytes(f) > ds_heapfile_size(f))
			fail("more bad bytes than the file has", ds_heapfile_bad_bytes(f));
		ds_heapfile_drop(f, 0, ds_heapfile_size(f));
		sweep(f, &again);
		same(&whole, &again, "a second sweep read other records");
		by_chunk(f, &chunks);
		same(&whole, &chunks, "chunk by chunk read other records than one sweep");
		ds_heapfile_close(f);
	} else if (t.files) {
		fail("a file that does not open was counted", t.files);
	}
	free(path);
	free(dir);
	return 0;
}
