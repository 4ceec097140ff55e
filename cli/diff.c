/* dsprof diff BEFORE AFTER [--view V | --by KEYS] [--sort KEY] [--limit N] [--format F]
 *             [--metrics LIST] */
#include "cli/cli.h"

#include "analyze/analyze.h"
#include "experiment/experiment.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char diff_usage[] =
	"usage: dsprof diff BEFORE AFTER [options]\n"
	"\n"
	"  BEFORE, AFTER          experiment directories or perf.data files, or groups of\n"
	"                         experiments (record --repeat N, --group): a group's mean run\n"
	"                         compares, and each change gets its 95% interval across runs\n"
	"  -v, --view VIEW        functions (default), lines, dataobjects, datalayout, hotlines,\n"
	"                         sharing, or another view with metrics\n"
	"  -b, --by KEY[,KEY...]  compare the samples grouped by these keys (dsprof report --by):\n"
	"                         each combination of keys is a row, named by its path\n"
	"  -s, --sort KEY         delta (default: the largest change first), change, before,\n"
	"                         after (optionally KEY:EVENT), an event name, name, or a column\n"
	"  -n, --limit N          print the first N rows (the verdict still sees them all)\n"
	"  -f, --format FORMAT    text (default), csv or json\n"
	"  -m, --metrics LIST     which metric columns of which events, as in dsprof report\n"
	"                         (an event names both sides: cpu-clock is before:cpu-clock and\n"
	"                         after:cpu-clock)\n"
	"      --ascii            plain ASCII text (non-ASCII bytes escaped)\n"
	"      --debug-root DIR   where separate debug files live (default /usr/lib/debug)\n"
	"      --heap-wrappers LIST\n"
	"                         functions that allocate for their callers (NAME or\n"
	"                         PREFIX*, comma-separated): allocation sites are their callers\n"
	"      --kallsyms FILE    kernel symbols of the recording machine\n";

/* A side that is a group: its experiments' view, merged as their mean. */
static int side_table(const char *path, const ds_session_opts *so, const char *view, ds_table **t,
		      size_t *n, ds_err *err)
{
	cli_exps e = {0};
	ds_view_opts vo = {0};
	int rc = cli_expand(&path, 1, &e, err) ? -1
		 : cli_merged_view(&e, DS_MERGE_MEAN, so, view, &vo, NULL, NULL, t, err);

	*n = e.n;
	cli_exps_free(&e);
	return rc;
}

/* BEFORE or AFTER is a group: the diff of the two sides' mean runs. */
static int diff_groups(const char *const path[2], const ds_session_opts *so, const char *view,
		       const ds_diff_opts *dopts, ds_diff **d, ds_err *err)
{
	ds_table *t[2] = {NULL, NULL};
	size_t n[2];
	int rc = side_table(path[0], so, view, &t[0], &n[0], err) || side_table(path[1], so, view, &t[1], &n[1], err) ||
		 ds_diff_tables(t[0], t[1], dopts, d, err);

	ds_table_free(t[0]);
	ds_table_free(t[1]);
	return rc ? -1 : 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"view", required_argument, NULL, 'v'},
		{"by", required_argument, NULL, 'b'},
		{"metrics", required_argument, NULL, 'm'},
		{"sort", required_argument, NULL, 's'},
		{"limit", required_argument, NULL, 'n'},
		{"format", required_argument, NULL, 'f'},
		{"ascii", no_argument, NULL, 'A'},
		{"debug-root", required_argument, NULL, 'D'},
		{"kallsyms", required_argument, NULL, 'K'},
		{"heap-wrappers", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *view = NULL, *path[2], *by = NULL, *metrics = NULL;
	char *by_view = NULL;
	bool *show = NULL;
	ds_session_opts so = {0};
	ds_diff_opts dopts = {0};
	enum cli_format fmt = CLI_TEXT;
	bool ascii = false;
	ds_session *s[2] = {NULL, NULL};
	ds_diff *d = NULL;
	ds_err err = {0};
	uint64_t u;
	int c, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":v:b:m:s:n:f:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'v': view = optarg; break;
		case 'b': by = optarg; break;
		case 'm': metrics = optarg; break;
		case 's': dopts.sort = optarg; break;
		case 'n':
			if (!ds_parse_u64(optarg, &u, false) || u == 0)
				return cli_usage_error("diff", "bad --limit '%s'", optarg);
			dopts.limit = (size_t)u;
			break;
		case 'f':
			if (cli_parse_format("diff", optarg, &fmt))
				return 1;
			break;
		case 'A': ascii = true; break;
		case 'D': so.debug_root = optarg; break;
		case 'K': so.kallsyms = optarg; break;
		case 'H': so.heap_wrappers = optarg; break;
		case 'h':
			fputs(diff_usage, stdout);
			return 0;
		default:
			return cli_bad_option("diff", argv, c, NULL);
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("diff", "give two experiments, BEFORE and AFTER");
	if (argc - optind > 2)
		return cli_usage_error("diff", "unexpected argument '%s' (give two experiments)", argv[optind + 2]);
	if (by && view)
		return cli_usage_error("diff", "give --by or --view, not both");
	if (by)
		view = by_view = ds_xasprintf("by:%s", by);
	if (!view)
		view = "functions";
	path[0] = argv[optind];
	path[1] = argv[optind + 1];
	so.progress = isatty(STDERR_FILENO);
	if (ds_group_is(path[0]) || ds_group_is(path[1])) {
		if (diff_groups(path, &so, view, &dopts, &d, &err) || cli_metrics(d->table, metrics, fmt, &show, &err)) {
			status = cli_fail(&err);
			goto out;
		}
		cli_render_diff(stdout, d, fmt, path[0], path[1], ascii, show);
		goto written;
	}
	for (int i = 0; i < 2; i++)
		if (ds_session_open(path[i], &so, &s[i], &err)) {
			status = cli_fail(&err);
			goto out;
		}
	if (ds_diff_sessions(s[0], s[1], view, &dopts, &d, &err) ||
	    cli_metrics(d->table, metrics, fmt, &show, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	cli_render_diff(stdout, d, fmt, path[0], path[1], ascii, show);
	cli_print_notes(s[0], path[0], NULL);
	cli_print_notes(s[1], path[1], NULL);
written:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ds_err_set(&err, DS_EENV, "cannot write the diff to standard output");
		status = cli_fail(&err);
	}
out:
	free(show);
	free(by_view);
	ds_diff_free(d);
	ds_session_close(s[0]);
	ds_session_close(s[1]);
	return status;
}
