/*
 * analyze/: turns an experiment's sample stream into views.
 *
 * A session opens an experiment, rebuilds the processes' address spaces
 * from its MMAP/COMM/FORK records, and aggregates samples by unique
 * instruction: each unique (object, address) is resolved once (function,
 * line, disassembly), so the cost of a report grows with the number of
 * distinct instructions, not with the number of samples.
 *
 * A view is a table: rows, each with a name, view-specific key columns and
 * per-event metrics (samples, and count = the sum of the samples' periods,
 * exclusive and, where callchains allow, inclusive).  The command line
 * renders tables as text, CSV or JSON; the TUI shows the same tables.
 */
#ifndef DSPROF_ANALYZE_H
#define DSPROF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "experiment/experiment.h"

typedef struct ds_session ds_session;

typedef struct ds_session_opts {
	const char *debug_root;   /* NULL: /usr/lib/debug */
	const char *kallsyms;     /* NULL: /proc/kallsyms when recorded on this kernel */
	const char *heap_wrappers; /* functions that allocate for their callers: NAME or PREFIX*,
				   * comma-separated (allocation sites are their callers) */
	const uint32_t *tids;     /* only these threads (NULL: all) */
	size_t ntids;
	bool progress;            /* progress lines on a terminal */
	bool deferred;            /* read no samples yet: ds_session_load reads them */
	bool lazy_kernel;         /* read the kernel's symbols only when a view asks for them,
				   * never ahead on a second thread (the recorder's rewrite,
				   * which asks for none, in the memory of a small one) */
	const char *label;        /* the experiment's name among others (dimension
				   * `experiment`); NULL: its directory's name */
	bool lenient_names;       /* one of several experiments reported as one: a filter's
				   * names this one lacks are no error here (another may have
				   * them), but kept: ds_session_filter_miss */
} ds_session_opts;

/* Open DIR (or a perf.data file) and read its samples.  Errors name the
 * file and say what to do; a session's problems with symbols are notes. */
int ds_session_open(const char *path, const ds_session_opts *o, ds_session **out, ds_err *err);
void ds_session_close(ds_session *s);
/* ---- call chains unwound from stack copies (analyze/unwind.c) ----
 * Why a chain unwound through the call-frame information ends. */
enum ds_chain_end {
	DS_CHAIN_OUTERMOST,   /* the thread's first frame: a complete chain */
	DS_CHAIN_STACK_END,   /* a frame's data lies beyond the copy */
	DS_CHAIN_NO_CFI,      /* no CFI for the address and no usable frame pointer */
	DS_CHAIN_BAD_CFI,     /* CFI that cannot be evaluated there */
	DS_CHAIN_BAD_RA,      /* a return address in no object */
	DS_CHAIN_NO_PROGRESS, /* a caller's frame not above its callee's */
	DS_CHAIN_DEPTH,       /* 127 frames */
	DS_CHAIN_NO_REGS,     /* the sample has no stack or instruction pointer */
	DS_CHAIN_NENDS
};
/* "stack copy exhausted" */
const char *ds_chain_end_name(int end);

/* ---- finishing a recording ----
 * Run once on an experiment just recorded, on its machine, while the files
 * it sampled are still those that ran (analyze/finish.c).  Call chains get
 * what the kernel's walk could not give from the user stack copy each
 * sample carries: the caller that a user-space function without a frame
 * hid from the frame-pointer walk, or (--call-graph dwarf) every user
 * frame, unwound through the call-frame information.  The copies are then
 * dropped, so that perf reads the chains as it reads those of its own -g;
 * the header gets HEADER_BUILD_ID, the build-id of every object a sample
 * or a call chain falls in.  DIR/perf.data is rewritten beside itself (in
 * out, DIR open for writing) and renamed over it; after a failure it is as
 * it was. */
