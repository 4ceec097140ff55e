/*
 * Views over a session: each one groups the unique instructions (or
 * threads, or events) into rows and sums their metrics.
 */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const view_names[] = {"functions", "lines", "pcs", "threads", "summary",
					  "samples", "dataobjects", "datalayout", "typestats", "callers",
					  "calltree", "bottomup", "annotate", "source", "timeline", "hotlines",
					  "sharing", "heap", "leaks", "accessmap", "lineuse", NULL};

const char *const *ds_view_names(void)
{
	return view_names;
}

/* ---- functions, threads: groupings by one key ---- */

static int view_functions(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const char *const keys[] = {"function"};
	return ds_group(s, keys, 1, &(group_opts){"functions", "function", true, false}, o, out, err);
}

static int view_threads(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const char *const keys[] = {"thread"};
	return ds_group(s, keys, 1, &(group_opts){"threads", "command", true, false}, o, out, err);
}

/* ---- lines ---- */

/* Function and line of every instruction charged samples; the first
 * query of an object loads its whole line table, which takes a while for
 * big ones. */
static void resolve_lines(ds_session *s, const ds_charge *c)
{
	ds_progress pr;
	ds_progress_begin(&pr, "reading line tables");
	for (size_t i = 0; i < c->nsites; i++) {
		if (!ds_charge_has(s, c, i))
			continue;
		if (s->opts.progress)
			ds_progress_update(&pr, i, s->sites.n);
		ds_site_resolve(s, i, true);
	}
	ds_progress_end(&pr);
}

enum { LN_FUNCTION, LN_MODULE, LN_FILE, LN_LINE, LN_DATAOBJECT, LN_NCOLS };

static int view_lines(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[LN_NCOLS] = {{"function", DS_COL_STR, true}, {"module", DS_COL_STR, true},
					      {"file", DS_COL_STR, false}, {"line", DS_COL_U64, false},
					      {"dataobject", DS_COL_STR, true}};
	tb b;
	ds_buf key = {0}, name = {0};
	ds_vec_u64 best = {0}; /* per row: samples of the site that named its data object */
	ds_charge c;

	if (ds_dataspace_build(s, err))
		return -1;
	tb_init(&b, s, "lines", "line", cols, LN_NCOLS, false);
	ds_charge_build(s, &c);
	resolve_lines(s, &c);
	for (size_t i = 0; i < c.nsites; i++) {
		const site *st = &s->sites.v[i];
		bool added;
		size_t r;
		uint64_t n;
		if (!ds_charge_has(s, &c, i))
			continue;
		site_line_name(s, i, &key, &name);
		r = tb_row(&b, key.p, key.len, name.p, &added);
		if (added) {
			tb_cell_str(&b.v.v[r], LN_FUNCTION, site_fname(s, i));
			tb_cell_str(&b.v.v[r], LN_MODULE, s->dsos.v[st->dso].module);
			if (st->file) {
				tb_cell_str(&b.v.v[r], LN_FILE, st->file);
				tb_cell_u64(&b.v.v[r], LN_LINE, st->line);
			}
			ds_vec_push(&best, 0);
		}
		/* a line's data object: that of its most charged instruction's
		 * samples, as they were taken */
		n = ds_charge_total(s, &c, i);
		if (n >= best.v[r]) {
			best.v[r] = n;
			site_trigger_cells(s, &b.v.v[r], c.lead.v[i], LN_DATAOBJECT, (size_t)-1, (size_t)-1);
		}
		ds_charge_add(s, &c, i, &b.v.v[r]);
	}
	ds_charge_free(&c);
	ds_vec_free(&best);
	ds_buf_free(&key);
	ds_buf_free(&name);
	return tb_finish(&b, o, out, err);
}

/* ---- pcs ---- */

enum {
	PC_ADDRESS, PC_MODULE, PC_FUNCTION, PC_OFFSET, PC_FILE, PC_LINE, PC_DISASM, PC_SAMPLED,
	PC_TRIGGER, PC_DATAOBJECT, PC_VERDICT, PC_NCOLS
};

