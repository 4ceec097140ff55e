/*
 * experiment/: the on-disk experiment.
 *
 * An experiment is a directory holding a standard perf.data (what the kernel
 * wrote, readable by `perf report -i`) and meta.json (what dsprof knows about
 * the run: machine, cache geometry, backend, events, counts).  A bare
 * perf.data recorded by perf elsewhere is also accepted for reading.
 *
 * This module writes perf.data (ds_pdw_*), reads and validates it
 * (ds_perfdata_*: every record is bounds-checked; bad input gives one
 * clear error, never a crash), and reads/writes meta.json (ds_meta_*).
 * See docs/experiment-format.md.
 */
#ifndef DSPROF_EXPERIMENT_H
#define DSPROF_EXPERIMENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"

/* ---- the machine's caches (meta.json, perf.data's HEADER_CACHE) ---- */

typedef struct ds_cache_level {
	int level;         /* 1, 2, 3 */
	char type[16];     /* "Data", "Instruction", "Unified" */
	uint64_t size;     /* bytes */
	unsigned line;     /* coherency line size, bytes */
	unsigned ways;
	unsigned sets;
	char shared_cpus[64]; /* cpulist as sysfs gives it */
} ds_cache_level;

/* ---- events ---- */

typedef struct ds_event {
	char *name;                  /* "cpu-clock", "page-faults", "cpu/event=0xd1,umask=0x8/" */
	struct perf_event_attr attr; /* as given to perf_event_open (size normalized) */
	uint64_t *ids;               /* sample ids of this event's file descriptors */
	size_t nids;
} ds_event;

/* A name for an attr that carries no name: perf's names for software,
 * hardware and hw-cache events, "raw:0x..." otherwise.  Malloc'd. */
char *ds_attr_name(const struct perf_event_attr *attr);
/* The name perf gives an event whose file carries no name (a pipe without
 * EVENT_UPDATE, a file without EVENT_DESC): ds_attr_name() and the modifiers
 * its attr implies (":u", ":ppH"...), as perf prints them.  Malloc'd. */
char *ds_attr_perf_name(const struct perf_event_attr *attr);
/* Whether samples of this attr carry the exact trigger IP (precise_ip, or an
 * event whose IP is by nature the trigger: page faults). */
bool ds_attr_precise(const struct perf_event_attr *attr);
/* Whether an event's samples name the instruction that made the access:
 * its attr's (ds_attr_precise), or its PMU samples operations (AMD IBS
 * op, Arm SPE: by the event's name, as perf.data gives no other sign). */
bool ds_event_precise(const ds_event *e);
/* Whether the event counts nanoseconds (cpu-clock, task-clock). */
bool ds_attr_counts_time(const struct perf_event_attr *attr);

/* ---- build-ids (the HEADER_BUILD_ID feature) ----
 * Which file each sampled object was, as perf records it: one entry per
 * object, its name as the MMAP records give it ("[kernel.kallsyms]" and
 * "[vdso]" for those) and the build-id of its ELF note.  Analysis matches
 * objects by it; `dsprof archive` keeps the files by it. */

#define DS_BUILD_ID_MAX 20 /* perf keeps at most 20 bytes (SHA-1) */

typedef struct ds_build_id {
	char *path;
	uint8_t id[DS_BUILD_ID_MAX];
	uint8_t size;
	bool kernel;      /* the kernel or a kernel module (PERF_RECORD_MISC_KERNEL) */
} ds_build_id;

/* Append the feature section for ids[0..n) to out. */
void ds_build_id_feature_put(ds_buf *out, const ds_build_id *ids, size_t n);
/* Parse a feature section (or, in pipe mode, one HEADER_BUILD_ID record's
 * body) into *ids (appending to *n entries); entries that do not parse end
 * the section, keeping those before them; an entry whose id has no bytes
 * is left out.  Free with ds_build_ids_free. */
void ds_build_id_feature_parse(const void *p, size_t len, ds_build_id **ids, size_t *n);
void ds_build_ids_free(ds_build_id *ids, size_t n);
/* The entry for path, or NULL. */
const ds_build_id *ds_build_id_find(const ds_build_id *ids, size_t n, const char *path);
/* Lower-case hex of a build-id into out (2 * size + 1 bytes). */
void ds_build_id_hex(const uint8_t *id, size_t size, char *out);