typedef struct ds_finish_result {
	uint64_t bytes;            /* data bytes after */
	uint64_t chains_completed; /* samples whose chain got a caller back */
	uint64_t unwound[DS_CHAIN_NENDS]; /* chains unwound from a whole copy, by how they end */
	size_t nbuild_ids;
	DS_VEC(char *) notes;      /* objects whose build-id cannot be known, and why */
} ds_finish_result;
int ds_experiment_finish(const char *dir, ds_wdir *out, ds_finish_result *res, ds_err *err);
void ds_finish_result_fini(ds_finish_result *r);

/* The experiment's meta data (from meta.json, or made from the perf.data
 * header for imported recordings). */
const ds_meta *ds_session_meta(const ds_session *s);
/* The experiment's name: ds_session_opts.label, else its directory's. */
const char *ds_session_label(const ds_session *s);
/* Things the user should know (missing files, changed binaries...). */
size_t ds_session_nnotes(const ds_session *s);
const char *ds_session_note(const ds_session *s, size_t i);

/* ---- tables ---- */

enum ds_col_kind {
	DS_COL_STR, DS_COL_U64, DS_COL_HEX, DS_COL_PERCENT,
	/* diffs (ds_diff): a signed difference of counts, or of nanoseconds
	 * (time events), held in ds_cell.u as an int64_t; a relative change
	 * in percent, signed, in ds_cell.d */
	DS_COL_DELTA, DS_COL_DELTA_NS, DS_COL_CHANGE,
	/* a U64 of bytes, of ns: text tables and the TUI show them so ("14.6 MB",
	 * "3.2ms"), CSV and JSON the number */
	DS_COL_BYTES, DS_COL_NS
};

/* How a diff makes one cell of rows it treats as one (a field on two
 * cache lines): the first (hottest) row's, the sum, the union of
 * space-separated ids ("12 14 +3"), or the number of ids in that union
 * (the column after this one). */
enum ds_col_combine { DS_COMBINE_FIRST, DS_COMBINE_SUM, DS_COMBINE_UNION, DS_COMBINE_UNION_COUNT };

typedef struct ds_col {
	const char *name;     /* "module", "file", "line", "address", ... */
	enum ds_col_kind kind;
	bool text;            /* shown in text tables (CSV and JSON show every column) */
} ds_col;

typedef struct ds_cell {
	char *s;              /* DS_COL_STR; NULL = empty */
	uint64_t u;           /* DS_COL_U64, DS_COL_HEX, DS_COL_BYTES, DS_COL_NS */
	double d;             /* DS_COL_PERCENT: 0..100 */
	bool set;
} ds_cell;

typedef struct ds_row {
	char *name;
	ds_cell *cells;       /* one per table column */
	uint64_t *samples;    /* per event */
	uint64_t *count;      /* per event: sum of periods */
	uint64_t *incl_samples; /* per event, when the table is inclusive */
	uint64_t *incl_count;
	bool note;            /* annotates the rows around it (a cache-line boundary, an
			       * alignment remark): text shows it without metrics, CSV and
			       * JSON with empty (null) metrics */
	bool text_only;       /* a note whose text is also a cell of the row it annotates
			       * (a sharing line's evidence and fix): CSV and JSON leave it out */
	uint64_t *runs;       /* a merge of experiments (ds_table.nruns): per event ev, the
			       * count in each experiment that recorded it, in the order
			       * merged: runs[ev * nruns + k], k < events[ev].runs; else NULL */
	unsigned depth;       /* in a tree (ds_table.tree), its level under the nearest row
			       * before it one level up, its parent: text indents its name two
			       * spaces a level; CSV and JSON give the parent's name */
} ds_row;

typedef struct ds_table_event {
	char *name;
	uint64_t period;      /* 0 in frequency mode */
	uint64_t freq;
	bool precise;
	bool time_ns;         /* counts nanoseconds (cpu-clock, task-clock) */
	bool derived;         /* latency:NAME: NAME's samples again, counting their weights
			       * (memory cycles), not accesses */
	uint64_t samples;     /* totals over the whole view (all rows, before --limit) */
	uint64_t count;
	size_t runs;          /* a merge (ds_table.nruns): the experiments that recorded it,
			       * whose counts each row keeps in ds_row.runs */
	uint64_t *run_count;  /* a merge: its count in each of them; else NULL (owned) */
} ds_table_event;

