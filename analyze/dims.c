/*
 * Dimensions: the ways samples are told apart.
 *
 * Each dimension is defined once, in the table at the end of this file: its
 * name and help line, the columns it fills, how a record's value is found
 * (a dense id: the values met are numbered 0, 1, ... in the order met), how
 * a value is named and, for numbers, what number it is, and how a filter
 * compares it.  Groupings (--by and the views built on them) count records
 * by these ids; the filter reads the same values, so a filter operand and
 * a grouping key are always the same thing.
 *
 * A record's value is cheap to find: what is costly (a function's symbol,
 * a line, a type's name) is looked up once per unique instruction or data
 * object and kept in a table the record indexes; values of addresses
 * (cache lines, pages, memory objects) go through one 64-bit map.
 */
#include "analyze/analyze_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Time slices of the `time` dimension when --slices does not say. */
#define DIM_TIME_SLICES 10

/* ---- values ---- */

/* The id of raw value v, made when new. */
static uint32_t value_id(dim *d, uint64_t v)
{
	bool added;
	uint32_t id = ds_u64map_put(&d->index, v, (uint32_t)d->raw.n, &added);
	if (added) {
		ds_vec_push(&d->raw, v);
		ds_vec_push(&d->names, NULL);
	}
	return id;
}

/* The id of a value named by a string (its key), made when new with that
 * name. */
static uint32_t named_id(dim *d, const char *key, size_t len, const char *name)
{
	bool added;
	size_t id;

	if (!d->strings)
		d->strings = ds_hash_new();
	id = ds_hash_intern(d->strings, key, len, &added);
	if (added) {
		ds_vec_push(&d->raw, 0);
		ds_vec_push(&d->names, ds_xstrdup(name));
	}
	return (uint32_t)id;
}

/* A per-site (or per-object) memo of ids: UINT32_MAX until known. */
static uint32_t *memo_at(ds_vec_u32 *m, size_t i)
{
	while (m->n <= i)
		ds_vec_push(m, UINT32_MAX);
	return &m->v[i];
}

const char *dim_value_name(dim *d, uint32_t id)
{
	if (!d->names.v[id]) {
		ds_buf b = {0};
		d->def->value_name(d, id, &b);
		d->names.v[id] = ds_buf_steal(&b);
	}
	return d->names.v[id];
}

bool dim_value_number(dim *d, uint32_t id, int64_t *v)
{
	return d->def->number && d->def->number(d, id, v);
}

/* ---- function, module: of the sampled instruction, and along chains ---- */

static uint32_t fn_site(dim *d, uint32_t si)
{
	uint32_t *m = memo_at(&d->memo, si);
	if (*m == UINT32_MAX) {
		fkey k = site_fkey(d->s, si);
		bool added;
		size_t id;
		if (!d->strings)
			d->strings = ds_hash_new();
		id = ds_hash_intern(d->strings, &k, sizeof k, &added);
		if (added) {
			ds_vec_push(&d->raw, si); /* a site of the function: its name, module, start */
			ds_vec_push(&d->names, NULL);
		}
		m = memo_at(&d->memo, si);
		*m = (uint32_t)id;
	}
	return *m;
}

static uint32_t fn_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return fn_site(d, r->site);
}

static void fn_name(dim *d, uint32_t id, ds_buf *out)
{
	ds_buf_puts(out, site_fname(d->s, d->raw.v[id]));
}

static void fn_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	const site *st = &d->s->sites.v[d->raw.v[id]];
	tb_cell_str(r, c, dim_value_name(d, id));
	tb_cell_str(r, c + 1, d->s->dsos.v[st->dso].module);
	if (st->sym)
		tb_cell_u64(r, c + 2, st->sym->start);
}

static uint32_t module_site(dim *d, uint32_t si)
{
	return value_id(d, d->s->sites.v[si].dso);
}

static uint32_t module_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return module_site(d, r->site);
}

static void module_name(dim *d, uint32_t id, ds_buf *out)
{
	ds_buf_puts(out, d->s->dsos.v[d->raw.v[id]].module);
}

/* ---- callpath: the whole call chain, as flame-graph tools fold it ---- */

/* "main;top;mid_b;leaf": the outermost caller first, functions only (an
 * inlined function is its caller's, as in perf's folded output without
 * --inline).  Chains that differ only in call sites are one path.  A ';'
 * in a name becomes ':'. */
static void fold_chain(ds_session *s, uint32_t chain, ds_buf *out)
{
	const uint32_t *key;
	size_t len;

	if (chain == UINT32_MAX) {
		ds_buf_puts(out, "<no call chain>");
		return;
	}
	key = ds_chain_sites(s, chain, &len);
	for (size_t k = len; k-- > 0;) {
		size_t at;
		ds_site_resolve(s, key[k], false);
		if (k + 1 < len)
			ds_buf_putc(out, ';');
		/* a ';' of a name would cut it into two frames */
		at = out->len;
		ds_buf_puts(out, site_fname(s, key[k]));
		for (char *c = out->p + at; (c = strchr(c, ';')); c++)
			*c = ':';
	}
}

/* The path of a chain: chains of other instructions in the same functions
 * fold into the same path (tens of thousands of chains into thousands of
 * paths, on SQLite), so a chain is first looked up by its frames' names as
 * the addresses of their strings, one word a frame, and folded into text
 * only when that sequence is new. */
static uint32_t callpath_id(dim *d, size_t i, const ds_srec *r)
{
	uint32_t *m = memo_at(&d->memo, r->chain == UINT32_MAX ? 0 : (size_t)r->chain + 1);
	(void)i;
	if (*m == UINT32_MAX) {
		ds_buf b = {0};
		const char *name;
		uint32_t id;
		size_t p = SIZE_MAX;
		bool added = true;
		if (r->chain != UINT32_MAX) {
			size_t len;
			const uint32_t *key = ds_chain_sites(d->s, r->chain, &len);
			ds_vec_u64 names = {0};
			for (size_t k = 0; k < len; k++) {
				ds_site_resolve(d->s, key[k], false);
				ds_vec_push(&names, (uint64_t)(uintptr_t)site_fname(d->s, key[k]));
			}
			if (!d->paths)
				d->paths = ds_hash_new();
			p = ds_hash_intern(d->paths, names.v, names.n * sizeof *names.v, &added);
			ds_vec_free(&names);
		}
		if (added) {
			fold_chain(d->s, r->chain, &b);
			name = ds_buf_str(&b);
			id = named_id(d, name, b.len, name);
			ds_buf_free(&b);
			if (p != SIZE_MAX)
				ds_vec_push(&d->path_ids, id);
		} else {
			id = d->path_ids.v[p];
		}
		m = memo_at(&d->memo, r->chain == UINT32_MAX ? 0 : (size_t)r->chain + 1);
		*m = id;
	}
	return *m;
}

/* ---- line, pc: of the instruction the sample is charged to ---- */

static uint32_t charged(dim *d, const ds_srec *r)
{
	return ds_charged_site(d->s, r->site, (r->flags & SR_PRECISE) != 0);
}

