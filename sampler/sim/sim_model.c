/*
 * The memory model: per-thread private L1D and L2, a shared last level,
 * coherence between threads, and the events and samples they produce.
 *
 * Caches are set-associative with exact LRU (each set keeps its lines most
 * recently used first, as Cachegrind's do), write-allocate and write-back:
 * a dirty line leaving a level is written into the next one.  An access
 * that touches several lines is an access to each.
 *
 * Coherence.  Valgrind runs one thread at a time, for long stretches, so
 * the order in which it executes accesses says little about the order of
 * concurrent threads.  Each thread therefore has a logical clock (one tick
 * per data access; a new thread starts at its creator's time) and the model
 * asks what threads running at the same speed on separate cores would see.
 * Per line, every thread that touched it keeps a summary of its recent
 * activity: the span and number of its latest burst of accesses and of
 * writes (a burst ends after BURST_GAP ticks of silence), and where its
 * last access and last write were.  A foreign write between two accesses
 * of a thread (in logical time) takes the line from it: the second access
 * misses the private caches (a coherence miss), served by the writer's
 * modified copy (HITM) unless another thread took that copy first; the
 * write counts an INVAL.  Each such pair of a write and an access is seen
 * by whichever of the two Valgrind runs later: an access looks for foreign
 * writes since the thread's previous access (estimated from the writers'
 * bursts, spread evenly), a write looks for threads that are ahead in
 * logical time and held a copy.  The event of the side that ran earlier
 * happened to its first access after the other's write: it is charged,
 * without a call chain, to one of its accesses in the burst, in
 * proportion to the time before each (site_add, past).  Estimates below
 * one carry over in a fraction, so rates come out right on average and
 * results stay deterministic.  docs/simulator.md has the limits.
 *
 * Nothing here is tracked while the process has a single thread: the
 * directory of lines (the only structure that grows with the program's
 * footprint) exists only once a second thread does.
 */
#include "sim.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"

#define EMPTY (~(UWord)0)
#define ONE 65536u              /* fixed point: 1/65536 of an event */
#define BURST_GAP (1ull << 20)  /* ticks of silence that end a burst */
#define MAX_SLOTS 16            /* threads remembered per line */
#define SITES 3                 /* a thread's accesses to a line told apart */

/* Where an access was served from. */
enum src { SRC_L1, SRC_L2, SRC_LLC, SRC_SHARED, SRC_HITM, SRC_RAM };

typedef struct line_ent line_ent;

/* What became of a line while it was in an L1 (sim:L1D_EVICT): the bytes
 * used, a bit per byte (per line/64 bytes for lines longer than 64), and
 * the access that fetched it, to which its eviction is charged. */
typedef struct line_use {
	ULong used;
	Addr pc, addr;
} line_use;

typedef struct cache {
	UWord *tags;      /* sets x ways, most recently used first: line << 1 | dirty, or EMPTY */
	line_ent **dir;   /* per way, when coherence is tracked: its line's directory entry */
	line_use *use;    /* per way, an L1's when sim:L1D_EVICT is recorded */
	line_use gone;    /* the use of the line the last miss evicted */
	UWord sets;
	UWord set_mask;   /* sets - 1 when sets is a power of two, else 0 (then: modulo) */
	UInt ways;
	UInt line_bits;
} cache;

/* One instruction's accesses to one place in a line, in a thread's
 * latest burst: how much of the thread's logical time came before them
 * (since its previous access to the line) and before its writes (since
 * its previous write).  A foreign write that falls in that time made that
 * access the one to miss. */
typedef struct site {
	Addr pc, addr;
	UInt before, wbefore;
} site;

/* One thread's recent activity on one line. */
typedef struct slot {
	ULong last;            /* its last access */
	ULong afirst;          /* start of its access burst (ending at last) */
	ULong wfirst, wlast;   /* its write burst */
	ULong wdown;           /* when its modified copy was last taken */
	site sites[SITES];     /* its accesses in the burst, the heaviest kept */
	UInt thread;           /* serial of the thread, 0: free */
	Int lwp;
	UInt acount, wcount;   /* accesses and writes in the bursts */
	UInt fmiss, ftaken;    /* carried fractions: a stale copy seen by it, taken by a writer behind it */
	UInt apick, wpick;     /* its accesses, its writes, charged with an event after the fact */
	UChar writes;          /* its sites that write, a bit each */
} slot;

struct line_ent {
	UWord line;
	line_ent *next;        /* hash chain */
	slot *more;            /* slots beyond the first */
	UInt nmore, cap;
	slot first;
};

struct sim_thread {
	ThreadId vgtid;
	UInt serial;
	Int lwp;
	ULong clock;
	cache l1, l2;          /* l2.tags NULL: no private L2 */
	cache dtlb, stlb;      /* the translations of its pages, as caches of pages */
};

