/* dsprof layout [BINARY | -i DIR] [TYPE...] [--line N] [--all]: pahole's view of types. */
#include "cli/cli.h"

#include "analyze/analyze.h"
#include "dwarfmap/dwarfmap.h"
#include "experiment/experiment.h"
#include "memobj/memobj.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char layout_usage[] =
	"usage: dsprof layout [BINARY | -i DIR] [TYPE...] [options]\n"
	"\n"
	"Prints the layout of structs, unions and classes from BINARY's DWARF as\n"
	"pahole does: members with offset and size, holes, padding, cache lines.\n"
	"Without TYPE, every named struct, union and class the binary defines.\n"
	"\n"
	"  -i, --input DIR        the program of an experiment (its recorded command), each\n"
	"                         member with its samples; without TYPE, the sampled types;\n"
	"                         a group of experiments: the first one's program, the samples\n"
	"                         of all of them added up\n"
	"  -l, --line N           cache-line size in bytes (default: the experiment's L1D\n"
	"                         line, else this machine's, else 64)\n"
	"  -a, --all              also the anonymous structs and unions named by a typedef;\n"
	"                         with -i, every type, sampled or not\n"
	"      --debug-root DIR   where separate debug files live (default /usr/lib/debug)\n"
	"      --suggest          with -i: a member order for each type from its profile (hot\n"
	"                         members together, each writing thread's apart, cold ones last\n"
	"                         or split out), as a C header that compiles in place of the\n"
	"                         type's definition, with its new layout and predicted effect\n"
	"      --keep-abi         --suggest: keep every member's offset (a binary interface);\n"
	"                         only alignment is proposed\n"
	"      --verify -- PROG [ARGS]  --suggest: record PROG (the program rebuilt with the\n"
	"                         suggested layout) as the experiment was recorded, and print\n"
	"                         each type's predicted and measured counts side by side\n"
	"                         (PROG's own output goes to standard error)\n";

/* A suggestion's predictions for its type, per event of the experiment. */
typedef struct check {
	char *type;          /* as the data views name it */
	uint64_t *before;
	double *predicted;
} check;

/* What the layouts are read from.  An experiment adds its line size, and
 * is where per-member metrics come from. */
typedef struct source {
	char *binary;        /* malloc'd */
	ds_meta meta;
	bool has_meta;
	ds_dso *dso;
	unsigned line;
	bool all;
	ds_session *session; /* -i: where the per-member metrics come from */
	bool suggest;        /* --suggest: advice instead of the layout */
	ds_suggest_opts so;
	const char *input;   /* -i */
	char **verify;       /* --verify -- PROG [ARGS]: the new build */
	DS_VEC(check) checks; /* each suggested type's predictions, to verify */
	/* -i GROUP: the metrics of every layout to print, gathered from each
	 * experiment in turn before printing */
	const cli_exps *group;
	DS_VEC(char *) events;      /* the experiments' events, by name */
	DS_VEC(ds_layout *) layouts; /* what to print, hottest first without TYPE */
	ds_hash *at;                /* layout, row, event -> its samples in `samples` */
	ds_vec_u64 samples;
	ds_vec_u64 hot;             /* per layout: its type's samples, every event */
} source;

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The command as execvp found it: a name with a slash as it is, else the
 * first match in PATH. */
static char *find_command(const char *cmd)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return is_file(cmd) ? ds_xstrdup(cmd) : NULL;
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		char *p = ds_xasprintf("%.*s/%s", (int)n, n ? path : ".", cmd);
		if (is_file(p) && access(p, X_OK) == 0)
			return p;
		free(p);
		path = end ? end + 1 : NULL;
	}
	return NULL;
}

/* The first executable file the recording saw mapped: the program, for a
 * command dsprof started (the kernel maps it first) and for a process it
 * attached to (its mappings are listed in address order). */
static char *first_executable_mapping(const char *perfdata, ds_err *err)
{
	ds_perfdata *pd;
	ds_record rec;
	uint64_t cursor = 0;
	char *found = NULL;
	int rc;

	if (ds_perfdata_open(perfdata, &pd, err))
		return NULL;
	while (!found && (rc = ds_perfdata_next(pd, &cursor, &rec, err)) == 1)
		if (rec.kind == DS_REC_MMAP && rec.u.mmap.executable && rec.u.mmap.filename[0] == '/' &&
		    is_file(rec.u.mmap.filename))
			found = ds_xstrdup(rec.u.mmap.filename);
	ds_perfdata_close(pd);
	if (!found && !err->msg[0])
		ds_err_set(err, DS_EINPUT, "'%s' maps no program file: give the binary instead of -i",
			   perfdata);
	return found;
}

