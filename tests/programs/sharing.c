/*
 * Known kinds of cache-line sharing between two threads, for the sharing
 * view.  Each mode has a padded variant that must not share falsely:
 *
 *   counters   per-thread counters in one struct: thread 0 bumps `hits`,
 *              thread 1 `misses` (bytes 16-23 and 24-31 of one line):
 *              false sharing
 *   mttest     an array of doubles indexed by thread id, sums[id] += ...
 *              (the Sun Studio mttest case): false sharing
 *   atomic     one atomic counter both threads increment by a step both
 *              read beside it: true sharing (padding the counter leaves
 *              it true, never false)
 *   global     one atomic counter, `tally.hits`, both threads increment,
 *              with the global they read as their loop's bound, `batch`,
 *              on the same line: true sharing on `hits`, and `batch`
 *              falsely shared with it (padded: `batch` on a line of its
 *              own, read-mostly)
 *   publish    thread 0 publishes its progress in `status.progress` (a
 *              plain store), thread 1 reads `status.config` beside it:
 *              false sharing of a field one thread only reads (padded:
 *              `config` a line further)
 *   readonly   both threads read a table main filled: read-mostly (padded:
 *              the table begins a line)
 *
 *   sharing MODE[_padded] N      N iterations per thread (rounded up to 1024s)
 *   sharing MODE[_padded] Ss     each thread runs for S seconds
 *
 * It prints the hot object's address ("addr 0x...") and, at the end,
 * each thread's result.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NTHREADS 2
#define TABLE 64
#define CHUNK_DEFAULT 1024

struct counters {
	char name[16];
	volatile long hits;
	volatile long misses;
	int flags;
};

struct counters_padded {
	char name[16];
	volatile long hits;
	char pad[40];
	volatile long misses;
	int flags;
};

struct padded_double {
	volatile double v;
	char pad[56];
} __attribute__((aligned(64)));

static volatile double sums[NTHREADS] __attribute__((aligned(64)));
static struct padded_double psums[NTHREADS];
/* the counter and the step both threads read beside it; padded, each on a
 * line of its own.  The counter is updated with the __atomic builtins
 * rather than declared _Atomic: pahole, which tests/e2e/layout.sh checks
 * dsprof's layouts against, does not read DWARF's atomic types. */
struct shared {
	long counter;
	volatile long step;
};

struct shared_padded {
	long counter;
	char pad[56];
	volatile long step;
};

static struct shared shared __attribute__((aligned(64)));
static struct shared_padded pshared __attribute__((aligned(64)));
/* The counter and the global beside it: their own section, kept in
 * this order, so that `batch` follows `tally` on its line; padded, a
 * line later. */
struct tally {
	long hits;
};

static struct tally tally __attribute__((aligned(64), section(".data.tally"), no_reorder)) = {0};
static long batch __attribute__((section(".data.tally"), no_reorder)) = CHUNK_DEFAULT;
static struct tally ptally __attribute__((aligned(64), section(".data.ptally"), no_reorder)) = {0};
static long pbatch __attribute__((aligned(64), section(".data.ptally"), no_reorder)) = CHUNK_DEFAULT;

/* A writer's progress and a setting the other thread reads; padded, a
 * line apart. */
struct status {
	volatile long progress;
	volatile long config;
};

struct status_padded {
	volatile long progress;
	char pad[56];
	volatile long config;
};

static struct status status __attribute__((aligned(64)));
static struct status_padded pstatus __attribute__((aligned(64)));

/* padded: the table begins a line */
static double table[TABLE];
static double ptable[TABLE] __attribute__((aligned(64)));

/* Set by main after the run time (a line of its own, read every 1024
 * iterations: too rarely to matter). */
static volatile int stop __attribute__((aligned(64)));
static long iters;
static double seconds;
static int timed;

static struct counters *cnt;
static struct counters_padded *pcnt;
static int padded;

/* Whether to run another CHUNK iterations.  The inner loops are plain
 * counted loops: under cpu-clock, a sample after a store then lands on
 * the loop's own instructions, from which backtracking finds the store
 * (a branch target right after it would hide it). */
#define CHUNK CHUNK_DEFAULT

static int more(long i)
{
	return timed ? !stop : i < iters;
}

/* Each thread its own field, through a pointer to the struct (so that
 * the accesses are known as fields). */
__attribute__((noinline)) static long bump_hits(struct counters *c)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			c->hits++;
	return i;
}

__attribute__((noinline)) static long bump_misses(struct counters *c)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			c->misses++;
	return i;
}

__attribute__((noinline)) static long bump_hits_padded(struct counters_padded *c)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			c->hits++;
	return i;
}

__attribute__((noinline)) static long bump_misses_padded(struct counters_padded *c)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			c->misses++;
	return i;
}

static void *run_counters(void *arg)
{
	long id = (long)arg;
	if (padded)
		return (void *)(id ? bump_misses_padded(pcnt) : bump_hits_padded(pcnt));
	return (void *)(id ? bump_misses(cnt) : bump_hits(cnt));
}

