/*
 * The simulated PMU's dsprof side: run the command under dsprofsim (the
 * Valgrind tool in sampler/sim/) and turn its streams into perf.data.
 *
 * The tool writes one stream per process into OUTDIR/sim/ (PID.stream),
 * made of perf records already laid out for the attrs defined here, and of
 * private statistics records (sim_proto.h).  While the command runs, every
 * DRAIN_MS the streams are read from where the last pass stopped; whole
 * records are copied into perf.data and the file is flushed, so an
 * interrupted or killed recording leaves a readable experiment.  Records of
 * different threads and processes are not in time order (each thread has
 * its own logical clock): perf and dsprof sort or index them by time, and
 * no FINISHED_ROUND is written, so perf sorts the whole file.
 *
 * Signals are handled as in record.c: blocked, read from a signalfd; the
 * command gets SIGINT from the terminal itself, and Valgrind ends it the way
 * it would end without Valgrind (status and all).
 */
#include "sampler/sampler.h"
#include "sampler/sim/sim_proto.h"
#include "sampler/backend.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_MS 200
/* Progress shows on a terminal once a run has lasted this long: shorter
 * ones would only have their output mixed with it. */
#define PROGRESS_AFTER 3.0
#define READ_CHUNK (1u << 20)
#define PUNCH_GRAIN (1u << 20)
#define TOOL_FILE SIM_TOOL "-amd64-linux"
#define PRELOAD_FILE "vgpreload_" SIM_TOOL "-amd64-linux.so"

static const struct {
	const char *name;
	const char *desc;
	uint64_t period; /* default: primes, so that loops of round strides do not alias */
} sim_events[SIM_NEVENTS] = {
	[SIM_EV_LOADS] = {"loads", "loads, every data read of an instruction", 100003},
	[SIM_EV_STORES] = {"stores", "stores, every data write of an instruction", 100003},
	[SIM_EV_L1D_MISS] = {"L1D_MISS", "lines that miss the thread's L1 data cache", 1009},
	[SIM_EV_L2_MISS] = {"L2_MISS", "lines that miss the thread's L2 cache", 211},
	[SIM_EV_LLC_MISS] = {"LLC_MISS", "lines that miss the shared last level (served from memory)", 101},
	[SIM_EV_HITM] = {"HITM", "misses served by another thread's modified copy of the line", 31},
	[SIM_EV_INVAL] = {"INVAL", "other threads' copies of the line a store takes away", 31},
	[SIM_EV_MEM_CYCLES] = {"MEM_CYCLES",
			       "cycles loads wait for data by the latency model: each load its level's "
			       "latency (an estimate that ranks memory cost, see dsprof-record(1))",
			       1000003},
	[SIM_EV_L1D_EVICT] = {"L1D_EVICT",
			      "lines leaving the thread's L1 data cache (or there when it ends), each "
			      "weighted by the bytes of it used while there: line utilization",
			      1009},
};

const char *const ds_sim_default_events[] = {"sim:L1D_MISS", "sim:LLC_MISS", "sim:HITM", NULL};

/* ---- events ---- */

bool ds_sim_is_event(const char *spec)
{
	return strncmp(spec, "sim:", 4) == 0;
}

