/*
 * Finishing a recording: what can only be known on the recording machine,
 * right after the run, written into its perf.data.
 *
 * Call chains.  The kernel's frame-pointer walk misses the caller of a
 * function that has no frame where it was sampled (a frameless leaf, any
 * prologue or epilogue), so the recorder also copies the top of the user
 * stack, where that caller's return address is (ds_session_full_chain).
 * Code without frame pointers (--call-graph dwarf) gets no user chain from
 * the kernel at all and a larger copy, unwound here (analyze/unwind.c).
 * Left in the file, that copy makes perf unwind the stack a second time
 * and append what it finds to the kernel's chain: every chain then shows
 * its leaf twice and ends in a frame of 0xffffffffffffffff.  So the chain
 * gets its missing caller here, and the copy goes: perf reads the chains
 * exactly as it reads those of its own `-g` recordings.
 *
 * Build-ids.  HEADER_BUILD_ID lists the build-id of every object a sample
 * or a call chain falls in: the one the kernel put into its MMAP2 records
 * when the file was mapped, else (older kernels, the mappings of a process
 * attached to) the file's, read while it is still the one that ran (an
 * object whose file was replaced during the run gets none, and a note).  Analysis elsewhere matches objects by it, and
 * `dsprof archive` keeps the files by it.
 *
 * The file is rewritten beside itself and renamed over it: a failure
 * leaves the recording as it was.
 */
#include "analyze/analyze_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

typedef DS_VEC(ds_build_id) build_ids;

typedef struct finish {
	ds_session *s;
	ds_pdw *w;
	ds_buf rec;          /* the sample being rewritten */
	ds_buf key;
	ds_hash *seen;       /* (pid, mode, ip, chain) whose objects are marked */
	DS_VEC(uint8_t) hit; /* by dso index: a sample or a chain falls in it */
	ds_finish_result *res;
} finish;

static void mark(finish *f, uint32_t pid, uint64_t t, uint64_t ip, bool kernel)
{
	uint32_t si = ds_session_site(f->s, pid, t, ip, kernel); /* may move sites.v */
	uint32_t dso = f->s->sites.v[si].dso;

	while (f->hit.n <= dso)
		ds_vec_push(&f->hit, 0);
	f->hit.v[dso] = 1;
}

