/* dsprof report [-i DIR] [--view V | --by KEYS] [--sort KEY] [--limit N] [--tid T] [--format F]
 *               [--type NAME] [--allocsite NAME] [--line N] [--line-size N] [--level L] [--type-stats]
 *               [--function F] [--file PATH] [--metrics LIST]
 *               [--slices N] [--window FROM:TO] [--cross EXP] */
#include "cli/cli.h"

#include "analyze/analyze.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char report_usage[] =
	"usage: dsprof report [options]\n"
	"\n"
	"  -i, --input DIR        experiment directory or perf.data file (default dsprof.data), or\n"
	"                         a group of experiments (record --group, --repeat); several -i\n"
	"                         report their experiments as one\n"
	"      --merge HOW        several experiments: sum (the ranks of a job; the default) or\n"
	"                         mean (the default for repeated runs of a group)\n"
	"  -v, --view VIEW        functions (default), lines, pcs, threads, summary, samples,\n"
	"                         dataobjects, datalayout, typestats, callers, calltree, bottomup,\n"
	"                         annotate, source, timeline, hotlines, sharing, heap, leaks,\n"
	"                         accessmap (record --heap), lineuse,\n"
	"                         memobj:NAME (a memory object: 'dsprof mobj list')\n"
	"  -s, --sort KEY         samples, count, incl, incl_count (optionally KEY:EVENT), an event\n"
	"                         name, name, or a column of the view\n"
	"  -b, --by KEY[,KEY...]  group the samples by these keys, nested in that order (function,\n"
	"                         module, line, pc, thread, cpu, dataobject, field, offset,\n"
	"                         cacheline, page, mobj:NAME, allocsite, allocation, time, verdict,\n"
	"                         event, memlevel, snoop, tlb, locked, op, latency, callpath,\n"
	"                         experiment, rank);\n"
	"                         '--by help' says what each is\n"
	"  -n, --limit N          print the first N rows (with --by, at each level)\n"
	"  -t, --tid T[,T...]     only these threads\n"
	"  -f, --format FORMAT    text (default), csv, json, or folded: the call paths of the\n"
	"                         samples as flame-graph tools read them (path;to;leaf N)\n"
	"  -m, --metrics LIST     which metric columns of which events: all; percent, samples,\n"
	"                         count, incl, incl_percent, incl_samples, incl_count; EVENT;\n"
	"                         EVENT:COLUMN (default, text: the first event's columns, the\n"
	"                         others' percent; CSV and JSON: every event's counts)\n"
	"      --allocsite NAME   accessmap of this allocation site only (its name, or its function's)\n"
	"      --type NAME        datalayout of this type only (\"struct node\" or \"node\");\n"
	"                         implies --view datalayout\n"
	"      --line N           datalayout: draw N-byte cache lines (a power of two, 8..4096)\n"
	"                         instead of each cache level's measured line; hotlines,\n"
	"                         sharing: N-byte lines (= --line-size N)\n"
	"      --line-size N      hotlines, sharing, --by cacheline: N-byte cache lines (a power\n"
	"                         of two)\n"
	"      --level LEVEL      hotlines, sharing, --by cacheline: the lines of L1D (default),\n"
	"                         L2 or L3\n"
	"      --filter EXPR      only the samples EXPR accepts (FUNC == \"main\", DOBJ, FIELD,\n"
	"                         MOBJ(L1D_set) == 5, VADDR, PADDR, THRID, CPUID, VIRTPC, TSTAMP,\n"
	"                         ASITE, BLOCKOFF, and every --by key)\n"
	"      --mobj NAME=EXPR   define a memory object for this report (repeatable)\n"
	"      --machine FILE     evaluate memory objects for a machine model, not the\n"
	"                         experiment's machine\n"
	"      --cross EXP        dataobjects: per row, the share of its samples at loads and\n"
	"                         stores where EXP, a --sim recording of the same program,\n"
	"                         has no miss sample (column nomiss)\n"
	"      --type-stats       how samples were resolved to data (= --view typestats)\n"
	"      --function NAME    callers, annotate, source: the function (NAME or NAME@MODULE)\n"
	"      --file PATH        source: the source file (or its last path components)\n"
	"      --slices N         timeline: time slices per thread (default 100); --by time:\n"
	"                         slices of the run (default 10)\n"
	"      --window FROM:TO   timeline: only ns FROM to TO after the first sample\n"
	"      --ascii            plain ASCII text (non-ASCII bytes escaped)\n"
	"      --debug-root DIR   where separate debug files live (default /usr/lib/debug)\n"
	"      --heap-wrappers LIST\n"
	"                         functions that allocate for their callers (NAME or\n"
	"                         PREFIX*, comma-separated): allocation sites are their callers\n"
	"      --kallsyms FILE    kernel symbols of the recording machine\n";