__attribute__((noinline)) static void *run_mttest(void *arg)
{
	long id = (long)arg, i;
	for (i = 0; more(i); i += CHUNK) {
		if (padded)
			for (long j = 0; j < CHUNK; j++)
				psums[id].v += (double)j * 0.5;
		else
			for (long j = 0; j < CHUNK; j++)
				sums[id] += (double)j * 0.5;
	}
	return (void *)i;
}

__attribute__((noinline)) static long add_shared(struct shared *c)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			__atomic_fetch_add(&c->counter, c->step, __ATOMIC_RELAXED);
	return i;
}

__attribute__((noinline)) static long add_shared_padded(struct shared_padded *c)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			__atomic_fetch_add(&c->counter, c->step, __ATOMIC_RELAXED);
	return i;
}

static void *run_atomic(void *arg)
{
	(void)arg;
	return (void *)(padded ? add_shared_padded(&pshared) : add_shared(&shared));
}

/* The atomic builtins are barriers to the compiler: `batch` is loaded
 * again at every iteration, beside the counter. */
__attribute__((noinline)) static long add_tally(void)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < batch; j++)
			__atomic_fetch_add(&tally.hits, 1, __ATOMIC_RELAXED);
	return i;
}

__attribute__((noinline)) static long add_tally_padded(void)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < pbatch; j++)
			__atomic_fetch_add(&ptally.hits, 1, __ATOMIC_RELAXED);
	return i;
}

static void *run_global(void *arg)
{
	(void)arg;
	return (void *)(padded ? add_tally_padded() : add_tally());
}

/* Through pointers to the struct, so that the accesses are known as
 * fields. */
__attribute__((noinline)) static long publish(volatile long *progress)
{
	long i;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			*progress = i + j;
	return i;
}

__attribute__((noinline)) static long read_config(volatile long *config)
{
	long i, s = 0;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			s += *config;
	return s ? i : 0;
}

static void *run_publish(void *arg)
{
	volatile long *progress = padded ? &pstatus.progress : &status.progress;
	volatile long *config = padded ? &pstatus.config : &status.config;
	return (void *)(arg ? read_config(config) : publish(progress));
}

__attribute__((noinline)) static void *run_readonly(void *arg)
{
	const double *t = padded ? ptable : table;
	long id = (long)arg, i;
	volatile double s = 0;
	for (i = 0; more(i); i += CHUNK)
		for (long j = 0; j < CHUNK; j++)
			s += t[(j + id) % TABLE];
	return (void *)i;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void *(*fn)(void *);
	} modes[] = {{"counters", run_counters}, {"mttest", run_mttest}, {"atomic", run_atomic},
		     {"global", run_global}, {"publish", run_publish}, {"readonly", run_readonly}};
	void *(*fn)(void *) = NULL;
	pthread_t th[NTHREADS];
	void *addr = NULL;
	char mode[32];
	size_t len;

	if (argc != 3) {
		fprintf(stderr, "usage: sharing counters|mttest|atomic|global|publish|readonly[_padded] N|Ss\n");
		return 2;
	}
	snprintf(mode, sizeof mode, "%s", argv[1]);
	len = strlen(mode);
	if (len > 7 && strcmp(mode + len - 7, "_padded") == 0) {
		padded = 1;
		mode[len - 7] = 0;
	}
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (strcmp(mode, modes[i].name) == 0)
			fn = modes[i].fn;
	len = strlen(argv[2]);
	timed = len && argv[2][len - 1] == 's';
	iters = atol(argv[2]);
	seconds = strtod(argv[2], NULL);
	if (!fn || (timed ? seconds <= 0 : iters <= 0)) {
		fprintf(stderr, "sharing: bad mode or count\n");
		return 2;
	}
	cnt = aligned_alloc(64, 64);
	pcnt = aligned_alloc(64, 128);
	if (!cnt || !pcnt)
		return 1;
	memset(cnt, 0, sizeof *cnt);
	memset(pcnt, 0, sizeof *pcnt);
	shared.step = pshared.step = 1;
	status.config = pstatus.config = 1;
	for (int i = 0; i < TABLE; i++)
		table[i] = ptable[i] = i * 1.5;
	addr = fn == run_counters ? (padded ? (void *)pcnt : (void *)cnt)
	       : fn == run_mttest ? (padded ? (void *)psums : (void *)sums)
	       : fn == run_atomic ? (padded ? (void *)&pshared : (void *)&shared)
	       : fn == run_global ? (padded ? (void *)&ptally : (void *)&tally)
	       : fn == run_publish ? (padded ? (void *)&pstatus : (void *)&status)
				  : (padded ? (void *)ptable : (void *)table);
	printf("addr %p\n", addr);
	fflush(stdout);
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, fn, (void *)t);
	if (timed) {
		struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
		nanosleep(&ts, NULL);
		stop = 1;
	}
	for (int t = 0; t < NTHREADS; t++) {
		void *n;
		pthread_join(th[t], &n);
		printf("%s%ld", t ? " " : "", (long)n);
	}
	printf("\n");
	free(cnt);
	free(pcnt);
	return 0;
}
