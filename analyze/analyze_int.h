/* Private to analyze/: the session's model of the recorded processes. */
#ifndef DSPROF_ANALYZE_INT_H
#define DSPROF_ANALYZE_INT_H

#include "analyze/analyze.h"
#include "arch/arch.h"
#include "dwarfmap/dwarfmap.h"

/* An object file seen in MMAP records (or the kernel, or nothing). */
typedef struct dso_ent {
	char *path;        /* as recorded */
	char *module;      /* short name for tables: basename, "[kernel.kallsyms]", "[vdso]" */
	ds_dso *dso;       /* NULL until loaded, or when it cannot be */
	bool tried;
	bool kernel;
	uint32_t maj, min;
	uint64_t ino;
} dso_ent;

/* dso index of samples whose address is in no known mapping */
#define DSO_UNKNOWN 0u

typedef struct map_ent {
	uint64_t start, end, pgoff;
	uint64_t time;     /* when it was mapped */
	uint32_t dso;
} map_ent;

typedef struct proc {
	uint32_t pid;
	DS_VEC(map_ent) maps;         /* sorted by start after loading */
	DS_VEC(uint64_t) end_max;     /* running max of end over maps[0..i] */
	DS_VEC(uint64_t) execs;       /* times of exec */
	int64_t parent;               /* proc index of the forking process, -1 */
	uint64_t fork_time;
} proc;

/* How a sample in a site finds its caller (see leaf_caller in session.c). */
enum site_frame {
	FRAME_UNKNOWN,  /* not looked up yet */
	FRAME_CHAINED,  /* the frame pointer chain holds the caller */
	FRAME_STACK,    /* no frame (yet, or any more): the return address is on the stack */
	FRAME_NONE,     /* no call-frame information */
};

/* A unique instruction: (object, file offset), or (unknown, ip). */
typedef struct site {
	uint32_t dso;
	uint64_t off;                 /* file offset; the address itself for kernel/unknown */
	uint8_t frame;                /* enum site_frame */
	int32_t ra_sp;                /* FRAME_STACK: return address at SP + ra_sp */
	bool resolved;
	bool has_vaddr;
	uint64_t vaddr;
	const ds_symbol *sym;
	bool lines_done;
	const char *file;
	unsigned line;
} site;

typedef struct thread_ent {
	uint32_t pid, tid;
	const char *comm;             /* points into the perf.data image */
	uint64_t comm_time;
	uint32_t ptid;                /* for threads without their own COMM */
	uint64_t fork_time;
	bool forked;
} thread_ent;

struct ds_session {
	char *path;
	ds_perfdata *pd;
	ds_meta meta;
	ds_session_opts opts;
	size_t nev;

	DS_VEC(dso_ent) dsos;
	ds_hash *dso_index;
	DS_VEC(proc) procs;
	ds_hash *proc_index;
	proc kernel;                  /* pid -1: the kernel's maps */
	bool same_machine;            /* recorded on this host and kernel: its kallsyms and vdso fit */

	DS_VEC(site) sites;
	ds_hash *site_index;
	DS_VEC(uint64_t) site_samples;  /* [site * nev + ev] */
	DS_VEC(uint64_t) site_count;

	DS_VEC(thread_ent) threads;
	ds_hash *thread_index;
	DS_VEC(uint64_t) thread_samples;
	DS_VEC(uint64_t) thread_count;

	ds_hash *chain_index;         /* key: u32 site indices, leaf first */
	DS_VEC(uint64_t) chain_samples;
	DS_VEC(uint64_t) chain_count;
	bool callchains;

	uint64_t *ev_samples, *ev_count;
	uint64_t nsamples, lost, lost_samples, throttled;
	uint64_t first_time, last_time;

	DS_VEC(char *) notes;
	ds_decoder *dec;
};

/* Resolve a site's function (and optionally its line) once. */
void ds_site_resolve(ds_session *s, size_t i, bool lines);
/* Address-space lookup used by pass 2 and by the samples view. */
uint32_t ds_session_site(ds_session *s, uint32_t pid, uint64_t time, uint64_t ip, bool kernel);
/* The comm of a thread (by the last COMM at or before its end). */
const char *ds_thread_comm(ds_session *s, size_t ti);
void ds_session_note_add(ds_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ds_sample_wanted(const ds_session *s, uint32_t tid);
bool ds_ip_is_kernel(uint16_t misc);

#endif
