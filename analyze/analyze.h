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

enum ds_col_kind { DS_COL_STR, DS_COL_U64, DS_COL_HEX, DS_COL_DOUBLE };

typedef struct ds_col {
	const char *name;     /* "module", "file", "line", "address", ... */
	enum ds_col_kind kind;
	bool text;            /* shown in text tables (CSV and JSON show every column) */
} ds_col;

typedef struct ds_cell {
	char *s;              /* DS_COL_STR; NULL = empty */
	uint64_t u;           /* DS_COL_U64, DS_COL_HEX */
	double d;             /* DS_COL_DOUBLE */
	bool set;
} ds_cell;

typedef struct ds_row {
	char *name;
	ds_cell *cells;       /* one per table column */
	uint64_t *samples;    /* per event */
	uint64_t *count;      /* per event: sum of periods */
	uint64_t *incl_samples; /* per event, when the table is inclusive */
	uint64_t *incl_count;
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
	size_t limit;         /* 0: all rows */
} ds_view_opts;

/* Views: functions, lines, pcs, threads, summary, samples. */
int ds_view_build(ds_session *s, const char *view, const ds_view_opts *o, ds_table **out,
		  ds_err *err);
void ds_table_free(ds_table *t);
/* NULL-terminated list of view names. */
const char *const *ds_view_names(void);
/* One line describing the --sort keys. */
const char *ds_view_help_sort(void);

#endif
