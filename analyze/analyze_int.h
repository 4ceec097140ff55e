/*
 * Private to analyze/: its layers, each using only those before it.
 *
 *   1. loading     the experiment read into a model of the recorded
 *                  processes (objects, address spaces, unique instructions,
 *                  threads, call chains) and a record per sample
 *   2. resolution  unique instructions named (functions, lines) and
 *                  attributed to data (triggers, types, fields); the
 *                  machine whose caches and memory objects the views use
 *   3. records     what the layers above read of the records
 *   4. tables      a view's rows and cells, sorting, properties
 *   5. dimensions  the ways samples are told apart, each defined once
 *   6. groupings   the records grouped by dimensions, the filter, and the
 *                  views, each a grouping or a table of its own
 *   7. experiments whole experiments: a diff of two, a recording finished
 * The "layer N" lines below name each layer's files; tests/e2e/layers.sh
 * checks from the objects' symbols that no file calls into a later layer
 * (docs/architecture-notes.md).
 */
#ifndef DSPROF_ANALYZE_INT_H
#define DSPROF_ANALYZE_INT_H

#include "analyze/analyze.h"
#include "arch/arch.h"
#include "backtrack/backtrack.h"
#include "dwarfmap/dwarfmap.h"
#include "memobj/memobj.h"

#include <string.h>

/* Zero n counters (p may be NULL when n is 0). */
static inline void ds_zero_u64(uint64_t *p, size_t n)
{
	if (n)
		memset(p, 0, n * sizeof *p);
}

/* ======== layer 1: loading (session.c unwind.c) ======== */

/* An object file seen in MMAP records (or the kernel, or nothing). */
typedef struct dso_ent {
	char *path;        /* as recorded */
	char *module;      /* short name for tables: basename, "[kernel.kallsyms]", "[vdso]" */
	ds_dso *dso;       /* NULL until loaded, or when it cannot be */
	bool tried;
	bool kernel;
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id[DS_BUILD_ID_MAX]; /* as recorded (MMAP2 or HEADER_BUILD_ID) */
	uint8_t build_id_size;             /* 0: not recorded */
} dso_ent;

/* dso index of samples whose address is in no known mapping */
#define DSO_UNKNOWN 0u

typedef struct map_ent {
	uint64_t start, end, pgoff;
	uint64_t time;     /* when it was mapped */
	uint32_t dso;
} map_ent;

/* An address range mapped at a time. */
typedef struct stack_span {
	uint64_t start, end, time;
} stack_span;