int ds_sim_event_resolve(const char *spec, ds_evspec *out, ds_err *err)
{
	const char *slash = strchr(spec, '/');
	size_t n = slash ? (size_t)(slash - spec) : strlen(spec);
	uint64_t period = 0;

	memset(out, 0, sizeof *out);
	if (slash && (!ds_parse_u64(slash + 1, &period, true) || !period))
		return ds_err_set(err, DS_EINPUT, "bad period '%s' for event '%.*s'", slash + 1, (int)n, spec);
	for (int ev = 0; ev < SIM_NEVENTS; ev++) {
		if (n != 4 + strlen(sim_events[ev].name) || !ds_sim_is_event(spec) ||
		    strncasecmp(spec + 4, sim_events[ev].name, n - 4) != 0)
			continue;
		out->name = ds_xasprintf("sim:%s", sim_events[ev].name);
		out->attr.size = sizeof out->attr;
		out->attr.type = PERF_TYPE_RAW;
		out->attr.config = SIM_RAW_CONFIG(ev);
		out->attr.precise_ip = 3;
		out->attr.exclude_kernel = 1;
		out->attr.exclude_hv = 1;
		out->source = DS_EV_RAW;
		out->period = period;
		return 0;
	}
	return ds_err_set(err, DS_EINPUT,
			  "unknown simulated event '%.*s'; the simulator counts sim:loads, sim:stores, "
			  "sim:L1D_MISS, sim:L2_MISS, sim:LLC_MISS, sim:HITM, sim:INVAL, sim:MEM_CYCLES and sim:L1D_EVICT "
			  "(see 'dsprof list')",
			  (int)n, spec);
}

/* ---- finding Valgrind and the tool ---- */

static bool in_path(const char *cmd)
{
	char *full = ds_find_command(cmd);
	bool found = full != NULL;
	free(full);
	return found;
}

/* The folder VALGRIND_LIB names: $DSPROF_SIM_LIB, else the build tree's
 * sim/lib next to the dsprof binary or the installed lib/dsprof/sim; for
 * --heap, their -heap siblings, which also hold the library that sends the
 * client's malloc and free to the tool. */
static char *tool_dir(bool heap, ds_err *err)
{
	const char *env = getenv("DSPROF_SIM_LIB");
	char exe[4096], *slash, *cand[2] = {NULL, NULL};
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *found = NULL;

	if (!in_path("valgrind")) {
		ds_err_set(err, DS_EENV, "--sim needs valgrind (apt-get install valgrind)");
		return NULL;
	}
	exe[n > 0 ? n : 0] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	if (env && *env) {
		cand[0] = ds_xasprintf("%s%s", env, heap ? "-heap" : "");
	} else {
		cand[0] = ds_xasprintf("%s/sim/lib%s", exe, heap ? "-heap" : "");
		cand[1] = ds_xasprintf("%s/../lib/dsprof/sim%s", exe, heap ? "-heap" : "");
	}
	for (int i = 0; i < 2 && cand[i] && !found; i++) {
		char *tool = ds_xasprintf("%s/%s", cand[i], TOOL_FILE);
		char *pre = ds_xasprintf("%s/%s", cand[i], PRELOAD_FILE);
		if (access(tool, X_OK) == 0 && (!heap || access(pre, R_OK) == 0))
			found = ds_xstrdup(cand[i]);
		free(tool);
		free(pre);
	}
	if (!found)
		ds_err_set(err, DS_EENV, "--sim%s needs the simulator, which is not built: no %s in %s; "
			   "run 'make'", heap ? " --heap" : "", heap ? PRELOAD_FILE : TOOL_FILE, cand[0]);
	free(cand[0]);
	free(cand[1]);
	return found;
}

void ds_sim_event_list(ds_event_list_cb cb, void *ctx)
{
	ds_err err = {0};
	char *dir = tool_dir(false, &err);

	for (int ev = 0; ev < SIM_NEVENTS; ev++) {
		char *name = ds_xasprintf("sim:%s", sim_events[ev].name);
		cb(ctx, "simulated", name, sim_events[ev].desc, dir != NULL);
		free(name);
	}
	free(dir);
}

/* ---- the recording ---- */

typedef struct stream {
	int pid;
	char *path;
	uint64_t off;     /* read up to here */
	uint64_t freed;   /* disk space given back up to here */
	ds_buf partial;   /* the start of a record whose end has not arrived */
} stream;

