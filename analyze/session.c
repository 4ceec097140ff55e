/*
 * A session: an experiment read into an aggregate model.
 *
 * Pass 1 reads the side-band records (MMAP, COMM, FORK, LOST, THROTTLE)
 * into per-process address spaces with the time each mapping appeared and
 * the times of exec, so that a sample's IP can be placed in the right file
 * whatever order the per-CPU buffers interleaved the records in.  Pass 2
 * reads the samples and counts them per unique instruction, per thread and
 * per unique call chain; nothing is resolved per sample.  Symbols and lines
 * are looked up later, once per unique instruction, by the views.
 */
#include "analyze/analyze_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

void ds_session_note_add(ds_session *s, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < s->notes.n; i++)
		if (strcmp(s->notes.v[i], b.p) == 0) {
			ds_buf_free(&b);
			return;
		}
	ds_vec_push(&s->notes, ds_buf_steal(&b));
}

size_t ds_session_nevents(const ds_session *s)
{
	return s->nev;
}

const ds_event *ds_session_event(const ds_session *s, size_t e)
{
	return e < s->npev ? ds_perfdata_event(s->pd, e) : &s->xev[e - s->npev];
}

/* Simulated events carry the model's latency as their weight, for every
 * kind of event; sim:MEM_CYCLES counts it already. */
static bool simulated(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_RAW && (a->config & ~0xffull) == 0x5d0000;
}

/* A latency event for each event whose samples carry a weight (PEBS load
 * latency, IBS op, imported perf mem recordings); for the simulator's
 * sim:L1D_EVICT, whose weight is the bytes of each line used, one that
 * counts those bytes, "used_bytes:sim:L1D_EVICT". */
static void derive_events(ds_session *s)
{
	s->npev = s->nev;
	s->lat_ev = ds_xcalloc(s->npev + 1, sizeof *s->lat_ev);
	s->xev = ds_xcalloc(s->npev + 1, sizeof *s->xev);
	for (size_t e = 0; e < s->npev; e++) {
		const ds_event *b = ds_perfdata_event(s->pd, e);
		ds_event *x = &s->xev[s->nev - s->npev];
		bool line_use = simulated(&b->attr) && !strcmp(b->name, "sim:L1D_EVICT");
		s->lat_ev[e] = UINT16_MAX;
		if (!(b->attr.sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) ||
		    (simulated(&b->attr) && !line_use) || s->nev >= UINT16_MAX)
			continue;
		x->name = ds_xasprintf("%s:%s", line_use ? "used_bytes" : "latency", b->name);
		x->attr = b->attr;
		x->attr.freq = 0;
		x->attr.sample_period = 0;
		s->lat_ev[e] = (uint16_t)s->nev++;
	}
}

const char *ds_session_event_name(const ds_session *s, size_t ev)
{
	return ds_session_event(s, ev)->name;
}

size_t ds_session_nnotes(const ds_session *s) { return s->notes.n; }
const char *ds_session_note(const ds_session *s, size_t i) { return s->notes.v[i]; }
const ds_meta *ds_session_meta(const ds_session *s) { return &s->meta; }

const char *ds_session_label(const ds_session *s) { return s->label; }

/* The name of the experiment at path: its directory's ("runs/run.3" ->
 * "run.3", "exp/perf.data" -> "exp"), or the file's. */
static char *path_label(const char *path)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	start = end;
	while (start && path[start - 1] != '/')
		start--;
	if (end - start == 9 && strncmp(path + start, "perf.data", 9) == 0 && start > 1) {
		end = start - 1;
		while (end > 1 && path[end - 1] == '/')
			end--;
		start = end;
		while (start && path[start - 1] != '/')
			start--;
	}
	return ds_xstrndup(path + start, end - start);
}

bool ds_ip_is_kernel(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL;
}

bool ds_sample_wanted(const ds_session *s, uint32_t tid)
{
	if (!s->opts.tids)
		return true;
	for (size_t i = 0; i < s->opts.ntids; i++)
		if (s->opts.tids[i] == tid)
			return true;
	return false;
}

/* ---- objects and address spaces ---- */

/* An object is its path and file (device and inode) or, when the kernel
 * told it instead, its build-id: two builds at one path are two objects. */
static uint32_t dso_intern(ds_session *s, const char *path, uint32_t maj, uint32_t mn,
			   uint64_t ino, const uint8_t *bid, uint8_t bid_size, bool kernel)
{
	ds_buf key = {0};
	bool added;
	size_t i;

	ds_buf_printf(&key, "%s%c%u:%u:%llu:", path, 0, maj, mn, (unsigned long long)ino);
	if (bid_size)
		ds_buf_append(&key, bid, bid_size);
	i = ds_hash_intern(s->dso_index, key.p, key.len, &added);
	ds_buf_free(&key);
	if (added) {
		dso_ent d = {0};
		const char *slash = strrchr(path, '/');
		d.path = ds_xstrdup(path);
		d.module = ds_xstrdup(kernel ? "[kernel.kallsyms]" : slash ? slash + 1 : path);
		d.kernel = kernel;
		d.maj = maj;
		d.min = mn;
		d.ino = ino;
		if (bid_size)
			memcpy(d.build_id, bid, bid_size);
		d.build_id_size = bid_size;
		ds_vec_push(&s->dsos, d);
	}
	return (uint32_t)i;
}

static proc *proc_get(ds_session *s, uint32_t pid)
{
	bool added;
	size_t i = ds_hash_intern(s->proc_index, &pid, sizeof pid, &added);
	if (added) {
		proc p = {0};
		p.pid = pid;
		p.parent = -1;
		ds_vec_push(&s->procs, p);
	}
	return &s->procs.v[i];
}

static proc *proc_find(ds_session *s, uint32_t pid)
{
	int64_t i;
	/* a sample's frames, and the next samples, are mostly of one process */
	if (s->proc_hint < s->procs.n && s->procs.v[s->proc_hint].pid == pid)
		return &s->procs.v[s->proc_hint];
	i = ds_hash_find(s->proc_index, &pid, sizeof pid);
	if (i < 0)
		return NULL;
	s->proc_hint = (size_t)i;
	return &s->procs.v[i];
}

static size_t thread_get(ds_session *s, uint32_t pid, uint32_t tid)
{
	uint32_t key[2] = {pid, tid};
	bool added;
	size_t i = ds_hash_intern(s->thread_index, key, sizeof key, &added);
	if (added) {
		thread_ent t = {0};
		t.pid = pid;
		t.tid = tid;
		ds_vec_push(&s->threads, t);
		for (size_t e = 0; e < s->nev; e++) {
			ds_vec_push(&s->thread_samples, 0);
			ds_vec_push(&s->thread_count, 0);
		}
	}
	return i;
}