typedef struct proc {
	uint32_t pid;
	DS_VEC(map_ent) maps;         /* sorted by start after loading */
	DS_VEC(uint64_t) end_max;     /* running max of end over maps[0..i] */
	DS_VEC(uint64_t) execs;       /* times of exec */
	int64_t parent;               /* proc index of the forking process, -1 */
	uint64_t fork_time;
	uint64_t stack_top;           /* the end of its main thread's stack ([stack]), 0 unknown */
	DS_VEC(stack_span) anon;            /* anonymous data mappings (other threads' stacks among them) */
	DS_VEC(stack_span) files;           /* data mappings of files that are no image (a database's pages) */
	DS_VEC(stack_span) stacks;          /* the ones a sampled stack pointer was in */
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

/* What the previous sample's call chain resolved to, for the next one
 * (session.c, intern_chain). */
typedef struct chain_memo {
	uint32_t pid;         /* UINT32_MAX: none yet */
	ds_vec_u64 raw;       /* its chain as read */
	ds_vec_u32 site;      /* per frame of raw: a caller's site, UINT32_MAX for the others */
	ds_vec_u32 next;      /* the one being made */
	ds_vec_u32 key;       /* its key in chain_index, and the chain's index */
	uint32_t id;
} chain_memo;

typedef struct thread_ent {
	uint32_t pid, tid;
	const char *comm;             /* points into the perf.data image */
	uint64_t comm_time;
	uint32_t ptid;                /* for threads without their own COMM */
	uint64_t fork_time;
	bool forked;
	uint8_t stack_looks;          /* samples whose stack pointer looked for its stack; 255: found */
} thread_ent;

/* The per-sample records.  Loading keeps a record of every sample as it
 * reads it, and ds_dataspace_build attributes each to data: a compact
 * record of what views and filters need per access:
 * where it was (instruction, thread, CPU, time), what it touched (the
 * effective address, the data object and the offset in it, load or store)
 * and how that was found.  The memory-object, hot-line and false-sharing
 * views and --filter read these records; they never decode, backtrack or
 * resolve again.  Everything costly stays per unique instruction (site)
 * or per data object (dobj), which a record only points to, so a record
 * is 64 bytes (a million samples: 64 MB).  Physical addresses and data
 * sources, which few events have, sit in parallel arrays that exist only
 * when some event samples them.  The session's aggregates (site, thread,
 * chain and data-object metrics) are sums over the records the filter
 * keeps, so every view honours the filter.  Records are in the order of
 * the sample stream: record i is the i-th sample the session reads. */
enum {
	SR_EA = 1 << 0,       /* ea holds the effective address */
	SR_LOAD = 1 << 1,     /* the access reads memory */
	SR_STORE = 1 << 2,    /* it writes memory (a read-modify-write is both) */
	SR_KERNEL = 1 << 3,   /* a kernel-mode sample: no trigger, data object <kernel> */
	SR_PRECISE = 1 << 4,  /* of a precise event: its trigger is site_ds.trig[1] */
	SR_IFETCH = 1 << 5,   /* a fault on the instruction's own bytes, not data */
	SR_CHECKED = 1 << 6,  /* the sampled address could be checked against the registers' */
	SR_DISAGREE = 1 << 7, /* ... and the two differ */
	SR_MEM2 = 1 << 13,    /* of the trigger's second access (call [mem]'s push): its
			       * object is site_ds.obj2 */
};
#define SR_EA_SHIFT 8         /* 2 bits: enum sr_ea_from */
#define SR_HOW_SHIFT 10       /* 3 bits: enum ds_how */

/* Where a record's effective address came from (or why there is none). */
enum sr_ea_from { EA_FROM_NONE, EA_FROM_ADDR, EA_FROM_REGS, EA_FROM_REGS_CHANGED };

typedef struct ds_srec {
	uint64_t ip;          /* the sampled runtime IP (VIRTPC) */
	uint64_t ea;          /* the runtime data address (VADDR), when SR_EA */
	uint64_t time;        /* TSTAMP; UINT64_MAX when the event has none */
	uint64_t period;
	uint32_t site;        /* the sampled instruction */
	int32_t dobj;         /* the data object the sample is attributed to */
	uint32_t off;         /* FIELD, PADDING: byte offset of the access in the aggregate */
	uint32_t thread;      /* index in the session's threads */
	uint32_t cpu;         /* UINT32_MAX when unknown */
	uint32_t chain;       /* the sample's call chain (index in chain_index), UINT32_MAX none */
	uint16_t ev;
	uint16_t flags;       /* SR_*, the address's origin and the resolution's how */
} ds_srec;

/* The site of (object, file offset), made when new. */
uint32_t ds_session_site_at(ds_session *s, uint32_t dso, uint64_t off);
/* Resolve a site's function (and optionally its line) once. */
void ds_site_resolve(ds_session *s, size_t i, bool lines);

/* Event e of the session: one of the perf.data's (e < npev), or one derived
 * from it: "latency:NAME", whose records are NAME's samples that carry a
 * weight (PEBS, IBS: the load's latency in cycles), each again with its
 * period times that weight, so that the count of a row is the memory time
 * of its samples, in every view.  A derived record follows its sample's. */
const ds_event *ds_session_event(const ds_session *s, size_t e);

/* ---- unwinding a stack copy (unwind.c) ---- */
/* The user-space frames of a sample from its registers and stack copy,
 * appended to out (the sampled address first, then return addresses);
 * returns why the chain ends (enum ds_chain_end).  sites (NULL: not
 * wanted) gets each frame's site as the unwinder found it: the leaf's at
 * its address, a caller's at its return address - 1, UINT32_MAX for a
 * frame it looked up otherwise (the one a signal interrupted, exactly). */
int ds_session_unwind(ds_session *s, const ds_sample *sm, ds_vec_u64 *out, ds_vec_u32 *sites);
/* Which frame of sample sm holds the stack address ea, by the same walk:
 * 1 and in *frame_site the frame's instruction (the leaf's, or a caller's call),
 * 0 when ea is in a thread's stack (ds_session_in_stack) but in no frame
 * the walk reached, -1 when it is in no stack. */
int ds_session_stack_frame(ds_session *s, const ds_sample *sm, uint64_t ea, uint32_t *frame_site);
/* The object (dso index) and vaddr of a runtime data address. */
bool ds_session_data_at(ds_session *s, uint32_t pid, uint64_t time, uint64_t ea, uint32_t *dso,
			uint64_t *vaddr);
/* Address-space lookup used by pass 2 and by the samples view. */
uint32_t ds_session_site(ds_session *s, uint32_t pid, uint64_t time, uint64_t ip, bool kernel);
/* A sample's call chain as it should read (context markers included): the
 * kernel's, with the caller that a user-space leaf without a frame hid from
 * the frame-pointer walk put back after the leaf, read from the sample's
 * user stack copy.  Valid until the next call. */
const uint64_t *ds_session_full_chain(ds_session *s, const ds_sample *sm, size_t *n);
/* The comm of a thread (by the last COMM at or before its end). */
const char *ds_thread_comm(ds_session *s, size_t ti);
/* Add a record to the per-instruction, per-thread, per-chain and per-event
 * sums. */
void ds_srec_count(ds_session *s, const ds_srec *x);
void ds_session_note_add(ds_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ds_sample_wanted(const ds_session *s, uint32_t tid);
bool ds_ip_is_kernel(uint16_t misc);
/* Free what loading made (the layers above free theirs first:
 * ds_session_close). */
void ds_session_free_model(ds_session *s);
/* Whether ea is in a thread's stack of process pid: the main thread's
 * ([stack], grown down by at most 8 MiB, the usual limit) or another's
 * that ds_session_note_sp saw. */
bool ds_session_in_stack(ds_session *s, uint32_t pid, uint64_t ea);
/* Whether ea was, at time, in a mapping of a file made to read or write
 * its data (LevelDB's tables, a database's pages): the latest data mapping
 * there before then, of the process or the one it forked from, was such
 * a file's rather than anonymous memory.  Never a heap block's. */
bool ds_session_in_file(ds_session *s, uint32_t pid, uint64_t time, uint64_t ea);
/* The time of process pid's first exec after t; UINT64_MAX: none. */
uint64_t ds_session_exec_after(ds_session *s, uint32_t pid, uint64_t t);
/* A sample's stack pointer: the anonymous mapping that holds it is a
 * thread's stack (glibc mmaps the stacks of the threads it creates).
 * Whether sp is in a stack known now. */
bool ds_session_note_sp(ds_session *s, uint32_t pid, uint64_t time, uint64_t sp);
/* The experiment's directory (the folder of a bare perf.data). */
char *ds_session_dir(const ds_session *s);

/* ======== layer 2: resolution (sites.c dataspace.c heap.c track.c charge.c cross.c machine.c) ======== */

/* Every unique instruction's function: (object, symbol start), or the
 * object's [unknown] bucket.  Names stay the object's; unknown addresses
 * are grouped per object rather than listed one by one (sites.c). */
typedef struct fkey {
	uint32_t dso;
	uint32_t known;
	uint64_t start;
} fkey;
fkey site_fkey(ds_session *s, size_t i);
/* Whether two keys are one function (or one object's code outside every symbol). */
bool fkey_eq(const fkey *a, const fkey *b);
/* The function's name: the symbol's, "[unknown]" or "[kernel]". */
const char *site_fname(const ds_session *s, size_t i);
/* An instruction's name, "FUNC+0xOFF" ("FUNC 0xADDR" outside every symbol). */
void site_label(ds_session *s, size_t i, ds_buf *name);
/* Its disassembly (Intel syntax) into text; returns its length in bytes,
 * 0 (and "") when it cannot be read or decoded. */
size_t site_disasm(ds_session *s, size_t i, char *text, size_t n);
/* Its source line as a row: a key that tells lines apart and the name
 * "file.c:12", or its function's "NAME (no line info)" without a line table. */
void site_line_name(ds_session *s, size_t i, ds_buf *key, ds_buf *name);

/* Instance addresses are kept modulo this (a page): enough for every cache
 * line size a view may draw (--line), small enough to count per residue. */
#define DS_ALIGN_MOD 4096u

/* What a data object is (dataspace.c). */
enum dobj_kind {
	DOBJ_FIELD,    /* a member of a struct, union or class type */
	DOBJ_MISFIT,   /* an access outside every member of its static type (in a hole,
			* the tail padding or past the end): the pointer is really to
			* another type; an unknown bucket named by the static one */
	DOBJ_GLOBAL,   /* a global or static variable of a non-aggregate type */
	DOBJ_STACK,    /* a stack slot that is no aggregate */
	DOBJ_SCALAR,   /* through a pointer to a base type */
	DOBJ_KERNEL,   /* kernel-mode samples */
	DOBJ_UNKNOWN,  /* with the reason */
	DOBJ_NOMEM,    /* <no memory access>: time in code that reads and writes none */
	DOBJ_TOOL,     /* <heap tracker>: record --heap's own work in the target (its
			* preloaded library, the unwinder it calls), not the program's */
	DOBJ_HEAP,     /* a heap block of an allocation site (heap.c), where the access
			* has no type of its own (scalars, no variable) */
	DOBJ_VIA,      /* read or written by a string function of the C library (memcpy,
			* strlen...) through a pointer its caller passed: the type, or the
			* object, of the argument ("struct node (via memcpy)"); a type's
			* belongs to it (tid), at no known offset */
};

typedef struct dobj {
	enum dobj_kind kind;
	char *type;        /* "struct node" (the type's tident name); the variable's type
			    * for globals */
	char *path;        /* member path ("next", "a.b", "cells[]"); UNKNOWN, MISFIT: the reason */
	char *name;        /* the row name: "struct node.next", "<stack main>", ... */
	const ds_type *t;  /* FIELD, MISFIT: the aggregate */
	int32_t tid;       /* FIELD, MISFIT: its tident; else -1 */
} dobj;

/* A type as the views tell it apart (dataspace.c): one definition, met in
 * any of the session's objects (ds_type_same), named as ds_type_ident
 * names it; when definitions of several objects that differ share that
 * name, each says where it is declared ("struct node (node.c:3)"), and
 * "#N" in order met when that is still not enough.  Data objects of
 * fields and padding belong to one; filters, layouts and instance
 * alignment go by it, never by a bare name. */
typedef struct tident {
	const ds_type *t;  /* its first definition met */
	char *name;        /* "struct node", "struct node (tu2.c:3)" */
	size_t base;       /* the length of the name without its " (where)" */
	int32_t next;      /* the next tident of the same ds_type_ident, -1 */
} tident;

/* An object and where in its aggregate type the access fell. */
typedef struct dref {
	int32_t id;        /* dobj index, -1 when undecided */
	uint64_t off;      /* byte offset in the aggregate (FIELD, PADDING) */
	const ds_type *elem; /* SCALAR: the base type the pointer is to (NULL: void, unknown) */
} dref;

/* How a site's data object was found (or why not). */
enum ds_how {
	HOW_NONE,
	HOW_STATIC,    /* (1) RIP-relative or absolute address: a global; %fs-relative: a thread-local */
	HOW_REG_VAR,   /* (2) the base register holds a variable */
	HOW_STACK,     /* (3) relative to the stack or frame pointer */
	HOW_TRACKED,   /* (4) the register's type tracked through the function */
	HOW_ADDRESS,   /* (5) the sample's address is inside a global */
	HOW_VIA,       /* (6) a string function's pointer argument, typed in its caller */
	HOW_HEAP,      /* (7) in a heap block (record --heap): the block's site */
	HOW_NHOW
};

typedef struct site_ds {
	ds_trigger trig[2];   /* [precise]: imprecise and precise samples differ */
	bool done[2];
	dref obj[2];          /* the static object; id -1: decided per sample by address */
	uint8_t how[2];
	dref obj2[2];         /* the same for the trigger's second access (mem2), if any */
	uint8_t how2[2];
	struct {
		int32_t id;
		uint32_t n;
	} seen[4];            /* objects the site's samples touched, for annotations */
	uint8_t strfn;        /* a string function of the C library: 1 + its index (dataspace.c) */
	bool args_done;       /* a call site: what its first two arguments point into */
	dref arg[2];
	int8_t call_strfn;    /* the string function it calls: 1 + index, 0 unknown, -1 another */
} site_ds;

/* How a site's data object was found, as typestats and the verdict key name it. */
const char *ds_how_name(enum ds_how h);
/* The key of align_index. */
typedef struct align_key {
	int64_t tid;
	uint64_t residue;
} align_key;
/* The tident of the aggregate t (a definition of the session's objects, or
 * of another handle on one of them), -1 when no sample met it. */
int32_t ds_tident_find(ds_session *s, const ds_type *t);
/* The data object the instruction at site si accesses, as a precise
 * sample there would name it from the code alone (a type's field, a
 * global, the stack, an unknown bucket), or NULL when it accesses no
 * memory or its object is known only per sample, by address. */
const char *ds_site_access(ds_session *s, uint32_t si);
/* The data object most samples of a site touched (NULL before
 * ds_dataspace_build or for sites it never saw), its trigger and verdict. */
const char *ds_site_dataobject(const ds_session *s, size_t si, const char **verdict,
			       const ds_trigger **trig);
/* The same, in columns of a row (-1: no such column): the data object,
 * the trigger as "function+0xOFF" when backtracking found it, the verdict
 * (table.c). */
void site_trigger_cells(const ds_session *s, ds_row *r, size_t si, size_t obj_col, size_t trig_col,
			size_t verdict_col);
/* Read the samples once more, attribute each to its data object and keep
 * its record (once per session; later calls return at once). */
int ds_dataspace_build(ds_session *s, ds_err *err);
void ds_dataspace_free(ds_session *s);
/* Sum the kept records into the data-object metrics, the types'
 * alignments, the resolution statistics and the sites' annotations, from
 * zero: after the filter changed. */
void ds_dataspace_recount(ds_session *s);
/* A type's name after its tag ("geo::Shape" of "struct geo::Shape"), as
 * C++ code names it (dataspace.c). */
const char *ds_untagged(const char *type_name);
/* A data object's kind as the views name it: "field", "global", "stack"... */
const char *ds_dobj_kind_name(enum dobj_kind k);
/* Whether a data object is <scalars>, or <scalars> a string function reached
 * (<scalars> (via memcpy)): bytes that say nothing of the memory. */
bool ds_dobj_scalars(const dobj *o);

/* The data object of record x's access at byte off of an instance of
 * tident tid (a heap block that its other samples say holds it): the
 * member there, when the access fits it (elem, the base type the access
 * was made through, is its elements' kind and size; NULL: any); for an
 * access of string function via, the type (via it); -1 when the offset is
 * in no member or the access does not fit.  A probe makes no object: 0
 * when there would be one. */
int32_t ds_dobj_in_type(ds_session *s, int32_t tid, uint64_t off, const ds_srec *x, const ds_type *elem,
			const char *via, bool probe);
/* The data object of a heap block named `name` (heap.c makes it). */
int32_t ds_dobj_heap(ds_session *s, const char *name);

/* The heap (heap.c): with heap files (record --heap), the block each
 * sample's data address fell in at its time, and per allocation site what
 * the blocks were.  A site is where the allocation was called from: the
 * innermost frame of its call stack outside the allocator and the wrappers
 * ("make_list (list.c:42)"); the stacks that share it are one site, the
 * same in every process of the program. */
typedef struct hstack {
	uint32_t pid;         /* a process it was seen in, and when (its first allocation,
			       * else the image's start): its frames' address space */
	uint32_t first, n;    /* its frames in ds_heap.frames, innermost first */
	uint32_t site;
	uint64_t time, start;
} hstack;

typedef struct hsite {
	char *name;
	uint32_t stack;       /* its first stack (the one shown), and how many it has */
	uint32_t nstacks;
	char *stack_text;     /* once asked (ds_heap_site_stack) */
	uint64_t blocks, bytes, min_size, max_size;
	uint64_t live, peak;  /* bytes live in the process being swept, and the most at once in one */
	uint64_t freed, lifetime; /* blocks ended, and their lifetimes' sum */
	uint64_t leaked, leaked_bytes; /* live at their process's exit */
	uint64_t unended, unended_bytes; /* live when a process ended without exiting (killed, exec, _exit) */
} hsite;

/* A block a sample fell in. */
typedef struct hblock {
	uint32_t site, pid;
	uint64_t addr, size, t_alloc;
} hblock;

typedef struct ds_heap {
	bool built;
	size_t files;         /* heap files read; 0: the experiment has no heap data */
	DS_VEC(hstack) stacks;
	ds_vec_u64 frames;
	ds_u64map stack_index; /* a hash of the frames and the program -> stack */
	DS_VEC(hsite) sites;
	ds_hash *site_names;  /* a site's name -> its index */
	uint32_t nosite;      /* the site of allocations recorded without their stack */
	DS_VEC(hblock) blocks;
	ds_vec_u32 rec_block; /* per record: 1 + its block, 0 none */
	bool logical;         /* times are the simulator's (instructions), not ns */
	DS_VEC(uint8_t) has_image; /* per record: 1 when its process had heap data then */
	uint64_t images, complete; /* process images, and those whose records all came (an exit or end) */
	DS_VEC(char *) wrappers; /* functions that allocate for their callers (--heap-wrappers) */
	DS_VEC(char *) notes; /* what the views of the heap say: files left out or damaged */
} ds_heap;

/* The note of a heap view of an experiment without heap files. */
#define DS_HEAP_NONE "the experiment has no heap data: it was recorded without --heap, or its programs " \
		     "could not load the heap tracker (statically linked)"

/* Match the records to the heap files' blocks (once; after the dataspace,
 * which calls it: records of scalars and unknowns in a block become the
 * block's data object). */
int ds_heap_build(ds_session *s, ds_err *err);
void ds_heap_free(ds_session *s);
/* A site's whole stack, "f (a.c:3) < g (a.c:9) < main (a.c:20)", with
 * "(+N more stacks)" when several share it. */
const char *ds_heap_site_stack(ds_session *s, uint32_t site);
/* Every stack of a site: their text, one a line. */
void ds_heap_site_stacks(ds_session *s, uint32_t site, ds_buf *out);
/* Notes on the sites that may be the program's own allocators (SQLite's
 * sqlite3MemMalloc): those whose blocks the kept samples read as five types
 * or more, with several stacks and blocks, that hold a tenth of the samples
 * in blocks, with the frames their stacks share from them, for
 * --heap-wrappers: at most max notes, the most sampled sites first, into
 * notes (malloc'd; the caller frees them).  Returns how many. */
size_t ds_heap_wrapper_notes(ds_session *s, char **notes, size_t max);
/* "heap: 8 MB block of double from main (m.c:17)": the name of a site's
 * blocks, read as elements of type elem (NULL: not said). */
void ds_heap_object_name(const ds_session *s, uint32_t site, const char *elem, ds_buf *out);
/* Whether an object (its path or name) is the dynamic loader, ld.so. */
bool ds_heap_loader(const char *module);

/* ---- type tracking (track.c) ----
 * What a register points into at an instruction: byte `off` of an object
 * of type `into` (through a pointer, or the address of variable `var`), or
 * `off` bytes from the stack or frame pointer `frame` (unoptimized code
 * computes stack addresses that way: rbp + i * 64 - 0x80008), or into the
 * virtual table of class `vtable` (its _vptr member, loaded), or `off`
 * bytes from the thread pointer (tp: a program's thread-locals are below
 * it).  vid names one value, for its copies (its maker's offset in the
 * function, plus one; 0 none): a value may have a vid and no target yet.
 * A library reaches a thread-local (tls) by a GOT slot: the address of a
 * tls_index (off: its variable's offset in the library's own TLS block),
 * or of its module's (MODULE, local-dynamic code: the block's start),
 * which __tls_get_addr turns into the thread's copy of that block, off
 * bytes into it (an access there is the variable it falls in: local-
 * dynamic code adds the variable's offset to the block's start), or a
 * number, the block's offset from the thread pointer, plus off
 * (initial-exec code). */
enum { DS_TV_TLS_INDEX = 1, DS_TV_TLS_MODULE, DS_TV_TLS_BLOCK, DS_TV_TLS_TPOFF };
typedef struct ds_tval {
	const ds_type *into;
	int64_t off;
	const ds_var *var;       /* a global variable whose address it is */
	bool stack;              /* a stack variable's address */
	int frame;               /* DWARF SP or FP when frame-relative, else 0 */
	const ds_type *vtable;
	bool tp;                 /* the thread pointer plus off (x86-64: %fs:0), no target yet */
	bool number;             /* the number off itself (lea 0xffffffffffffbff0, r: a thread-local's
				  * offset, which an %fs-relative access adds to the pointer) */
	uint8_t tls;             /* DS_TV_TLS_*: a library's thread-locals, through its GOT */
	bool tls_other;          /* ... another module's: no variable of this one */
	uint32_t vid;
	bool clash;              /* paths that join disagree: no target */
} ds_tval;
/* Variables in scope at one instruction, at most. */
#define DS_MAX_SCOPE_VARS 256
typedef struct ds_track ds_track;
typedef struct ds_flows ds_flows;
/* The state at pc of sym's function (call not NULL: pc is a return
 * address, the state is the one before the call that precedes it, whose
 * instruction goes to *call); NULL when the flow does not reach pc.  The
 * function's flow is analysed on its first query and kept in s->flows. */
ds_track *ds_track_to(ds_session *s, ds_dso *d, const ds_symbol *sym, uint64_t pc, ds_insn *call);
/* What register r points into; NULL when unknown. */
const ds_tval *ds_track_reg(const ds_track *k, int r);
/* Register r as an index: a multiple of *stride plus *add, when the
 * instruction that made its value on every path to the state's pc says so
 * (lea r, [i * s + d]; shl r, k); false otherwise. */
bool ds_track_index_form(const ds_track *k, ds_decoder *dec, int r, int64_t *stride, int64_t *add);
/* The stack variable `off` bytes from SP or FP (frame) covers, at the state's pc. */
ds_tval ds_track_stack_var(const ds_track *k, int frame, int64_t off);
/* The address a memory operand names at the state's pc (next: the address
 * after its instruction, for a RIP-relative one): a global, a stack
 * variable, a thread-local (a program's from the thread pointer, a
 * library's through its GOT: the variable, or the bare thread pointer
 * plus off, or a bare place in a library's block), or a tracked
 * register's target plus the displacement; {0} when not known. */
ds_tval ds_track_address(const ds_track *k, const ds_memop *m, uint64_t next);
/* a + b bytes from the thread pointer in d: a program's thread-local
 * variable there, or the bare thread pointer plus the offset (tp). */
ds_tval ds_thread_local_value(ds_dso *d, int64_t a, int64_t b);
void ds_track_free(ds_track *k);
void ds_flows_free(ds_flows *fl);
bool ds_is_aggregate(const ds_type *t);
/* The type t (through typedefs and qualifiers) points to; NULL when no pointer. */
const ds_type *ds_pointee(const ds_type *t);
/* Arrays to their element, and *off to the offset into one element. */
const ds_type *ds_element(const ds_type *t, uint64_t *off);

/* ---- charging samples to their triggers (charge.c) ----
 * The views of code (lines, pcs, source) show a sample at its trigger
 * when backtracking found one, else where it was taken.  A charge is the
 * site metrics moved there, built after ds_dataspace_build (and after a
 * filter changed); building it may add sites (triggers never sampled
 * themselves), so iterate sites after it, up to nsites. */
typedef struct ds_charge {
	size_t nsites;
	DS_VEC(uint64_t) samples;     /* [site * nev + ev]: charged to the site */
	DS_VEC(uint64_t) count;
	DS_VEC(uint32_t) lead;        /* per site: the site most of its charged samples whose
				       * trigger is known were taken at (itself, or one after
				       * it), else most of all; UINT32_MAX none: it labels the
				       * row's data object */
	DS_VEC(uint32_t) skid;        /* per site: the other site most of them were taken at */
	DS_VEC(uint32_t) nskid;       /* per site: how many other sites charged it */
} ds_charge;
void ds_charge_build(ds_session *s, ds_charge *c);
/* The site the samples of site si (of a precise event or not) are charged
 * to: its trigger's, or itself; after ds_dataspace_build.  It may add a
 * site. */
uint32_t ds_charged_site(ds_session *s, uint32_t si, bool precise);
bool ds_charge_has(const ds_session *s, const ds_charge *c, size_t site);
uint64_t ds_charge_total(const ds_session *s, const ds_charge *c, size_t site);
/* Add the site's charged metrics to a row. */
void ds_charge_add(const ds_session *s, const ds_charge *c, size_t site, ds_row *r);
void ds_charge_free(ds_charge *c);

/* --cross (cross.c): the other experiment's miss samples at the access
 * site si's samples (of precise events or not) are charged to; -1 when it
 * has no trigger or there is no cross. */
int64_t ds_cross_misses(ds_session *s, uint32_t si, bool precise);

/* The machine and its memory objects (machine.c). */
/* The experiment's machine (or --machine's), made on first use. */
void ds_machine_ready(ds_session *s);
/* Forget the memory objects made for the machine (it changes). */
void ds_mobjs_drop(ds_session *s);
void ds_session_mobjs_free(ds_session *s);
/* Where physical addresses come from, for the errors that miss them. */
#define NO_PADDR_HINT                                                                   \
	"physical addresses come with page-fault samples recorded as root "              \
	"('dsprof record -e page-faults'; see docs/memory-objects.md)"
/* A memory object ready to evaluate on this experiment: an error names
 * what is missing (the object, the machine's constants, physical
 * addresses). */
const ds_mobj *ds_session_mobj(ds_session *s, const char *name, ds_err *err);
/* The line size of cache level `level` ("L1D", "L2", "L3"; NULL: L1D) of
 * the session's machine.  With `fallback`, a machine that describes no
 * caches at all gets DS_DEFAULT_LINE bytes and a note that says so. */
#define DS_DEFAULT_LINE 64
int ds_session_line_size(ds_session *s, const char *level, bool fallback, unsigned *line, ds_err *err);
/* The line size a cache-line view draws: o->line, else o->level's, else
 * the L1D's. */
int ds_view_line_size(ds_session *s, const ds_view_opts *o, unsigned *line, ds_err *err);

/* ======== the session: the state of every layer ======== */

struct ds_session {
	char *path;
	char *label;                  /* the experiment's name (ds_session_label) */
	ds_perfdata *pd;
	ds_meta meta;
	ds_session_opts opts;
	size_t nev;                   /* events: the perf.data's, then the derived ones */
	size_t npev;                  /* the perf.data's */
	uint16_t *lat_ev;             /* per perf.data event: its latency event, UINT16_MAX none */
	ds_event *xev;                /* the derived events, nev - npev of them */

	DS_VEC(dso_ent) dsos;
	ds_hash *dso_index;
	DS_VEC(proc) procs;
	ds_hash *proc_index;
	size_t proc_hint;             /* the process proc_find found last */
	proc kernel;                  /* pid -1: the kernel's maps */
	bool same_machine;            /* recorded on this host and kernel: its kallsyms and vdso fit */
	bool unfinished;              /* marked by a recording that did not end (experiment/) */
	bool other_boot;              /* ... on another boot than this one, or one it does not name */

	DS_VEC(site) sites;
	ds_hash *site_index;
	ds_u64map site_map;             /* (dso, offset) -> site, when they fit a key (session.c) */
	ds_u64map site_map_wide;        /* offset -> a site of it, when they do not */
	uint64_t maps_final;            /* the time of the last mapping, exec or fork */
	struct {                        /* where a sample's registers are, for regs_mask (unwind.c) */
		uint64_t mask;
		bool set;
		int8_t at[DS_UNWIND_NREGS]; /* by DWARF number: index in the sample's, -1 none */
	} regs_memo;
	struct site_memo *site_memo;    /* ds_session_site's user sites after it (session.c) */
	struct kernel_syms *kernel_syms; /* the kernel's symbols, being read on a thread (session.c) */
	DS_VEC(uint64_t) site_samples;  /* [site * nev + ev] */
	DS_VEC(uint64_t) site_count;

	DS_VEC(thread_ent) threads;
	ds_hash *thread_index;
	DS_VEC(uint64_t) thread_samples;
	DS_VEC(uint64_t) thread_count;

	ds_hash *chain_index;         /* key: u32 site indices, leaf first */
	ds_vec_u64 chain_buf;         /* ds_session_full_chain's answer */
	ds_vec_u32 chain_sites;       /* its frames' sites, when it was unwound here */
	uint64_t chain_ends[DS_CHAIN_NENDS]; /* chains unwound from stack copies, by how they end */
	chain_memo chain_memo;
	DS_VEC(uint64_t) chain_samples;
	DS_VEC(uint64_t) chain_count;
	bool callchains;

	uint64_t *ev_samples, *ev_count;
	uint64_t nsamples, lost, lost_samples, throttled;
	uint64_t first_time, last_time;
	uint64_t load_cur;            /* where reading the samples goes on (ds_session_load) */
	bool loaded;                  /* every sample read */

	DS_VEC(char *) notes;
	ds_decoder *dec;
	struct ds_timeline *timeline; /* timeline.c, built on the first timeline view */

	/* dataspace (dataspace.c), built on the first view that needs it */
	bool ds_built;
	ds_backtracker *bt;
	struct ds_flows *flows;          /* track.c: each tracked function's flow */
	DS_VEC(dobj) dobjs;
	ds_hash *dobj_index;             /* fields and padding by (kind, tident, path), the
					  * others by name */
	DS_VEC(tident) tidents;
	ds_hash *tident_index;           /* ds_type_ident -> index in tident_head */
	DS_VEC(int32_t) tident_head;     /* the first tident of each */
	ds_u64map tident_memo;           /* ds_tident_find: ds_type address -> tident + 1 */
	DS_VEC(uint64_t) dobj_samples;   /* [dobj * nev + ev] */
	DS_VEC(uint64_t) dobj_count;
	ds_hash *align_index;            /* (tident, instance address % DS_ALIGN_MOD) -> per-event
					  * samples (align_key) */
	DS_VEC(uint64_t) align_samples;
	uint64_t how_samples[HOW_NHOW];
	uint64_t verdict_samples[DS_BT_NVERDICTS];
	uint64_t ea_from_addr, ea_from_regs, ea_regs_changed, ea_none, ea_checked, ea_disagree;
	uint64_t ea_ifetch;               /* page faults on code: ADDR is the instruction */
	uint64_t tool_samples;            /* the heap tracker's (DOBJ_TOOL) */
	DS_VEC(uint8_t) dso_tool;        /* per dso: 0 not known yet, 1 the program's, 2 the
					  * heap tracker's library, 3 libunwind (dataspace.c) */
	DS_VEC(uint8_t) chain_tool;      /* per call chain: 0 not known yet, 1 no, 2 through the
					  * heap tracker */
	uint8_t tracker_mapped;          /* 0 not known yet, 1 no, 2 the heap tracker's library is */
	DS_VEC(uint64_t) dso_mem;        /* per dso: samples whose trigger was found */
	DS_VEC(uint64_t) dso_resolved;   /* per dso: of those, resolved to a data object */

	/* per-sample records (dataspace.c) */
	DS_VEC(ds_srec) srecs;
	DS_VEC(uint64_t) srec_paddr;     /* per record, when an event samples PHYS_ADDR; 0 unknown */
	DS_VEC(uint64_t) srec_data_src;  /* per record, when an event samples DATA_SRC */
	DS_VEC(uint32_t) srec_weight;    /* per record, when an event samples WEIGHT(_STRUCT):
					  * the access's latency in cycles, 0 unknown */
	bool has_paddr;                  /* some sample has a physical address */

	/* memory objects and the filter (filter.c) */
	bool mobjs_ready;
	ds_machine machine;              /* the experiment's, or --machine's */
	ds_mobjs mobjs;                  /* predefined, the machine's, the user's, --mobj */
	DS_VEC(char *) mobj_args;        /* --mobj NAME=EXPR, in order */
	ds_expr *filter;
	char *filter_text;
	struct ds_session *partner;   /* compared with it: its names count for the filter */
	DS_VEC(char *) filter_misses; /* lenient_names: name, then its message, for each name
				       * the filter compares with that no value here goes by */
	ds_hash *cross_index;         /* --cross: an access (module, vaddr) -> index */
	ds_vec_u64 cross_misses;      /* ... the other experiment's miss samples there */
	char *cross_path;             /* that experiment */
	DS_VEC(uint64_t) keep;           /* with a filter: bit i set when it keeps record i */
	uint64_t unfiltered_samples;     /* with a filter: the samples before it */

	ds_heap heap;                    /* heap.c */

	/* charging samples to their triggers (charge.c): per site, the site
	 * its [imprecise, precise] samples are charged to; UINT32_MAX not yet */
	DS_VEC(uint32_t) site_charge;
};

/* Whether a record is a sample of its own, not a derived event's copy of
 * the one before it (ds_session_event): what counts samples, rather than an
 * event's metrics, counts these only. */
static inline bool ds_srec_own(const ds_session *s, const ds_srec *x)
{
	return x->ev < s->npev;
}

/* The sites of call chain c (an index in chain_index), leaf first; *n
 * how many. */
static inline const uint32_t *ds_chain_sites(const ds_session *s, size_t c, size_t *n)
{
	const uint32_t *key = ds_hash_key(s->chain_index, c, n);
	*n /= sizeof *key;
	return key;
}

/* ======== layer 3: records (records.c) ======== */

/* Whether record i is one the filter keeps (all, without a filter). */
static inline bool ds_srec_kept(const ds_session *s, size_t i)
{
	return !s->keep.n || (s->keep.v[i / 64] >> (i % 64) & 1);
}

/* Call fn for every record the filter keeps (every record without a
 * filter), in sample order; builds the dataspace first. */
typedef void ds_srec_fn(ds_session *s, size_t i, const ds_srec *r, void *ctx);
int ds_srec_visit(ds_session *s, ds_srec_fn *fn, void *ctx, ds_err *err);
/* Sum the samples the filter keeps into the site, thread, call-chain and
 * event metrics, from zero: after the filter changed. */
void ds_session_recount(ds_session *s);
/* Record i's physical address; 0 when unknown. */
uint64_t ds_srec_paddr(const ds_session *s, size_t i);
/* Record i's data source (PERF_MEM_*: level, snoop, HITM); false when its
 * event samples none. */
bool ds_srec_data_src(const ds_session *s, size_t i, uint64_t *src);
/* Record i's latency (WEIGHT: cycles); false when its event samples none. */
bool ds_srec_weight(const ds_session *s, size_t i, uint64_t *w);
/* The bytes its trigger accesses; 0 when unknown. */
uint32_t ds_srec_size(const ds_session *s, const ds_srec *r);
/* The operands memory objects and filters read (a->v; a->op is the
 * filter's business), -1 for what the sample lacks. */
void ds_srec_operands(const ds_session *s, size_t i, ds_access *a);

/* ======== layer 4: tables (table.c) ======== */

/* Lists of thread or CPU ids in a cell name at most this many ("12 14
 * +3"): hotlines makes them, diff unites them. */
#define DS_IDS_LISTED 8

typedef struct tb {
	ds_table *t;
	ds_hash *rows; /* row key -> row index */
	DS_VEC(ds_row) v;
} tb;

void tb_init(tb *b, ds_session *s, const char *view, const char *name_label, const ds_col *cols,
	     size_t ncols, bool inclusive);
/* Make the table own its column names and name label (a view's that it
 * made for itself): copies in one allocation with t->cols. */
void tb_own_names(ds_table *t);
/* A grouping's table (ds_table.flat) as a table of its combinations of
 * keys: its deepest rows, each named by its path ("walk > struct
 * node.next") and with the cells of the rows above it. */
ds_table *tb_flatten(const ds_table *t);
/* The row for key, created with `name` when new; returns its index. */
size_t tb_row(tb *b, const void *key, size_t keylen, const char *name, bool *added);
/* A new row without a key, for views that find their rows themselves
 * (tb_row's byte-key table costs too much per sample on large
 * experiments); its index. */
size_t tb_row_new(tb *b, const char *name);
/* Put the events `first` accepts before the others, each group in its
 * order: a view shows first, and sorts by, the events that matter to it.
 * After the rows are filled, before tb_finish. */
void tb_events_first(tb *b, bool (*first)(const char *event));
/* Whether an event counts coherence misses: loads served from another
 * core's modified copy (HITM: sim:HITM, perf c2c's). */
bool ds_event_coherence(const char *event);
void tb_cell_str(ds_row *r, size_t col, const char *s);
void tb_cell_u64(ds_row *r, size_t col, uint64_t v);
/* Free a row's contents (for views that drop rows after tb_finish). */
void tb_row_free(ds_row *r, size_t ncols);
/* A --sort key read against a table's events and columns. */
enum sort_what { SORT_SAMPLES, SORT_COUNT, SORT_INCL, SORT_INCL_COUNT, SORT_NAME, SORT_COL };
typedef struct sort_spec {
	enum sort_what what;
	size_t ev;
	size_t col;
	const ds_table *t;
} sort_spec;
/* Parse `spec` (NULL: the first event's samples); an unknown key is the error. */
int tb_parse_sort(const ds_table *t, const char *spec, sort_spec *out, ds_err *err);
/* The metric a SORT_SAMPLES..SORT_INCL_COUNT key reads, of per-event metrics
 * (the inclusive ones may be NULL: 0). */
uint64_t tb_sort_metric(const sort_spec *sp, const uint64_t *samples, const uint64_t *count,
			const uint64_t *incl_samples, const uint64_t *incl_count);
/* Sort (by o->sort) and cut (o->limit); hands the table out. */
int tb_finish(tb *b, const ds_view_opts *o, ds_table **out, ds_err *err);
/* Sort rows[0..n) (rows of t's shape) as tb_finish sorts by `sort`: for
 * views that sort parts of a table apart; an unknown key is the error. */
int tb_sort_rows(const ds_table *t, const char *sort, ds_row *rows, size_t n, ds_err *err);
/* Hand the table out as it was built: the view sorted and cut it. */
ds_table *tb_take(tb *b);
/* Keep the first `limit` rows (0: all); total_rows stays. */
void tb_cut(ds_table *t, size_t limit);
/* Drop a table being built (on an error). */
void tb_discard(tb *b);
/* Cells of one column in --sort order: unset last, else ascending. */
int tb_cmp_cells(const ds_col *c, const ds_cell *a, const ds_cell *b);
/* Ties of a sort: by name, then column by column (a stable, readable order). */
int tb_cmp_ties(const ds_table *t, const ds_row *a, const ds_row *b);
/* A copy of an event's counts per run (ds_table_event.run_count), or NULL. */
uint64_t *ds_run_counts(const ds_table_event *e);
void tb_prop(ds_table *t, const char *key, enum ds_prop_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The properties that say which lines a cache-line view draws: the level,
 * the size, where the size came from. */
void ds_line_props(ds_session *s, ds_table *t, const ds_view_opts *o, unsigned line);
/* The objects' problems with their debug information, which dwarfmap/
 * meets lazily (types and variables are read on the first query, long
 * after the object was opened): each becomes a session note and, when t is
 * given, a note of that view, once. */
void ds_session_debug_notes(ds_session *s, ds_table *t);

/* ======== layer 5: dimensions (dims.c) ======== */

/* The level a data source says served the access (memlevel's values:
 * "L1", "local DRAM", "L3 miss"...), NULL when it says none (dims.c). */
const char *ds_mem_level(uint64_t src);

/* A dimension is one way to tell samples apart: the function, the thread,
 * the field, the cache line...  Its definition (a dim_def, one each in
 * dims.c) says once how a record's value is found, named, put in columns
 * and compared by a filter.  A `dim` is a definition prepared for one
 * session (and the view's options: the line size of `cacheline`, the
 * slices of `time`): it numbers the values it meets 0, 1, ... in the order
 * met, so that groupings count by dense integer ids, and keeps what it
 * looked up per instruction or data object, so that a record's value
 * costs a table lookup. */
enum {
	DIM_DATA = 1 << 0,    /* needs the samples attributed to data (ds_dataspace_build) */
	DIM_MEMORY = 1 << 1,  /* about memory: samples in code that accesses none (<no memory
			       * access>) are left out of its groupings, as the data views do */
	DIM_CHAIN = 1 << 2,   /* has a value at every frame of a call chain: inclusive metrics */
	DIM_NUMBER = 1 << 3,  /* filters compare its values as numbers */
};

typedef struct dim dim;
typedef struct dim_def {
	const char *name;     /* "function"; "mobj:NAME" stands for every memory object */
	const char *help;     /* one line for --by help */
	const char *synonym;  /* the filter's capital name (FUNC, DOBJ, FIELD), or NULL */
	unsigned flags;       /* DIM_* */
	const ds_col *cols;   /* cols[0] holds the value (its key column), then others */
	size_t ncols;
	/* NULL or: what it needs of the session and the options */
	int (*prepare)(dim *d, const ds_view_opts *o, ds_err *err);
	/* the value of record i (r): its id */
	uint32_t (*id)(dim *d, size_t i, const ds_srec *r);
	/* NULL (the id's name was given when the id was made) or: its name */
	void (*value_name)(dim *d, uint32_t id, ds_buf *out);
	/* DIM_NUMBER: the value's number; false when it has none (unknown) */
	bool (*number)(dim *d, uint32_t id, int64_t *v);
	/* the cells of cols, from column c of a row */
	void (*cells)(dim *d, uint32_t id, ds_row *r, size_t c);
	/* NULL (a string compares with the name) or: the ids of the filter's
	 * strings the value goes by, its name's and another's (-1: none) */
	void (*filter)(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias);
	/* NULL or: the facts a table grouped by it states (the line size) */
	void (*props)(dim *d, ds_table *t);
	/* DIM_CHAIN: the value of a frame (a site) of a call chain */
	uint32_t (*site_id)(dim *d, uint32_t site);
	/* NULL (the value's number) or: the number a filter compares for a record */
	bool (*record)(dim *d, const ds_srec *r, int64_t *v);
	/* NULL or: make an id for every value there is, sampled or not (a
	 * grouping with every_value shows them all) */
	void (*values)(dim *d);
} dim_def;

struct dim {
	const dim_def *def;
	ds_session *s;
	char *label;          /* its name: "function", "mobj:L1D_set" */
	ds_col *cols;         /* the definition's, as this instance fills them */
	ds_vec_u64 raw;       /* per id: what the value is (the definition's business) */
	DS_VEC(char *) names; /* per id: its name, NULL until asked */
	ds_u64map index;      /* raw value -> id, for values that are numbers */
	ds_hash *strings;     /* key -> id, for values that are names */
	ds_hash *paths;       /* callpath: a chain's frames' name strings (their addresses)... */
	ds_vec_u32 path_ids;  /* ... -> the id of the path they fold into */
	ds_vec_u32 memo;      /* per site or data object: its id, UINT32_MAX not yet */
	ds_u64map chain_at;   /* call chain -> its ids in chain_pool */
	ds_vec_u32 chain_pool; /* per chain met: a count, then the distinct ids, leaf first */
	uint64_t unit;        /* cacheline, page: the size */
	ds_view_opts line_opts; /* cacheline: the options its size came from */
	const ds_mobj *mobj;  /* mobj:NAME */
	uint64_t t0, span, slices; /* time: the first sample, the run's length, slices */
	bool logical;         /* time: the clock counts accesses (the simulator) */
};

/* Dimension `name` ("function", "FUNC", "mobj:L1D_set") prepared for s
 * and the view's options; NULL with err when there is none.  Builds what
 * it needs (the dataspace). */
dim *dim_new(ds_session *s, const char *name, const ds_view_opts *o, ds_err *err);
void dim_free(dim *d);
static inline uint32_t dim_id(dim *d, size_t i, const ds_srec *r)
{
	return d->def->id(d, i, r);
}
const char *dim_value_name(dim *d, uint32_t id);
bool dim_value_number(dim *d, uint32_t id, int64_t *v);
/* DIM_CHAIN: the distinct ids of a call chain's frames, leaf first (a
 * recursion once); valid until the next call. */
const uint32_t *dim_chain_ids(dim *d, uint32_t chain, size_t *n);
/* The ids of the filter's strings value id goes by (its name, and another
 * name: a type's without where it is declared, C++ last scopes). */
void dim_filter_ids(dim *d, uint32_t id, const ds_expr *f, int32_t *str, int32_t *alias);
/* DIM_NUMBER: the number a filter compares for record i; false: unknown. */
bool dim_record_number(dim *d, size_t i, const ds_srec *r, int64_t *v);
/* The facts a table grouped by d states. */
void dim_props(dim *d, ds_table *t);
/* The dimensions as a filter's operands (all but mobj:NAME, which MOBJ()
 * reads), in the order of ds_dim_name; how many. */
size_t ds_dim_filter_operands(ds_filter_operand *ops, size_t max);
/* The keys there are, as a list for messages ("function, module, ..."). */
void ds_dim_list(ds_buf *b);
/* The heap's notes (files left out or damaged) as notes of table t. */
void ds_heap_notes(const ds_session *s, ds_table *t);

/* ======== layer 6: groupings (memtime.c group.c filter.c views.c dsviews.c memviews.c sharing.c callviews.c timeline.c layout.c heapviews.c suggest.c) ======== */

/* ---- memory time per row (memtime.c) ----
 * For each event that counts memory cycles (latency:E, sim:MEM_CYCLES),
 * two columns a view adds: avg_latency:NAME, the cycles of an access of
 * the row, and latency_from:NAME, the share of the row's cycles each level
 * served ("71% local DRAM; 20% L3"). */
typedef struct memtime memtime;
/* NULL when no event of the session counts memory cycles. */
memtime *mt_new(const ds_session *s);
void mt_free(memtime *m);
/* A view's table builder with ncols columns of its own and memory
 * time's after them (the table's own: own_cols), which the table keeps
 * the names of; the memtime, or NULL when no event counts memory cycles. */
memtime *mt_tb_init(tb *b, ds_session *s, const char *view, const char *label, const ds_col *cols,
		    size_t ncols);
/* The columns (mt_ncols of them: 0 for NULL); their names live with m. */
size_t mt_ncols(const memtime *m);
void mt_cols(const memtime *m, ds_col *cols);
/* Whether records of event ev count (for a view that looks rows up). */
bool mt_wants(const memtime *m, size_t ev);
/* Record rec counts for row (any index the view gives its rows). */
void mt_add(memtime *m, size_t row, size_t rec);
/* Row `from`'s records count for row too (a line's row sums its accesses'). */
void mt_sum(memtime *m, size_t row, size_t from);
/* Row's cells, from column first on. */
void mt_cells(const memtime *m, size_t row, ds_row *out, size_t first);

/* The records the filter keeps, grouped by dimensions keys[0..n): a row
 * per value of the first, nested under each the rows of the second, and so
 * on; per row each event's samples and count, and inclusive ones when a
 * key has values along call chains and the samples have chains.  Rows at
 * each level are sorted by o->sort and cut at o->limit.  The table's
 * columns are each key's; `view` and `label` name it. */
typedef struct group_opts {
	const char *view;     /* the table's view name */
	const char *label;    /* what a row's name is; NULL: the keys joined by " > " */
	bool no_value_columns; /* leave out each key's value column (cols[0]): the row's name
			       * says it; its other columns stay */
	bool every_value;     /* one key, no filter: a row for each of its values, sampled or not */
} group_opts;
int ds_group(ds_session *s, const char *const *keys, size_t n, const group_opts *g,
	     const ds_view_opts *o, ds_table **out, ds_err *err);
/* The notes of a view of memory: how many samples it left out (in code
 * that accesses none), and what a timer's samples are charged to. */
void ds_say_nomem(ds_table *t, uint64_t n, uint64_t tool);
void ds_say_timer(ds_table *t);
/* A "by:KEY,KEY" view: ds_group by the keys. */
int ds_view_by(ds_session *s, const char *keys, const ds_view_opts *o, ds_table **out, ds_err *err);

/* The views of the heap (heapviews.c): allocation sites, leaks, and the
 * bytes of small blocks their samples touched. */
int ds_view_heap(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_leaks(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_accessmap(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);

/* The filter's state (filter.c). */
void ds_filter_free(ds_session *s);

/* The views of the dataspace (dsviews.c). */
int ds_view_dataobjects(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_typestats(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_datalayout(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_lineuse(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
/* The line size of the L1 data cache the experiment measured or
 * simulated; 64 when it says nothing. */
unsigned ds_l1d_line(const ds_session *s);
/* Where instances of type tid start relative to a line of `line` bytes, as
 * its samples (of every event) saw them: the most common start, the
 * samples there and in all, and the starts seen.  False without samples. */
bool ds_usual_start(const ds_session *s, int32_t tid, unsigned line, uint64_t *start, uint64_t *best,
		    uint64_t *total, size_t *distinct);

/* Views over the records: memobj:NAME and hotlines (memviews.c). */
int ds_view_memobj(ds_session *s, const char *name, const ds_view_opts *o, ds_table **out,
		   ds_err *err);
int ds_view_hotlines(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
/* What the cache-line views (hotlines, sharing) share (memviews.c): the
 * line and the bytes lo..hi of it a record's access covers (one that runs
 * into the next line ends at this one's end), and the table as a tree of
 * top rows (kind `top` in column kind_col), each followed by its sub-rows
 * of the same line_col, kind by kind in the order of `subs`, at most
 * caps[k] of each, and then cut at `limit` top rows. */
void ds_srec_line_span(const ds_session *s, const ds_srec *x, uint64_t line_size, uint64_t *line,
		       uint32_t *lo, uint32_t *hi);
void ds_group_lines(ds_table *t, size_t line_col, size_t kind_col, const char *top,
		    const char *const *subs, const size_t *caps, size_t nsubs, size_t limit);
/* The false-sharing view (sharing.c). */
int ds_view_sharing(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);

/* Views around a function and over time (callviews.c, timeline.c). */
int ds_view_callers(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_calltree(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_bottomup(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_annotate(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_source(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
int ds_view_timeline(ds_session *s, const ds_view_opts *o, ds_table **out, ds_err *err);
void ds_timeline_free(ds_session *s);

/* ======== layer 7: experiments (diff.c finish.c merge.c) ======== */

#endif