/* Address translation: a first-level DTLB and a second-level STLB of
 * 4 KiB pages, LRU, private to the thread, as a Skylake-class core has
 * them (64 entries of 4 ways, 1536 of 12 ways).  Huge pages are not
 * modelled, nor the walk's own cost (the latencies are the data's). */
#define TLB_PAGE_BITS 12
static const sim_geom dtlb_geom = {64ull << TLB_PAGE_BITS, 4, 1u << TLB_PAGE_BITS};
static const sim_geom stlb_geom = {1536ull << TLB_PAGE_BITS, 12, 1u << TLB_PAGE_BITS};
enum tlb { TLB_NA, TLB_L1, TLB_L2, TLB_WALK };

/* An access, as samples describe it.  vgtid 0: an access of another
 * thread, from the past: no call chain. */
typedef struct access_ctx {
	ThreadId vgtid;
	Int lwp;
	ULong time;
	Addr pc;
	Addr addr;
	Bool write;
	enum tlb tlb;          /* how its first byte's page was translated (TLB_NA: not known) */
} access_ctx;

static sim_config cfg;
static Int pid;
static sim_thread *cur;
static UInt next_serial = 1;
static cache llc;             /* tags NULL: no shared level */
static Bool l2_is_llc;        /* the private L2 is absent and the LLC is the machine's L2 */
static UInt l1_bits;
static ULong accesses;
static ULong total[SIM_NEVENTS];
static ULong next_sample[SIM_NEVENTS]; /* total at which the next sample is due */
static ULong window_end[SIM_NEVENTS];  /* total at which the window holding that sample ends */
static ULong draws[SIM_NEVENTS];       /* the generator of the samples' places */

/* The directory: a hash table of line entries, allocated in chunks and
 * never moved or freed (L1 ways point at them). */
static Bool coherent;
static Bool track_use;         /* sim:L1D_EVICT is recorded */
static UInt use_unit_bits;     /* log2 of the bytes a bit of line_use.used stands for */
static line_ent **buckets;
static UWord nbuckets, nlines;
static line_ent *chunk;
static UInt chunk_used;
#define CHUNK_LINES 16384

/* ---- caches ---- */

static void cache_init(cache *c, const sim_geom *g)
{
	UWord sets = g->size / g->line / g->ways;

	c->ways = g->ways;
	c->sets = sets;
	c->set_mask = (sets & (sets - 1)) == 0 ? sets - 1 : 0;
	c->line_bits = (UInt)VG_(log2)(g->line);
	c->tags = VG_(malloc)("sim.cache", sets * g->ways * sizeof(UWord));
	for (UWord i = 0; i < sets * g->ways; i++)
		c->tags[i] = EMPTY;
}

static void cache_free(cache *c)
{
	VG_(free)(c->tags);
	if (c->dir)
		VG_(free)(c->dir);
	if (c->use)
		VG_(free)(c->use);
	c->tags = NULL;
	c->dir = NULL;
	c->use = NULL;
}

/* The first way of line's set.  Real caches of odd sizes (a 12 MB L3)
 * have set counts that are not powers of two; they index by modulo. */
static inline UWord *set_of(const cache *c, UWord line)
{
	UWord set = LIKELY(c->set_mask || c->sets == 1) ? line & c->set_mask : line % c->sets;
	return c->tags + set * c->ways;
}

/* Find `line` and make it the set's most recent; on a miss install it, the
 * least recent line going to *victim (EMPTY when the way was free).  dirty
 * is or'ed in.  Returns whether it hit.  The directory pointers move along
 * with the tags.  The search and the move to the front are one pass, the
 * line before carried one way down. */
static inline Bool cache_ref(cache *c, UWord line, UWord dirty, UWord *victim)
{
	UWord *set = set_of(c, line);
	UWord key = line << 1, e = set[0], carry = e;
	UInt i;

	if ((e & ~(UWord)1) == key) {
		set[0] = e | dirty;
		return True;
	}
	set[0] = key | dirty;
	for (i = 1; i < c->ways; i++) {
		e = set[i];
		set[i] = carry;
		if ((e & ~(UWord)1) == key) {
			set[0] |= e & 1;
			break;
		}
		carry = e;
	}
	if (c->dir) {
		line_ent **dset = c->dir + (set - c->tags);
		line_ent *moved = i < c->ways ? dset[i] : NULL;
		for (UInt j = i < c->ways ? i : c->ways - 1; j > 0; j--)
			dset[j] = dset[j - 1];
		dset[0] = moved;
	}
	if (c->use) {
		line_use *uset = c->use + (set - c->tags), moved = uset[i < c->ways ? i : c->ways - 1];
		for (UInt j = i < c->ways ? i : c->ways - 1; j > 0; j--)
			uset[j] = uset[j - 1];
		if (i < c->ways) {
			uset[0] = moved;
		} else {
			c->gone = moved;
			uset[0].used = 0;
		}
	}
	if (i < c->ways)
		return True;
	*victim = carry;
	return False;
}

/* A dirty line written into a level: marked dirty where it is (a write
 * back is not a use: the order stays), installed where it is not. */
