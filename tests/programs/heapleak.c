/*
 * Leaks of known blocks (tests/e2e/heap.sh): 10 blocks of 100 bytes from
 * keep_names and 3 of 5000 bytes from keep_pages are never freed; as many
 * again from each are freed, and a block freed by an atexit function, at
 * teardown, is no leak.  Then, as its arguments ask:
 *
 *     heapleak            exit
 *     heapleak fork       a child allocates (its own file) and reads a
 *                         block of the parent's, then exits
 *     heapleak exec       the program runs itself again ("heapleak"): a
 *                         second image of the process
 *     heapleak threads    4 threads allocate 1000 blocks each, from their
 *                         own site, and free them
 *     heapleak late       8 threads, one after another (each on the stack
 *                         and thread-local storage of the one before),
 *                         whose thread-specific destructor frees a block
 *                         on every round of destructors, so that the last
 *                         free comes after the tracker's own destructor
 *     heapleak kill       killed (SIGTERM) instead of exiting: no leaks,
 *                         blocks left live
 *     heapleak kill9      killed with SIGKILL: what the tracker had not
 *                         written yet is lost
 *     heapleak many N     N blocks of 16 bytes live at once, then exit
 *     heapleak churn N    N blocks of 16 bytes allocated and freed, each
 *                         from code that holds data, not a frame, in the
 *                         frame pointer register (as -O2 code may): a
 *                         frame-pointer walk from the allocator goes astray
 *     heapleak hold MS    a block from held_block, freed after the program
 *                         slept MS milliseconds (a lifetime of at least
 *                         that), then another, freed at once
 *     heapleak deep N     1000 blocks from deep_block, N calls of descend
 *                         below main, each freed: the tracker's stacks
 *                         are cut at their depth, from the right frame
 *                         (heapleak_nofp, built without frame pointers,
 *                         is unwound)
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *at_exit_block;

__attribute__((noinline)) static void *keep_names(void)
{
	void *p = malloc(100);
	memset(p, 1, 100);
	return p;
}

__attribute__((noinline)) static void *keep_pages(void)
{
	void *p = malloc(5000);
	memset(p, 2, 5000);
	return p;
}

static void teardown(void)
{
	free(at_exit_block);
}

__attribute__((noinline)) static void *thread_blocks(void *arg)
{
	void *b[1000];
	(void)arg;
	for (int i = 0; i < 1000; i++)
		b[i] = malloc(64);
	for (int i = 0; i < 1000; i++)
		free(b[i]);
	return NULL;
}

static pthread_key_t late_key;
static __thread int late_rounds;

__attribute__((noinline)) static void *late_block(void)
{
	return malloc(24);
}

/* Frees the block, and sets another for the next round while there is one. */
static void late_end(void *block)
{
	free(block);
	if (++late_rounds < PTHREAD_DESTRUCTOR_ITERATIONS)
		pthread_setspecific(late_key, late_block());
}

static void *late_thread(void *arg)
{
	(void)arg;
	pthread_setspecific(late_key, late_block());
	return thread_blocks(NULL);
}

/* malloc(n) then free, called with data in rbp (a frame-pointer walk
 * from inside them goes astray there), the frame described to unwinders
 * as a compiler would. */
__attribute__((noinline, optimize("omit-frame-pointer"))) static void churn_one(size_t n)
{
	__asm__ volatile("push %%rbp\n\t"
			 ".cfi_adjust_cfa_offset 8\n\t"
			 ".cfi_rel_offset %%rbp, 0\n\t"
			 "mov $0x10, %%ebp\n\t"
			 "call malloc@PLT\n\t"
			 "mov %%rax, %%rdi\n\t"
			 "call free@PLT\n\t"
			 "pop %%rbp\n\t"
			 ".cfi_adjust_cfa_offset -8\n\t"
			 ".cfi_restore %%rbp"
			 : "+D"(n)
			 :
			 : "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1",
			   "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15");
}

__attribute__((noinline)) static void *held_block(void)
{
	char *p = malloc(48);
	if (p) /* not a tail call: the site is this function */
		p[0] = 1;
	return p;
}

__attribute__((noinline)) static volatile long *child_block(void)
{
	volatile long *p = calloc(1000, sizeof(long));
	p[1] = 1;
	return p;
}

__attribute__((noinline)) static void *deep_block(void)
{
	char *p = malloc(24);
	p[0] = 1;
	return p;
}

/* n calls deep, then a block; the volatile read after the call keeps the
 * compiler from turning the recursion into a loop */
__attribute__((noinline)) static void *descend(int n)
{
	volatile int depth = n;
	void *p = n > 0 ? descend(n - 1) : deep_block();
	return depth >= 0 ? p : NULL;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	volatile long *shared;
	void *freed[13];

	for (int i = 0; i < 10; i++)
		keep_names();
	for (int i = 0; i < 3; i++)
		keep_pages();
	for (int i = 0; i < 10; i++)
		freed[i] = keep_names();
	for (int i = 0; i < 3; i++)
		freed[10 + i] = keep_pages();
	for (int i = 0; i < 13; i++)
		free(freed[i]);
	at_exit_block = malloc(77);
	atexit(teardown);
	shared = calloc(1 << 20, sizeof(long));
	if (!strcmp(what, "fork")) {
		pid_t c = fork();
		if (c == 0) {
			volatile long *mine = child_block();
			long s = 0;
			for (int r = 0; r < 2000; r++)
				for (long i = 0; i < 1 << 20; i += 8)
					s += shared[i];
			mine[0] = s;
			free((void *)mine);
			exit(0);
		}
		waitpid(c, NULL, 0);
	} else if (!strcmp(what, "exec")) {
		execl("/proc/self/exe", argv[0], (char *)NULL);
		return 1;
	} else if (!strcmp(what, "threads")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, thread_blocks, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(what, "late")) {
		pthread_key_create(&late_key, late_end);
		for (int i = 0; i < 8; i++) {
			pthread_t t;
			pthread_create(&t, NULL, late_thread, NULL);
			pthread_join(t, NULL);
		}
	} else if (!strcmp(what, "kill")) {
		raise(SIGTERM);
	} else if (!strcmp(what, "kill9")) {
		raise(SIGKILL);
	} else if (!strcmp(what, "many") && argc > 2) {
		long n = atol(argv[2]);
		void **v = malloc(n * sizeof *v);
		for (long i = 0; i < n; i++)
			v[i] = malloc(16);
		printf("%p %p\n", v[0], v[n - 1]);
		_exit(0);
	} else if (!strcmp(what, "churn") && argc > 2) {
		long n = atol(argv[2]);
		for (long i = 0; i < n; i++)
			churn_one(16);
	} else if (!strcmp(what, "hold") && argc > 2) {
		long ms = atol(argv[2]);
		struct timespec ts = {ms / 1000, ms % 1000 * 1000000};
		void *p = held_block();
		while (nanosleep(&ts, &ts))
			;
		free(p);
		free(held_block());
	} else if (!strcmp(what, "deep") && argc > 2) {
		for (int i = 0; i < 1000; i++)
			free(descend(atoi(argv[2])));
	}
	free((void *)shared);
	return 0;
}