static int parse_tids(const char *s, ds_vec_u32 *out)
{
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || v == 0 || v > 0xffffffffu || (*end && *end != ','))
			return -1;
		ds_vec_push(out, (uint32_t)v);
		s = *end ? end + 1 : end;
	}
	return out->n ? 0 : -1;
}

/* What every experiment's session gets before its view is built. */
typedef struct prep {
	const char *machine, *filter, *cross;
	const char *const *mobjs;
	size_t nmobjs;
	const ds_session_opts *so;
} prep;

static int prepare(ds_session *s, void *ctx, ds_err *err)
{
	const prep *p = ctx;

	if (p->machine && ds_session_set_machine(s, p->machine, err))
		return -1;
	for (size_t i = 0; i < p->nmobjs; i++)
		if (ds_session_add_mobj(s, p->mobjs[i], err))
			return -1;
	if (p->cross) {
		ds_session_opts xo = {.debug_root = p->so->debug_root, .kallsyms = p->so->kallsyms,
				      .heap_wrappers = p->so->heap_wrappers, .progress = p->so->progress};
		ds_session *x = NULL;
		int bad = ds_session_open(p->cross, &xo, &x, err) || ds_session_set_cross(s, x, err);
		ds_session_close(x);
		if (bad)
			return -1;
	}
	return p->filter ? ds_session_set_filter(s, p->filter, err) : 0;
}

