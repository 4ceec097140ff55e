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
	const uint32_t *tids;     /* only these threads (NULL: all) */
	size_t ntids;
	bool progress;            /* progress lines on a terminal */
} ds_session_opts;

/* Open DIR (or a perf.data file) and read its samples.  Errors name the
 * file and say what to do; a session's problems with symbols are notes. */
int ds_session_open(const char *path, const ds_session_opts *o, ds_session **out, ds_err *err);
void ds_session_close(ds_session *s);
/* The experiment's meta data (from meta.json, or made from the perf.data
 * header for imported recordings). */
const ds_meta *ds_session_meta(const ds_session *s);
/* Things the user should know (missing files, changed binaries...). */
size_t ds_session_nnotes(const ds_session *s);
const char *ds_session_note(const ds_session *s, size_t i);

/* ---- tables ---- */

enum ds_col_kind { DS_COL_STR, DS_COL_U64, DS_COL_HEX, DS_COL_PERCENT };

typedef struct ds_col {
	const char *name;     /* "module", "file", "line", "address", ... */
	enum ds_col_kind kind;
	bool text;            /* shown in text tables (CSV and JSON show every column) */
} ds_col;

typedef struct ds_cell {
	char *s;              /* DS_COL_STR; NULL = empty */
	uint64_t u;           /* DS_COL_U64, DS_COL_HEX */
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
			       * alignment remark): text shows it without metrics */
} ds_row;

typedef struct ds_table_event {
	char *name;
	uint64_t period;      /* 0 in frequency mode */
	uint64_t freq;
	bool precise;
	bool time_ns;         /* counts nanoseconds (cpu-clock, task-clock) */
	uint64_t samples;     /* totals over the whole view (all rows, before --limit) */
	uint64_t count;
} ds_table_event;

enum ds_prop_kind { DS_PROP_TEXT, DS_PROP_NUMBER, DS_PROP_BOOL };

typedef struct ds_prop {
	char *key;
	char *value;          /* as text; DS_PROP_BOOL: "yes" or "no" */
	enum ds_prop_kind kind; /* how JSON writes it */
} ds_prop;

typedef struct ds_table {
	char *view;
	const char *name_label; /* what a row's name is: "function", "line", ... */
	ds_table_event *events;
	size_t nevents;
	ds_col *cols;
	size_t ncols;
	bool inclusive;
	bool has_metrics;     /* false for the samples view: one row per sample */
	ds_row *rows;
	size_t nrows;
	size_t total_rows;    /* before --limit */
	ds_prop *props;       /* summary: facts about the experiment */
	size_t nprops;
} ds_table;

typedef struct ds_view_opts {
	const char *sort;     /* NULL: first event's samples; see ds_view_help_sort */
	size_t limit;         /* 0: all rows (datalayout: all hot types) */
	const char *type;     /* datalayout: only this type ("struct node" or "node") */
	unsigned line;        /* datalayout: cache-line size; 0 = each level's measured one */
} ds_view_opts;

/* Views: functions, lines, pcs, threads, summary, samples, dataobjects,
 * datalayout, typestats. */
int ds_view_build(ds_session *s, const char *view, const ds_view_opts *o, ds_table **out,
		  ds_err *err);
void ds_table_free(ds_table *t);
/* NULL-terminated list of view names. */
const char *const *ds_view_names(void);
/* One line describing the --sort keys. */
const char *ds_view_help_sort(void);

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
	DS_LROW_PADDING,    /* tail padding: no text (pahole counts it in the summary) */
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
	const char *path;   /* MEMBER, CLOSE: "a.b.c", "cells[].x" (NULL behind a pointer) */
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

#endif