static UWord cache_put_dirty(cache *c, UWord line)
{
	UWord *set = set_of(c, line), key = line << 1, victim = EMPTY;

	for (UInt i = 0; i < c->ways; i++)
		if ((set[i] & ~(UWord)1) == key) {
			set[i] |= 1;
			return EMPTY;
		}
	cache_ref(c, line, 1, &victim);
	return victim;
}

/* A dirty line leaves a private level: write it into the levels below. */
static void write_back(sim_thread *t, cache *from, UWord victim)
{
	Addr a;

	if (victim == EMPTY || !(victim & 1))
		return;
	a = (Addr)(victim >> 1) << from->line_bits;
	if (from == &t->l1 && t->l2.tags)
		write_back(t, &t->l2, cache_put_dirty(&t->l2, a >> t->l2.line_bits));
	else if (llc.tags)
		cache_put_dirty(&llc, a >> llc.line_bits);
}

/* ---- events and samples ---- */

static ULong data_src(enum src s, const access_ctx *x)
{
	static const ULong tlb[] = {
		[TLB_NA] = PERF_MEM_S(TLB, NA), [TLB_L1] = PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, HIT),
		[TLB_L2] = PERF_MEM_S(TLB, L2) | PERF_MEM_S(TLB, HIT),
		[TLB_WALK] = PERF_MEM_S(TLB, WK) | PERF_MEM_S(TLB, HIT),
	};
	ULong d = PERF_MEM_S(OP, LOAD);

	if (x->write)
		d = PERF_MEM_S(OP, STORE);
	d |= tlb[x->tlb] | PERF_MEM_S(LOCK, NA);
	switch (s) {
	case SRC_L1:
		return d | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, L1) |
		       PERF_MEM_S(SNOOP, NONE);
	case SRC_L2:
		return d | PERF_MEM_S(LVL, L2) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, L2) |
		       PERF_MEM_S(SNOOP, NONE);
	case SRC_LLC:
		return d | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, L3) |
		       PERF_MEM_S(SNOOP, NONE);
	case SRC_SHARED:
		return d | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, L3) |
		       PERF_MEM_S(SNOOP, HIT);
	case SRC_HITM:
		return d | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, L3) |
		       PERF_MEM_S(SNOOP, HITM);
	case SRC_RAM:
		break;
	}
	return d | PERF_MEM_S(LVL, LOC_RAM) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, RAM) |
	       PERF_MEM_S(SNOOP, MISS);
}

static ULong weight(enum src s)
{
	static const UInt lat[] = {
		[SRC_L1] = SIM_LAT_L1, [SRC_L2] = SIM_LAT_L2, [SRC_LLC] = SIM_LAT_LLC,
		[SRC_SHARED] = SIM_LAT_LLC, [SRC_HITM] = SIM_LAT_HITM, [SRC_RAM] = SIM_LAT_RAM,
	};
	return cfg.lat[lat[s]];
}

/* Whether a return address lies in client code: past the outermost
 * frame, the unwinder's guesses point at the stack or at nothing. */
static Bool in_client_code(Addr a)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	return seg && seg->hasX && (seg->kind == SkFileC || seg->kind == SkAnonC);
}

static void sample(UInt ev, ULong period, ULong w, ULong dsrc, const access_ctx *x)
{
	Addr ips[SIM_MAX_STACK], sp = 0;
	UInt n = 0;

	if (cfg.callchain) {
		/* [0] is the thread's IP, [1..] the last byte of each call:
		 * perf wants the IP, then return addresses */
		n = x->vgtid ? VG_(get_StackTrace)(x->vgtid, ips, SIM_MAX_STACK, NULL, NULL, 0) : 1;
		/* up to date at every access, as the unwinder's registers are */
		sp = x->vgtid ? VG_(get_SP)(x->vgtid) : 0;
		if (n == 0)
			n = 1;
		ips[0] = x->pc;
		for (UInt i = 1; i < n; i++) {
			if (!in_client_code(ips[i])) {
				n = i;
				break;
			}
			ips[i] += 1;
		}
	}
	sim_emit_sample(cfg.slot[ev], pid, x->lwp, x->time, x->pc, x->addr, period, w, dsrc,
			cfg.callchain ? ips : NULL, n, sp);
}

/* Which of the P events of a window of ev, for a period P, is sampled:
 * one drawn at random, each with probability 1/P.  A fixed period
 * samples the same access of every lap of a loop whose lap makes a
 * multiple of it; a gap drawn around P (a PMU's random low bits) leaves
 * the next sample near the same place of such a lap for several samples
 * more.  Windows drawn apart are independent, so an estimate's error is
 * that of counting the samples (a field's misses as a share of every
 * miss), whatever the loop.  The generator (xorshift64) starts from a
 * fixed seed: runs repeat. */
static ULong draw_place(UInt ev)
{
	ULong r = draws[ev];

	r ^= r << 13;
	r ^= r >> 7;
	r ^= r << 17;
	draws[ev] = r;
	return (ULong)(((unsigned __int128)r * cfg.period[ev]) >> 64);
}