static int cmp_map(const void *a, const void *b)
{
	const map_ent *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static void proc_index_maps(proc *p)
{
	uint64_t mx = 0;
	if (!p->maps.n)
		return;
	ds_sort(p->maps.v, p->maps.n, sizeof *p->maps.v, cmp_map);
	ds_vec_reserve(&p->end_max, p->maps.n);
	for (size_t i = 0; i < p->maps.n; i++) {
		if (p->maps.v[i].end > mx)
			mx = p->maps.v[i].end;
		p->end_max.v[i] = mx;
	}
	p->end_max.n = p->maps.n;
}

/* The time of p's first exec after t; UINT64_MAX: none. */
static uint64_t first_exec_after(const proc *p, uint64_t t)
{
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < p->execs.n; i++)
		if (p->execs.v[i] > t && p->execs.v[i] < first)
			first = p->execs.v[i];
	return first;
}

static bool exec_between(const proc *p, uint64_t after, uint64_t upto)
{
	uint64_t e = first_exec_after(p, after);
	return e != UINT64_MAX && e <= upto;
}

/* A forked child runs in its parent's mappings until it execs: the process
 * whose mappings p had at time *t besides its own (its parent, *t moved
 * back to the fork), or NULL. */
static const proc *forked_from(ds_session *s, const proc *p, uint64_t *t)
{
	if (p->parent < 0 || exec_between(p, 0, *t))
		return NULL;
	if (p->fork_time < *t)
		*t = p->fork_time;
	return &s->procs.v[p->parent];
}

/* The mapping of ip in p at time t: the latest one mapped by then and not
 * wiped out by an exec in between. */
static const map_ent *find_map(const proc *p, uint64_t ip, uint64_t t)
{
	size_t lo = 0, hi = p->maps.n;
	const map_ent *best = NULL;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->maps.v[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && p->end_max.v[i] > ip;) {
		const map_ent *m = &p->maps.v[i];
		if (ip < m->end && m->time <= t && !exec_between(p, m->time, t) &&
		    (!best || m->time > best->time))
			best = m;
	}
	return best;
}

/* Sites are found by (object, offset) once per sample and once per frame
 * of its call chain: a 64-bit map when both fit in one key (every object's
 * offset, 44 bits); for the others (kernel addresses) a 64-bit map by
 * offset, whose site is checked to be of the object, and the byte-key
 * table when it is not. */
#define SITE_OFF_BITS 44

static uint32_t site_intern(ds_session *s, uint32_t dso, uint64_t off)
{
	struct {
		uint32_t dso, pad;
		uint64_t off;
	} key = {dso, 0, off};
	bool fits = dso < (1u << (64 - SITE_OFF_BITS)) && off < (1ull << SITE_OFF_BITS), added;
	uint64_t k = (uint64_t)dso << SITE_OFF_BITS | off;
	uint32_t at = ds_u64map_get(fits ? &s->site_map : &s->site_map_wide, fits ? k : off);
	size_t i;

	/* the wide map is by offset alone: its site must be of this object */
	if (at != DS_U64MAP_NONE && (fits || s->sites.v[at].dso == dso))
		return at;
	i = ds_hash_intern(s->site_index, &key, sizeof key, &added);
	ds_u64map_put(fits ? &s->site_map : &s->site_map_wide, fits ? k : off, (uint32_t)i, NULL);
	if (added) {
		site st = {0};
		st.dso = dso;
		st.off = off;
		ds_vec_push(&s->sites, st);
		ds_vec_reserve(&s->site_samples, (i + 1) * s->nev);
		ds_vec_reserve(&s->site_count, (i + 1) * s->nev);
		for (size_t e = 0; e < s->nev; e++) {
			s->site_samples.v[s->site_samples.n++] = 0;
			s->site_count.v[s->site_count.n++] = 0;
		}
	}
	return (uint32_t)i;
}

uint32_t ds_session_site_at(ds_session *s, uint32_t dso, uint64_t off)
{
	return site_intern(s, dso, off);
}

/* A user address's site is the same at every time after the last mapping
 * changed (maps_final), so there it is kept by (pid, ip): a call chain's
 * frames come back sample after sample, and a lookup (the process, its
 * mapping, the site of the offset) is most of a frame's cost. */
#define SITE_MEMO (1u << 16)
struct site_memo {
	uint64_t ip;
	uint32_t pid;         /* UINT32_MAX: the kernel's (its mappings are the same for every time) */
	uint32_t site;        /* UINT32_MAX: empty */
};

static uint32_t site_lookup(ds_session *s, uint32_t pid, uint64_t time, uint64_t ip, bool kernel);

uint32_t ds_session_site(ds_session *s, uint32_t pid, uint64_t time, uint64_t ip, bool kernel)
{
	struct site_memo *e;

	if (kernel)
		pid = UINT32_MAX;
	else if (time <= s->maps_final || pid == UINT32_MAX)
		return site_lookup(s, pid, time, ip, false);
	if (!s->site_memo) {
		s->site_memo = ds_xmalloc(SITE_MEMO * sizeof *s->site_memo);
		for (size_t i = 0; i < SITE_MEMO; i++)
			s->site_memo[i].site = UINT32_MAX;
	}
	e = &s->site_memo[(ip ^ ip >> 16 ^ (uint64_t)pid * 0x9e3779b1u) & (SITE_MEMO - 1)];
	if (e->site == UINT32_MAX || e->ip != ip || e->pid != pid) {
		e->ip = ip;
		e->pid = pid;
		e->site = site_lookup(s, pid, time, ip, kernel);
	}
	return e->site;
}

static uint32_t site_lookup(ds_session *s, uint32_t pid, uint64_t time, uint64_t ip, bool kernel)
{
	const map_ent *m = NULL;

	/* The sample's mode says which address space to look in, as perf does.
	 * A kernel-mode IP outside the kernel's mappings is still the kernel's
	 * when it lies in the upper half (modules, trampolines, or no MMAP at all
	 * when kptr_restrict hid _text); in the lower half it is a user address
	 * the mode contradicts, which no kernel object holds: [unknown]. */
	if (kernel) {
		m = find_map(&s->kernel, ip, UINT64_MAX);
		if (!m && (int64_t)ip < 0)
			return site_intern(s, dso_intern(s, "[kernel.kallsyms]", 0, 0, 0, NULL, 0, true), ip);
	} else {
		const proc *p = proc_find(s, pid);
		uint64_t t = time;
		for (int depth = 0; p && depth < 64 && !(m = find_map(p, ip, t)); depth++)
			p = forked_from(s, p, &t);
	}
	if (!m)
		return site_intern(s, DSO_UNKNOWN, ip);
	return site_intern(s, m->dso, s->dsos.v[m->dso].kernel ? ip : ip - m->start + m->pgoff);
}

static void load_dso(ds_session *s, dso_ent *d);

/* The object whose image (code, data or bss) holds a runtime data address:
 * each mapped object's load bias comes from one of its mappings, and its
 * segments say what it covers beyond the file (bss has no file behind it). */