static int open_experiment(source *src, const char *dir, ds_err *err)
{
	char *perfdata = NULL, *meta = NULL;
	int rc = -1;

	if (ds_expdir_resolve(dir, &perfdata, &meta, err))
		return -1;
	if (meta) {
		if (ds_meta_read(&src->meta, meta, err))
			goto out;
		src->has_meta = true;
		if (src->meta.ntarget > 0)
			src->binary = find_command(src->meta.target[0]);
	}
	if (!src->binary)
		src->binary = first_executable_mapping(perfdata, err);
	rc = src->binary ? 0 : -1;
out:
	free(perfdata);
	free(meta);
	return rc;
}

static unsigned l1d_line(const ds_cache_level *c, int n)
{
	for (int i = 0; i < n; i++)
		if (c[i].level == 1 && strcmp(c[i].type, "Instruction") != 0 && c[i].line)
			return c[i].line;
	return 0;
}

static unsigned default_line(const source *src)
{
	ds_cache_level caches[8];
	const char *from;
	unsigned line = 0;

	if (src->has_meta)
		line = l1d_line(src->meta.caches, src->meta.ncaches);
	if (!line)
		line = l1d_line(caches, ds_geometry_here(caches, 8, &from));
	return line ? line : 64;
}

static bool plain(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t';
}

/* A line with its names made safe for a terminal (pahole's tabs kept).
 * Runs of plain ASCII, nearly all of it, are copied as they are. */
static void put_safe(ds_buf *out, const char *text)
{
	while (*text) {
		size_t n = 0;
		while (plain((unsigned char)text[n]))
			n++;
		ds_buf_append(out, text, n);
		text += n;
		if (*text) {
			size_t k = 0;
			while (text[k] && !plain((unsigned char)text[k]))
				k++;
			char *seg = ds_xstrndup(text, k);
			ds_sanitize(out, seg, false);
			free(seg);
			text += k;
		}
	}
}

static size_t nevents(const source *src)
{
	return src->group ? src->events.n : ds_session_nevents(src->session);
}

static const char *event_name(const source *src, size_t e)
{
	return src->group ? src->events.v[e] : ds_session_event_name(src->session, e);
}

/* A group's samples of row `row` of layout l (SIZE_MAX: the whole type),
 * event e: where they are kept. */
static uint64_t *group_samples(source *src, const ds_layout *l, size_t row, size_t e)
{
	struct {
		const ds_layout *l;
		size_t row, e;
	} key = {l, row, e};
	bool added;
	size_t i = ds_hash_intern(src->at, &key, sizeof key, &added);

	if (added)
		ds_vec_push(&src->samples, 0);
	return &src->samples.v[i];
}

/* Per event, the samples of row i of l (SIZE_MAX: its whole type). */
static int row_samples(source *src, const ds_layout *l, size_t i, uint64_t *samples, ds_err *err)
{
	size_t nev = nevents(src);
	uint64_t *count;
	int rc;

	if (src->group) {
		for (size_t e = 0; e < nev; e++)
			samples[e] = *group_samples(src, l, i, e);
		return 0;
	}
	count = ds_xcalloc(nev + 1, sizeof *count);
	rc = i == SIZE_MAX ? ds_session_member_metrics(src->session, l->type, "", samples, count, err)
			   : ds_session_layout_metrics(src->session, l, i, samples, count, err);
	free(count);
	return rc;
}

/* The row of a layout that has metrics: a member (not behind a pointer),
 * or an anonymous struct or union closed. */
static bool metric_row(const ds_layout_row *r)
{
	return ((r->kind == DS_LROW_MEMBER && r->path) || r->kind == DS_LROW_CLOSE) && !r->pointee;
}

/* With an experiment, each line of pahole's text is preceded by metrics,
 * per event: the samples of a member (with everything nested in it) and
 * its share of the type's; the type's own line has its total. */