enum ds_prop_kind { DS_PROP_TEXT, DS_PROP_NUMBER, DS_PROP_BOOL };

typedef struct ds_prop {
	char *key;
	char *value;          /* as text; DS_PROP_BOOL: "yes" or "no" */
	enum ds_prop_kind kind; /* how JSON writes it */
} ds_prop;

/* The order of a table's rows, as a merge of experiments keeps it. */
enum ds_order {
	DS_ORDER_SORT,        /* every level by --sort (sort_default when none is given) */
	DS_ORDER_KIDS,        /* top rows by --sort, the rows under each in the view's order
			       * (a type's members by offset) */
	DS_ORDER_VIEW,        /* every row in the view's order (a source file's lines) */
};

typedef struct ds_table {
	char *view;
	const char *name_label; /* what a row's name is: "function", "line", ... */
	ds_table_event *events;
	size_t nevents;
	ds_col *cols;
	size_t ncols;
	bool inclusive;
	bool has_metrics;     /* false for the samples view: one row per sample */
	bool tree;            /* rows nest (ds_row.depth): CSV and JSON add `parent` */
	bool flat;            /* rows nest for people, one level per key of a grouping (--by),
			       * each with the cells of its level; CSV and JSON list only the
			       * deepest rows, a row per combination of keys, each with the
			       * cells of the rows above it too */
	size_t own_cols;      /* the last own_cols columns are a row's own values (memory
			       * time), as metrics are: a flat row does not take them from
			       * the rows above */
	ds_row *rows;
	size_t nrows;
	size_t total_rows;    /* before --limit */
	ds_prop *props;       /* summary: facts about the experiment */
	size_t nprops;
	const char *diff_key; /* how ds_diff matches rows across experiments: NULL by
			       * name, else these columns (comma-separated), their
			       * values joined by '.' ("type,field": "struct node.next") */
	const char *diff_rows; /* which rows ds_diff compares: NULL all, else the values of
			       * the column kind they have (comma-separated): rows named
			       * by an address (a cache line) or a thread id match nothing
			       * in another run */
	const uint8_t *diff_combine; /* per column, enum ds_col_combine: how ds_diff makes
				      * the cell of rows it matches as one; NULL: the first */
	enum ds_order order;  /* how a merge orders the rows it unites */
	const char *sort_default; /* the --sort the view uses when none is given; NULL: the
				   * first event's samples */
	size_t nruns;         /* experiments merged (ds_merger), each row's runs; 0: one */
} ds_table;

typedef struct ds_view_opts {
	const char *sort;     /* NULL: first event's samples; see ds_view_help_sort */
	size_t limit;         /* 0: all rows (datalayout: all hot types) */
	const char *type;     /* datalayout: only this type ("struct node" or "node") */
	unsigned line;        /* datalayout, hotlines, sharing: line size; 0 = the measured one(s) */
	const char *function; /* callers, source: the function ("NAME" or "NAME@MODULE") */
	const char *file;     /* source: this file (a path or its last components) */
	unsigned slices;      /* timeline: time slices per thread (0: 100) */
	uint64_t from_ns, to_ns; /* timeline: the window, in ns after the first sample
				  * (to_ns 0: to the last sample) */
	const char *level;    /* hotlines, sharing: whose lines, "L1D" (NULL), "L2" or "L3" */
	const char *allocsite; /* accessmap: only this allocation site (its name, or its function's) */
} ds_view_opts;

/* Views: functions, lines, pcs, threads, summary, samples, dataobjects,
 * datalayout, typestats, hotlines, sharing, memobj:NAME (any memory object of
 * ds_session_mobjs), by:KEY[,KEY...] (the samples grouped by those keys,
 * ds_dim_name's: a tree, a level per key), and those below.  Every view covers the samples the
 * filter keeps (ds_session_set_filter). */