static uint32_t line_id(dim *d, size_t i, const ds_srec *r)
{
	uint32_t si = charged(d, r), *m = memo_at(&d->memo, si);
	(void)i;
	if (*m == UINT32_MAX) {
		ds_buf key = {0}, name = {0};
		uint32_t id;
		site_line_name(d->s, si, &key, &name);
		id = named_id(d, key.p, key.len, name.p);
		if (d->raw.v[id] == 0)
			d->raw.v[id] = (uint64_t)si + 1; /* a site of the line */
		ds_buf_free(&key);
		ds_buf_free(&name);
		m = memo_at(&d->memo, si);
		*m = id;
	}
	return *m;
}

static void line_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	size_t si = d->raw.v[id] - 1;
	const site *st = &d->s->sites.v[si];
	tb_cell_str(r, c, dim_value_name(d, id));
	tb_cell_str(r, c + 1, site_fname(d->s, si));
	tb_cell_str(r, c + 2, d->s->dsos.v[st->dso].module);
	if (st->file)
		tb_cell_str(r, c + 3, st->file);
}

static uint32_t pc_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return value_id(d, charged(d, r));
}

static void pc_name(dim *d, uint32_t id, ds_buf *out)
{
	site_label(d->s, d->raw.v[id], out);
}

static void pc_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	size_t si = d->raw.v[id];
	const site *st = &d->s->sites.v[si];
	char text[160];

	tb_cell_str(r, c, dim_value_name(d, id));
	tb_cell_u64(r, c + 1, st->has_vaddr ? st->vaddr : st->off);
	tb_cell_str(r, c + 2, d->s->dsos.v[st->dso].module);
	site_disasm(d->s, si, text, sizeof text);
	if (text[0])
		tb_cell_str(r, c + 3, text);
}

/* ---- thread, cpu, event ---- */

static uint32_t thread_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return value_id(d, r->thread);
}

static void thread_name(dim *d, uint32_t id, ds_buf *out)
{
	ds_buf_puts(out, ds_thread_comm(d->s, d->raw.v[id]));
}

static bool thread_number(dim *d, uint32_t id, int64_t *v)
{
	*v = d->s->threads.v[d->raw.v[id]].tid;
	return true;
}

static void thread_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	const thread_ent *t = &d->s->threads.v[d->raw.v[id]];
	tb_cell_u64(r, c, t->tid);
	tb_cell_u64(r, c + 1, t->pid);
	tb_cell_u64(r, c + 2, t->tid);
}

static uint32_t cpu_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return value_id(d, r->cpu);
}

static void cpu_name(dim *d, uint32_t id, ds_buf *out)
{
	if (d->raw.v[id] == UINT32_MAX)
		ds_buf_puts(out, "<unknown cpu>");
	else
		ds_buf_printf(out, "cpu %" PRIu64, d->raw.v[id]);
}

static bool raw_number(dim *d, uint32_t id, int64_t *v)
{
	*v = (int64_t)d->raw.v[id];
	return true;
}

static bool cpu_number(dim *d, uint32_t id, int64_t *v)
{
	return d->raw.v[id] != UINT32_MAX && raw_number(d, id, v);
}

static uint32_t event_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return value_id(d, r->ev);
}

static void event_name(dim *d, uint32_t id, ds_buf *out)
{
	ds_buf_puts(out, ds_session_event(d->s, d->raw.v[id])->name);
}

/* ---- the experiment and the MPI rank: one value a session, apart when
 * several experiments are merged (ds_merger) ---- */

static uint32_t experiment_id(dim *d, size_t i, const ds_srec *r)
{
	const char *l = ds_session_label(d->s);

	(void)i;
	(void)r;
	return d->raw.n ? 0 : named_id(d, l, strlen(l), l);
}

static uint32_t rank_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	(void)r;
	return value_id(d, (uint64_t)d->s->meta.rank);
}

static void rank_name(dim *d, uint32_t id, ds_buf *out)
{
	int64_t v = (int64_t)d->raw.v[id];

	if (v < 0)
		ds_buf_puts(out, "<no rank>");
	else
		ds_buf_printf(out, "%lld", (long long)v);
}

static bool rank_number(dim *d, uint32_t id, int64_t *v)
{
	*v = (int64_t)d->raw.v[id];
	return *v >= 0;
}

/* ---- where the data came from: memlevel, snoop, tlb, locked, op, latency ----
 * From the sample's PERF_SAMPLE_DATA_SRC (perf_event.h's perf_mem_data_src:
 * PEBS, IBS, SPE and the simulator fill it) and its weight, the access's
 * latency in cycles.  The fields are read by their documented shifts and
 * values, so that a header older than the recording does not matter. */

enum {
	SRC_NONE = 0, /* the event samples no data source: <no data source> */
	SRC_UNKNOWN,  /* it does, and says nothing here (NA) */
};

/* PERF_MEM_LVLNUM_* (4 bits at 33) and PERF_MEM_REMOTE (1 bit at 37) */
static const char *const lvlnum_names[16] = {
	[0x1] = "L1", [0x2] = "L2", [0x3] = "L3", [0x4] = "L4", [0x9] = "CXL", [0xa] = "I/O",
	[0xb] = "any cache", [0xc] = "LFB", [0xd] = "local DRAM", [0xe] = "PMEM",
};

const char *ds_mem_level(uint64_t src)
{
	unsigned num = (unsigned)(src >> 33) & 0xf, remote = (unsigned)(src >> 37) & 1;
	uint64_t lvl = (src >> 5) & 0x3fff; /* PERF_MEM_LVL_*, the older encoding */

	if (num && num != 0xf && lvlnum_names[num]) {
		if (remote && num == 0xd)
			return "remote DRAM";
		if (remote && (num <= 0x4 || num == 0xb))
			return "remote cache";
		return lvlnum_names[num];
	}
	/* a miss at a level says only that a level further out served it */
	if (lvl & 0x04) {
		if (lvl & 0x08) return "L1 miss";
		if (lvl & 0x20) return "L2 miss";
		if (lvl & 0x40) return "L3 miss";
	}
	if (lvl & 0x08) return "L1";
	if (lvl & 0x10) return "LFB";
	if (lvl & 0x20) return "L2";
	if (lvl & 0x40) return "L3";
	if (lvl & 0x80) return "local DRAM";
	if (lvl & 0x300) return "remote DRAM";
	if (lvl & 0xc00) return "remote cache";
	if (lvl & 0x1000) return "I/O";
	if (lvl & 0x2000) return "uncached";
	return NULL;
}

static const char *mem_snoop(uint64_t src)
{
	unsigned snoop = (unsigned)(src >> 19) & 0x1f, snoopx = (unsigned)(src >> 38) & 0x3;

	if (snoop & 0x10) return "HITM";
	if (snoopx & 0x1) return "forward";
	if (snoopx & 0x2) return "peer"; /* a line from another core's cache (Arm SPE) */
	if (snoop & 0x04) return "hit";
	if (snoop & 0x08) return "miss";
	if (snoop & 0x02) return "none";
	return NULL;
}

