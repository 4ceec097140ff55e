/* Private to tui/: the screen, keys, terminal, worker and application. */
#ifndef DSPROF_TUI_INT_H
#define DSPROF_TUI_INT_H

#include <stdint.h>
#include <wchar.h>

#include "memobj/memobj.h"
#include "tui/tui.h"

/* ---- the screen: a grid of cells drawn to, then shown or dumped ----
 * Everything is drawn into this grid; the terminal shows it and scripted
 * mode writes it as text, so both see the same screen.  Text from views
 * (symbols, paths, comm, source lines) is untrusted and goes through
 * grid_text, which sanitizes it; grid_raw is for the interface's own words. */

enum {
	ST_NORMAL, ST_TABBAR, ST_TAB_ACTIVE, ST_CRUMB, ST_HEADER, ST_SORTED, ST_SELECTED, ST_HOT,
	ST_DIM, ST_WARN, ST_ERROR, ST_STATUS, ST_KEY, ST_MATCH, ST_POPUP, ST_POPUP_SEL, ST_BAR,
	ST_PAL,               /* ST_PAL .. ST_PAL + ST_NPAL - 1: the timeline's colours */
	ST_NPAL = 8,
	ST_NSTYLES = ST_PAL + ST_NPAL,
};

typedef struct tui_cell {
	wchar_t ch;           /* 0: the right half of a wide character */
	wchar_t comb;         /* a combining mark on it, or 0 */
	uint8_t style;
} tui_cell;

/* The interface's own symbols, in Unicode or in ASCII. */
typedef struct tui_glyphs {
	const char *vline, *hline, *sort_desc, *sort_asc, *crumb, *closed, *open, *mark, *ellipsis;
	const char *eighths[9]; /* bars: 0/8 .. 8/8 of a cell */
} tui_glyphs;

typedef struct tui_screen {
	int w, h;
	tui_cell *c;
	bool ascii;
	const tui_glyphs *g;
} tui_screen;

void grid_init(tui_screen *s, int w, int h, bool ascii);
void grid_fini(tui_screen *s);
void grid_resize(tui_screen *s, int w, int h);
void grid_clear(tui_screen *s);
/* n spaces in style from (y, x). */
void grid_fill(tui_screen *s, int y, int x, int n, int style);
/* Change the style of n cells from (y, x), keeping their characters. */
void grid_restyle(tui_screen *s, int y, int x, int n, int style);
/* Untrusted text at (y, x) in at most maxw columns, sanitized, cut with
 * an ellipsis when longer; returns the columns used. */
