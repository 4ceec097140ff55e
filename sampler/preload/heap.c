/*
 * The heap tracker: a library `dsprof record --heap` preloads into the
 * target (LD_PRELOAD), which records every allocation and free of the
 * process into DIR/heap/PID-START.heap, a file dsprof record makes and
 * sends it (heapask.h: $DSPROF_HEAP names the socket to ask at).
 * experiment/heapfile.h is the format; docs/experiment-format.md tells it.
 *
 * It interposes the malloc family (malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign, valloc, pvalloc, reallocarray;
 * C++'s new and delete call them) and anonymous mmap, munmap and mremap of
 * mappings of at least $DSPROF_HEAP_MMAP_MIN bytes (64 KiB), calls the
 * real ones, and writes a record of each.
 *
 * What it must survive, and how:
 *   - threads: each writes its records into a buffer of its own, the
 *     size of a chunk of the file, and writes the buffer into the next
 *     free chunk (taken with one atomic addition; one pwrite) when it is
 *     full and when the thread ends; nothing is locked on the way.
 *   - a process that exits, execs or calls _exit: every thread's buffer
 *     is written first, after an exit record, or an end record that says
 *     the image's records are all there.  A process killed loses what
 *     its buffers held, a chunk a thread at most: the report says that a
 *     process ended without a last record.  SIGINT, SIGTERM and SIGHUP,
 *     where the program leaves them to end it, write them first.
 *   - fork: the child gets a file of its own (and forgets the parent's
 *     chunk and call stacks); an exec'd program loads the library again
 *     and gets its own.  A process that changed its user gets its file
 *     as the first did: dsprof record makes every one (heapask.h).
 *   - a program that closes every descriptor, or puts its own at numbers
 *     it picks: the tracker's descriptors are the guard's (fdguard.h),
 *     and before each chunk is written the file's is checked to be the
 *     file still; one the program took by a system call the guard does
 *     not see is asked for again, and never written through.
 *   - an allocation while the thread is already in the tracker (a signal
 *     handler's, the unwinder's own) is recorded without its stack, into
 *     a second chunk of the thread, never into the record being written.
 *   - dlsym, which finds the real functions, calls calloc: those calls
 *     before the real functions are known are served from a static arena.
 *   - before main and after it: the tracker starts on the first call,
 *     whenever that is, and marks the exit last (an exit record: blocks
 *     live then leaked; a process killed or exec'd has none).
 *
 * A call stack is the unwinder's (libunwind's unw_backtrace, from the
 * compiler's unwind tables: complete for code without frame pointers; it
 * caches what it learns of each return address, which makes it five
 * times faster than glibc's backtrace() on SQLite's stacks), written once
 * per distinct stack as a site record; an allocation names its site.
 * Unwinding is most of the tracker's cost, so where the frame pointers
 * give the same stack (code built with them) they are walked instead: the
 * first allocation called from an instruction checks that every frame
 * they give is the unwinder's (the chain ends at the first function
 * without one, often libc's start of main: those frames are left out), at
 * least two of them, and about one in 64 of each thread's after it
 * checks again; a wrong frame sends the calls from there to the unwinder
 * for good.  Where they do not (code built without them, as distributions
 * build it), the tracker's own walk of the call-frame information
 * (walk.h), which keeps the rule of each return address it meets, is
 * checked the same way and taken where it gives every frame the unwinder
 * gives: on LevelDB's db_bench it takes 0.2 s of stacks where the
 * unwinder took 0.34.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "experiment/heapfile.h"
#include "sampler/preload/fdguard.h"
#include "sampler/preload/heapask.h"
#include "sampler/preload/walk.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- the real functions ---- */

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
} real;

/* dlsym's own allocations, before real.calloc is known: never freed. */
static char boot[1 << 16] __attribute__((aligned(64)));
static atomic_size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t at = atomic_fetch_add(&boot_used, (n + 63) & ~(size_t)63);
	return at + n <= sizeof boot ? boot + at : NULL;
}

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof boot;
}

/* ---- the process's state ---- */

/* The tracker records once it is ON; until then, and when it cannot
 * (OFF: no $DSPROF_HEAP, no file), the functions only pass calls on. */
enum { OFF, ON };
static atomic_int state = OFF;
static atomic_int started;          /* 1 once a thread began to find the real functions */
static atomic_int resolved;         /* 1 once they are known */
static pthread_t starter;
static ds_fdslot file;              /* the image's heap file */
static struct ds_heap_header image; /* its header: start_ns names it to ask for it again */
static void *header_page;           /* the file's header page, mapped: it outlasts the descriptor */
static pid_t image_pid;             /* getpid() of its process (a vfork child's differs) */
static atomic_int regaining;        /* 1 while a thread asks for the file again */
static atomic_uint_fast64_t next_chunk; /* the file offset of the next free chunk */
static unsigned max_frames = 16;
static size_t mmap_min = 65536;
static pthread_key_t thread_key;

/* Call stacks seen, by a hash of their frames: the id of their site. */
#define SITES (1u << 20)
typedef struct site_slot {
	atomic_uint_fast64_t hash;
	atomic_uint id;
} site_slot;
static site_slot *sites;
static atomic_uint last_site;

/* Each thread's buffers: where its records go, and where those it makes
 * while it is busy writing one (a signal handler's) go.  The process's
 * buffers are on a list, to be written all at once before it exits. */
