/* meta.json: what dsprof knows about a run beyond what perf.data says. */
#include "experiment/experiment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define META_FORMAT "dsprof-experiment"
#define META_VERSION 1

void ds_meta_init(ds_meta *m)
{
	memset(m, 0, sizeof *m);
	m->attach_pid = -1;
	m->exit_status = -1;
}

static char *dup_or_null(const char *s)
{
	return s ? ds_xstrdup(s) : NULL;
}

void ds_meta_from_perfdata(ds_meta *m, const ds_perfdata *pd, const char *backend)
{
	const ds_perfdata_header_info *in = ds_perfdata_info(pd);

	ds_meta_init(m);
	m->host = dup_or_null(in->hostname);
	m->kernel = dup_or_null(in->osrelease);
	m->arch = dup_or_null(in->arch);
	m->cpu_model = dup_or_null(in->cpudesc);
	m->ncpus = in->nr_cpus_online;
	m->backend = ds_xstrdup(backend);
	m->clock = ds_xstrdup(in->clockid >= 0 ? "monotonic" : "perf");
	m->nevents = ds_perfdata_nevents(pd);
	m->events = ds_xcalloc(m->nevents ? m->nevents : 1, sizeof *m->events);
	for (size_t i = 0; i < m->nevents; i++) {
		const ds_event *e = ds_perfdata_event(pd, i);
		m->events[i].name = ds_xstrdup(e->name);
		m->events[i].period = e->attr.freq ? 0 : e->attr.sample_period;
		m->events[i].freq = e->attr.freq ? e->attr.sample_freq : 0;
		m->events[i].precise = ds_attr_precise(&e->attr);
		m->events[i].source = ds_xstrdup("perf.data");
		m->callchains |= (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
		m->inherit |= e->attr.inherit;
	}
	m->start_ns = in->first_sample_time;
	m->end_ns = in->last_sample_time;
	for (int i = 0; i < in->ncaches; i++)
		m->caches[m->ncaches++] = in->caches[i];
	if (m->ncaches)
		m->cache_source = ds_xstrdup("perf.data");
}

static void free_strv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void ds_meta_fini(ds_meta *m)
{
	free(m->dsprof_version);
	free_strv(m->argv, m->argc);
	free_strv(m->target, m->ntarget);
	free(m->host);
	free(m->kernel);
	free(m->arch);
	free(m->cpu_model);
	free(m->numa_map);
	free(m->cache_source);
	free(m->backend);
	free(m->clock);
	for (size_t i = 0; i < m->nevents; i++) {
		free(m->events[i].name);
		free(m->events[i].source);
	}
	free(m->events);
	free(m->source_file);
	ds_meta_init(m);
}

static void put_strv(ds_jw *w, const char *key, char **v, int n)
{
	ds_jw_key(w, key);
	if (!v) {
		ds_jw_null(w);
		return;
	}
	ds_jw_arr_begin(w);
	for (int i = 0; i < n; i++)
		ds_jw_str(w, v[i]);
	ds_jw_arr_end(w);
}

static void put_time(ds_jw *w, const char *key, double wall, uint64_t ns)
{
	ds_jw_key(w, key);
	ds_jw_obj_begin(w);
	ds_jw_key(w, "wall");
	ds_jw_double(w, wall);
	ds_jw_key(w, "ns");
	ds_jw_u64(w, ns);
	ds_jw_obj_end(w);
}

int ds_meta_write(const ds_meta *m, const char *path, ds_err *err)
{
	ds_buf b = {0};
	ds_jw w;
	char *tmp;
	int fd, rc = -1;

	ds_jw_init(&w, &b, true);
	ds_jw_obj_begin(&w);
	ds_jw_key(&w, "format"); ds_jw_str(&w, META_FORMAT);
	ds_jw_key(&w, "format_version"); ds_jw_u64(&w, META_VERSION);
	ds_jw_key(&w, "dsprof_version"); ds_jw_str(&w, m->dsprof_version ? m->dsprof_version : DSPROF_VERSION);
	put_strv(&w, "argv", m->argv, m->argc);
	put_strv(&w, "target", m->target, m->ntarget);
	ds_jw_key(&w, "attach_pid"); ds_jw_i64(&w, m->attach_pid);
	ds_jw_key(&w, "host"); ds_jw_str(&w, m->host);
	ds_jw_key(&w, "kernel"); ds_jw_str(&w, m->kernel);
	ds_jw_key(&w, "arch"); ds_jw_str(&w, m->arch);
	ds_jw_key(&w, "cpu_model"); ds_jw_str(&w, m->cpu_model);
	ds_jw_key(&w, "ncpus"); ds_jw_u64(&w, m->ncpus);
	ds_jw_key(&w, "page_size"); ds_jw_u64(&w, m->page_size);
	ds_jw_key(&w, "huge_page_size"); ds_jw_u64(&w, m->huge_page_size);
	ds_jw_key(&w, "numa_nodes"); ds_jw_u64(&w, (uint64_t)(m->numa_nodes > 0 ? m->numa_nodes : 0));
	ds_jw_key(&w, "numa_map"); ds_jw_str(&w, m->numa_map);
	ds_jw_key(&w, "caches");
	ds_jw_arr_begin(&w);
	for (int i = 0; i < m->ncaches; i++) {
		const ds_cache_level *c = &m->caches[i];
		ds_jw_obj_begin(&w);
		ds_jw_key(&w, "level"); ds_jw_i64(&w, c->level);
		ds_jw_key(&w, "type"); ds_jw_str(&w, c->type);
		ds_jw_key(&w, "size"); ds_jw_u64(&w, c->size);
		ds_jw_key(&w, "line"); ds_jw_u64(&w, c->line);
		ds_jw_key(&w, "ways"); ds_jw_u64(&w, c->ways);
		ds_jw_key(&w, "sets"); ds_jw_u64(&w, c->sets);
		ds_jw_key(&w, "shared_cpus"); ds_jw_str(&w, c->shared_cpus);
		ds_jw_obj_end(&w);
	}
	ds_jw_arr_end(&w);
	ds_jw_key(&w, "cache_source"); ds_jw_str(&w, m->cache_source);
	ds_jw_key(&w, "backend"); ds_jw_str(&w, m->backend);
	ds_jw_key(&w, "clock"); ds_jw_str(&w, m->clock);
	ds_jw_key(&w, "events");
	ds_jw_arr_begin(&w);
	for (size_t i = 0; i < m->nevents; i++) {
		const ds_meta_event *e = &m->events[i];
		ds_jw_obj_begin(&w);
		ds_jw_key(&w, "name"); ds_jw_str(&w, e->name);
		ds_jw_key(&w, "period"); ds_jw_u64(&w, e->period);
		ds_jw_key(&w, "freq"); ds_jw_u64(&w, e->freq);
		ds_jw_key(&w, "precise"); ds_jw_bool(&w, e->precise);
		ds_jw_key(&w, "source"); ds_jw_str(&w, e->source);
		ds_jw_obj_end(&w);
	}
	ds_jw_arr_end(&w);
	ds_jw_key(&w, "callchains"); ds_jw_bool(&w, m->callchains);
	ds_jw_key(&w, "inherit"); ds_jw_bool(&w, m->inherit);
	put_time(&w, "start", m->start_wall, m->start_ns);
	put_time(&w, "end", m->end_wall, m->end_ns);
	ds_jw_key(&w, "samples"); ds_jw_u64(&w, m->samples);
	ds_jw_key(&w, "lost"); ds_jw_u64(&w, m->lost);
	ds_jw_key(&w, "lost_samples"); ds_jw_u64(&w, m->lost_samples);
	ds_jw_key(&w, "throttled"); ds_jw_u64(&w, m->throttled);
	ds_jw_key(&w, "exit_status"); ds_jw_i64(&w, m->exit_status);
	ds_jw_key(&w, "source_file"); ds_jw_str(&w, m->source_file);
	ds_jw_obj_end(&w);
	ds_buf_putc(&b, '\n');

	/* write-then-rename: a reader never sees half a meta.json */
	tmp = ds_xasprintf("%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ds_err_set(err, DS_EENV, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (write(fd, b.p, b.len) != (ssize_t)b.len || fsync(fd) < 0) {
		ds_err_set(err, DS_EENV, "cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		ds_err_set(err, DS_EENV, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	ds_buf_free(&b);
	return rc;
}

static char **get_strv(const ds_json *o, const char *key, int *n)
{
	const ds_json *a = ds_json_get(o, key);
	char **v;
	*n = 0;
	if (!a || a->type != DS_JARR)
		return NULL;
	v = ds_xcalloc(a->n + 1, sizeof *v);
	for (size_t i = 0; i < a->n; i++)
		if (a->items[i]->type == DS_JSTR)
			v[(*n)++] = ds_xstrdup(a->items[i]->str);
	return v;
}

static void get_time(const ds_json *o, const char *key, double *wall, uint64_t *ns)
{
	const ds_json *t = ds_json_get(o, key);
	ds_json_get_double(t, "wall", wall);
	ds_json_get_u64(t, "ns", ns);
}

int ds_meta_read(ds_meta *m, const char *path, ds_err *err)
{
	size_t len;
	char *text = ds_read_file(path, &len);
	ds_json *j;
	const ds_json *a;
	const char *fmt;
	uint64_t u;

	ds_meta_init(m);
	if (!text)
		return ds_err_set(err, DS_EINPUT, "cannot read '%s': %s", path, strerror(errno));
	j = ds_json_parse(text, len, path, err);
	free(text);
	if (!j)
		return -1;
	fmt = ds_json_get_str(j, "format");
	if (j->type != DS_JOBJ || !fmt || strcmp(fmt, META_FORMAT) != 0) {
		ds_json_free(j);
		return ds_err_set(err, DS_EINPUT, "cannot read '%s': not a dsprof meta.json", path);
	}
	if (ds_json_get_u64(j, "format_version", &u) && u > META_VERSION) {
		ds_json_free(j);
		return ds_err_set(err, DS_EINPUT,
				  "cannot read '%s': format version %llu is newer than this dsprof "
				  "understands (%d); upgrade dsprof", path, (unsigned long long)u, META_VERSION);
	}
	m->dsprof_version = dup_or_null(ds_json_get_str(j, "dsprof_version"));
	m->argv = get_strv(j, "argv", &m->argc);
	m->target = get_strv(j, "target", &m->ntarget);
	ds_json_get_i64(j, "attach_pid", &m->attach_pid);
	m->host = dup_or_null(ds_json_get_str(j, "host"));
	m->kernel = dup_or_null(ds_json_get_str(j, "kernel"));
	m->arch = dup_or_null(ds_json_get_str(j, "arch"));
	m->cpu_model = dup_or_null(ds_json_get_str(j, "cpu_model"));
	if (ds_json_get_u64(j, "ncpus", &u))
		m->ncpus = (unsigned)u;
	ds_json_get_u64(j, "page_size", &m->page_size);
	ds_json_get_u64(j, "huge_page_size", &m->huge_page_size);
	if (ds_json_get_u64(j, "numa_nodes", &u) && u <= 4096)
		m->numa_nodes = (int)u;
	m->numa_map = dup_or_null(ds_json_get_str(j, "numa_map"));
	a = ds_json_get(j, "caches");
	for (size_t i = 0; a && a->type == DS_JARR && i < a->n && m->ncaches < 8; i++) {
		const ds_json *c = a->items[i];
		ds_cache_level *l = &m->caches[m->ncaches++];
		int64_t lv = 0;
		const char *s;
		ds_json_get_i64(c, "level", &lv);
		l->level = (int)lv;
		if ((s = ds_json_get_str(c, "type")))
			snprintf(l->type, sizeof l->type, "%s", s);
		ds_json_get_u64(c, "size", &l->size);
		if (ds_json_get_u64(c, "line", &u)) l->line = (unsigned)u;
		if (ds_json_get_u64(c, "ways", &u)) l->ways = (unsigned)u;
		if (ds_json_get_u64(c, "sets", &u)) l->sets = (unsigned)u;
		if ((s = ds_json_get_str(c, "shared_cpus")))
			snprintf(l->shared_cpus, sizeof l->shared_cpus, "%s", s);
	}
	m->cache_source = dup_or_null(ds_json_get_str(j, "cache_source"));
	m->backend = dup_or_null(ds_json_get_str(j, "backend"));
	m->clock = dup_or_null(ds_json_get_str(j, "clock"));
	a = ds_json_get(j, "events");
	if (a && a->type == DS_JARR && a->n) {
		m->events = ds_xcalloc(a->n, sizeof *m->events);
		for (size_t i = 0; i < a->n; i++) {
			const ds_json *e = a->items[i];
			const ds_json *p = ds_json_get(e, "precise");
			ds_meta_event *me = &m->events[m->nevents++];
			me->name = ds_xstrdup(ds_json_get_str(e, "name") ? ds_json_get_str(e, "name") : "?");
			me->source = dup_or_null(ds_json_get_str(e, "source"));
			ds_json_get_u64(e, "period", &me->period);
			ds_json_get_u64(e, "freq", &me->freq);
			me->precise = p && p->type == DS_JBOOL && p->b;
		}
	}
	a = ds_json_get(j, "callchains");
	m->callchains = a && a->type == DS_JBOOL && a->b;
	a = ds_json_get(j, "inherit");
	m->inherit = a && a->type == DS_JBOOL && a->b;
	get_time(j, "start", &m->start_wall, &m->start_ns);
	get_time(j, "end", &m->end_wall, &m->end_ns);
	ds_json_get_u64(j, "samples", &m->samples);
	ds_json_get_u64(j, "lost", &m->lost);
	ds_json_get_u64(j, "lost_samples", &m->lost_samples);
	ds_json_get_u64(j, "throttled", &m->throttled);
	ds_json_get_i64(j, "exit_status", &m->exit_status);
	m->source_file = dup_or_null(ds_json_get_str(j, "source_file"));
	ds_json_free(j);
	return 0;
}