int ds_view_build(ds_session *s, const char *view, const ds_view_opts *o, ds_table **out,
		  ds_err *err);
void ds_table_free(ds_table *t);
/* Each row's parent in a tree (ds_table.tree, ds_table.flat): the index of
 * the nearest row before it one level up, SIZE_MAX at the top; malloc'd,
 * one per row. */
size_t *ds_table_parents(const ds_table *t);
/* The keys a view can group by (dsprof report --by): the i-th key's name
 * ("function", "mobj:NAME") and its line of help; NULL past the last. */
const char *ds_dim_name(size_t i);
const char *ds_dim_help(size_t i);
/* NULL-terminated list of view names. */
const char *const *ds_view_names(void);
/* One line describing the --sort keys. */
const char *ds_view_help_sort(void);
/* ---- metric columns (--metrics) ----
 * Which of a table's per-event metrics are shown: each event's share of
 * its total (percent), samples and count, and their inclusive ones.
 * show[ev * DS_M_N + m] says whether event ev's metric m is shown.
 * spec is a comma-separated list of
 *   all              every event's every column
 *   COLUMN           that column of every event shown: percent, samples,
 *                    count, incl (incl_percent, incl_samples and
 *                    incl_count), or one of those three
 *   EVENT            show this event (then only the events named are),
 *                    with the columns listed, or all of its own
 *   EVENT:COLUMN     that column of that event
 * An event of a diff goes by its name without "before:" and "after:" too
 * (both sides).  spec NULL is the default for people: the first event's
 * columns (a diff's: both sides of it), the others' percent only.
 * Inclusive columns are only shown where the table has them.  Errors name
 * the item that is no column or event of the table. */
enum ds_metric { DS_M_PERCENT, DS_M_SAMPLES, DS_M_COUNT, DS_M_INCL_PERCENT, DS_M_INCL_SAMPLES,
		 DS_M_INCL_COUNT, DS_M_N };
int ds_metrics_select(const ds_table *t, const char *spec, bool *show, ds_err *err);
/* The metric's column name: "percent", "samples", ... */
const char *ds_metric_name(enum ds_metric m);
/* A count as tables show it to people: 987, 12.3k, 4.56M, 1.23G; with ns,
 * nanoseconds as seconds (clock events).  Always NUL-terminated. */
void ds_count_text(char *out, size_t n, uint64_t v, bool ns);
/* A cell as text for people (text: percentages with one decimal, a diff's
 * deltas shortened like counts and signed) or for CSV and JSON (two
 * decimals, no sign, integers whole), into out.  Unset cells are "".
 * Returns the whole text: out, or a string cell's own string, which out
 * holds only as much of as fits (a call stack may not). */
const char *ds_cell_text(char *out, size_t n, const ds_col *c, const ds_cell *v, bool text);

/* ---- memory objects and filters (docs/memory-objects.md) ----
 * Memory objects are evaluated for the machine the experiment was recorded
 * on (its meta.json) or a machine model; they are the predefined ones of
 * that machine, the machine's own, the user's file (ds_mobj_user_path)
 * and those added here.  A filter keeps the samples an expression of the
 * same language accepts (FUNC, DOBJ, FIELD, MOBJ(name), VADDR, PADDR,
 * THRID, CPUID, VIRTPC, TSTAMP); every view built after it is set covers
 * those samples only, and every table then has the property `filter`.
 * Setting a filter attributes the samples to data first (it needs their
 * addresses and objects) and reads a deferred session to its end. */