typedef struct chunk {
	char *p;                    /* DS_HEAP_CHUNK bytes */
	_Atomic uint32_t fill;      /* bytes of whole records, from its base on */
	uint64_t first;             /* the stamp of its base: its first event's */
	uint64_t pair_stamp, pair_ns; /* the clock, read when it got its base (stamps are ticks) */
	struct ds_heap_tally tally;  /* of its records */
	struct chunk *next, **prev; /* on the list once p is */
} chunk;
static TLS chunk own, nested;
static chunk *buffers;
static pthread_mutex_t buffers_lock = PTHREAD_MUTEX_INITIALIZER;
static char spare[DS_HEAP_CHUNK];   /* a chunk to write from, under buffers_lock */
static chunk late = {.p = spare};   /* a record of a thread past its end, under buffers_lock */
static TLS int busy;
/* Added to busy while the tracker calls code that may allocate for it
 * (the unwinder's caches, the C library's reading of /proc for a stack's
 * bounds): what that code allocates and frees is the tracker's, not the
 * program's, and is not recorded (nor, then, a signal handler's that
 * interrupted it). */
#define OWN_CALL (1 << 16)
static TLS int ended;               /* the thread's buffers were written at its end */
static TLS pid_t tid;
static TLS uintptr_t stack_hi;      /* the top of this thread's stack; 0 not known yet */

/* Per return address into an allocation's caller: whether its stacks can
 * be walked by frame pointers, or else by the call-frame information
 * (walk.h).  Direct-mapped; a slot's return address and verdicts are one
 * word, so that a thread never takes another address's verdicts for its
 * own (a racing update costs a check more). */
#define WAY_SLOTS 4096
enum { WAY_UNKNOWN, WAY_GOOD, WAY_BAD };
typedef struct way {
	uintptr_t ra;       /* below 2^48: what a slot can hold */
	unsigned fp, walk;  /* WAY_*: frame pointers; walk: only where they are bad */
	unsigned depth;     /* fp good: the frames the frame pointers give right */
} way;
typedef struct way_slot {
	_Atomic uint64_t v; /* ra | fp << 48 | walk << 50 | depth << 52 */
} way_slot;
static way_slot ways[WAY_SLOTS];

/* Each thread's count of its calls from the return addresses of a slot
 * (the ways' slots folded in 256), whose every 64th is the unwinder's.
 * Per thread: a count in the slot, shared by the threads, was written by
 * every allocation, which moved the slot's cache line between the cores
 * of threads allocating from one place. */
static TLS uint8_t calls[256];

static way way_of(way_slot *c)
{
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	return (way){v & ((1ull << 48) - 1), (v >> 48) & 3, (v >> 50) & 3, (unsigned)(v >> 52)};
}

static void way_set(way_slot *c, way w)
{
	atomic_store_explicit(&c->v, (uint64_t)w.ra | (uint64_t)w.fp << 48 | (uint64_t)w.walk << 50 |
				     (uint64_t)w.depth << 52, memory_order_relaxed);
}

/* Each thread's rules of the call-frame walk, and the code's generation
 * they were read from: dlclose makes a new one (a library loaded where
 * another was has other rules). */
static TLS ds_walk_cache *walk_rules;
static TLS unsigned walk_gen;
static atomic_uint code_gen;

/* The vDSO's clock_gettime, called straight: a sample in it then has the
 * tracker as its caller, where the C library's wrapper, which keeps no
 * frame, would hide who called it (the analysis tells the tracker's own
 * samples by their call chains).  NULL: the C library's. */
static int (*vdso_clock)(clockid_t, struct timespec *);