static int view_pcs(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[PC_NCOLS] = {
		{"address", DS_COL_HEX, true}, {"module", DS_COL_STR, true},
		{"function", DS_COL_STR, false}, {"offset", DS_COL_HEX, false},
		{"file", DS_COL_STR, false}, {"line", DS_COL_U64, true}, {"disasm", DS_COL_STR, true},
		{"sampled", DS_COL_STR, true}, {"trigger", DS_COL_STR, true},
		{"dataobject", DS_COL_STR, true}, {"verdict", DS_COL_STR, true}};
	tb b;
	ds_buf name = {0};
	char text[160];
	ds_charge c;

	if (ds_dataspace_build(s, err))
		return -1;
	tb_init(&b, s, "pcs", "instruction", cols, PC_NCOLS, false);
	ds_charge_build(s, &c);
	resolve_lines(s, &c);
	for (size_t i = 0; i < c.nsites; i++) {
		const site *st = &s->sites.v[i];
		size_t r;
		if (!ds_charge_has(s, &c, i))
			continue;
		site_label(s, i, &name);
		r = tb_row(&b, &i, sizeof i, name.p, NULL);
		tb_cell_u64(&b.v.v[r], PC_ADDRESS, st->has_vaddr ? st->vaddr : st->off);
		tb_cell_str(&b.v.v[r], PC_MODULE, s->dsos.v[st->dso].module);
		tb_cell_str(&b.v.v[r], PC_FUNCTION, site_fname(s, i));
		if (st->sym)
			tb_cell_u64(&b.v.v[r], PC_OFFSET, st->vaddr - st->sym->start);
		if (st->file) {
			tb_cell_str(&b.v.v[r], PC_FILE, st->file);
			tb_cell_u64(&b.v.v[r], PC_LINE, st->line);
		}
		site_disasm(s, i, text, sizeof text);
		if (text[0])
			tb_cell_str(&b.v.v[r], PC_DISASM, text);
		/* the samples charged here were mostly taken at lead, itself or
		 * an instruction after it; the others where, in `sampled` */
		site_trigger_cells(s, &b.v.v[r], c.lead.v[i], PC_DATAOBJECT, PC_TRIGGER, PC_VERDICT);
		if (c.skid.v[i] != UINT32_MAX) {
			site_label(s, c.skid.v[i], &name);
			if (c.nskid.v[i] > 1)
				ds_buf_printf(&name, " (+%u more)", c.nskid.v[i] - 1);
			tb_cell_str(&b.v.v[r], PC_SAMPLED, name.p);
		}
		ds_charge_add(s, &c, i, &b.v.v[r]);
	}
	ds_charge_free(&c);
	ds_buf_free(&name);
	return tb_finish(&b, o, out, err);
}

/* ---- summary ---- */

enum { SU_PERIOD, SU_FREQ, SU_PRECISE, SU_NCOLS };

static void join_argv(ds_buf *b, char **v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			ds_buf_putc(b, ' ');
		ds_buf_puts(b, v[i]);
	}
}

/* When an event samples data addresses, the summary shows how often the
 * address computed from the trigger instruction and the registers agreed
 * with the one the kernel gave: a self-check of the backtracking. */
static void addr_check(ds_session *s, ds_table *t)
{
	ds_err e = {0};
	bool addr = false;
	for (size_t i = 0; i < s->nev; i++)
		addr |= (ds_session_event(s, i)->attr.sample_type & PERF_SAMPLE_ADDR) != 0;
	if (!addr)
		return;
	if (ds_dataspace_build(s, &e)) {
		tb_prop(t, "note", DS_PROP_TEXT, "address self-check unavailable: %s", e.msg);
		return;
	}
	tb_prop(t, "addresses_checked", DS_PROP_NUMBER, "%llu", (unsigned long long)s->ea_checked);
	tb_prop(t, "address_disagreements", DS_PROP_NUMBER, "%llu", (unsigned long long)s->ea_disagree);
}

/* Chains this session unwound from stack copies (a perf.data recorded
 * with perf's --call-graph dwarf; dsprof's own recordings were unwound
 * when they ended, and `dsprof record` said how): how they end. */
static void unwound(ds_session *s, ds_table *t)
{
	uint64_t all = 0;
	ds_buf b = {0};

	for (int e = 0; e < DS_CHAIN_NENDS; e++)
		all += s->chain_ends[e];
	if (!all)
		return;
	tb_prop(t, "chains_unwound", DS_PROP_NUMBER, "%llu", (unsigned long long)all);
	for (int e = 0; e < DS_CHAIN_NENDS; e++)
		if (s->chain_ends[e])
			ds_buf_printf(&b, "%s%s: %llu (%.1f%%)", b.len ? ", " : "", ds_chain_end_name(e),
				      (unsigned long long)s->chain_ends[e],
				      100.0 * (double)s->chain_ends[e] / (double)all);
	tb_prop(t, "chain_ends", DS_PROP_TEXT, "%s", ds_buf_str(&b));
	ds_buf_free(&b);
}