struct ds_mobjs;
/* Evaluate memory objects for the machine model FILE instead. */
int ds_session_set_machine(ds_session *s, const char *model, ds_err *err);
/* Define a memory object for this session: "NAME=EXPR" (--mobj). */
int ds_session_add_mobj(ds_session *s, const char *arg, ds_err *err);
/* The session's memory objects; errors name a broken user file. */
const struct ds_mobjs *ds_session_mobjs(ds_session *s, ds_err *err);
/* Keep only the samples FILTER accepts; NULL or "" keeps every sample
 * again.  Errors point at the column ("filter: expected ')' at column 9");
 * on error the previous filter stays. */
int ds_session_set_filter(ds_session *s, const char *filter, ds_err *err);
/* With lenient_names: the i-th name the filter compares with that no
 * value of s goes by, in *name, and the error it would have been (naming
 * the nearest names there are); NULL past the last. */
const char *ds_session_filter_miss(const ds_session *s, size_t i, const char **name);
/* The filter in force (NULL: none). */
const char *ds_session_filter(const ds_session *s);
/* Cross-check the data views with experiment x, a recording of the same
 * program whose events count misses (--sim): dataobjects says, per row,
 * which share of the samples with a trigger sit at accesses that never
 * missed in x.  x may be closed after. */
int ds_session_set_cross(ds_session *s, ds_session *x, ds_err *err);
/* Sessions compared side by side: a name the filter compares FUNC, DOBJ or
 * FIELD with may be either's (a function the fix inlined away is still a
 * name to filter by); a name neither has is an error.  other outlives s
 * or is unpaired first (NULL). */
void ds_session_pair(ds_session *s, ds_session *other);

/* ---- data-object metrics, for printers of types (dsprof layout) ----
 * The first call attributes the samples to data (once per session). */
struct ds_type;
size_t ds_session_nevents(const ds_session *s);
const char *ds_session_event_name(const ds_session *s, size_t ev);
/* The aggregate types whose members were sampled, hottest first (samples
 * of every event): *out is malloc'd, the types belong to the session. */
int ds_session_hot_types(ds_session *s, const struct ds_type ***out, size_t *n, ds_err *err);
/* Per-event samples and counts (ds_session_nevents slots each) of the
 * accesses to member `path` of t or to anything nested in it; "" or NULL
 * is the whole type.  t may come from another handle on the binary: types
 * match by kind, name, size and members. */
int ds_session_member_metrics(ds_session *s, const struct ds_type *t, const char *path, uint64_t *samples,
			      uint64_t *count, ds_err *err);

/* ---- static layout ----
 * The layout of a struct, union or class as pahole prints it: one row per
 * line of pahole's text (members in offset order, anonymous structs and
 * unions expanded in place, holes, bit holes, cache-line boundaries,
 * pahole's other comments and its summary), plus rows without text for
 * what pahole only counts (tail padding).  Member rows carry the member,
 * its offset, size and path, so a view can put metrics beside them. */

struct ds_member;

enum ds_lrow_kind {
	DS_LROW_BEGIN,      /* "struct node {" */
	DS_LROW_MEMBER,     /* a member, or a base class */
	DS_LROW_OPEN,       /* "struct {" or "union {": an anonymous member's type, expanded */
	DS_LROW_CLOSE,      /* "} name;" closing it, with the member's offset and size */
	DS_LROW_HOLE,       /* "XXX N bytes hole": bytes before the next member */
	DS_LROW_BIT_HOLE,   /* "XXX N bits hole" */
	DS_LROW_PADDING,    /* tail padding of the type or of an expanded struct: no text
			     * (pahole counts it in the summary, or in a remark) */
	DS_LROW_CACHELINE,  /* "--- cacheline N boundary (B bytes) ---" */
	DS_LROW_COMMENT,    /* pahole's other remarks (bit fields combined, padding of a member struct) */
	DS_LROW_BLANK,      /* an empty line */
	DS_LROW_SUMMARY,    /* "size: S, cachelines: C, members: M" and the lines after it */
	DS_LROW_END,        /* "};" */
};