int grid_text(tui_screen *s, int y, int x, int maxw, int style, const char *text);
/* The same, right-aligned in maxw columns. */
int grid_text_right(tui_screen *s, int y, int x, int maxw, int style, const char *text);
/* The interface's own text (trusted UTF-8, drawn as is). */
int grid_raw(tui_screen *s, int y, int x, int maxw, int style, const char *text);
int grid_rawf(tui_screen *s, int y, int x, int maxw, int style, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Columns untrusted text takes once sanitized. */
int grid_width(const tui_screen *s, const char *text);
/* Every line of the screen, trailing blanks removed. */
void grid_dump(const tui_screen *s, ds_buf *out);

/* ---- keys ---- */

enum {
	K_NONE = -1,
	/* characters are their code points; control keys are 1..31 */
	K_UP = 0x110000, K_DOWN, K_LEFT, K_RIGHT, K_PGUP, K_PGDN, K_HOME, K_END,
	K_ENTER, K_ESC, K_BS, K_TAB, K_BTAB, K_DEL, K_RESIZE,
	K_F1, /* .. K_F1 + 11 */
};
#define K_CTRL(c) ((c) & 0x1f)

typedef struct tui_key {
	int code;
	int w, h;             /* K_RESIZE: the new size */
} tui_key;
typedef DS_VEC(tui_key) tui_keys;

/* Parse a key script (syntax in tui.h); errors name the column. */
int keys_parse(const char *script, tui_keys *out, ds_err *err);
/* "<Enter>", "q", "<C-l>" */
void key_label(int code, char *buf, size_t n);

/* ---- the terminal (ncurses) ---- */

typedef struct tui_term tui_term;
int term_open(tui_term **out, bool ascii, bool color, ds_err *err);
void term_close(tui_term *t);
void term_size(tui_term *t, int *w, int *h);
void term_show(tui_term *t, const tui_screen *s);
/* The next key, waiting at most timeout_ms (-1: for ever) or until
 * wake_fd is readable; K_NONE when none came. */
tui_key term_key(tui_term *t, int timeout_ms, int wake_fd);

/* ---- the worker: the only code that touches the session ---- */

enum req_kind {
	REQ_VIEW,             /* build a view */
	REQ_FILTER,           /* set the session's filter to arg ("": none) */
	REQ_DEFINE,           /* define a memory object, arg "NAME=EXPR" */
	REQ_MOBJS,            /* list the memory objects */
	REQ_SUGGEST,          /* a layout suggestion for the type arg (dsprof layout --suggest) */
};

/* A memory object as the MemObjects tab lists it. */
typedef struct mobj_item {
	char *name, *text;
	char *error;          /* why this machine cannot evaluate it, or NULL */
	int origin;           /* enum ds_mobj_origin */
} mobj_item;

typedef struct tui_req {
	enum req_kind kind;
	char *arg;
	int tab;
	uint64_t gen;
	char *view;
	char *view2;          /* a second view built with it (the summary's typestats), or NULL */
	ds_view_opts vo;      /* its strings are the request's */
	bool partial_ok;      /* may be built from the samples read so far */
	bool prefetch;        /* ahead of time: built when nothing else is asked for */
} tui_req;

typedef struct tui_res {
	enum req_kind kind;
	char *arg;            /* the request's */
	mobj_item *mobjs;     /* REQ_MOBJS */
	size_t nmobjs;
	char *text;           /* REQ_SUGGEST */
	int tab;
	uint64_t gen;
	ds_table *t;          /* NULL on an error: then msg */
	ds_table *t2;         /* view2's, NULL on an error or without one; comparing,
			       * the summary's AFTER (t: BEFORE's) */
	char **verdict;       /* comparing, the summary: the diff's verdict, a line each */
	size_t nverdict;
	char *msg;
	bool partial;         /* from part of the samples: a full one follows */
	bool dropped;         /* a newer request replaced it before it was built */
} tui_res;

typedef struct tui_status {
	bool open;            /* the session is open: worker_meta is readable */
	bool loaded;          /* every sample read */
	bool ready;           /* and the samples attributed to data objects */
	bool busy;            /* building a view */
	double fraction;      /* of the samples read */
	uint64_t samples;
	char error[1024];     /* opening or reading failed: the session is gone */
} tui_status;

typedef struct tui_worker tui_worker;
/* Threaded: opens and reads the experiment in the background; otherwise
 * everything happens in the calls (scripted mode: deterministic). */
tui_worker *worker_new(const tui_opts *o, bool threaded);
void worker_free(tui_worker *w);
void worker_status(tui_worker *w, tui_status *st);
/* The experiment's meta data, once the status says open. */
const ds_meta *worker_meta(tui_worker *w);
/* Ask for a view (the request replaces any earlier one not started yet)
 * or an action (done in order, before views).  Takes the request. */
void worker_request(tui_worker *w, tui_req *r);
/* A finished view, if any (the caller owns it). */
bool worker_result(tui_worker *w, tui_res *out);
/* Readable when a result or a status change is there. */
int worker_wake_fd(tui_worker *w);
void tui_req_free(tui_req *r);
void tui_res_fini(tui_res *r);

/* ---- the application (app.c) and its drawing (draw.c) ---- */

enum tab_id {
	T_FUNCTIONS, T_CALLERS, T_SOURCE, T_DISASM, T_DATAOBJECTS, T_LAYOUT, T_MEMOBJ, T_HOTLINES,
	T_SHARING, T_HEAP, T_CALLTREE, T_TIMELINE, T_SUMMARY, T_NTABS
};

/* What a tab needs before its view can be built. */
enum {
	TF_PARTIAL = 1 << 0,  /* can show the samples read so far */
	TF_FUNCTION = 1 << 1, /* a function (the one selected last) */
	TF_TYPE = 1 << 2,     /* a type */
	TF_TREE = 1 << 3,     /* types with their fields folded under them */
	TF_ROWSEL = 1 << 4,   /* shows the rows of its context only (disassembly) */
	TF_LINE = 1 << 5,     /* draws cache lines of the size chosen with l */
	TF_DEPTH = 1 << 6,    /* a tree of any depth (ds_row.depth): each row folds the
			       * deeper rows after it */
};

typedef struct tab_def {
	const char *name;     /* "Functions" */
	const char *brief;    /* on narrow screens */
	int key;              /* '1' */
	const char *view;     /* the analyze/ view; memobj tabs add ":NAME" */
	unsigned flags;
	const char *cols;     /* the columns shown, in order (see draw.c) */
	const char *sort;     /* the tab's own default sort key (NULL: the view's) */
	const char *help;     /* a line for the help screen */
	const char *parent;   /* TF_TREE: the kind of rows that fold ("type") */
	const char *children; /* and the kinds folded under them ("field padding") */
} tab_def;

extern const tab_def tui_tabs[T_NTABS];

/* Tree tabs: whether a row folds under the one before it, or folds others. */
bool tree_child(const tab_def *td, const ds_table *t, const ds_row *r);
bool tree_parent(const tab_def *td, const ds_table *t, const ds_row *r);


typedef struct tab_state {
	ds_table *t;
	ds_table *t2;         /* the summary: resolution statistics; comparing, AFTER's summary */
	char **verdict;       /* comparing, the summary: the diff's verdict */
	size_t nverdict;
	char *msg;            /* no table: why (an error, a missing view) */
	bool partial;
	bool pending;         /* a request is out */
	uint64_t gen;         /* of the last request: older results are stale */
	char *ctx;            /* what the table is about ("main@prog", "struct node") */
	char *sort;           /* the user's sort key; NULL: the tab's default */
	ds_vec_u32 vis;       /* rows shown, in order */
	bool *open;           /* tree tabs: per row, fields shown */
	size_t cur, top;      /* cursor and first row on screen, indices in vis */
	int *colw;            /* per table column: the widest cell */
	int namew;            /* the widest name */
	bool *shown;          /* per table column: drawn as a column (the status line
			       * shows the others of the selected row) */
	uint64_t from, to;    /* timeline: the window (to 0: the whole run) */
	size_t slice;         /* timeline: the slice under the cursor */
	char *key;            /* what the table shown (or asked for) was built with */
	char *focus_col;      /* where the cursor goes when the table comes: the row */
	char *focus_val;      /* whose column (NULL: name) has this value */
	size_t scroll;        /* summary: first line shown */
	bool by_object;       /* timeline: coloured by data object, not function */
	char *by;             /* regrouped with b: the keys ("function,field"), shown as
			       * dsprof report --by; NULL: the tab's own view */
	bool flame;           /* CallTree: drawn as a flame graph (F) */
	uint32_t fl_root;     /* its frame zoomed into (a row), FLAME_ALL: none */
	uint32_t fl_sel;      /* its frame selected (a row) */
} tab_state;

typedef struct nav_ent {
	int tab;
	char *ctx;
	size_t cur, top;
} nav_ent;

enum mode { MODE_NORMAL, MODE_SEARCH, MODE_FILTER, MODE_DEFINE, MODE_MENU, MODE_HELP, MODE_DETAIL, MODE_TEXT };
enum menu_kind { MENU_SORT, MENU_METRICS, MENU_LINE, MENU_MOBJ, MENU_BY };

typedef struct menu {
	enum menu_kind kind;
	const char *title;
	DS_VEC(char *) items;   /* shown */
	DS_VEC(char *) keys;    /* what choosing an item means (a sort key, a size...) */
	DS_VEC(bool) on;        /* checked (metrics) */
	size_t cur, top;
	ds_vec_u32 picked;      /* MENU_BY: the keys checked, in the order checked */
} menu;

typedef struct tui_app {
	const tui_opts *o;
	bool compare;           /* two experiments: every table is a diff */
	tui_worker *w;
	tui_screen scr;
	tui_status st;
	int tab;
	tab_state tabs[T_NTABS];
	DS_VEC(nav_ent) back;   /* where Backspace returns to */
	char *function;         /* "NAME@MODULE" last selected */
	char *type;             /* the type last selected */
	char *mobj;             /* the memory object shown */
	bool *show;             /* [event * DS_M_N]: metric columns shown */
	char **event_names;
	size_t nev;
	mobj_item *mobjs;       /* the memory objects, as the worker last listed them */
	size_t nmobjs;
	bool want_menu;         /* show them when the list comes */
	char *filter;           /* in force */
	unsigned line;          /* cache line size chosen with l; 0: none */
	char *level;            /* or the cache level chosen ("L2"), NULL: none (L1D, and
				 * DataLayout draws every level's line) */
	unsigned level_line;    /* that level's measured line size */
	enum mode mode;
	enum mode mode_was;     /* the prompt being answered */
	ds_buf input;           /* the prompt's text */
	char *search;
	menu menu;
	size_t help_top;        /* the help's, the row detail's and the text's first line shown */
	char *text;             /* MODE_TEXT: a layout suggestion, its lines */
	char *text_title;
	char *msg;              /* one line for the status line */
	int msg_style;
	bool quit;
	bool dirty;
} tui_app;

void app_init(tui_app *a, const tui_opts *o, tui_worker *w, int width, int height);
void app_fini(tui_app *a);
/* Handle one key. */
void app_key(tui_app *a, const tui_key *k);
/* Take finished views and the worker's status; true when something changed. */
bool app_poll(tui_app *a);
/* Whether the active tab waits for a view. */
bool app_waiting(const tui_app *a);

/* What tab shows: its definition, or a grouping's when it was regrouped
 * with b (tab_state.by). */
const tab_def *tab_def_of(const tui_app *a, int tab);
/* The columns it shows (tab_def.cols), for the table it has. */
const char *tab_cols(const tui_app *a, int tab);
/* The row of a table the cursor is on (NULL when none). */
const ds_row *app_row(const tui_app *a, const tab_state *ts);
/* Column index of a table's column by name, -1 when absent. */
int tcol(const ds_table *t, const char *name);
/* Whether a table is a diff of two experiments (ds_diff). */
bool diff_table(const ds_table *t);
/* A row's cell as text ("" when unset). */
const char *cell_str(const ds_table *t, const ds_row *r, const char *col);

void app_scroll_into_view(tui_app *a, tab_state *ts);
/* Slices the timeline asks for: one per column of its strips. */
int timeline_slices(const tui_app *a);

void draw(tui_app *a);

/* ---- the CallTree tab as a flame graph (flame.c) ---- */

#define FLAME_ALL UINT32_MAX  /* the root above the threads' first frames */
#define FLAME_MAX_DEPTH 256   /* frames deeper are not drawn */

/* Whether a table can be drawn so: a tree with inclusive metrics, not a diff. */
bool flame_ok(const ds_table *t);
/* Whether tab shows its table so now. */
bool flame_shown(const tui_app *a, int tab);
/* The first row after row i's subtree; its caller (FLAME_ALL: none); the
 * screen line of its depth (0: the root); the inclusive samples of the
 * first event under a root. */
uint32_t flame_end(const ds_table *t, uint32_t i);
uint32_t flame_parent(const ds_table *t, uint32_t i);
unsigned flame_line(const ds_table *t, uint32_t i);
uint64_t flame_total(const ds_table *t, uint32_t root);
/* Where the CallTree tab's graph puts each row, on this screen and zoomed as
 * it is: columns [*x0, *x1), -1 for rows not drawn (outside the frame zoomed
 * into, or narrower than a column), the whole width for that frame and its
 * callers.  The caller frees both arrays. */
void flame_place(const tui_app *a, int **x0, int **x1);
void draw_flame(tui_app *a);
/* The selected frame for the status line. */
void flame_status(const tui_app *a, ds_buf *b);
/* Rows of the table body on this screen. */
int body_rows(const tui_app *a);
/* Lines of the help text, and the i-th one. */
size_t help_lines(void);
const char *help_line(size_t i, char *buf, size_t n);

#endif
