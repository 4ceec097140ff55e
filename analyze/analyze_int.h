/* Private to analyze/: the session's model of the recorded processes. */
#ifndef DSPROF_ANALYZE_INT_H
#define DSPROF_ANALYZE_INT_H

#include "analyze/analyze.h"
#include "arch/arch.h"
#include "backtrack/backtrack.h"
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

/* Instance addresses are kept modulo this (a page): enough for every cache
 * line size a view may draw (--line), small enough to count per residue. */
#define DS_ALIGN_MOD 4096u

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
	struct site_ds *ds;           /* dataspace resolution, when a view needs it */
} site;

/* What a data object is (dataspace.c). */
enum dobj_kind {
	DOBJ_FIELD,    /* a member of a struct, union or class type */
	DOBJ_PADDING,  /* a hole or the tail padding of a type */
	DOBJ_GLOBAL,   /* a global or static variable of a non-aggregate type */
	DOBJ_STACK,    /* a stack slot that is no aggregate */
	DOBJ_SCALAR,   /* through a pointer to a base type */
	DOBJ_KERNEL,   /* kernel-mode samples */
	DOBJ_UNKNOWN,  /* with the reason */
};

typedef struct dobj {
	enum dobj_kind kind;
	char *type;        /* "struct node"; the variable's type for globals */
	char *path;        /* member path ("next", "a.b", "cells[]") */
	char *name;        /* the row name: "struct node.next", "<stack main>", ... */
	const ds_type *t;  /* FIELD, PADDING: the aggregate */
} dobj;

/* An object and where in its aggregate type the access fell. */
typedef struct dref {
	int32_t id;        /* dobj index, -1 when undecided */
	uint64_t off;      /* byte offset in the aggregate (FIELD, PADDING) */
} dref;

/* How a site's data object was found (or why not). */
enum ds_how {
	HOW_NONE,
	HOW_STATIC,    /* (1) RIP-relative or absolute address: a global */
	HOW_REG_VAR,   /* (2) the base register holds a variable */
	HOW_STACK,     /* (3) relative to the stack or frame pointer */
	HOW_TRACKED,   /* (4) the register's type tracked through the function */
	HOW_ADDRESS,   /* (5) the sample's address is inside a global */
	HOW_NHOW
};

typedef struct site_ds {
	ds_trigger trig[2];   /* [precise]: imprecise and precise samples differ */
	bool done[2];
	dref obj[2];          /* the static object; id -1: decided per sample by address */
	uint8_t how[2];
	struct {
		int32_t id;
		uint32_t n;
	} seen[4];            /* objects the site's samples touched, for annotations */
} site_ds;

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

	/* dataspace (dataspace.c), built on the first view that needs it */
	bool ds_built;
	ds_backtracker *bt;
	DS_VEC(dobj) dobjs;
	ds_hash *dobj_index;
	DS_VEC(uint64_t) dobj_samples;   /* [dobj * nev + ev] */
	DS_VEC(uint64_t) dobj_count;
	ds_hash *align_index;            /* (type, instance address % DS_ALIGN_MOD) -> per-event samples */
	DS_VEC(uint64_t) align_samples;
	uint64_t how_samples[HOW_NHOW];
	uint64_t verdict_samples[DS_BT_NVERDICTS];
	uint64_t ea_from_addr, ea_from_regs, ea_regs_changed, ea_none, ea_checked, ea_disagree;
	uint64_t ea_ifetch;               /* page faults on code: ADDR is the instruction */
	DS_VEC(uint64_t) dso_mem;        /* per dso: samples whose trigger was found */
	DS_VEC(uint64_t) dso_resolved;   /* per dso: of those, resolved to a data object */
};

/* ---- building tables (table.c) ---- */
typedef struct tb {
	ds_table *t;
	ds_hash *rows; /* row key -> row index */
	DS_VEC(ds_row) v;
} tb;

void tb_init(tb *b, ds_session *s, const char *view, const char *name_label, const ds_col *cols,
	     size_t ncols, bool inclusive);
/* The row for key, created with `name` when new; returns its index. */
size_t tb_row(tb *b, const void *key, size_t keylen, const char *name, bool *added);
void tb_cell_str(ds_row *r, size_t col, const char *s);
void tb_cell_u64(ds_row *r, size_t col, uint64_t v);
/* Sort (by o->sort) and cut (o->limit); hands the table out. */
int tb_finish(tb *b, const ds_view_opts *o, ds_table **out, ds_err *err);
void tb_prop(ds_table *t, const char *key, enum ds_prop_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

const char *ds_how_name(enum ds_how h);
int ds_view_dataobjects(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_typestats(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_datalayout(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
/* The data object most samples of a site touched (NULL before
 * ds_dataspace_build or for sites it never saw), its trigger and verdict. */
const char *ds_site_dataobject(const ds_session *s, size_t si, const char **verdict,
			       const ds_trigger **trig);
/* Read the samples once more and attribute each to its data object. */
int ds_dataspace_build(ds_session *s, ds_err *err);
void ds_dataspace_free(ds_session *s);

/* Resolve a site's function (and optionally its line) once. */
void ds_site_resolve(ds_session *s, size_t i, bool lines);
/* The object (dso index) and vaddr of a runtime data address. */
bool ds_session_data_at(ds_session *s, uint32_t pid, uint64_t time, uint64_t ea, uint32_t *dso,
			uint64_t *vaddr);
/* Address-space lookup used by pass 2 and by the samples view. */
uint32_t ds_session_site(ds_session *s, uint32_t pid, uint64_t time, uint64_t ip, bool kernel);
/* The comm of a thread (by the last COMM at or before its end). */
const char *ds_thread_comm(ds_session *s, size_t ti);
void ds_session_note_add(ds_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ds_sample_wanted(const ds_session *s, uint32_t tid);
bool ds_ip_is_kernel(uint16_t misc);

#endif