static uint64_t now_ns(void)
{
	struct timespec ts;
	if (!vdso_clock || vdso_clock(CLOCK_MONOTONIC, &ts) != 0)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An event's time, its stamp.  Where the kernel keeps time by the TSC (its
 * clocksource is "tsc": the counter is constant and in step on every CPU;
 * dsprof record says so with the file, so that the tracker opens no file
 * of its own),
 * a stamp is the counter (rdtsc: 9 ns on this project's test machines,
 * where clock_gettime takes 21; one per event),
 * turned into CLOCK_MONOTONIC's ns when its buffer is written: linearly,
 * from the clock read with the counter when the buffer got its base, at
 * the rate between then and the writing (over at least a million ticks;
 * the process's rate since it started over fewer).  Elsewhere a stamp is
 * clock_gettime's ns. */
static int tsc;
static uint64_t start_stamp, start_ns;

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

static inline uint64_t stamp(void)
{
	return tsc ? ticks() : now_ns();
}

static pid_t thread_id(void)
{
	if (!tid)
		tid = (pid_t)syscall(SYS_gettid);
	return tid;
}

/* ---- chunks ---- */

/* Set flags f (DS_HEAP_F_*) in the file's header, through its mapping,
 * which the program cannot take as it can the descriptor. */
static void mark(uint32_t f)
{
	if (header_page)
		__atomic_fetch_or((uint32_t *)((char *)header_page + offsetof(struct ds_heap_header, flags)), f,
				  __ATOMIC_RELAXED);
}

/* The file again, once the program took its descriptor: dsprof record
 * opens it anew (one thread asks; the others, finding it gone at the same
 * time, wait for that).  Whether there is a file to write; when not, the
 * tracker stops: what it would record is lost, and the file's header and
 * its missing end record say so. */
static int regain(void)
{
	for (uint64_t until = now_ns() + 5000000000u; now_ns() < until;) {
		int none = 0;
		if (atomic_load(&file.fd) > 0)
			return 1;
		if (atomic_load(&state) != ON)
			return 0;
		if (atomic_compare_exchange_strong(&regaining, &none, 1)) {
			struct ds_heap_answer a;
			int ok = atomic_load(&file.fd) > 0;
			if (!ok) {
				mark(DS_HEAP_F_TAKEN);
				ok = ds_heap_ask(&file, DS_HEAP_ASK_AGAIN, &image, &a) == 0;
			}
			if (!ok) {
				mark(DS_HEAP_F_LOST);
				atomic_store(&state, OFF);
			}
			atomic_store(&regaining, 0);
			return ok;
		}
		/* another thread asks; or this one, which a signal interrupted */
		nanosleep(&(struct timespec){0, 100000}, NULL);
	}
	return 0;
}

/* Write n bytes of records (p) into the next free chunk of the file, the
 * rest of the chunk zeros but for its tally t: one pwrite, through the
 * file's descriptor checked to be the file still. */
static void chunk_write(char *p, uint32_t n, const struct ds_heap_tally *t)
{
	uint64_t off;
	int fd;

	memset(p + n, 0, DS_HEAP_CHUNK - n);
	memcpy(p + DS_HEAP_TALLY_AT, t, sizeof *t);
	for (int again = 0; (fd = ds_fdguard_use(&file)) < 0; again++)
		if (again == 3 || !atomic_load(&file.taken) || !regain())
			return;
	off = atomic_fetch_add(&next_chunk, DS_HEAP_CHUNK);
	for (size_t done = 0; done < DS_HEAP_CHUNK;) {
		ssize_t w = pwrite(fd, p + done, DS_HEAP_CHUNK - done, (off_t)(off + done));
		if (w <= 0 && errno != EINTR)
			break; /* a full disk: record lost, read back as a cut file */
		done += w > 0 ? (size_t)w : 0;
	}
	ds_fdguard_done(&file);
	ds_fdguard_pins_check(); /* libunwind's pipe (stack_of) */
}

/* The rate of ns to ticks, times 2^32, from c's base on. */
static uint64_t rate_of(const chunk *c, uint64_t s1, uint64_t n1)
{
	uint64_t span = s1 - c->pair_stamp;
	uint64_t from = c->pair_ns;
	if (span < 1u << 20) { /* too few ticks to tell: the process's rate */
		span = s1 - start_stamp;
		from = start_ns;
		if ((int64_t)span <= 0)
			return 1ull << 32;
	}
	return (uint64_t)(((unsigned __int128)(n1 - from) << 32) / span);
}

/* ns of stamp t, in c from its base on, at the rate mult. */
static uint64_t ns_of(const chunk *c, uint64_t t, uint64_t mult)
{
	int64_t d = (int64_t)(t - c->pair_stamp);
	__int128 ns = (__int128)d * (__int128)mult;
	return c->pair_ns + (uint64_t)(int64_t)(ns >> 32);
}

/* ns of a stamp t taken a moment ago (a whole record's time). */
static uint64_t ns_at(uint64_t t)
{
	uint64_t s1 = ticks(), n1 = now_ns(), span = s1 - start_stamp, mult = 1ull << 32;
	if ((int64_t)span > 0)
		mult = (uint64_t)(((unsigned __int128)(n1 - start_ns) << 32) / span);
	return n1 - (uint64_t)((unsigned __int128)(s1 - t) * mult >> 32);
}

/* p holds records of c's (c's buffer, or a copy of it), going into the
 * file: its base gets the time of its stamp and the rate of its short
 * records' times, in ns. */
static void seal(char *p, const chunk *c)
{
	struct ds_heap_base b;
	uint64_t s1, n1;

	if (!tsc)
		return;
	s1 = ticks();
	n1 = now_ns();
	memcpy(&b, p, sizeof b);
	b.mult = rate_of(c, s1, n1);
	b.time = ns_of(c, c->first, b.mult);
	memcpy(p, &b, sizeof b);
}

static void chunk_flush(chunk *c)
{
	uint32_t n = atomic_load_explicit(&c->fill, memory_order_acquire);
	if (c->p && n) {
		seal(c->p, c);
		chunk_write(c->p, n, &c->tally);
		atomic_store_explicit(&c->fill, 0, memory_order_release);
	}
}

/* The buffer of a thread's first record. */
static int chunk_init(chunk *c)
{
	void *p = real.mmap(NULL, DS_HEAP_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	c->p = p;
	pthread_mutex_lock(&buffers_lock);
	c->next = buffers;
	c->prev = &buffers;
	if (buffers)
		buffers->prev = &c->next;
	buffers = c;
	pthread_mutex_unlock(&buffers_lock);
	/* written when the thread ends, whichever of its buffers came first:
	 * a chunk left on the list past its thread's end would come back
	 * when a new thread gets the same thread-local storage, listed twice */
	pthread_setspecific(thread_key, &own);
	return 1;
}

static void chunk_end(chunk *c)
{
	if (!c->p)
		return;
	chunk_flush(c);
	pthread_mutex_lock(&buffers_lock);
	*c->prev = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&buffers_lock);
	real.munmap(c->p, DS_HEAP_CHUNK);
	c->p = NULL;
}

/* A new chunk's room, from a first record at stamp t in buffer c on: its
 * base written (the buffer made first, or its last chunk written out).
 * NULL: no buffer. */
__attribute__((noinline)) static char *room_anew(chunk *c, uint64_t t)
{
	struct ds_heap_base b = {DS_HEAP_BASE, sizeof b, 0, t, 1ull << 32};

	if (!c->p && !chunk_init(c))
		return NULL;
	chunk_flush(c); /* a full or old chunk's records; none in a new one */
	b.tid = (uint32_t)thread_id();
	c->first = t;
	if (tsc)
		c->pair_stamp = ticks(), c->pair_ns = now_ns();
	c->tally = (struct ds_heap_tally){DS_HEAP_TALLY, DS_HEAP_TALLY_SIZE, 0, 0, 0};
	memcpy(c->p, &b, sizeof b);
	atomic_store_explicit(&c->fill, sizeof b, memory_order_release);
	return c->p + sizeof b;
}

/* Room for a record of size bytes (a multiple of 8) of an event at stamp
 * t in buffer c of this thread: where it goes, after the buffer's base,
 * which a short record's time is from (less than 2^31 ticks or ns: a
 * buffer that began longer ago is written first).  NULL: no buffer.  The
 * record is written there, then kept by keep().  Inlined, but for a new
 * chunk's: it is on the path of every event. */
static inline __attribute__((always_inline)) char *room(chunk *c, uint32_t size, uint64_t t)
{
	uint32_t n = atomic_load_explicit(&c->fill, memory_order_relaxed);

	if (__builtin_expect(!n || n + size > DS_HEAP_TALLY_AT || t - c->first >= 1u << 31, 0))
		return room_anew(c, t);
	return c->p + n;
}

/* The record of a type just written into c's room, kept: counted
 * into its chunk's tally (as it fills: reading the chunk back took 3 ns a
 * record), then handed to a reader. */
static void keep(chunk *c, uint32_t size, unsigned type)
{
	uint32_t n = atomic_load_explicit(&c->fill, memory_order_relaxed);

	ds_heap_tally_add(&c->tally, type);
	atomic_store_explicit(&c->fill, n + size, memory_order_release);
}

/* Append a record to a buffer of this thread.  After its end (the frees of
 * thread-local destructors that ran after ours), a record is written on
 * its own: no buffer is listed again (and a signal handler's record made
 * meanwhile is lost: the lock may be held by the record it interrupted). */
static void put(chunk *c, const void *rec, uint32_t size, uint64_t t)
{
	char *at;
	if (ended) {
		if (busy > 1)
			return;
		pthread_mutex_lock(&buffers_lock);
		if ((at = room(&late, size, t))) {
			memcpy(at, rec, size);
			keep(&late, size, *(const uint16_t *)rec);
			chunk_flush(&late);
		}
		pthread_mutex_unlock(&buffers_lock);
		return;
	}
	if ((at = room(c, size, t))) {
		memcpy(at, rec, size);
		keep(c, size, *(const uint16_t *)rec);
	}
}

static void thread_end(void *arg)
{
	(void)arg;
	chunk_end(&own);
	chunk_end(&nested);
	if (walk_rules)
		real.munmap(walk_rules, sizeof *walk_rules);
	walk_rules = NULL;
	ended = 1;
}

/* Before the process's image ends (exit, exec, _exit): every thread's
 * buffer into the file.  Other threads' are copied (they may still be
 * running: a record they are writing is left out). */
static void flush_all(void)
{
	pthread_mutex_lock(&buffers_lock);
	for (chunk *c = buffers; c; c = c->next) {
		uint32_t n;
		if (c == &own || c == &nested) {
			chunk_flush(c);
			continue;
		}
		n = atomic_exchange_explicit(&c->fill, 0, memory_order_acq_rel);
		if (n && n <= DS_HEAP_TALLY_AT) {
			struct ds_heap_tally t;
			memcpy(spare, c->p, n);
			seal(spare, c);
			t = ds_heap_tally_of((const unsigned char *)spare, n);
			chunk_write(spare, n, &t);
		}
	}
	pthread_mutex_unlock(&buffers_lock);
}

/* ---- sites ---- */

/* A stack's hash, which stands for the stack (the table keeps no frames).
 * Each frame is mixed with its depth on its own and the results summed,
 * so that the frames' multiplications overlap: a chain through them all
 * (FNV's) took a fifth of the tracker's time of its own on LevelDB's
 * 16-frame stacks. */
static uint64_t hash_frames(void *const *f, int n)
{
	uint64_t h = (uint64_t)n;
	for (int i = 0; i < n; i++) {
		uint64_t x = ((uint64_t)(uintptr_t)f[i] + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
		h += x ^ (x >> 32);
	}
	h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
	return (h ^ (h >> 33)) | 1; /* 0 is an empty slot */
}

/* The site of frames f[0..n); a new one's record is written first.  0
 * when the table is full. */
static uint32_t site_of(void *const *f, int n, uint64_t t)
{
	uint64_t h = hash_frames(f, n);
	for (uint32_t k = 0; k < 64; k++) {
		site_slot *s = &sites[(h + k) & (SITES - 1)];
		uint64_t seen = atomic_load_explicit(&s->hash, memory_order_acquire), empty = 0;
		unsigned id;
		if (seen == 0 && atomic_compare_exchange_strong(&s->hash, &empty, h)) {
			struct {
				struct ds_heap_site head;
				uint64_t frames[DS_HEAP_MAX_FRAMES];
			} rec;
			id = atomic_fetch_add(&last_site, 1) + 1;
			rec.head.type = DS_HEAP_SITE;
			rec.head.size = (uint16_t)(8 + 8 * n);
			rec.head.site = id;
			for (int i = 0; i < n; i++)
				rec.frames[i] = (uint64_t)(uintptr_t)f[i];
			put(&own, &rec, rec.head.size, t);
			atomic_store_explicit(&s->id, id, memory_order_release);
			return id;
		}
		if (seen == 0)
			seen = atomic_load(&s->hash);
		if (seen != h)
			continue;
		/* another thread is writing its record: its id comes at once */
		while (!(id = atomic_load_explicit(&s->id, memory_order_acquire)))
			;
		return id;
	}
	return 0;
}

/* ---- records ---- */

/* An event at stamp t in a record of its own: one a short record does
 * not hold, or any after the thread's end. */
__attribute__((noinline)) static void event_whole(chunk *c, int type, int fn, uint64_t a, size_t bytes,
						  uint32_t site, uint64_t t)
{
	struct ds_heap_event e;

	memset(&e, 0, sizeof e);
	e.type = (uint16_t)type;
	e.size = sizeof e;
	e.fn = (uint8_t)fn;
	e.tid = (uint32_t)thread_id();
	e.site = site;
	e.time = tsc ? ns_at(t) : t;
	e.addr = a;
	e.bytes = bytes;
	put(c, &e, sizeof e, t);
}

/* An event at stamp t: short where a short record holds it (inlined: the
 * path of every event). */
static inline __attribute__((always_inline)) void event(int type, int fn, const void *p, size_t bytes,
							 uint32_t site, uint64_t t)
{
	chunk *c = busy > 1 ? &nested : &own;
	uint64_t a = (uint64_t)(uintptr_t)p;
	char *at;

	if (__builtin_expect(ended || type == DS_HEAP_EXIT || type == DS_HEAP_ENDS || a >> DS_HEAP_ADDR_BITS ||
				     (uint64_t)bytes >> 32 || (type == DS_HEAP_FREE && bytes),
			     0)) {
		event_whole(c, type, fn, a, bytes, site, t);
		return;
	}
	a |= (uint64_t)fn << DS_HEAP_ADDR_BITS;
	if (type == DS_HEAP_ALLOC) {
		struct ds_heap_salloc r = {DS_HEAP_SALLOC, sizeof r, 0, site, (uint32_t)bytes, a};
		if ((at = room(c, sizeof r, t))) {
			r.dtime = (uint32_t)(t - c->first);
			memcpy(at, &r, sizeof r);
			keep(c, sizeof r, DS_HEAP_SALLOC);
		}
	} else {
		struct ds_heap_sfree r = {DS_HEAP_SFREE, sizeof r, 0, a};
		if ((at = room(c, sizeof r, t))) {
			r.dtime = (uint32_t)(t - c->first);
			memcpy(at, &r, sizeof r);
			keep(c, sizeof r, DS_HEAP_SFREE);
		}
	}
}

/* The top of this thread's stack (once per thread: the main thread's
 * reads /proc, and may allocate: the caller is busy). */
static uintptr_t stack_top(void)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	if (stack_hi)
		return stack_hi;
	stack_hi = 1; /* none: frame pointers are not walked */
	busy += OWN_CALL;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &lo, &size) == 0)
			stack_hi = (uintptr_t)lo + size;
		pthread_attr_destroy(&a);
	}
	busy -= OWN_CALL;
	return stack_hi;
}

