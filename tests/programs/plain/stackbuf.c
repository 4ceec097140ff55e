/*
 * Buffers on threads' stacks, read through a pointer (tests/e2e/heap.sh):
 * the main thread and a second one each run `run`, which fills an array
 * of 512 doubles in its own frame and has `sum` add it up through a
 * const double *, N rounds.  sum's loads are scalars that no variable of
 * sum names; their addresses are in the frame of run, on the main
 * thread's stack ([stack]) and on the second thread's (an anonymous
 * mapping glibc made).  Built as Debian builds (no frame pointers), so
 * that record copies the stack and every frame unwinds.
 *
 *     stackbuf [N]    N rounds in each thread (default 400000)
 */
#include <pthread.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noipa)) static double sum(const double *p, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += p[i];
	return s;
}

__attribute__((noipa)) static void *run(void *arg)
{
	long rounds = *(const long *)arg;
	double buf[512], total = 0;

	for (int i = 0; i < 512; i++)
		buf[i] = i;
	for (long r = 0; r < rounds; r++) {
		total += sum(buf, 512);
		buf[r & 511] = total;
	}
	sink = total;
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400000;
	pthread_t t;

	if (pthread_create(&t, NULL, run, &rounds))
		return 1;
	run(&rounds);
	return pthread_join(t, NULL);
}