bool ds_session_data_at(ds_session *s, uint32_t pid, uint64_t time, uint64_t ea, uint32_t *dso,
			uint64_t *vaddr)
{
	const proc *p = proc_find(s, pid);
	uint64_t t = time;

	for (int depth = 0; p && depth < 64; depth++, p = forked_from(s, p, &t)) {
		for (size_t i = 0; i < p->maps.n; i++) {
			const map_ent *m = &p->maps.v[i];
			dso_ent *d = &s->dsos.v[m->dso];
			uint64_t at;
			if (m->time > t || d->kernel)
				continue;
			load_dso(s, d);
			if (!d->dso || !ds_dso_file_to_vaddr(d->dso, m->pgoff, &at))
				continue;
			at = ea - (m->start - at);
			if (ds_dso_vaddr_loaded(d->dso, at)) {
				*dso = m->dso;
				*vaddr = at;
				return true;
			}
		}
	}
	return false;
}

static bool in_spans(const proc *p, uint64_t a)
{
	for (size_t i = 0; i < p->stacks.n; i++)
		if (a >= p->stacks.v[i].start && a < p->stacks.v[i].end)
			return true;
	return false;
}

/* The latest of spans v mapped at or before time over ea (the first of
 * those mapped at one time), or NULL. */
static const stack_span *latest_span(const stack_span *v, size_t n, uint64_t time, uint64_t ea)
{
	const stack_span *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (ea >= v[i].start && ea < v[i].end && v[i].time <= time && (!best || v[i].time > best->time))
			best = &v[i];
	return best;
}

bool ds_session_in_file(ds_session *s, uint32_t pid, uint64_t time, uint64_t ea)
{
	const proc *p = proc_find(s, pid);
	for (int depth = 0; p && depth < 64; depth++, p = forked_from(s, p, &time)) {
		const stack_span *f = latest_span(p->files.v, p->files.n, time, ea);
		const stack_span *a = latest_span(p->anon.v, p->anon.n, time, ea);
		if (f || a)
			return f && (!a || f->time > a->time);
	}
	return false;
}

uint64_t ds_session_exec_after(ds_session *s, uint32_t pid, uint64_t t)
{
	const proc *p = proc_find(s, pid);
	return p ? first_exec_after(p, t) : UINT64_MAX;
}

/* A fork's child runs on its parent's mappings until it execs: each walks
 * the process and its ancestors. */
bool ds_session_in_stack(ds_session *s, uint32_t pid, uint64_t ea)
{
	const proc *p = proc_find(s, pid);
	for (int depth = 0; p && depth < 64; depth++) {
		if (p->stack_top && ea < p->stack_top && ea >= p->stack_top - (8u << 20))
			return true;
		if (in_spans(p, ea))
			return true;
		if (p->parent < 0 || p->execs.n)
			break;
		p = &s->procs.v[p->parent];
	}
	return false;
}

bool ds_session_note_sp(ds_session *s, uint32_t pid, uint64_t time, uint64_t sp)
{
	proc *p = proc_find(s, pid), *owner = p;
	const stack_span *best = NULL;

	if (!p || ds_session_in_stack(s, pid, sp))
		return p != NULL;
	for (int depth = 0; p && depth < 64 && !best; depth++) {
		best = latest_span(p->anon.v, p->anon.n, time, sp);
		if (p->parent < 0 || p->execs.n)
			break;
		p = &s->procs.v[p->parent];
	}
	if (best) {
		stack_span st = *best;
		ds_vec_push(&owner->stacks, st);
	}
	return best != NULL;
}

/* ---- loading objects ---- */

char *ds_session_dir(const ds_session *s)
{
	struct stat st;
	const char *slash;
	if (stat(s->path, &st) == 0 && S_ISDIR(st.st_mode))
		return ds_xstrdup(s->path);
	slash = strrchr(s->path, '/');
	return slash ? ds_xstrndup(s->path, (size_t)(slash - s->path)) : ds_xstrdup(".");
}

/* path inside the experiment's archive/ as perf lays out its build-id cache
 * (archive/.build-id/xx/rest is a link to the object's folder, which holds
 * `elf` and, when there was one, the separate debug file `debug`); NULL
 * when absent, or when the link leads out of archive/. */
static char *archived_file(const ds_session *s, const dso_ent *d, const char *name)
{
	char hex[2 * DS_BUILD_ID_MAX + 1];
	char *dir = ds_session_dir(s), *top = ds_xasprintf("%s/archive", dir), *link, *real, *root;
	size_t n;

	ds_build_id_hex(d->build_id, d->build_id_size, hex);
	link = ds_xasprintf("%s/.build-id/%.2s/%s/%s", top, hex, hex + 2, name);
	real = realpath(link, NULL);
	root = realpath(top, NULL);
	n = root ? strlen(root) : 0;
	if (real && (!root || strncmp(real, root, n) != 0 || real[n] != '/' || access(real, R_OK) != 0)) {
		free(real);
		real = NULL;
	}
	free(root);
	free(link);
	free(top);
	free(dir);
	return real;
}

/* The copy of d's file that `dsprof archive` kept, when its build-id is
 * the recorded one, with its debug file. */
static ds_dso *open_archived(ds_session *s, const dso_ent *d, ds_dso_opts *o)
{
	char *elf, *debug;
	ds_dso *dso = NULL;
	const uint8_t *id;
	size_t n;
	ds_err err;

	if (!d->build_id_size || !(elf = archived_file(s, d, "elf")))
		return NULL;
	debug = archived_file(s, d, "debug");
	o->debug_file = debug;
	dso = ds_dso_open(elf, o, &err);
	o->debug_file = NULL;
	if (dso && (!(id = ds_dso_build_id(dso, &n)) || n != d->build_id_size ||
		    memcmp(id, d->build_id, n) != 0)) {
		ds_session_note_add(s, "ignoring '%s': its build-id is not the recorded one", elf);
		ds_dso_close(dso);
		dso = NULL;
	}
	free(elf);
	free(debug);
	return dso;
}

/* An object whose build-id differs from the recorded one is another
 * program: its symbols and instructions would answer wrongly, so it is
 * treated as absent. */
static void check_build_id(ds_session *s, dso_ent *d, const char *path)
{
	char want[2 * DS_BUILD_ID_MAX + 1], have[2 * DS_BUILD_ID_MAX + 1] = "none";
	size_t n;
	const uint8_t *id = ds_dso_build_id(d->dso, &n);

	if (id && n == d->build_id_size && memcmp(id, d->build_id, n) == 0)
		return;
	ds_build_id_hex(d->build_id, d->build_id_size, want);
	if (id)
		ds_build_id_hex(id, n < DS_BUILD_ID_MAX ? n : DS_BUILD_ID_MAX, have);
	ds_session_note_add(s, "'%s' is not the file that was recorded (build-id %s here, %s in the "
			       "recording): its samples are shown as [unknown]; 'dsprof archive' where "
			       "it was recorded keeps the recorded files with the experiment",
			    path, have, want);
	ds_dso_close(d->dso);
	d->dso = NULL;
}

