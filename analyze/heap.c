/*
 * The heap: which allocation made the memory each sample touched.
 *
 * The heap files (record --heap) hold, per process image, every block's
 * beginning and end with its time, and the call stack (site) of each
 * allocation.  A sample's data address is matched to the block live at
 * the sample's time in that process: one sweep per image over its blocks'
 * beginnings and ends and its samples, all in time order.  The blocks live
 * at a moment are kept by address: a map from each block's start (for its
 * end) and, per 4 KiB page it covers, a list of the blocks on that page
 * (for the samples); a block of more than BIG_PAGES pages is in a short
 * list of its own instead.  Memory grows with the blocks live at once, not
 * with all there were; a block a sample fell in is kept (its site,
 * address, size) for the views.
 *
 * Each file's records are runs in time order, a chunk each (one thread's);
 * the sweep merges the runs.  A forked child's image begins with its
 * parent's blocks: a sample of the child that falls in none of its own is
 * looked for among the parent's at the fork.  Images are swept children
 * first, so that those samples join their parent's sweep.
 *
 * Per site the sweep also counts what --view heap and --view leaks show:
 * blocks, bytes, the peak of its live bytes, lifetimes, and the blocks no
 * free ended (leaks, as Oracle's Leaklist has them).
 */
#include "analyze/analyze_int.h"
#include "experiment/heapfile.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(((ds_heap_rec *)0)->frames) == DS_HEAP_MAX_FRAMES * 8, "a site's frames fit a record");

#define PAGE_SHIFT 12
#define SMALL_MAX 256  /* blocks of up to this many bytes are found by their start */
#define ALIGN 8        /* allocators start blocks on a multiple of it, at least */
#define BIG_PAGES 64   /* blocks of more pages go to the big list */
#define SIZE_MAX_BITS 40
#define SITE_BITS 24
#define NONE DS_U64MAP_NONE /* no block, node or image; the end of a page's list */

/* ---- stacks and sites ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* The stack of frames f[0..n) of the program exe, made when new (its
 * process and time: those of its first allocation, load_images). */
static uint32_t stack_get(ds_heap *h, const char *exe, const uint64_t *f, unsigned n)
{
	uint64_t key = 0xcbf29ce484222325ull;
	bool added;
	uint32_t i;

	key = mix(key, ds_hash_bytes(exe, strlen(exe)));
	for (unsigned k = 0; k < n; k++)
		key = mix(key, f[k]);
	i = ds_u64map_put(&h->stack_index, key, (uint32_t)h->stacks.n, &added);
	if (added) {
		hstack st = {0, (uint32_t)h->frames.n, n, NONE, UINT64_MAX, 0};
		for (unsigned k = 0; k < n; k++)
			ds_vec_push(&h->frames, f[k]);
		ds_vec_push(&h->stacks, st);
	}
	return i;
}

/* The site named name, made when new (with stack as its first). */
static uint32_t site_get(ds_heap *h, const char *name, uint32_t stack)
{
	bool added;
	uint32_t i = (uint32_t)ds_hash_intern(h->site_names, name, strlen(name), &added);

	if (added) {
		hsite st = {0};
		st.name = ds_xstrdup(name);
		st.stack = stack;
		st.min_size = UINT64_MAX;
		ds_vec_push(&h->sites, st);
	}
	h->sites.v[i].nstacks++;
	return i;
}

/* ---- the blocks live at a moment ----
 *
 * Programs hold millions of small blocks at once, so a live block is 24
 * bytes in a hash table by its start, and nothing else: the block a small
 * one holding an address is found by looking for the nearest start below
 * it (blocks do not overlap), a few probes.  A larger block is also on a
 * list per 4 KiB page it covers, or, past BIG_PAGES pages, on a short list
 * of its own.
 *
 * The table is extendible hashing: a directory, by the top bits of the
 * hash, of segments of SEG_SLOTS slots each probed linearly; a full
 * segment splits in two.  It grows a segment at a time, so that it never
 * holds two copies of itself as a table that doubles does (1.5 times its
 * size at the moment it grows): 40 bytes a block on average, 60 at most. */

#define SEG_BITS 12
#define SEG_SLOTS (1u << SEG_BITS)
#define SEG_FULL (SEG_SLOTS / 5 * 4)

typedef struct lblock {
	uint64_t addr;        /* 0: an empty slot */
	uint64_t t_alloc;
	uint64_t size : SIZE_MAX_BITS;
	uint64_t site : SITE_BITS;
} lblock;

typedef struct lseg {
	unsigned depth;       /* the top bits of the hash its blocks share */
	unsigned n;
	lblock slot[SEG_SLOTS];
} lseg;

typedef struct pnode {
	uint64_t addr;
	uint32_t next;
} pnode;

typedef struct live {
	lseg **dir;           /* 1 << depth segments, a segment of depth d in 1 << (depth - d) in a row */
	unsigned depth;
	size_t n;
	DS_VEC(pnode) nodes;  /* the page lists' */
	ds_vec_u32 free_n;
	ds_u64map page;       /* a page -> its first node */
	ds_vec_u64 big;       /* the starts of blocks of more than BIG_PAGES pages */
	ds_u64map kept;       /* a block's start -> its index in ds_heap.blocks, once a sample fell in it */
} live;

static uint64_t bsize(const lblock *b)
{
	return b->size ? b->size : 1;
}