/* n more events of kind ev: the number of windows whose drawn event they
 * reach (0: none), each then sampled with the period as its weight (the
 * windows it ends, when one access makes several events), so that the
 * periods add up to the count. */
static inline ULong due(UInt ev, ULong n)
{
	ULong windows = 0;

	total[ev] += n;
	while (UNLIKELY(total[ev] >= next_sample[ev])) {
		windows++;
		next_sample[ev] = window_end[ev] + draw_place(ev) + 1;
		window_end[ev] += cfg.period[ev];
	}
	return windows;
}

static inline void count(UInt ev, ULong n, enum src s, const access_ctx *x)
{
	ULong windows = due(ev, n);
	if (UNLIKELY(windows))
		sample(ev, windows * cfg.period[ev], weight(s), data_src(s, x), x);
}

/* A line leaves thread t's L1 (or t ends with it there): one
 * sim:L1D_EVICT, weighted by the bytes of it used, charged to the access
 * that fetched it, without a call chain (that access is in the past). */
static void evicted(const sim_thread *t, const line_use *u)
{
	static const ULong no_source = PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
				       PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
	access_ctx x = {0, t->lwp, t->clock, u->pc, u->addr, False, TLB_NA};
	ULong windows;

	if (!u->pc)
		return;
	windows = due(SIM_EV_L1D_EVICT, 1);
	if (UNLIKELY(windows))
		sample(SIM_EV_L1D_EVICT, windows * cfg.period[SIM_EV_L1D_EVICT],
		       (ULong)__builtin_popcountll(u->used) << use_unit_bits, no_source, &x);
}

/* The bytes [a, a + size) of the line at the head of its L1 set, marked
 * used (up to the line's end). */
static inline void mark_used(cache *l1, Addr a, UInt size)
{
	UWord *set = set_of(l1, a >> l1->line_bits);
	UInt off = (UInt)(a & (((Addr)1 << l1->line_bits) - 1)), end = off + (size ? size : 1) - 1;
	UInt top = (1u << l1->line_bits) - 1;
	UInt lo = off >> use_unit_bits, hi = (end < top ? end : top) >> use_unit_bits;

	l1->use[set - l1->tags].used |= (~0ull >> (63 - hi)) & (~0ull << lo);
}

/* ---- the directory ---- */

static UWord hash_line(UWord line)
{
	return (line * 0x9E3779B97F4A7C15ull) >> 20;
}

static void dir_grow(void)
{
	UWord n = nbuckets ? nbuckets * 2 : 65536;
	line_ent **b = VG_(calloc)("sim.dir", n, sizeof *b);

	for (UWord i = 0; i < nbuckets; i++) {
		line_ent *e = buckets[i], *next;
		for (; e; e = next) {
			UWord h = hash_line(e->line) & (n - 1);
			next = e->next;
			e->next = b[h];
			b[h] = e;
		}
	}
	if (buckets)
		VG_(free)(buckets);
	buckets = b;
	nbuckets = n;
}

static line_ent *dir_get(UWord line)
{
	UWord h = hash_line(line) & (nbuckets - 1);
	line_ent *e;

	for (e = buckets[h]; e; e = e->next)
		if (e->line == line)
			return e;
	if (!chunk || chunk_used == CHUNK_LINES) {
		chunk = VG_(calloc)("sim.dir.lines", CHUNK_LINES, sizeof *chunk);
		chunk_used = 0;
	}
	e = &chunk[chunk_used++];
	e->line = line;
	e->next = buckets[h];
	buckets[h] = e;
	if (++nlines > nbuckets + nbuckets / 2)
		dir_grow();
	return e;
}

static slot *slot_at(line_ent *e, UInt i)
{
	return i == 0 ? &e->first : &e->more[i - 1];
}

/* The thread's slot in e, made when it has none: a free slot, or the one
 * whose thread was quiet the longest. */
static slot *slot_of(line_ent *e, const sim_thread *t)
{
	UInt n = 1 + e->nmore, oldest = 0;
	slot *s;

	for (UInt i = 0; i < n; i++) {
		s = slot_at(e, i);
		if (s->thread == t->serial)
			return s;
		if (s->thread == 0)
			goto fresh;
		if (s->last < slot_at(e, oldest)->last)
			oldest = i;
	}
	if (n < MAX_SLOTS) {
		if (e->nmore == e->cap) {
			e->cap = e->cap ? e->cap * 2 : 2;
			e->more = VG_(realloc)("sim.dir.slots", e->more, e->cap * sizeof *e->more);
		}
		s = &e->more[e->nmore++];
	} else {
		s = slot_at(e, oldest);
	}
fresh:
	VG_(memset)(s, 0, sizeof *s);
	s->thread = t->serial;
	s->lwp = t->lwp;
	return s;
}

