/*
 * libFuzzer target: a whole session over a mutated experiment.  The
 * experiment is opened as `dsprof report` opens it, every view is built
 * and rendered as text, CSV and JSON (the JSON must parse), the hot types'
 * layouts get their metrics as `dsprof layout` asks for them, and a view
 * is compared with a second experiment as `dsprof diff` does.
 * Damage anywhere must give notes and errors, never a crash, a leak, an
 * over-read or a hang.
 *
 * The input holds the experiment's files (fuzz.h: "--- NAME" lines):
 *   a/perf.data a/meta.json a/kallsyms a/vdso.so a/recording.json
 *   a/heap/1-1.heap a/heap/2-2.heap
 *                the experiment (a/perf.data is needed; the heap files of
 *                record --heap, two process images at most)
 *   b/...        the one to compare it with (none: a again)
 *   filter       --filter
 *   mobj         --mobj NAME=EXPR, one a line
 *   machine      a --machine model file
 *   opts         view options, KEY=VALUE a line: sort limit line level
 *                slices window (FROM:TO) function file type, and diff
 *                (the view compared; none: one the input's size picks)
 * Each input stays fast: objects' debug files are not looked for, kernel
 * symbols come from a/kallsyms only (empty when absent), timelines have
 * few slices unless asked, and the input's size bounds its samples.
 */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "memobj/memobj.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const files[] = {"perf.data", "meta.json", "kallsyms", "vdso.so", "recording.json",
				     "heap/1-1.heap", "heap/2-2.heap"};

/* The experiment of side ("a" or "b") into the scratch directory; false
 * when the input has none. */
static bool write_side(const fz_part *parts, size_t n, const char *side)
{
	bool any = false;

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char name[64];
		const fz_part *p;
		snprintf(name, sizeof name, "%s/%s", side, files[i]);
		p = fz_find(parts, n, name);
		if (p || strcmp(files[i], "kallsyms") == 0)
			fz_write(name, p ? p->data : NULL, p ? p->size : 0);
		any |= p && strcmp(files[i], "perf.data") == 0;
	}
	return any;
}

/* The session keeps the option strings: they live as long as the process. */
static ds_session *open_side(const char *side)
{
	static char ks[2][4096], debug[4096];
	char *dir = ds_xasprintf("%s/%s", fz_dir(), side);
	char *k = ks[side[0] == 'b'];
	ds_session_opts o = {.debug_root = debug, .kallsyms = k};
	ds_session *s = NULL;
	ds_err err = {0};

	snprintf(k, sizeof ks[0], "%s/kallsyms", dir);
	snprintf(debug, sizeof debug, "%s/no-debug", fz_dir());
	if (ds_session_open(dir, &o, &s, &err))
		s = NULL;
	free(dir);
	return s;
}

/* KEY=VALUE lines into view options; the strings stay in text. */
static void parse_opts(char *text, ds_view_opts *vo, const char **diff)
{
	vo->slices = 8;
	for (char *l = text, *next; l && *l; l = next) {
		char *eq;
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		if (!(eq = strchr(l, '=')))
			continue;
		*eq++ = 0;
		if (!strcmp(l, "sort"))
			vo->sort = eq;
		else if (!strcmp(l, "limit"))
			vo->limit = strtoul(eq, NULL, 0);
		else if (!strcmp(l, "line"))
			vo->line = (unsigned)strtoul(eq, NULL, 0);
		else if (!strcmp(l, "level"))
			vo->level = eq;
		else if (!strcmp(l, "slices"))
			vo->slices = (unsigned)strtoul(eq, NULL, 0) % 1000;
		else if (!strcmp(l, "window") && strchr(eq, ':')) {
			vo->from_ns = strtoull(eq, NULL, 0);
			vo->to_ns = strtoull(strchr(eq, ':') + 1, NULL, 0);
		}
		else if (!strcmp(l, "function"))
			vo->function = eq;
		else if (!strcmp(l, "file"))
			vo->file = eq;
		else if (!strcmp(l, "type"))
			vo->type = eq;
		else if (!strcmp(l, "diff"))
			*diff = eq;
	}
}

/* Every format, with every metric, and text and JSON as people see them
 * by default and with a choice of metrics (--metrics). */
static void render(const ds_table *t, const char *view)
{
	static const enum cli_format fmts[] = {CLI_TEXT, CLI_CSV, CLI_JSON, CLI_TEXT, CLI_JSON};

	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
		char *p = NULL;
		size_t len = 0;
		bool *show = NULL;
		ds_err err = {0};
		FILE *f;
		if (i >= 3 && cli_metrics(t, i == 3 ? NULL : "samples,incl_percent", fmts[i], &show, &err))
			abort(); /* these two are every table's */
		f = open_memstream(&p, &len);
		cli_render(f, t, fmts[i], "fuzz", i == 0, show);
		fclose(f);
		if (fmts[i] == CLI_JSON)
			fz_check_json(p, len, view);
		free(p);
		free(show);
	}
}

static void render_diff(const ds_diff *d, const char *view)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	cli_render_diff(f, d, CLI_TEXT, "a", "b", false, NULL);
	fclose(f);
	free(p);
	p = NULL;
	f = open_memstream(&p, &len);
	cli_render_diff(f, d, CLI_JSON, "a", "b", false, NULL);
	fclose(f);
	fz_check_json(p, len, view);
	free(p);
}