static const char *mem_tlb(uint64_t src)
{
	unsigned tlb = (unsigned)(src >> 26) & 0x7f;
	bool hit = tlb & 0x02;

	if (tlb & 0x20) return hit ? "walk" : "walk miss";
	if (tlb & 0x04) return "miss";
	if (hit && (tlb & 0x08)) return "L1 hit";
	if (hit && (tlb & 0x10)) return "L2 hit";
	if (tlb & 0x40) return "OS";
	if (hit) return "hit";
	return NULL;
}

static const char *mem_locked(uint64_t src)
{
	unsigned lock = (unsigned)(src >> 24) & 0x3;
	return lock & 0x2 ? "locked" : lock & 0x1 ? NULL : "not locked";
}

static const char *mem_op(uint64_t src)
{
	unsigned op = (unsigned)src & 0x1f;

	if (op & 0x02) return "load";
	if (op & 0x04) return "store";
	if (op & 0x08) return "prefetch";
	if (op & 0x10) return "exec";
	return NULL;
}

static const char *(*const src_field[])(uint64_t) = {ds_mem_level, mem_snoop, mem_tlb, mem_locked, mem_op};
enum { SRC_LEVEL, SRC_SNOOP, SRC_TLB, SRC_LOCKED, SRC_OP };

/* The dimension's field of the record's data source, by name. */
static uint32_t src_id(dim *d, size_t i, const ds_srec *r, int field)
{
	uint64_t src;
	const char *name;
	(void)r;

	if (!ds_srec_data_src(d->s, i, &src))
		return named_id(d, "", 0, "<no data source>");
	name = src_field[field](src);
	if (!name)
		return named_id(d, "?", 1, "<unknown>");
	return named_id(d, name, strlen(name), name);
}

static uint32_t memlevel_id(dim *d, size_t i, const ds_srec *r) { return src_id(d, i, r, SRC_LEVEL); }
static uint32_t snoop_id(dim *d, size_t i, const ds_srec *r) { return src_id(d, i, r, SRC_SNOOP); }
static uint32_t tlb_id(dim *d, size_t i, const ds_srec *r) { return src_id(d, i, r, SRC_TLB); }
static uint32_t locked_id(dim *d, size_t i, const ds_srec *r) { return src_id(d, i, r, SRC_LOCKED); }
static uint32_t op_id(dim *d, size_t i, const ds_srec *r) { return src_id(d, i, r, SRC_OP); }

/* Latency buckets in cycles, as the issue of memory time draws them:
 * L1 hits, L2/L3, a far cache or local memory, memory, worse. */
static const struct {
	uint64_t lo;
	const char *name;
} lat_buckets[] = {{1, "1-7"}, {8, "8-31"}, {32, "32-127"}, {128, "128-511"}, {512, "512+"}};

static uint32_t latency_id(dim *d, size_t i, const ds_srec *r)
{
	uint64_t w;
	size_t b = 0;
	(void)r;

	if (!ds_srec_weight(d->s, i, &w))
		return value_id(d, UINT64_MAX);
	while (b + 1 < sizeof lat_buckets / sizeof lat_buckets[0] && w >= lat_buckets[b + 1].lo)
		b++;
	return value_id(d, b);
}

static void latency_name(dim *d, uint32_t id, ds_buf *out)
{
	uint64_t b = d->raw.v[id];
	ds_buf_puts(out, b == UINT64_MAX ? "<no latency>" : lat_buckets[b].name);
}

/* Filters compare the latency itself (latency >= 200). */
static bool latency_record(dim *d, const ds_srec *r, int64_t *v)
{
	uint64_t w;

	if (!ds_srec_weight(d->s, (size_t)(r - d->s->srecs.v), &w))
		return false;
	*v = (int64_t)w;
	return true;
}

/* Buckets sort by their lower bound, as numbers do. */
static bool latency_number(dim *d, uint32_t id, int64_t *v)
{
	uint64_t b = d->raw.v[id];
	if (b == UINT64_MAX)
		return false;
	*v = (int64_t)lat_buckets[b].lo;
	return true;
}

/* ---- time: the run cut into slices ---- */

static int time_prepare(dim *d, const ds_view_opts *o, ds_err *err)
{
	(void)err;
	d->slices = o && o->slices ? o->slices : DIM_TIME_SLICES;
	d->t0 = d->s->first_time;
	d->span = d->s->last_time > d->s->first_time ? d->s->last_time - d->s->first_time + 1 : 1;
	d->logical = d->s->meta.clock && strcmp(d->s->meta.clock, "logical") == 0;
	return 0;
}

static uint32_t time_id(dim *d, size_t i, const ds_srec *r)
{
	uint64_t k;
	(void)i;
	if (r->time == UINT64_MAX || r->time < d->t0)
		return value_id(d, UINT64_MAX);
	k = (uint64_t)((unsigned __int128)(r->time - d->t0) * d->slices / d->span);
	return value_id(d, k < d->slices ? k : d->slices - 1);
}

/* A slice's start, after the first sample. */
static uint64_t slice_start(const dim *d, uint64_t k)
{
	return (uint64_t)((unsigned __int128)k * d->span / d->slices);
}

static void time_name(dim *d, uint32_t id, ds_buf *out)
{
	uint64_t k = d->raw.v[id];
	if (k == UINT64_MAX)
		ds_buf_puts(out, "<no time>");
	else if (d->logical) /* the simulator counts accesses */
		ds_buf_printf(out, "+%" PRIu64 " accesses", slice_start(d, k));
	else
		ds_buf_printf(out, "+%.3fs", (double)slice_start(d, k) / 1e9);
}

static bool time_number(dim *d, uint32_t id, int64_t *v)
{
	if (d->raw.v[id] == UINT64_MAX)
		return false;
	*v = (int64_t)slice_start(d, d->raw.v[id]);
	return true;
}

/* A filter compares the sample's own time, not its slice's. */
static bool time_record(dim *d, const ds_srec *r, int64_t *v)
{
	if (r->time == UINT64_MAX || r->time < d->t0)
		return false;
	*v = (int64_t)(r->time - d->t0);
	return true;
}

/* ---- verdict: how backtracking and resolution went ---- */

enum { V_KERNEL = DS_BT_NVERDICTS, V_IFETCH, V_PENDING, V_TOOL };

static uint32_t verdict_id(dim *d, size_t i, const ds_srec *r)
{
	const site_ds *x = d->s->sites.v[r->site].ds;
	uint64_t v, how = (r->flags >> SR_HOW_SHIFT) & 7;
	(void)i;

	if (r->flags & SR_KERNEL)
		v = V_KERNEL;
	else if (r->flags & SR_IFETCH)
		v = V_IFETCH;
	else if (r->dobj >= 0 && d->s->dobjs.v[r->dobj].kind == DOBJ_TOOL)
		v = V_TOOL;
	else if (!x)
		v = V_PENDING;
	else
		v = x->trig[(r->flags & SR_PRECISE) != 0].verdict;
	/* an unresolved access says why: its unknown bucket */
	if (v == DS_BT_OK && how == HOW_NONE && r->dobj >= 0)
		v |= (uint64_t)(uint32_t)r->dobj << 16;
	return value_id(d, v | how << 8);
}

