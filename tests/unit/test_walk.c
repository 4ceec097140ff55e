/*
 * The heap tracker's call-frame walk (sampler/preload/walk.c) against
 * libunwind's unw_backtrace, from the same frame as the tracker takes
 * them: recursion, a frame sized at run time (its CFA is rbp's), one whose
 * caller's rbp is saved on the stack, calls back from libc (qsort), a
 * thread, and a signal handler, whose frame
 * above is the kernel's signal frame: the walk gives up there (-1).
 * Built as the unit tests are: -O2 without frame pointers, and with them
 * under make check, so both kinds of rule are walked.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sampler/preload/walk.h"
#include "tests/unit/unit.h"

#define MAX 32

typedef struct taken {
	void *walk[MAX], *unw[MAX + 8];
	int nwalk, nunw;
} taken;

static ds_walk_cache *cache;
static uintptr_t stack_hi;

/* What the tracker's allocation functions do: their frame pointer gives
 * their caller's return address, stack pointer and frame pointer. */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void take(taken *t)
{
	void *const *frame = __builtin_frame_address(0);
	void *const ra = __builtin_return_address(0);
	int first = 0;

	t->nwalk = ds_walk(cache, (uintptr_t)frame[1], (uintptr_t)(frame + 2), (uintptr_t)frame[0], stack_hi,
			   t->walk, MAX);
	t->nunw = unw_backtrace(t->unw, MAX + 8);
	while (first < t->nunw && t->unw[first] != ra)
		first++;
	t->nunw -= first;
	memmove(t->unw, t->unw + first, (size_t)(t->nunw > 0 ? t->nunw : 0) * sizeof *t->unw);
	if (t->nunw > MAX)
		t->nunw = MAX;
}

static void same(const char *what, const taken *t)
{
	char d[96];
	int ok = t->nwalk == t->nunw && t->nwalk > 0 && !memcmp(t->walk, t->unw, (size_t)t->nwalk * sizeof *t->walk);
	snprintf(d, sizeof d, "%s: walk %d frames, unwinder %d", what, t->nwalk, t->nunw);
	unit_report(ok, __FILE__, __LINE__, "the walk's frames are the unwinder's", ok ? NULL : d);
}

static volatile int sink;

__attribute__((noinline)) static void descend(int n, taken *t)
{
	volatile int depth = n;
	if (n > 0)
		descend(n - 1, t);
	else
		take(t);
	sink += depth;
}

/* a frame of a size known only at run time: its CFA is rbp's */
__attribute__((noinline)) static void sized(int n, taken *t)
{
	volatile char *buf = alloca((size_t)n);
	buf[0] = 1;
	descend(2, t);
	sink += buf[0];
}

/* rbp zeroed, after saving the caller's (which the walk must restore to
 * find the caller's CFA, rbp's) */
__attribute__((noinline, optimize("omit-frame-pointer"))) static void clobbers_rbp(taken *t)
{
	__asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
	descend(1, t);
	sink++;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void keeps_rbp(taken *t)
{
	volatile char *buf = alloca(64);
	buf[0] = 1;
	clobbers_rbp(t);
	sink += buf[0];
}

static taken in_qsort;

static int by_value(const void *a, const void *b)
{
	static int once;
	if (!once++)
		take(&in_qsort);
	return *(const int *)a - *(const int *)b;
}

static uintptr_t top_of_stack(void)
{
	pthread_attr_t a;
	void *lo;
	size_t size;
	uintptr_t hi = 0;

	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &lo, &size) == 0)
			hi = (uintptr_t)lo + size;
		pthread_attr_destroy(&a);
	}
	return hi;
}

static ds_walk_cache *new_cache(void)
{
	void *m = mmap(NULL, sizeof(ds_walk_cache), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

TEST(recursion)
{
	taken t;
	for (int depth = 0; depth < 40; depth += 13) {
		descend(depth, &t);
		same("recursion", &t);
	}
	descend(40, &t);
	CHECK_EQ_U64(t.nwalk, MAX);
	/* again, from the rules kept */
	descend(40, &t);
	same("recursion, rules kept", &t);
}

TEST(runtime_sized_frame)
{
	taken t;
	sized(100, &t);
	same("alloca", &t);
	sized(5000, &t);
	same("alloca", &t);
}

TEST(saved_rbp)
{
	taken t;
	keeps_rbp(&t);
	same("rbp saved and restored", &t);
}

TEST(called_back_from_libc)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof *v, by_value);
	same("qsort", &in_qsort);
}

static void *thread_main(void *arg)
{
	ds_walk_cache *mine = new_cache(), *main_cache = cache;
	uintptr_t main_hi = stack_hi;
	taken *t = arg;

	/* one cache a thread, as the tracker keeps them */
	cache = mine;
	stack_hi = top_of_stack();
	if (mine)
		descend(3, t);
	cache = main_cache;
	stack_hi = main_hi;
	if (mine)
		munmap(mine, sizeof *mine);
	return NULL;
}

TEST(thread)
{
	pthread_t th;
	taken t = {.nwalk = -2};

	CHECK(pthread_create(&th, NULL, thread_main, &t) == 0);
	pthread_join(th, NULL);
	same("a thread, up to its start", &t);
}

static taken in_handler;

static void handler(int sig)
{
	(void)sig;
	descend(1, &in_handler);
}

TEST(signal_frame)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	CHECK_EQ_U64(in_handler.nwalk, (uint64_t)-1);
	CHECK(in_handler.nunw > 3);
}

TEST(off_the_stack)
{
	taken t;
	uintptr_t hi = stack_hi;

	/* a stack top below the frames: every frame leaves the stack */
	stack_hi = (uintptr_t)__builtin_frame_address(0) - 4096;
	descend(2, &t);
	stack_hi = hi;
	CHECK_EQ_U64(t.nwalk, (uint64_t)-1);
}

int main(void)
{
	cache = new_cache();
	stack_hi = top_of_stack();
	if (!cache || !stack_hi) {
		printf("not ok - walk: no cache or no stack bounds\n");
		return 1;
	}
	RUN(recursion);
	RUN(runtime_sized_frame);
	RUN(saved_rbp);
	RUN(called_back_from_libc);
	RUN(thread);
	RUN(signal_frame);
	RUN(off_the_stack);
	return unit_done();
}