/* The kernel's symbols come from a kallsyms file, most often this
 * kernel's /proc/kallsyms, which the kernel writes as it is read: 40 ms
 * for its 200,000 symbols here, and as much again to index them, a tenth
 * of the report of a large recording.  A large one is sure to have kernel
 * frames, so they are read on a second thread while the samples are. */
#define KERNEL_SYMS_EARLY (64u << 20) /* bytes of records */

struct kernel_syms {
	pthread_t thread;
	char *path;
	bool own;      /* the experiment's: a link there is refused */
	ds_dso *dso;
	ds_err err;
};

static void *read_kernel_syms(void *arg)
{
	struct kernel_syms *k = arg;
	k->dso = ds_dso_open_kallsyms(k->path, k->own, &k->err);
	return NULL;
}

/* Where the kernel's symbols are: --kallsyms, the ones kept at record
 * time (*own), or this kernel's own; NULL: none. */
static char *kallsyms_path(ds_session *s, bool *own)
{
	char *dir = ds_session_dir(s), *kept = ds_xasprintf("%s/kallsyms", dir), *ks;
	struct stat st;

	*own = !s->opts.kallsyms && lstat(kept, &st) == 0;
	ks = s->opts.kallsyms ? ds_xstrdup(s->opts.kallsyms)
	     : *own ? ds_xstrdup(kept)
	     : s->same_machine ? ds_xstrdup("/proc/kallsyms") : NULL;
	free(kept);
	free(dir);
	return ks;
}

static void kernel_syms_start(ds_session *s)
{
	struct kernel_syms *k;
	char *ks;
	bool own;

	if (s->opts.lazy_kernel || ds_perfdata_data_size(s->pd) < KERNEL_SYMS_EARLY ||
	    !(ks = kallsyms_path(s, &own)))
		return;
	k = ds_xcalloc(1, sizeof *k);
	k->path = ks;
	k->own = own;
	if (pthread_create(&k->thread, NULL, read_kernel_syms, k)) {
		free(ks);
		free(k);
		return;
	}
	s->kernel_syms = k;
}

/* The symbols the thread read into *dso (NULL: *err says why); the
 * path it read them from (the caller frees it).  The thread is done. */
static char *kernel_syms_take(ds_session *s, ds_dso **dso, ds_err *err)
{
	struct kernel_syms *k = s->kernel_syms;
	char *path = k->path;

	pthread_join(k->thread, NULL);
	*dso = k->dso;
	*err = k->err;
	free(k);
	s->kernel_syms = NULL;
	return path;
}

static void load_dso(ds_session *s, dso_ent *d)
{
	ds_err err = {0};
	ds_dso_opts o = {.progress = s->opts.progress};
	struct stat st;
	char *path;
	size_t n;

	if (d->tried)
		return;
	d->tried = true;
	if (d->kernel) {
		char *ks;
		bool own;
		if (s->kernel_syms)
			ks = kernel_syms_take(s, &d->dso, &err);
		else if ((ks = kallsyms_path(s, &own)))
			d->dso = ds_dso_open_kallsyms(ks, own, &err);
		if (ks && !d->dso)
			ds_session_note_add(s, "kernel samples are shown as [kernel]: %s", err.msg);
		else if (!ks && s->unfinished)
			ds_session_note_add(s, "kernel samples are shown as [kernel]: the recording did not end, so it "
					       "never kept the kernel's symbols, and this is not the boot it ran in "
					       "(give them with --kallsyms)");
		else if (!ks && !s->meta.kernel)
			ds_session_note_add(s, "kernel samples are shown as [kernel]: the experiment does not say "
					       "which kernel it was recorded on (give its kallsyms with --kallsyms)");
		else if (!ks)
			ds_session_note_add(s, "kernel samples are shown as [kernel]: the experiment was "
					       "recorded on another kernel (give its kallsyms with --kallsyms)");
		free(ks);
		return;
	}
	if (strcmp(d->path, "[vdso]") == 0) {
		/* the image saved at record time, or ours when recorded on this boot */
		char *dir = ds_session_dir(s);
		const void *img;
		size_t len;
		path = ds_xasprintf("%s/vdso.so", dir);
		free(dir);
		if (access(path, F_OK) == 0)
			d->dso = ds_dso_open(path, &o, &err);
		else if (s->same_machine && ds_self_vdso(&img, &len))
			d->dso = ds_dso_open_mem(img, len, "[vdso]", &err);
		if (!d->dso && err.msg[0])
			ds_session_note_add(s, "%s; its samples are shown as [unknown]", err.msg);
		free(path);
		return;
	}
	if (d->path[0] != '/' || strncmp(d->path, "//", 2) == 0 || strncmp(d->path, "/memfd:", 7) == 0)
		return; /* [heap], //anon, memfd: JIT code with no file to read */
	path = ds_xstrdup(d->path);
	n = strlen(path);
	if (n > 10 && strcmp(path + n - 10, " (deleted)") == 0)
		path[n - 10] = 0;
	o.debug_root = s->opts.debug_root;
	if (!(d->dso = open_archived(s, d, &o)) && !(d->dso = ds_dso_open(path, &o, &err)))
		ds_session_note_add(s, "%s; its samples are shown as [unknown]", err.msg);
	else if (d->build_id_size)
		check_build_id(s, d, path);
	else if (d->ino && stat(path, &st) == 0 &&
		 (st.st_ino != d->ino || major(st.st_dev) != d->maj || minor(st.st_dev) != d->min))
		ds_session_note_add(s, "'%s' is not the file that was recorded (it was replaced "
				       "since, and the experiment has no build-id to tell); its symbols "
				       "may be wrong", path);
	if (d->dso && ds_dso_note(d->dso))
		ds_session_note_add(s, "%s", ds_dso_note(d->dso));
	free(path);
}

void ds_site_resolve(ds_session *s, size_t i, bool lines)
{
	site *st = &s->sites.v[i];
	dso_ent *d = &s->dsos.v[st->dso];

	if (!st->resolved) {
		st->resolved = true;
		if (st->dso != DSO_UNKNOWN) {
			load_dso(s, d);
			if (d->dso && ds_dso_file_to_vaddr(d->dso, st->off, &st->vaddr)) {
				st->has_vaddr = true;
				st->sym = ds_dso_symbol_at(d->dso, st->vaddr);
			}
		}
	}
	if (lines && !st->lines_done) {
		st->lines_done = true;
		if (st->has_vaddr && !d->kernel)
			ds_dso_line_at(d->dso, st->vaddr, &st->file, &st->line);
	}
}

