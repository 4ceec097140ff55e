/*
 * The worker: the one thread that touches the session.
 *
 * analyze/ is not thread-safe and some of its calls take seconds on a
 * large experiment (reading ten million samples, attributing them to data
 * objects), so the interface never calls it: it asks the worker for views
 * and keeps drawing (scrolling, searching, switching tabs) while they are
 * built.  The worker reads the samples in steps of a twentieth of a second;
 * between steps it builds the view the interface asks for from the
 * samples read so far, when the view can be (TF_PARTIAL tabs), and
 * rebuilds it as more arrive; the rest wait until every sample is read.
 * Then it attributes the samples to data objects ahead of time, so that
 * the data tabs open at once, and builds the views the interface asked for
 * ahead of time (prefetches) while no other is wanted.  Requests replace
 * each other: only the latest matters, and the tab of one replaced before
 * it was built is told so (it asks again when shown).
 *
 * Comparing two experiments, the worker holds both sessions, reads each to
 * its end at once (a diff needs every sample), and builds diffs.
 *
 * Without a thread (scripted mode) everything happens inside the calls, in
 * order, so that scripted screens are the same on every run.
 */
#include "tui/tui_int.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* While loading, a partial view is rebuilt this often (seconds). */
#define REFRESH_S 0.7
/* Samples are read in steps this long (seconds). */
#define STEP_S 0.05
/* The first partial view shows what this much reading found (seconds). */
#define FIRST_S 0.25

struct tui_worker {
	const tui_opts *o;
	bool threaded;
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int wake[2];                 /* a byte in it: results or news for the interface */
	ds_session *s;
	ds_session *s2;               /* comparing: AFTER (s is BEFORE) */
	char *filter;                 /* a group: the filter each experiment gets */
	DS_VEC(char *) defs;          /* a group: the memory objects each experiment gets */
	/* under mu */
	tui_status st;
	tui_req *want;
	DS_VEC(tui_res) results;
	DS_VEC(tui_req *) actions;
	DS_VEC(tui_req *) later;     /* prefetches, built when idle */
	bool quit;
};

void tui_req_free(tui_req *r)
{
	if (!r)
		return;
	free(r->arg);
	free(r->view);
	free(r->view2);
	free((char *)r->vo.sort);
	free((char *)r->vo.type);
	free((char *)r->vo.function);
	free((char *)r->vo.file);
	free((char *)r->vo.level);
	free((char *)r->vo.allocsite);
	free(r);
}

void tui_res_fini(tui_res *r)
{
	ds_table_free(r->t);
	ds_table_free(r->t2);
	free(r->msg);
	for (size_t i = 0; i < r->nverdict; i++)
		free(r->verdict[i]);
	free(r->verdict);
	free(r->arg);
	for (size_t i = 0; i < r->nmobjs; i++) {
		free(r->mobjs[i].name);
		free(r->mobjs[i].text);
		free(r->mobjs[i].error);
	}
	free(r->mobjs);
	free(r->text);
	memset(r, 0, sizeof *r);
}

static void poke(tui_worker *w)
{
	char c = 1;
	if (w->wake[1] >= 0 && write(w->wake[1], &c, 1) < 0) {
		/* the pipe is full: the interface has a wake-up pending anyway */
	}
}

static void set_busy(tui_worker *w, bool busy)
{
	pthread_mutex_lock(&w->mu);
	w->st.busy = busy;
	pthread_mutex_unlock(&w->mu);
	poke(w);
}

static void post(tui_worker *w, tui_res *res)
{
	pthread_mutex_lock(&w->mu);
	ds_vec_push(&w->results, *res);
	w->st.busy = false;
	pthread_mutex_unlock(&w->mu);
	poke(w);
}

/* A view request replaced before it was built: its tab is told, so that
 * it asks again when shown (mu held). */
static void push_dropped(tui_worker *w, const tui_req *r)
{
	tui_res d;
	memset(&d, 0, sizeof d);
	d.tab = r->tab;
	d.gen = r->gen;
	d.dropped = true;
	ds_vec_push(&w->results, d);
}