static uint64_t lt_hash(uint64_t addr)
{
	uint64_t h = (addr >> 3) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static lseg *lt_seg(const live *l, uint64_t h)
{
	return l->dir[l->depth ? h >> (64 - l->depth) : 0];
}

static unsigned lt_home(uint64_t h)
{
	return (unsigned)h & (SEG_SLOTS - 1);
}

static lblock *lt_get(const live *l, uint64_t addr)
{
	uint64_t h = lt_hash(addr);
	lseg *g;

	if (!l->dir)
		return NULL;
	g = lt_seg(l, h);
	for (unsigned i = lt_home(h);; i = (i + 1) & (SEG_SLOTS - 1)) {
		if (g->slot[i].addr == addr)
			return &g->slot[i];
		if (!g->slot[i].addr)
			return NULL;
	}
}

static void seg_put(lseg *g, const lblock *b, uint64_t h)
{
	unsigned i;
	for (i = lt_home(h); g->slot[i].addr; i = (i + 1) & (SEG_SLOTS - 1))
		;
	g->slot[i] = *b;
	g->n++;
}

/* Split the segment of hash h in two by the next bit of the hash. */
static void lt_split(live *l, uint64_t h)
{
	size_t at = l->depth ? h >> (64 - l->depth) : 0, first, count;
	lseg *g = l->dir[at], *g2 = ds_xcalloc(1, sizeof *g2);
	lblock *moved = ds_xcalloc(SEG_SLOTS, sizeof *moved);
	unsigned nm = 0;

	if (g->depth == l->depth) { /* the directory doubles */
		lseg **d = ds_xcalloc((size_t)2 << l->depth, sizeof *d);
		for (size_t i = 0; i < (size_t)1 << l->depth; i++)
			d[2 * i] = d[2 * i + 1] = l->dir[i];
		free(l->dir);
		l->dir = d;
		l->depth++;
		at = h >> (64 - l->depth);
	}
	g->depth++;
	g2->depth = g->depth;
	for (unsigned i = 0; i < SEG_SLOTS; i++)
		if (g->slot[i].addr)
			moved[nm++] = g->slot[i];
	memset(g->slot, 0, sizeof g->slot);
	g->n = 0;
	for (unsigned i = 0; i < nm; i++) {
		uint64_t hm = lt_hash(moved[i].addr);
		seg_put(hm >> (64 - g->depth) & 1 ? g2 : g, &moved[i], hm);
	}
	/* the directory's run of g: its second half is g2's */
	count = (size_t)1 << (l->depth - g->depth + 1);
	first = at & ~(count - 1);
	for (size_t i = first + count / 2; i < first + count; i++)
		l->dir[i] = g2;
	free(moved);
}

static void lt_put(live *l, const lblock *b)
{
	uint64_t h = lt_hash(b->addr);
	lseg *g;

	if (!l->dir) {
		l->dir = ds_xcalloc(1, sizeof *l->dir);
		l->dir[0] = ds_xcalloc(1, sizeof **l->dir);
	}
	while ((g = lt_seg(l, h))->n >= SEG_FULL)
		lt_split(l, h);
	seg_put(g, b, h);
	l->n++;
}

/* Take b out, moving later ones of its probe run back. */
static void lt_del(live *l, lblock *b)
{
	lseg *g = lt_seg(l, lt_hash(b->addr));
	unsigned mask = SEG_SLOTS - 1, i = (unsigned)(b - g->slot);

	for (unsigned j = (i + 1) & mask; g->slot[j].addr; j = (j + 1) & mask) {
		unsigned home = lt_home(lt_hash(g->slot[j].addr));
		/* j may move to i when its home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			g->slot[i] = g->slot[j];
			i = j;
		}
	}
	g->slot[i].addr = 0;
	g->n--;
	l->n--;
}

/* Each segment once (it is in a run of the directory). */
#define FOR_SEGS(l, g)                                                                  \
	for (size_t i_ = 0; (l)->dir && i_ < (size_t)1 << (l)->depth; i_++)            \
		if (((g) = (l)->dir[i_]), i_ && (l)->dir[i_ - 1] == (g)) {                \
		} else

static uint64_t first_page(uint64_t addr)
{
	return addr >> PAGE_SHIFT;
}

static uint64_t last_page(uint64_t addr, uint64_t size)
{
	return (addr + (size ? size : 1) - 1) >> PAGE_SHIFT;
}

static bool is_big(uint64_t addr, uint64_t size)
{
	return last_page(addr, size) - first_page(addr) >= BIG_PAGES;
}

static void live_add(live *l, const lblock *nb)
{
	lt_put(l, nb);
	if (nb->size <= SMALL_MAX)
		return;
	if (is_big(nb->addr, nb->size)) {
		ds_vec_push(&l->big, nb->addr);
		return;
	}
	for (uint64_t p = first_page(nb->addr); p <= last_page(nb->addr, nb->size); p++) {
		pnode x = {nb->addr, ds_u64map_get(&l->page, p)}; /* NONE: the last */
		uint32_t n;
		if (l->free_n.n) {
			n = l->free_n.v[--l->free_n.n];
			l->nodes.v[n] = x;
		} else {
			n = (uint32_t)l->nodes.n;
			ds_vec_push(&l->nodes, x);
		}
		ds_u64map_set(&l->page, p, n);
	}
}

/* Take the block that starts at addr (of size bytes) out of the page
 * lists or the big list; the caller takes it out of the table. */
static void unlist(live *l, uint64_t addr, uint64_t size)
{
	if (size <= SMALL_MAX)
		return;
	if (is_big(addr, size)) {
		for (size_t i = 0; i < l->big.n; i++)
			if (l->big.v[i] == addr) {
				l->big.v[i] = l->big.v[--l->big.n];
				break;
			}
		return;
	}
	for (uint64_t p = first_page(addr); p <= last_page(addr, size); p++) {
		uint32_t n = ds_u64map_get(&l->page, p), prev = NONE;
		while (n != NONE && l->nodes.v[n].addr != addr) {
			prev = n;
			n = l->nodes.v[n].next;
		}
		if (n == NONE)
			continue;
		if (prev != NONE)
			l->nodes.v[prev].next = l->nodes.v[n].next;
		else if (l->nodes.v[n].next == NONE)
			ds_u64map_del(&l->page, p);
		else
			ds_u64map_set(&l->page, p, l->nodes.v[n].next);
		ds_vec_push(&l->free_n, n);
	}
}

static void live_remove(live *l, lblock *b)
{
	unlist(l, b->addr, b->size);
	if (l->kept.n)
		ds_u64map_del(&l->kept, b->addr);
	lt_del(l, b);
}

static bool holds(const lblock *b, uint64_t ea)
{
	return b && ea >= b->addr && ea - b->addr < bsize(b);
}

/* The live block that holds ea, NULL. */
static lblock *live_find(const live *l, uint64_t ea)
{
	lblock *b;

	for (uint32_t n = ds_u64map_get(&l->page, ea >> PAGE_SHIFT); n != NONE; n = l->nodes.v[n].next)
		if (holds(b = lt_get(l, l->nodes.v[n].addr), ea))
			return b;
	for (size_t i = 0; i < l->big.n; i++)
		if (holds(b = lt_get(l, l->big.v[i]), ea))
			return b;
	/* a small block: the nearest start at or below ea */
	for (uint64_t a = ea & ~(uint64_t)(ALIGN - 1), k = 0; k <= SMALL_MAX / ALIGN && a; k++, a -= ALIGN)
		if ((b = lt_get(l, a)))
			return holds(b, ea) ? b : NULL;
	return NULL;
}

static void live_free(live *l)
{
	lseg *g;
	FOR_SEGS(l, g)
		free(g);
	free(l->dir);
	ds_vec_free(&l->nodes);
	ds_vec_free(&l->free_n);
	ds_u64map_free(&l->page);
	ds_vec_free(&l->big);
	ds_u64map_free(&l->kept);
}

/* ---- one image ---- */

typedef struct image {
	ds_heapfile *f;
	const ds_heap_info *info;
	uint64_t end;         /* when the next image of its pid began (exec), UINT64_MAX */
	struct image *parent; /* the image it was forked from, NULL */
	ds_vec_u32 local;     /* its stack ids -> the stacks, then the sites */
	ds_vec_u64 queries;   /* records (index << 1) to match, or (index << 1 | 1) at the fork */
	ds_vec_u64 child_start; /* per query at the fork: the child's start */
	uint64_t bad;         /* bytes of its records that could not be read */
	bool exited;          /* it has an exit record */
	bool complete;        /* an exit or end record: its records all came */
} image;
typedef DS_VEC(image) image_vec;

typedef struct query {
	uint64_t time;
	uint32_t rec;
	bool at_fork;         /* forwarded by a child: looked up at the child's start */
} query;

/* A run of a file's records in time order: a chunk. */
typedef struct run {
	uint64_t start, end;
	ds_heap_cursor cursor;
	ds_heap_rec r;        /* its next event */
	bool has;
} run;

static void run_next(ds_heapfile *f, run *u)
{
	u->has = false;
	while (u->cursor.off < u->end && ds_heapfile_next(f, &u->cursor, &u->r)) {
		if (u->cursor.off > u->end)
			break;
		if (u->r.type == DS_HEAP_ALLOC || u->r.type == DS_HEAP_FREE) {
			u->has = true;
			return;
		}
	}
	ds_heapfile_drop(f, u->start, DS_HEAP_CHUNK);
}

/* The runs' heap, by their next event's time. */
static bool run_before(const run *a, const run *b)
{
	return a->r.time < b->r.time;
}

static void sift_down(run **h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		run *t;
		if (c >= n)
			return;
		if (c + 1 < n && run_before(h[c + 1], h[c]))
			c++;
		if (!run_before(h[c], h[i]))
			return;
		t = h[c], h[c] = h[i], h[i] = t;
		i = c;
	}
}

static int cmp_query(const void *a, const void *b)
{
	const query *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* A block some sample fell in, kept for the views; its index. */
static uint32_t keep_block(ds_heap *h, live *l, const lblock *b, uint32_t pid)
{
	bool added;
	uint32_t k = ds_u64map_put(&l->kept, b->addr, (uint32_t)h->blocks.n, &added);

	if (added) {
		hblock x = {(uint32_t)b->site, pid, b->addr, b->size, b->t_alloc};
		ds_vec_push(&h->blocks, x);
	}
	return k;
}

/* Bytes [lo, hi) of block b end at time t (all of it, or part of a
 * mapping: munmap, mremap); the parts outside stay, the same block. */
static void block_cut(ds_heap *h, live *l, lblock *b, uint64_t lo, uint64_t hi, uint64_t t)
{
	lblock x = *b;
	hsite *st = &h->sites.v[x.site];
	uint64_t end = x.addr + x.size;

	if (lo < x.addr)
		lo = x.addr;
	if (hi > end || hi < lo)
		hi = end;
	live_remove(l, b);
	st->live -= hi - lo;
	if (lo == x.addr && hi == end) {
		st->freed++;
		st->lifetime += t > x.t_alloc ? t - x.t_alloc : 0;
		return;
	}
	if (lo > x.addr) {
		lblock head = x;
		head.size = lo - x.addr;
		live_add(l, &head);
	}
	if (hi < end) {
		lblock tail = x;
		tail.addr = hi;
		tail.size = end - hi;
		live_add(l, &tail);
	}
}

static void event(ds_heap *h, live *l, const image *im, const ds_heap_rec *r)
{
	lblock *b = lt_get(l, r->addr);

	if (r->type == DS_HEAP_ALLOC) {
		lblock nb = {0};
		hsite *st;
		if (b) /* its end went unseen: it ends here */
			block_cut(h, l, b, 0, UINT64_MAX, r->time);
		nb.addr = r->addr;
		nb.t_alloc = r->time;
		nb.size = r->bytes < (1ull << SIZE_MAX_BITS) ? r->bytes : (1ull << SIZE_MAX_BITS) - 1;
		nb.site = r->site < im->local.n && im->local.v[r->site] != NONE ? im->local.v[r->site] : h->nosite;
		st = &h->sites.v[nb.site];
		st->blocks++;
		st->bytes += nb.size;
		st->live += nb.size;
		if (st->live > st->peak)
			st->peak = st->live;
		if (nb.size < st->min_size)
			st->min_size = nb.size;
		if (nb.size > st->max_size)
			st->max_size = nb.size;
		if (nb.addr)
			live_add(l, &nb);
		return;
	}
	if (r->fn != DS_HEAP_MUNMAP && r->fn != DS_HEAP_MREMAP) {
		if (b)
			block_cut(h, l, b, 0, UINT64_MAX, r->time);
		return;
	}
	/* munmap and mremap end whatever mappings [addr, addr + bytes)
	 * covers, whole or in part; mappings start on a page */
	for (uint64_t a = r->addr, end = r->addr + r->bytes; a < end && a >= r->addr;) {
		if ((b = live_find(l, a))) {
			uint64_t next = b->addr + b->size;
			block_cut(h, l, b, a, end, r->time);
			a = next;
		} else {
			a = (a | ((1u << PAGE_SHIFT) - 1)) + 1;
		}
	}
}

/* What the sample (record q->rec) fell in, in image i's blocks live now. */
static void match(ds_session *s, ds_heap *h, live *l, image *im, const query *q)
{
	const ds_srec *x = &s->srecs.v[q->rec];
	const lblock *b = live_find(l, x->ea);

	if (b) {
		h->rec_block.v[q->rec] = 1 + keep_block(h, l, b, im->info->pid);
		return;
	}
	if (im->parent && !q->at_fork) { /* the parent's block, as the fork left it */
		ds_vec_push(&im->parent->queries, (uint64_t)q->rec << 1 | 1);
		ds_vec_push(&im->parent->child_start, im->info->start);
	}
}

static void sweep(ds_session *s, ds_heap *h, image *im)
{
	DS_VEC(run) runs = {0};
	DS_VEC(run *) hp = {0};
	DS_VEC(query) qs = {0};
	live l = {0};
	lseg *g;
	size_t qi = 0, fi = 0;

	for (size_t i = 0; i < h->sites.n; i++)
		h->sites.v[i].live = 0; /* peaks are of one process */
	for (uint64_t c = DS_HEAP_HEADER; c < ds_heapfile_size(im->f); c += DS_HEAP_CHUNK) {
		run u = {c, c + DS_HEAP_CHUNK, {.off = c}, {0}, false};
		run_next(im->f, &u);
		if (u.has)
			ds_vec_push(&runs, u);
	}
	for (size_t i = 0; i < runs.n; i++)
		ds_vec_push(&hp, &runs.v[i]);
	for (size_t i = hp.n / 2; i-- > 0;)
		sift_down(hp.v, hp.n, i);
	for (size_t i = 0; i < im->queries.n; i++) {
		uint32_t rec = (uint32_t)(im->queries.v[i] >> 1);
		bool at_fork = im->queries.v[i] & 1;
		/* a child's sample is looked up as the fork left its parent */
		ds_vec_push(&qs, ((query){at_fork ? im->child_start.v[fi++] : s->srecs.v[rec].time, rec, at_fork}));
	}
	ds_sort(qs.v, qs.n, sizeof *qs.v, cmp_query);
	while (hp.n || qi < qs.n) {
		/* a sample at the time a block begins sees it; at its end, not */
		if (hp.n && (qi == qs.n || hp.v[0]->r.time <= qs.v[qi].time)) {
			run *u = hp.v[0];
			event(h, &l, im, &u->r);
			run_next(im->f, u);
			if (!u->has)
				hp.v[0] = hp.v[--hp.n];
			sift_down(hp.v, hp.n, 0);
		} else {
			match(s, h, &l, im, &qs.v[qi++]);
		}
	}
	/* what no free ended: leaked at exit, or still live when the process
	 * was killed or exec'd */
	FOR_SEGS(&l, g)
		for (unsigned i = 0; i < SEG_SLOTS; i++)
			if (g->slot[i].addr) {
				hsite *st = &h->sites.v[g->slot[i].site];
				*(im->exited ? &st->leaked : &st->unended) += 1;
				*(im->exited ? &st->leaked_bytes : &st->unended_bytes) += g->slot[i].size;
			}
	live_free(&l);
	ds_vec_free(&runs);
	ds_vec_free(&hp);
	ds_vec_free(&qs);
}

/* ---- naming ---- */

/* The source file and line of frame site si in its function's own code:
 * in code inlined into the function (from a header), the place of the
 * outermost inlined call.  NULL: no line table. */
static const char *own_line(ds_session *s, uint32_t si, unsigned *line)
{
	const site *st = &s->sites.v[si];
	const char *file;
	ds_dso *d;

	ds_site_resolve(s, si, true); /* loads its object */
	d = s->dsos.v[st->dso].dso;
	if (st->file && d && st->has_vaddr && ds_dso_inline_call_at(d, st->vaddr, &file, line))
		return file;
	*line = st->line;
	return st->file;
}

bool ds_heap_loader(const char *module)
{
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	return !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld.so", 5) || !strncmp(base, "ld64.so", 7);
}

/* Whether frame site si is the allocator's or a wrapper's: in the C
 * library, the C++ runtime (operator new, wherever it is), the loader, the
 * tracker, a template of the C++ standard library built into the program
 * (a function of its headers, include/c++/: std::vector's
 * _M_realloc_insert allocates for the push_back that called it), or a
 * function the user named (--heap-wrappers, a trailing * matches any end). */
static bool wrapper(ds_session *s, const ds_heap *h, uint32_t si)
{
	static const char *const libs[] = {"libc.so", "libstdc++.so", "libgcc_s.so", DS_HEAP_LIB, "vgpreload_"};
	const char *mod = s->dsos.v[s->sites.v[si].dso].module, *fn = site_fname(s, si), *file;
	unsigned line;

	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
		if (strstr(mod, libs[i]))
			return true;
	if (ds_heap_loader(mod))
		return true;
	if (!strncmp(fn, "operator new", 12)) /* linked into the program too (-static-libstdc++) */
		return true;
	file = own_line(s, si, &line);
	if (file && strstr(file, "/include/c++/"))
		return true;
	for (size_t i = 0; i < h->wrappers.n; i++) {
		const char *w = h->wrappers.v[i];
		size_t n = strlen(w);
		if (n && w[n - 1] == '*' ? !strncmp(fn, w, n - 1) : !strcmp(fn, w))
			return true;
	}
	return false;
}

/* "FUNC (file.c:12)" of a frame's site, into b.  In code inlined into FUNC
 * (std::vector's allocation, from a header), the line of FUNC's own source
 * that made the inlined call: where the program allocated, not where the
 * header did.  A frame with no symbol (a stripped library's local
 * function) is named by its object and address, "[unknown]
 * (libstdc++.so.6+0x9a1b0)": frames of two such functions are two sites. */
static void frame_name(ds_session *s, uint32_t si, ds_buf *b)
{
	const site *st = &s->sites.v[si];
	unsigned line;
	const char *file = own_line(s, si, &line), *base;

	if (!st->sym && st->has_vaddr) { /* in an object: not JIT code, nor the kernel */
		ds_buf_printf(b, "%s (%s+0x%" PRIx64 ")", site_fname(s, si), s->dsos.v[st->dso].module, st->vaddr);
		return;
	}
	if (!file) {
		ds_buf_puts(b, site_fname(s, si));
		return;
	}
	base = strrchr(file, '/');
	ds_buf_printf(b, "%s (%s:%u)", site_fname(s, si), base ? base + 1 : file, line);
}

/* The session's site of frame k of stack st (a return address: the call
 * is the instruction before it). */
static uint32_t frame_site(ds_session *s, const hstack *st, unsigned k)
{
	uint64_t t = st->time != UINT64_MAX ? st->time : st->start;
	uint32_t si = ds_session_site(s, st->pid, t, s->heap.frames.v[st->first + k] - 1, false);
	ds_site_resolve(s, si, true);
	return si;
}

/* The index of stack st's site frame: its innermost frame outside the
 * allocator and wrappers.  When all are theirs: its outermost, unless that
 * is the loader's, where a library allocated for itself as it loaded (the
 * C++ runtime's exception pool, from its constructor): then the frame that
 * called the allocation function, 0.  (A stack cut short, all of it in
 * templates of the C++ library, keeps its outermost.) */
static unsigned site_frame(ds_session *s, const hstack *st)
{
	for (unsigned k = 0; k < st->n; k++)
		if (!wrapper(s, &s->heap, frame_site(s, st, k)))
			return k;
	if (!st->n || ds_heap_loader(s->dsos.v[s->sites.v[frame_site(s, st, st->n - 1)].dso].module))
		return 0;
	return st->n - 1;
}

/* The name of stack st's site: its site frame's. */
static void stack_site_name(ds_session *s, const hstack *st, ds_buf *name)
{
	if (st->n)
		frame_name(s, frame_site(s, st, site_frame(s, st)), name);
	else
		ds_buf_puts(name, "<no call stack>");
}

/* The stack's frames, to the program's entry (an unwinder that goes on
 * past _start, as Valgrind's does, reads what the stack holds above it). */
static void stack_text(ds_session *s, const hstack *st, ds_buf *out)
{
	for (unsigned k = 0; k < st->n; k++) {
		uint32_t si = frame_site(s, st, k);
		if (k)
			ds_buf_puts(out, " < ");
		frame_name(s, si, out);
		if (!strcmp(site_fname(s, si), "_start"))
			break;
	}
}

const char *ds_heap_site_stack(ds_session *s, uint32_t si)
{
	hsite *st = &s->heap.sites.v[si];
	if (!st->stack_text) {
		ds_buf b = {0};
		stack_text(s, &s->heap.stacks.v[st->stack], &b);
		if (st->nstacks > 1)
			ds_buf_printf(&b, " (+%u more stack%s)", st->nstacks - 1, st->nstacks > 2 ? "s" : "");
		st->stack_text = ds_buf_steal(&b);
	}
	return st->stack_text;
}

/* ---- sites that may be wrappers ---- */

/* A site whose blocks hold this many types, as an allocator's do (a block
 * of three types may be one object with its headers, as SQLite's pages
 * are), that has several stacks and blocks, and at least a tenth of the
 * samples in blocks gets a note. */
#define HINT_TYPES 5

typedef struct hint {
	int32_t tid[HINT_TYPES];
	unsigned ntypes;
	uint64_t samples;
	bool said;
} hint;

/* Whether two frame sites are in one function with a symbol: a frame
 * without one names no function for --heap-wrappers. */
static bool same_function(ds_session *s, uint32_t a, uint32_t b)
{
	fkey x = site_fkey(s, a), y = site_fkey(s, b);
	return x.known && fkey_eq(&x, &y);
}

/* The frames from the site frame that every stack of site si shares, as
 * "f,g" (function names, up to one with a comma), into out. */
static void shared_frames(ds_session *s, uint32_t si, ds_buf *out)
{
	const hstack *first = NULL;
	unsigned k = 0, shared = UINT_MAX;

	for (size_t i = 1; i < s->heap.stacks.n && shared; i++) {
		const hstack *st = &s->heap.stacks.v[i];
		unsigned j, same = 0;
		if (st->site != si || !st->n)
			continue;
		j = site_frame(s, st);
		if (!first) {
			first = st;
			k = j;
		}
		while (same < shared && j + same < st->n && k + same < first->n &&
		       same_function(s, frame_site(s, st, j + same), frame_site(s, first, k + same)))
			same++;
		shared = same;
	}
	for (unsigned d = 0; first && d < shared; d++) {
		const char *fn = site_fname(s, frame_site(s, first, k + d));
		if (strchr(fn, ',')) /* a template's arguments: no name of a comma-separated list */
			break;
		ds_buf_printf(out, "%s%s", d ? "," : "", fn);
	}
}

size_t ds_heap_wrapper_notes(ds_session *s, char **notes, size_t max)
{
	ds_heap *h = &s->heap;
	hint *hv;
	uint64_t all = 0;
	size_t said = 0;

	if (!h->files || !h->sites.n)
		return 0;
	hv = ds_xcalloc(h->sites.n, sizeof *hv);
	for (size_t k = 0; k < s->srecs.n && k < h->rec_block.n; k++) {
		const ds_srec *r = &s->srecs.v[k];
		int32_t tid = r->dobj >= 0 ? s->dobjs.v[r->dobj].tid : -1;
		hint *x;
		unsigned i = 0;
		if (!h->rec_block.v[k] || r->ev || !ds_srec_kept(s, k))
			continue;
		x = &hv[h->blocks.v[h->rec_block.v[k] - 1].site];
		x->samples++;
		all++;
		while (i < x->ntypes && x->tid[i] != tid)
			i++;
		if (tid >= 0 && i == x->ntypes && x->ntypes < HINT_TYPES)
			x->tid[x->ntypes++] = tid;
	}
	while (said < max) {
		uint32_t best = UINT32_MAX;
		ds_buf frames = {0};
		const hint *x;
		for (uint32_t i = 0; i < h->sites.n; i++)
			if (!hv[i].said && hv[i].ntypes == HINT_TYPES && hv[i].samples * 10 >= all &&
			    h->sites.v[i].nstacks > 1 && h->sites.v[i].blocks >= HINT_TYPES &&
			    (best == UINT32_MAX || hv[i].samples > hv[best].samples))
				best = i;
		if (best == UINT32_MAX)
			break;
		x = &hv[best];
		hv[best].said = true;
		shared_frames(s, best, &frames);
		if (frames.len)
			notes[said++] = ds_xasprintf(
				"%s: its blocks hold %u types or more (%s, %s, %s...), as an allocator's do; if it "
				"allocates for its callers, --heap-wrappers %s makes them the sites",
				h->sites.v[best].name, HINT_TYPES, s->tidents.v[x->tid[0]].name,
				s->tidents.v[x->tid[1]].name, s->tidents.v[x->tid[2]].name, ds_buf_str(&frames));
		ds_buf_free(&frames);
	}
	free(hv);
	return said;
}

void ds_heap_site_stacks(ds_session *s, uint32_t si, ds_buf *out)
{
	for (size_t i = 0; i < s->heap.stacks.n; i++)
		if (s->heap.stacks.v[i].site == si) {
			stack_text(s, &s->heap.stacks.v[i], out);
			ds_buf_putc(out, '\n');
		}
}

void ds_heap_object_name(const ds_session *s, uint32_t si, const char *elem, ds_buf *b)
{
	const hsite *st = &s->heap.sites.v[si];
	char size[32];

	ds_size_text(size, sizeof size, st->min_size);
	ds_buf_printf(b, "heap: %s", size);
	if (st->max_size != st->min_size) {
		ds_size_text(size, sizeof size, st->max_size);
		ds_buf_printf(b, "-%s", size);
	}
	ds_buf_printf(b, " block%s", st->max_size != st->min_size ? "s" : "");
	if (elem)
		ds_buf_printf(b, " of %s", elem);
	ds_buf_printf(b, " from %s", st->name);
}

/* ---- building ---- */

/* A note of the heap's views, and of the session (its summary). */
__attribute__((format(printf, 2, 3))) static void note(ds_session *s, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ds_session_note_add(s, "%s", ds_buf_str(&b));
	ds_vec_push(&s->heap.notes, ds_buf_steal(&b));
}

/* Read every heap file's header and stacks; files that cannot be read
 * are left out (with a note). */
static void load_images(ds_session *s, ds_heap *h, image_vec *ims, char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		image im = {0};
		ds_err e = {0};
		ds_heap_cursor cursor = {0};
		uint64_t dropped = DS_HEAP_HEADER;
		ds_heap_rec r;
		if (ds_heapfile_open(paths[i], &im.f, &e)) {
			note(s, "heap file left out: %s", e.msg);
			continue;
		}
		im.info = ds_heapfile_info(im.f);
		im.end = UINT64_MAX;
		h->logical |= im.info->logical;
		while (ds_heapfile_next(im.f, &cursor, &r)) {
			/* read: let go, a chunk or more at a time (a madvise per page
			 * read took a tenth of a heap report of bench/allocs) */
			if (cursor.off - dropped >= 2 * DS_HEAP_CHUNK) {
				ds_heapfile_drop(im.f, dropped, cursor.off - dropped - DS_HEAP_CHUNK);
				dropped = cursor.off - DS_HEAP_CHUNK;
			}
			im.exited |= r.type == DS_HEAP_EXIT;
			im.complete |= r.type == DS_HEAP_EXIT || r.type == DS_HEAP_ENDS;
			if (r.type == DS_HEAP_ALLOC && r.site < im.local.n && im.local.v[r.site] != NONE) {
				/* its frames are read in the address space of its first allocation */
				hstack *st = &h->stacks.v[im.local.v[r.site]];
				if (st->time == UINT64_MAX)
					st->pid = im.info->pid, st->time = r.time;
			}
			if (r.type != DS_HEAP_SITE)
				continue;
			while (im.local.n <= r.site)
				ds_vec_push(&im.local, NONE);
			im.local.v[r.site] = stack_get(h, im.info->exe, r.frames, r.nframes);
			if (h->stacks.v[im.local.v[r.site]].time == UINT64_MAX) {
				h->stacks.v[im.local.v[r.site]].pid = im.info->pid;
				h->stacks.v[im.local.v[r.site]].start = im.info->start;
			}
		}
		ds_heapfile_drop(im.f, 0, ds_heapfile_size(im.f));
		im.bad = ds_heapfile_bad_bytes(im.f);
		h->complete += im.complete;
		ds_vec_push(ims, im);
	}
	h->images = ims->n;
}

/* Every stack's site, by its name; the images' stack ids become site ids. */
static void name_stacks(ds_session *s, ds_heap *h, image *ims, size_t n)
{
	ds_buf name = {0};

	for (size_t i = 1; i < h->stacks.n; i++) { /* 0: none, named already */
		ds_buf_reset(&name);
		stack_site_name(s, &h->stacks.v[i], &name);
		h->stacks.v[i].site = site_get(h, ds_buf_str(&name), (uint32_t)i);
	}
	ds_buf_free(&name);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ims[i].local.n; k++)
			if (ims[i].local.v[k] != NONE)
				ims[i].local.v[k] = h->stacks.v[ims[i].local.v[k]].site;
}

static int cmp_pid_start(const void *a, const void *b)
{
	const image *x = a, *y = b;
	if (x->info->pid != y->info->pid)
		return x->info->pid < y->info->pid ? -1 : 1;
	return x->info->start < y->info->start ? -1 : x->info->start > y->info->start;
}

/* The first of process pid's images in ims (sorted by pid, then start),
 * or where they would be. */
static size_t first_image(const image *ims, size_t n, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ims[mid].info->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The image pid was at time t in ims (sorted by pid, then start), NULL. */
static image *image_at(image *ims, size_t n, uint32_t pid, uint64_t t)
{
	image *best = NULL;

	for (size_t i = first_image(ims, n, pid); i < n && ims[i].info->pid == pid; i++)
		if (ims[i].info->start <= t)
			best = &ims[i];
	return best && t < best->end ? best : NULL;
}

/* Sort the images by process and start; each one's end (its process's
 * next exec) and parent (its ppid's image at the fork); the samples each
 * is to match (those with a data address, at its time). */
static void assign(ds_session *s, ds_heap *h, image *ims, size_t n)
{
	ds_sort(ims, n, sizeof *ims, cmp_pid_start);
	for (size_t i = 0; i < n; i++) {
		/* the exec ends it even when the new program has no heap file
		 * (linked statically: nothing tracked its blocks) */
		ims[i].end = ds_session_exec_after(s, ims[i].info->pid, ims[i].info->start);
		if (i + 1 < n && ims[i + 1].info->pid == ims[i].info->pid && ims[i + 1].info->start < ims[i].end)
			ims[i].end = ims[i + 1].info->start;
		if (ims[i].info->forked)
			ims[i].parent = image_at(ims, n, ims[i].info->ppid, ims[i].info->start);
	}
	for (size_t k = 0; k < s->srecs.n; k++) {
		const ds_srec *x = &s->srecs.v[k];
		image *im;
		if (!(x->flags & SR_EA) || !(im = image_at(ims, n, s->threads.v[x->thread].pid, x->time)))
			continue;
		ds_vec_push(&im->queries, (uint64_t)k << 1);
		h->has_image.v[k] = 1;
	}
}

/* Whether an image of process pid begins in [from, to) (ims sorted by
 * pid, then start). */
static bool begins_in(const image *ims, size_t n, uint32_t pid, uint64_t from, uint64_t to)
{
	for (size_t i = first_image(ims, n, pid); i < n && ims[i].info->pid == pid; i++)
		if (ims[i].info->start >= from && ims[i].info->start < to)
			return true;
	return false;
}

/* Whether the heap records of process pid cover its sample at time t
 * that no image holds: its tracker started later in the program it ran
 * then (the loader runs before it, a fork's child before its handler),
 * or it was a vfork's child (posix_spawn, system) before its first exec,
 * which runs its parent's program on its parent's memory (its
 * allocations are the parent's records) and has no file until the
 * program it execs starts its own. */
static bool covered(ds_session *s, const image *ims, size_t n, uint32_t pid, uint64_t t)
{
	uint64_t first = ds_session_exec_after(s, pid, 0);

	return begins_in(ims, n, pid, t + 1, ds_session_exec_after(s, pid, t)) ||
	       (t < first && first != UINT64_MAX && begins_in(ims, n, pid, first, UINT64_MAX));
}

/* The processes whose samples fall where no image of theirs is (sorted
 * by pid, start: assign's order), named in a note: the tracker was not
 * loaded there (a static program, LD_PRELOAD cleared) or could not get
 * its file; what they allocated is not known. */
static void unrecorded(ds_session *s, image *ims, size_t n)
{
	ds_u64map seen = {0};
	DS_VEC(uint32_t) who = {0}; /* a thread of each, in the order met */
	uint32_t last = UINT32_MAX;
	ds_buf b = {0};

	for (size_t k = 0; k < s->srecs.n; k++) {
		const ds_srec *x = &s->srecs.v[k];
		uint32_t pid = s->threads.v[x->thread].pid;
		bool added;
		if (pid == last || pid == 0 || pid == UINT32_MAX || x->time == UINT64_MAX ||
		    image_at(ims, n, pid, x->time) || covered(s, ims, n, pid, x->time))
			continue;
		last = pid;
		ds_u64map_put(&seen, pid, x->thread, &added);
		if (added)
			ds_vec_push(&who, x->thread);
	}
	for (size_t i = 0; i < who.n && i < 8; i++) {
		const char *comm = ds_thread_comm(s, who.v[i]);
		ds_buf_printf(&b, "%s%u (%s)", i ? ", " : "", s->threads.v[who.v[i]].pid, comm ? comm : "?");
	}
	if (who.n > 8)
		ds_buf_printf(&b, " and %zu more", who.n - 8);
	if (who.n)
		note(s, "%zu process%s seen in the samples %s no heap record: %s; the heap tracker was not loaded "
			"there (a statically linked program, LD_PRELOAD cleared) or could not get its file from "
			"dsprof record, and what %s allocated is not known", who.n, who.n == 1 ? "" : "es",
		     who.n == 1 ? "has" : "have", ds_buf_str(&b), who.n == 1 ? "it" : "they");
	ds_buf_free(&b);
	ds_vec_free(&who);
	ds_u64map_free(&seen);
}

/* Later images first: a child before the parent it was forked from. */
static int cmp_start_desc(const void *a, const void *b)
{
	const image *x = *(image *const *)a, *y = *(image *const *)b;
	if (x->info->start != y->info->start)
		return x->info->start > y->info->start ? -1 : 1;
	return x->info->pid < y->info->pid ? -1 : x->info->pid > y->info->pid;
}

/* Whether a sample's object says nothing of the memory: scalars, bytes
 * no variable names, scalars a string function reached (via: then named
 * by that function), or a string function's bytes whose caller's argument
 * is not known. */
static bool nameless(const dobj *o, const char **via)
{
	*via = o->kind == DOBJ_VIA && ds_dobj_scalars(o) ? o->path : NULL;
	return ds_dobj_scalars(o) ||
	       (o->kind == DOBJ_UNKNOWN && (!strcmp(o->path, "no-variable") || !strcmp(o->path, "caller-argument")));
}

/* The base type a scalar record read or wrote through (its site's
 * resolution), or NULL. */
static const ds_type *element_of(const ds_session *s, const ds_srec *x)
{
	const site_ds *sd = s->sites.v[x->site].ds;
	bool pr = (x->flags & SR_PRECISE) != 0;
	dref o;

	if (!sd)
		return NULL;
	o = x->flags & SR_MEM2 ? sd->obj2[pr] : sd->obj[pr];
	return o.id == x->dobj ? o.elem : NULL;
}

/* What a block's samples of struct members say it holds.  A sample of
 * member struct node.key at address A puts a struct node at A - key's
 * offset: an instance.  A block is an array of T (a std::vector's
 * storage, new T[n], new T) when it holds whole T's (after new T[n]'s
 * cookie: array_start), some sample places a T at a whole number of them
 * from the first, and no sample says otherwise: none places a T elsewhere
 * or a type that no T slot can hold, and the scalar accesses in it fit
 * the members of T they fall in (a char read in a char array, not in a
 * pointer), all but one in 16 at most.  An arena that holds nodes among
 * other bytes is no array of nodes. */
typedef struct binst {
	uint32_t block; /* 1 + the block */
	int32_t tid;
	uint64_t base, size;
} binst;
typedef DS_VEC(binst) binst_vec;

typedef struct btyped {
	binst_vec insts;  /* every instance, by block and address */
	int32_t *array;   /* per block: the T it is an array of; -1 none, -2 not one */
	uint64_t *start;  /* per block with a T: where its first element is */
} btyped;

/* Where an array of size-byte elements that has one at base starts in
 * block b, when it fills the block: at its start, or after the cookie
 * (8 or 16 bytes, by the element's alignment) that new T[n] puts before
 * elements with a destructor (the Itanium C++ ABI); false when none. */
static bool array_start(const hblock *b, uint64_t base, uint64_t size, uint64_t *start)
{
	static const uint64_t cookies[] = {0, 8, 16};
	for (size_t i = 0; i < sizeof cookies / sizeof cookies[0]; i++) {
		uint64_t c = cookies[i];
		if (c < b->size && (c == 0 || c < size) && (b->size - c) % size == 0 && base >= b->addr + c &&
		    (base - b->addr - c) % size == 0) {
			*start = b->addr + c;
			return true;
		}
	}
	return false;
}

/* Instance x of record k, when its member's sample puts one in its
 * block.  Only an access whose operand names the member's offset says
 * where the instance starts: with an index register, or a displacement
 * past the type's end (a trailing array declared [1] and allocated
 * longer, p[i + 1].f), the offset is taken modulo the type's size
 * (dataspace.c) and the instance is not known. */
static bool instance_of(const ds_session *s, const ds_heap *h, size_t k, binst *x)
{
	const ds_srec *r = &s->srecs.v[k];
	const site_ds *sd;
	const ds_memop *m;
	const hblock *b;
	const dobj *o;

	if (!h->rec_block.v[k] || r->dobj < 0 || !(r->flags & SR_EA))
		return false;
	o = &s->dobjs.v[r->dobj];
	if (o->kind != DOBJ_FIELD || o->tid < 0 || !s->tidents.v[o->tid].t->size)
		return false;
	sd = s->sites.v[r->site].ds;
	m = r->flags & SR_MEM2 ? &sd->trig[(r->flags & SR_PRECISE) != 0].mem2 : &sd->trig[(r->flags & SR_PRECISE) != 0].mem;
	if (m->index != DS_REG_NONE || m->disp < 0 || (uint64_t)m->disp != r->off)
		return false;
	b = &h->blocks.v[h->rec_block.v[k] - 1];
	*x = (binst){h->rec_block.v[k], o->tid, r->ea - r->off, s->tidents.v[o->tid].t->size};
	return x->base >= b->addr && x->base - b->addr <= b->size && b->size - (x->base - b->addr) >= x->size;
}

static int cmp_binst(const void *a, const void *b)
{
	const binst *x = a, *y = b;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

static void type_blocks(ds_session *s, const ds_heap *h, btyped *t)
{
	binst x;
	size_t n = 0;
	uint64_t *fit;

	t->array = ds_xcalloc(h->blocks.n + 1, sizeof *t->array);
	t->start = ds_xcalloc(h->blocks.n + 1, sizeof *t->start);
	for (size_t i = 0; i < h->blocks.n; i++)
		t->array[i] = -1;
	/* the largest type an instance of which starts a slot of the block */
	for (size_t k = 0; k < s->srecs.n; k++) {
		uint64_t start;
		int32_t *a;
		if (!instance_of(s, h, k, &x))
			continue;
		ds_vec_push(&t->insts, x);
		a = &t->array[x.block - 1];
		if (array_start(&h->blocks.v[x.block - 1], x.base, x.size, &start) &&
		    (*a < 0 || s->tidents.v[*a].t->size < x.size)) {
			*a = x.tid;
			t->start[x.block - 1] = start;
		}
	}
	/* then every instance in the block must fit in a slot of it */
	for (size_t i = 0; i < t->insts.n; i++) {
		const binst *c = &t->insts.v[i];
		int32_t *a = &t->array[c->block - 1];
		uint64_t tsize, start = t->start[c->block - 1];
		if (*a < 0)
			continue;
		tsize = s->tidents.v[*a].t->size;
		if (c->base < start || (c->tid == *a ? (c->base - start) % tsize != 0
						     : (c->base - start) % tsize + c->size > tsize))
			*a = -2;
	}
	/* the scalar accesses of each array block that fit its members and
	 * those that do not: more than one in 16 that do not, and it is no
	 * array of T (an arena's keys read as bytes fall on its records'
	 * pointers as often as not; a stray sample does not undo an array) */
	fit = ds_xcalloc(2 * h->blocks.n + 1, sizeof *fit);
	for (size_t k = 0; k < s->srecs.n; k++) {
		const ds_srec *r = &s->srecs.v[k];
		const ds_type *elem;
		const char *via;
		uint32_t b = h->rec_block.v[k];
		uint64_t start;
		int32_t a;
		if (!b || r->dobj < 0 || (a = t->array[b - 1]) < 0 || !nameless(&s->dobjs.v[r->dobj], &via) || via ||
		    !(elem = element_of(s, r)))
			continue;
		/* before the first element: new T[n]'s count, no element's */
		start = t->start[b - 1];
		if (r->ea >= start)
			fit[2 * (b - 1) + (ds_dobj_in_type(s, a, (r->ea - start) % s->tidents.v[a].t->size, r, elem,
							   NULL, true) < 0)]++;
	}
	for (size_t b = 0; b < h->blocks.n; b++)
		if (t->array[b] >= 0 && fit[2 * b + 1] * 16 > fit[2 * b] + fit[2 * b + 1])
			t->array[b] = -2;
	free(fit);
	ds_sort(t->insts.v, t->insts.n, sizeof *t->insts.v, cmp_binst);
	for (size_t i = 0; i < t->insts.n; i++)
		if (!n || cmp_binst(&t->insts.v[n - 1], &t->insts.v[i]))
			t->insts.v[n++] = t->insts.v[i];
	t->insts.n = n;
}

/* Instances looked back at from an address: those that start up to this
 * many before it (nested ones, and the ends of longer ones before them). */
#define INSTANCES_BACK 16

/* The member of a typed instance that a nameless record's address falls
 * in (a short std::string's characters, read through its _M_p: the
 * string's own buffer inside the struct that holds it), -1 when none: in
 * an array block its element's; else the largest instance's that holds
 * the address. */
static int32_t typed_member(ds_session *s, const ds_heap *h, const btyped *t, uint32_t block,
			    const ds_srec *x, const ds_type *elem, const char *via, uint32_t *off)
{
	const hblock *b = &h->blocks.v[block - 1];
	const binst *c[INSTANCES_BACK];
	size_t lo = 0, hi = t->insts.n, n = 0;
	int32_t a = t->array[block - 1], id;

	/* an element no sample placed is only as sure as the access's own
	 * type says: bytes a string function or unnamed code reached may lie
	 * among the elements of an arena, or of an array of one */
	if (a >= 0 && x->ea >= t->start[block - 1] && (elem || b->size == s->tidents.v[a].t->size)) {
		*off = (uint32_t)((x->ea - t->start[block - 1]) % s->tidents.v[a].t->size);
		if ((id = ds_dobj_in_type(s, a, *off, x, elem, via, false)) >= 0)
			return id;
	}
	/* the first instance after the address */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const binst *m = &t->insts.v[mid];
		if (m->block < block || (m->block == block && m->base <= x->ea))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i > 0 && lo - i < INSTANCES_BACK && t->insts.v[i - 1].block == block; i--)
		if (x->ea - t->insts.v[i - 1].base < t->insts.v[i - 1].size)
			c[n++] = &t->insts.v[i - 1];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && c[j]->size > c[j - 1]->size; j--) {
			const binst *m = c[j];
			c[j] = c[j - 1];
			c[j - 1] = m;
		}
	for (size_t i = 0; i < n; i++) {
		*off = (uint32_t)(x->ea - c[i]->base);
		if ((id = ds_dobj_in_type(s, c[i]->tid, *off, x, elem, via, false)) >= 0)
			return id;
	}
	return -1;
}

/* Samples of scalars (bytes through a char *, doubles of an array) and of
 * memory no variable names, in a block: the member they fall in when the
 * block's other samples type it (type_blocks), else the block's data
 * object, named by its site and the type of the scalars ("heap: 8 MB
 * block of double from main (m.c:17)"; by the string function that
 * reached it, as "(via memcpy)"), at their offset in it: one object per
 * site and element type or function. */
static void name_objects(ds_session *s, ds_heap *h)
{
	ds_u64map by_site = {0}, elems = {0};
	ds_buf name = {0}, tn = {0};
	btyped typed = {0};

	type_blocks(s, h, &typed);
	for (size_t k = 0; k < s->srecs.n; k++) {
		ds_srec *x = &s->srecs.v[k];
		const hblock *b;
		const ds_type *elem;
		const char *via;
		uint32_t id, kind, off;
		int32_t member;
		if (!h->rec_block.v[k] || x->dobj < 0 || !nameless(&s->dobjs.v[x->dobj], &via))
			continue;
		b = &h->blocks.v[h->rec_block.v[k] - 1];
		elem = via ? NULL : element_of(s, x);
		if ((member = typed_member(s, h, &typed, h->rec_block.v[k], x, elem, via, &off)) >= 0) {
			x->dobj = member;
			x->off = off;
			x->flags = (uint16_t)((x->flags & ~(7u << SR_HOW_SHIFT)) | HOW_HEAP << SR_HOW_SHIFT);
			continue;
		}
		/* what tells the site's objects apart: the string function's
		 * object, or the element type (numbered as met; 0 none) */
		if (via) {
			kind = (uint32_t)x->dobj << 1 | 1;
		} else {
			kind = ds_u64map_get(&elems, (uint64_t)(uintptr_t)elem);
			if (kind == DS_U64MAP_NONE) {
				kind = (uint32_t)elems.n << 1;
				ds_u64map_put(&elems, (uint64_t)(uintptr_t)elem, kind, NULL);
			}
		}
		id = ds_u64map_get(&by_site, (uint64_t)b->site << 32 | kind);
		if (id == DS_U64MAP_NONE) {
			ds_buf_reset(&name);
			ds_buf_reset(&tn);
			if (elem)
				ds_type_name(elem, &tn);
			ds_heap_object_name(s, b->site, tn.len ? ds_buf_str(&tn) : NULL, &name);
			if (via)
				ds_buf_printf(&name, " (via %s)", via);
			id = (uint32_t)ds_dobj_heap(s, ds_buf_str(&name));
			ds_u64map_put(&by_site, (uint64_t)b->site << 32 | kind, id, NULL);
		}
		x->dobj = (int32_t)id;
		x->off = x->ea - b->addr <= UINT32_MAX ? (uint32_t)(x->ea - b->addr) : UINT32_MAX;
		x->flags = (uint16_t)((x->flags & ~(7u << SR_HOW_SHIFT)) | HOW_HEAP << SR_HOW_SHIFT);
	}
	ds_u64map_free(&by_site);
	ds_u64map_free(&elems);
	ds_vec_free(&typed.insts);
	free(typed.array);
	free(typed.start);
	ds_buf_free(&name);
	ds_buf_free(&tn);
}

int ds_heap_build(ds_session *s, ds_err *err)
{
	static const uint64_t none[1] = {0};
	ds_heap *h = &s->heap;
	image_vec ims = {0};
	image **order;
	ds_buf lost = {0}; /* the processes that lost their file to the program */
	char *dir, **paths;
	size_t n;
	int rc;

	if (h->built)
		return 0;
	h->built = true;
	dir = ds_session_dir(s);
	rc = ds_heap_list(dir, &paths, &n, err);
	free(dir);
	if (rc)
		return -1;
	h->files = n;
	ds_vec_reserve(&h->rec_block, s->srecs.n + 1);
	h->rec_block.n = s->srecs.n;
	memset(h->rec_block.v, 0, s->srecs.n * sizeof *h->rec_block.v);
	if (!n) {
		free(paths);
		return 0;
	}
	ds_vec_reserve(&h->has_image, s->srecs.n + 1);
	h->has_image.n = s->srecs.n;
	memset(h->has_image.v, 0, s->srecs.n);
	h->site_names = ds_hash_new();
	for (const char *w = s->opts.heap_wrappers; w && *w;) {
		size_t len = strcspn(w, ",");
		if (len)
			ds_vec_push(&h->wrappers, ds_xstrndup(w, len));
		w += len + (w[len] == ',');
	}
	/* allocations recorded without their stack */
	h->nosite = site_get(h, "<no call stack>", stack_get(h, "", none, 0));
	h->stacks.v[0].site = h->nosite;
	load_images(s, h, &ims, paths, n);
	name_stacks(s, h, ims.v, ims.n);
	if (h->sites.n >= 1u << SITE_BITS) {
		ds_vec_free(&ims);
		return ds_err_set(err, DS_EINPUT, "the heap files name %zu allocation sites, more than the %u "
				  "dsprof can tell apart", h->sites.n, (1u << SITE_BITS) - 1);
	}
	assign(s, h, ims.v, ims.n);
	unrecorded(s, ims.v, ims.n);
	/* children first: their samples in the parent's blocks join its sweep */
	order = ds_xcalloc(ims.n + 1, sizeof *order);
	for (size_t i = 0; i < ims.n; i++)
		order[i] = &ims.v[i];
	ds_sort(order, ims.n, sizeof *order, cmp_start_desc);
	for (size_t i = 0; i < ims.n; i++)
		sweep(s, h, order[i]);
	free(order);
	for (size_t i = 0; i < ims.n; i++) {
		uint64_t bad = ims.v[i].bad;
		if (bad)
			note(s, "heap file '%s': %" PRIu64 " bytes of records could not be read (damaged); the "
				"blocks they held are not known", ds_heapfile_path(ims.v[i].f), bad);
		if (ds_heapfile_cut(ims.v[i].f))
			note(s, "heap file '%s' is cut short (its last chunk is not whole): the records after its "
				"end are lost", ds_heapfile_path(ims.v[i].f));
		if (ims.v[i].info->lost) {
			const char *slash = strrchr(ims.v[i].info->exe, '/');
			ds_buf_printf(&lost, "%s %u (%s)", lost.len ? "," : " after the program took its descriptor:",
				      ims.v[i].info->pid, slash ? slash + 1 : ims.v[i].info->exe);
		}
		ds_heapfile_close(ims.v[i].f);
		ds_vec_free(&ims.v[i].local);
		ds_vec_free(&ims.v[i].queries);
		ds_vec_free(&ims.v[i].child_start);
	}
	if (h->complete < h->images)
		note(s, "%" PRIu64 " of %" PRIu64 " processes ended without a last heap record: killed outright "
			"(SIGKILL, a crash), which loses their last records (64 KiB a thread at most), or the heap "
			"tracker lost its file%s, which loses the records after that; the blocks they still held "
			"are 'unended', not leaks", h->images - h->complete, h->images, ds_buf_str(&lost));
	ds_buf_free(&lost);
	ds_vec_free(&ims);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	name_objects(s, h);
	return 0;
}

void ds_heap_free(ds_session *s)
{
	ds_heap *h = &s->heap;
	for (size_t i = 0; i < h->sites.n; i++) {
		free(h->sites.v[i].name);
		free(h->sites.v[i].stack_text);
	}
	ds_vec_free(&h->sites);
	ds_vec_free(&h->stacks);
	ds_vec_free(&h->frames);
	ds_u64map_free(&h->stack_index);
	if (h->site_names)
		ds_hash_free(h->site_names);
	ds_vec_free(&h->blocks);
	ds_vec_free(&h->rec_block);
	ds_vec_free(&h->has_image);
	for (size_t i = 0; i < h->wrappers.n; i++)
		free(h->wrappers.v[i]);
	ds_vec_free(&h->wrappers);
	for (size_t i = 0; i < h->notes.n; i++)
		free(h->notes.v[i]);
	ds_vec_free(&h->notes);
}