static void verdict_name(dim *d, uint32_t id, ds_buf *out)
{
	uint64_t v = d->raw.v[id] & 0xff, how = (d->raw.v[id] >> 8) & 0xff, o = d->raw.v[id] >> 16;

	if (v == V_KERNEL)
		ds_buf_puts(out, "kernel");
	else if (v == V_IFETCH)
		ds_buf_puts(out, "instruction-fetch");
	else if (v == V_PENDING)
		ds_buf_puts(out, "<not attributed>");
	else if (v == V_TOOL)
		ds_buf_puts(out, "heap-tracker");
	else if (v != DS_BT_OK)
		ds_buf_puts(out, ds_bt_verdict_name((enum ds_bt_verdict)v));
	else if (how != HOW_NONE)
		ds_buf_printf(out, "ok: %s", ds_how_name((enum ds_how)how));
	else if (o < d->s->dobjs.n && d->s->dobjs.v[o].kind == DOBJ_UNKNOWN)
		ds_buf_printf(out, "ok: unresolved (%s)", d->s->dobjs.v[o].path);
	else
		ds_buf_puts(out, "ok: unresolved");
}

/* verdict == "ok" keeps every sample whose trigger was found. */
static void verdict_filter(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias)
{
	*str = ds_filter_string_id(f, dim_value_name(d, id));
	*alias = (d->raw.v[id] & 0xff) == DS_BT_OK ? ds_filter_string_id(f, "ok") : -1;
}

/* ---- data objects and fields ---- */

/* Whether a data object is a member of a type (or what a string function
 * did to a type): then its data object is the type.  An access outside
 * every member (DOBJ_MISFIT) is no part of its static type: an unknown
 * bucket of its own, as the dataobjects view has it. */
static bool of_type(const dobj *o)
{
	return o->kind == DOBJ_FIELD || (o->kind == DOBJ_VIA && o->tid >= 0);
}

static uint32_t dataobject_id(dim *d, size_t i, const ds_srec *r)
{
	uint32_t *m = memo_at(&d->memo, (size_t)r->dobj);
	(void)i;
	if (*m == UINT32_MAX) {
		const dobj *o = &d->s->dobjs.v[r->dobj];
		const char *name = of_type(o) && o->type ? o->type : o->name;
		uint32_t id = named_id(d, name, strlen(name), name);
		/* the kind of the first object met; a type's is "type" */
		if (d->raw.v[id] == 0)
			d->raw.v[id] = (uint64_t)r->dobj + 1;
		m = memo_at(&d->memo, (size_t)r->dobj);
		*m = id;
	}
	return *m;
}

static void dataobject_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	const dobj *o = &d->s->dobjs.v[d->raw.v[id] - 1];
	tb_cell_str(r, c, dim_value_name(d, id));
	tb_cell_str(r, c + 1, of_type(o) && o->type ? "type" : ds_dobj_kind_name(o->kind));
}

static uint32_t field_id(dim *d, size_t i, const ds_srec *r)
{
	uint32_t *m = memo_at(&d->memo, (size_t)r->dobj);
	(void)i;
	if (*m == UINT32_MAX) {
		const dobj *o = &d->s->dobjs.v[r->dobj];
		uint32_t id = named_id(d, o->name, strlen(o->name), o->name);
		if (d->raw.v[id] == 0)
			d->raw.v[id] = (uint64_t)r->dobj + 1;
		m = memo_at(&d->memo, (size_t)r->dobj);
		*m = id;
	}
	return *m;
}

static void field_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	const dobj *o = &d->s->dobjs.v[d->raw.v[id] - 1];
	tb_cell_str(r, c, dim_value_name(d, id));
	tb_cell_str(r, c + 1, ds_dobj_kind_name(o->kind));
}

/* C++ names go by their last scopes too, as perf and gdb take them:
 * FUNC == "sum_weights" and "Store::sum_weights" keep
 * shop::Store::sum_weights; DOBJ == "struct Item<double>", "Item<double>"
 * and "shop::Item<double>" keep struct shop::Item<double> (FIELD the same,
 * with ".path" after).  The filter's string for the longest such name of
 * name[0..len) (after its tag, "struct ", when it has one), followed by
 * tail; -1 when none. */
static int32_t last_scopes(const ds_expr *f, const char *name, size_t len, const char *tail)
{
	size_t tag = (size_t)(ds_untagged(name) - name);
	int depth = 0;
	int32_t id = -1;
	ds_buf b = {0};

	for (size_t p = tag; p < len && id < 0; p++) {
		bool start = p == tag || (!depth && p >= 2 && name[p - 2] == ':' && name[p - 1] == ':');
		if (name[p] == '<' || name[p] == '(')
			depth++;
		else if ((name[p] == '>' || name[p] == ')') && depth > 0)
			depth--;
		if (!start)
			continue;
		/* the tag and this suffix (not the whole name: that is its own), then the suffix alone */
		for (int with_tag = tag && p > tag; with_tag >= 0 && id < 0; with_tag--) {
			if (p == tag && !with_tag && !tag)
				continue;
			ds_buf_reset(&b);
			ds_buf_printf(&b, "%.*s%.*s%s", with_tag ? (int)tag : 0, name, (int)(len - p), name + p, tail);
			id = ds_filter_string_id(f, ds_buf_str(&b));
		}
	}
	ds_buf_free(&b);
	return id;
}

static void fn_filter(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias)
{
	const char *name = dim_value_name(d, id);
	*str = ds_filter_string_id(f, name);
	*alias = last_scopes(f, name, strlen(name), "");
}

/* A type told apart from others of its name by where it is declared
 * ("struct node (tu2.c:3)") also goes by its name alone: dataobject ==
 * "struct node" keeps every definition of struct node, and field ==
 * "struct node.next" every definition's next. */
static void dobj_filter(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias)
{
	const ds_session *s = d->s;
	const dobj *o = &s->dobjs.v[d->raw.v[id] - 1];
	const tident *ti = of_type(o) && o->tid >= 0 ? &s->tidents.v[o->tid] : NULL;
	bool field = d->def->cells == field_cells, member = o->kind == DOBJ_FIELD;

	*str = ds_filter_string_id(f, dim_value_name(d, id));
	*alias = -1;
	if (!ti || (field && !member))
		return;
	if (ti->name[ti->base]) {
		char *base = ds_xstrndup(ti->name, ti->base);
		char *name = field ? ds_xasprintf("%s.%s", base, o->path) : ds_xstrdup(base);
		*alias = ds_filter_string_id(f, name);
		free(base);
		free(name);
	}
	if (*alias < 0) {
		char *tail = field ? ds_xasprintf(".%s", o->path) : ds_xstrdup("");
		*alias = last_scopes(f, ti->name, ti->base, tail);
		free(tail);
	}
}

/* ---- offset: the byte of the type an access fell at ---- */

static uint32_t offset_id(dim *d, size_t i, const ds_srec *r)
{
	const dobj *o = &d->s->dobjs.v[r->dobj];
	uint32_t id;
	(void)i;
	if ((o->kind == DOBJ_FIELD || o->kind == DOBJ_MISFIT) && o->tid >= 0)
		return value_id(d, (uint64_t)(uint32_t)o->tid << 32 | r->off);
	/* other objects have no offset in a type: each is its own value */
	id = value_id(d, 1ull << 63 | (uint32_t)r->dobj);
	return id;
}