static void drop(tui_worker *w, tui_req *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&w->mu);
	push_dropped(w, r);
	pthread_mutex_unlock(&w->mu);
	poke(w);
	tui_req_free(r);
}

/* Comparing: the diff dsprof diff prints of a view.  Views that need the
 * tab's context (a function, a type, a line size) are built on both sides
 * with it and compared as ds_diff_sessions compares the plain ones.  The
 * request's sort is the diff's (delta, change, ...), the views keep their
 * own.  The summary is each side's, with the verdict on the functions. */
static int build_diff(tui_worker *w, const tui_req *r, tui_res *res, ds_err *err)
{
	ds_view_opts vo = r->vo;
	ds_diff_opts dopts = {.sort = r->vo.sort};
	ds_table *t[2] = {NULL, NULL};
	ds_diff *d = NULL;
	int rc = -1;

	vo.sort = NULL;
	if (strcmp(r->view, "timeline") == 0)
		return ds_err_set(err, DS_EINPUT, "The timeline shows one run's threads over time and is not "
				  "compared: open each experiment with dsprof tui -i DIR to see it.");
	if (strcmp(r->view, "summary") == 0) {
		if (ds_view_build(w->s, "summary", NULL, &res->t, err) ||
		    ds_view_build(w->s2, "summary", NULL, &res->t2, err) ||
		    ds_diff_sessions(w->s, w->s2, "functions", NULL, &d, err))
			return -1;
		res->verdict = ds_xcalloc(d->nverdict + 1, sizeof *res->verdict);
		for (size_t i = 0; i < d->nverdict; i++)
			res->verdict[res->nverdict++] = ds_xstrdup(d->verdict[i].text);
		ds_diff_free(d);
		return 0;
	}
	if (!vo.limit && !vo.type && !vo.line && !vo.function && !vo.file && !vo.slices && !vo.from_ns &&
	    !vo.to_ns && !vo.level) {
		if (ds_diff_sessions(w->s, w->s2, r->view, &dopts, &d, err))
			return -1;
	} else {
		if (ds_view_build(w->s, r->view, &vo, &t[0], err)) {
			ds_err_prefix(err, "%s (before): ", w->o->input);
			goto out;
		}
		if (ds_view_build(w->s2, r->view, &vo, &t[1], err)) {
			ds_err_prefix(err, "%s (after): ", w->o->input2);
			goto out;
		}
		if (ds_diff_tables(t[0], t[1], &dopts, &d, err))
			goto out;
	}
	res->t = d->table;
	d->table = NULL;
	rc = 0;
out:
	ds_diff_free(d);
	ds_table_free(t[0]);
	ds_table_free(t[1]);
	return rc;
}

/* A group: each experiment gets the interface's memory objects and filter. */
static int group_prepare(ds_session *s, void *ctx, ds_err *err)
{
	const tui_worker *w = ctx;

	for (size_t i = 0; i < w->defs.n; i++)
		if (ds_session_add_mobj(s, w->defs.v[i], err))
			return -1;
	return w->filter ? ds_session_set_filter(s, w->filter, err) : 0;
}

/* A view of the session, or of the group merged. */
static int view_build(tui_worker *w, const char *view, const ds_view_opts *vo, ds_table **t, ds_err *err)
{
	if (!w->o->group)
		return ds_view_build(w->s, view, vo, t, err);
	return ds_merged_view(w->o->group, w->o->ngroup, w->o->merge, &w->o->session, view, vo, group_prepare, NULL,
			      w, t, err);
}