const char *ds_thread_comm(ds_session *s, size_t ti)
{
	const thread_ent *t = &s->threads.v[ti];
	for (int depth = 0; depth < 64; depth++) {
		uint32_t key[2];
		int64_t k;
		if (t->comm)
			return t->comm;
		if (!t->forked)
			break;
		/* a new thread or process is named after its creator until it execs */
		key[0] = t->pid;
		key[1] = t->ptid;
		k = ds_hash_find(s->thread_index, key, sizeof key);
		if (k < 0) {
			const proc *p = proc_find(s, t->pid);
			if (!p || p->parent < 0)
				break;
			key[0] = s->procs.v[p->parent].pid;
			k = ds_hash_find(s->thread_index, key, sizeof key);
			if (k < 0)
				break;
		}
		t = &s->threads.v[k];
	}
	return "?";
}

/* ---- reading ---- */

/* Whether a data mapping's name is a file's: not "//anon", nor memory
 * shared without a file that an allocator may hand out (/dev/zero's,
 * memfd's). */
static bool file_data(const char *name)
{
	return name[0] == '/' && strcmp(name, "//anon") && strncmp(name, "/dev/zero", 9) &&
	       strncmp(name, "/memfd:", 7);
}

static void side_band(ds_session *s, const ds_record *r)
{
	switch (r->kind) {
	case DS_REC_MMAP: {
		const ds_rec_mmap *m = &r->u.mmap;
		bool kernel = m->pid == (uint32_t)-1 || ds_ip_is_kernel(r->misc);
		map_ent e;
		if (!m->executable && !kernel && m->len && !strcmp(m->filename, "[stack]"))
			proc_get(s, m->pid)->stack_top = m->start + m->len;
		if (!m->executable && !kernel && m->len && !strcmp(m->filename, "//anon")) {
			stack_span a = {m->start, m->start + m->len, r->time};
			ds_vec_push(&proc_get(s, m->pid)->anon, a);
		}
		if (!m->executable && !kernel && m->len && file_data(m->filename)) {
			stack_span f = {m->start, m->start + m->len, r->time};
			ds_vec_push(&proc_get(s, m->pid)->files, f);
		}
		if (!m->executable || !m->len)
			return;
		e.start = m->start;
		e.end = m->start + m->len < m->start ? UINT64_MAX : m->start + m->len;
		e.pgoff = m->pgoff;
		e.time = r->time;
		e.dso = dso_intern(s, kernel ? "[kernel.kallsyms]" : m->filename, m->maj, m->min,
				   m->ino, m->build_id, m->has_build_id ? m->build_id_size : 0, kernel);
		ds_vec_push(kernel ? &s->kernel.maps : &proc_get(s, m->pid)->maps, e);
		break;
	}
	case DS_REC_COMM: {
		size_t ti = thread_get(s, r->u.comm.pid, r->u.comm.tid);
		thread_ent *t = &s->threads.v[ti];
		if (!t->comm || r->time >= t->comm_time) {
			t->comm = r->u.comm.comm;
			t->comm_time = r->time;
		}
		if (r->u.comm.exec && r->u.comm.pid == r->u.comm.tid)
			ds_vec_push(&proc_get(s, r->u.comm.pid)->execs, r->time);
		break;
	}
	case DS_REC_FORK: {
		const ds_rec_task *k = &r->u.task;
		size_t ti = thread_get(s, k->pid, k->tid);
		thread_ent *t = &s->threads.v[ti];
		t->forked = true;
		t->ptid = k->ptid;
		t->fork_time = k->time;
		if (k->pid != k->ppid) {
			size_t parent = (size_t)(proc_get(s, k->ppid) - s->procs.v);
			proc *p = proc_get(s, k->pid);
			p->parent = (int64_t)parent;
			p->fork_time = k->time;
		}
		break;
	}
	case DS_REC_LOST:
		s->lost += r->u.lost.lost;
		break;
	case DS_REC_LOST_SAMPLES:
		s->lost_samples += r->u.lost.lost;
		break;
	case DS_REC_THROTTLE:
		s->throttled++;
		break;
	default:
		break;
	}
}

/* How the caller of code at a site is found.  A function without a frame
 * of its own (a leaf compiled without one, or any function in its prologue
 * or epilogue) leaves the frame pointer at its caller's frame, so the
 * frame-pointer walk skips the caller: its return address is still on the
 * stack, where the call-frame information says. */
static void site_frame(ds_session *s, uint32_t i)
{
	site *st = &s->sites.v[i];
	const ds_arch *arch = ds_arch_host();
	ds_cfa cfa;

	ds_site_resolve(s, i, false);
	st->frame = FRAME_NONE;
	if (!st->has_vaddr || s->dsos.v[st->dso].kernel ||
	    !ds_dso_cfa_at(s->dsos.v[st->dso].dso, st->vaddr, &cfa) || !cfa.ra_saved)
		return;
	if (cfa.cfa_reg == ds_arch_dwarf_fp(arch)) {
		st->frame = FRAME_CHAINED;
	} else if (cfa.cfa_reg == ds_arch_dwarf_sp(arch) && cfa.cfa_offset + cfa.ra_offset >= 0 &&
		   cfa.cfa_offset + cfa.ra_offset < INT32_MAX) {
		st->frame = FRAME_STACK;
		st->ra_sp = (int32_t)(cfa.cfa_offset + cfa.ra_offset);
	}
}

/* The return address of the user-space leaf at site i from the sample's
 * stack copy, or 0 when the frame-pointer chain already has the caller or
 * the copy does not reach it. */
static uint64_t leaf_caller(ds_session *s, const ds_sample *sm, uint32_t i)
{
	const site *st = &s->sites.v[i];
	uint64_t ra;

	if (!sm->stack_size || st->dso == DSO_UNKNOWN)
		return 0;
	if (st->frame == FRAME_UNKNOWN)
		site_frame(s, i);
	st = &s->sites.v[i];
	if (st->frame != FRAME_STACK || (uint64_t)st->ra_sp + 8 > sm->stack_size)
		return 0;
	memcpy(&ra, sm->stack + st->ra_sp, 8);
	return ra;
}

static uint64_t sample_time(const ds_sample *sm)
{
	return (sm->type & PERF_SAMPLE_TIME) ? sm->time : UINT64_MAX;
}

/* Whether the kernel walked the user stack: a chain recorded with a copy
 * of the user stack instead (`--call-graph dwarf`, perf's too) has no
 * user part. */
static bool has_user_chain(const ds_sample *sm)
{
	for (uint64_t i = 0; i < sm->nr_callchain; i++)
		if (sm->callchain[i] == (uint64_t)PERF_CONTEXT_USER)
			return true;
	return false;
}

/* The kernel's part of the chain, then every user frame from the copy. */
static const uint64_t *unwound_chain(ds_session *s, const ds_sample *sm, size_t *n)
{
	size_t marker;
	int end;

	s->chain_buf.n = s->chain_sites.n = 0;
	for (uint64_t i = 0; i <= sm->nr_callchain; i++) {
		ds_vec_push(&s->chain_buf, i < sm->nr_callchain ? sm->callchain[i] : (uint64_t)PERF_CONTEXT_USER);
		ds_vec_push(&s->chain_sites, UINT32_MAX);
	}
	marker = s->chain_buf.n - 1;
	end = ds_session_unwind(s, sm, &s->chain_buf, &s->chain_sites);
	s->chain_ends[end]++;
	if (s->chain_buf.n == marker + 1)
		s->chain_buf.n = s->chain_sites.n = marker;
	*n = s->chain_buf.n;
	return s->chain_buf.v;
}