typedef struct simrec {
	const ds_record_opts *o;
	ds_record_result *res;
	ds_sim_result *sres;
	ds_wdir *sim;              /* OUTDIR/sim */
	char *dir;                 /* its path for the tool: /proc/PID/fd/N (see open_output) */
	ds_event *events;
	int evnum[SIM_NEVENTS];    /* simulated event -> index in o->events, -1 */
	ds_pdw *w;
	DS_VEC(stream) streams;
	DS_VEC(struct sim_rec_stats) stats; /* the latest of each Valgrind instance */
	char *chunk;
	ds_workload wl;            /* valgrind running the command */
	ds_progress progress;      /* "simulated accesses: N, T s" on a terminal */
	uint64_t truncated;        /* streams that ended inside a record */
} simrec;

/* Geometry as the tool's option: "L1D:S:W:L,L2:...,L3:...". */
static int cache_option(ds_buf *b, const ds_cache_level *caches, int n, ds_err *err)
{
	static const struct {
		const char *name;
		int level;
	} want[] = {{"L1D", 1}, {"L2", 2}, {"L3", 3}};

	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		const ds_cache_level *c = NULL;
		uint64_t sets;
		for (int i = 0; i < n && !c; i++)
			if (caches[i].level == want[w].level && strcmp(caches[i].type, "Instruction") != 0)
				c = &caches[i];
		if (!c) {
			if (w == 0)
				return ds_err_set(err, DS_EINPUT, "--sim needs the L1 data cache's geometry, "
						  "which this machine does not tell; give it with --cache "
						  "L1D=SIZE:WAYS:LINE or --machine FILE");
			continue;
		}
		sets = c->line && c->ways ? c->size / c->line / c->ways : 0;
		if (!sets || c->size != sets * c->line * c->ways || (c->line & (c->line - 1)) ||
		    c->line < 8 || c->ways > 1024)
			return ds_err_set(err, DS_EINPUT,
					  "cannot simulate %s = %llu bytes, %u ways, %u-byte lines: the "
					  "simulator needs a power-of-two line size and a whole number of "
					  "sets; give another geometry with --cache %s=SIZE:WAYS:LINE",
					  want[w].name, (unsigned long long)c->size, c->ways, c->line,
					  want[w].name);
		ds_buf_printf(b, "%s%s:%llu:%u:%u", b->len ? "," : "", want[w].name,
			      (unsigned long long)c->size, c->ways, c->line);
	}
	return 0;
}

static int setup_events(simrec *r, ds_buf *evopt, ds_err *err)
{
	const ds_record_opts *o = r->o;

	for (int ev = 0; ev < SIM_NEVENTS; ev++)
		r->evnum[ev] = -1;
	r->events = ds_xcalloc(o->nevents, sizeof *r->events);
	for (size_t i = 0; i < o->nevents; i++) {
		const ds_evspec *e = &o->events[i];
		struct perf_event_attr *a = &r->events[i].attr;
		uint64_t ev = e->attr.config - SIM_RAW_CONFIG(0), period;

		if (e->attr.type != PERF_TYPE_RAW || ev >= SIM_NEVENTS)
			return ds_err_set(err, DS_EINPUT, "--sim records simulated events only, not '%s'",
					  e->name);
		period = e->period ? e->period : o->period ? o->period : sim_events[ev].period;
		if (r->evnum[ev] >= 0)
			return ds_err_set(err, DS_EINPUT, "event '%s' is given twice", e->name);
		r->evnum[ev] = (int)i;
		*a = e->attr;
		a->size = sizeof *a;
		a->sample_period = period;
		a->sample_type = SIM_SAMPLE_TYPE;
		if (o->callgraph != DS_CG_NONE) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER;
			a->sample_regs_user = SIM_REGS_USER;
			a->exclude_callchain_kernel = 1;
		}
		a->sample_id_all = 1;
		a->disabled = 1;
		a->enable_on_exec = 1;
		a->inherit = 1;
		if (i == 0) {
			/* the side-band records come with the first event, as
			 * with the perf_event backend */
			a->mmap = a->mmap2 = a->mmap_data = 1;
			a->comm = a->comm_exec = 1;
			a->task = 1;
		}
		r->events[i].name = e->name;
		r->events[i].ids = ds_xcalloc(1, sizeof(uint64_t));
		r->events[i].ids[0] = SIM_ID(i);
		r->events[i].nids = 1;
		r->res->event_period[i] = period;
		ds_buf_printf(evopt, "%s%d/%llu", i ? "," : "", (int)ev, (unsigned long long)period);
	}
	return 0;
}