static void build(tui_worker *w, const tui_req *r, bool partial)
{
	tui_res res;
	ds_err err = {0};

	memset(&res, 0, sizeof res);
	res.tab = r->tab;
	res.gen = r->gen;
	res.partial = partial;
	set_busy(w, true);
	if (w->s2) {
		if (build_diff(w, r, &res, &err)) {
			ds_table_free(res.t);
			ds_table_free(res.t2);
			res.t = res.t2 = NULL;
			res.msg = ds_xstrdup(err.msg);
		}
	} else if (view_build(w, r->view, &r->vo, &res.t, &err))
		res.msg = ds_xstrdup(err.msg);
	else if (r->view2 && view_build(w, r->view2, &r->vo, &res.t2, &err) && !w->o->group)
		res.msg = ds_xstrdup(err.msg); /* a group's second view may not merge (typestats): left out */
	post(w, &res);
}

/* Filters and memory objects change the session: done in order, each
 * answered with a result saying how it went. */
static void act(tui_worker *w, const tui_req *r)
{
	tui_res res;
	ds_err err = {0};
	int rc = 0;

	memset(&res, 0, sizeof res);
	res.kind = r->kind;
	res.tab = r->tab;
	res.arg = r->arg ? ds_xstrdup(r->arg) : NULL;
	set_busy(w, true);
	switch (r->kind) {
	case REQ_FILTER: {
		/* comparing, both sides or neither: AFTER's mistake puts BEFORE's filter back */
		char *was = w->s2 && ds_session_filter(w->s) ? ds_xstrdup(ds_session_filter(w->s)) : NULL;
		rc = ds_session_set_filter(w->s, r->arg && *r->arg ? r->arg : NULL, &err);
		if (!rc && w->s2 && (rc = ds_session_set_filter(w->s2, r->arg && *r->arg ? r->arg : NULL, &err))) {
			ds_err keep = {0};
			ds_session_set_filter(w->s, was, &keep);
		}
		free(was);
		if (!rc && w->o->group) {
			free(w->filter);
			w->filter = r->arg && *r->arg ? ds_xstrdup(r->arg) : NULL;
		}
		break;
	}
	case REQ_DEFINE:
		rc = ds_session_add_mobj(w->s, r->arg, &err);
		if (!rc && w->s2)
			rc = ds_session_add_mobj(w->s2, r->arg, &err);
		if (!rc && w->o->group)
			ds_vec_push(&w->defs, ds_xstrdup(r->arg));
		break;
	case REQ_SUGGEST: {
		ds_buf b = {0};
		if (w->o->group)
			rc = ds_err_set(&err, DS_EINPUT, "a layout suggestion reads one experiment: open one of the group's");
		else if (!(rc = ds_session_suggest(w->s, r->arg, NULL, &b, &err)))
			res.text = ds_buf_steal(&b);
		ds_buf_free(&b);
		break;
	}
	case REQ_MOBJS: {
		const ds_mobjs *objs = ds_session_mobjs(w->s, &err);
		if (!objs) {
			rc = -1;
			break;
		}
		res.mobjs = ds_xcalloc(objs->n ? objs->n : 1, sizeof *res.mobjs);
		res.nmobjs = objs->n;
		for (size_t i = 0; i < objs->n; i++) {
			res.mobjs[i].name = ds_xstrdup(objs->v[i].name);
			res.mobjs[i].text = ds_xstrdup(objs->v[i].text);
			res.mobjs[i].error = objs->v[i].error ? ds_xstrdup(objs->v[i].error) : NULL;
			res.mobjs[i].origin = (int)objs->v[i].origin;
		}
		break;
	}
	case REQ_VIEW:
		break;
	}
	if (rc)
		res.msg = ds_xstrdup(err.msg);
	post(w, &res);
}

static void fail(tui_worker *w, const ds_err *err)
{
	pthread_mutex_lock(&w->mu);
	snprintf(w->st.error, sizeof w->st.error, "%s", err->msg);
	pthread_mutex_unlock(&w->mu);
	poke(w);
}

/* The experiment; comparing, both, each read to its end (a diff needs
 * every sample of both sides). */
