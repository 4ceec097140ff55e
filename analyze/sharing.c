/*
 * The sharing view: every cache line that two or more threads touched,
 * what each thread read and wrote in it (as fields and byte ranges), what
 * kind of sharing that is, and for false sharing the padding that ends it,
 * checked at the machine's other line sizes and at 128 bytes (the L2's
 * adjacent-line prefetcher fetches 64-byte lines in pairs).
 *
 * The rule (docs/report-formats.md says it to users):
 *   - A line with fewer than SH_MIN_SAMPLES samples (of the event that
 *     sampled most of it) is not judged.
 *   - Accesses are weighed by their count: the sum of their samples'
 *     periods, of the event that counts most of them (seen), so that
 *     events of different periods weigh what they count (their samples,
 *     for an event that counts time: weight_of).  A thread takes
 *     part in the sharing when it makes at least 1/(4 * threads) of the
 *     line's count; of its accesses, a range of bytes counts when it has at
 *     least 1/(4 * ranges) of the thread's.  That leaves out a main thread
 *     that initialized the line once, and a thread's stray touch of its
 *     neighbour's field.  A counted range is read when it has loads,
 *     written when stores to it make at least 1/1000 of its thread's count,
 *     or, for imprecise events, loads whose value the code writes back
 *     (rmw_load).
 *   - One thread taking part: private.  No counted writes, or writes
 *     under SH_READ_MOSTLY_PERMILLE per mille of the line's count
 *     (SH_READ_MOSTLY_IMPRECISE for lines with samples of imprecise events
 *     such as cpu-clock: a store retires into the store buffer, so its
 *     cost, and the samples, fall on the loads around it, and stores are
 *     seen ten to a hundred times less often than they run): read-mostly
 *     (benign).  Else each counted write is "true" when its bytes overlap
 *     bytes another taking-part thread counts (reads or writes), "false"
 *     otherwise; the line is false or true sharing by the count of its
 *     writes, or false+true when the smaller kind has at least 20% of it.
 *     True sharing with counted bytes only read beside other threads'
 *     writes says so (those bytes are falsely shared: their reads miss
 *     for writes they do not use) and how to move them away.
 * Exact with the simulator (-c 1), statistical with sampling: the samples
 * are a sample of the accesses, and the thresholds are shares.
 */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#define SH_MIN_SAMPLES 10
#define SH_READ_MOSTLY_PERMILLE 10
#define SH_READ_MOSTLY_IMPRECISE 1
#define SH_MAX_THREADS 16  /* thread rows under a line */
#define SH_MAX_NAMED 4     /* fields named per thread and verb */
#define SH_PREFETCH 128    /* adjacent-line prefetch: two 64-byte lines */
#define READERS UINT32_MAX /* the owner of bytes only read */
#define SH_SHARED UINT32_MAX /* a line two or more threads touched */

enum {
	SH_KIND, SH_LINE, SH_CLASS, SH_NTHREADS, SH_TID, SH_COMM, SH_LOADS, SH_STORES, SH_HITM,
	SH_READS, SH_WRITES, SH_DATAOBJECTS, SH_EVIDENCE, SH_FIX, SH_CHECK, SH_NCOLS
};

enum sh_kind { ROW_LINE, ROW_THREAD, ROW_EVIDENCE, ROW_FIX, ROW_CHECK };
enum { IO_LOADS, IO_STORES, IO_HITM, IO_RMW, IO_N };
static const char *const kind_names[] = {"line", "thread", "evidence", "fix", "check"};

typedef struct acc_key {
	uint64_t line;
	uint32_t thread, lo, hi; /* bytes lo..hi of the line */
	int32_t dobj;
} acc_key;

/* One thread's accesses to bytes lo..hi of a line. */
typedef struct acc {
	acc_key k;
	uint64_t weight, loads, stores, hitm; /* counts, as the event that counts most of them (seen) */
	uint64_t rmw;          /* imprecise loads whose value their block writes back (rmw_load) */
	uint64_t imprecise;    /* samples of imprecise events */
	uint64_t off;          /* FIELD, PADDING: the offset of byte lo in the aggregate */
	uint64_t inst;         /* FIELD, PADDING: the instance's address */
	const ds_type *type;   /* FIELD, PADDING: the aggregate; else NULL */
	int64_t elem;          /* an element of a global array: its index; else -1 */
	uint64_t elem_size;
	char *elem_type;       /* its element type ("double"), or NULL */
	char *base;            /* what an element belongs to: the array's name */
	char *label;           /* "hits", "sums[1]", "<scalars>" */
	bool read, written;    /* counted (the rule above), per line */
} acc;

typedef struct sh_build {
	tb b;
	unsigned line_size;
	DS_VEC(acc) accs;
	ds_hash *index;
	ds_vec_u64 samples, count; /* [acc * nev + ev] */
	ds_vec_u64 io;             /* [(acc * nev + ev) * IO_N + IO_*]: counts (sums of periods) */
	ds_u64map lines;           /* line -> its entry in owner */
	ds_vec_u32 owner;          /* per line: the one thread that touched it, or SH_SHARED */
	uint64_t with_ea, without_ea;
	bool has_src;
	int8_t *site_rmw;          /* per site, its imprecise trigger: -1 not known yet, else rmw_load() */
	unsigned sizes[4];         /* other line sizes to check a fix at */
	const char *size_what[4];
	size_t nsizes;
	memtime *mt;               /* memory time: per access, then per row at mt_base + row */
	size_t mt_base;
} sh_build;

/* ---- collecting ---- */

/* What an access touched, named for people: the member path of a field,
 * the element of a global array, else the data object. */
