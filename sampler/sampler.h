/*
 * sampler/: collection backends.
 *
 * Event names become perf_event_attr settings (software events, generic
 * hardware and hw-cache events, raw rNNN, libpfm4 event strings, PAPI
 * presets), and ds_sampler_record() runs or attaches to a program and
 * streams the kernel's records into an experiment's perf.data.
 *
 * The sampler uses experiment/ (the perf.data writer) and nothing above it.
 */
#ifndef DSPROF_SAMPLER_H
#define DSPROF_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/base.h"
#include "experiment/experiment.h"

/* ---- events ---- */

enum ds_ev_source {
	DS_EV_SOFTWARE,  /* cpu-clock, page-faults, ... */
	DS_EV_HARDWARE,  /* generic: cycles, instructions, cache-misses, ... */
	DS_EV_HWCACHE,   /* L1-dcache-load-misses, LLC-loads, ... */
	DS_EV_RAW,       /* rNNNN */
	DS_EV_PFM,       /* a libpfm4 event string */
	DS_EV_PAPI,      /* a PAPI preset, through its native event */
};

typedef struct ds_evspec {
	char *name;                  /* as given, without the /PERIOD suffix */
	struct perf_event_attr attr; /* type, config*, precise_ip, exclude_* */
	enum ds_ev_source source;
	uint64_t period;             /* from NAME/PERIOD; 0 = the record default */
	char *detail;                /* PAPI: the native event; libpfm4: the fully qualified name */
	bool kernel_dropped;         /* perf_event_paranoid refused kernel samples: user space only */
	bool mem;                    /* a --mem event: each sample with the data address, its
				      * source and the latency, whatever its PMU */
} ds_evspec;

/* Resolve "NAME[/PERIOD]" (perf-style :u :k :p :pp :ppp modifiers on
 * generic names).  Unknown names are DS_EINPUT with a hint ("see 'dsprof
 * list'"); hardware events on a machine without a PMU are DS_EENV with
 * what to use instead.  Checks that the event can be opened here; when
 * perf_event_paranoid refuses kernel samples, falls back to user space
 * as perf does (and sets kernel_dropped). */
int ds_event_resolve(const char *spec, ds_evspec *out, ds_err *err);
void ds_evspec_fini(ds_evspec *e);
const char *ds_ev_source_name(enum ds_ev_source s);
/* Whether the event needs a hardware PMU. */
bool ds_ev_is_hardware(const ds_evspec *e);

/* dsprof record --mem: the events that sample memory accesses precisely
 * on this CPU (perf-style names for ds_event_resolve, owned) and the
 * mechanism they use, picked from the PMUs the kernel lists: Intel PEBS
 * mem-loads (threshold ldlat cycles) and mem-stores, AMD IBS op.  Without
 * any (or with Arm SPE, whose AUX area dsprof does not record: perf does,
 * and dsprof import decodes it), DS_EENV naming what is missing and what
 * to use instead. */
typedef struct ds_mem_plan {
	const char *mechanism;
	char *events[6];
	size_t nevents;
} ds_mem_plan;
int ds_mem_plan_make(bool loads, bool stores, unsigned ldlat, ds_mem_plan *out, ds_err *err);
void ds_mem_plan_fini(ds_mem_plan *p);

/* Whether this machine exposes a hardware PMU to perf_event; when not,
 * why (one sentence). */
bool ds_pmu_available(char *why, size_t whylen);

/* `dsprof list`: each event this machine supports, by group.  `avail` is
 * false for names that are known but cannot be opened here. */
typedef void (*ds_event_list_cb)(void *ctx, const char *group, const char *name,
				 const char *desc, bool avail);
void ds_event_list(ds_event_list_cb cb, void *ctx, bool all);

/* ---- the machine ---- */

typedef struct ds_host {
	char hostname[256];
	char kernel[256];  /* uname -r */
	char arch[80];
	char cpu_model[256];
	char cpuid[128];   /* perf's form: vendor,family,model,stepping */
	unsigned ncpus_online, ncpus_avail;
	uint64_t mem_kb;
	uint64_t page_size;
} ds_host;

void ds_host_probe(ds_host *h);

/* ---- recording ---- */

/* How call chains are recorded: none; the kernel's frame-pointer walk (with
 * the top of the stack for a frameless leaf's caller); or a copy of
 * stack_bytes of the user stack with the user registers, unwound through
 * the call-frame information when the recording ends (analyze/unwind.c). */
enum ds_callgraph { DS_CG_NONE, DS_CG_FP, DS_CG_DWARF };

