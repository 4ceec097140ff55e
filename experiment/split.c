/* A recording split by program: every exec starts a process image, and
 * each image's records go to a perf.data of its own (experiment.h,
 * record --follow-exec).
 *
 * An exec (COMM with PERF_RECORD_MISC_COMM_EXEC) starts a new image in its
 * process, whose mappings the kernel then lists afresh; a fork's child
 * runs its parent's image until it execs (the shell between fork and exec
 * is still the shell).  The kernel's own mappings, and what belongs to no
 * process (lost and throttle records), go to every image.  Records before
 * the command's first exec (dsprof's own child getting there) go nowhere. */
#include "experiment/experiment.h"

#include <stdlib.h>
#include <string.h>

/* Images written at once: each holds an open file. */
#define SPLIT_BATCH 64

#define IMG_ALL UINT32_MAX   /* a record every image gets */
#define IMG_NONE (UINT32_MAX - 1)

typedef struct exec_ev {
	uint32_t pid;
	uint64_t time;
	uint32_t image;       /* its index among the images, in time order */
	char comm[16];
} exec_ev;

typedef struct fork_ev {
	uint32_t pid, ppid;
	uint64_t time;
} fork_ev;

/* The execs and forks of a recording.  A recording's records come CPU by
 * CPU, not in time order, so a record's image is found by its time: the
 * last exec of its process at or before it, else (a child that has not
 * exec'd yet) its parent's image when it forked. */
typedef struct plan {
	DS_VEC(exec_ev) execs; /* by pid, then time */
	DS_VEC(fork_ev) forks;
	ds_u64map first;      /* pid -> its first exec in execs */
	ds_u64map forked;     /* pid -> its fork in forks */
	size_t nimages;
} plan;

static int cmp_exec_time(const void *a, const void *b)
{
	const exec_ev *x = a, *y = b;
	return x->time < y->time ? -1 : x->time > y->time ? 1 : x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_exec_pid(const void *a, const void *b)
{
	const exec_ev *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid ? 1 : x->time < y->time ? -1 : x->time > y->time;
}

static void plan_free(plan *p)
{
	ds_vec_free(&p->execs);
	ds_vec_free(&p->forks);
	ds_u64map_free(&p->first);
	ds_u64map_free(&p->forked);
}

static int plan_read(ds_perfdata *pd, plan *p, ds_err *err)
{
	uint64_t cur = 0;
	ds_record r;
	int rc;

	while ((rc = ds_perfdata_next_nonsample(pd, &cur, &r, err)) > 0) {
		if (r.kind == DS_REC_COMM && r.u.comm.exec) {
			exec_ev e = {.pid = r.u.comm.pid, .time = r.time};
			snprintf(e.comm, sizeof e.comm, "%s", r.u.comm.comm);
			ds_vec_push(&p->execs, e);
		} else if (r.kind == DS_REC_FORK && r.u.task.pid != r.u.task.ppid) {
			fork_ev f = {r.u.task.pid, r.u.task.ppid, r.u.task.time ? r.u.task.time : r.time};
			ds_u64map_set(&p->forked, f.pid, (uint32_t)p->forks.n);
			ds_vec_push(&p->forks, f);
		}
	}
	if (rc < 0)
		return -1;
	/* images in the order of their execs' times; then by pid to look up */
	ds_sort(p->execs.v, p->execs.n, sizeof *p->execs.v, cmp_exec_time);
	for (size_t i = 0; i < p->execs.n; i++)
		p->execs.v[i].image = (uint32_t)i;
	p->nimages = p->execs.n;
	ds_sort(p->execs.v, p->execs.n, sizeof *p->execs.v, cmp_exec_pid);
	for (size_t i = p->execs.n; i-- > 0;)
		ds_u64map_set(&p->first, p->execs.v[i].pid, (uint32_t)i);
	return 0;
}

/* The image process pid runs at time t. */
static uint32_t image_at(const plan *p, uint32_t pid, uint64_t t)
{
	for (int depth = 0; depth < 64; depth++) {
		uint32_t i = ds_u64map_get(&p->first, pid), f, found = IMG_NONE;
		for (; i != DS_U64MAP_NONE && i < p->execs.n && p->execs.v[i].pid == pid && p->execs.v[i].time <= t;
		     i++)
			found = p->execs.v[i].image;
		if (found != IMG_NONE)
			return found;
		if ((f = ds_u64map_get(&p->forked, pid)) == DS_U64MAP_NONE)
			return IMG_NONE;
		t = p->forks.v[f].time;
		pid = p->forks.v[f].ppid;
	}
	return IMG_NONE;
}

/* The image record r belongs to. */
static uint32_t image_of(const plan *p, const ds_record *r)
{
	switch (r->kind) {
	case DS_REC_SAMPLE:
		return image_at(p, r->u.sample.pid, r->time);
	case DS_REC_MMAP:
		return r->u.mmap.pid == UINT32_MAX ? IMG_ALL : image_at(p, r->u.mmap.pid, r->time);
	case DS_REC_COMM:
		return image_at(p, r->u.comm.pid, r->time);
	case DS_REC_FORK:
		/* the parent's, where the child starts */
		return image_at(p, r->u.task.ppid, r->u.task.time ? r->u.task.time : r->time);
	case DS_REC_EXIT:
		return image_at(p, r->u.task.pid, r->u.task.time ? r->u.task.time : r->time);
	default:
		return IMG_ALL;
	}
}

int ds_perfdata_images(const char *path, ds_image **out, size_t *n, ds_err *err)
{
	ds_perfdata *pd;
	plan p = {0};
	ds_image *v;
	uint64_t cur = 0;
	ds_record r;
	int rc;

	*out = NULL;
	*n = 0;
	if (ds_perfdata_open(path, &pd, err))
		return -1;
	if (plan_read(pd, &p, err)) {
		ds_perfdata_close(pd);
		plan_free(&p);
		return -1;
	}
	v = ds_xcalloc(p.nimages + 1, sizeof *v);
	for (size_t i = 0; i < p.execs.n; i++) {
		ds_image *im = &v[p.execs.v[i].image];
		im->pid = p.execs.v[i].pid;
		memcpy(im->comm, p.execs.v[i].comm, sizeof im->comm);
	}
	while ((rc = ds_perfdata_next(pd, &cur, &r, err)) > 0) {
		uint32_t k = image_of(&p, &r);
		ds_image *im;
		if (k >= p.nimages)
			continue;
		im = &v[k];
		if (r.kind == DS_REC_SAMPLE) {
			if (!im->samples++ || r.time < im->first_time)
				im->first_time = r.time;
			if (r.time > im->last_time)
				im->last_time = r.time;
		} else if (r.kind == DS_REC_MMAP && r.u.mmap.executable && !im->exe && r.u.mmap.pid == im->pid &&
			   r.u.mmap.filename[0] == '/') {
			im->exe = ds_xstrdup(r.u.mmap.filename); /* the program: mapped first after the exec */
		}
	}
	ds_perfdata_close(pd);
	if (rc < 0) {
		ds_images_free(v, p.nimages);
		plan_free(&p);
		return -1;
	}
	*out = v;
	*n = p.nimages;
	plan_free(&p);
	return 0;
}

void ds_images_free(ds_image *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].exe);
	free(v);
}