static int metrics_prefix(source *src, const ds_layout *l, const ds_layout_row *r, ds_buf *out,
			  ds_err *err)
{
	size_t nev = nevents(src);
	uint64_t *tot = ds_xcalloc(nev * 2 + 1, sizeof *tot), *ms = tot + nev;
	bool member = metric_row(r);
	int rc = 0;

	if (r->kind == DS_LROW_BEGIN || member)
		rc = row_samples(src, l, SIZE_MAX, tot, err);
	if (!rc && member)
		rc = row_samples(src, l, (size_t)(r - l->rows), ms, err);
	for (size_t e = 0; !rc && e < nev; e++) {
		if (r->kind == DS_LROW_BEGIN)
			ds_buf_printf(out, "%9llu %7s ", (unsigned long long)tot[e], "");
		else if (member)
			ds_buf_printf(out, "%9llu %6.1f%% ", (unsigned long long)ms[e],
				      tot[e] ? 100.0 * (double)ms[e] / (double)tot[e] : 0.0);
		else
			ds_buf_printf(out, "%9s %7s ", "", "");
	}
	free(tot);
	return rc;
}

/* One type's layout, pahole's text row by row; member rows carry the
 * member's path, which is how an experiment's metrics are put beside them. */
static int print_built(source *src, const ds_layout *l, ds_buf *out, ds_err *err)
{
	const ds_type *t = l->type;
	int rc = 0;

	/* a definition whose name another one shares says which it is */
	if (ds_type_strip(t)->where) {
		ds_buf label = {0};
		ds_type_ident(t->kind == DS_TYPE_TYPEDEF && ds_type_strip(t)->name ? ds_type_strip(t) : t,
			      &label);
		if (src->session || src->group)
			ds_buf_printf(out, "%*s", (int)(18 * nevents(src)), "");
		put_safe(out, "/* ");
		put_safe(out, ds_buf_str(&label));
		put_safe(out, " */");
		ds_buf_putc(out, '\n');
		ds_buf_free(&label);
	}
	for (size_t i = 0; rc == 0 && i < l->nrows; i++) {
		if (!l->rows[i].text)
			continue;
		if ((src->session || src->group) && l->rows[i].kind != DS_LROW_BLANK)
			rc = metrics_prefix(src, l, &l->rows[i], out, err);
		put_safe(out, l->rows[i].text);
		ds_buf_putc(out, '\n');
	}
	return rc;
}

/* Type t: printed now, or with a group kept to be printed once every
 * experiment's metrics are in. */
static int print_layout(source *src, const ds_type *t, ds_buf *out, ds_err *err)
{
	ds_layout *l = ds_layout_build(t, src->line, err);
	int rc;

	if (!l)
		return -1;
	if (src->group) {
		ds_vec_push(&src->layouts, l);
		ds_vec_push(&src->hot, 0);
		return 0;
	}
	if (src->suggest && src->verify) {
		size_t nev = ds_session_nevents(src->session) + 1;
		check c = {NULL, ds_xcalloc(nev, sizeof *c.before), ds_xcalloc(nev, sizeof *c.predicted)};
		ds_buf name = {0};
		ds_type_name(l->type, &name);
		c.type = l->typedef_name ? ds_xstrdup(l->typedef_name) : ds_buf_steal(&name);
		ds_buf_free(&name);
		src->so.before = c.before;
		src->so.predicted = c.predicted;
		ds_vec_push(&src->checks, c);
	}
	rc = src->suggest ? ds_layout_suggest(src->session, l, &src->so, out, err) : print_built(src, l, out, err);
	ds_layout_free(l);
	return rc;
}

/* The header over the metric columns: event names, then what each is. */
static void metrics_header(source *src, ds_buf *out)
{
	size_t nev = nevents(src);
	if (src->group)
		ds_buf_printf(out, "# %zu experiments, their samples added up\n", src->group->n);
	for (size_t e = 0; e < nev; e++) {
		ds_buf b = {0};
		ds_sanitize(&b, event_name(src, e), false);
		ds_buf_printf(out, e ? "%17.17s " : "#%16.16s ", ds_buf_str(&b));
		ds_buf_free(&b);
	}
	ds_buf_putc(out, '\n');
	for (size_t e = 0; e < nev; e++)
		ds_buf_printf(out, e ? "%9s %7s " : "#%8s %7s ", "samples", "share");
	ds_buf_puts(out, " (share: of the type's samples)\n");
}
static bool is_aggregate(const ds_type *t)
{
	return t->kind == DS_TYPE_STRUCT || t->kind == DS_TYPE_UNION || t->kind == DS_TYPE_CLASS;
}