/* The return addresses of the frame-pointer chain from frame (the frame
 * pointer of the allocation function the caller called: its caller's
 * frame pointer, then ra, the return address into that caller, are below
 * it) up, while the chain stays on the stack and goes up it, max at most:
 * how many.  0 when frame does not hold ra.  Starting there rather than at
 * its own frame saves climbing through the tracker's: a third of the
 * walk's instructions. */
static int fp_walk(void **f, int max, const void *ra, void *const *frame)
{
	const uintptr_t *fp = (const uintptr_t *)frame;
	uintptr_t hi = stack_top();
	int n = 0;

	if (frame[1] != ra || hi <= 1)
		return 0;
	while (n < max) {
		const uintptr_t *up = (const uintptr_t *)fp[0];
		f[n++] = (void *)fp[1];
		if (up <= fp || (uintptr_t)up + 16 > hi || ((uintptr_t)up & 7))
			break;
		fp = up;
	}
	return n;
}

/* The tracker's own frames at the bottom of the unwinder's stack, below
 * the allocation's caller: as many as the last stack had, which is always
 * as many (every function calls the same path).  Asking the unwinder for
 * just these more than a site keeps, rather than for a margin, saves the
 * frames it would cut: about 5 ns each. */
static atomic_int own_frames;

/* The unwinder's stack from ra (the return address into the allocation's
 * caller) up, into f (DS_HEAP_MAX_FRAMES + 8 of them); how many frames.
 * 0 when the stack does not hold ra. */