/* Images [lo, hi) of the recording, each into dirs[k]/perf.data. */
static int split_batch(const char *path, size_t lo, size_t hi, ds_wdir *const *dirs, ds_err *err)
{
	ds_perfdata *pd;
	ds_pdw **w = ds_xcalloc(hi - lo, sizeof *w);
	plan p = {0};
	uint64_t cur = 0;
	ds_record r;
	int rc = -1;
	size_t nev;
	ds_event *evs;

	if (ds_perfdata_open(path, &pd, err)) {
		free(w);
		return -1;
	}
	if (plan_read(pd, &p, err)) {
		ds_perfdata_close(pd);
		plan_free(&p);
		free(w);
		return -1;
	}
	nev = ds_perfdata_nevents(pd);
	evs = ds_xcalloc(nev + 1, sizeof *evs);
	for (size_t i = 0; i < nev; i++)
		evs[i] = *ds_perfdata_event(pd, i);
	for (size_t k = lo; k < hi; k++)
		if (!(w[k - lo] = ds_pdw_create(dirs[k], "perf.data", false, evs, nev, err)))
			goto out;
	while ((rc = ds_perfdata_next(pd, &cur, &r, err)) > 0) {
		uint32_t k = image_of(&p, &r);
		if (k == IMG_ALL) {
			for (size_t j = lo; j < hi && rc > 0; j++)
				if (ds_pdw_write(w[j - lo], r.raw, r.size, err))
					rc = -1;
		} else if (k >= lo && k < hi && ds_pdw_write(w[k - lo], r.raw, r.size, err)) {
			rc = -1;
		}
		if (rc < 0)
			break;
	}
	for (size_t k = lo; rc == 0 && k < hi; k++) {
		ds_pdw_info info = {.clockid = -1, .features_from = pd};
		rc = ds_pdw_finish(w[k - lo], &info, err);
		w[k - lo] = NULL;
	}
out:
	for (size_t k = lo; k < hi; k++)
		if (w[k - lo])
			ds_pdw_abort(w[k - lo]);
	free(w);
	free(evs);
	plan_free(&p);
	ds_perfdata_close(pd);
	return rc < 0 ? -1 : 0;
}

int ds_perfdata_split(const char *path, size_t nimages, ds_wdir *const *dirs, ds_err *err)
{
	for (size_t lo = 0; lo < nimages; lo += SPLIT_BATCH)
		if (split_batch(path, lo, lo + SPLIT_BATCH < nimages ? lo + SPLIT_BATCH : nimages, dirs, err))
			return -1;
	return 0;
}