/* ds_session_full_chain, and when the chain was unwound here the sites
 * of its frames the unwinder found (else NULL), as ds_session_unwind
 * gives them. */
static const uint64_t *full_chain(ds_session *s, const ds_sample *sm, size_t *n, const uint32_t **sites)
{
	bool user_first = false, done = false;

	*sites = NULL;
	if (!sm->stack_size) { /* no copy: the chain is as complete as it gets */
		*n = sm->nr_callchain;
		return sm->callchain;
	}
	if (!has_user_chain(sm)) {
		const uint64_t *c = unwound_chain(s, sm, n);
		*sites = s->chain_sites.v;
		return c;
	}
	s->chain_buf.n = 0;
	ds_vec_reserve(&s->chain_buf, sm->nr_callchain + 1);
	for (uint64_t i = 0; i < sm->nr_callchain; i++) {
		uint64_t ip = sm->callchain[i], ra;
		s->chain_buf.v[s->chain_buf.n++] = ip;
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user_first = ip == (uint64_t)PERF_CONTEXT_USER && !done;
			continue;
		}
		if (!user_first || ip == 0)
			continue;
		/* the user stack copy belongs to the first user-space frame */
		user_first = false;
		done = true;
		ra = leaf_caller(s, sm, ds_session_site(s, sm->pid, sample_time(sm), ip, false));
		if (ra && !(i + 1 < sm->nr_callchain && sm->callchain[i + 1] == ra))
			s->chain_buf.v[s->chain_buf.n++] = ra;
	}
	*n = s->chain_buf.n;
	return s->chain_buf.v;
}

const uint64_t *ds_session_full_chain(ds_session *s, const ds_sample *sm, size_t *n)
{
	const uint32_t *sites;
	return full_chain(s, sm, n, &sites);
}

/* The frames of a chain from i on that the previous sample's chain (cm)
 * shares, and whose sites can be taken from it: its tail from a context
 * marker on, the same raw addresses in the same roles (a loop's samples
 * share their callers).  A frame's mapping does not change while the frame
 * is on the stack. */
static size_t shared_from(const chain_memo *cm, uint32_t pid, const uint64_t *chain, size_t nc)
{
	size_t m = 0;

	if (cm->pid != pid)
		return nc;
	while (m < nc && m < cm->raw.n && chain[nc - 1 - m] == cm->raw.v[cm->raw.n - 1 - m])
		m++;
	for (size_t p = nc - m; p < nc; p++)
		if (chain[p] >= (uint64_t)PERF_CONTEXT_MAX)
			return p;
	return nc;
}

/* Chain of unique instructions for one sample: the leaf, then each caller.
 * Return addresses point after the call, so callers are looked up at
 * address - 1, which lies in the calling instruction (and line); the
 * unwinder found most of them already. */
static uint32_t intern_chain(ds_session *s, const ds_sample *sm, uint16_t misc, uint32_t leaf)
{
	uint32_t key[131];
	const size_t max = sizeof key / sizeof key[0];
	size_t n = 0, nc, from;
	bool kernel = ds_ip_is_kernel(misc), first = true;
	const uint32_t *found;
	const uint64_t *chain = full_chain(s, sm, &nc, &found);
	uint64_t t = sample_time(sm);
	chain_memo *cm = &s->chain_memo;
	ds_vec_u32 *sites = &cm->next;
	bool added;
	size_t ci;

	from = shared_from(cm, sm->pid, chain, nc);
	sites->n = 0;
	ds_vec_reserve(sites, nc + 1);
	key[n++] = leaf;
	for (size_t i = 0; i < nc; i++) {
		uint64_t ip = chain[i];
		uint32_t *si = &sites->v[sites->n++];
		*si = UINT32_MAX;
		if (n == max)
			continue;
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL || ip == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
			first = true;
			continue;
		}
		if (ip == 0)
			continue; /* where a frame-pointer walk ran off the stack: no caller */
		if (first) {
			first = false;
			if (ip != sm->ip) { /* else the leaf itself */
				uint32_t f = found ? found[i] : UINT32_MAX;
				key[n++] = f != UINT32_MAX ? f : ds_session_site(s, sm->pid, t, ip, kernel);
			}
			continue;
		}
		if (i > from)
			*si = cm->site.v[i - nc + cm->raw.n];
		if (*si == UINT32_MAX && found)
			*si = found[i];
		if (*si == UINT32_MAX)
			*si = ds_session_site(s, sm->pid, t, ip - 1, kernel);
		key[n++] = *si;
	}
	/* this sample's chain is the next one's memo */
	cm->pid = sm->pid;
	cm->raw.n = 0;
	ds_vec_reserve(&cm->raw, nc + 1);
	if (nc)
		memcpy(cm->raw.v, chain, nc * sizeof *chain);
	cm->raw.n = nc;
	{
		ds_vec_u32 tmp = cm->site;
		cm->site = cm->next;
		cm->next = tmp;
	}
	/* the same key as the last sample's (the same instruction of a loop):
	 * the same chain */
	if (cm->id != UINT32_MAX && cm->key.n == n && !memcmp(cm->key.v, key, n * sizeof *key))
		return cm->id;
	ci = ds_hash_intern(s->chain_index, key, n * sizeof key[0], &added);
	if (added)
		for (size_t e = 0; e < s->nev; e++) {
			ds_vec_push(&s->chain_samples, 0);
			ds_vec_push(&s->chain_count, 0);
		}
	cm->key.n = 0;
	ds_vec_reserve(&cm->key, n);
	memcpy(cm->key.v, key, n * sizeof *key);
	cm->key.n = n;
	cm->id = (uint32_t)ci;
	return (uint32_t)ci;
}

void ds_srec_count(ds_session *s, const ds_srec *x)
{
	s->site_samples.v[(size_t)x->site * s->nev + x->ev]++;
	s->site_count.v[(size_t)x->site * s->nev + x->ev] += x->period;
	s->thread_samples.v[(size_t)x->thread * s->nev + x->ev]++;
	s->thread_count.v[(size_t)x->thread * s->nev + x->ev] += x->period;
	if (x->chain != UINT32_MAX) {
		s->chain_samples.v[(size_t)x->chain * s->nev + x->ev]++;
		s->chain_count.v[(size_t)x->chain * s->nev + x->ev] += x->period;
	}
	s->ev_samples[x->ev]++;
	s->ev_count[x->ev] += x->period;
	s->nsamples += ds_srec_own(s, x);
	if (x->time != UINT64_MAX && x->time && (!s->first_time || x->time < s->first_time))
		s->first_time = x->time;
	if (x->time != UINT64_MAX && x->time > s->last_time)
		s->last_time = x->time;
}