/* ---- perf.data writer ----
 * Layout: file header, attr ids, attrs, data records, feature sections.
 * The data size in the header is updated after every flush, so a recording
 * killed hard still leaves a readable file up to its last flush. */
typedef struct ds_pdw ds_pdw;

typedef struct ds_pdw_info {
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	unsigned nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb;
	int argc;
	char **argv;      /* the dsprof command line */
	int clockid;      /* -1 when samples use perf's default clock */
	uint64_t clock_wall_ns, clock_ref_ns; /* a pair of simultaneous readings */
	uint64_t first_sample_time, last_sample_time; /* 0 when no samples */
	const ds_build_id *build_ids; /* HEADER_BUILD_ID, when nbuild_ids > 0 */
	size_t nbuild_ids;
	/* A file whose other feature sections this one keeps (a rewrite of it):
	 * every section of `features_from` the fields above do not give, as it is. */
	const struct ds_perfdata *features_from;
} ds_pdw_info;

/* A new perf.data, name in dir; with tmp, name.tmp (ds_wdir_create_tmp),
 * which the caller renames over name once finished (ds_wdir_commit_tmp). */
ds_pdw *ds_pdw_create(ds_wdir *dir, const char *name, bool tmp, const ds_event *events, size_t nevents,
		      ds_err *err);
/* Append raw records (perf_event_header framed); buffered. */
int ds_pdw_write(ds_pdw *w, const void *data, size_t len, ds_err *err);
/* Flush buffered records and make the header's data size cover them. */
int ds_pdw_flush(ds_pdw *w, ds_err *err);
uint64_t ds_pdw_data_size(const ds_pdw *w);
/* Write feature sections and the final header; closes the file. */
int ds_pdw_finish(ds_pdw *w, const ds_pdw_info *info, ds_err *err);
/* Close without finishing (after an error); the file stays as it is. */
void ds_pdw_abort(ds_pdw *w);
/* Size of the sample_id trailer that records of event 0 carry, so callers
 * can synthesize records (MMAP, COMM) that perf parses. */
size_t ds_sample_id_size(const struct perf_event_attr *attr);
/* Append a sample_id trailer with the given fields to a synthesized record. */
void ds_sample_id_append(ds_buf *rec, const struct perf_event_attr *attr, uint32_t pid,
			 uint32_t tid, uint64_t time, uint64_t id, uint32_t cpu);

/* ---- Arm SPE (spe.c) ----
 * perf's recordings of an arm_spe PMU (perf mem record on Arm) keep SPE's
 * packets in AUXTRACE records.  Decoding turns each sampled operation's
 * packets into one op; importing, each load and store into a sample. */

enum ds_spe_kind { DS_SPE_NONE, DS_SPE_LOAD, DS_SPE_STORE, DS_SPE_BRANCH, DS_SPE_OTHER };

typedef struct ds_spe_op {
	enum ds_spe_kind kind;
	uint64_t pc, va, pa, ts;
	uint32_t context;   /* the CONTEXTIDR: the thread, when the kernel puts it there */
	uint32_t events;    /* the events packet: bit 2 L1D access, 3 L1D refill, 4 TLB
			     * access, 5 TLB walk, 8 LLC access, 9 LLC miss, 10 remote */
	uint32_t latency;   /* total latency, cycles */
	uint16_t source;    /* the data source packet (its encoding depends on the CPU) */
	bool has_va, has_pa, has_ts, has_context;
	bool kernel;        /* the PC was at EL1 or EL2 */
} ds_spe_op;

typedef void (*ds_spe_fn)(const ds_spe_op *op, void *ctx);
/* Call fn for each whole record in p[0..n); returns the bytes they took:
 * the rest begins a record that ends in the next chunk.  Bytes that are
 * no packet are skipped and counted in *bad. */
size_t ds_spe_decode(const uint8_t *p, size_t n, ds_spe_fn fn, void *ctx, uint64_t *bad);
/* The op's perf_mem_data_src, as perf synthesizes it: from the data
 * source packet on CPUs whose encoding perf knows (Neoverse N1, N2, V1,
 * by the MIDR), else from the events. */
uint64_t ds_spe_data_src(const ds_spe_op *op, uint64_t midr);

