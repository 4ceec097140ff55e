/* dsprof layout [BINARY | -i DIR] [TYPE...] [--line N] [--all]: pahole's view of types. */
#include "cli/cli.h"

#include "analyze/analyze.h"
#include "dwarfmap/dwarfmap.h"
#include "experiment/experiment.h"
#include "memobj/memobj.h"

#include <getopt.h>
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
	"                         member with its samples; without TYPE, the sampled types\n"
	"  -l, --line N           cache-line size in bytes (default: the experiment's L1D\n"
	"                         line, else this machine's, else 64)\n"
	"  -a, --all              also the anonymous structs and unions named by a typedef;\n"
	"                         with -i, every type, sampled or not\n"
	"      --debug-root DIR   where separate debug files live (default /usr/lib/debug)\n";

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

/* With an experiment, each line of pahole's text is preceded by metrics,
 * per event: the samples of a member (with everything nested in it) and
 * its share of the type's; the type's own line has its total. */
static int metrics_prefix(source *src, const ds_layout *l, const ds_layout_row *r, ds_buf *out,
			  ds_err *err)
{
	size_t nev = ds_session_nevents(src->session);
	uint64_t *tot = ds_xcalloc(nev * 4, sizeof *tot), *tc = tot + nev, *ms = tc + nev, *mc = ms + nev;
	bool member = (r->kind == DS_LROW_MEMBER || r->kind == DS_LROW_CLOSE) && r->path && !r->pointee;
	int rc = 0;

	if (r->kind == DS_LROW_BEGIN || member)
		rc = ds_session_member_metrics(src->session, l->type, "", tot, tc, err);
	if (!rc && member)
		rc = ds_session_member_metrics(src->session, l->type, r->path, ms, mc, err);
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

/* One type, pahole's text row by row; member rows carry the member's path,
 * which is how an experiment's metrics are put beside them. */
static int print_layout(source *src, const ds_type *t, ds_buf *out, ds_err *err)
{
	ds_layout *l = ds_layout_build(t, src->line, err);
	int rc = 0;

	if (!l)
		return -1;
	for (size_t i = 0; rc == 0 && i < l->nrows; i++) {
		if (!l->rows[i].text)
			continue;
		if (src->session && l->rows[i].kind != DS_LROW_BLANK)
			rc = metrics_prefix(src, l, &l->rows[i], out, err);
		put_safe(out, l->rows[i].text);
		ds_buf_putc(out, '\n');
	}
	ds_layout_free(l);
	return rc;
}

/* The header over the metric columns: event names, then what each is. */
static void metrics_header(source *src, ds_buf *out)
{
	size_t nev = ds_session_nevents(src->session);
	for (size_t e = 0; e < nev; e++) {
		ds_buf b = {0};
		ds_sanitize(&b, ds_session_event_name(src->session, e), false);
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
 * is two types.  Names are "node", "struct node", "union u" or a typedef. */
static int print_named(source *src, const char *name, ds_buf *out, ds_err *err)
{
	const ds_type *t = ds_dso_find_type(src->dso, name);
	const ds_type *s = t ? ds_type_strip(t) : NULL;
	size_t n = ds_dso_ntypes(src->dso), printed = 0;

	if (!t)
		return ds_err_set(err, DS_EINPUT, "no type '%s' is defined in '%s' (see 'dsprof layout %s')",
				  name, src->binary, src->binary);
	if (s && s->name) {
		for (size_t i = 0; i < n; i++) {
			const ds_type *u = ds_dso_type(src->dso, i);
			if (u->kind == s->kind && strcmp(u->name, s->name) == 0) {
				if (print_layout(src, u, out, err))
					return -1;
				printed++;
			}
		}
	}
	return printed ? 0 : print_layout(src, t, out, err);
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
	if (src->session)
		metrics_header(src, &out);
	if (ntypes == 0)
		rc = src->session && !src->all ? print_hot(src, &out, err) : print_all(src, &out, err);
	for (int i = 0; rc == 0 && i < ntypes; i++)
		rc = print_named(src, types[i], &out, err);
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
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *input = NULL, *debug_root = NULL;
	source src = {0};
	ds_err err = {0};
	uint64_t u;
	int c, status = 0;

	ds_meta_init(&src.meta);
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
		case 'h':
			fputs(layout_usage, stdout);
			return 0;
		default:
			return cli_bad_option("layout", argv, c, NULL);
		}
	}
	if (!input && optind >= argc)
		return cli_usage_error("layout", "give a binary, or an experiment with -i");
	if (input ? open_experiment(&src, input, &err) != 0 : (src.binary = ds_xstrdup(argv[optind++]), 0)) {
		status = cli_fail(&err);
		goto out;
	}
	if (!src.line)
		src.line = default_line(&src);
	if (input) {
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
	ds_dso_close(src.dso);
	ds_session_close(src.session);
	ds_meta_fini(&src.meta);
	free(src.binary);
	return status;
}