/* What the reader could not read, once it has read every record. */
static void damage_notes(ds_session *s)
{
	size_t n;
	char **notes = ds_perfdata_damage_notes(s->pd, s->meta.end_ns, &n);
	for (size_t i = 0; i < n; i++) {
		ds_session_note_add(s, "%s", notes[i]);
		free(notes[i]);
	}
	free(notes);
}

/* Read samples from where the last call stopped, for about `seconds`
 * (0: to the end): 1 when some remain, 0 at the end, -1 on error. */
static int read_samples(ds_session *s, double seconds, ds_err *err)
{
	uint64_t total = ds_perfdata_data_size(s->pd), n = 0;
	double until = seconds > 0 ? ds_now() + seconds : 0;
	ds_record r;
	ds_progress pr;
	int rc;

	if (s->loaded)
		return 0;
	ds_progress_begin(&pr, "reading samples");
	for (;;) {
		const ds_sample *sm = &r.u.sample;
		uint64_t t;
		ds_srec x;

		if (until && n && (n & 0x3ff) == 0 && ds_now() >= until) {
			ds_progress_end(&pr);
			return 1;
		}
		if ((rc = ds_perfdata_next(s->pd, &s->load_cur, &r, err)) <= 0)
			break;
		if ((++n & 0xffff) == 0 && s->opts.progress)
			ds_progress_update(&pr, s->load_cur, total);
		if (r.kind != DS_REC_SAMPLE || !ds_sample_wanted(s, sm->tid))
			continue;
		t = sample_time(sm);
		x = (ds_srec){.ip = sm->ip, .time = t, .period = sm->period ? sm->period : 1,
			      .cpu = (sm->type & PERF_SAMPLE_CPU) ? sm->cpu : UINT32_MAX,
			      .chain = UINT32_MAX, .ev = (uint16_t)r.evidx, .dobj = -1};
		x.site = ds_session_site(s, sm->pid, t, sm->ip, ds_ip_is_kernel(r.misc));
		x.thread = (uint32_t)thread_get(s, sm->pid, sm->tid);
		if (ds_ip_is_kernel(r.misc))
			x.flags |= SR_KERNEL;
		if (sm->type & PERF_SAMPLE_CALLCHAIN) {
			s->callchains = true;
			x.chain = intern_chain(s, sm, r.misc, x.site);
		}
		ds_vec_push(&s->srecs, x);
		ds_srec_count(s, &x);
		if (s->lat_ev[x.ev] != UINT16_MAX && sm->weight) {
			x.ev = s->lat_ev[x.ev];
			x.period = sm->weight > UINT64_MAX / x.period ? UINT64_MAX : x.period * sm->weight;
			ds_vec_push(&s->srecs, x);
			ds_srec_count(s, &x);
		}
	}
	ds_progress_end(&pr);
	if (rc < 0)
		return -1;
	s->loaded = true;
	damage_notes(s);
	if (s->lost || s->lost_samples)
		ds_session_note_add(s, "%llu records (samples or side-band) and %llu further samples were lost "
				       "while recording "
				       "(ring buffer full); counts are lower than the truth",
				    (unsigned long long)s->lost, (unsigned long long)s->lost_samples);
	return 0;
}

int ds_session_load(ds_session *s, double seconds, ds_err *err)
{
	return read_samples(s, seconds > 0 ? seconds : 0, err);
}

double ds_session_loaded(const ds_session *s)
{
	uint64_t total = ds_perfdata_data_size(s->pd);
	if (s->loaded || !total)
		return 1.0;
	return (double)ds_perfdata_cursor_pos(s->pd, s->load_cur) / (double)total;
}

uint64_t ds_session_samples(const ds_session *s)
{
	return s->nsamples;
}

/* Threads asked for (opts.tids) that the experiment never saw are an
 * input error, not an empty report: name them and the threads there are. */
static int check_tids(ds_session *s, ds_err *err)
{
	for (size_t i = 0; i < s->opts.ntids; i++) {
		ds_buf b = {0};
		size_t k;
		for (k = 0; k < s->threads.n && s->threads.v[k].tid != s->opts.tids[i]; k++)
			;
		if (k < s->threads.n)
			continue;
		for (k = 0; k < s->threads.n && k < 16; k++) {
			const char *comm = ds_thread_comm(s, k);
			ds_buf_printf(&b, "%s%u", k ? ", " : "", s->threads.v[k].tid);
			if (comm)
				ds_buf_printf(&b, " (%s)", comm);
		}
		if (s->threads.n > 16)
			ds_buf_printf(&b, " and %zu more ('--view threads' lists them)", s->threads.n - 16);
		ds_err_set(err, DS_EINPUT, "no thread %u was recorded in '%s'; its threads: %s", s->opts.tids[i],
			   s->path, s->threads.n ? ds_buf_str(&b) : "none");
		ds_buf_free(&b);
		return -1;
	}
	return 0;
}

static int read_side_band(ds_session *s, ds_err *err)
{
	uint64_t cur = 0;
	ds_record r;
	int rc;

	while ((rc = ds_perfdata_next_nonsample(s->pd, &cur, &r, err)) > 0)
		if (r.kind != DS_REC_SAMPLE)
			side_band(s, &r);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < s->procs.n; i++) {
		const proc *p = &s->procs.v[i];
		proc_index_maps(&s->procs.v[i]);
		for (size_t k = 0; k < p->maps.n; k++)
			s->maps_final = p->maps.v[k].time > s->maps_final ? p->maps.v[k].time : s->maps_final;
		for (size_t k = 0; k < p->execs.n; k++)
			s->maps_final = p->execs.v[k] > s->maps_final ? p->execs.v[k] : s->maps_final;
		s->maps_final = p->fork_time > s->maps_final ? p->fork_time : s->maps_final;
	}
	proc_index_maps(&s->kernel);
	return 0;
}

/* The build-ids the header lists, for the objects whose MMAP records gave
 * none (the kernel's are not checked: its symbols come from kallsyms). */
static void header_build_ids(ds_session *s)
{
	size_t n;
	const ds_build_id *ids = ds_perfdata_build_ids(s->pd, &n);

	for (size_t i = 0; i < s->dsos.n && n; i++) {
		dso_ent *d = &s->dsos.v[i];
		const ds_build_id *b;
		if (d->kernel || d->build_id_size || !(b = ds_build_id_find(ids, n, d->path)) || b->kernel)
			continue;
		memcpy(d->build_id, b->id, b->size);
		d->build_id_size = b->size;
	}
}

/* This machine's kallsyms and vdso only fit an experiment recorded on this
 * very host and kernel (and, for an unfinished one, which names it, boot). */