/* The objects of a sample's IP and of its chain, once per distinct chain. */
static void mark_objects(finish *f, const ds_record *r, const uint64_t *chain, size_t n)
{
	const ds_sample *sm = &r->u.sample;
	uint64_t t = (sm->type & PERF_SAMPLE_TIME) ? sm->time : UINT64_MAX;
	bool kernel = ds_ip_is_kernel(r->misc), first = true, added;
	uint64_t head[3] = {sm->pid, kernel, sm->ip};

	ds_buf_reset(&f->key);
	ds_buf_append(&f->key, head, sizeof head);
	if (n)
		ds_buf_append(&f->key, chain, n * 8);
	ds_hash_intern(f->seen, f->key.p, f->key.len, &added);
	if (!added)
		return;
	mark(f, sm->pid, t, sm->ip, kernel);
	for (size_t i = 0; i < n; i++) {
		if (chain[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = chain[i] == (uint64_t)PERF_CONTEXT_KERNEL ||
				 chain[i] == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
			first = true;
		} else if (chain[i]) {
			/* return addresses lie after their call: look up the call */
			mark(f, sm->pid, t, first ? chain[i] : chain[i] - 1, kernel);
			first = false;
		}
	}
}

/* A sample without its user stack copy, with the full chain. */
static int write_sample(finish *f, const ds_record *r, ds_err *err)
{
	const ds_sample *sm = &r->u.sample;
	const uint8_t *raw = r->raw, *end = raw + r->size, *from = raw;
	size_t n = 0;
	const uint64_t *chain = NULL;

	if (sm->type & PERF_SAMPLE_CALLCHAIN)
		chain = ds_session_full_chain(f->s, sm, &n);
	mark_objects(f, r, chain, n);
	if (!sm->stack_field)
		return ds_pdw_write(f->w, raw, r->size, err);
	ds_buf_reset(&f->rec);
	if (chain) {
		const uint8_t *at = (const uint8_t *)sm->callchain - 8;
		/* The copy dropped is longer than the frames added unless it
		 * was made tiny (--call-graph dwarf,8): the record must stay
		 * within its 16-bit size, so the outermost frames go first. */
		size_t rest = r->size - sm->stack_field_len - sm->nr_callchain * 8;
		uint64_t nr;
		if (n > (UINT16_MAX - rest) / 8)
			n = (UINT16_MAX - rest) / 8;
		nr = n;
		ds_buf_append(&f->rec, raw, (size_t)(at - raw));
		ds_buf_append(&f->rec, &nr, 8);
		ds_buf_append(&f->rec, chain, n * 8);
		from = (const uint8_t *)(sm->callchain + sm->nr_callchain);
		if (n > sm->nr_callchain)
			f->res->chains_completed++;
	}
	ds_buf_append(&f->rec, from, (size_t)(sm->stack_field - from));
	from = sm->stack_field + sm->stack_field_len;
	ds_buf_append(&f->rec, from, (size_t)(end - from));
	((struct perf_event_header *)f->rec.p)->size = (uint16_t)f->rec.len;
	return ds_pdw_write(f->w, f->rec.p, f->rec.len, err);
}

static void note(ds_finish_result *res, const char *fmt, const char *path)
{
	ds_vec_push(&res->notes, ds_xasprintf(fmt, path));
}

/* The build-id of object d as it ran; 0 when it cannot be known. */
static size_t build_id_of(finish *f, const dso_ent *d, const char *dir, uint8_t *id)
{
	struct stat st;
	size_t len, n = 0;
	char *p;

	if (d->build_id_size) { /* the kernel read it when the file was mapped */
		memcpy(id, d->build_id, d->build_id_size);
		return d->build_id_size;
	}
	if (d->kernel) {
		if ((p = ds_read_file("/sys/kernel/notes", &len)))
			n = ds_build_id_of_notes(p, len, id, DS_BUILD_ID_MAX);
		free(p);
		return n;
	}
	if (strcmp(d->path, "[vdso]") == 0) {
		p = ds_xasprintf("%s/vdso.so", dir);
		n = ds_build_id_of_file(p, id, DS_BUILD_ID_MAX);
		free(p);
		return n;
	}
	if (d->path[0] != '/' || strncmp(d->path, "//", 2) == 0 || strncmp(d->path, "/memfd:", 7) == 0)
		return 0; /* [heap], //anon, memfd: JIT code with no file */
	if (stat(d->path, &st) != 0 || (d->ino && (st.st_ino != d->ino || major(st.st_dev) != d->maj ||
						   minor(st.st_dev) != d->min))) {
		note(f->res, "'%s' was removed or replaced while recording: the experiment cannot "
			     "say which build of it ran (no build-id)", d->path);
		return 0;
	}
	return ds_build_id_of_file(d->path, id, DS_BUILD_ID_MAX);
}

static void collect_build_ids(finish *f, const char *dir, build_ids *out)
{
	for (size_t i = 0; i < f->hit.n; i++) {
		const dso_ent *d = &f->s->dsos.v[i];
		const char *name = d->kernel ? "[kernel.kallsyms]" : d->path;
		ds_build_id b = {0};
		if (!f->hit.v[i] || i == DSO_UNKNOWN || ds_build_id_find(out->v, out->n, name))
			continue;
		b.size = (uint8_t)build_id_of(f, d, dir, b.id);
		if (!b.size)
			continue;
		b.path = ds_xstrdup(name);
		b.kernel = d->kernel;
		ds_vec_push(out, b);
	}
}

static int rewrite(finish *f, const char *dir, ds_wdir *out, ds_err *err)
{
	ds_perfdata *pd = f->s->pd;
	size_t nev = ds_perfdata_nevents(pd);
	ds_event *evs = ds_xcalloc(nev, sizeof *evs);
	build_ids ids = {0};
	ds_pdw_info info = {.clockid = -1, .features_from = pd};
	uint64_t cur = 0;
	ds_record r;
	int rc;

	/* the samples lose their stack copies, so their events say so */
	for (size_t i = 0; i < nev; i++) {
		evs[i] = *ds_perfdata_event(pd, i);
		evs[i].attr.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
		evs[i].attr.sample_stack_user = 0;
	}
	f->w = ds_pdw_create(out, "perf.data", true, evs, nev, err);
	free(evs);
	if (!f->w)
		return -1;
	while ((rc = ds_perfdata_next(pd, &cur, &r, err)) > 0)
		if ((r.kind == DS_REC_SAMPLE ? write_sample(f, &r, err)
					     : ds_pdw_write(f->w, r.raw, r.size, err)) < 0) {
			rc = -1;
			break;
		}
	if (rc == 0) {
		collect_build_ids(f, dir, &ids);
		info.build_ids = ids.v;
		info.nbuild_ids = ids.n;
		f->res->nbuild_ids = ids.n;
		f->res->bytes = ds_pdw_data_size(f->w);
		rc = ds_pdw_finish(f->w, &info, err);
	} else {
		ds_pdw_abort(f->w);
	}
	f->w = NULL;
	memcpy(f->res->unwound, f->s->chain_ends, sizeof f->res->unwound);
	ds_build_ids_free(ids.v, ids.n);
	return rc;
}

int ds_experiment_finish(const char *dir, ds_wdir *out, ds_finish_result *res, ds_err *err)
{
	ds_session_opts o = {.deferred = true, .lazy_kernel = true};
	finish f = {0};
	int rc = -1;

	memset(res, 0, sizeof *res);
	f.res = res;
	f.seen = ds_hash_new();
	if (ds_session_open(dir, &o, &f.s, err))
		goto out;
	if (rewrite(&f, dir, out, err)) {
		ds_wdir_unlink(out, "perf.data.tmp", NULL);
		goto out;
	}
	rc = ds_wdir_commit_tmp(out, "perf.data", err);
out:
	ds_session_close(f.s);
	ds_hash_free(f.seen);
	ds_buf_free(&f.rec);
	ds_buf_free(&f.key);
	ds_vec_free(&f.hit);
	return rc;
}

void ds_finish_result_fini(ds_finish_result *r)
{
	for (size_t i = 0; i < r->notes.n; i++)
		free(r->notes.v[i]);
	ds_vec_free(&r->notes);
}