typedef struct ds_spe_stats {
	bool found;            /* the file holds SPE records */
	uint64_t records;      /* SPE records decoded */
	uint64_t loads, stores;  /* of them, made samples */
	uint64_t others;       /* branches and other operations: no memory access, left out */
	uint64_t unattributed; /* loads and stores no thread id, buffer or context switch names */
	uint64_t bad_bytes;    /* bytes that were no packet, or a record cut short */
} ds_spe_stats;

struct ds_perfdata;
/* When pd holds Arm SPE records: write name in dir, pd with each load and store
 * as a sample of the SPE event (IP, ADDR, PHYS_ADDR, DATA_SRC, WEIGHT =
 * total latency, PERIOD = its interval; the thread from the context
 * packet, else the buffer's, else the CPU's context switches) in place of
 * the AUXTRACE records, and return 1; 0 when it holds none (nothing is
 * written); -1 on error. */
int ds_spe_import(struct ds_perfdata *pd, ds_wdir *dir, const char *name, ds_spe_stats *st, ds_err *err);

/* ---- perf.data reader ---- */

enum ds_rec_kind {
	DS_REC_SAMPLE,
	DS_REC_MMAP,  /* MMAP and MMAP2 */
	DS_REC_COMM,
	DS_REC_FORK,
	DS_REC_EXIT,
	DS_REC_LOST,
	DS_REC_LOST_SAMPLES,
	DS_REC_THROTTLE,
	DS_REC_UNTHROTTLE,
	DS_REC_OTHER, /* anything else: kept for completeness, not interpreted */
};

typedef struct ds_sample {
	uint64_t type;     /* PERF_SAMPLE_* bits present */
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *callchain; /* nr entries, with PERF_CONTEXT_* markers */
	uint64_t nr_callchain;
	uint64_t regs_abi;         /* PERF_SAMPLE_REGS_ABI_*; 0 = no user regs */
	uint64_t regs_mask;
	const uint64_t *regs;      /* popcount(regs_mask) values in bit order */
	const uint8_t *stack;      /* user stack from the sampled SP up (PERF_SAMPLE_STACK_USER) */
	uint64_t stack_size;       /* bytes of it that are valid (the kernel's dyn_size) */
	/* the whole PERF_SAMPLE_STACK_USER field in the record (its size, the
	 * bytes, dyn_size), for a rewrite that drops it; NULL when absent */
	const uint8_t *stack_field;
	uint32_t stack_field_len;
	uint64_t weight;
	uint64_t data_src;
	uint64_t phys_addr;
	uint64_t data_page_size, code_page_size;
} ds_sample;

typedef struct ds_rec_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	const char *filename;
	bool mmap2;
	bool has_build_id;
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	bool executable; /* not PERF_RECORD_MISC_MMAP_DATA */
} ds_rec_mmap;

typedef struct ds_rec_comm {
	uint32_t pid, tid;
	const char *comm;
	bool exec;
} ds_rec_comm;

typedef struct ds_rec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
} ds_rec_task;

typedef struct ds_record {
	enum ds_rec_kind kind;
	uint32_t type;        /* PERF_RECORD_* */
	uint16_t misc;
	int evidx;            /* event the record belongs to; -1 when unknown */
	uint64_t time;        /* from the sample or sample_id trailer; 0 when absent */
	uint32_t cpu;         /* from the trailer when present */
	uint64_t offset;      /* byte offset in the file (in the decompressed data when compressed) */
	const void *raw;
	uint32_t size;
	union {
		ds_sample sample;
		ds_rec_mmap mmap;
		ds_rec_comm comm;
		ds_rec_task task;
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t time, id, stream_id;
		} throttle;
	} u;
} ds_record;

typedef struct ds_perfdata ds_perfdata;

typedef struct ds_perfdata_header_info {
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid, *cmdline;
	unsigned nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb;
	int clockid;            /* -1 when absent */
	uint64_t clock_wall_ns, clock_ref_ns; /* 0 when absent */
	uint64_t first_sample_time, last_sample_time;
	bool pipe_mode;
	bool data_size_recovered; /* header said 0 bytes of data: read up to the last whole record */
	bool compressed;        /* zstd records (perf record -z), decompressed at open */
	ds_cache_level caches[8]; /* HEADER_CACHE: the levels CPU 0 uses */
	int ncaches;
} ds_perfdata_header_info;