typedef struct ds_record_opts {
	ds_evspec *events;
	size_t nevents;
	uint64_t period;        /* -c: default period for events without /PERIOD; 0 = none */
	uint64_t freq;          /* -F: default frequency (Hz); used when period is 0 */
	enum ds_callgraph callgraph;
	uint32_t stack_bytes;   /* DS_CG_DWARF: user stack copied with each sample */
	bool stack_auto;        /* stack_bytes is dsprof's default, not the user's: the
				 * perf_event backend may shorten it to fit its ring buffers */
	bool inherit;           /* follow threads and children */
	pid_t pid;              /* attach to this process (0: run argv) */
	char **argv;            /* the command to run, NULL-terminated */
	char **env;             /* "NAME=VALUE" to set in its environment (ds_heap_env), or NULL */
	struct ds_heap_broker *heap_broker; /* --heap: makes the tracker's files (ds_heap_env), or NULL */
	bool heap;              /* --sim: env has the simulator's heap folder (ds_heap_env) */
	unsigned sim_latency[5]; /* --sim: cycles of a load served by the L1, L2, last level,
				 * another core's modified copy, memory (0: the model's) */
	bool detach;            /* the command outlives a recorder that dies (else it is killed with it) */
	double duration;        /* seconds; 0 = until the target ends / Ctrl-C */
	unsigned mmap_pages;    /* data pages per CPU buffer (power of 2); 0 = default */
	const char *outdir;     /* the experiment directory's path, for messages and children */
	ds_wdir *dir;           /* ... open (ds_expdir_create): every file of it is written there */
	int argc_self;          /* dsprof's own command line, for the header */
	char **argv_self;
	const sigset_t *command_mask; /* the signal mask the command starts with (a
				      * ds_stop_hold's before), or NULL: dsprof's own */
} ds_record_opts;

/* All ring buffers together take at most 1/this of the memory. */
#define DS_RING_MEMORY_SHARE 64

/* What made the ring buffers smaller than their samples ask for. */
enum ds_ring_limit {
	DS_RING_UNLIMITED,
	DS_RING_MEMORY,         /* all of them together take 1/DS_RING_MEMORY_SHARE of the memory */
	DS_RING_LOCKED,         /* the locked-memory limit (perf_event_mlock_kb, RLIMIT_MEMLOCK) */
};

typedef struct ds_record_result {
	bool target_started;
	int wait_status;        /* of the command (waitpid form); valid when exited */
	bool target_exited;
	uint64_t samples, lost, lost_samples, throttled;
	uint64_t bytes;
	uint64_t start_ns, end_ns;     /* CLOCK_MONOTONIC, the samples' clock */
	double start_wall, end_wall;
	uint64_t *event_period;        /* per event: the period used (0 = freq mode) */
	uint64_t *event_freq;          /* per event: the frequency used (0 = period mode) */
	bool phys_addr_dropped;        /* PHYS_ADDR was refused and recorded without */
	size_t ring_bytes;             /* perf_event: each CPU's ring buffer (data area) */
	size_t ring_wanted;            /* ... the size it would have had without ring_limit */
	enum ds_ring_limit ring_limit; /* what made it smaller */
	uint32_t stack_bytes;          /* perf_event: each sample's stack copy (0: none) */
	uint64_t *kernel_ips;          /* sorted, unique IPs of kernel-mode samples */
	size_t nkernel_ips;
} ds_record_result;

/* ---- heap tracking (record --heap) ----
 * The environment that preloads the heap tracker into the command argv
 * (sim: that has the simulator replace its allocator) and points it at
 * OUTDIR/heap (made here, and open in *heap until the recording ends;
 * the caller closes it after freeing the broker): a NULL-terminated list
 * of "NAME=VALUE" for ds_record_opts.env, malloc'd (ds_heap_env_free).
 * A command that is linked statically cannot have it: then *env is NULL
 * and *note (malloc'd) says so; the recording goes on without heap data.
 * The error is a tracker that is not built, or a heap folder or socket
 * that cannot be had.
 *
 * Without sim, *broker is what makes the tracker's files, for
 * ds_record_opts.heap_broker: the tracker in each process image asks it
 * for its file (sampler/preload/heapask.h) while ds_sampler_record
 * records, and it makes the file in *heap; the caller frees it
 * (ds_heap_broker_free).  With sim, the simulator reaches *heap through
 * this process's descriptor of it. */
typedef struct ds_heap_broker ds_heap_broker;
int ds_heap_env(ds_wdir *outdir, char *const *argv, bool sim, ds_wdir **heap, char ***env, ds_heap_broker **broker,
		char **note, ds_err *err);