typedef struct ds_layout_row {
	enum ds_lrow_kind kind;
	char *text;         /* the line, tabs included, no newline; NULL for PADDING */
	unsigned depth;     /* 0 for the type's own members, +1 in each expanded member */
	const struct ds_member *member; /* MEMBER, OPEN, CLOSE */
	const char *path;   /* MEMBER, OPEN, CLOSE: "a.b.c", "cells[].x"; NULL behind a
			     * pointer and for members without a name (an anonymous
			     * struct or union, a bit-field filler, a base class) */
	bool pointee;       /* a member of an anonymous struct a pointer member points to:
			     * pahole prints it in place, its offset is in that struct */
	uint64_t offset;    /* bytes from the start of the type; a bit field's is its
			     * storage unit's, as pahole shows it; CACHELINE: the boundary */
	uint64_t size;      /* bytes: member (its storage unit for bit fields), hole, padding */
	uint32_t bit_offset; /* bit fields and bit holes: bits from `offset` */
	uint32_t bit_size;  /* bit fields: width; BIT_HOLE: bits of the hole */
	uint64_t line;      /* CACHELINE: the line's number */
} ds_layout_row;

/* pahole's summary numbers. */
typedef struct ds_layout_summary {
	uint64_t size, cachelines, members;
	uint64_t sum_members;       /* bytes of the members that are not bit fields */
	uint64_t holes, sum_holes;
	uint64_t sum_bitfield_bits, bit_holes, sum_bit_holes;
	uint64_t padding, bit_padding;
	uint64_t paddings, sum_paddings; /* members whose struct type ends in padding */
	uint64_t last_cacheline;    /* bytes used of the last line, 0 when it is full */
} ds_layout_summary;

typedef struct ds_layout {
	const struct ds_type *type; /* the struct, union or class */
	const char *typedef_name;   /* the typedef that names it when it has no tag */
	unsigned line_size;
	ds_layout_row *rows;
	size_t nrows;
	ds_layout_summary sum;      /* unions: size, cachelines and members only */
	char *text_buf;             /* what the rows' text and paths point into */
} ds_layout;

/* The layout of t (a struct, union or class, or a typedef of one) with
 * cache lines of line_size bytes; NULL with err for other types. */
ds_layout *ds_layout_build(const struct ds_type *t, unsigned line_size, ds_err *err);
void ds_layout_free(ds_layout *l);
/* pahole's text: every row that has text, one per line. */
void ds_layout_text(const ds_layout *l, ds_buf *out);
/* Per-event samples and counts (ds_session_nevents slots each) of row i
 * of a layout, as ds_session_member_metrics gives them: a member with
 * everything nested in it; an anonymous struct or union without a name
 * (OPEN, CLOSE), the members it holds; zeros for other rows and for a
 * pointee's members. */
int ds_session_layout_metrics(ds_session *s, const ds_layout *l, size_t i, uint64_t *samples,
			      uint64_t *count, ds_err *err);

/* The natural alignment of a type as pahole computes it (a struct's is
 * its members' largest; DW_AT_alignment is the member's business). */
uint64_t ds_type_alignment(const struct ds_type *t);

/* ---- layout advice (suggest.c) ----
 * A member order for a struct from its profile, printed as a C header that
 * compiles in place of its definition, with the new layout drawn as
 * pahole does and the predicted effect, all but the struct in comments
 * (docs/dsprof-layout.1, SUGGESTIONS). */
typedef struct ds_suggest_opts {
	unsigned line;        /* the line size to draw and predict with; 0: the layout's */
	bool keep_abi;        /* keep every member's offset: only alignment and padding */
	/* filled when not NULL, one slot per event of the session
	 * (ds_session_nevents): the type's count, and the count predicted
	 * for the new layout, -1 where nothing is predicted */
	uint64_t *before;
	double *predicted;
} ds_suggest_opts;

int ds_layout_suggest(ds_session *s, const ds_layout *l, const ds_suggest_opts *o, ds_buf *out, ds_err *err);
/* The same for a type as the data views name it ("struct node"), its
 * layout drawn with the experiment's L1D line (the TUI's). */