/* What a damaged perf.data lost.  The reader reads every whole record and
 * skips what it cannot read: a cut (the file ends before its data does), a
 * stretch of corrupt records (reading resumes at the next run of sound
 * record headers), a record whose fields do not match its event's attr, a
 * feature section outside the file.  Bytes and features are known at
 * open; the per-record counts once every record was read once (`complete`). */
typedef struct ds_perfdata_damage {
	uint64_t bytes_cut;        /* data past the end of the file, and a partial last record */
	uint64_t bytes_trailing;   /* bytes after the last record that start no record */
	uint64_t bytes_corrupt;    /* data skipped between readable records */
	unsigned corrupt_stretches;
	uint64_t bytes_undecoded;  /* zstd records that did not decompress */
	uint64_t bytes_no_room;    /* records not copied: the address space for decompressed data ran out */
	uint64_t bytes_unaligned;  /* records of perf's own, of odd length, that could not be padded */
	uint64_t *samples;         /* per event: samples read, dropped ones included */
	uint64_t *bad_samples;     /* per event: samples whose fields do not end at the record's end */
	uint64_t orphan_samples;   /* samples whose id names no event of the header */
	uint64_t bad_records;      /* other records too short for their type */
	uint64_t features_lost[4]; /* feature bits whose sections lie outside the file */
	uint64_t aux_bytes;        /* AUX trace (AUXTRACE records' payloads): no samples until decoded */
	uint32_t aux_type;         /* its AUXTRACE_INFO's type (perf's: 4 Arm SPE), 0 unknown */
	uint64_t first_time, last_time; /* earliest and latest record times read */
	uint64_t gap_time;         /* time between the records either side of corrupt stretches */
	bool complete;
} ds_perfdata_damage;

/* Open the header, attrs and features, and find the whole records (zstd
 * records are decompressed here, into memory).  Only a file whose header or
 * attrs cannot be read is refused; damage elsewhere is counted.  `path`
 * names the file in messages. */
int ds_perfdata_open(const char *path, ds_perfdata **out, ds_err *err);
/* The same over a memory image (fuzzing, tests); the image must outlive the reader. */
int ds_perfdata_open_mem(const void *data, size_t size, const char *label,
			 ds_perfdata **out, ds_err *err);
void ds_perfdata_close(ds_perfdata *pd);

size_t ds_perfdata_nevents(const ds_perfdata *pd);
const ds_event *ds_perfdata_event(const ds_perfdata *pd, size_t i);
const ds_perfdata_header_info *ds_perfdata_info(const ds_perfdata *pd);
uint64_t ds_perfdata_data_size(const ds_perfdata *pd);
const void *ds_perfdata_image(const ds_perfdata *pd, size_t *size);
/* The build-ids the file lists (HEADER_BUILD_ID); *n = 0 when none. */
const ds_build_id *ds_perfdata_build_ids(const ds_perfdata *pd, size_t *n);
/* The raw bytes of feature section `bit` (PERFILE2 files), NULL when absent. */
const void *ds_perfdata_feature(const ds_perfdata *pd, int bit, size_t *len);

/* Iteration: *cursor starts at 0.  Returns 1 with *rec filled, 0 at the
 * end, -1 with err on failure.  Damage is no failure: unreadable stretches
 * and records that do not match their type are skipped and counted
 * (ds_perfdata_damage_of).  Record contents point into the file image (or
 * the decompressed data) and stay valid until close. */
int ds_perfdata_next(ds_perfdata *pd, uint64_t *cursor, ds_record *rec, ds_err *err);
/* The same, stepping over samples without decoding them: for a pass over
 * the side-band records (mappings, threads) of a large file. */
int ds_perfdata_next_nonsample(ds_perfdata *pd, uint64_t *cursor, ds_record *rec, ds_err *err);
/* Progress helper: bytes of data consumed so far for a cursor. */
uint64_t ds_perfdata_cursor_pos(const ds_perfdata *pd, uint64_t cursor);
/* What the file lost (see ds_perfdata_damage). */
const ds_perfdata_damage *ds_perfdata_damage_of(const ds_perfdata *pd);
/* The damage as notes, one per kind (bytes lost with the time they held,
 * samples dropped per event, malformed records, unreadable features); NULL
 * when the file is whole.  recorded_end: when the recording ended, in the
 * samples' clock, if something other than the file knows it (meta.json),
 * else 0.  Malloc'd strings in a malloc'd array. */