static void offset_name(dim *d, uint32_t id, ds_buf *out)
{
	uint64_t v = d->raw.v[id];
	if (v >> 63)
		ds_buf_puts(out, d->s->dobjs.v[(uint32_t)v].name);
	else
		ds_buf_printf(out, "%s +%u", d->s->tidents.v[v >> 32].name, (uint32_t)v);
}

static bool offset_number(dim *d, uint32_t id, int64_t *v)
{
	if (d->raw.v[id] >> 63)
		return false;
	*v = (uint32_t)d->raw.v[id];
	return true;
}

/* ---- cacheline, page, mobj:NAME: what an address falls in ---- */

/* A value no address gives: the sample has none (or its object says -1). */
#define NO_ADDRESS UINT64_MAX

static int cacheline_prepare(dim *d, const ds_view_opts *o, ds_err *err)
{
	unsigned line;
	if (ds_view_line_size(d->s, o, &line, err))
		return -1;
	d->unit = line;
	d->line_opts = o ? *o : (ds_view_opts){0};
	return 0;
}

static void cacheline_props(dim *d, ds_table *t)
{
	ds_line_props(d->s, t, &d->line_opts, (unsigned)d->unit);
}

static int page_prepare(dim *d, const ds_view_opts *o, ds_err *err)
{
	(void)o;
	(void)err;
	ds_machine_ready(d->s);
	d->unit = d->s->machine.page_size ? d->s->machine.page_size : 4096;
	return 0;
}

static void page_props(dim *d, ds_table *t)
{
	tb_prop(t, "page_size", DS_PROP_NUMBER, "%" PRIu64, d->unit);
}

/* The line or page of the record's address (unit: a power of two). */
static uint32_t unit_id(dim *d, size_t i, const ds_srec *r)
{
	(void)i;
	return value_id(d, r->flags & SR_EA ? r->ea & ~(d->unit - 1) : NO_ADDRESS);
}

static void address_name(dim *d, uint32_t id, ds_buf *out)
{
	if (d->raw.v[id] == NO_ADDRESS)
		ds_buf_puts(out, "<no data address>");
	else
		ds_buf_printf(out, "0x%" PRIx64, d->raw.v[id]);
}

static bool address_number(dim *d, uint32_t id, int64_t *v)
{
	return d->raw.v[id] != NO_ADDRESS && raw_number(d, id, v);
}

static int mobj_prepare(dim *d, const ds_view_opts *o, ds_err *err)
{
	(void)o;
	if (!(d->mobj = ds_session_mobj(d->s, d->label + strlen("mobj:"), err)))
		return -1;
	d->cols[0].kind = d->mobj->hex ? DS_COL_HEX : DS_COL_U64;
	return 0;
}

static void mobj_props(dim *d, ds_table *t)
{
	tb_prop(t, "memory_object", DS_PROP_TEXT, "%s", d->mobj->name);
	tb_prop(t, "expression", DS_PROP_TEXT, "%s", d->mobj->text);
	tb_prop(t, "machine", DS_PROP_TEXT, "%s", d->s->machine.source ? d->s->machine.source : "?");
}

static uint32_t mobj_id(dim *d, size_t i, const ds_srec *r)
{
	ds_access a;
	(void)r;
	ds_srec_operands(d->s, i, &a);
	return value_id(d, (uint64_t)ds_expr_eval(d->mobj->code, &a));
}

static void mobj_name(dim *d, uint32_t id, ds_buf *out)
{
	char name[32];
	ds_mobj_format(d->mobj, (int64_t)d->raw.v[id], name, sizeof name);
	ds_buf_puts(out, name);
}

static bool mobj_number(dim *d, uint32_t id, int64_t *v)
{
	return (int64_t)d->raw.v[id] != -1 && raw_number(d, id, v);
}

/* ---- allocsite, allocation: the heap block an access fell in ---- */

/* Why a record has no block: values of their own, after the sites' and
 * the blocks' (raw: this bit and the reason). */
#define NO_BLOCK (1ull << 63)
enum { NB_NO_HEAP_DATA, NB_NO_ADDRESS, NB_NOT_HEAP, NB_NOT_IN_BLOCK, NB_ALLOCATOR, NB_LOADER };
static const char *const no_block_names[] = {"<no heap data>", "<no data address>", "<not heap>",
					     "<in no block>", "<allocator>", "<loader>"};
#define NB_MASK 7

/* The allocation functions (the tracker's, experiment/heapfile.h) and
 * glibc's malloc internals that are a sample's leaf when its chain is
 * gone, by the name they have before any '@' version or '.' clone suffix
 * and after a "__libc_" prefix. */
static const char *const allocator_fns[] = {
	"malloc", "calloc", "realloc", "free", "cfree", "posix_memalign", "aligned_alloc", "memalign",
	"valloc", "pvalloc", "reallocarray", "_int_malloc", "_int_free", "_int_realloc", "_int_memalign",
	"malloc_consolidate", "sysmalloc", "unlink_chunk", "tcache_get", "tcache_put",
};

static bool allocator_fn(const char *fn)
{
	size_t n;
	if (!strncmp(fn, "__libc_", 7))
		fn += 7;
	n = strcspn(fn, "@.");
	for (size_t i = 0; i < sizeof allocator_fns / sizeof allocator_fns[0]; i++)
		if (strlen(allocator_fns[i]) == n && !strncmp(fn, allocator_fns[i], n))
			return true;
	return false;
}

/* Whether record r was taken in the allocator: its leaf or one of the
 * next few frames of its chain is an allocation function (realloc's copy
 * is memmove's, under realloc). */
static bool in_allocator(ds_session *s, const ds_srec *r)
{
	const uint32_t *key = NULL;
	size_t len = 0;

	if (r->chain != UINT32_MAX)
		key = ds_chain_sites(s, r->chain, &len);
	if (!len) {
		ds_site_resolve(s, r->site, false);
		return allocator_fn(site_fname(s, r->site));
	}
	for (size_t k = 0; k < len && k < 4; k++) {
		ds_site_resolve(s, key[k], false);
		if (allocator_fn(site_fname(s, key[k])))
			return true;
	}
	return false;
}

/* Whether record r's leaf is the dynamic loader's code (ld.so), which
 * keeps what it knows of the loaded objects (link maps, symbol versions,
 * the main thread's TLS) in memory of its own allocator, there before
 * malloc is. */
static bool in_loader(ds_session *s, const ds_srec *r)
{
	return ds_heap_loader(s->dsos.v[s->sites.v[r->site].dso].module);
}

/* Record i's block (1 + index), or 0 and in *why the reason it has none:
 * an address in no block is not the heap's when a variable (a global, a
 * stack slot, a thread-local) holds it or the code names it by a static
 * address, or when it is in a program's or library's image,
 * in a thread's stack or in a file's mapping, whether or not its process
 * had heap data then; else no heap data when it had none; the allocator's
 * own memory (its chunk headers and lists, a block it copies as realloc
 * frees it) when the sample was in the allocator; the loader's own when it
 * was in the loader; else memory no tracked allocation made. */
