/* meta.json: what dsprof knows about a run beyond what perf.data says. */
#include "experiment/experiment.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define META_FORMAT "dsprof-experiment"
#define META_VERSION 1

void ds_meta_init(ds_meta *m)
{
	memset(m, 0, sizeof *m);
	m->attach_pid = -1;
	m->rank = -1;
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
		m->events[i].precise = ds_event_precise(e);
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
	for (size_t i = 0; i < m->nproblems; i++)
		free(m->problems[i]);
	free(m->problems);
	free(m->exit_signal);
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

int ds_meta_write(const ds_meta *m, ds_wdir *dir, ds_err *err)
{
	ds_buf b = {0};
	ds_jw w;
	int rc;

	ds_jw_init(&w, &b, true);
	ds_jw_obj_begin(&w);
	ds_jw_key(&w, "format"); ds_jw_str(&w, META_FORMAT);
	ds_jw_key(&w, "format_version"); ds_jw_u64(&w, META_VERSION);
	ds_jw_key(&w, "dsprof_version"); ds_jw_str(&w, m->dsprof_version ? m->dsprof_version : DSPROF_VERSION);
	put_strv(&w, "argv", m->argv, m->argc);
	put_strv(&w, "target", m->target, m->ntarget);
	ds_jw_key(&w, "attach_pid"); ds_jw_i64(&w, m->attach_pid);
	ds_jw_key(&w, "rank"); ds_jw_i64(&w, m->rank);
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
	ds_jw_key(&w, "exit_signal"); ds_jw_str(&w, m->exit_signal);
	ds_jw_key(&w, "source_file"); ds_jw_str(&w, m->source_file);
	ds_jw_obj_end(&w);
	ds_buf_putc(&b, '\n');

	/* write-then-rename: a reader never sees half a meta.json */
	rc = ds_wdir_write_file(dir, "meta.json", b.p, b.len, err);
	ds_buf_free(&b);
	return rc;
}

/* ---- reading: every value is checked ----
 * A value that cannot be (a page of 3 bytes, a 48-byte cache line, -5 CPUs,
 * a start 1e308 seconds after 1970) is one line in m->problems naming the
 * field and its value, and the field stays unknown: the rest of the
 * experiment still opens, and nothing downstream computes with it. */

enum { U_POW2 = 1, U_ZERO = 2 /* 0 is allowed: it means unknown */ };

/* The latest a wall-clock time may be: the year 5138, in Unix seconds. */
#define WALL_MAX 1e11

/* A value as meta.json has it, shortened, for a message. */
static void json_text(ds_buf *b, const ds_json *v)
{
	switch (v->type) {
	case DS_JNULL: ds_buf_puts(b, "null"); break;
	case DS_JBOOL: ds_buf_puts(b, v->b ? "true" : "false"); break;
	case DS_JNUM:
		if (v->is_int && v->num < 0)
			ds_buf_printf(b, "%lld", (long long)v->i64);
		else if (v->is_int)
			ds_buf_printf(b, "%llu", (unsigned long long)v->u64);
		else
			ds_buf_printf(b, "%g", v->num);
		break;
	case DS_JSTR: ds_buf_printf(b, "\"%.40s%s\"", v->str, strlen(v->str) > 40 ? "..." : ""); break;
	case DS_JARR: ds_buf_puts(b, "(a list)"); break;
	case DS_JOBJ: ds_buf_puts(b, "(an object)"); break;
	}
}

/* "meta.json: AT.KEY VALUE WHY; taken as unknown" into m->problems. */
static void bad(ds_meta *m, const char *at, const char *key, const ds_json *v, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void bad(ds_meta *m, const char *at, const char *key, const ds_json *v, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;

	ds_buf_printf(&b, "meta.json: %s%s%s ", at ? at : "", at && key ? "." : "", key ? key : "");
	json_text(&b, v);
	ds_buf_putc(&b, ' ');
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ds_buf_puts(&b, "; taken as unknown");
	m->problems = ds_xrealloc(m->problems, (m->nproblems + 1) * sizeof *m->problems);
	m->problems[m->nproblems++] = ds_buf_steal(&b);
}

/* o.key when it is a whole number from lo to hi (a power of two with
 * U_POW2; 0 also with U_ZERO); false when absent or bad (said). */
static bool get_uint(ds_meta *m, const ds_json *o, const char *at, const char *key, uint64_t lo,
		     uint64_t hi, int flags, uint64_t *out)
{
	const ds_json *v = ds_json_get(o, key);
	uint64_t u;

	if (!v)
		return false;
	u = v->u64;
	if (v->type != DS_JNUM || !v->is_int || v->num < 0 ||
	    !((u >= lo && u <= hi && (!(flags & U_POW2) || !(u & (u - 1)))) || (u == 0 && (flags & U_ZERO)))) {
		char top[24];
		if (hi == UINT64_MAX)
			snprintf(top, sizeof top, "2^64-1");
		else
			snprintf(top, sizeof top, "%llu", (unsigned long long)hi);
		bad(m, at, key, v, "is not %s from %llu to %s%s", flags & U_POW2 ? "a power of two" : "a whole number",
		    (unsigned long long)lo, top, flags & U_ZERO ? " (or 0, unknown)" : "");
		return false;
	}
	*out = u;
	return true;
}

static bool get_int(ds_meta *m, const ds_json *o, const char *at, const char *key, int64_t lo, int64_t hi,
		    int64_t *out)
{
	const ds_json *v = ds_json_get(o, key);

	if (!v)
		return false;
	if (v->type != DS_JNUM || !v->is_int || v->i64 < lo || v->i64 > hi || (v->num >= 0 && v->u64 > INT64_MAX)) {
		bad(m, at, key, v, "is not a whole number from %lld to %lld", (long long)lo, (long long)hi);
		return false;
	}
	*out = v->i64;
	return true;
}

/* A copy of the string o.key; NULL when absent, null or not a string (said). */
static char *get_str(ds_meta *m, const ds_json *o, const char *at, const char *key)
{
	const ds_json *v = ds_json_get(o, key);

	if (!v || v->type == DS_JNULL)
		return NULL;
	if (v->type != DS_JSTR) {
		bad(m, at, key, v, "is not a string");
		return NULL;
	}
	return ds_xstrdup(v->str);
}

static bool get_bool(ds_meta *m, const ds_json *o, const char *key)
{
	const ds_json *v = ds_json_get(o, key);

	if (v && v->type != DS_JBOOL)
		bad(m, NULL, key, v, "is not true or false");
	return v && v->type == DS_JBOOL && v->b;
}

/* The strings of the list o.key (NULL when absent or null). */
static char **get_strv(ds_meta *m, const ds_json *o, const char *key, int *n)
{
	const ds_json *a = ds_json_get(o, key);
	char **v;

	*n = 0;
	if (!a || a->type == DS_JNULL)
		return NULL;
	if (a->type != DS_JARR) {
		bad(m, NULL, key, a, "is not a list of strings");
		return NULL;
	}
	v = ds_xcalloc(a->n + 1, sizeof *v);
	for (size_t i = 0; i < a->n; i++) {
		char at[48];
		if (a->items[i]->type == DS_JSTR) {
			v[(*n)++] = ds_xstrdup(a->items[i]->str);
			continue;
		}
		snprintf(at, sizeof at, "%s[%zu]", key, i);
		bad(m, at, NULL, a->items[i], "is not a string");
	}
	return v;
}

/* start or end: wall (Unix seconds) and ns (the samples' clock). */
static void get_time(ds_meta *m, const ds_json *o, const char *key, double *wall, uint64_t *ns)
{
	const ds_json *t = ds_json_get(o, key), *w = ds_json_get(t, "wall");

	if (t && t->type != DS_JOBJ) {
		bad(m, NULL, key, t, "is not an object with wall and ns");
		return;
	}
	if (w && (w->type != DS_JNUM || !isfinite(w->num) || w->num < 0 || w->num >= WALL_MAX))
		bad(m, key, "wall", w, "is not a time in Unix seconds from 0 to %g", WALL_MAX);
	else if (w)
		*wall = w->num;
	get_uint(m, t, key, "ns", 0, UINT64_MAX, 0, ns);
}

/* One cache level; false when the level is unknown (said). */
static bool get_cache(ds_meta *m, const ds_json *c, size_t i, ds_cache_level *l)
{
	static const char *const types[] = {"Data", "Instruction", "Unified"};
	static const char *const needed[] = {"level", "type", "size", "line"};
	char at[32];
	int64_t lv;
	uint64_t size, line, u;
	char *type;
	bool ok = false;

	snprintf(at, sizeof at, "caches[%zu]", i);
	memset(l, 0, sizeof *l);
	if (c->type != DS_JOBJ) {
		bad(m, at, NULL, c, "is not an object");
		return false;
	}
	/* a level without its number, type, size or line is no level at all */
	for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
		if (!ds_json_get(c, needed[k])) {
			bad(m, at, NULL, c, "has no %s", needed[k]);
			return false;
		}
	if (!get_int(m, c, at, "level", 1, 4, &lv) || !get_uint(m, c, at, "size", 1, 1ull << 40, 0, &size) ||
	    !get_uint(m, c, at, "line", 8, 4096, U_POW2, &line) || !(type = get_str(m, c, at, "type")))
		return false;
	for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
		ok |= strcmp(type, types[k]) == 0;
	if (!ok) {
		bad(m, at, "type", ds_json_get(c, "type"), "is not Data, Instruction or Unified");
		free(type);
		return false;
	}
	l->level = (int)lv;
	snprintf(l->type, sizeof l->type, "%s", type);
	free(type);
	l->size = size;
	l->line = (unsigned)line;
	if (get_uint(m, c, at, "ways", 1, 1u << 16, U_ZERO, &u))
		l->ways = (unsigned)u;
	if (get_uint(m, c, at, "sets", 1, 1u << 30, U_ZERO, &u))
		l->sets = (unsigned)u;
	if (l->ways && l->sets && (uint64_t)l->ways * l->sets * l->line != l->size) {
		bad(m, at, "sets", ds_json_get(c, "sets"),
		    "does not make the size: %u ways x %u sets x %u-byte lines is not %llu bytes", l->ways, l->sets,
		    l->line, (unsigned long long)l->size);
		l->sets = 0;
	}
	type = get_str(m, c, at, "shared_cpus");
	if (type)
		snprintf(l->shared_cpus, sizeof l->shared_cpus, "%s", type);
	free(type);
	return true;
}

int ds_meta_read(ds_meta *m, const char *path, ds_err *err)
{
	size_t len;
	char *text = ds_read_own(path, &len, err);
	ds_json *j;
	const ds_json *a;
	const char *fmt;
	uint64_t u;

	ds_meta_init(m);
	if (!text)
		return -1;
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
	m->dsprof_version = get_str(m, j, NULL, "dsprof_version");
	m->argv = get_strv(m, j, "argv", &m->argc);
	m->target = get_strv(m, j, "target", &m->ntarget);
	get_int(m, j, NULL, "attach_pid", -1, INT32_MAX, &m->attach_pid);
	get_int(m, j, NULL, "rank", -1, INT32_MAX, &m->rank);
	m->host = get_str(m, j, NULL, "host");
	m->kernel = get_str(m, j, NULL, "kernel");
	m->arch = get_str(m, j, NULL, "arch");
	m->cpu_model = get_str(m, j, NULL, "cpu_model");
	/* 0: an import of a recording that did not say (another machine's) */
	if (get_uint(m, j, NULL, "ncpus", 1, 65536, U_ZERO, &u))
		m->ncpus = (unsigned)u;
	get_uint(m, j, NULL, "page_size", 4096, 1ull << 30, U_POW2 | U_ZERO, &m->page_size);
	if (get_uint(m, j, NULL, "huge_page_size", 8192, 1ull << 34, U_POW2 | U_ZERO, &u)) {
		if (u && m->page_size && u <= m->page_size)
			bad(m, NULL, "huge_page_size", ds_json_get(j, "huge_page_size"), "is not larger than page_size %llu",
			    (unsigned long long)m->page_size);
		else
			m->huge_page_size = u;
	}
	if (get_uint(m, j, NULL, "numa_nodes", 1, 4096, U_ZERO, &u))
		m->numa_nodes = (int)u;
	m->numa_map = get_str(m, j, NULL, "numa_map");
	a = ds_json_get(j, "caches");
	if (a && a->type != DS_JARR && a->type != DS_JNULL)
		bad(m, NULL, "caches", a, "is not a list of cache levels");
	for (size_t i = 0; a && a->type == DS_JARR && i < a->n; i++) {
		ds_cache_level l;
		if (!get_cache(m, a->items[i], i, &l))
			continue;
		if (m->ncaches == (int)(sizeof m->caches / sizeof m->caches[0])) {
			char at[32];
			snprintf(at, sizeof at, "caches[%zu]", i);
			bad(m, at, NULL, a->items[i], "is a level beyond the %d dsprof keeps", m->ncaches);
			break;
		}
		m->caches[m->ncaches++] = l;
	}
	m->cache_source = get_str(m, j, NULL, "cache_source");
	m->backend = get_str(m, j, NULL, "backend");
	m->clock = get_str(m, j, NULL, "clock");
	if (m->clock && strcmp(m->clock, "monotonic") && strcmp(m->clock, "perf") && strcmp(m->clock, "logical")) {
		bad(m, NULL, "clock", ds_json_get(j, "clock"), "is not monotonic, perf or logical");
		free(m->clock);
		m->clock = NULL;
	}
	a = ds_json_get(j, "events");
	if (a && a->type != DS_JARR && a->type != DS_JNULL)
		bad(m, NULL, "events", a, "is not a list of events");
	if (a && a->type == DS_JARR && a->n) {
		m->events = ds_xcalloc(a->n, sizeof *m->events);
		for (size_t i = 0; i < a->n; i++) {
			const ds_json *e = a->items[i];
			ds_meta_event *me = &m->events[m->nevents++];
			char at[32];
			snprintf(at, sizeof at, "events[%zu]", i);
			if (e->type != DS_JOBJ)
				bad(m, at, NULL, e, "is not an object");
			me->name = get_str(m, e, at, "name");
			if (!me->name)
				me->name = ds_xstrdup("?");
			me->source = get_str(m, e, at, "source");
			get_uint(m, e, at, "period", 0, UINT64_MAX, 0, &me->period);
			get_uint(m, e, at, "freq", 0, UINT64_MAX, 0, &me->freq);
			me->precise = ds_json_get(e, "precise") && ds_json_get(e, "precise")->type == DS_JBOOL &&
				      ds_json_get(e, "precise")->b;
		}
	}
	m->callchains = get_bool(m, j, "callchains");
	m->inherit = get_bool(m, j, "inherit");
	get_time(m, j, "start", &m->start_wall, &m->start_ns);
	get_time(m, j, "end", &m->end_wall, &m->end_ns);
	if (m->start_wall && m->end_wall && m->end_wall < m->start_wall) {
		bad(m, "end", "wall", ds_json_get(ds_json_get(j, "end"), "wall"), "is before start.wall %.3f",
		    m->start_wall);
		m->end_wall = 0;
	}
	if (m->start_ns && m->end_ns && m->end_ns < m->start_ns) {
		bad(m, "end", "ns", ds_json_get(ds_json_get(j, "end"), "ns"), "is before start.ns %llu",
		    (unsigned long long)m->start_ns);
		m->end_ns = 0;
	}
	get_uint(m, j, NULL, "samples", 0, UINT64_MAX, 0, &m->samples);
	get_uint(m, j, NULL, "lost", 0, UINT64_MAX, 0, &m->lost);
	get_uint(m, j, NULL, "lost_samples", 0, UINT64_MAX, 0, &m->lost_samples);
	get_uint(m, j, NULL, "throttled", 0, UINT64_MAX, 0, &m->throttled);
	get_int(m, j, NULL, "exit_status", -1, 255, &m->exit_status);
	m->exit_signal = get_str(m, j, NULL, "exit_signal");
	m->source_file = get_str(m, j, NULL, "source_file");
	ds_json_free(j);
	return 0;
}