static void describe(ds_session *s, const ds_srec *x, acc *a)
{
	const dobj *o = &s->dobjs.v[x->dobj];
	const thread_ent *th = &s->threads.v[x->thread];
	const ds_type *t = NULL, *e;
	const ds_var *v = NULL;
	uint64_t vaddr, off = 0;
	uint32_t di;
	ds_dso *d;
	ds_buf b = {0};

	a->elem = -1;
	if (o->kind == DOBJ_FIELD && o->t) {
		a->type = o->t;
		a->off = x->off;
		a->inst = x->ea - x->off;
		a->label = ds_xstrdup(o->path ? o->path : o->name);
		return;
	}
	/* an element or a member of a global, also when the access went
	 * through a pointer to a base type (<scalars>) */
	if ((o->kind == DOBJ_GLOBAL || o->kind == DOBJ_SCALAR) &&
	    ds_session_data_at(s, th->pid, x->time, x->ea, &di, &vaddr) &&
	    (d = s->dsos.v[di].dso) && (v = ds_dso_global_at(d, vaddr, &off)) &&
	    (t = ds_type_strip(ds_dso_type_at_die(d, v->type_die))) &&
	    (t->kind == DS_TYPE_STRUCT || t->kind == DS_TYPE_UNION || t->kind == DS_TYPE_CLASS) &&
	    ds_type_member_path(t, off, ds_srec_size(s, x), &b, NULL)) {
		a->type = t;
		a->off = off;
		a->inst = x->ea - off;
		a->label = ds_buf_steal(&b); /* the member, as for fields found otherwise */
		return;
	}
	ds_buf_free(&b); /* padding of a global struct: named as its object is */
	if ((o->kind == DOBJ_GLOBAL || o->kind == DOBJ_SCALAR) && t && v && t->kind == DS_TYPE_ARRAY &&
	    (e = t->target) && ds_type_strip(e) && ds_type_strip(e)->size) {
		a->elem_size = ds_type_strip(e)->size;
		a->elem = (int64_t)(off / a->elem_size);
		ds_type_name(e, &b);
		a->elem_type = ds_buf_steal(&b);
		a->base = ds_xstrdup(v->name);
		a->label = ds_xasprintf("%s[%" PRId64 "]", v->name, a->elem);
		return;
	}
	if (o->kind == DOBJ_GLOBAL && o->type) {
		/* "name (type)": the name alone */
		const char *sp = strstr(o->name, " (");
		a->label = sp ? ds_xstrndup(o->name, (size_t)(sp - o->name)) : ds_xstrdup(o->name);
		return;
	}
	a->label = ds_xstrdup(o->name);
}

static bool same_place(const ds_memop *a, uint64_t a_end, const ds_memop *b, uint64_t b_end)
{
	int64_t da = a->disp + (a->rip_relative ? (int64_t)a_end : 0);
	int64_t db = b->disp + (b->rip_relative ? (int64_t)b_end : 0);
	return a->base == b->base && a->index == b->index && a->scale == b->scale && a->size == b->size &&
	       a->segment == b->segment && a->rip_relative == b->rip_relative && da == db;
}

/* Is the trigger a load whose value the same block stores back to the same
 * place, before the address registers change: a read-modify-write in
 * separate instructions, as compilers emit x += y?  Timer samples fall on
 * loads (a store retires into the store buffer, and the cost of the miss
 * shows at the load): without this, the writes of such code hardly show. */
static bool rmw_load(ds_session *s, const site *st, const ds_trigger *t)
{
	ds_dso *d = s->dsos.v[st->dso].dso;
	ds_decoder *dec = s->bt ? ds_backtracker_decoder(s->bt) : NULL;
	uint64_t at = t->pc + t->len, watch = 0;
	const uint8_t *code;
	size_t avail;

	if (!d || !dec || t->verdict != DS_BT_OK || !t->mem.read || t->mem.write || t->mem.address_only)
		return false;
	if (t->mem.base != DS_REG_NONE && t->mem.base < 64)
		watch |= 1ull << t->mem.base;
	if (t->mem.index != DS_REG_NONE && t->mem.index < 64)
		watch |= 1ull << t->mem.index;
	for (int n = 0; n < 16 && (code = ds_dso_code_at(d, at, &avail)); n++) {
		ds_insn in;
		if (!ds_decode(dec, code, avail, at, &in))
			return false;
		for (uint32_t k = 0; k < in.nmem; k++)
			if (in.mem[k].write && !in.mem[k].address_only &&
			    same_place(&t->mem, t->pc + t->len, &in.mem[k], in.addr + in.len))
				return true;
		if (in.flow != DS_FLOW_NEXT || (in.regs_written & watch))
			return false;
		at += in.len;
	}
	return false;
}

/* What samples of event ev weigh: their count (the sum of their
 * periods), so that events of different periods weigh what they count;
 * their number for an event that counts time (cpu-clock), whose count is
 * nanoseconds, not accesses. */
static uint64_t weight_of(const sh_build *h, size_t ev, uint64_t samples, uint64_t count)
{
	return h->b.t->events[ev].time_ns ? samples : count;
}

/* Which lines two or more threads touched: a memory-bound program touches
 * millions of lines, nearly all from one thread, and only the others'
 * accesses need keeping and naming. */
static void sh_owner(ds_session *s, size_t i, const ds_srec *x, void *ctx)
{
	sh_build *h = ctx;
	bool added;
	uint32_t l;

	(void)s;
	(void)i;
	if (!(x->flags & SR_EA))
		return;
	l = ds_u64map_put(&h->lines, x->ea / h->line_size * h->line_size, (uint32_t)h->owner.n, &added);
	if (added)
		ds_vec_push(&h->owner, x->thread);
	else if (h->owner.v[l] != x->thread)
		h->owner.v[l] = SH_SHARED;
}

static void sh_add(ds_session *s, size_t i, const ds_srec *x, void *ctx)
{
	sh_build *h = ctx;
	acc_key k;
	uint64_t src, *io, w;
	bool added;
	size_t ai;
	acc *a;

	if (!(x->flags & SR_EA)) {
		h->without_ea += ds_srec_own(s, x);
		return;
	}
	h->with_ea += ds_srec_own(s, x);
	memset(&k, 0, sizeof k);
	ds_srec_line_span(s, x, h->line_size, &k.line, &k.lo, &k.hi);
	if (h->owner.v[ds_u64map_get(&h->lines, k.line)] != SH_SHARED)
		return; /* a private line: the view leaves it out */
	k.thread = x->thread;
	k.dobj = x->dobj;
	ai = ds_hash_intern(h->index, &k, sizeof k, &added);
	if (added) {
		acc n = {.k = k};
		describe(s, x, &n);
		ds_vec_push(&h->accs, n);
		for (size_t e = 0; e < s->nev; e++) {
			ds_vec_push(&h->samples, 0);
			ds_vec_push(&h->count, 0);
			for (int k3 = 0; k3 < IO_N; k3++)
				ds_vec_push(&h->io, 0);
		}
	}
	a = &h->accs.v[ai];
	mt_add(h->mt, ai, i);
	io = &h->io.v[(ai * s->nev + x->ev) * IO_N];
	w = weight_of(h, x->ev, 1, x->period);
	io[IO_LOADS] += x->flags & SR_LOAD ? w : 0;
	io[IO_STORES] += x->flags & SR_STORE ? w : 0;
	/* another core's modified line; Arm SPE says only that the line came
	 * from another core's cache (a peer), as perf c2c counts it there */
	if (ds_srec_data_src(s, i, &src) && (((src >> PERF_MEM_SNOOP_SHIFT) & PERF_MEM_SNOOP_HITM) ||
					     ((src >> PERF_MEM_SNOOPX_SHIFT) & PERF_MEM_SNOOPX_PEER)))
		io[IO_HITM] += w;
	a->imprecise += ds_srec_own(s, x) && !(x->flags & SR_PRECISE);
	/* precise events sample the stores themselves */
	if ((x->flags & (SR_LOAD | SR_STORE | SR_KERNEL | SR_IFETCH | SR_PRECISE)) == SR_LOAD &&
	    s->sites.v[x->site].ds) {
		int8_t *known = &h->site_rmw[x->site];
		if (*known < 0)
			*known = rmw_load(s, &s->sites.v[x->site], &s->sites.v[x->site].ds->trig[0]);
		io[IO_RMW] += *known ? w : 0;
	}
	h->samples.v[ai * s->nev + x->ev]++;
	h->count.v[ai * s->nev + x->ev] += x->period;
}