/* How many of the n events of a burst spanning [first, last] fell in
 * (from, to], spread evenly; in 1/ONE, at most ONE (only "any?" matters).
 * A window that holds an end of the burst holds an event for sure. */
static UInt burst_in(ULong first, ULong last, UInt n, ULong from, ULong to)
{
	ULong lo = from + 1 > first ? from + 1 : first;
	ULong hi = to < last ? to : last;
	unsigned __int128 est;

	if (n == 0 || lo > hi)
		return 0;
	if (lo == first || hi == last)
		return ONE;
	est = ((unsigned __int128)(hi - lo + 1) * (n - 1) * ONE) / (last - first);
	return est >= ONE ? ONE : (UInt)est;
}

static void burst_add(ULong *first, ULong *last, UInt *n, ULong now)
{
	if (*n == 0 || now - *last > BURST_GAP || *n == ~0u) {
		*first = now;
		*n = 0;
	}
	*last = now;
	(*n)++;
}

/* Add p (in 1/ONE) to a carried fraction; whether a whole event came out. */
static Bool carry(UInt *frac, UInt p)
{
	*frac += p > ONE ? ONE : p;
	if (*frac < ONE)
		return False;
	*frac -= ONE;
	return True;
}

/* Where an access (a write) of the thread falls in its burst: the time
 * before it goes to its site, found or made (in place of the lightest). */
static void site_add(slot *me, const access_ctx *x, ULong now)
{
	Bool fresh = me->acount == 0 || now - me->last > BURST_GAP || me->acount == ~0u;
	Bool wfresh = me->wcount == 0 || now - me->wlast > BURST_GAP || me->wcount == ~0u;
	UInt i, k = 0, gap = fresh ? 1 : (UInt)(now - me->last);
	UInt wgap = wfresh ? 1 : (UInt)(now - me->wlast);
	site *st;

	for (i = 0; i < SITES; i++) {
		if (fresh)
			me->sites[i].before = 0;
		if (fresh || (x->write && wfresh))
			me->sites[i].wbefore = 0;
	}
	for (i = 0; i < SITES && (me->sites[i].pc != x->pc || me->sites[i].addr != x->addr); i++)
		if ((ULong)me->sites[i].before + me->sites[i].wbefore <
		    (ULong)me->sites[k].before + me->sites[k].wbefore)
			k = i;
	if (i == SITES) {
		i = k;
		me->sites[i] = (site){x->pc, x->addr, 0, 0};
		me->writes &= (UChar)~(1u << i);
	}
	st = &me->sites[i];
	if (st->before > (1u << 31) || st->wbefore > (1u << 31))
		for (k = 0; k < SITES; k++) {
			me->sites[k].before /= 2;
			me->sites[k].wbefore /= 2;
		}
	st->before += gap;
	if (x->write) {
		st->wbefore += wgap;
		me->writes |= (UChar)(1u << i);
	}
}

/* The access (write) of another thread that an event of its side of a
 * conflict happened to, after the fact: the first after the foreign write
 * that caused it, which Valgrind ran already.  Each site's share is the
 * time before it; a low-discrepancy sequence picks, so that every run
 * charges the same accesses and the shares come out right. */
static access_ctx past(slot *o, Bool write, ULong when)
{
	unsigned __int128 f;
	ULong sum = 0, upto = 0;
	UInt k = write ? ++o->wpick : ++o->apick, i;

	for (i = 0; i < SITES; i++)
		sum += write ? o->sites[i].wbefore : o->sites[i].before;
	if (!sum && write) /* its writes' sites gave way to others: any access */
		return past(o, False, when);
	/* k times the golden ratio, modulo 1, times the sum */
	f = (unsigned __int128)((ULong)k * 0x9E3779B97F4A7C15ull) * sum;
	for (i = 0; i < SITES - 1; i++) {
		upto += write ? o->sites[i].wbefore : o->sites[i].before;
		if ((ULong)(f >> 64) < upto)
			break;
	}
	return (access_ctx){0, o->lwp, when, o->sites[i].pc, o->sites[i].addr,
			    write || ((o->writes >> i) & 1), TLB_NA};
}

/* A coherence miss that an access of another thread suffered in the past:
 * it missed its private levels and was served by a modified copy. */
static void past_hitm(slot *o, ULong when)
{
	access_ctx x = past(o, False, when);

	count(SIM_EV_L1D_MISS, 1, SRC_HITM, &x);
	if (cfg.l2.size && !l2_is_llc)
		count(SIM_EV_L2_MISS, 1, SRC_HITM, &x);
	count(SIM_EV_HITM, 1, SRC_HITM, &x);
}

/* The coherence verdict on an access to e by t at its time now. */
typedef struct verdict {
	Bool stale;  /* a foreign write took the line since t's last access */
	Bool hitm;   /* and the writer's modified copy serves it */
	UInt inval;  /* copies of threads ahead in time this write takes away */
} verdict;