static void decide_same_machine(ds_session *s)
{
	struct utsname u;
	s->same_machine = uname(&u) == 0 && s->meta.kernel && s->meta.host && !s->other_boot &&
			  strcmp(u.release, s->meta.kernel) == 0 && strcmp(u.nodename, s->meta.host) == 0;
}

/* An experiment marked by a recording that has not ended, or never will
 * (its recorder was killed, or failed on a full disk): say so and why, and
 * take from the mark the machine a missing meta.json would have named. */
static void unfinished(ds_session *s, bool has_meta)
{
	char *dir = ds_session_dir(s), *prev;
	ds_expdir_mark_info mk;
	ds_buf b = {0};

	if (!ds_expdir_mark(dir, &mk)) {
		free(dir);
		return;
	}
	s->unfinished = true;
	s->other_boot = !mk.this_boot;
	if (!s->meta.host && mk.host[0])
		s->meta.host = ds_xstrdup(mk.host);
	if (!s->meta.kernel && mk.kernel[0])
		s->meta.kernel = ds_xstrdup(mk.kernel);
	ds_buf_puts(&b, has_meta ? "the experiment was not finished: " : "meta.json is missing: ");
	if (mk.live)
		ds_buf_printf(&b, "its recording (dsprof, pid %lld) is still running; the samples written so "
				  "far are shown", (long long)mk.pid);
	else {
		ds_buf_puts(&b, "its recording did not end (dsprof");
		if (mk.pid > 0)
			ds_buf_printf(&b, ", pid %lld,", (long long)mk.pid);
		ds_buf_printf(&b, " was killed or failed, as on a full disk) before writing %s; the samples "
				  "written up to then are shown", has_meta ? "the kernel's symbols" : "it");
	}
	if ((prev = ds_expdir_previous(dir)))
		ds_buf_printf(&b, "; the last complete experiment is '%s'", prev);
	ds_session_note_add(s, "%s", ds_buf_str(&b));
	ds_buf_free(&b);
	free(prev);
	free(dir);
}

int ds_session_open(const char *path, const ds_session_opts *o, ds_session **out, ds_err *err)
{
	ds_session *s = ds_xcalloc(1, sizeof *s);
	char *pdpath = NULL, *metapath = NULL;

	if (o)
		s->opts = *o;
	s->path = ds_xstrdup(path);
	s->label = o && o->label ? ds_xstrdup(o->label) : path_label(path);
	s->dso_index = ds_hash_new();
	s->proc_index = ds_hash_new();
	s->site_index = ds_hash_new();
	s->thread_index = ds_hash_new();
	s->chain_index = ds_hash_new();
	s->chain_memo.pid = UINT32_MAX;
	s->chain_memo.id = UINT32_MAX;
	s->kernel.parent = -1;
	ds_meta_init(&s->meta);
	dso_intern(s, "[unknown]", 0, 0, 0, NULL, 0, false); /* DSO_UNKNOWN */

	if (ds_expdir_resolve(path, &pdpath, &metapath, err) ||
	    ds_perfdata_open(pdpath, &s->pd, err))
		goto fail;
	if (metapath) {
		if (ds_meta_read(&s->meta, metapath, err))
			goto fail;
		for (size_t i = 0; i < s->meta.nproblems; i++)
			ds_session_note_add(s, "%s", s->meta.problems[i]);
	} else {
		ds_meta_from_perfdata(&s->meta, s->pd, "perf_event");
	}
	s->nev = ds_perfdata_nevents(s->pd);
	derive_events(s);
	s->ev_samples = ds_xcalloc(s->nev, sizeof *s->ev_samples);
	s->ev_count = ds_xcalloc(s->nev, sizeof *s->ev_count);
	unfinished(s, metapath != NULL);
	decide_same_machine(s);
	if (read_side_band(s, err))
		goto fail;
	header_build_ids(s);
	kernel_syms_start(s);
	if (!s->opts.deferred && (read_samples(s, 0, err) || check_tids(s, err)))
		goto fail;
	free(pdpath);
	free(metapath);
	*out = s;
	return 0;
fail:
	free(pdpath);
	free(metapath);
	ds_session_free_model(s); /* nothing above loading was made yet */
	return -1;
}

void ds_session_free_model(ds_session *s)
{
	if (s->kernel_syms) { /* never asked for */
		ds_dso *unused;
		ds_err ignored;
		free(kernel_syms_take(s, &unused, &ignored));
		ds_dso_close(unused);
	}
	for (size_t i = 0; i < s->dsos.n; i++) {
		ds_dso_close(s->dsos.v[i].dso);
		free(s->dsos.v[i].path);
		free(s->dsos.v[i].module);
	}
	ds_vec_free(&s->dsos);
	for (size_t i = 0; i < s->procs.n; i++) {
		ds_vec_free(&s->procs.v[i].maps);
		ds_vec_free(&s->procs.v[i].end_max);
		ds_vec_free(&s->procs.v[i].execs);
		ds_vec_free(&s->procs.v[i].anon);
		ds_vec_free(&s->procs.v[i].files);
		ds_vec_free(&s->procs.v[i].stacks);
	}
	ds_vec_free(&s->procs);
	ds_vec_free(&s->kernel.maps);
	ds_vec_free(&s->kernel.end_max);
	ds_vec_free(&s->kernel.execs);
	ds_hash_free(s->dso_index);
	ds_hash_free(s->proc_index);
	ds_hash_free(s->site_index);
	ds_hash_free(s->thread_index);
	ds_hash_free(s->chain_index);
	ds_vec_free(&s->chain_buf);
	ds_vec_free(&s->chain_sites);
	ds_vec_free(&s->chain_memo.raw);
	ds_vec_free(&s->chain_memo.site);
	ds_vec_free(&s->chain_memo.next);
	ds_vec_free(&s->chain_memo.key);
	ds_u64map_free(&s->site_map);
	ds_u64map_free(&s->site_map_wide);
	free(s->site_memo);
	ds_hash_free(s->cross_index);
	ds_vec_free(&s->cross_misses);
	free(s->cross_path);
	ds_vec_free(&s->sites);
	ds_vec_free(&s->site_charge);
	ds_vec_free(&s->site_samples);
	ds_vec_free(&s->site_count);
	ds_vec_free(&s->threads);
	ds_vec_free(&s->thread_samples);
	ds_vec_free(&s->thread_count);
	ds_vec_free(&s->chain_samples);
	ds_vec_free(&s->chain_count);
	ds_vec_free(&s->srecs);
	free(s->ev_samples);
	for (size_t e = 0; s->xev && e < s->nev - s->npev; e++)
		free(s->xev[e].name);
	free(s->xev);
	free(s->lat_ev);
	free(s->ev_count);
	for (size_t i = 0; i < s->notes.n; i++)
		free(s->notes.v[i]);
	ds_vec_free(&s->notes);
	ds_decoder_free(s->dec);
	ds_meta_fini(&s->meta);
	ds_perfdata_close(s->pd);
	free(s->path);
	free(s->label);
	free(s);
}