/* ---- reading the streams ---- */

/* Each Valgrind instance (a process, and each program it exec'd) sends
 * its totals so far now and then: the latest count. */
static void take_stats(simrec *r, const struct sim_rec_stats *s)
{
	for (size_t i = 0; i < r->stats.n; i++)
		if (r->stats.v[i].pid == s->pid && r->stats.v[i].generation == s->generation) {
			r->stats.v[i] = *s;
			return;
		}
	ds_vec_push(&r->stats, *s);
}

static uint64_t total_accesses(const simrec *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->stats.n; i++)
		n += r->stats.v[i].accesses;
	return n;
}

/* The whole records at p[0..n): copied, or taken in; returns the bytes
 * used (a partial record at the end is left). */
static size_t take_records(simrec *r, const char *p, size_t n, ds_err *err, int *rc)
{
	size_t at = 0, run = 0; /* run: perf records not yet written, ending at `at` */

	*rc = 0;
	while (n - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, p + at, sizeof h);
		if (h.size < sizeof h || h.size % 8) {
			*rc = ds_err_set(err, DS_EENV, "the simulator's stream is corrupt (a record of %u bytes)",
					 h.size);
			return at;
		}
		if (n - at < h.size)
			break;
		if (h.type == SIM_REC_STATS) {
			struct sim_rec_stats s = {0};
			if (run && ds_pdw_write(r->w, p + at - run, run, err)) {
				*rc = -1;
				return at;
			}
			run = 0;
			memcpy(&s, p + at, h.size < sizeof s ? h.size : sizeof s);
			take_stats(r, &s);
		} else {
			if (h.type == PERF_RECORD_SAMPLE && h.size >= 40) {
				uint64_t t;
				memcpy(&t, p + at + 32, 8); /* header, identifier, ip, pid/tid */
				if (!r->res->samples || t < r->res->start_ns)
					r->res->start_ns = t;
				if (t > r->res->end_ns)
					r->res->end_ns = t;
				r->res->samples++;
			}
			run += h.size;
		}
		at += h.size;
	}
	if (run && ds_pdw_write(r->w, p + at - run, run, err))
		*rc = -1;
	return at;
}

/* Read a stream on from where the last pass stopped.  What has been read
 * is punched out of the file (its size stays, so the tool appends as
 * before): a long recording does not hold its samples on disk twice. */
static int drain_stream(simrec *r, stream *s, ds_err *err)
{
	int fd = ds_wdir_open_file(r->sim, s->path, O_RDWR, NULL), rc = 0;
	ssize_t got;
	uint64_t done;

	if (fd < 0)
		return 0;
	while (!rc && (got = pread(fd, r->chunk, READ_CHUNK, (off_t)s->off)) > 0) {
		size_t used;
		s->off += (uint64_t)got;
		if (s->partial.len) {
			ds_buf_append(&s->partial, r->chunk, (size_t)got);
			used = take_records(r, s->partial.p, s->partial.len, err, &rc);
			memmove(s->partial.p, s->partial.p + used, s->partial.len - used);
			s->partial.len -= used;
		} else {
			used = take_records(r, r->chunk, (size_t)got, err, &rc);
			if (used < (size_t)got)
				ds_buf_append(&s->partial, r->chunk + used, (size_t)got - used);
		}
	}
	done = s->off & ~(uint64_t)(PUNCH_GRAIN - 1);
	if (done > s->freed && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)s->freed,
					 (off_t)(done - s->freed)) == 0)
		s->freed = done;
	close(fd);
	return rc;
}