static uint32_t block_of(dim *d, size_t i, const ds_srec *r, unsigned *why)
{
	ds_session *s = d->s;
	const ds_heap *h = &s->heap;
	const dobj *o = r->dobj >= 0 ? &s->dobjs.v[r->dobj] : NULL;
	uint32_t pid, dso;
	uint64_t vaddr;

	if (h->files && h->rec_block.v[i])
		return h->rec_block.v[i];
	if (!(r->flags & SR_EA)) {
		*why = NB_NO_ADDRESS;
		return 0;
	}
	if (!h->files) {
		*why = NB_NO_HEAP_DATA;
		return 0;
	}
	pid = s->threads.v[r->thread].pid;
	if ((o && (o->kind == DOBJ_GLOBAL || o->kind == DOBJ_STACK || o->kind == DOBJ_KERNEL ||
		   (o->name[0] == '<' && strncmp(o->name, "<unknown", 8) && strncmp(o->name, "<scalars", 8)))) ||
	    ((r->flags >> SR_HOW_SHIFT) & 7) == HOW_STATIC)
		*why = NB_NOT_HEAP; /* <stack F>, <constants>, <vtable of X>, a struct global or
				     * thread-local by its static address: not the heap */
	else if (ds_session_in_stack(s, pid, r->ea) || ds_session_data_at(s, pid, r->time, r->ea, &dso, &vaddr) ||
		 ds_session_in_file(s, pid, r->time, r->ea))
		*why = NB_NOT_HEAP;
	else if (!h->has_image.v[i])
		*why = NB_NO_HEAP_DATA; /* a process without a heap file, or before its tracker started */
	else if (in_allocator(s, r))
		*why = NB_ALLOCATOR;
	else if (in_loader(s, r))
		*why = NB_LOADER;
	else
		*why = NB_NOT_IN_BLOCK;
	return 0;
}

static uint32_t allocsite_id(dim *d, size_t i, const ds_srec *r)
{
	unsigned why;
	uint32_t b = block_of(d, i, r, &why);
	return value_id(d, b ? d->s->heap.blocks.v[b - 1].site : NO_BLOCK | why);
}

static void allocsite_name(dim *d, uint32_t id, ds_buf *out)
{
	uint64_t v = d->raw.v[id];
	ds_buf_puts(out, v & NO_BLOCK ? no_block_names[v & NB_MASK] : d->s->heap.sites.v[v].name);
}

static void allocsite_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	uint64_t v = d->raw.v[id];
	const hsite *st;

	tb_cell_str(r, c, dim_value_name(d, id));
	if (v & NO_BLOCK)
		return;
	st = &d->s->heap.sites.v[v];
	tb_cell_u64(r, c + 1, v);
	tb_cell_u64(r, c + 2, st->blocks);
	tb_cell_u64(r, c + 3, st->bytes);
	tb_cell_u64(r, c + 4, st->peak);
	if (st->freed)
		tb_cell_u64(r, c + 5, st->lifetime / st->freed);
	tb_cell_u64(r, c + 6, st->leaked_bytes);
	tb_cell_str(r, c + 7, ds_heap_site_stack(d->s, (uint32_t)v));
}

/* Lifetimes of a recording under the simulator are in its clock's
 * instructions, not ns (allocsite_cols[5]: avg_lifetime). */
static int allocsite_prepare(dim *d, const ds_view_opts *o, ds_err *err)
{
	(void)o, (void)err;
	if (d->s->heap.logical)
		d->cols[5].kind = DS_COL_U64;
	return 0;
}

/* A site goes by its name ("make_list (list.c:42)") and its function's
 * alone ("make_list"). */
static void allocsite_filter(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias)
{
	const char *name = dim_value_name(d, id), *paren = strstr(name, " (");
	*str = ds_filter_string_id(f, name);
	*alias = -1;
	if (paren && !(d->raw.v[id] & NO_BLOCK)) {
		char *fn = ds_xstrndup(name, (size_t)(paren - name));
		*alias = ds_filter_string_id(f, fn);
		free(fn);
	}
}

void ds_heap_notes(const ds_session *s, ds_table *t)
{
	for (size_t i = 0; i < s->heap.notes.n; i++)
		tb_prop(t, "note", DS_PROP_TEXT, "%s", s->heap.notes.v[i]);
}

/* Every site, sampled or not: --view heap lists them all. */
static void allocsite_values(dim *d)
{
	for (size_t i = 0; i < d->s->heap.sites.n; i++)
		if (d->s->heap.sites.v[i].blocks)
			value_id(d, i);
}

static void allocsite_props(dim *d, ds_table *t)
{
	const ds_heap *h = &d->s->heap;
	tb_prop(t, "heap_files", DS_PROP_NUMBER, "%zu", h->files);
	ds_heap_notes(d->s, t);
	if (!h->files) {
		tb_prop(t, "note", DS_PROP_TEXT, "%s", DS_HEAP_NONE);
		return;
	}
	tb_prop(t, "lifetime_unit", DS_PROP_TEXT, "%s", h->logical ? "instructions" : "ns");
}

static uint32_t allocation_id(dim *d, size_t i, const ds_srec *r)
{
	unsigned why;
	uint32_t b = block_of(d, i, r, &why);
	return value_id(d, b ? b - 1 : NO_BLOCK | why);
}

static void allocation_name(dim *d, uint32_t id, ds_buf *out)
{
	uint64_t v = d->raw.v[id];
	const hblock *b;

	if (v & NO_BLOCK) {
		ds_buf_puts(out, no_block_names[v & NB_MASK]);
		return;
	}
	b = &d->s->heap.blocks.v[v];
	ds_buf_printf(out, "%s: %" PRIu64 " bytes at 0x%" PRIx64, d->s->heap.sites.v[b->site].name, b->size, b->addr);
}

static void allocation_cells(dim *d, uint32_t id, ds_row *r, size_t c)
{
	uint64_t v = d->raw.v[id];
	tb_cell_str(r, c, dim_value_name(d, id));
	if (v & NO_BLOCK)
		return;
	tb_cell_u64(r, c + 1, d->s->heap.blocks.v[v].addr);
	tb_cell_u64(r, c + 2, d->s->heap.blocks.v[v].size);
	tb_cell_str(r, c + 3, d->s->heap.sites.v[d->s->heap.blocks.v[v].site].name);
}

/* ---- the definitions ---- */

/* A dimension's value in its key column: its name, or its number. */
static void name_cell(dim *d, uint32_t id, ds_row *r, size_t c)
{
	tb_cell_str(r, c, dim_value_name(d, id));
}

static void number_cell(dim *d, uint32_t id, ds_row *r, size_t c)
{
	int64_t v;
	if (dim_value_number(d, id, &v))
		tb_cell_u64(r, c, (uint64_t)v);
}

static const ds_col fn_cols[] = {{"function", DS_COL_STR, false}, {"module", DS_COL_STR, true},
				 {"address", DS_COL_HEX, false}};
static const ds_col module_cols[] = {{"module", DS_COL_STR, false}};
static const ds_col line_cols[] = {{"line", DS_COL_STR, false}, {"function", DS_COL_STR, true},
				   {"module", DS_COL_STR, true}, {"file", DS_COL_STR, false}};