/* The list has named structs, unions, classes and enums, and typedefs
 * naming anonymous ones: --all adds those typedefs of structs and unions. */
static bool is_layout_type(const ds_type *t, bool all)
{
	if (t->kind == DS_TYPE_TYPEDEF)
		return all && is_aggregate(ds_type_strip(t));
	return is_aggregate(t);
}

/* With an experiment and no TYPE: the types whose members were sampled,
 * hottest first (--all: every type, as without an experiment). */
static int print_hot(source *src, ds_buf *out, ds_err *err)
{
	const ds_type **hot;
	size_t n;
	int rc = 0;

	if (ds_session_hot_types(src->session, &hot, &n, err))
		return -1;
	if (n == 0)
		ds_buf_puts(out, "# no sampled access touched a struct, union or class "
				 "(see 'dsprof report --view dataobjects')\n");
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = print_layout(src, hot[i], out, err);
	free(hot);
	return rc;
}

static int print_all(source *src, ds_buf *out, ds_err *err)
{
	size_t n = ds_dso_ntypes(src->dso);

	for (size_t i = 0; i < n; i++) {
		const ds_type *t = ds_dso_type(src->dso, i);
		if (is_layout_type(t, src->all) && print_layout(src, t, out, err))
			return -1;
	}
	return 0;
}

/* Every layout a name has: "struct x" defined differently in two places
 * is two types.  Names are "node", "struct node", "union u", a typedef,
 * or a label with the definition's file ("struct node (tu2.c:3)"). */
static int print_named(source *src, const char *name, ds_buf *out, ds_err *err)
{
	size_t n = ds_dso_find_types(src->dso, name, NULL, 0);
	const ds_type **found = ds_xcalloc(n ? n : 1, sizeof *found);
	int rc = 0;

	ds_dso_find_types(src->dso, name, found, n);
	if (!n)
		rc = ds_err_set(err, DS_EINPUT, "no type '%s' is defined in '%s' (see 'dsprof layout %s')",
				name, src->binary, src->binary);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = print_layout(src, found[i], out, err);
	free(found);
	return rc;
}

/* One experiment's samples of every layout kept, added to the group's. */
static int gather_one(source *src, ds_session *s, ds_err *err)
{
	size_t nev = ds_session_nevents(s), *ev = ds_xcalloc(nev + 1, sizeof *ev);
	uint64_t *v = ds_xcalloc(nev * 2 + 1, sizeof *v), *c = v + nev;
	int rc = 0;

	for (size_t e = 0; e < nev; e++) {
		const char *name = ds_session_event_name(s, e);
		for (ev[e] = 0; ev[e] < src->events.n && strcmp(src->events.v[ev[e]], name) != 0; ev[e]++)
			;
		if (ev[e] == src->events.n)
			ds_vec_push(&src->events, ds_xstrdup(name));
	}
	for (size_t k = 0; !rc && k < src->layouts.n; k++) {
		const ds_layout *l = src->layouts.v[k];
		if ((rc = ds_session_member_metrics(s, l->type, "", v, c, err)))
			break;
		for (size_t e = 0; e < nev; e++) {
			*group_samples(src, l, SIZE_MAX, ev[e]) += v[e];
			src->hot.v[k] += v[e];
		}
		for (size_t i = 0; !rc && i < l->nrows; i++) {
			if (!metric_row(&l->rows[i]))
				continue;
			rc = ds_session_layout_metrics(s, l, i, v, c, err);
			for (size_t e = 0; !rc && e < nev; e++)
				*group_samples(src, l, i, ev[e]) += v[e];
		}
	}
	free(ev);
	free(v);
	return rc;
}

/* Hottest first; the order found among equals. */
static void sort_hot(source *src)
{
	for (size_t i = 1; i < src->layouts.n; i++)
		for (size_t j = i; j > 0 && src->hot.v[j] > src->hot.v[j - 1]; j--) {
			ds_layout *l = src->layouts.v[j];
			uint64_t h = src->hot.v[j];
			src->layouts.v[j] = src->layouts.v[j - 1];
			src->hot.v[j] = src->hot.v[j - 1];
			src->layouts.v[j - 1] = l;
			src->hot.v[j - 1] = h;
		}
}

/* -i GROUP: each experiment in turn, its samples of every layout kept;
 * without TYPE, the layouts are those of the types any of them sampled
 * (in the program of the first), hottest first over them all. */