/* Several experiments as one table (cli/group.c). */
static int report_merged(const cli_exps *e, int how, const ds_session_opts *so, const char *view,
			 const ds_view_opts *vo, prep *p, const char *metrics, enum cli_format fmt, bool ascii)
{
	ds_table *t = NULL;
	bool *show = NULL;
	ds_err err = {0};
	ds_buf src = {0};
	int status = 0;

	if (cli_merged_view(e, how, so, view, vo, prepare, p, &t, &err) ||
	    cli_metrics(t, metrics, fmt, &show, &err)) {
		ds_table_free(t);
		return cli_fail(&err);
	}
	ds_buf_printf(&src, "%zu experiments, %s", e->n, how == DS_MERGE_MEAN ? "mean" : "sum");
	cli_render(stdout, t, fmt, ds_buf_str(&src), ascii, show);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ds_err_set(&err, DS_EENV, "cannot write the report to standard output");
		status = cli_fail(&err);
	}
	ds_buf_free(&src);
	ds_table_free(t);
	free(show);
	return status;
}

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"view", required_argument, NULL, 'v'},
		{"by", required_argument, NULL, 'b'},
		{"sort", required_argument, NULL, 's'},
		{"limit", required_argument, NULL, 'n'},
		{"tid", required_argument, NULL, 't'},
		{"format", required_argument, NULL, 'f'},
		{"metrics", required_argument, NULL, 'm'},
		{"ascii", no_argument, NULL, 'A'},
		{"debug-root", required_argument, NULL, 'D'},
		{"kallsyms", required_argument, NULL, 'K'},
		{"heap-wrappers", required_argument, NULL, 'H'},
		{"type", required_argument, NULL, 'T'},
		{"allocsite", required_argument, NULL, 'a'},
		{"line", required_argument, NULL, 'L'},
		{"line-size", required_argument, NULL, 'Z'},
		{"type-stats", no_argument, NULL, 'S'},
		{"function", required_argument, NULL, 'F'},
		{"file", required_argument, NULL, 'P'},
		{"slices", required_argument, NULL, 'N'},
		{"window", required_argument, NULL, 'W'},
		{"level", required_argument, NULL, 'E'},
		{"filter", required_argument, NULL, 'X'},
		{"mobj", required_argument, NULL, 'O'},
		{"machine", required_argument, NULL, 'C'},
		{"cross", required_argument, NULL, 'R'},
		{"merge", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *input = "dsprof.data", *view = NULL, *filter = NULL, *machine = NULL, *cross = NULL;
	const char *inputs[64]; /* -i, in order */
	size_t ninputs = 0;
	cli_exps exps = {0};
	int merge = -1;
	const char *by = NULL, *metrics = NULL;
	bool *show = NULL;
	char *by_view = NULL;
	const char *mobjs[64]; /* --mobj, in order */
	size_t nmobjs = 0;
	ds_session_opts so = {0};
	ds_view_opts vo = {0};
	enum cli_format fmt = CLI_TEXT;
	ds_vec_u32 tids = {0};
	bool ascii = false, type_stats = false, line_size = false;
	ds_session *s = NULL;
	ds_table *t = NULL;
	ds_err err = {0};
	uint64_t u;
	bool lines_view, grouping;
	int c, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:v:b:s:n:t:f:m:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (ninputs == sizeof inputs / sizeof inputs[0]) {
				ds_vec_free(&tids);
				return cli_usage_error("report", "more than %zu -i options (a group stands for many)",
						       ninputs);
			}
			inputs[ninputs++] = optarg;
			break;
		case 'M':
			if (cli_parse_merge("report", optarg, &merge))
				return 1;
			break;
		case 'v': view = optarg; break;
		case 'b': by = optarg; break;
		case 'm': metrics = optarg; break;
		case 's': vo.sort = optarg; break;
		case 'n':
			if (!ds_parse_u64(optarg, &u, false) || u == 0)
				return cli_usage_error("report", "bad --limit '%s'", optarg);
			vo.limit = (size_t)u;
			break;
		case 't':
			if (parse_tids(optarg, &tids)) {
				ds_vec_free(&tids);
				return cli_usage_error("report", "bad --tid '%s' (thread ids, comma-separated)", optarg);
			}
			break;
		case 'f':
			if (cli_parse_format("report", optarg, &fmt))
				return 1;
			break;
		case 'A': ascii = true; break;
		case 'D': so.debug_root = optarg; break;
		case 'K': so.kallsyms = optarg; break;
		case 'H': so.heap_wrappers = optarg; break;
		case 'T': vo.type = optarg; break;
		case 'a': vo.allocsite = optarg; break;
		case 'L':
		case 'Z':
			if (!ds_parse_u64(optarg, &u, false) || u < 8 || u > 4096 || (u & (u - 1)))
				return cli_usage_error("report", "bad --%s '%s' (a power of two from 8 to 4096)",
						       c == 'Z' ? "line-size" : "line", optarg);
			vo.line = (unsigned)u;
			line_size |= c == 'Z';
			break;
		case 'S': type_stats = true; break;
		case 'E': vo.level = optarg; break;
		case 'X': filter = optarg; break;
		case 'O':
			if (nmobjs == sizeof mobjs / sizeof mobjs[0]) {
				ds_vec_free(&tids);
				return cli_usage_error("report", "more than %zu --mobj options", nmobjs);
			}
			mobjs[nmobjs++] = optarg;
			break;
		case 'C': machine = optarg; break;
		case 'R': cross = optarg; break;
		case 'F': vo.function = optarg; break;
		case 'P': vo.file = optarg; break;
		case 'N':
			if (!ds_parse_u64(optarg, &u, false) || u == 0 || u > 100000)
				return cli_usage_error("report", "bad --slices '%s' (1 to 100000)", optarg);
			vo.slices = (unsigned)u;
			break;
		case 'W': {
			char *colon = strchr(optarg, ':');
			char *from = colon ? ds_xstrndup(optarg, (size_t)(colon - optarg)) : NULL;
			bool good = from && ds_parse_u64(from, &vo.from_ns, true) &&
				    ds_parse_u64(colon + 1, &vo.to_ns, true) && vo.to_ns > vo.from_ns;
			free(from);
			if (!good)
				return cli_usage_error("report", "bad --window '%s' (FROM:TO in ns, FROM < TO)", optarg);
			break;
		}
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default:
			ds_vec_free(&tids);
			return cli_bad_option("report", argv, c, NULL);
		}
	}
	if (optind < argc) {
		ds_vec_free(&tids);
		return cli_usage_error("report", "unexpected argument '%s' (the experiment is given with -i)",
				       argv[optind]);
	}
	if (by && strcmp(by, "help") == 0) {
		ds_vec_free(&tids);
		cli_print_keys(stdout);
		return 0;
	}
	if (by && (view || type_stats)) {
		ds_vec_free(&tids);
		return cli_usage_error("report", "give --by or --view, not both");
	}
	if (fmt == CLI_FOLDED) {
		if (view || by || type_stats) {
			ds_vec_free(&tids);
			return cli_usage_error("report", "--format folded prints the call paths of all samples "
							 "(--filter and --tid choose them); it takes no --view or --by");
		}
		by = "callpath";
	}
	if (by)
		view = by_view = ds_xasprintf("by:%s", by);
	if (type_stats) {
		if (view && strcmp(view, "typestats") != 0) {
			ds_vec_free(&tids);
			return cli_usage_error("report", "--type-stats is --view typestats; give one of them");
		}
		view = "typestats";
	}
	if (!view)
		view = vo.type || (vo.line && !line_size) ? "datalayout" : "functions";
	grouping = by != NULL;
	lines_view = strcmp(view, "hotlines") == 0 || strcmp(view, "sharing") == 0 || grouping;
	if ((vo.type && strcmp(view, "datalayout") != 0) ||
	    (vo.line && !lines_view && (line_size || strcmp(view, "datalayout") != 0))) {
		ds_vec_free(&tids);
		free(by_view);
		return cli_usage_error("report", "--%s applies to --view %s",
				       vo.type ? "type" : line_size ? "line-size" : "line",
				       vo.type ? "datalayout"
				       : line_size ? "hotlines, --view sharing and --by cacheline"
						   : "datalayout, --view hotlines, --view sharing and --by cacheline");
	}
	if (vo.level && (!lines_view || vo.line)) {
		ds_vec_free(&tids);
		free(by_view);
		if (vo.line)
			return cli_usage_error("report", "give --level or --%s, not both",
					       line_size ? "line-size" : "line");
		return cli_usage_error("report", "--level applies to --view hotlines, --view sharing and --by cacheline");
	}
	if ((vo.function && strcmp(view, "callers") != 0 && strcmp(view, "source") != 0 &&
	     strcmp(view, "annotate") != 0) ||
	    (vo.file && strcmp(view, "source") != 0) ||
	    (vo.slices && strcmp(view, "timeline") != 0 && !grouping) ||
	    (vo.to_ns && strcmp(view, "timeline") != 0)) {
		ds_vec_free(&tids);
		free(by_view);
		return cli_usage_error("report", "--%s applies to --view %s",
				       vo.function ? "function" : vo.file ? "file" : vo.slices ? "slices" : "window",
				       vo.function ? "callers, annotate or source" : vo.file ? "source"
				       : vo.slices ? "timeline and --by time" : "timeline");
	}
	if (vo.allocsite && strcmp(view, "accessmap") != 0) {
		ds_vec_free(&tids);
		free(by_view);
		return cli_usage_error("report", "--allocsite applies to --view accessmap");
	}
	if (cross && strcmp(view, "dataobjects") != 0) {
		ds_vec_free(&tids);
		free(by_view);
		return cli_usage_error("report", "--cross applies to --view dataobjects");
	}
	if (!ninputs && cli_default_experiment("report")) {
		ds_vec_free(&tids);
		free(by_view);
		return 1;
	}
	if (!ninputs)
		inputs[ninputs++] = input;
	so.tids = tids.v;
	so.ntids = tids.n;
	so.progress = isatty(STDERR_FILENO);
	if (cli_expand(inputs, ninputs, &exps, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	if (exps.n > 1) {
		prep p = {machine, filter, cross, mobjs, nmobjs, &so};
		status = report_merged(&exps, cli_merge_how(&exps, merge), &so, view, &vo, &p, metrics, fmt, ascii);
		goto out;
	}
	input = exps.v[0].path;
	so.label = exps.v[0].label;
	if (ds_session_open(input, &so, &s, &err) ||
	    prepare(s, &(prep){machine, filter, cross, mobjs, nmobjs, &so}, &err) ||
	    ds_view_build(s, view, &vo, &t, &err) || cli_metrics(t, metrics, fmt, &show, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	cli_render(stdout, t, fmt, input, ascii, show);
	/* notes go to stderr so that CSV and JSON on stdout stay clean; the
	 * text's head has the view's own */
	if (strcmp(view, "summary") != 0)
		cli_print_notes(s, NULL, fmt == CLI_TEXT ? t : NULL);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ds_err_set(&err, DS_EENV, "cannot write the report to standard output");
		status = cli_fail(&err);
	}
out:
	ds_table_free(t);
	ds_session_close(s);
	cli_exps_free(&exps);
	ds_vec_free(&tids);
	free(by_view);
	free(show);
	return status;
}