/* One pass: streams that appeared (new processes) are added, every stream
 * is read on, and perf.data is flushed. */
static int drain_all(simrec *r, ds_err *err)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		bool known = false;
		if (end == e->d_name || strcmp(end, ".stream") != 0)
			continue;
		for (size_t i = 0; i < r->streams.n && !known; i++)
			known = r->streams.v[i].pid == pid;
		if (!known)
			ds_vec_push(&r->streams, ((stream){(int)pid, ds_xstrdup(e->d_name), 0, 0, {0}}));
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < r->streams.n; i++)
		if (drain_stream(r, &r->streams.v[i], err))
			return -1;
	ds_progress_update(&r->progress, total_accesses(r), 0);
	return ds_pdw_flush(r->w, err);
}

/* ---- the command ---- */

/* --dsprof-latency: the machine's latencies, the model's where it gives none. */
static char *latency_option(const ds_record_opts *o)
{
	static const unsigned model[SIM_NLAT] = SIM_LAT_DEFAULTS;
	unsigned v[SIM_NLAT];
	for (int i = 0; i < SIM_NLAT; i++)
		v[i] = o->sim_latency[i] ? o->sim_latency[i] : model[i];
	return ds_xasprintf("--dsprof-latency=%u,%u,%u,%u,%u", v[0], v[1], v[2], v[3], v[4]);
}