static int view_summary(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[SU_NCOLS] = {
		{"period", DS_COL_U64, true}, {"freq", DS_COL_U64, true}, {"precise", DS_COL_STR, true}};
	const ds_meta *m = &s->meta;
	ds_view_opts keep = {.sort = o ? o->sort : NULL};
	ds_buf b = {0};
	tb tbl;
	ds_table *t;

	tb_init(&tbl, s, "summary", "event", cols, SU_NCOLS, false);
	t = tbl.t;
	for (size_t e = 0; e < s->nev; e++) {
		size_t r = tb_row(&tbl, &e, sizeof e, t->events[e].name, NULL);
		if (t->events[e].period)
			tb_cell_u64(&tbl.v.v[r], SU_PERIOD, t->events[e].period);
		if (t->events[e].freq)
			tb_cell_u64(&tbl.v.v[r], SU_FREQ, t->events[e].freq);
		tb_cell_str(&tbl.v.v[r], SU_PRECISE, t->events[e].precise ? "yes" : "no");
		tbl.v.v[r].samples[e] = s->ev_samples[e];
		tbl.v.v[r].count[e] = s->ev_count[e];
	}
	tb_prop(t, "experiment", DS_PROP_TEXT, "%s", s->path);
	if (m->target) {
		join_argv(&b, m->target, m->ntarget);
		tb_prop(t, "command", DS_PROP_TEXT, "%s", b.p);
		ds_buf_reset(&b);
	} else if (m->attach_pid > 0) {
		tb_prop(t, "attached_pid", DS_PROP_NUMBER, "%lld", (long long)m->attach_pid);
	}
	if (!m->target && ds_perfdata_info(s->pd)->cmdline)
		tb_prop(t, "recorded_with", DS_PROP_TEXT, "%s", ds_perfdata_info(s->pd)->cmdline);
	tb_prop(t, "backend", DS_PROP_TEXT, "%s", m->backend ? m->backend : "perf_event");
	if (m->host)
		tb_prop(t, "host", DS_PROP_TEXT, "%s", m->host);
	if (m->kernel)
		tb_prop(t, "kernel", DS_PROP_TEXT, "%s", m->kernel);
	if (m->cpu_model)
		tb_prop(t, "cpu", DS_PROP_TEXT, "%s", m->cpu_model);
	if (m->ncpus)
		tb_prop(t, "cpus", DS_PROP_NUMBER, "%u", m->ncpus);
	if (m->start_wall > 0) {
		time_t w = (time_t)m->start_wall;
		struct tm tmv;
		char when[64];
		localtime_r(&w, &tmv);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tmv);
		tb_prop(t, "started", DS_PROP_TEXT, "%s", when);
	}
	if (m->clock && strcmp(m->clock, "logical") == 0) {
		/* the simulator's clock counts accesses, not time */
		if (m->start_wall > 0 && m->end_wall > m->start_wall)
			tb_prop(t, "duration_s", DS_PROP_NUMBER, "%.3f", m->end_wall - m->start_wall);
		if (m->end_ns > m->start_ns) /* a logical clock may start at 0 */
			tb_prop(t, "logical_time", DS_PROP_NUMBER, "%llu",
				(unsigned long long)(m->end_ns - m->start_ns));
	} else if (m->start_ns && m->end_ns > m->start_ns) {
		tb_prop(t, "duration_s", DS_PROP_NUMBER, "%.3f", (double)(m->end_ns - m->start_ns) / 1e9);
	} else if (s->last_time > s->first_time) {
		tb_prop(t, "duration_s", DS_PROP_NUMBER, "%.3f", (double)(s->last_time - s->first_time) / 1e9);
	}
	tb_prop(t, "samples", DS_PROP_NUMBER, "%llu", (unsigned long long)s->nsamples);
	tb_prop(t, "lost_records", DS_PROP_NUMBER, "%llu", (unsigned long long)s->lost);
	tb_prop(t, "lost_samples", DS_PROP_NUMBER, "%llu", (unsigned long long)s->lost_samples);
	tb_prop(t, "throttled", DS_PROP_NUMBER, "%llu", (unsigned long long)s->throttled);
	tb_prop(t, "callchains", DS_PROP_BOOL, "%s", s->callchains ? "yes" : "no");
	unwound(s, t);
	tb_prop(t, "unique_instructions", DS_PROP_NUMBER, "%zu", s->sites.n);
	tb_prop(t, "threads", DS_PROP_NUMBER, "%zu", s->threads.n);
	addr_check(s, t);
	if (m->exit_status >= 0)
		tb_prop(t, "exit_status", DS_PROP_NUMBER, "%lld", (long long)m->exit_status);
	if (m->exit_signal)
		tb_prop(t, "killed_by", DS_PROP_TEXT, "%s", m->exit_signal);
	for (size_t i = 0; i < s->notes.n; i++)
		tb_prop(t, "note", DS_PROP_TEXT, "%s", s->notes.v[i]);
	ds_buf_free(&b);
	return tb_finish(&tbl, &keep, out, err);
}