static int unwound(void **f, const void *ra)
{
	int own = atomic_load_explicit(&own_frames, memory_order_relaxed), n, again;

	busy += OWN_CALL;
	ds_fdguard_own(1);
	n = unw_backtrace(f, own + (int)max_frames);
	again = n <= own || f[own] != ra;
	if (again)
		n = unw_backtrace(f, (int)max_frames + 8);
	ds_fdguard_own(-1);
	busy -= OWN_CALL;
	if (again) {
		for (own = 0; own < n && f[own] != ra; own++)
			;
		if (own == n)
			return 0;
		if (own <= 8)
			atomic_store_explicit(&own_frames, own, memory_order_relaxed);
	}
	n -= own;
	if (n > (int)max_frames)
		n = (int)max_frames;
	memmove(f, f + own, (size_t)n * sizeof *f);
	return n;
}

/* The stack by the call-frame information, from frame (the frame pointer
 * of the allocation function the caller called: its caller's frame
 * pointer, then the return address, are below it); -1: the unwinder's. */
static int cfa_walk(void **f, void *const *frame)
{
	uintptr_t hi = stack_top();
	unsigned gen = atomic_load_explicit(&code_gen, memory_order_relaxed);

	if (hi <= 1 || ended) /* past the thread's end: no rules kept again */
		return -1;
	if (!walk_rules || walk_gen != gen) {
		if (!walk_rules) {
			void *m = real.mmap(NULL, sizeof *walk_rules, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				return -1;
			walk_rules = m;
		} else {
			memset(walk_rules, 0, sizeof *walk_rules);
		}
		walk_gen = gen;
	}
	return ds_walk(walk_rules, (uintptr_t)frame[1], (uintptr_t)(frame + 2), (uintptr_t)frame[0], hi, f,
		       (int)max_frames);
}

/* The stack without the unwinder, once the program took the pipe it
 * writes through (fdguard.h): the call-frame walk's, else the frame
 * pointers', unchecked; ra alone when neither gives a frame. */
static int unchecked(void **f, const void *ra, void *const *frame, int walkable)
{
	int n = walkable ? cfa_walk(f, frame) : -1;

	if (n <= 0)
		n = fp_walk(f, (int)max_frames, ra, frame);
	if (n <= 0) {
		f[0] = (void *)ra;
		n = 1;
	}
	return n;
}

/* The call stack of an allocation whose caller returns to ra, from the
 * allocation function's frame (its frame pointer).  The first call from
 * an address, and one in 64 after it, is the unwinder's, and checks the
 * faster ways against it. */
static int stack_of(void **f, const void *ra, void *const *frame)
{
	way_slot *c = &ways[((uintptr_t)ra >> 2) % WAY_SLOTS];
	way w = way_of(c);
	void *g[DS_HEAP_MAX_FRAMES + 8];
	int n, m, walkable = frame[1] == ra && (uintptr_t)ra >> 48 == 0;

	if (w.ra == (uintptr_t)ra && (++calls[(size_t)(c - ways) % 256] & 63)) {
		if (w.fp == WAY_GOOD && fp_walk(f, (int)w.depth, ra, frame) == (int)w.depth)
			return (int)w.depth;
		if (w.walk == WAY_GOOD && walkable && (n = cfa_walk(f, frame)) > 0)
			return n;
	}
	if (ds_fdguard_pins_lost())
		return unchecked(f, ra, frame, walkable);
	n = unwound(f, ra);
	if (w.ra != (uintptr_t)ra)
		w = (way){(uintptr_t)ra, WAY_UNKNOWN, WAY_UNKNOWN, 0};
	if (w.fp != WAY_BAD) {
		int same = 0;
		m = fp_walk(g, (int)max_frames, ra, frame);
		while (same < n && same < m && f[same] == g[same])
			same++;
		w.fp = same == m && (same >= 2 || same == n) ? WAY_GOOD : WAY_BAD;
		w.depth = (unsigned)same;
	}
	/* where frame pointers are bad: the call-frame walk, if it gives
	 * every frame the unwinder gives */
	if (w.fp == WAY_BAD && w.walk != WAY_BAD) {
		m = walkable ? cfa_walk(g, frame) : -1;
		w.walk = n && m == n && !memcmp(f, g, (size_t)n * sizeof *f) ? WAY_GOOD : WAY_BAD;
	}
	if (w.ra >> 48 == 0)
		way_set(c, w);
	/* One site per stack: the fast path stops where the chain was
	 * checked, so the unwinder's stack stops there too. */
	if (w.fp == WAY_GOOD && n > (int)w.depth)
		n = (int)w.depth;
	if (!n) { /* the unwinder missed the caller: ra alone */
		f[0] = (void *)ra;
		n = 1;
	}
	return n;
}

/* A block began: its site is the stack from the caller of the allocation
 * function (ra, the return address into it) down. */
static void allocated(int fn, const void *p, size_t n, void *ra, void *const *frame)
{
	void *f[DS_HEAP_MAX_FRAMES + 8];
	uint32_t site = 0;
	uint64_t t;

	if (atomic_load_explicit(&state, memory_order_acquire) != ON || !p || busy >= OWN_CALL)
		return;
	t = stamp();
	if (busy++ == 0)
		site = site_of(f, stack_of(f, ra, frame), t);
	event(DS_HEAP_ALLOC, fn, p, n, site, t);
	busy--;
}

/* A block ended, at time t: taken before the real function let another
 * thread have the memory, so that the end comes before its next start. */
static void freed(int fn, const void *p, size_t bytes, uint64_t t)
{
	if (atomic_load_explicit(&state, memory_order_acquire) != ON || !p || busy >= OWN_CALL)
		return;
	busy++;
	event(DS_HEAP_FREE, fn, p, bytes, 0, t);
	busy--;
}

/* ---- starting ---- */

static void *find(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* The image's file, from dsprof record (heapask.h), which writes its
 * header page: records go after it.  The answer's flags, or -1: no file. */
static int get_file(int forked)
{
	struct ds_heap_answer a;
	ssize_t n;
	int fd;

	memset(&image, 0, sizeof image);
	image.ppid = (uint32_t)getppid();
	image.flags = forked ? DS_HEAP_F_FORKED : 0;
	image.start_ns = now_ns();
	image.max_frames = max_frames;
	image.mmap_min = (uint32_t)mmap_min;
	n = readlink("/proc/self/exe", image.exe, sizeof image.exe - 1);
	image.exe[n > 0 ? n : 0] = 0;
	image_pid = getpid();
	/* a fork's child's copies of its parent's */
	ds_fdguard_drop(&file);
	if (header_page)
		real.munmap(header_page, DS_HEAP_HEADER);
	header_page = NULL;
	atomic_store(&next_chunk, DS_HEAP_HEADER);
	if (ds_heap_ask(&file, DS_HEAP_ASK_NEW, &image, &a))
		return -1;
	if ((fd = ds_fdguard_use(&file)) >= 0) {
		header_page = real.mmap(NULL, DS_HEAP_HEADER, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (header_page == MAP_FAILED)
			header_page = NULL;
		ds_fdguard_done(&file);
	}
	return (int)a.flags;
}

/* In a fork's child: a file of its own; the records in the parent's
 * buffers and its call stacks are not this process's. */
static void child(void)
{
	if (atomic_load(&state) != ON)
		return;
	/* this thread's buffers hold the parent's records, and the other
	 * threads are gone */
	atomic_store(&own.fill, 0);
	atomic_store(&nested.fill, 0);
	pthread_mutex_init(&buffers_lock, NULL);
	buffers = NULL;
	if (own.p) {
		own.next = buffers, own.prev = &buffers, buffers = &own;
		if (own.next)
			own.next->prev = &own.next;
	}
	if (nested.p) {
		nested.next = buffers, nested.prev = &buffers, buffers = &nested;
		if (nested.next)
			nested.next->prev = &nested.next;
	}
	tid = 0;
	madvise(sites, SITES * sizeof *sites, MADV_DONTNEED);
	atomic_store(&last_site, 0);
	ds_fdguard_forked();
	atomic_store(&regaining, 0);
	if (get_file(1) < 0)
		atomic_store(&state, OFF);
}

/* The image ends otherwise than by exit (how: enum ds_heap_end; sig: the
 * signal's number): an end record, which says its records are all in the
 * file, then every buffer.  A vfork's child, which runs on its parent's
 * memory until it execs, writes the parent's buffers but no end: the
 * parent's image goes on. */
static void image_ends(int how, int sig)
{
	if (atomic_load_explicit(&state, memory_order_acquire) != ON)
		return;
	if (getpid() == image_pid) {
		busy++;
		event(DS_HEAP_ENDS, how, NULL, (size_t)sig, 0, stamp());
		busy--;
	}
	flush_all();
}

/* A signal that ends the process by default (SIGINT of a Ctrl-C, SIGTERM,
 * SIGHUP): the buffers are written first, unless another thread is
 * writing them then, and the signal is delivered again as it would have
 * been.  Only where the program left the default: a program's own handler
 * ends it by exit, or not at all. */
static void terminated(int sig)
{
	int saved = errno;
	if (pthread_mutex_trylock(&buffers_lock) == 0) {
		pthread_mutex_unlock(&buffers_lock);
		image_ends(DS_HEAP_BY_SIGNAL, sig);
	}
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

static void on_termination(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = terminated;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static void start(void)
{
	const char *frames = getenv("DSPROF_HEAP_FRAMES"), *min = getenv("DSPROF_HEAP_MMAP_MIN");
	const char *clock = getenv("DSPROF_HEAP_CLOCK");
	void *warm[4], *vdso;
	int answer;

	real.calloc = find("calloc");
	real.malloc = find("malloc");
	real.realloc = find("realloc");
	real.free = find("free");
	real.posix_memalign = find("posix_memalign");
	real.aligned_alloc = find("aligned_alloc");
	real.memalign = find("memalign");
	real.valloc = find("valloc");
	real.pvalloc = find("pvalloc");
	real.reallocarray = find("reallocarray");
	real.mmap = find("mmap");
	real.munmap = find("munmap");
	real.mremap = find("mremap");
	if (!real.malloc || !real.calloc || !real.realloc || !real.free || !real.mmap || !real.munmap)
		return; /* nothing to pass calls on to */
	vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (vdso)
		vdso_clock = (int (*)(clockid_t, struct timespec *))dlsym(vdso, "__vdso_clock_gettime");
	start_stamp = ticks();
	start_ns = now_ns();
	atomic_store_explicit(&resolved, 1, memory_order_release);
	if (frames && atoi(frames) > 0)
		max_frames = (unsigned)atoi(frames) < DS_HEAP_MAX_FRAMES ? (unsigned)atoi(frames) : DS_HEAP_MAX_FRAMES;
	if (min && atol(min) > 0)
		mmap_min = (size_t)atol(min);
	sites = real.mmap(NULL, SITES * sizeof *sites, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sites == MAP_FAILED || pthread_key_create(&thread_key, thread_end) || (answer = get_file(0)) < 0)
		return;
	tsc = (answer & DS_HEAP_ANSWER_TSC) && !(clock && strcmp(clock, "ns") == 0);
	pthread_atfork(NULL, NULL, child);
	on_termination();
	/* the unwinder sets itself up on its first call, which may allocate
	 * and makes the pipe it keeps (the guard's: fdguard.h), and the main
	 * thread's stack bounds are read from /proc: both now, before the
	 * program runs, rather than after it closed its descriptors or while
	 * its threads open theirs */
	busy += OWN_CALL;
	ds_fdguard_own(1);
	unw_backtrace(warm, 4);
	ds_fdguard_own(-1);
	busy -= OWN_CALL;
	stack_top();
	atomic_store_explicit(&state, ON, memory_order_release);
}

/* Whether the real functions are known.  The first call finds them; the
 * thread finding them gets 0 meanwhile (dlsym calls calloc), the others
 * wait for it. */
static int ready(void)
{
	int zero = 0;
	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return 1;
	if (atomic_compare_exchange_strong(&started, &zero, 1)) {
		starter = pthread_self();
		start();
		atomic_store(&started, 2);
	} else if (atomic_load(&started) == 1 && pthread_equal(pthread_self(), starter)) {
		return 0;
	}
	while (atomic_load(&started) == 1)
		;
	return atomic_load(&resolved);
}

__attribute__((constructor)) static void init(void)
{
	ready();
}

/* The process exits (exit(), main's return): what is live now leaked.  The
 * loader runs this after the program's destructors and atexit functions
 * (the library was loaded first), so that their frees are not leaks. */
__attribute__((destructor)) static void fini(void)
{
	if (atomic_load_explicit(&state, memory_order_acquire) != ON)
		return;
	busy++;
	event(DS_HEAP_EXIT, 0, NULL, 0, 0, stamp());
	busy--;
	atomic_store(&state, OFF);
	flush_all();
}

/* ---- the functions ---- */

/* the caller's return address, and this function's frame (built with
 * frame pointers: the caller's frame pointer and that address are below
 * it) */
#define RA __builtin_return_address(0), __builtin_frame_address(0)

EXPORT void *malloc(size_t n)
{
	void *p;
	if (!ready())
		return boot_alloc(n);
	p = real.malloc(n);
	allocated(DS_HEAP_MALLOC, p, n, RA);
	return p;
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;
	if (!ready() || !real.calloc) {
		if (size && n > SIZE_MAX / size)
			return NULL;
		return boot_alloc(n * size); /* static: zeroed */
	}
	p = real.calloc(n, size);
	allocated(DS_HEAP_CALLOC, p, n * size, RA);
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!ready())
		return;
	freed(DS_HEAP_FREE_FN, p, 0, stamp());
	real.free(p);
}

EXPORT void *realloc(void *old, size_t n)
{
	int real_ones = ready();
	uint64_t t;
	void *p;

	if (!real_ones || in_boot(old)) {
		/* a boot block grown (into a real one, once there are real ones):
		 * its size unknown, at most what is left of the arena is copied */
		p = real_ones ? real.malloc(n) : boot_alloc(n);
		if (p && old) {
			size_t left = (size_t)(boot + sizeof boot - (char *)old);
			memcpy(p, old, n < left ? n : left);
		}
		if (real_ones)
			allocated(DS_HEAP_MALLOC, p, n, RA);
		return p;
	}
	t = stamp();
	p = real.realloc(old, n);
	if (old && (p || n == 0))
		freed(DS_HEAP_REALLOC, old, 0, t);
	if (p)
		allocated(old ? DS_HEAP_REALLOC : DS_HEAP_MALLOC, p, n, RA);
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	uint64_t t;
	void *p;
	if (!ready() || !real.reallocarray)
		return NULL;
	t = stamp();
	p = real.reallocarray(old, n, size);
	if (old && p)
		freed(DS_HEAP_REALLOCARRAY, old, 0, t);
	if (p)
		allocated(DS_HEAP_REALLOCARRAY, p, n * size, RA);
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;
	if (!ready())
		return ENOMEM;
	rc = real.posix_memalign(out, align, n);
	if (!rc)
		allocated(DS_HEAP_POSIX_MEMALIGN, *out, n, RA);
	return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;
	if (!ready())
		return NULL;
	p = real.aligned_alloc(align, n);
	allocated(DS_HEAP_ALIGNED_ALLOC, p, n, RA);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;
	if (!ready())
		return NULL;
	p = real.memalign(align, n);
	allocated(DS_HEAP_MEMALIGN, p, n, RA);
	return p;
}

EXPORT void *valloc(size_t n)
{
	void *p;
	if (!ready())
		return NULL;
	p = real.valloc(n);
	allocated(DS_HEAP_VALLOC, p, n, RA);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	void *p;
	if (!ready())
		return NULL;
	p = real.pvalloc(n);
	allocated(DS_HEAP_PVALLOC, p, n, RA);
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int mfd, off_t off)
{
	void *p;
	if (!ready())
		return MAP_FAILED;
	p = real.mmap(addr, len, prot, flags, mfd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && len >= mmap_min)
		allocated(DS_HEAP_MMAP, p, len, RA);
	return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int mfd, off_t off) __attribute__((alias("mmap")));

EXPORT int munmap(void *addr, size_t len)
{
	uint64_t t;
	int rc;
	if (!ready())
		return -1;
	t = stamp();
	rc = real.munmap(addr, len);
	if (!rc)
		freed(DS_HEAP_MUNMAP, addr, len, t);
	return rc;
}

EXPORT void *mremap(void *old, size_t oldlen, size_t len, int flags, ...)
{
	void *p, *fixed = NULL;
	uint64_t t;
	va_list ap;

	if (!ready())
		return MAP_FAILED;
	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		fixed = va_arg(ap, void *);
		va_end(ap);
	}
	t = stamp();
	p = real.mremap(old, oldlen, len, flags, fixed);
	if (p != MAP_FAILED) {
		freed(DS_HEAP_MREMAP, old, oldlen, t);
		if (len >= mmap_min)
			allocated(DS_HEAP_MREMAP, p, len, RA);
	}
	return p;
}

/* ---- the end of an image: exec, _exit ----
 * The buffers are written before the image goes (exit's are, in fini).
 * exec's functions and _exit are interposed for that; the C library's own
 * calls of them (posix_spawn, system) come from a child that recorded
 * nothing of its own. */

/* A library unloaded: its addresses may hold another's code from now on,
 * whose call-frame rules the walk must read anew. */
EXPORT int dlclose(void *handle)
{
	static int (*next)(void *);
	int r;

	if (!next)
		next = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	r = next ? next(handle) : -1;
	atomic_fetch_add(&code_gen, 1);
	return r;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int (*f)(const char *, char *const[], char *const[]) = find("execve");
	image_ends(DS_HEAP_BY_EXEC, 0);
	return f ? f(path, argv, envp) : (errno = ENOSYS, -1);
}

EXPORT int execv(const char *path, char *const argv[])
{
	int (*f)(const char *, char *const[]) = find("execv");
	image_ends(DS_HEAP_BY_EXEC, 0);
	return f ? f(path, argv) : (errno = ENOSYS, -1);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	int (*f)(const char *, char *const[]) = find("execvp");
	image_ends(DS_HEAP_BY_EXEC, 0);
	return f ? f(file, argv) : (errno = ENOSYS, -1);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int (*f)(const char *, char *const[], char *const[]) = find("execvpe");
	image_ends(DS_HEAP_BY_EXEC, 0);
	return f ? f(file, argv, envp) : (errno = ENOSYS, -1);
}

EXPORT int fexecve(int efd, char *const argv[], char *const envp[])
{
	int (*f)(int, char *const[], char *const[]) = find("fexecve");
	image_ends(DS_HEAP_BY_EXEC, 0);
	return f ? f(efd, argv, envp) : (errno = ENOSYS, -1);
}

/* execl, execlp, execle: their arguments as an array (on the stack: the
 * image goes, or the call fails and returns). */
#define ARGS_OF(arg, argv, ap, then)                                           \
	do {                                                                   \
		size_t n_ = 1;                                                 \
		va_start(ap, arg);                                             \
		while (va_arg(ap, char *))                                     \
			n_++;                                                  \
		va_end(ap);                                                    \
		argv = __builtin_alloca((n_ + 1) * sizeof *argv);              \
		va_start(ap, arg);                                             \
		argv[0] = (char *)arg;                                         \
		for (size_t i_ = 1; i_ <= n_; i_++)                            \
			argv[i_] = va_arg(ap, char *);                         \
		then;                                                          \
		va_end(ap);                                                    \
	} while (0)

EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;
	ARGS_OF(arg, argv, ap, (void)0);
	return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;
	ARGS_OF(arg, argv, ap, (void)0);
	return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp;
	va_list ap;
	ARGS_OF(arg, argv, ap, envp = va_arg(ap, char **));
	return execve(path, argv, envp);
}

EXPORT __attribute__((noreturn)) void _exit(int status)
{
	void (*f)(int) = find("_exit");
	image_ends(DS_HEAP_BY_EXIT_NOW, 0);
	if (f)
		f(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}