static verdict coherence(sim_thread *t, line_ent *e, const access_ctx *x)
{
	verdict v = {False, False, 0};
	ULong now = t->clock;
	slot *me = slot_of(e, t), *writer = NULL;
	ULong p = me->last, since_write = me->wcount ? me->wlast : 0;
	UInt n = 1 + e->nmore, miss = 0, best = 0;

	/* as the one whose copy is taken: foreign writes since our last
	 * access, by threads that ran before us (the latest writer serves) */
	for (UInt i = 0; i < n; i++) {
		slot *o = slot_at(e, i);
		UInt w;
		if (o == me || o->thread == 0)
			continue;
		w = burst_in(o->wfirst, o->wlast, o->wcount, p, now);
		miss += w;
		if (w && (!writer || w > best || (w == best && o->wlast > writer->wlast))) {
			writer = o;
			best = w;
		}
	}
	if (carry(&me->fmiss, miss)) {
		access_ctx w;
		v.stale = True;
		/* modified there unless an earlier miss already took that copy */
		v.hitm = burst_in(writer->wfirst, writer->wlast, writer->wcount,
				  p > writer->wdown ? p : writer->wdown, now) > 0;
		writer->wdown = now;
		w = past(writer, True, now);
		count(SIM_EV_INVAL, 1, SRC_L1, &w);
	}
	/* as the writer: threads ahead of us that held a copy (they touched
	 * the line since our previous write) missed on their next access */
	for (UInt i = 0; x->write && i < n; i++) {
		slot *o = slot_at(e, i);
		if (o == me || o->thread == 0 || o->last <= now)
			continue;
		if (carry(&o->ftaken, burst_in(o->afirst, o->last, o->acount, since_write, now))) {
			past_hitm(o, now);
			v.inval++;
		}
	}
	site_add(me, x, now);
	burst_add(&me->afirst, &me->last, &me->acount, now);
	if (x->write)
		burst_add(&me->wfirst, &me->wlast, &me->wcount, now);
	return v;
}

/* ---- accesses ---- */

/* The MRU way's directory pointer in line's set (after cache_ref, the way
 * of the line itself). */
static line_ent **mru_dir(const cache *c, UWord line)
{
	return &c->dir[set_of(c, line) - c->tags];
}

/* The directory entry of a line that missed the L1: from the way that
 * holds it in the L2 when it does, else from the directory. */
static line_ent *entry_of(const sim_thread *t, UWord line)
{
	if (t->l2.dir) {
		UWord *set = set_of(&t->l2, line), key = line << 1;
		for (UInt w = 0; w < t->l2.ways; w++)
			if ((set[w] & ~(UWord)1) == key && t->l2.dir[set - t->l2.tags + w])
				return t->l2.dir[set - t->l2.tags + w];
	}
	return dir_get(line);
}

/* After a miss in the private L1 (or a stale copy there): the rest of the
 * hierarchy.  Returns where the line came from; the events it causes are
 * counted once that is known, so that their samples carry the real source. */
static enum src beyond_l1(sim_thread *t, Addr a, line_ent *e, const verdict *v, const access_ctx *x)
{
	UWord victim = EMPTY;
	Bool hit, l2_miss = False, llc_miss = False, hitm = False;
	enum src s;

	if (t->l2.tags) {
		hit = cache_ref(&t->l2, a >> t->l2.line_bits, 0, &victim);
		if (t->l2.dir)
			*mru_dir(&t->l2, a >> t->l2.line_bits) = e;
		write_back(t, &t->l2, victim);
		if (hit && !v->stale) {
			s = SRC_L2;
			goto counted;
		}
		l2_miss = True;
	}
	if (llc.tags) {
		hit = cache_ref(&llc, a >> llc.line_bits, 0, &victim);
		if (l2_is_llc && !hit && !v->stale)
			l2_miss = True;
		if (v->hitm) {
			hitm = True;
			s = SRC_HITM;
		} else if (v->stale) {
			s = SRC_SHARED;
		} else if (hit) {
			s = SRC_LLC;
		} else {
			llc_miss = True;
			s = SRC_RAM;
		}
	} else if (v->stale) {
		hitm = v->hitm;
		s = v->hitm ? SRC_HITM : SRC_SHARED;
	} else {
		llc_miss = True;
		s = SRC_RAM;
	}
counted:
	count(SIM_EV_L1D_MISS, 1, s, x);
	if (l2_miss)
		count(SIM_EV_L2_MISS, 1, s, x);
	if (hitm)
		count(SIM_EV_HITM, 1, s, x);
	if (llc_miss)
		count(SIM_EV_LLC_MISS, 1, s, x);
	return s;
}

/* One line's worth of an access; returns where it was served from. */
static enum src access_line(sim_thread *t, Addr a, access_ctx *x)
{
	UWord line = a >> l1_bits, victim = EMPTY;
	verdict v = {False, False, 0};
	Bool hit = cache_ref(&t->l1, line, x->write, &victim);
	line_ent *e = NULL;
	enum src s = SRC_L1;

