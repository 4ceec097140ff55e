/* dsprof tui [-i DIR | BEFORE AFTER] [--ascii] [--no-color] [--metrics LIST]
 *            [--keys KEYS [--dump FILE] [--size WxH]]
 *            [--stats FILE] */
#include "cli/cli.h"

#include "experiment/experiment.h"
#include "tui/tui.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tui_usage[] =
	"usage: dsprof tui [-i DIR] [options]\n"
	"       dsprof tui BEFORE AFTER [options]   (compare two experiments, as dsprof diff)\n"
	"\n"
	"  -i, --input DIR        experiment directory or perf.data file (default dsprof.data), or\n"
	"                         a group of experiments; several -i show their experiments as one\n"
	"      --merge HOW        several experiments: sum or mean (as dsprof report)\n"
	"      --ascii            plain ASCII (also on terminals whose locale is not UTF-8)\n"
	"      --no-color         monochrome (also when NO_COLOR is set)\n"
	"  -m, --metrics LIST     the metric columns shown first (as dsprof report --metrics;\n"
	"                         default: every event's share and samples); m changes them\n"
	"      --keys KEYS        scripted mode: replay KEYS without a terminal, e.g. \"2<Down><Enter>q\"\n"
	"      --dump FILE        scripted mode: write every screen as text to FILE (default: stdout)\n"
	"      --size WxH         scripted mode: the screen's size (default 80x24)\n"
	"      --stats FILE       write timings (first screen, loading, keys) to FILE\n"
	"      --debug-root DIR   where separate debug files live (default /usr/lib/debug)\n"
	"      --heap-wrappers LIST\n"
	"                         functions that allocate for their callers (NAME or\n"
	"                         PREFIX*, comma-separated): allocation sites are their callers\n"
	"      --kallsyms FILE    kernel symbols of the recording machine\n"
	"\n"
	"Keys: ? in the interface lists them; 'man dsprof-tui' describes them all.\n";

int cmd_tui(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"merge", required_argument, NULL, 'M'},
		{"ascii", no_argument, NULL, 'A'},
		{"no-color", no_argument, NULL, 'C'},
		{"metrics", required_argument, NULL, 'm'},
		{"keys", required_argument, NULL, 'k'},
		{"dump", required_argument, NULL, 'd'},
		{"size", required_argument, NULL, 'z'},
		{"stats", required_argument, NULL, 'S'},
		{"debug-root", required_argument, NULL, 'D'},
		{"kallsyms", required_argument, NULL, 'K'},
		{"heap-wrappers", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *no_color = getenv("NO_COLOR");
	tui_opts o;
	ds_err err = {0};
	const char *inputs[64]; /* -i, in order */
	size_t ninputs = 0;
	cli_exps exps = {0};
	ds_merge_input *group = NULL;
	int c, merge = -1, status = 0;

	memset(&o, 0, sizeof o);
	o.input = "dsprof.data";
	o.color = !no_color || !*no_color;
	o.width = 80;
	o.height = 24;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:m:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (ninputs == sizeof inputs / sizeof inputs[0])
				return cli_usage_error("tui", "more than %zu -i options (a group stands for many)",
						       ninputs);
			inputs[ninputs++] = optarg;
			break;
		case 'M':
			if (cli_parse_merge("tui", optarg, &merge))
				return 1;
			break;
		case 'A': o.ascii = true; break;
		case 'C': o.color = false; break;
		case 'm': o.metrics = optarg; break;
		case 'k': o.keys = optarg; break;
		case 'd': o.dump = optarg; break;
		case 'z': {
			char tail;
			if (sscanf(optarg, "%dx%d%c", &o.width, &o.height, &tail) != 2 || o.width < 80 ||
			    o.height < 24 || o.width > 1000 || o.height > 1000)
				return cli_usage_error("tui", "bad --size '%s' (WxH, from 80x24 to 1000x1000)", optarg);
			break;
		}
		case 'S': o.stats = optarg; break;
		case 'D': o.session.debug_root = optarg; break;
		case 'K': o.session.kallsyms = optarg; break;
		case 'H': o.session.heap_wrappers = optarg; break;
		case 'h':
			fputs(tui_usage, stdout);
			return 0;
		default:
			return cli_bad_option("tui", argv, c, NULL);
		}
	}
	if (optind + 2 == argc) {
		/* dsprof tui BEFORE AFTER */
		if (ninputs)
			status = cli_usage_error("tui", "give either -i DIR or two experiments BEFORE AFTER, not both");
		else if (ds_group_is(argv[optind]) || ds_group_is(argv[optind + 1]))
			status = cli_usage_error("tui", "groups are compared by dsprof diff BEFORE AFTER (each run's "
							"spread: dsprof tui -i GROUP, key b, experiment)");
		o.input = argv[optind];
		o.input2 = argv[optind + 1];
	} else if (optind < argc) {
		status = cli_usage_error("tui", "unexpected argument '%s' (give -i DIR, or BEFORE AFTER to compare two)",
					 argv[optind + (optind + 2 < argc ? 2 : 0)]);
	}
	if (!status && !ninputs && !o.input2 && cli_default_experiment("tui"))
		status = 1;
	if (!status && o.dump && !o.keys)
		status = cli_usage_error("tui", "--dump goes with --keys (scripted mode)");
	if (status)
		goto out;
	if (o.keys && !o.dump)
		o.dump = "-";
	if (ninputs && cli_expand(inputs, ninputs, &exps, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	if (exps.n) {
		o.input = exps.v[0].path;
		o.session.label = exps.v[0].label;
	}
	if (exps.n > 1) {
		group = ds_xcalloc(exps.n, sizeof *group);
		for (size_t i = 0; i < exps.n; i++)
			group[i] = (ds_merge_input){exps.v[i].path, exps.v[i].label};
		o.group = group;
		o.ngroup = exps.n;
		o.merge = (enum ds_merge_how)cli_merge_how(&exps, merge);
		o.group_name = ninputs == 1 ? inputs[0] : "-i";
	}
	if (tui_run(&o, &err))
		status = cli_fail(&err);
out:
	free(group);
	cli_exps_free(&exps);
	return status;
}