/* Accesses [b, e) of ix (all of h's when ix is NULL) as the event that
 * counts most of them counts them: their weight, and their loads, stores,
 * HITMs and read-modify-writes.  Each event samples the same accesses, so
 * that several events (sim:loads, sim:stores and sim:HITM, or perf mem's
 * loads and stores) do not count one access several times; and counts
 * (sums of periods, weight_of), not samples, so that events of different
 * periods (sim:stores every 100003, sim:HITM every 31) weigh what they
 * count.
 * *samples: those of the event that sampled most of them. */
static void seen(const sh_build *h, const size_t *ix, size_t b, size_t e, uint64_t *weight,
		 uint64_t *samples, uint64_t *io_max)
{
	size_t nev = h->b.t->nevents;
	*weight = *samples = 0;
	for (int k = 0; k < IO_N; k++)
		io_max[k] = 0;
	for (size_t ev = 0; ev < nev; ev++) {
		uint64_t n = 0, c = 0, io[IO_N] = {0};
		if (h->b.t->events[ev].derived)
			continue; /* cycles, not accesses */
		for (size_t k = b; k < e; k++) {
			size_t ai = ix ? ix[k] : k;
			n += h->samples.v[ai * nev + ev];
			c += weight_of(h, ev, h->samples.v[ai * nev + ev], h->count.v[ai * nev + ev]);
			for (int j = 0; j < IO_N; j++)
				io[j] += h->io.v[(ai * nev + ev) * IO_N + j];
		}
		*samples = n > *samples ? n : *samples;
		*weight = c > *weight ? c : *weight;
		for (int j = 0; j < IO_N; j++)
			io_max[j] = io[j] > io_max[j] ? io[j] : io_max[j];
	}
}

/* ---- one line ---- */

typedef struct line_view {
	sh_build *h;
	const size_t *ix;      /* its accesses, by thread */
	size_t n;
	uint64_t weight, stores, imprecise;
	size_t nthreads, nsharing;
} line_view;

static acc *A(const line_view *l, size_t k)
{
	return &l->h->accs.v[l->ix[k]];
}

/* The rule's counted reads and writes. */
static void count_sharing(line_view *l)
{
	l->nsharing = 0;
	for (size_t b = 0, e; b < l->n; b = e) {
		uint64_t tweight = 0;
		bool part;
		for (e = b; e < l->n && A(l, e)->k.thread == A(l, b)->k.thread; e++)
			tweight += A(l, e)->weight;
		part = tweight * 4 * l->nthreads >= l->weight;
		l->nsharing += part;
		for (size_t k = b; k < e; k++) {
			acc *a = A(l, k);
			bool counted = part && a->weight * 4 * (e - b) >= tweight;
			a->read = counted && a->loads;
			a->written = counted && a->stores + a->rmw && (a->stores + a->rmw) * 1000 >= tweight;
		}
	}
}

static bool overlap(const acc *a, const acc *b)
{
	return a->k.lo <= b->k.hi && b->k.lo <= a->k.hi;
}

/* "hits 16-23, misses 24-31": the fields thread t counts as read
 * (written), hottest first, their bytes merged per name. */
static void named_bytes(const line_view *l, uint32_t thread, bool writes, bool counted, ds_buf *out)
{
	struct nb {
		const char *label;
		uint32_t lo, hi;
		uint64_t n;
	} *v = ds_xcalloc(l->n ? l->n : 1, sizeof *v);
	size_t nv = 0;

	for (size_t k = 0; k < l->n; k++) {
		const acc *a = A(l, k);
		uint64_t n = writes ? a->stores + a->rmw : a->loads;
		size_t j;
		if (a->k.thread != thread || !n || (counted && !(writes ? a->written : a->read)))
			continue;
		for (j = 0; j < nv && strcmp(v[j].label, a->label) != 0; j++)
			;
		if (j == nv)
			v[nv++] = (struct nb){a->label, a->k.lo, a->k.hi, 0};
		v[j].lo = a->k.lo < v[j].lo ? a->k.lo : v[j].lo;
		v[j].hi = a->k.hi > v[j].hi ? a->k.hi : v[j].hi;
		v[j].n += n;
	}
	for (size_t i = 1; i < nv; i++)
		for (size_t j = i; j > 0 && v[j].n > v[j - 1].n; j--) {
			struct nb t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < nv && i < SH_MAX_NAMED; i++) {
		ds_buf_printf(out, "%s%s %u", i ? ", " : "", v[i].label, v[i].lo);
		if (v[i].hi != v[i].lo)
			ds_buf_printf(out, "-%u", v[i].hi);
		if (!counted)
			ds_buf_printf(out, " (%" PRIu64 ")", v[i].n);
	}
	if (nv > SH_MAX_NAMED)
		ds_buf_printf(out, ", +%zu more", nv - SH_MAX_NAMED);
	free(v);
}

/* ---- the fix ---- */

/* A stretch of the aggregate that one owner (a writing thread, or READERS
 * for bytes nobody writes) uses. */
typedef struct span {
	uint32_t owner;
	uint64_t lo, hi;       /* offsets in the aggregate, inclusive */
	uint64_t shift;        /* bytes the fix moves it by */
} span;

static int cmp_span(const void *a, const void *b)
{
	const span *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->owner < y->owner ? -1 : x->owner > y->owner;
}

static uint64_t type_size(const ds_type *t)
{
	t = ds_type_strip(t);
	return t ? t->size : 0;
}