static char **valgrind_argv(const simrec *r, const char *cache, const char *events)
{
	const ds_record_opts *o = r->o;
	size_t n = 0;
	char **v;

	while (o->argv[n])
		n++;
	v = ds_xcalloc(n + 13, sizeof *v);
	n = 0;
	v[n++] = ds_xstrdup("valgrind");
	v[n++] = ds_xstrdup("--tool=" SIM_TOOL);
	v[n++] = ds_xstrdup("-q");
	/* the lock threads hand on in turn, first come first served: the
	 * tool's schedule (sim_sched.c) counts on it */
	v[n++] = ds_xstrdup("--fair-sched=yes");
	/* Valgrind follows every thread; children only when asked */
	v[n++] = ds_xstrdup(o->inherit ? "--trace-children=yes" : "--trace-children=no");
	v[n++] = ds_xasprintf("--log-file=%s/valgrind.%%p.log", r->dir);
	v[n++] = ds_xasprintf("--dsprof-dir=%s", r->dir);
	v[n++] = ds_xasprintf("--dsprof-events=%s", events);
	v[n++] = ds_xasprintf("--dsprof-cache=%s", cache);
	v[n++] = ds_xstrdup(o->callgraph != DS_CG_NONE ? "--dsprof-callchain=yes" : "--dsprof-callchain=no");
	v[n++] = latency_option(o);
	for (size_t i = 0; o->argv[i]; i++)
		v[n++] = ds_xstrdup(o->argv[i]);
	return v;
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int start_child(simrec *r, char **argv, const char *libdir, ds_err *err)
{
	DS_VEC(char *) env = {0};
	int e, forked;

	ds_vec_push(&env, ds_xasprintf("VALGRIND_LIB=%s", libdir));
	for (size_t i = 0; r->o->env && r->o->env[i]; i++)
		ds_vec_push(&env, r->o->env[i]);
	ds_vec_push(&env, NULL);
	forked = ds_workload_fork(&r->wl, argv, env.v, r->o->detach, err);
	free(env.v[0]); /* the child has its copy */
	ds_vec_free(&env);
	if (forked)
		return -1;
	e = ds_workload_start(&r->wl, err);
	if (e < 0)
		return -1;
	if (e > 0)
		return ds_err_set(err, DS_EENV, "--sim cannot run valgrind: %s; is it installed "
				  "(apt-get install valgrind)?", strerror(e));
	r->res->target_started = true;
	return 0;
}

static int drain_tick(void *arg, ds_err *err)
{
	return drain_all(arg, err);
}

/* Until the command ends (a stop signal, the terminal's Ctrl-C, reached it
 * too: it gets the time perf record gives), reading the streams all along. */
static int run(simrec *r, ds_err *err)
{
	return ds_workload_wait(&r->wl, false, DRAIN_MS, drain_tick, r, err);
}

/* ---- after the run ---- */

static int finish_file(simrec *r, ds_err *err)
{
	ds_host h;
	ds_pdw_info info = {0};
	int rc;

	ds_pdw_info_host(&info, &h, r->o);
	info.clockid = -1; /* logical time: no clock to pair with the wall */
	info.first_sample_time = r->res->start_ns;
	info.last_sample_time = r->res->end_ns;
	r->res->bytes = ds_pdw_data_size(r->w);
	rc = ds_pdw_finish(r->w, &info, err);
	r->w = NULL;
	return rc;
}

/* The first line Valgrind wrote to any of its logs, for messages. */
static char *valgrind_said(const simrec *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;
	char *said = NULL;

	while (d && !said && (e = readdir(d))) {
		char *path, *text;
		if (strncmp(e->d_name, "valgrind.", 9) != 0)
			continue;
		path = ds_xasprintf("%s/%s", r->dir, e->d_name);
		text = ds_read_own(path, NULL, NULL);
		if (text && *ds_trim(text)) {
			char *nl = strchr(text, '\n');
			if (nl)
				*nl = 0;
			said = ds_xstrdup(text);
		}
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	return said;
}

/* Streams and hand-offs go; Valgrind's logs stay when they say something. */
static void tidy(simrec *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;
	bool kept = false;

	while (d && (e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		if (strncmp(e->d_name, "valgrind.", 9) == 0 &&
		    fstatat(ds_wdir_fd(r->sim), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size > 0)
			kept = true;
		else
			ds_wdir_unlink(r->sim, e->d_name, NULL);
	}
	if (d)
		closedir(d);
	if (!kept)
		ds_wdir_remove(r->o->dir, "sim", NULL);
}

static void export_stats(simrec *r)
{
	ds_sim_result *s = r->sres;

	s->event_count = ds_xcalloc(r->o->nevents ? r->o->nevents : 1, sizeof *s->event_count);
	for (size_t i = 0; i < r->stats.n; i++) {
		const struct sim_rec_stats *st = &r->stats.v[i];
		s->accesses += st->accesses;
		for (int ev = 0; ev < SIM_NEVENTS; ev++)
			if (r->evnum[ev] >= 0)
				s->event_count[r->evnum[ev]] += st->count[ev];
	}
	for (size_t i = 0; i < r->streams.n; i++)
		if (r->streams.v[i].partial.len)
			r->truncated++;
	s->truncated_streams = r->truncated;
}

static void cleanup(simrec *r)
{
	if (r->w)
		ds_pdw_abort(r->w);
	for (size_t i = 0; i < r->streams.n; i++) {
		free(r->streams.v[i].path);
		ds_buf_free(&r->streams.v[i].partial);
	}
	ds_vec_free(&r->streams);
	ds_vec_free(&r->stats);
	if (r->events) {
		for (size_t i = 0; i < r->o->nevents; i++)
			free(r->events[i].ids);
		free(r->events);
	}
	free(r->chunk);
	free(r->dir);
	ds_wdir_close(r->sim);
}

/* What a recording and a conversion start from: empty results. */
static void begin(simrec *r, const ds_record_opts *o, ds_record_result *res, ds_sim_result *sres)
{
	memset(res, 0, sizeof *res);
	memset(sres, 0, sizeof *sres);
	res->event_period = ds_xcalloc(o->nevents ? o->nevents : 1, sizeof *res->event_period);
	res->event_freq = ds_xcalloc(o->nevents ? o->nevents : 1, sizeof *res->event_freq);
	r->o = o;
	r->res = res;
	r->sres = sres;
}

/* The events' attrs, OUTDIR/sim for the streams, and perf.data.  The
 * tool, which writes the streams by path, is given the folder through
 * this process's descriptor of it: whatever happens to OUTDIR's path
 * while the command runs (its parent may be another user's), the streams
 * go into the folder dsprof made. */
static int open_output(simrec *r, ds_buf *evopt, ds_err *err)
{
	if (setup_events(r, evopt, err) || !(r->sim = ds_wdir_sub(r->o->dir, "sim", true, err)))
		return -1;
	r->dir = ds_xasprintf("/proc/%d/fd/%d", (int)getpid(), ds_wdir_fd(r->sim));
	r->w = ds_pdw_create(r->o->dir, "perf.data", false, r->events, r->o->nevents, err);
	if (!r->w || ds_pdw_flush(r->w, err))
		return -1;
	r->chunk = ds_xmalloc(READ_CHUNK);
	return 0;
}

/* Once every stream is read: the totals, perf.data finished, the streams gone. */
static int finish(simrec *r, ds_err *err)
{
	export_stats(r);
	r->sres->valgrind_said = valgrind_said(r);
	if (finish_file(r, err))
		return -1;
	tidy(r);
	return 0;
}

int ds_sim_record(const ds_record_opts *o, const ds_cache_level *caches, int ncaches,
		  ds_record_result *res, ds_sim_result *sres, ds_err *err)
{
	simrec r = {0};
	ds_buf cache = {0}, evopt = {0};
	char *libdir = NULL, **argv = NULL;
	int rc = -1;

	begin(&r, o, res, sres);
	if (ds_workload_init(&r.wl, o->command_mask, err))
		goto out;
	if (o->pid || !o->argv) {
		ds_err_set(err, DS_EINPUT, "--sim runs a command; it cannot attach to a process (-p)");
		goto out;
	}
	if (!(libdir = tool_dir(r.o->heap, err)) || cache_option(&cache, caches, ncaches, err) ||
	    open_output(&r, &evopt, err))
		goto out;
	argv = valgrind_argv(&r, ds_buf_str(&cache), ds_buf_str(&evopt));
	res->start_wall = (double)ds_clock_ns(CLOCK_REALTIME) / 1e9;
	ds_progress_begin_after(&r.progress, "simulated accesses:", PROGRESS_AFTER);
	if (start_child(&r, argv, libdir, err) || run(&r, err) || drain_all(&r, err))
		goto out;
	ds_progress_end(&r.progress);
	res->end_wall = (double)ds_clock_ns(CLOCK_REALTIME) / 1e9;
	if (!r.streams.n) {
		/* Valgrind ended before the tool wrote a thing */
		char *said = valgrind_said(&r);
		res->target_started = false;
		if (said)
			ds_err_set(err, DS_EENV, "the simulator did not start: %s", said);
		else
			ds_err_set(err, DS_EENV, "the simulator did not start: valgrind could not run '%s' "
				   "(its message is above)", o->argv[0]);
		free(said);
		ds_pdw_abort(r.w);
		r.w = NULL;
		goto out;
	}
	rc = finish(&r, err);
out:
	ds_progress_end(&r.progress);
	free_argv(argv);
	free(libdir);
	ds_buf_free(&cache);
	ds_buf_free(&evopt);
	ds_workload_fini(&r.wl);
	res->target_exited = r.wl.exited;
	res->wait_status = r.wl.wait_status;
	cleanup(&r);
	return rc;
}

int ds_sim_convert(const ds_record_opts *o, ds_record_result *res, ds_sim_result *sres, ds_err *err)
{
	simrec r = {0};
	ds_buf evopt = {0};
	int rc;

	begin(&r, o, res, sres);
	rc = open_output(&r, &evopt, err) || drain_all(&r, err) || finish(&r, err) ? -1 : 0;
	ds_buf_free(&evopt);
	cleanup(&r);
	return rc;
}

void ds_sim_result_fini(ds_sim_result *r)
{
	free(r->event_count);
	free(r->valgrind_said);
	memset(r, 0, sizeof *r);
}