void ds_heap_env_free(char **env);
/* How many asks for a file the broker answered without one, and why the
 * first was (NULL: none). */
const char *ds_heap_broker_failed(const ds_heap_broker *b, size_t *n);
void ds_heap_broker_free(ds_heap_broker *b);

/* Record per the options into OUTDIR/perf.data (and OUTDIR/vdso.so).
 * Returns 0 when an experiment was written (whatever the target did), -1
 * with err when recording could not start or the output failed.  The
 * target's own output goes where dsprof's goes; its exit status is in
 * res->wait_status. */
int ds_sampler_record(const ds_record_opts *o, ds_record_result *res, ds_err *err);
/* Whether process pid can be attached to: it exists, and is not a kernel
 * thread (which has no user space: it would record no samples); else
 * DS_EINPUT with one line saying which. */
int ds_sampler_check_pid(pid_t pid, ds_err *err);
void ds_record_result_fini(ds_record_result *r);

/* ---- stop signals ----
 * SIGINT (Ctrl-C), SIGTERM and SIGHUP ask a recording to stop.  Left to
 * their default, one that comes after the recording has read its last
 * (once the command has ended) kills dsprof half way through writing the
 * experiment: meta.json, the finished perf.data, the kernel's symbols.  So
 * `dsprof record` holds them (blocks them) from before it makes the
 * experiment directory until the experiment is complete: while the command
 * runs the recording reads them and stops it; one that comes later waits
 * until the experiment is complete, and is then taken as the request to
 * record no further run (--repeat). */
typedef struct ds_stop_hold {
	sigset_t before; /* dsprof's mask before the hold: the command starts with it */
} ds_stop_hold;

void ds_stop_hold_begin(ds_stop_hold *h);
/* How many stop signals came since the hold began or was last taken that
 * no recording read; they are consumed. */
int ds_stop_hold_take(ds_stop_hold *h);
/* Ends the hold; stop signals still pending are consumed, not delivered:
 * their default would kill dsprof, which has done what they asked. */
void ds_stop_hold_end(ds_stop_hold *h);

/* ---- the simulated PMU (sampler/sim.c; docs/simulator.md) ----
 * `dsprof record --sim` runs the command under dsprofsim, a Valgrind tool
 * (sampler/sim/) that simulates per-thread private L1D and L2 caches, a
 * shared last level and the coherence between threads, and samples every
 * Nth simulated event precisely (exact IP and data address).  The samples
 * land in perf.data like the kernel's, under the attrs made here. */

/* Whether NAME[/PERIOD] names a simulated event ("sim:..."). */
bool ds_sim_is_event(const char *spec);
/* "sim:NAME[/PERIOD]" (NAME in any case): the attr is the event's in
 * perf.data (PERF_TYPE_RAW, precise); period 0 means the event's default. */
int ds_sim_event_resolve(const char *spec, ds_evspec *out, ds_err *err);
/* The simulated events, for `dsprof list` (group "simulated"). */
void ds_sim_event_list(ds_event_list_cb cb, void *ctx);
/* What --sim records when no event is given; NULL-terminated. */
extern const char *const ds_sim_default_events[];

typedef struct ds_sim_result {
	uint64_t accesses;          /* data accesses simulated, all processes */
	uint64_t *event_count;      /* per recorded event: how many happened (exact) */
	uint64_t truncated_streams; /* processes killed while writing a record */
	char *valgrind_said;        /* the first line of Valgrind's logs, or NULL */
} ds_sim_result;

/* Run o->argv under the simulator with the geometry caches[0..ncaches)
 * (the L1 data cache is needed; L2 and L3 are simulated when given) and
 * write OUTDIR/perf.data.  o->events come from ds_sim_event_resolve;
 * o->freq does not apply.  Like ds_sampler_record: 0 when an experiment
 * was written (whatever the command did, its status in res), -1 with err
 * when the simulation could not run. */
int ds_sim_record(const ds_record_opts *o, const ds_cache_level *caches, int ncaches,
		  ds_record_result *res, ds_sim_result *sres, ds_err *err);
/* The streams already in OUTDIR/sim (PID.stream, as the tool writes them)
 * into OUTDIR/perf.data, as ds_sim_record turns them once the command has
 * run, without running anything: tests and the fuzzer (tests/fuzz/
 * fuzz_simstream.c) give streams of their own.  o->events and o->callgraph
 * as for ds_sim_record; 0 when perf.data was written. */
int ds_sim_convert(const ds_record_opts *o, ds_record_result *res, ds_sim_result *sres, ds_err *err);
void ds_sim_result_fini(ds_sim_result *r);

#endif