static const ds_col pc_cols[] = {{"pc", DS_COL_STR, false}, {"address", DS_COL_HEX, true},
				 {"module", DS_COL_STR, false}, {"disasm", DS_COL_STR, true}};
static const ds_col thread_cols[] = {{"thread", DS_COL_U64, false}, {"pid", DS_COL_U64, true},
				     {"tid", DS_COL_U64, true}};
static const ds_col cpu_cols[] = {{"cpu", DS_COL_U64, false}};
static const ds_col callpath_cols[] = {{"callpath", DS_COL_STR, false}};
static const ds_col memlevel_cols[] = {{"memlevel", DS_COL_STR, false}};
static const ds_col snoop_cols[] = {{"snoop", DS_COL_STR, false}};
static const ds_col tlb_cols[] = {{"tlb", DS_COL_STR, false}};
static const ds_col locked_cols[] = {{"locked", DS_COL_STR, false}};
static const ds_col op_cols[] = {{"op", DS_COL_STR, false}};
static const ds_col latency_cols[] = {{"latency", DS_COL_STR, false}};
static const ds_col dataobject_cols[] = {{"dataobject", DS_COL_STR, false}, {"kind", DS_COL_STR, true}};
static const ds_col field_cols[] = {{"field", DS_COL_STR, false}, {"field_kind", DS_COL_STR, false}};
static const ds_col offset_cols[] = {{"offset", DS_COL_U64, false}};
static const ds_col cacheline_cols[] = {{"cacheline", DS_COL_HEX, false}};
static const ds_col page_cols[] = {{"page", DS_COL_HEX, false}};
static const ds_col time_cols[] = {{"time", DS_COL_U64, false}};
static const ds_col verdict_cols[] = {{"verdict", DS_COL_STR, false}};
static const ds_col event_cols[] = {{"event", DS_COL_STR, false}};
static const ds_col experiment_cols[] = {{"experiment", DS_COL_STR, false}};
static const ds_col rank_cols[] = {{"rank", DS_COL_U64, false}};
static const ds_col mobj_cols[] = {{"mobj", DS_COL_U64, false}};
static const ds_col allocsite_cols[] = {{"allocsite", DS_COL_STR, false}, {"asite", DS_COL_U64, true},
					{"blocks", DS_COL_U64, true},
					{"bytes", DS_COL_BYTES, true}, {"peak_bytes", DS_COL_BYTES, true},
					{"avg_lifetime", DS_COL_NS, true}, {"leaked_bytes", DS_COL_BYTES, false},
					{"stack", DS_COL_STR, false}};
static const ds_col allocation_cols[] = {{"allocation", DS_COL_STR, false}, {"address", DS_COL_HEX, false},
					 {"size", DS_COL_BYTES, true}, {"allocsite", DS_COL_STR, false}};

#define COLS(c) c, sizeof c / sizeof c[0]

static const dim_def defs[] = {
	{"function", "the function of the sampled instruction (inclusive: every function of its call chain)",
	 "FUNC", DIM_CHAIN, COLS(fn_cols), NULL, fn_id, fn_name, NULL, fn_cells, fn_filter, NULL, fn_site,
	 NULL, NULL},
	{"module", "the object file (program, library, kernel) of the sampled instruction",
	 NULL, DIM_CHAIN, COLS(module_cols), NULL, module_id, module_name, NULL, name_cell, NULL, NULL,
	 module_site, NULL, NULL},
	{"line", "the source line of the load or store the sample is charged to (its trigger)",
	 NULL, DIM_DATA, COLS(line_cols), NULL, line_id, NULL, NULL, line_cells, NULL, NULL, NULL, NULL, NULL},
	{"pc", "the instruction the sample is charged to (its trigger), FUNC+0xOFF",
	 NULL, DIM_DATA, COLS(pc_cols), NULL, pc_id, pc_name, NULL, pc_cells, NULL, NULL, NULL, NULL, NULL},
	{"thread", "the thread, by its command (filters compare its id: thread == 4242)",
	 NULL, DIM_NUMBER, COLS(thread_cols), NULL, thread_id, thread_name, thread_number, thread_cells,
	 NULL, NULL, NULL, NULL, NULL},
	{"cpu", "the CPU the sample was taken on", NULL, DIM_NUMBER, COLS(cpu_cols), NULL, cpu_id,
	 cpu_name, cpu_number, number_cell, NULL, NULL, NULL, NULL, NULL},
	{"dataobject", "the type (struct node) or the variable, stack or bucket the access touched",
	 "DOBJ", DIM_DATA | DIM_MEMORY, COLS(dataobject_cols), NULL, dataobject_id, NULL, NULL,
	 dataobject_cells, dobj_filter, NULL, NULL, NULL, NULL},
	{"field", "the member of the type (struct node.next), or the data object itself",
	 "FIELD", DIM_DATA | DIM_MEMORY, COLS(field_cols), NULL, field_id, NULL, NULL, field_cells,
	 dobj_filter, NULL, NULL, NULL, NULL},
	{"offset", "the byte offset of the access in its type (struct node +8)", NULL,
	 DIM_DATA | DIM_MEMORY | DIM_NUMBER, COLS(offset_cols), NULL, offset_id, offset_name, offset_number,
	 number_cell, NULL, NULL, NULL, NULL, NULL},
	{"cacheline", "the cache line of the data address (--level, --line-size)", NULL,
	 DIM_DATA | DIM_MEMORY | DIM_NUMBER, COLS(cacheline_cols), cacheline_prepare, unit_id, address_name,
	 address_number, number_cell, NULL, cacheline_props, NULL, NULL, NULL},
	{"page", "the virtual page of the data address", NULL, DIM_DATA | DIM_MEMORY | DIM_NUMBER,
	 COLS(page_cols), page_prepare, unit_id, address_name, address_number, number_cell, NULL, page_props,
	 NULL, NULL, NULL},
	{"mobj:NAME", "the index of memory object NAME ('dsprof mobj list')", NULL,
	 DIM_DATA | DIM_MEMORY | DIM_NUMBER, COLS(mobj_cols), mobj_prepare, mobj_id, mobj_name, mobj_number,
	 number_cell, NULL, mobj_props, NULL, NULL, NULL},
	{"allocsite", "the call stack that allocated the heap block the access fell in (record --heap)", NULL,
	 DIM_DATA | DIM_MEMORY, COLS(allocsite_cols), allocsite_prepare, allocsite_id, allocsite_name, NULL,
	 allocsite_cells, allocsite_filter, allocsite_props, NULL, NULL, allocsite_values},
	{"allocation", "the heap block the access fell in: its site, size and address (record --heap)", NULL,
	 DIM_DATA | DIM_MEMORY, COLS(allocation_cols), NULL, allocation_id, allocation_name, NULL,
	 allocation_cells, NULL, NULL, NULL, NULL, NULL},
	{"time", "the time, in --slices slices of the run (10); filters compare ns since the first sample",
	 NULL, DIM_NUMBER, COLS(time_cols), time_prepare, time_id, time_name, time_number, number_cell, NULL,
	 NULL, NULL, time_record, NULL},
	{"verdict", "how backtracking and resolution went (ok: how, or why not)", NULL, DIM_DATA,
	 COLS(verdict_cols), NULL, verdict_id, verdict_name, NULL, name_cell, verdict_filter, NULL, NULL,
	 NULL, NULL},
	{"event", "the event that took the sample", NULL, 0, COLS(event_cols), NULL, event_id, event_name,
	 NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"memlevel", "where the data came from: L1, LFB, L2, L3, local DRAM, remote DRAM, remote cache, "
	 "PMEM, I/O, uncached (precise memory events, --sim)", NULL, DIM_DATA | DIM_MEMORY,
	 COLS(memlevel_cols), NULL, memlevel_id, NULL, NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"snoop", "what other caches said: none, hit, HITM (another core's modified copy), miss, forward",
	 NULL, DIM_DATA | DIM_MEMORY, COLS(snoop_cols), NULL, snoop_id, NULL, NULL, name_cell, NULL, NULL,
	 NULL, NULL, NULL},
	{"tlb", "the address translation: L1 hit, L2 hit, walk, miss", NULL, DIM_DATA | DIM_MEMORY,
	 COLS(tlb_cols), NULL, tlb_id, NULL, NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"locked", "whether the access was a locked (atomic) one", NULL, DIM_DATA | DIM_MEMORY,
	 COLS(locked_cols), NULL, locked_id, NULL, NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"op", "the access: load, store, prefetch", NULL, DIM_DATA | DIM_MEMORY, COLS(op_cols), NULL, op_id,
	 NULL, NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"latency", "the access's latency in cycles, bucketed: 1-7, 8-31, 32-127, 128-511, 512+ (filters "
	 "compare the cycles: latency >= 200)", NULL,
	 DIM_DATA | DIM_MEMORY | DIM_NUMBER, COLS(latency_cols), NULL, latency_id, latency_name,
	 latency_number, name_cell, NULL, NULL, NULL, latency_record, NULL},
	{"callpath", "the whole call chain, outermost caller first (main;top;leaf)", NULL, 0,
	 COLS(callpath_cols), NULL, callpath_id, NULL, NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"experiment", "the experiment, by its name in its group (several -i, or a group)", NULL, 0,
	 COLS(experiment_cols), NULL, experiment_id, NULL, NULL, name_cell, NULL, NULL, NULL, NULL, NULL},
	{"rank", "the MPI rank the experiment's command ran as (record under mpirun)", NULL, DIM_NUMBER,
	 COLS(rank_cols), NULL, rank_id, rank_name, rank_number, number_cell, NULL, NULL, NULL, NULL, NULL},
};