/* The top-level member of t at offset off, and the one before it. */
static const ds_member *member_at(const ds_type *t, uint64_t off, const ds_member **before)
{
	const ds_member *best = NULL;
	*before = NULL;
	t = ds_type_strip(t);
	for (size_t i = 0; t && i < t->nmembers; i++) {
		const ds_member *m = &t->members[i];
		if (m->offset <= off && off < m->offset + (type_size(m->type) ? type_size(m->type) : 1))
			best = m;
	}
	for (size_t i = 0; best && t && i < t->nmembers; i++) {
		const ds_member *m = &t->members[i];
		if (m->offset < best->offset && (!*before || m->offset >= (*before)->offset))
			*before = m;
	}
	return best;
}

static const char *mname(const ds_member *m)
{
	return m && m->name ? m->name : "<anonymous>";
}

/* The padding that puts each owner's bytes on lines of their own, for
 * lines of `line` bytes and instances at byte `res` of one: text into out
 * (when given), shifts into the spans.  False when a member holds the
 * bytes of two owners (an array member indexed by thread): no padding
 * between members separates those. */
static bool struct_fix(const ds_type *t, span *sp, size_t n, uint64_t res, unsigned line, ds_buf *out,
		       const char **split)
{
	uint64_t shift = 0, prev_end = 0;
	uint32_t prev_owner = READERS;
	bool first = true, any = false;

	*split = NULL;
	for (size_t i = 0; i < n; i++) {
		const ds_member *m, *before;
		uint64_t at, pad;
		if (!first && sp[i].owner != prev_owner && sp[i].lo >= prev_end &&
		    (m = member_at(t, sp[i].lo, &before))) {
			if (m->offset < prev_end) {
				*split = mname(m);
				return false;
			}
			at = res + m->offset + shift;
			/* already on a line after the previous owner's last byte? */
			if ((res + prev_end - 1 + shift) / line != at / line) {
				pad = 0;
			} else {
				pad = line - at % line;
				if (out) {
					if (any)
						ds_buf_puts(out, "; ");
					ds_buf_printf(out, "insert %" PRIu64 " bytes after `%s` (or _Alignas(%u) on `%s`)",
						      pad, mname(before), line, mname(m));
				}
				any = true;
			}
			shift += pad;
		}
		prev_owner = sp[i].owner;
		first = false;
		sp[i].shift = shift;
		if (sp[i].hi + 1 > prev_end)
			prev_end = sp[i].hi + 1;
	}
	return true;
}

/* Do two owners, one of them writing, still share a line of `line`
 * bytes once the spans are moved, with instances at byte res of a line?
 * Names the first pair. */
static bool shared_at(const span *sp, size_t n, uint64_t res, unsigned line, size_t *pi, size_t *pj)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			uint64_t a0 = (res + sp[i].lo + sp[i].shift) / line;
			uint64_t a1 = (res + sp[i].hi + sp[i].shift) / line;
			uint64_t b0 = (res + sp[j].lo + sp[j].shift) / line;
			uint64_t b1 = (res + sp[j].hi + sp[j].shift) / line;
			if (sp[i].owner == sp[j].owner || (sp[i].owner == READERS && sp[j].owner == READERS))
				continue;
			if (a0 <= b1 && b0 <= a1) {
				*pi = i;
				*pj = j;
				return true;
			}
		}
	return false;
}

/* The same for lines of `check` bytes, where instances were seen at byte
 * `inst` modulo the view's lines of `line` bytes: a larger line may begin
 * at any multiple of `line` before an instance (an allocation aligned to
 * 64 bytes is at byte 0 or 64 of a 128-byte pair), so every such start is
 * tried. */
static bool can_share(const span *sp, size_t n, uint64_t inst, unsigned line, unsigned check, size_t *pi,
		      size_t *pj)
{
	if (check <= line)
		return shared_at(sp, n, inst % check, check, pi, pj);
	for (uint64_t r = inst % line; r < check; r += line)
		if (shared_at(sp, n, r, check, pi, pj))
			return true;
	return false;
}

/* The accesses' owners as spans in the aggregate, sorted, overlapping
 * spans of one owner merged. */
static size_t make_spans(const line_view *l, span **out)
{
	span *sp = ds_xcalloc(l->n ? l->n : 1, sizeof *sp);
	size_t n = 0, m = 0;

	for (size_t k = 0; k < l->n; k++) {
		const acc *a = A(l, k);
		if (!a->read && !a->written)
			continue;
		sp[n++] = (span){a->written ? a->k.thread : READERS, a->off, a->off + (a->k.hi - a->k.lo), 0};
	}
	ds_sort(sp, n, sizeof *sp, cmp_span);
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < m; j++)
			if (sp[j].owner == sp[i].owner && sp[i].lo <= sp[j].hi + 1 && sp[j].lo <= sp[i].hi + 1)
				break;
		if (j < m) {
			sp[j].lo = sp[i].lo < sp[j].lo ? sp[i].lo : sp[j].lo;
			sp[j].hi = sp[i].hi > sp[j].hi ? sp[i].hi : sp[j].hi;
		} else {
			sp[m++] = sp[i];
		}
	}
	ds_sort(sp, m, sizeof *sp, cmp_span);
	*out = sp;
	return m;
}

static const char *field_at(const ds_type *t, uint64_t off)
{
	const ds_member *before;
	return mname(member_at(t, off, &before));
}

/* A struct whose fields different threads write: the padding, then the
 * same padding at the other line sizes. */