char **ds_perfdata_damage_notes(const ds_perfdata *pd, uint64_t recorded_end, size_t *n);

/* ---- meta.json ---- */

typedef struct ds_meta_event {
	char *name;
	uint64_t period;   /* 0 when frequency mode */
	uint64_t freq;     /* Hz, 0 when period mode */
	bool precise;
	char *source;      /* "software", "hardware", "libpfm4", "papi", "perf.data" */
} ds_meta_event;

typedef struct ds_meta {
	char *dsprof_version;
	char **argv;       /* the command line that made the experiment */
	int argc;
	char **target;     /* the profiled command, or NULL with attach/import */
	int ntarget;
	int64_t attach_pid; /* -1 unless -p */
	int64_t rank;      /* the MPI rank the command ran as (OMPI_COMM_WORLD_RANK, PMI_RANK,
			    * SLURM_PROCID at record time); -1 none */
	char *host, *kernel, *arch, *cpu_model;
	unsigned ncpus;
	uint64_t page_size;
	uint64_t huge_page_size;  /* 0 when unknown (experiments older than the field) */
	int numa_nodes;           /* 0 when unknown */
	char *numa_map;           /* numa_node's expression over PADDR (memobj/), or NULL */
	ds_cache_level caches[8];
	int ncaches;
	char *cache_source; /* where caches came from: "sysfs", "cpuid", a model file; NULL unknown */
	char *backend;     /* "perf_event", "sim", "import" */
	char *clock;       /* "monotonic", "perf" */
	ds_meta_event *events;
	size_t nevents;
	bool callchains;
	bool inherit;
	double start_wall, end_wall;  /* Unix seconds */
	uint64_t start_ns, end_ns;    /* in the samples' clock */
	uint64_t samples, lost, lost_samples, throttled;
	int64_t exit_status;          /* target's exit status (or 128+signal); -1 unknown */
	char *exit_signal;            /* the signal that killed it ("SIGSEGV"), or NULL */
	char *source_file;            /* import: the perf.data it came from */
	/* ds_meta_read: the values meta.json holds that cannot be, one line
	 * each naming the field and its value ("meta.json: page_size 3 is not
	 * a power of two ...; taken as unknown"); those fields are left unknown */
	char **problems;
	size_t nproblems;
} ds_meta;

void ds_meta_init(ds_meta *m);
/* What a perf.data header says about its run (machine, command, events),
 * for a perf.data that has no meta.json; backend names where it came from. */
void ds_meta_from_perfdata(ds_meta *m, const ds_perfdata *pd, const char *backend);
void ds_meta_fini(ds_meta *m);
/* DIR/meta.json, replaced at once (a reader never sees half of one). */
int ds_meta_write(const ds_meta *m, ds_wdir *dir, ds_err *err);
/* Fails (DS_EINPUT) only when the file cannot be read, is not JSON or not
 * a dsprof meta.json of a version this dsprof knows; a bad value is one of
 * m->problems and the rest is read. */
int ds_meta_read(ds_meta *m, const char *path, ds_err *err);

/* ---- the experiment directory ---- */

/* An experiment dsprof made holds only what dsprof writes in it (perf.data,
 * meta.json, kallsyms, vdso.so, sim/) and says it is dsprof's: complete, by
 * its meta.json; unfinished (being written, or never to be: the writer was
 * killed, the disk was full), by the mark "recording.json" that
 * ds_expdir_create writes first and ds_expdir_complete removes last.
 * Anything else (a file of the user's inside, a bare perf.data) is never
 * moved or removed. */

typedef struct ds_expdir_prev {
	bool moved;      /* DIR was renamed DIR.old */
	bool kept_dir;   /* DIR was an empty directory, used as it was */
	char said[1024]; /* what happened to what was there, one sentence; "" when nothing */
} ds_expdir_prev;

/* Make DIR for a new experiment and mark it unfinished; DIR, open for
 * writing every file of the experiment in (ds_wdir_close it).  What was
 * there: an experiment is renamed DIR.old (replacing an older one there),
 * but an unfinished DIR is removed instead when DIR.old is complete, so
 * that the last complete experiment is never lost; prev->said says which;
 * an empty directory is used as it is.  Refuses (DS_EINPUT, saying why and
 * what to do) when DIR or the DIR.old it would replace is not an
 * experiment dsprof made, is being written now, or is a directory of
 * another user's or one other users may write in (base.h, ds_wdir_open). */