	x->addr = a;
	if (coherent) {
		/* a line's ways remember its entry while the line stays */
		line_ent **mru = mru_dir(&t->l1, line);
		if (!*mru)
			*mru = entry_of(t, line);
		e = *mru;
		v = coherence(t, e, x);
	}
	if (!hit)
		write_back(t, &t->l1, victim);
	if (!hit && t->l1.use) {
		line_use *u = t->l1.use + (set_of(&t->l1, line) - t->l1.tags);
		if (victim != EMPTY)
			evicted(t, &t->l1.gone);
		u->pc = x->pc;
		u->addr = a;
	}
	if (!hit || v.stale)
		s = beyond_l1(t, a, e, &v, x);
	if (v.inval)
		count(SIM_EV_INVAL, v.inval, s, x);
	return s;
}

/* Translate a's page: the DTLB, else the STLB, else a walk; the page
 * becomes the most recent in both. */
static enum tlb translate(sim_thread *t, Addr a)
{
	UWord page = a >> TLB_PAGE_BITS, victim;
	if (cache_ref(&t->dtlb, page, 0, &victim))
		return TLB_L1;
	return cache_ref(&t->stlb, page, 0, &victim) ? TLB_L2 : TLB_WALK;
}

/* The slow path of an access: straddling, missing, or coherent. */
static void access_slow(sim_thread *t, Addr a, UInt size, Addr pc, Bool write, Bool modify)
{
	access_ctx x = {t->vgtid, t->lwp, t->clock, pc, a, write, translate(t, a)};
	Addr line = a >> l1_bits << l1_bits, last = (a + (size ? size : 1) - 1) >> l1_bits << l1_bits;
	enum src s = access_line(t, a, &x), s2;

	if (t->l1.use)
		mark_used(&t->l1, a, size);
	/* the other lines are sampled at their first byte */
	while (line != last) {
		line += (Addr)1 << l1_bits;
		s2 = access_line(t, line, &x);
		if (s2 > s)
			s = s2;
		if (t->l1.use)
			mark_used(&t->l1, line, (UInt)(a + size - line));
	}
	x.addr = a;
	if (!write || modify) {
		count(SIM_EV_LOADS, 1, s, &x);
		count(SIM_EV_MEM_CYCLES, weight(s), s, &x);
	}
	if (write)
		count(SIM_EV_STORES, 1, s, &x);
}

/* The fast path: one line, MRU in L1, single-threaded.  use: mark the
 * bytes used (sim:L1D_EVICT), a constant of each helper. */
static inline void access(Addr a, UWord pc_size, Bool write, Bool modify, Bool use)
{
	sim_thread *t = cur;
	UInt size = (UInt)(pc_size & 0xffff);
	UWord line = a >> l1_bits;

	t->clock++;
	accesses++;
	if (LIKELY(!coherent && line == (a + size - 1) >> l1_bits)) {
		UWord *tag = set_of(&t->l1, line), *page = set_of(&t->dtlb, a >> TLB_PAGE_BITS);
		/* the line last used in its set, of the page last used in its
		 * DTLB set: nothing moves */
		if (LIKELY((*tag >> 1) == line && (*page >> 1) == a >> TLB_PAGE_BITS)) {
			*tag |= write;
			if (use)
				mark_used(&t->l1, a, size);
			if (LIKELY(total[SIM_EV_LOADS] + 1 < next_sample[SIM_EV_LOADS] &&
				   total[SIM_EV_STORES] + 1 < next_sample[SIM_EV_STORES] &&
				   total[SIM_EV_MEM_CYCLES] + cfg.lat[SIM_LAT_L1] < next_sample[SIM_EV_MEM_CYCLES])) {
				total[SIM_EV_LOADS] += !write || modify;
				total[SIM_EV_STORES] += write;
				total[SIM_EV_MEM_CYCLES] += (!write || modify) * cfg.lat[SIM_LAT_L1];
				return;
			}
		}
	}
	access_slow(t, a, size, pc_size >> 16, write, modify);
}

static VG_REGPARM(2) void sim_load(Addr addr, UWord pc_size)
{
	access(addr, pc_size, False, False, False);
}

static VG_REGPARM(2) void sim_store(Addr addr, UWord pc_size)
{
	access(addr, pc_size, True, False, False);
}

static VG_REGPARM(2) void sim_modify(Addr addr, UWord pc_size)
{
	access(addr, pc_size, True, True, False);
}

static VG_REGPARM(2) void sim_load_use(Addr addr, UWord pc_size)
{
	access(addr, pc_size, False, False, True);
}

static VG_REGPARM(2) void sim_store_use(Addr addr, UWord pc_size)
{
	access(addr, pc_size, True, False, True);
}

static VG_REGPARM(2) void sim_modify_use(Addr addr, UWord pc_size)
{
	access(addr, pc_size, True, True, True);
}