static void fix_struct(const line_view *l, const acc *a0, ds_buf *fix, ds_buf *check)
{
	sh_build *h = l->h;
	span *sp;
	size_t n = make_spans(l, &sp), pi, pj;
	uint64_t res = a0->inst % h->line_size;
	const char *split;
	ds_buf name = {0};

	ds_type_ident(a0->type, &name);
	if (!struct_fix(a0->type, sp, n, res, h->line_size, fix, &split)) {
		ds_buf_printf(fix, "member `%s` of %s holds the data of several threads: make it an "
				   "array of per-thread elements padded to %u bytes (_Alignas(%u))",
			      split, ds_buf_str(&name), h->line_size, h->line_size);
		goto out;
	}
	if (!fix->len) {
		ds_buf_printf(fix, "no padding between members separates them");
		goto out;
	}
	if (res)
		ds_buf_printf(fix, "; instances start at byte %" PRIu64 " of a line: the padding counts on that, "
				   "_Alignas also needs %u-byte aligned instances (aligned_alloc)",
			      res, h->line_size);
	for (size_t z = 0; z < h->nsizes; z++) {
		unsigned L = h->sizes[z];
		span *moved = ds_xcalloc(n ? n : 1, sizeof *moved);
		ds_buf again = {0};
		memcpy(moved, sp, n * sizeof *sp);
		if (check->len)
			ds_buf_puts(check, "; ");
		ds_buf_printf(check, "%u bytes (%s): ", L, h->size_what[z]);
		if (!can_share(moved, n, a0->inst, h->line_size, L, &pi, &pj)) {
			ds_buf_puts(check, "apart");
		} else {
			/* at a larger size, for instances aligned to it (which
			 * _Alignas gives); at a smaller one, where they are */
			uint64_t res_l = L > h->line_size ? 0 : a0->inst % L;
			for (size_t i = 0; i < n; i++)
				moved[i].shift = 0;
			ds_buf_printf(check, "`%s` and `%s` can still share a %u-byte block",
				      field_at(a0->type, sp[pi].lo), field_at(a0->type, sp[pj].lo), L);
			if (struct_fix(a0->type, moved, n, res_l, L, &again, &split) && again.len)
				ds_buf_printf(check, ": %s%s", ds_buf_str(&again),
					      L > h->line_size ? ", with instances aligned to it" : "");
		}
		ds_buf_free(&again);
		free(moved);
	}
out:
	ds_buf_free(&name);
	free(sp);
}

/* Threads use different elements of one array (the mttest case), or
 * different instances of one struct type side by side: each element (or
 * instance) needs a line of its own, at every line size checked. */
static void fix_elements(const line_view *l, const acc *a0, bool instances, ds_buf *fix, ds_buf *check)
{
	sh_build *h = l->h;
	uint64_t esize = instances ? type_size(a0->type) : a0->elem_size, stride;
	int64_t gap = INT64_MAX; /* elements between the closest two of different threads */
	const char *what = instances ? "instances" : "elements";
	ds_buf tn = {0};

	for (size_t k = 0; k < l->n; k++) {
		const acc *a = A(l, k);
		if (!a->read && !a->written)
			continue;
		if (!instances && !a0->elem_size && a->k.hi - a->k.lo + 1 > esize)
			esize = a->k.hi - a->k.lo + 1;
		for (size_t j = 0; j < l->n; j++) {
			const acc *b = A(l, j);
			int64_t d = 0;
			if (a->k.thread == b->k.thread || !(b->read || b->written) || !(a->written || b->written))
				continue;
			if (instances && esize && a->inst > b->inst)
				d = (int64_t)((a->inst - b->inst) / esize);
			else if (!instances && a->elem >= 0 && b->elem >= 0)
				d = a->elem - b->elem;
			if (d > 0 && d < gap)
				gap = d;
		}
	}
	if (gap == INT64_MAX)
		gap = 1; /* not known: the worst case, neighbours */
	if (!esize)
		esize = 1;
	stride = (esize + h->line_size - 1) / h->line_size * h->line_size;
	if (instances) {
		ds_type_ident(a0->type, &tn);
		ds_buf_printf(fix, "give each its own %u-byte line: the threads' %s instances sit side by "
				   "side; pad the type to %" PRIu64 " bytes (char pad[%" PRIu64
				   "] after its last member) and put _Alignas(%u) on it",
			      h->line_size, ds_buf_str(&tn), stride, stride - esize, h->line_size);
	} else {
		const char *name = a0->base ? a0->base : a0->label;
		ds_buf_printf(fix, "pad each element of `%s` to a %u-byte line: struct { %s v; char pad[%" PRIu64
				   "]; } _Alignas(%u) %s[]",
			      name, h->line_size, a0->elem_type ? a0->elem_type : "T", stride - esize, h->line_size,
			      name);
	}
	for (size_t z = 0; z < h->nsizes; z++) {
		unsigned L = h->sizes[z];
		uint64_t big = (esize + L - 1) / L * L;
		if (check->len)
			ds_buf_puts(check, "; ");
		ds_buf_printf(check, "%u bytes (%s): ", L, h->size_what[z]);
		if ((uint64_t)gap * stride >= L && stride % L == 0)
			ds_buf_puts(check, "apart");
		else
			ds_buf_printf(check, "%s %" PRId64 " apart can still share a %u-byte block: pad to %" PRIu64
					     " (char pad[%" PRIu64 "], _Alignas(%u))",
				      what, gap, L, big, big - esize, L);
	}
	ds_buf_free(&tn);
}

/* The threads' data are different objects: each needs a line of its own,
 * those only read too. */
static void fix_objects(const line_view *l, ds_buf *fix, ds_buf *check)
{
	sh_build *h = l->h;
	const char *seen[SH_MAX_NAMED];
	size_t ns = 0;

	ds_buf_printf(fix, "give each its own %u-byte line (_Alignas(%u) on the variables, or %u-byte "
			   "aligned allocations):",
		      h->line_size, h->line_size, h->line_size);
	for (size_t k = 0; k < l->n && ns < SH_MAX_NAMED; k++) {
		const acc *a = A(l, k);
		size_t j;
		if (!a->written && !a->read)
			continue;
		for (j = 0; j < ns && strcmp(seen[j], a->label) != 0; j++)
			;
		if (j == ns) {
			ds_buf_printf(fix, "%s `%s`", ns ? "," : "", a->label);
			seen[ns++] = a->label;
		}
	}
	for (size_t z = 0; z < h->nsizes; z++) {
		unsigned L = h->sizes[z];
		if (check->len)
			ds_buf_puts(check, "; ");
		ds_buf_printf(check, "%u bytes (%s): %s", L, h->size_what[z],
			      L <= h->line_size ? "apart" : "align to it as well, or they may share a block");
	}
}

/* Which fix fits the line's counted accesses. */
static void fix_false(const line_view *l, ds_buf *fix, ds_buf *check)
{
	const acc *first = NULL;
	bool same_inst = true, same_type = true, same_obj = true, same_member = true;

	for (size_t k = 0; k < l->n; k++) {
		const acc *a = A(l, k);
		if (!a->read && !a->written)
			continue;
		if (!first) {
			first = a;
			continue;
		}
		same_type &= a->type && a->type == first->type;
		same_inst &= a->type && a->type == first->type && a->inst == first->inst;
		same_obj &= a->k.dobj == first->k.dobj && (a->base != NULL) == (first->base != NULL) &&
			    (!a->base || strcmp(a->base, first->base) == 0);
		same_member &= strcmp(a->label, first->label) == 0;
	}
	if (!first)
		return;
	if (first->type && same_inst && !same_member)
		fix_struct(l, first, fix, check);
	else if (first->type && same_type && !same_inst)
		fix_elements(l, first, true, fix, check);
	else if (same_obj)
		fix_elements(l, first, false, fix, check);
	else
		fix_objects(l, fix, check);
}