ds_wdir *ds_expdir_create(const char *dir, ds_expdir_prev *prev, ds_err *err);
/* The experiment in dir is complete (its meta.json is written): unmark it. */
int ds_expdir_complete(ds_wdir *dir, ds_err *err);
/* Undo ds_expdir_create after a recording that never started: remove DIR
 * and what it holds; true when DIR.old was put back as DIR. */
bool ds_expdir_discard(const char *dir, const ds_expdir_prev *prev);

/* Remove an experiment that dsprof made for its own use (layout
 * --suggest --verify's), with everything in it. */
int ds_expdir_remove(const char *dir, ds_err *err);

/* Who marked an unfinished experiment, where. */
typedef struct ds_expdir_mark_info {
	int64_t pid;        /* of the dsprof that wrote it; -1 unknown */
	char host[256], kernel[256], boot_id[64];
	bool this_boot;     /* written since this machine last booted */
	bool live;          /* ... by a dsprof that still runs: it is being written now */
} ds_expdir_mark_info;
/* Whether DIR is marked unfinished, and by whom. */
bool ds_expdir_mark(const char *dir, ds_expdir_mark_info *m);
/* DIR.old when it is a complete experiment, else NULL (malloc'd). */
char *ds_expdir_previous(const char *dir);
/* Save this boot's vDSO image as DIR/vdso.so: samples in the vDSO (a code
 * page the kernel maps, with no file behind it) resolve from it. */
int ds_expdir_save_vdso(ds_wdir *dir, ds_err *err);
/* Given DIR or DIR/perf.data or any perf.data file, the perf.data path and
 * the meta.json path (NULL when the experiment has none).  Malloc'd. */
int ds_expdir_resolve(const char *path, char **perfdata, char **meta, ds_err *err);

/* ---- experiment groups (docs/experiment-format.md, "Groups") ----
 * A group is a directory of experiments and an index, GROUP/group: the
 * line "dsprof-group 1", then a line "NAME<tab>KIND<tab>ID" for each
 * complete experiment GROUP/NAME.  KIND is rank (ID: the MPI rank; NAME
 * rank.ID), run (a repeated run, ID its number from 1; run.ID) or process
 * (a program a recording's process tree exec'd, record --follow-exec; ID
 * its pid, NAME its name and pid, PROG.ID).  Writers take an exclusive lock
 * on the index, so that processes adding to one group at once never mix
 * their lines or their names. */
typedef struct ds_group_member {
	char *name;
	char *kind;        /* "rank", "run", "process" */
	int64_t id;
} ds_group_member;

/* Whether dir is a group (its index says so). */
bool ds_group_is(const char *dir);
/* Make group (when absent; an empty directory becomes one). */
int ds_group_make(const char *group, ds_err *err);
/* Make the directory for a new member of group (made when absent; an
 * empty directory becomes one): for run, the next number after every run
 * there that the index does not list (id is ignored); for process, named by prog (its
 * characters other than letters, digits, '_', '-' and '.' made '_') and
 * id, with ".2", ".3" after a name taken (there, or listed: a member
 * whose directory is gone keeps its name); its path in *path (malloc'd)
 * and its id in *got.  A rank already there or listed is an error. */
int ds_group_reserve(const char *group, const char *kind, int64_t id, const char *prog, char **path, int64_t *got,
		     ds_err *err);
/* List the complete experiment at path (a member ds_group_reserve made). */
int ds_group_add(const char *group, const char *path, const char *kind, int64_t id, ds_err *err);
/* The members the index lists, in its order (malloc'd).  An index that
 * lists a name twice, or has lines that are no member's, is refused; one
 * whose last line has no newline is read, with *note (malloc'd, else
 * NULL) saying so. */
int ds_group_members(const char *group, ds_group_member **out, size_t *n, char **note, ds_err *err);
void ds_group_members_free(ds_group_member *v, size_t n);

/* ---- a recording split by program (record --follow-exec; experiment/split.c) ----
 * Every exec starts a process image: the program a process runs from its
 * exec on, and the forked children that run it until they exec in turn. */
