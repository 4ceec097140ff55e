/*
 * cli/: the dsprof command.  One file per subcommand; this header is
 * private to the folder.
 */
#ifndef DSPROF_CLI_H
#define DSPROF_CLI_H

#include "base/base.h"

/* Each subcommand returns the process exit status. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_mobj(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_archive(int argc, char **argv);

/* Keep the experiment's sampled objects in INPUT/archive (dsprof archive,
 * record --archive); notes on stderr say which could not be kept. */
int cli_archive(const char *input, bool quiet, ds_err *err);

/* When no experiment was named and there is no dsprof.data here: say
 * how to make or name one, and return 1; else 0. */
int cli_default_experiment(const char *cmd);
/* Print "dsprof: MSG" for an error and return its exit status. */
int cli_fail(const ds_err *err);
/* Print "dsprof: MSG" and a usage hint; returns 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one line for getopt's complaint c ('?' unknown option, ':' missing
 * value; optstrings start with ':' and main sets opterr to 0), with hint
 * (or NULL) after it; returns 1.  argv is the vector getopt parsed. */
int cli_bad_option(const char *cmd, char **argv, int c, const char *hint);

/* Tables from analyze/ as text, CSV or JSON (docs/report-formats.md). */
struct ds_table;
/* CLI_FOLDED: report's call paths as flame-graph tools read them */
enum cli_format { CLI_TEXT, CLI_CSV, CLI_JSON, CLI_FOLDED };
/* show: the metric columns (ds_metrics_select), NULL every one. */
void cli_render(FILE *f, const struct ds_table *t, enum cli_format fmt, const char *source,
		bool ascii, const bool *show);
/* The metric columns --metrics SPEC picks for t in format fmt, malloc'd in
 * *show: without SPEC, the default for people in text and every metric
 * (NULL) in CSV and JSON. */
int cli_metrics(const struct ds_table *t, const char *spec, enum cli_format fmt, bool **show, ds_err *err);
/* The keys of --by, a line each with what it is. */
void cli_print_keys(FILE *f);
/* --format ARG: 0, or a usage error of CMD (its exit status). */
int cli_parse_format(const char *cmd, const char *arg, enum cli_format *fmt);
/* What making an experiment directory did to what was there, on stderr. */
struct ds_expdir_prev;
void cli_say_moved(const struct ds_expdir_prev *prev);
/* Undo it after a recording that never started, saying what was put back. */
void cli_discard(const char *dir, const struct ds_expdir_prev *prev);
/* A session's notes on stderr, "dsprof: note: [LABEL: ]NOTE", but for those
 * the table `shown` printed among its own notes (NULL: none). */
struct ds_session;
void cli_print_notes(const struct ds_session *s, const char *label, const struct ds_table *shown);
/* A diff of two experiments: its table, with the verdict over it (text)
 * or beside it (JSON); CSV holds the table only. */
struct ds_diff;
void cli_render_diff(FILE *f, const struct ds_diff *d, enum cli_format fmt, const char *before,
		     const char *after, bool ascii, const bool *show);

/* Experiments named on the command line (cli/group.c): -i DIR is an
 * experiment, or a group (record --group) standing for its members, each
 * labelled by its name in the group (by GROUP/NAME when several are
 * named); run: a repeated run of its group. */
typedef struct cli_exp {
	char *path;
	char *label;          /* NULL: the session names it by its directory */
	bool run;
} cli_exp;
typedef DS_VEC(cli_exp) cli_exps;
int cli_expand(const char *const *inputs, size_t n, cli_exps *out, ds_err *err);
void cli_exps_free(cli_exps *v);
/* The notes of several sessions, each printed once on stderr with the
 * first experiment that said it and how many more did ("dsprof: note:
 * run.1 and 4 more: ..."); print frees. */
typedef struct cli_said cli_said;
struct ds_session;
cli_said *cli_said_new(void);
void cli_said_add(cli_said *n, const struct ds_session *s);
void cli_said_print(cli_said *n);
/* --merge ARG (enum ds_merge_how): 0, or a usage error of CMD. */
int cli_parse_merge(const char *cmd, const char *arg, int *how);
/* The merge given (>= 0), else mean when every experiment is a repeated
 * run, else sum (the ranks of a job, experiments of different events). */
int cli_merge_how(const cli_exps *e, int given);
/* View `view` of every experiment of e, merged: each session opened in
 * turn with so (its label set), made ready by prepare (machine, memory
 * objects, filter), its view built and merged, and closed.  The sessions'
 * notes go to stderr once each, with who said them. */
struct ds_session_opts;
struct ds_view_opts;
int cli_merged_view(const cli_exps *e, int how, const struct ds_session_opts *so, const char *view,
		    const struct ds_view_opts *vo, int (*prepare)(struct ds_session *, void *, ds_err *), void *ctx,
		    struct ds_table **out, ds_err *err);

/* Keep in OUTDIR/kallsyms the kernel symbols that samples at ips[0..n)
 * need, while this kernel still runs: the experiment then reads the same
 * anywhere, and reports need not parse /proc/kallsyms.  On failure (-1), a
 * note says why kernel samples will show as [kernel]. */
int cli_keep_kernel_symbols(ds_wdir *outdir, const uint64_t *ips, size_t n);

/* "dsprof: note: MSG" on stderr, MSG made safe for a terminal. */
void cli_note(const char *msg);
/* Text safe for a terminal (escape sequences in names neutralized). */
void cli_puts_safe(FILE *f, const char *s);

#endif