static int gather(source *src, bool hot, const char *debug_root, ds_err *err)
{
	cli_said *notes = cli_said_new();
	int rc = 0;

	for (size_t k = 0; !rc && k < src->group->n; k++) {
		ds_session_opts so = {.debug_root = debug_root, .progress = isatty(STDERR_FILENO),
				      .label = src->group->v[k].label};
		ds_session *s = NULL;
		const ds_type **types = NULL;
		size_t n = 0;
		ds_buf sink = {0};

		rc = ds_session_open(src->group->v[k].path, &so, &s, err) ||
		     (hot && ds_session_hot_types(s, &types, &n, err));
		for (size_t i = 0; !rc && i < n; i++) {
			ds_buf label = {0};
			const ds_type *t;
			bool have = false;
			ds_type_ident(types[i], &label);
			t = ds_dso_find_type(src->dso, ds_buf_str(&label));
			for (size_t j = 0; t && j < src->layouts.n && !have; j++)
				have = src->layouts.v[j]->type == t;
			if (t && !have)
				rc = print_layout(src, t, &sink, err);
			ds_buf_free(&label);
		}
		free(types);
		if (!rc)
			rc = gather_one(src, s, err);
		if (s)
			cli_said_add(notes, s);
		ds_session_close(s);
	}
	cli_said_print(notes);
	if (hot)
		sort_hot(src);
	return rc;
}

/* The options of the command that made the experiment, for recording the
 * new build alike: all but where it went and what ran (and the group it
 * joined, a process it attached to). */
typedef DS_VEC(char *) str_vec;

static void record_options(const ds_meta *m, str_vec *av)
{
	static const char *const with_value[] = {"-o", "--output", "--group", "--repeat", "-p", "--pid"};
	static const char *const alone[] = {"--follow-exec", "--detach"};
	int end = m->argc - m->ntarget;

	if (end > 2 && strcmp(m->argv[end - 1], "--") == 0)
		end--;
	for (int i = 2; i < end; i++) { /* after "dsprof record" */
		const char *a = m->argv[i];
		bool drop = false, skip_next = false;
		for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
			size_t n = strlen(with_value[k]);
			if (!strcmp(a, with_value[k]))
				drop = skip_next = true;
			else if (!strncmp(a, with_value[k], n) && a[n] == (with_value[k][1] == '-' ? '=' : a[n]) &&
				 (with_value[k][1] == '-' || a[n]))
				drop = true; /* --output=DIR, -oDIR */
		}
		for (size_t k = 0; k < sizeof alone / sizeof alone[0]; k++)
			drop |= !strcmp(a, alone[k]);
		if (!drop)
			ds_vec_push(av, ds_xstrdup(a));
		i += skip_next;
	}
}

/* --verify: the new build recorded as the experiment was, each suggested
 * type's counts then beside its prediction, as // comments after the
 * header. */