typedef struct ds_image {
	uint32_t pid;            /* the process whose exec started it */
	char comm[16];           /* the program's name after the exec */
	char *exe;               /* its executable file (the first mapping after the exec), or NULL */
	uint64_t samples;
	uint64_t first_time, last_time; /* of its samples */
} ds_image;
/* The images of the recording at path, in the order of their execs in time. */
int ds_perfdata_images(const char *path, ds_image **out, size_t *n, ds_err *err);
void ds_images_free(ds_image *v, size_t n);
/* Write image k's records into dirs[k]/perf.data, for each of the first
 * nimages images (as ds_perfdata_images lists them); the kernel's mappings
 * and the records of no process (lost, throttled) go to each.  The files
 * keep the recording's events and header features. */
int ds_perfdata_split(const char *path, size_t nimages, ds_wdir *const *dirs, ds_err *err);

/* ---- heap files (record --heap; the layout: experiment/heapfile.h) ----
 * One file per process image in DIR/heap/, read record by record; a
 * record that is not whole or not sound ends its chunk's records, and its
 * bytes are counted (ds_heapfile_bad_bytes). */
typedef struct ds_heapfile ds_heapfile;

typedef struct ds_heap_info {
	uint32_t pid, ppid;
	uint64_t start;       /* when the image began, on the samples' clock */
	bool forked;          /* it began in a fork's child */
	bool logical;         /* its times are the simulator's logical clock */
	bool lost;            /* the program took the tracker's descriptor of it, and the tracker
			       * could not get the file again: the records after that are lost */
	unsigned max_frames;
	uint64_t mmap_min;
	char *exe;            /* the program, as /proc/self/exe named it */
} ds_heap_info;

/* One record: a site (frames, innermost first), or a block's beginning
 * or end (enum ds_heap_type, enum ds_heap_fn). */
typedef struct ds_heap_rec {
	unsigned type, size, fn;
	uint32_t tid, site;
	uint64_t time, addr, bytes;
	unsigned nframes;
	uint64_t frames[32];   /* a site's: the first nframes (the rest is left as it was) */
} ds_heap_rec;

/* What the heap files of experiment DIR hold, all told: each chunk by its
 * tally, reading only those without one (cut short, or of an older
 * version), whose damaged bytes bad_bytes counts; a report reads them all. */
typedef struct ds_heap_totals {
	size_t files;
	uint64_t allocs, frees, stacks, bad_bytes;
	size_t cut;           /* files cut short */
} ds_heap_totals;
int ds_heap_count(const char *dir, ds_heap_totals *t, ds_err *err);

/* The heap files of experiment DIR (the .heap files of DIR/heap), sorted; none when it
 * has no heap folder. */
int ds_heap_list(const char *dir, char ***paths, size_t *n, ds_err *err);
int ds_heapfile_open(const char *path, ds_heapfile **out, ds_err *err);
void ds_heapfile_close(ds_heapfile *f);
const ds_heap_info *ds_heapfile_info(const ds_heapfile *f);
const char *ds_heapfile_path(const ds_heapfile *f);
/* Where reading a file is: the offset of its next record, and what its
 * chunk's base record said so far (short records are read against it).
 * Zeros, or an offset at a chunk's start and zeros, begin there. */
typedef struct ds_heap_cursor {
	uint64_t off;
	uint64_t base_time, base_mult;
	uint64_t base_chunk;  /* the offset + 1 of the chunk whose base this is; 0 none */
	uint32_t base_tid;
} ds_heap_cursor;
/* The next record from *cursor on: 1, or 0 at the end.  Short records
 * come as the whole ones they stand for (DS_HEAP_ALLOC, DS_HEAP_FREE);
 * base records are not handed out. */
int ds_heapfile_next(ds_heapfile *f, ds_heap_cursor *cursor, ds_heap_rec *r);
/* The file's bytes (its chunks end there). */
uint64_t ds_heapfile_size(const ds_heapfile *f);
/* Bytes of records that could not be read, so far. */
uint64_t ds_heapfile_bad_bytes(const ds_heapfile *f);
/* Whether the file was cut short: its writers extend it a whole chunk at
 * a time, so a last chunk that is not whole lost its end. */
bool ds_heapfile_cut(const ds_heapfile *f);
/* Let go of the memory of bytes [off, off+len) read already (they are read
 * again from the file if asked for): a file of millions of records is
 * swept a chunk at a time without all of it staying in memory. */
void ds_heapfile_drop(ds_heapfile *f, uint64_t off, uint64_t len);

#endif