/* ---- samples: one row per sample, like perf script ----
 * What the sample recorded, then what dsprof made of it: the load or
 * store it is charged to, the data address (the sampled one, or computed
 * from the registers), and its data object, field and verdict, named as
 * the dimensions of those names name them. */

enum {
	SA_TIME, SA_PID, SA_TID, SA_CPU, SA_EVENT, SA_IP, SA_MODULE, SA_ADDR, SA_PHYS, SA_PERIOD,
	SA_TRIGGER, SA_DATA_ADDRESS, SA_ADDRESS_FROM, SA_DATAOBJECT, SA_FIELD, SA_VERDICT, SA_CALLPATH,
	SA_NCOLS
};
static const char *const sample_dims[] = {"dataobject", "field", "verdict", "callpath"};
#define NSAMPLE_DIMS (sizeof sample_dims / sizeof sample_dims[0])

/* The cells dsprof makes of record k. */
static void sample_data(ds_session *s, dim **d, size_t k, ds_row *w, ds_buf *name)
{
	const ds_srec *x = &s->srecs.v[k];
	const site_ds *sd = s->sites.v[x->site].ds;
	bool precise = (x->flags & SR_PRECISE) != 0;

	if (sd && !(x->flags & SR_KERNEL) && sd->done[precise] && sd->trig[precise].verdict == DS_BT_OK) {
		site_label(s, ds_charged_site(s, x->site, precise), name);
		tb_cell_str(w, SA_TRIGGER, ds_buf_str(name));
	}
	if (x->flags & SR_EA) {
		tb_cell_u64(w, SA_DATA_ADDRESS, x->ea);
		tb_cell_str(w, SA_ADDRESS_FROM,
			    ((x->flags >> SR_EA_SHIFT) & 3) == EA_FROM_ADDR ? "sample" : "registers");
	}
	for (size_t i = 0; i < NSAMPLE_DIMS; i++)
		tb_cell_str(w, SA_DATAOBJECT + i, dim_value_name(d[i], dim_id(d[i], k, x)));
}