static int verify(source *src, ds_buf *out, ds_err *err)
{
	const ds_meta *m = &src->meta;
	char *exp = NULL, *exp_arg = NULL;
	ds_wdir *dir;
	str_vec av = {0};
	ds_session *s2 = NULL;
	ds_table *t = NULL;
	int rc = 0, status, saved = -1;

	if (!src->has_meta || !m->argv || m->argc < 3 || !m->target || m->ntarget < 1)
		return ds_err_set(err, DS_EINPUT,
				  "--verify records the new build as '%s' was recorded, and its meta.json does not "
				  "say how (an import, or a process attached to): record the new build yourself "
				  "and compare with 'dsprof diff'", src->input);
	if (!(dir = ds_wdir_temp("verify", err)))
		return ds_err_prefix(err, "--verify: ");
	exp = ds_wdir_join(dir, "new");
	ds_vec_push(&av, ds_xstrdup("record"));
	record_options(m, &av);
	ds_vec_push(&av, ds_xstrdup("-q"));
	ds_vec_push(&av, ds_xstrdup("-o"));
	ds_vec_push(&av, exp_arg = ds_xstrdup(exp));
	ds_vec_push(&av, ds_xstrdup("--"));
	for (char **c = src->verify; *c; c++)
		ds_vec_push(&av, ds_xstrdup(*c));
	ds_vec_push(&av, NULL);
	/* the header goes to standard output: what PROG prints goes to
	 * standard error */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		rc = ds_err_set(err, DS_EENV, "--verify: cannot set standard output aside: %s", strerror(errno));
		goto out;
	}
	status = cmd_record((int)av.n - 1, av.v);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	if (status) {
		rc = ds_err_set(err, DS_EINPUT, "--verify: recording '%s' failed (status %d)", src->verify[0], status);
		goto out;
	}
	if (ds_session_open(exp, NULL, &s2, err) || ds_view_build(s2, "dataobjects", NULL, &t, err)) {
		rc = -1;
		goto out;
	}
	ds_buf_puts(out, "//\n// verified: the new build, recorded as the experiment was:");
	ds_buf_puts(out, " dsprof");
	for (size_t i = 0; i + 1 < av.n; i++)
		if (av.v[i] != exp_arg && av.v[i + 1] != exp_arg)
			ds_buf_printf(out, strpbrk(av.v[i], " \t'\"$;&|<>*?()") ? " '%s'" : " %s", av.v[i]);
	ds_buf_putc(out, '\n');
	for (size_t k = 0; k < src->checks.n; k++) {
		const check *c = &src->checks.v[k];
		const ds_row *row = NULL;
		for (size_t r = 0; r < t->nrows && !row; r++)
			if (!strcmp(t->rows[r].name, c->type))
				row = &t->rows[r];
		for (size_t e = 0; e < ds_session_nevents(src->session); e++) {
			const char *ev = ds_session_event_name(src->session, e);
			uint64_t now = 0;
			if (c->predicted[e] < 0)
				continue;
			for (size_t x = 0; row && x < t->nevents; x++)
				if (!strcmp(t->events[x].name, ev))
					now = row->count[x];
			ds_buf_printf(out, "//   %s, %s: before %llu, predicted %.0f, now %llu (%+.1f%%)", c->type, ev,
				      (unsigned long long)c->before[e], c->predicted[e], (unsigned long long)now,
				      c->before[e] ? 100.0 * ((double)now - (double)c->before[e]) / (double)c->before[e] : 0.0);
			if (now)
				ds_buf_printf(out, ": the prediction %.1f%% %s\n",
					      100.0 * fabs(c->predicted[e] - (double)now) / (double)now,
					      c->predicted[e] >= (double)now ? "over" : "under");
			else
				ds_buf_puts(out, c->predicted[e] < 0.5 ? ": as predicted\n" : "\n");
		}
	}
out:
	if (saved >= 0)
		close(saved);
	ds_table_free(t);
	ds_session_close(s2);
	for (size_t i = 0; i < av.n; i++)
		free(av.v[i]);
	ds_vec_free(&av);
	ds_expdir_remove(ds_wdir_path(dir), NULL);
	ds_wdir_close(dir);
	free(exp);
	return rc;
}

static int run(source *src, char **types, int ntypes, const char *debug_root, ds_err *err)
{
	ds_dso_opts o = {.debug_root = debug_root, .progress = isatty(STDERR_FILENO)};
	ds_buf out = {0};
	int rc = 0;

	src->dso = ds_dso_open(src->binary, &o, err);
	if (!src->dso)
		return -1;
	if (!ds_dso_debug_file(src->dso)) {
		ds_err_set(err, DS_EINPUT, "'%s' has no DWARF debug information (built without -g?)",
			   src->binary);
		return -1;
	}
	if (src->session && !src->suggest)
		metrics_header(src, &out);
	if (ntypes == 0 && !(src->group && !src->all))
		rc = src->session && !src->all ? print_hot(src, &out, err) : print_all(src, &out, err);
	for (int i = 0; rc == 0 && i < ntypes; i++)
		rc = print_named(src, types[i], &out, err);
	if (rc == 0 && src->group) {
		/* the layouts are known (TYPE, --all) or found (the sampled types):
		 * their metrics first, then the text */
		rc = gather(src, ntypes == 0 && !src->all, debug_root, err);
		metrics_header(src, &out);
		if (!rc && !src->layouts.n)
			ds_buf_puts(&out, "# no sampled access touched a struct, union or class "
					  "(see 'dsprof report --view dataobjects')\n");
		for (size_t k = 0; !rc && k < src->layouts.n; k++)
			rc = print_built(src, src->layouts.v[k], &out, err);
	}
	if (rc == 0 && src->verify)
		rc = verify(src, &out, err);
	if (rc == 0 && (fwrite(out.p ? out.p : "", 1, out.len, stdout) != out.len || fflush(stdout))) {
		ds_err_set(err, DS_EENV, "cannot write the layout to standard output");
		rc = -1;
	}
	ds_buf_free(&out);
	if (rc == 0 && ds_dso_note(src->dso))
		cli_note(ds_dso_note(src->dso));
	return rc;
}

