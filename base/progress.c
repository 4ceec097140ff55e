/* Progress lines on a terminal for work that takes more than a moment. */
#include "base/base.h"

#include <time.h>
#include <unistd.h>

/* Below this, progress lines are noise: most reports finish sooner. */
#define PROGRESS_DELAY 0.5
#define PROGRESS_INTERVAL 0.1

double ds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ds_progress_begin_after(ds_progress *p, const char *what, double delay)
{
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
	p->start = ds_now();
	p->delay = delay;
	p->last = 0;
	p->what = what;
}

void ds_progress_begin(ds_progress *p, const char *what)
{
	ds_progress_begin_after(p, what, PROGRESS_DELAY);
}

void ds_progress_update(ds_progress *p, uint64_t done, uint64_t total)
{
	double t;
	if (!p->tty)
		return;
	t = ds_now();
	if (t - p->start < p->delay || t - p->last < PROGRESS_INTERVAL)
		return;
	p->last = t;
	p->shown = true;
	if (total)
		fprintf(stderr, "\r\033[Kdsprof: %s %3.0f%%", p->what, 100.0 * (double)done / (double)total);
	else
		fprintf(stderr, "\r\033[Kdsprof: %s %llu, %.0f s", p->what, (unsigned long long)done,
			t - p->start);
	fflush(stderr);
}

void ds_progress_end(ds_progress *p)
{
	if (p->shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	p->shown = false;
}