static int view_samples(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err)
{
	static const ds_col cols[SA_NCOLS] = {
		{"time", DS_COL_U64, true}, {"pid", DS_COL_U64, true}, {"tid", DS_COL_U64, true},
		{"cpu", DS_COL_U64, true}, {"event", DS_COL_STR, true}, {"ip", DS_COL_HEX, true},
		{"module", DS_COL_STR, true}, {"addr", DS_COL_HEX, true},
		{"phys_addr", DS_COL_HEX, true}, {"period", DS_COL_U64, true},
		{"trigger", DS_COL_STR, true}, {"data_address", DS_COL_HEX, true},
		{"address_from", DS_COL_STR, false}, {"dataobject", DS_COL_STR, true},
		{"field", DS_COL_STR, true}, {"verdict", DS_COL_STR, true},
		{"callpath", DS_COL_STR, false}};
	ds_view_opts keep = {.sort = o && o->sort ? o->sort : "time", .limit = o ? o->limit : 0};
	uint64_t cur = 0, n = 0;
	dim *d[NSAMPLE_DIMS] = {NULL};
	ds_buf name = {0};
	size_t k = 0;
	ds_record r;
	tb b;
	int rc = 0;

	for (size_t i = 0; i < NSAMPLE_DIMS; i++)
		if (!(d[i] = dim_new(s, sample_dims[i], o, err))) {
			rc = -1;
			goto out;
		}
	tb_init(&b, s, "samples", "function", cols, SA_NCOLS, false);
	b.t->has_metrics = false;
	while ((rc = ds_perfdata_next(s->pd, &cur, &r, err)) > 0) {
		const ds_sample *sm = &r.u.sample;
		uint32_t si;
		size_t at;
		size_t row;
		ds_row *w;
		if (r.kind != DS_REC_SAMPLE || !ds_sample_wanted(s, sm->tid))
			continue;
		if (k >= s->srecs.n)
			continue;
		at = k++;
		while (k < s->srecs.n && !ds_srec_own(s, &s->srecs.v[k]))
			k++; /* its derived records: the same sample */
		if (!ds_srec_kept(s, at))
			continue;
		si = s->srecs.v[at].site;
		ds_site_resolve(s, si, false);
		row = tb_row(&b, &n, sizeof n, site_fname(s, si), NULL);
		n++;
		w = &b.v.v[row];
		if (sm->type & PERF_SAMPLE_TIME)
			tb_cell_u64(w, SA_TIME, sm->time);
		tb_cell_u64(w, SA_PID, sm->pid);
		tb_cell_u64(w, SA_TID, sm->tid);
		if (sm->type & PERF_SAMPLE_CPU)
			tb_cell_u64(w, SA_CPU, sm->cpu);
		tb_cell_str(w, SA_EVENT, b.t->events[r.evidx].name);
		tb_cell_u64(w, SA_IP, sm->ip);
		tb_cell_str(w, SA_MODULE, s->dsos.v[s->sites.v[si].dso].module);
		if (sm->type & PERF_SAMPLE_ADDR)
			tb_cell_u64(w, SA_ADDR, sm->addr);
		if (sm->type & PERF_SAMPLE_PHYS_ADDR)
			tb_cell_u64(w, SA_PHYS, sm->phys_addr);
		tb_cell_u64(w, SA_PERIOD, sm->period);
		sample_data(s, d, at, w, &name);
	}
	if (rc < 0) {
		tb_discard(&b);
		goto out;
	}
	rc = tb_finish(&b, &keep, out, err);
out:
	for (size_t i = 0; i < NSAMPLE_DIMS; i++)
		dim_free(d[i]);
	ds_buf_free(&name);
	return rc;
}

/* Every layer's state, from the top down: the data attribution holds sites
 * and types of the objects that loading opened. */
void ds_session_close(ds_session *s)
{
	if (!s)
		return;
	ds_timeline_free(s);
	ds_filter_free(s);
	ds_heap_free(s);
	ds_dataspace_free(s);
	ds_session_mobjs_free(s);
	ds_session_free_model(s);
}

int ds_view_build(ds_session *s, const char *view, const ds_view_opts *o, ds_table **out,
		  ds_err *err)
{
	static const struct {
		const char *name;
		int (*fn)(ds_session *, const ds_view_opts *, ds_table **, ds_err *);
	} views[] = {
		{"functions", view_functions}, {"lines", view_lines}, {"pcs", view_pcs},
		{"threads", view_threads}, {"summary", view_summary}, {"samples", view_samples},
		{"dataobjects", ds_view_dataobjects}, {"datalayout", ds_view_datalayout},
		{"typestats", ds_view_typestats}, {"callers", ds_view_callers},
		{"calltree", ds_view_calltree}, {"bottomup", ds_view_bottomup}, {"annotate", ds_view_annotate},
		{"source", ds_view_source}, {"timeline", ds_view_timeline},
		{"hotlines", ds_view_hotlines}, {"sharing", ds_view_sharing},
		{"heap", ds_view_heap}, {"leaks", ds_view_leaks}, {"accessmap", ds_view_accessmap},
		{"lineuse", ds_view_lineuse},
	};
	int rc = 1;

	ds_session_debug_notes(s, NULL); /* the summary lists the session's notes */
	for (size_t i = 0; i < sizeof views / sizeof views[0] && rc > 0; i++)
		if (strcmp(views[i].name, view) == 0)
			rc = views[i].fn(s, o, out, err);
	if (rc > 0 && strncmp(view, "memobj:", 7) == 0)
		rc = ds_view_memobj(s, view + 7, o, out, err);
	if (rc > 0 && strncmp(view, "by:", 3) == 0)
		rc = ds_view_by(s, view + 3, o, out, err);
	if (rc == 0) /* what building the view met in objects' debug information */
		ds_session_debug_notes(s, *out);
	if (rc <= 0)
		return rc;
	return ds_err_set(err, DS_EINPUT,
			  "unknown view '%s'; views: functions, lines, pcs, threads, summary, samples, "
			  "dataobjects, datalayout, typestats, callers, calltree, bottomup, annotate, source, timeline, hotlines, "
			  "sharing, heap, leaks, accessmap, lineuse, memobj:NAME",
			  view);
}