/* ---- classifying ---- */

/* A range a thread only reads, beside other threads' counted writes to
 * other bytes of the line: its reads miss for writes it has no use for. */
static bool read_beside(const line_view *l, const acc *a)
{
	bool beside = false;

	if (!a->read || a->written)
		return false;
	for (size_t j = 0; j < l->n; j++) {
		const acc *b = A(l, j);
		if (b->k.thread == a->k.thread || !b->written)
			continue;
		if (overlap(a, b))
			return false; /* it reads what they write */
		beside = true;
	}
	return beside;
}

/* True sharing with bytes only read beside it: those are falsely shared
 * with the written ones, and moving them away helps (their reads stop
 * missing), as padding never helps the bytes written in common. */
static void beside_true(const line_view *l, ds_buf *ev, ds_buf *fix, ds_buf *check)
{
	const char *seen[SH_MAX_NAMED];
	size_t ns = 0;
	ds_buf names = {0}, pad = {0};

	for (size_t k = 0; k < l->n && ns < SH_MAX_NAMED; k++) {
		const acc *a = A(l, k);
		size_t j;
		if (!read_beside(l, a))
			continue;
		for (j = 0; j < ns && strcmp(seen[j], a->label) != 0; j++)
			;
		if (j < ns)
			continue;
		seen[ns++] = a->label;
		ds_buf_printf(ev, "%s%s %u", ns > 1 ? ", " : "; ", a->label, a->k.lo);
		if (a->k.hi != a->k.lo)
			ds_buf_printf(ev, "-%u", a->k.hi);
		ds_buf_printf(&names, "%s`%s`", ns > 1 ? ", " : "", a->label);
	}
	if (!ns)
		return;
	ds_buf_printf(ev, " only read beside them: false sharing");
	fix_false(l, &pad, check);
	ds_buf_printf(fix, "; %s, only read, %s the line with those writes (false sharing): %s",
		      ds_buf_str(&names), ns > 1 ? "share" : "shares", ds_buf_str(&pad));
	ds_buf_free(&names);
	ds_buf_free(&pad);
}

static const char *classify(line_view *l, ds_session *s, ds_buf *ev, ds_buf *fix, ds_buf *check)
{
	uint64_t wfalse = 0, wtrue = 0, counted_w = 0, weight, samples, io[IO_N];
	const char *cls;
	bool first = true;

	seen(l->h, l->ix, 0, l->n, &weight, &samples, io);
	if (samples < SH_MIN_SAMPLES) {
		ds_buf_printf(ev, "too few samples to judge (%" PRIu64 "; %d needed)", samples, SH_MIN_SAMPLES);
		return "too-few-samples";
	}
	count_sharing(l);
	for (size_t k = 0; k < l->n; k++) {
		const acc *a = A(l, k);
		bool shared = false;
		if (!a->written)
			continue;
		counted_w += a->stores + a->rmw;
		for (size_t j = 0; j < l->n && !shared; j++) {
			const acc *b = A(l, j);
			shared = b->k.thread != a->k.thread && (b->read || b->written) && overlap(a, b);
		}
		if (shared)
			wtrue += a->stores + a->rmw;
		else
			wfalse += a->stores + a->rmw;
	}
	/* each taking-part thread: what it writes, else what it reads */
	for (size_t b = 0, e; b < l->n; b = e) {
		uint32_t th = A(l, b)->k.thread;
		bool part = false, w = false;
		for (e = b; e < l->n && A(l, e)->k.thread == th; e++) {
			part |= A(l, e)->read || A(l, e)->written;
			w |= A(l, e)->written;
		}
		if (!part)
			continue;
		ds_buf_printf(ev, "%sT%u %s ", first ? "" : "; ", s->threads.v[th].tid, w ? "writes" : "reads");
		named_bytes(l, th, w, true, ev);
		first = false;
	}
	if (l->nsharing < 2) {
		cls = "private";
		if (l->nthreads == 2)
			ds_buf_printf(ev, ": the other thread made under 1/8 of the count");
		else
			ds_buf_printf(ev, ": the other %zu threads each made under 1/%zu of the count",
				      l->nthreads - 1, 4 * l->nthreads);
	} else if (!counted_w || counted_w * 1000 < (l->imprecise ? SH_READ_MOSTLY_IMPRECISE
								   : SH_READ_MOSTLY_PERMILLE) * l->weight) {
		cls = "read-mostly";
		ds_buf_printf(ev, ": writes are %.2f%% of the line's count%s",
			      l->weight ? 100.0 * (double)l->stores / (double)l->weight : 0.0,
			      counted_w ? "" : ", none by the sharing threads");
	} else if (!wtrue || (wfalse && wtrue * 5 < wfalse + wtrue)) {
		cls = "false-sharing";
		ds_buf_printf(ev, ": disjoint bytes");
		if (wtrue)
			ds_buf_printf(ev, " (%" PRIu64 "%% of writes overlap)", wtrue * 100 / (wfalse + wtrue));
		fix_false(l, fix, check);
	} else if (!wfalse || wfalse * 5 < wfalse + wtrue) {
		cls = "true-sharing";
		ds_buf_printf(ev, ": the same bytes");
		if (wfalse)
			ds_buf_printf(ev, " (%" PRIu64 "%% of writes disjoint)", wfalse * 100 / (wfalse + wtrue));
		ds_buf_puts(fix, "threads write bytes other threads use: padding cannot help; give each "
				 "thread its own copy and combine them at the end, or update less often");
		beside_true(l, ev, fix, check);
	} else {
		cls = "false+true-sharing";
		ds_buf_printf(ev, ": %" PRIu64 "%% of writes to disjoint bytes, %" PRIu64 "%% to the same",
			      wfalse * 100 / (wfalse + wtrue), wtrue * 100 / (wfalse + wtrue));
		fix_false(l, fix, check);
		ds_buf_puts(fix, fix->len ? "; the bytes written in common stay shared" : "");
	}
	return cls;
}

/* ---- rows ---- */

static const char *const classes[] = {"false-sharing", "true-sharing", "false+true-sharing",
				      "read-mostly", "private", "too-few-samples"};

typedef struct row_key {
	uint64_t line;
	uint32_t kind, id;
} row_key;