static int open_session(tui_worker *w, bool deferred, ds_err *err)
{
	ds_session_opts so = w->o->session;
	so.progress = false;
	so.deferred = deferred && !w->o->input2 && !w->o->group;
	if (w->o->group) {
		so.label = w->o->group[0].label;
		so.lenient_names = true; /* another experiment may have the filter's names */
	}
	if (ds_session_open(w->o->input, &so, &w->s, err))
		return -1;
	if (!w->o->input2)
		return 0;
	if (ds_session_open(w->o->input2, &so, &w->s2, err))
		return -1;
	/* a filter's names may be either side's */
	ds_session_pair(w->s, w->s2);
	ds_session_pair(w->s2, w->s);
	return 0;
}

/* Status of sessions read to their end. */
static void set_loaded(tui_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->st.open = w->st.loaded = w->st.ready = true;
	w->st.fraction = 1;
	w->st.samples = ds_session_samples(w->s) + (w->s2 ? ds_session_samples(w->s2) : 0);
	pthread_mutex_unlock(&w->mu);
}

static void *run(void *arg)
{
	tui_worker *w = arg;
	tui_req *refresh = NULL, *held = NULL; /* a partial view to rebuild; a view waiting for all samples */
	double last = 0, opened;
	bool loaded = false, prepared = false;
	ds_err err = {0};

	if (open_session(w, true, &err)) {
		fail(w, &err);
		return NULL;
	}
	if (w->o->input2) {
		set_loaded(w);
		loaded = prepared = true;
	} else {
		pthread_mutex_lock(&w->mu);
		w->st.open = true;
		pthread_mutex_unlock(&w->mu);
	}
	poke(w);
	opened = ds_now();
	for (;;) {
		tui_req *req;
		int rc;

		pthread_mutex_lock(&w->mu);
		while (loaded && prepared && !w->want && !w->actions.n && !w->later.n && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit) {
			pthread_mutex_unlock(&w->mu);
			break;
		}
		if (w->actions.n) {
			req = w->actions.v[0];
			memmove(w->actions.v, w->actions.v + 1, (w->actions.n - 1) * sizeof *w->actions.v);
			w->actions.n--;
			pthread_mutex_unlock(&w->mu);
			act(w, req);
			tui_req_free(req);
			/* a filter reads a deferred session to its end */
			if (!loaded && ds_session_loaded(w->s) >= 1.0) {
				rc = 0;
				goto loaded_now;
			}
			continue;
		}
		req = w->want;
		w->want = NULL;
		if (!req && loaded && prepared && w->later.n) {
			req = w->later.v[0];
			memmove(w->later.v, w->later.v + 1, (w->later.n - 1) * sizeof *w->later.v);
			w->later.n--;
		}
		pthread_mutex_unlock(&w->mu);

		if (loaded) {
			if (req) {
				build(w, req, false);
				tui_req_free(req);
			} else {
				/* attribute the samples to data objects now, not on the first data tab */
				ds_table *t = NULL;
				set_busy(w, true);
				if (!w->o->group && ds_view_build(w->s, "typestats", NULL, &t, &err) == 0)
					ds_table_free(t);
				prepared = true;
				pthread_mutex_lock(&w->mu);
				w->st.ready = true;
				w->st.busy = false;
				pthread_mutex_unlock(&w->mu);
				poke(w);
			}
			continue;
		}
		if (req) {
			drop(w, refresh);
			refresh = NULL;
			if (req->partial_ok) {
				refresh = req;
				last = 0;
			} else {
				drop(w, held);
				held = req;
			}
		}
		/* the first partial view once there is something to show */
		if (refresh && (last ? ds_now() - last > REFRESH_S : ds_now() - opened > FIRST_S)) {
			build(w, refresh, true);
			last = ds_now();
		}
		rc = ds_session_load(w->s, STEP_S, &err);
		if (rc < 0) {
			fail(w, &err);
			break;
		}
	loaded_now:
		pthread_mutex_lock(&w->mu);
		w->st.fraction = ds_session_loaded(w->s);
		w->st.samples = ds_session_samples(w->s);
		w->st.loaded = loaded = rc == 0;
		pthread_mutex_unlock(&w->mu);
		poke(w);
		if (loaded) {
			/* the final numbers of what the interface shows */
			if (refresh)
				build(w, refresh, false);
			if (held)
				build(w, held, false);
			tui_req_free(refresh);
			tui_req_free(held);
			refresh = held = NULL;
		}
	}
	tui_req_free(refresh);
	tui_req_free(held);
	return NULL;
}

