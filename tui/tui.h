/*
 * tui/: the terminal interface over analyze/ views (dsprof tui).
 *
 * Tabs of tables (functions, callers and callees, source, disassembly,
 * data objects, layouts, memory objects, hot lines, sharing, a timeline
 * and a summary), each one an analyze/ view: the interface computes no
 * number of its own, it asks for views and shows their rows.  A tab whose
 * view this build of analyze/ does not have says so.
 *
 * The experiment is read by a worker thread, so that the first screen
 * shows while a large experiment is still loading (from the samples read
 * so far, marked as partial) and keys are answered while views are built.
 *
 * A group of experiments (or several -i) shows every view merged, as
 * dsprof report does (ds_merged_view): each view reads the experiments
 * again, one at a time; the first experiment answers for the rest in what
 * is not a view (its machine, its memory objects).
 *
 * Comparing two experiments (dsprof tui BEFORE AFTER), every tab shows the
 * diff of its view that dsprof diff prints (ds_diff_sessions, or
 * ds_diff_tables of the two views built with the tab's function or type),
 * and the summary the verdict; the timeline, one run's threads over time,
 * is not compared.
 *
 * Scripted mode replays keys without a terminal and writes every screen as
 * text: the tests drive the interface with it.  Key syntax (docs/dsprof-tui.1):
 * characters stand for themselves; <Enter> <Esc> <Tab> <S-Tab> <BS> <Del>
 * <Space> <Up> <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End> <F1>..<F12>
 * <C-a>..<C-z> name the others, <lt> is '<', and <Resize:WxH> resizes the
 * screen.
 */
#ifndef DSPROF_TUI_H
#define DSPROF_TUI_H

#include <stdbool.h>

#include "analyze/analyze.h"

typedef struct tui_opts {
	const char *input;          /* the experiment (directory or perf.data); BEFORE when comparing */
	const char *input2;         /* dsprof tui BEFORE AFTER: AFTER; NULL: one experiment */
	const ds_merge_input *group; /* a group or several -i: every tab merges their views
				     * (ds_merged_view); input is the first; NULL: one */
	size_t ngroup;
	enum ds_merge_how merge;
	const char *group_name;     /* what the title calls the group (the -i given) */
	ds_session_opts session;    /* how to open it (progress and deferred are the TUI's) */
	bool ascii;                 /* ASCII only, whatever the terminal can show */
	bool color;                 /* false: monochrome (NO_COLOR, --no-color) */
	const char *metrics;        /* the metric columns shown first (ds_metrics_select); NULL:
				     * the interface's own default */
	/* scripted mode */
	const char *keys;           /* keys to replay; NULL: interactive on the terminal */
	const char *dump;           /* where every screen goes as text; "-": standard output */
	int width, height;          /* the scripted screen (at least 80x24) */
	/* timings for benchmarks: first screen, loading, each key (NULL: none) */
	const char *stats;
} tui_opts;

/* Run the interface until the user quits (or the keys run out).  Errors
 * (no experiment, no usable terminal, bad keys) come back in err. */
int tui_run(const tui_opts *o, ds_err *err);

#endif