#define NDEFS (sizeof defs / sizeof defs[0])

const char *ds_dim_name(size_t i)
{
	return i < NDEFS ? defs[i].name : NULL;
}

const char *ds_dim_help(size_t i)
{
	return i < NDEFS ? defs[i].help : NULL;
}

/* The definition of `name`: "mobj:X" is mobj:NAME's. */
static const dim_def *find_def(const char *name)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (strcmp(defs[i].name, name) == 0 || (defs[i].synonym && strcmp(defs[i].synonym, name) == 0) ||
		    (defs[i].prepare == mobj_prepare && strncmp(name, "mobj:", 5) == 0 && name[5]))
			return &defs[i];
	return NULL;
}

size_t ds_dim_filter_operands(ds_filter_operand *ops, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < NDEFS && n < max; i++)
		if (defs[i].prepare != mobj_prepare) /* MOBJ(name) reads those */
			ops[n++] = (ds_filter_operand){defs[i].name, defs[i].synonym, !(defs[i].flags & DIM_NUMBER)};
	return n;
}

void ds_dim_list(ds_buf *b)
{
	for (size_t i = 0; i < NDEFS; i++)
		ds_buf_printf(b, "%s%s", i ? ", " : "", defs[i].name);
}

dim *dim_new(ds_session *s, const char *name, const ds_view_opts *o, ds_err *err)
{
	const dim_def *def = find_def(name);
	dim *d;

	if (!def) {
		ds_buf keys = {0};
		ds_dim_list(&keys);
		ds_err_set(err, DS_EINPUT, "unknown key '%s'; keys: %s ('--by help' says what each is)", name,
			   ds_buf_str(&keys));
		ds_buf_free(&keys);
		return NULL;
	}
	if ((def->flags & DIM_DATA) && ds_dataspace_build(s, err))
		return NULL;
	d = ds_xcalloc(1, sizeof *d);
	d->def = def;
	d->s = s;
	/* a synonym (FUNC) is the dimension's own name */
	d->label = ds_xstrdup(def->prepare == mobj_prepare ? name : def->name);
	d->cols = ds_xcalloc(def->ncols, sizeof *d->cols);
	memcpy(d->cols, def->cols, def->ncols * sizeof *d->cols);
	if (def->prepare == mobj_prepare)
		d->cols[0].name = d->label;
	if (def->prepare && def->prepare(d, o, err)) {
		dim_free(d);
		return NULL;
	}
	return d;
}

void dim_free(dim *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->names.n; i++)
		free(d->names.v[i]);
	ds_vec_free(&d->names);
	ds_vec_free(&d->raw);
	ds_vec_free(&d->memo);
	ds_vec_free(&d->chain_pool);
	ds_u64map_free(&d->chain_at);
	ds_u64map_free(&d->index);
	ds_hash_free(d->strings);
	ds_hash_free(d->paths);
	ds_vec_free(&d->path_ids);
	free(d->cols);
	free(d->label);
	free(d);
}

const uint32_t *dim_chain_ids(dim *d, uint32_t chain, size_t *n)
{
	uint32_t at = ds_u64map_get(&d->chain_at, chain);
	size_t len;
	const uint32_t *key;

	if (at == DS_U64MAP_NONE) {
		at = (uint32_t)d->chain_pool.n;
		key = ds_chain_sites(d->s, chain, &len);
		ds_vec_push(&d->chain_pool, 0); /* the count, then the ids */
		for (size_t k = 0; k < len; k++) {
			uint32_t id = d->def->site_id(d, key[k]);
			bool dup = false;
			/* a recursion counts once */
			for (size_t j = at + 1; j < d->chain_pool.n && !dup; j++)
				dup = d->chain_pool.v[j] == id;
			if (!dup)
				ds_vec_push(&d->chain_pool, id);
		}
		d->chain_pool.v[at] = (uint32_t)(d->chain_pool.n - at - 1);
		ds_u64map_put(&d->chain_at, chain, at, NULL);
	}
	*n = d->chain_pool.v[at];
	return &d->chain_pool.v[at + 1];
}

void dim_filter_ids(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias)
{
	if (d->def->filter) {
		d->def->filter(d, id, f, str, alias);
		return;
	}
	*str = ds_filter_string_id(f, dim_value_name(d, id));
	*alias = -1;
}

bool dim_record_number(dim *d, size_t i, const ds_srec *r, int64_t *v)
{
	if (d->def->record)
		return d->def->record(d, r, v);
	return dim_value_number(d, dim_id(d, i, r), v);
}

void dim_props(dim *d, ds_table *t)
{
	if (d->def->props)
		d->def->props(d, t);
}