const sim_helper *sim_model_helper(enum sim_access kind)
{
	static const sim_helper plain[SIM_NACCESS] = {
		{"sim_load", (void *)sim_load}, {"sim_store", (void *)sim_store}, {"sim_modify", (void *)sim_modify}};
	static const sim_helper use[SIM_NACCESS] = {{"sim_load_use", (void *)sim_load_use},
						    {"sim_store_use", (void *)sim_store_use},
						    {"sim_modify_use", (void *)sim_modify_use}};
	return track_use ? &use[kind] : &plain[kind];
}

/* ---- threads and the process ---- */

void sim_model_init(const sim_config *c, Int process)
{
	cfg = *c;
	pid = process;
	l1_bits = (UInt)VG_(log2)(cfg.l1.line);
	if (cfg.llc.size)
		cache_init(&llc, &cfg.llc);
	/* without a third level, the L2 is the shared last level */
	l2_is_llc = cfg.l2.size && !cfg.llc.size;
	if (l2_is_llc)
		cache_init(&llc, &cfg.l2);
	track_use = cfg.period[SIM_EV_L1D_EVICT] != 0;
	use_unit_bits = l1_bits > 6 ? l1_bits - 6 : 0;
	for (UInt ev = 0; ev < SIM_NEVENTS; ev++)
		if (cfg.period[ev]) {
			draws[ev] = 0x9E3779B97F4A7C15ull * (ev + 1);
			next_sample[ev] = draw_place(ev) + 1;
			window_end[ev] = cfg.period[ev];
		} else {
			next_sample[ev] = ~0ull;
		}
}

/* The private caches' ways start remembering their lines' directory
 * entries: the L1's, and the L2's when it has the L1's lines (the
 * coherence unit). */
static void track_lines(sim_thread *t)
{
	t->l1.dir = VG_(calloc)("sim.dir.ways", t->l1.sets * t->l1.ways, sizeof(line_ent *));
	if (t->l2.tags && t->l2.line_bits == t->l1.line_bits)
		t->l2.dir = VG_(calloc)("sim.dir.ways", t->l2.sets * t->l2.ways, sizeof(line_ent *));
}

static void untrack_lines(cache *c)
{
	if (c->dir)
		VG_(free)(c->dir);
	c->dir = NULL;
}

sim_thread *sim_thread_new(ThreadId vgtid, Int lwp, ULong clock)
{
	sim_thread *t = VG_(calloc)("sim.thread", 1, sizeof *t);

	t->vgtid = vgtid;
	t->lwp = lwp;
	t->serial = next_serial++;
	t->clock = clock;
	cache_init(&t->l1, &cfg.l1);
	if (track_use)
		t->l1.use = VG_(calloc)("sim.use", t->l1.sets * t->l1.ways, sizeof(line_use));
	cache_init(&t->dtlb, &dtlb_geom);
	cache_init(&t->stlb, &stlb_geom);
	if (cfg.l2.size && !l2_is_llc)
		cache_init(&t->l2, &cfg.l2);
	if (coherent)
		track_lines(t);
	return t;
}

void sim_thread_end(sim_thread *t)
{
	for (UWord i = 0; t->l1.use && i < t->l1.sets * t->l1.ways; i++)
		if (t->l1.tags[i] != EMPTY)
			evicted(t, &t->l1.use[i]);
}

void sim_thread_free(sim_thread *t)
{
	if (cur == t)
		cur = NULL;
	cache_free(&t->l1);
	cache_free(&t->dtlb);
	cache_free(&t->stlb);
	if (t->l2.tags)
		cache_free(&t->l2);
	VG_(free)(t);
}

void sim_set_current(sim_thread *t) { cur = t; }
sim_thread *sim_current(void) { return cur; }
ULong sim_thread_clock(const sim_thread *t) { return t->clock; }
Int sim_thread_lwp(const sim_thread *t) { return t->lwp; }

void sim_thread_set_clock(sim_thread *t, ULong clock)
{
	t->clock = clock;
}

void sim_enable_coherence(sim_thread **threads, UInt n)
{
	if (coherent)
		return;
	coherent = True;
	dir_grow();
	for (UInt i = 0; i < n; i++)
		if (threads[i])
			track_lines(threads[i]);
}

void sim_model_after_fork(sim_thread *survivor, Int child_pid)
{
	pid = child_pid;
	accesses = 0;
	for (UInt ev = 0; ev < SIM_NEVENTS; ev++) {
		next_sample[ev] -= total[ev];
		window_end[ev] -= total[ev];
		total[ev] = 0;
	}
	/* the child has one thread: no coherence until it makes another;
	 * the parent's directory stays behind, untouched (copy-on-write) */
	coherent = False;
	buckets = NULL;
	nbuckets = nlines = 0;
	chunk = NULL;
	untrack_lines(&survivor->l1);
	untrack_lines(&survivor->l2);
	survivor->lwp = child_pid;
}

void sim_model_stats(struct sim_rec_stats *s)
{
	s->accesses = accesses;
	for (UInt ev = 0; ev < SIM_NEVENTS; ev++)
		s->count[ev] = total[ev];
}