/* The row of (line, kind, id), made when new; its index. */
static size_t sh_row(sh_build *h, uint64_t line, enum sh_kind kind, uint32_t id, const char *name)
{
	row_key key = {line, kind, id};
	size_t r = tb_row(&h->b, &key, sizeof key, name, NULL);
	ds_row *row = &h->b.v.v[r];
	tb_cell_str(row, SH_KIND, kind_names[kind]);
	tb_cell_u64(row, SH_LINE, line);
	row->depth = kind != ROW_LINE;
	/* notes are cells of the line's row for programs (note_row) */
	row->note = row->text_only = kind >= ROW_EVIDENCE;
	return r;
}

/* Sum accesses [b, e) of the line into row r. */
static void sum_accs(sh_build *h, const line_view *l, size_t b, size_t e, size_t r)
{
	ds_row *row = &h->b.v.v[r];
	uint64_t weight, samples, io[IO_N];
	size_t nev = h->b.t->nevents;

	for (size_t k = b; k < e; k++) {
		size_t ai = l->ix[k];
		for (size_t ev = 0; ev < nev; ev++) {
			row->samples[ev] += h->samples.v[ai * nev + ev];
			row->count[ev] += h->count.v[ai * nev + ev];
		}
		mt_sum(h->mt, h->mt_base + r, ai);
	}
	mt_cells(h->mt, h->mt_base + r, row, SH_NCOLS);
	seen(h, l->ix, b, e, &weight, &samples, io);
	tb_cell_u64(row, SH_LOADS, io[IO_LOADS]);
	tb_cell_u64(row, SH_STORES, io[IO_STORES]);
	if (h->has_src)
		tb_cell_u64(row, SH_HITM, io[IO_HITM]);
}

/* A text for people both as a note row under the line and in a column of
 * the line's row, for programs. */
static void note_row(sh_build *h, size_t line_row, uint64_t line, enum sh_kind kind, const char *what,
		     ds_buf *text, size_t col)
{
	char *name;
	if (!text->len)
		return;
	name = ds_xasprintf("%s: %s", what, ds_buf_str(text));
	sh_row(h, line, kind, 0, name);
	free(name);
	tb_cell_str(&h->b.v.v[line_row], col, ds_buf_str(text));
}

/* The data objects on the line (the type, for fields), heaviest first. */
static void objects_cell(const ds_session *s, const line_view *l, ds_row *row)
{
	struct ob {
		const char *what;
		uint64_t n;
	} *v = ds_xcalloc(l->n ? l->n : 1, sizeof *v);
	size_t nv = 0;
	ds_buf text = {0};

	for (size_t k = 0; k < l->n; k++) {
		const dobj *o = &s->dobjs.v[A(l, k)->k.dobj];
		bool member = o->kind == DOBJ_FIELD;
		const char *what = member && o->type ? o->type : o->name;
		size_t j;
		for (j = 0; j < nv && strcmp(v[j].what, what) != 0; j++)
			;
		if (j == nv)
			v[nv++] = (struct ob){what, 0};
		v[j].n += A(l, k)->weight;
	}
	for (size_t i = 1; i < nv; i++)
		for (size_t j = i; j > 0 && v[j].n > v[j - 1].n; j--) {
			struct ob t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < nv && i < 2 * SH_MAX_NAMED; i++)
		ds_buf_printf(&text, "%s%s", i ? ", " : "", v[i].what);
	if (nv > 2 * SH_MAX_NAMED)
		ds_buf_printf(&text, ", +%zu more", nv - 2 * SH_MAX_NAMED);
	tb_cell_str(row, SH_DATAOBJECTS, ds_buf_str(&text));
	ds_buf_free(&text);
	free(v);
}

static void emit_line(ds_session *s, sh_build *h, line_view *l, uint64_t *nclass)
{
	ds_buf ev = {0}, fix = {0}, check = {0}, text = {0};
	uint64_t line = A(l, 0)->k.line;
	const char *cls = classify(l, s, &ev, &fix, &check);
	size_t lr;

	for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
		nclass[c] += strcmp(cls, classes[c]) == 0;
	ds_buf_printf(&text, "0x%" PRIx64, line);
	lr = sh_row(h, line, ROW_LINE, 0, text.p);
	sum_accs(h, l, 0, l->n, lr);
	tb_cell_str(&h->b.v.v[lr], SH_CLASS, cls);
	tb_cell_u64(&h->b.v.v[lr], SH_NTHREADS, l->nthreads);
	objects_cell(s, l, &h->b.v.v[lr]);

	for (size_t b = 0, e; b < l->n; b = e) {
		uint32_t th = A(l, b)->k.thread;
		const char *comm = ds_thread_comm(s, th);
		size_t tr;
		for (e = b; e < l->n && A(l, e)->k.thread == th; e++)
			;
		ds_buf_reset(&text);
		ds_buf_printf(&text, "T%u %s", s->threads.v[th].tid, comm ? comm : "");
		tr = sh_row(h, line, ROW_THREAD, th, text.p);
		sum_accs(h, l, b, e, tr);
		tb_cell_u64(&h->b.v.v[tr], SH_TID, s->threads.v[th].tid);
		tb_cell_str(&h->b.v.v[tr], SH_COMM, comm);
		for (int w = 0; w < 2; w++) {
			ds_buf_reset(&text);
			named_bytes(l, th, w, false, &text);
			if (text.len)
				tb_cell_str(&h->b.v.v[tr], w ? SH_WRITES : SH_READS, text.p);
		}
	}
	note_row(h, lr, line, ROW_EVIDENCE, "evidence", &ev, SH_EVIDENCE);
	note_row(h, lr, line, ROW_FIX, "fix", &fix, SH_FIX);
	note_row(h, lr, line, ROW_CHECK, "at other line sizes", &check, SH_CHECK);
	ds_buf_free(&ev);
	ds_buf_free(&fix);
	ds_buf_free(&check);
	ds_buf_free(&text);
}

/* The line sizes a fix is checked at: each cache level's (levels of one
 * size together) and the adjacent-line prefetcher's pairs, but the
 * view's own. */