tui_worker *worker_new(const tui_opts *o, bool threaded)
{
	tui_worker *w = ds_xcalloc(1, sizeof *w);
	w->o = o;
	w->threaded = threaded;
	w->wake[0] = w->wake[1] = -1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (!threaded) {
		ds_err err = {0};
		if (open_session(w, false, &err)) {
			snprintf(w->st.error, sizeof w->st.error, "%s", err.msg);
			return w;
		}
		set_loaded(w);
		return w;
	}
	if (pipe2(w->wake, O_CLOEXEC | O_NONBLOCK) < 0 || pthread_create(&w->thr, NULL, run, w) != 0) {
		snprintf(w->st.error, sizeof w->st.error, "cannot start the thread that reads the experiment");
		w->threaded = false;
	}
	return w;
}

void worker_free(tui_worker *w)
{
	if (!w)
		return;
	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->quit = true;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		/* a view being built finishes first: analyze/ cannot be interrupted */
		pthread_join(w->thr, NULL);
	}
	tui_req_free(w->want);
	for (size_t i = 0; i < w->actions.n; i++)
		tui_req_free(w->actions.v[i]);
	ds_vec_free(&w->actions);
	for (size_t i = 0; i < w->later.n; i++)
		tui_req_free(w->later.v[i]);
	ds_vec_free(&w->later);
	for (size_t i = 0; i < w->results.n; i++)
		tui_res_fini(&w->results.v[i]);
	ds_vec_free(&w->results);
	ds_session_close(w->s);
	ds_session_close(w->s2);
	free(w->filter);
	for (size_t i = 0; i < w->defs.n; i++)
		free(w->defs.v[i]);
	ds_vec_free(&w->defs);
	if (w->wake[0] >= 0) {
		close(w->wake[0]);
		close(w->wake[1]);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}

void worker_status(tui_worker *w, tui_status *st)
{
	pthread_mutex_lock(&w->mu);
	*st = w->st;
	pthread_mutex_unlock(&w->mu);
}

const ds_meta *worker_meta(tui_worker *w)
{
	/* set before the status said open, never changed after */
	return w->s ? ds_session_meta(w->s) : NULL;
}

void worker_request(tui_worker *w, tui_req *r)
{
	if (!w->threaded) {
		if (w->s && r->kind == REQ_VIEW)
			build(w, r, false);
		else if (w->s)
			act(w, r);
		tui_req_free(r);
		return;
	}
	pthread_mutex_lock(&w->mu);
	if (r->kind == REQ_VIEW && r->prefetch) {
		ds_vec_push(&w->later, r);
	} else if (r->kind == REQ_VIEW) {
		if (w->want)
			push_dropped(w, w->want);
		tui_req_free(w->want);
		w->want = r;
	} else {
		ds_vec_push(&w->actions, r);
	}
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

bool worker_result(tui_worker *w, tui_res *out)
{
	bool any;
	char drain[64];
	if (w->wake[0] >= 0)
		while (read(w->wake[0], drain, sizeof drain) > 0)
			;
	pthread_mutex_lock(&w->mu);
	any = w->results.n > 0;
	if (any) {
		*out = w->results.v[0];
		memmove(w->results.v, w->results.v + 1, (w->results.n - 1) * sizeof *w->results.v);
		w->results.n--;
	}
	pthread_mutex_unlock(&w->mu);
	return any;
}

int worker_wake_fd(tui_worker *w)
{
	return w->wake[0];
}