int cmd_layout(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"line", required_argument, NULL, 'l'},
		{"all", no_argument, NULL, 'a'},
		{"debug-root", required_argument, NULL, 'D'},
		{"suggest", no_argument, NULL, 'S'},
		{"keep-abi", no_argument, NULL, 'K'},
		{"verify", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *input = NULL, *debug_root = NULL;
	bool verify_flag = false;
	source src = {0};
	cli_exps exps = {0};
	ds_err err = {0};
	uint64_t u;
	int c, status = 0;

	ds_meta_init(&src.meta);
	/* --verify's command follows "--": not options, not types */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			src.verify = argv + i + 1;
			argv[i] = NULL;
			argc = i;
			break;
		}
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:l:ah", lopts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'l':
			if (!ds_parse_u64(optarg, &u, false) || u == 0 || u > 1u << 20)
				return cli_usage_error("layout", "bad --line '%s' (bytes, 1 to 1048576)", optarg);
			src.line = (unsigned)u;
			break;
		case 'a': src.all = true; break;
		case 'D': debug_root = optarg; break;
		case 'S': src.suggest = true; break;
		case 'K': src.so.keep_abi = true; break;
		case 'V': verify_flag = true; break;
		case 'h':
			fputs(layout_usage, stdout);
			return 0;
		default:
			return cli_bad_option("layout", argv, c, NULL);
		}
	}
	if (!input && optind >= argc)
		return cli_usage_error("layout", "give a binary, or an experiment with -i");
	if (src.suggest && !input)
		return cli_usage_error("layout", "--suggest needs the profile of an experiment: give it with -i");
	if (src.so.keep_abi && !src.suggest)
		return cli_usage_error("layout", "--keep-abi applies to --suggest");
	if (verify_flag != (src.verify != NULL) || (src.verify && !src.verify[0]))
		return cli_usage_error("layout", "--verify takes the new build's command after '--': "
						 "--suggest --verify -- PROG [ARGS]");
	if (verify_flag && !src.suggest)
		return cli_usage_error("layout", "--verify applies to --suggest");
	src.input = input;
	if (src.suggest && ds_group_is(input))
		return cli_usage_error("layout", "--suggest reads one experiment, not a group: give one of its members");
	if (input && ds_group_is(input)) {
		/* the program of the first experiment; the samples of all */
		if (cli_expand(&input, 1, &exps, &err)) {
			status = cli_fail(&err);
			goto out;
		}
		src.group = &exps;
		src.at = ds_hash_new();
		input = exps.v[0].path;
	}
	if (input ? open_experiment(&src, input, &err) != 0 : (src.binary = ds_xstrdup(argv[optind++]), 0)) {
		status = cli_fail(&err);
		goto out;
	}
	if (!src.line)
		src.line = default_line(&src);
	src.so.line = src.line;
	if (input && !src.group) {
		ds_session_opts so = {.debug_root = debug_root, .progress = isatty(STDERR_FILENO)};
		if (ds_session_open(input, &so, &src.session, &err)) {
			status = cli_fail(&err);
			goto out;
		}
	}
	if (run(&src, argv + optind, argc - optind, debug_root, &err))
		status = cli_fail(&err);
	for (size_t i = 0; status == 0 && src.session && i < ds_session_nnotes(src.session); i++)
		cli_note(ds_session_note(src.session, i));
out:
	for (size_t i = 0; i < src.layouts.n; i++)
		ds_layout_free(src.layouts.v[i]);
	ds_vec_free(&src.layouts);
	for (size_t i = 0; i < src.checks.n; i++) {
		free(src.checks.v[i].type);
		free(src.checks.v[i].before);
		free(src.checks.v[i].predicted);
	}
	ds_vec_free(&src.checks);
	for (size_t i = 0; i < src.events.n; i++)
		free(src.events.v[i]);
	ds_vec_free(&src.events);
	ds_vec_free(&src.samples);
	ds_vec_free(&src.hot);
	ds_hash_free(src.at);
	cli_exps_free(&exps);
	ds_dso_close(src.dso);
	ds_session_close(src.session);
	ds_meta_fini(&src.meta);
	free(src.binary);
	return status;
}