static void other_sizes(ds_session *s, sh_build *h, char what[][32])
{
	static const char *const levels[] = {"L1D", "L2", "L3"};
	for (size_t i = 0; i <= sizeof levels / sizeof levels[0]; i++) {
		bool prefetch = i == sizeof levels / sizeof levels[0];
		unsigned line = SH_PREFETCH;
		ds_err e = {0};
		size_t z;
		if (!prefetch && ds_session_line_size(s, levels[i], false, &line, &e))
			continue;
		if (line == h->line_size)
			continue;
		for (z = 0; z < h->nsizes && h->sizes[z] != line; z++)
			;
		if (z == h->nsizes) {
			h->sizes[h->nsizes++] = line;
			what[z][0] = 0;
		}
		snprintf(what[z] + strlen(what[z]), 32 - strlen(what[z]), "%s%s", what[z][0] ? ", " : "",
			 prefetch ? "adjacent-line prefetch" : levels[i]);
		h->size_what[z] = what[z];
	}
}

static int cmp_acc(const void *pa, const void *pb, void *ctx)
{
	const acc_key *a = &((const sh_build *)ctx)->accs.v[*(const size_t *)pa].k;
	const acc_key *b = &((const sh_build *)ctx)->accs.v[*(const size_t *)pb].k;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->dobj < b->dobj ? -1 : a->dobj > b->dobj;
}

int ds_view_sharing(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[SH_NCOLS] = {
		{"kind", DS_COL_STR, true},        {"line", DS_COL_HEX, false},
		{"class", DS_COL_STR, true},       {"nthreads", DS_COL_U64, false},
		{"tid", DS_COL_U64, false},        {"comm", DS_COL_STR, false},
		{"loads", DS_COL_U64, true},       {"stores", DS_COL_U64, true},
		{"hitm", DS_COL_U64, true},        {"reads", DS_COL_STR, true},
		{"writes", DS_COL_STR, true},      {"dataobjects", DS_COL_STR, true},
		{"evidence", DS_COL_STR, false},   {"fix", DS_COL_STR, false},
		{"check", DS_COL_STR, false}};
	static const char *const subs[] = {"thread", "evidence", "fix", "check"};
	static const size_t caps[] = {SH_MAX_THREADS, 1, 1, 1};
	ds_view_opts all = {.sort = o ? o->sort : NULL};
	uint64_t nclass[sizeof classes / sizeof classes[0]] = {0}, shared = 0;
	char what[4][32];
	sh_build h = {0};
	unsigned line;
	size_t *ix;
	int rc;

	if (ds_view_line_size(s, o, &line, err) || ds_dataspace_build(s, err))
		return -1;
	h.line_size = line;
	h.index = ds_hash_new();
	h.has_src = s->srec_data_src.n > 0;
	h.site_rmw = ds_xcalloc(s->sites.n ? s->sites.n : 1, sizeof *h.site_rmw);
	memset(h.site_rmw, -1, s->sites.n);
	other_sizes(s, &h, what);
	h.mt = mt_tb_init(&h.b, s, "sharing", "cache line", cols, SH_NCOLS);
	/* two runs share no addresses or thread ids: a diff knows a line by its data */
	h.b.t->diff_rows = "line";
	h.b.t->diff_key = "dataobjects";
	h.b.t->tree = true;
	h.b.t->order = DS_ORDER_KIDS;
	ds_line_props(s, h.b.t, o, line);
	(void)ds_srec_visit(s, sh_owner, &h, err); /* cannot fail: the dataspace is built */
	(void)ds_srec_visit(s, sh_add, &h, err);
	h.mt_base = h.accs.n;
	for (size_t i = 0; i < h.accs.n; i++) {
		uint64_t io[IO_N], samples;
		acc *a = &h.accs.v[i];
		seen(&h, NULL, i, i + 1, &a->weight, &samples, io);
		a->loads = io[IO_LOADS];
		a->stores = io[IO_STORES];
		a->hitm = io[IO_HITM];
		a->rmw = io[IO_RMW];
	}

	ix = ds_xcalloc(h.accs.n ? h.accs.n : 1, sizeof *ix);
	for (size_t i = 0; i < h.accs.n; i++)
		ix[i] = i;
	ds_sort_r(ix, h.accs.n, sizeof *ix, cmp_acc, &h);
	for (size_t b = 0, e; b < h.accs.n; b = e) {
		line_view l = {.h = &h, .ix = ix + b};
		for (e = b; e < h.accs.n && h.accs.v[ix[e]].k.line == h.accs.v[ix[b]].k.line; e++) {
			const acc *a = &h.accs.v[ix[e]];
			l.weight += a->weight;
			l.stores += a->stores;
			l.imprecise += a->imprecise;
			l.nthreads += e == b || a->k.thread != h.accs.v[ix[e - 1]].k.thread;
		}
		l.n = e - b;
		if (l.nthreads < 2)
			continue;
		shared++;
		emit_line(s, &h, &l, nclass);
	}
	free(ix);

	tb_prop(h.b.t, "samples_with_address", DS_PROP_NUMBER, "%llu", (unsigned long long)h.with_ea);
	tb_prop(h.b.t, "samples_without_address", DS_PROP_NUMBER, "%llu", (unsigned long long)h.without_ea);
	tb_prop(h.b.t, "min_samples", DS_PROP_NUMBER, "%d", SH_MIN_SAMPLES);
	tb_prop(h.b.t, "shared_lines", DS_PROP_NUMBER, "%llu", (unsigned long long)shared);
	for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
		char key[48];
		size_t k;
		snprintf(key, sizeof key, "%s_lines", classes[c]);
		for (k = 0; key[k]; k++)
			if (key[k] == '-' || key[k] == '+')
				key[k] = '_';
		tb_prop(h.b.t, key, DS_PROP_NUMBER, "%llu", (unsigned long long)nclass[c]);
	}
	if (!h.has_src)
		tb_prop(h.b.t, "note", DS_PROP_TEXT, "%s",
			"no event samples data sources: no HITM counts (the simulator's and perf c2c/mem "
			"recordings have them)");
	/* coherence misses first: what a shared line costs, and its order */
	tb_events_first(&h.b, ds_event_coherence);
	rc = tb_finish(&h.b, &all, out, err);
	if (rc == 0)
		ds_group_lines(*out, SH_LINE, SH_KIND, "line", subs, caps, 4, o ? o->limit : 0);
	mt_free(h.mt);
	for (size_t i = 0; i < h.accs.n; i++) {
		free(h.accs.v[i].label);
		free(h.accs.v[i].base);
		free(h.accs.v[i].elem_type);
	}
	ds_vec_free(&h.accs);
	ds_vec_free(&h.samples);
	ds_vec_free(&h.count);
	ds_vec_free(&h.io);
	ds_hash_free(h.index);
	ds_u64map_free(&h.lines);
	ds_vec_free(&h.owner);
	free(h.site_rmw);
	return rc;
}