/* The first row's name of a view, for the views that take a function. */
static char *first_row(ds_session *s, const char *view)
{
	ds_table *t;
	ds_err err = {0};
	char *name = NULL;

	if (ds_view_build(s, view, NULL, &t, &err) == 0) {
		if (t->nrows && t->rows[0].name)
			name = ds_xstrdup(t->rows[0].name);
		ds_table_free(t);
	}
	return name;
}

static void build(ds_session *s, const char *view, const ds_view_opts *vo)
{
	ds_table *t;
	ds_err err = {0};

	if (ds_view_build(s, view, vo, &t, &err) == 0) {
		render(t, view);
		ds_table_free(t);
	}
}

/* What `dsprof layout` asks of a session: its hot types, and the metrics
 * of each member of their layouts. */
static void layouts(ds_session *s)
{
	const struct ds_type **hot;
	size_t n, ne = ds_session_nevents(s);
	ds_err err = {0};
	uint64_t *samples = calloc(ne + 1, sizeof *samples), *count = calloc(ne + 1, sizeof *count);

	if (ds_session_hot_types(s, &hot, &n, &err) == 0) {
		for (size_t i = 0; i < n && i < 4; i++) {
			ds_layout *l = ds_layout_build(hot[i], 64, &err);
			if (!l)
				continue;
			ds_session_member_metrics(s, hot[i], "", samples, count, &err);
			for (size_t r = 0; r < l->nrows; r++)
				if (l->rows[r].path)
					ds_session_member_metrics(s, hot[i], l->rows[r].path, samples, count, &err);
			ds_layout_free(l);
		}
		free(hot);
	}
	free(samples);
	free(count);
}

static void every_view(ds_session *s, const ds_view_opts *given)
{
	const char *const *views = ds_view_names();
	ds_view_opts vo = *given;
	char *fn = given->function ? NULL : first_row(s, "functions");
	const struct ds_mobjs *objs;
	ds_err err = {0};

	if (!vo.function)
		vo.function = fn;
	for (size_t i = 0; views[i]; i++)
		build(s, views[i], &vo);
	/* groupings by every key, and by keys of each kind nested */
	for (size_t i = 0; ds_dim_name(i); i++) {
		char *view = ds_xasprintf("by:%s", strcmp(ds_dim_name(i), "mobj:NAME") ? ds_dim_name(i) : "mobj:L1D_set");
		build(s, view, &vo);
		free(view);
	}
	build(s, "by:function,field", &vo);
	build(s, "by:thread,cacheline,offset", &vo);
	build(s, "by:time,verdict,event,module", &vo);
	if ((objs = ds_session_mobjs(s, &err)))
		for (size_t i = 0; i < objs->n; i++) {
			char *view = ds_xasprintf("memobj:%s", objs->v[i].name);
			build(s, view, &vo);
			free(view);
		}
	layouts(s);
	free(fn);
}

/* One view compared, as `dsprof diff --view VIEW` compares it: the one
 * opts names, else one the input's size picks (each input stays fast,
 * and mutations reach them all). */
static void diff_view(ds_session *a, ds_session *b, const ds_view_opts *vo, const char *view, size_t size)
{
	const char *const *views = ds_view_names();
	ds_diff_opts o = {.sort = vo->sort, .limit = vo->limit};
	ds_diff *d;
	ds_err err = {0};
	size_t n = 0;

	while (views[n])
		n++;
	if (!view)
		view = views[size % n];
	if (ds_diff_sessions(a, b, view, &o, &d, &err) == 0) {
		render_diff(d, view);
		ds_diff_free(d);
	}
}

/* The session's settings from the input; errors leave them as they were. */
static void configure(ds_session *s, const fz_part *parts, size_t n)
{
	const fz_part *machine = fz_find(parts, n, "machine");
	char *mobjs = fz_text(fz_find(parts, n, "mobj")), *filter;
	ds_err err = {0};

	if (machine)
		ds_session_set_machine(s, fz_memfile(0, machine->data, machine->size), &err);
	for (char *l = mobjs, *next; *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		else
			next = l + strlen(l);
		ds_session_add_mobj(s, l, &err);
	}
	free(mobjs);
	if (fz_find(parts, n, "filter")) {
		filter = fz_text(fz_find(parts, n, "filter"));
		ds_session_set_filter(s, filter, &err);
		free(filter);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts);
	ds_view_opts vo = {0};
	const char *diff = NULL;
	char *opts;
	ds_session *a, *b;
	bool two;

	fz_clear();
	if (!write_side(parts, n, "a"))
		return 0;
	two = write_side(parts, n, "b");
	if (!(a = open_side("a")))
		return 0;
	opts = fz_text(fz_find(parts, n, "opts"));
	parse_opts(opts, &vo, &diff);
	configure(a, parts, n);
	for (size_t i = 0; i < ds_session_nnotes(a); i++)
		(void)strlen(ds_session_note(a, i));
	every_view(a, &vo);
	if ((b = open_side(two ? "b" : "a"))) {
		configure(b, parts, n);
		diff_view(a, b, &vo, diff, size);
		ds_session_close(b);
	}
	ds_session_close(a);
	free(opts);
	return 0;
}