int ds_session_suggest(ds_session *s, const char *type, const ds_suggest_opts *o, ds_buf *out, ds_err *err);

/* ---- loading in steps, call graph, source and time ----
 * For the TUI, which shows a first screen before a large experiment is
 * read: a session opened with ds_session_opts.deferred has read only the
 * side-band records (mappings, threads); ds_session_load reads samples for
 * about `seconds` at a time.  Views of a session still loading cover the
 * samples read so far (the dataspace views, which read the samples again
 * by themselves, are best left until loading is done).
 *
 * Views of analyze/callviews.c and analyze/timeline.c:
 *   callers   the callers and callees of ds_view_opts.function, and the
 *             function itself (column relation: caller, function, callee)
 *   source    the source file of .function (or .file), every line with
 *             its metrics
 *   timeline  per thread, the run cut into .slices slices of time (within
 *             .from_ns .. .to_ns): samples and the function and data
 *             object most of them were in
 * docs/report-formats.md describes their rows and columns. */

/* Read samples for about `seconds` (0: all the rest): 1 when some remain,
 * 0 when all are read, -1 on error. */
int ds_session_load(ds_session *s, double seconds, ds_err *err);
/* How much of the sample data has been read, 0..1. */
double ds_session_loaded(const ds_session *s);
/* Samples read so far. */
uint64_t ds_session_samples(const ds_session *s);

/* ---- several experiments as one (analyze/merge.c) ----
 * A group of experiments (record --group: the ranks of an MPI job,
 * repeated runs, the programs a script ran) or any list of them reports as
 * one: each experiment's view is built in turn, a session at a time, and
 * its table is merged into the rest, so that memory holds one experiment's
 * samples and the merged rows, not every experiment's samples.  Rows unite
 * by their place in the table (their parent) and their name and module:
 * the same function, field or path of --by keys in every run.  Events
 * unite by name, so experiments recorded with different events make one
 * table of all their events.  DS_MERGE_SUM adds the experiments up (the
 * ranks of one job); DS_MERGE_MEAN averages them (repeated runs of one
 * program), each metric rounded to a whole number.  Every row keeps each
 * experiment's counts (ds_row.runs), so that a diff can tell run-to-run
 * noise from a change. */
enum ds_merge_how { DS_MERGE_SUM, DS_MERGE_MEAN };
typedef struct ds_merger ds_merger;
ds_merger *ds_merger_new(enum ds_merge_how how);
/* Whether tables of `view` merge; the error says why not (one row per
 * sample, a timeline of each run's own time). */
int ds_merge_check_view(const char *view, ds_err *err);
/* Add one experiment's table (built without --limit); t stays the caller's. */
int ds_merger_add(ds_merger *m, const ds_table *t, ds_err *err);
/* The tables merged, sorted by o->sort and cut at o->limit as the view
 * sorts and cuts its own; the merger is spent. */
int ds_merger_finish(ds_merger *m, const ds_view_opts *o, ds_table **out, ds_err *err);
void ds_merger_free(ds_merger *m);

/* One experiment of several reported as one. */
typedef struct ds_merge_input {
	const char *path;
	const char *label;    /* its name among them (ds_session_opts.label); NULL: its directory's */
} ds_merge_input;
/* Before its view is built: what every experiment's session gets (a
 * machine model, memory objects, the filter). */
typedef int ds_merge_prepare_fn(ds_session *s, void *ctx, ds_err *err);
/* After: what the caller keeps of it (its notes). */
typedef void ds_merge_done_fn(const ds_session *s, void *ctx);
/* View `view` of members m[0..n) merged (o->sort and o->limit apply to
 * the merge): each opened in turn with so (its label and lenient_names
 * set), made ready by prepare, its view built and merged, handed to done,
 * and closed.  A filter's name that no member has is an error naming the
 * nearest names, as with one experiment. */
int ds_merged_view(const ds_merge_input *m, size_t n, enum ds_merge_how how, const ds_session_opts *so,
		   const char *view, const ds_view_opts *o, ds_merge_prepare_fn *prepare, ds_merge_done_fn *done,
		   void *ctx, ds_table **out, ds_err *err);

/* ---- diff of two experiments ----
 * One view of two experiments, BEFORE and AFTER, side by side.  Rows are
 * matched by name (function, file:line, type.field; a view may name its
 * rows by columns instead: ds_table.diff_key), never by address, so that
 * two builds of a program compare.  Rows whose names differ only by GCC's
 * clone suffixes (foo.constprop.0, foo.isra.1, foo.part.0, and foo.cold in
 * function views) are one row: the function, however the compiler copied
 * it.  Rows with one name in several objects are matched by object first,
 * then, when one is left on each side, across objects (a renamed binary).
 *
 * The result is a table like any view's, which the command line renders
 * and the TUI shows:
 *   events   each side's events: "before:E" and "after:E" (an event only
 *            one experiment recorded has only its side)
 *   rows     metrics per side (exclusive samples and count; inclusive
 *            metrics are not compared), the view's columns (from AFTER
 *            when the row is there, else from BEFORE), then status (both,
 *            gone: only BEFORE has samples, new: only AFTER), before_name
 *            and after_name (the names matched, when not the row's own),
 *            and per event both recorded, delta:E (count, AFTER - BEFORE)
 *            and change:E (relative, percent; unset when BEFORE is 0)
 * Counts (sums of periods) are compared, so experiments recorded with
 * different periods compare; samples are shown beside them.
 * The verdict lists the biggest changes first (docs/report-formats.md);
 * with sessions, first of all the cache lines that stopped or started
 * being shared (ds_diff_sessions). */

typedef struct ds_diff_event {
	char *name;           /* as the experiments name it */
	int before, after;    /* its index in the table's events; -1: that side did not record it */
} ds_diff_event;

typedef struct ds_diff_finding {
	const char *kind;     /* total, period, only, line, row, none, function, clone,
			       * module (docs/report-formats.md) */
	const char *status;   /* row, function: up, down, gone, new; line: stopped,
			       * started, still; else NULL */
	char *event;          /* NULL for findings about no one event */
	char *row;            /* row, function, clone: the row's name; line: its data */
	bool has_before, has_after;
	uint64_t before, after; /* counts (sums of periods) */
	bool noise;           /* the change is within sampling noise */
	char *text;           /* the finding in one line, for people (not sanitized) */
} ds_diff_finding;

typedef struct ds_diff {
	ds_table *table;      /* belongs to the diff (ds_diff_free) */
	ds_diff_event *events; /* every event of either side, BEFORE's order first */
	size_t nevents;
	ds_diff_finding *verdict; /* most telling first */
	size_t nverdict;
} ds_diff;

typedef struct ds_diff_opts {
	const char *sort;     /* NULL: by the size of the change; see ds_diff_help_sort */
	size_t limit;         /* 0: all rows */
} ds_diff_opts;

/* Compare two tables of one view (each as ds_view_build made it, all its
 * rows).  Views without metrics (samples, typestats) do not compare. */
int ds_diff_tables(const ds_table *before, const ds_table *after, const ds_diff_opts *o, ds_diff **out,
		   ds_err *err);
/* Build `view` on both sessions and compare them.  With sessions, the
 * verdict goes past the one view: when an event counts coherence misses
 * (HITM), it tells of the shared cache lines (as the sharing view classifies
 * them) and names the functions whose misses changed; without one, the
 * sharing and hotlines views tell of the lines for their first event. */
int ds_diff_sessions(ds_session *before, ds_session *after, const char *view, const ds_diff_opts *o,
		     ds_diff **out, ds_err *err);
void ds_diff_free(ds_diff *d);
/* One line describing the diff's --sort keys. */
const char *ds_diff_help_sort(void);

#endif
