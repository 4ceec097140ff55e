/* dsprof list [--all | --mem]: the events this machine supports, by group. */
#include "cli/cli.h"

#include "sampler/sampler.h"

#include <getopt.h>
#include <string.h>

static const char list_usage[] =
	"usage: dsprof list [--all | --mem]\n"
	"\n"
	"Lists the events 'dsprof record -e' accepts on this machine, grouped.\n"
	"  -a, --all   also list presets and names that cannot be sampled here\n"
	"      --mem   what dsprof record --mem samples here (PEBS, IBS), or why it cannot\n";

typedef struct list_ctx {
	const char *group; /* the group printed last */
	bool all;
} list_ctx;

static const char *group_title(const char *g)
{
	if (strcmp(g, "software") == 0)
		return "Software events (every machine)";
	if (strcmp(g, "hardware") == 0)
		return "Hardware events (generic names)";
	if (strcmp(g, "hw-cache") == 0)
		return "Hardware cache events";
	if (strcmp(g, "papi") == 0)
		return "PAPI presets";
	if (strcmp(g, "libpfm4") == 0)
		return "PMU events (libpfm4)";
	if (strcmp(g, "simulated") == 0)
		return "Simulated events (dsprof record --sim, on every machine)";
	return g;
}

static void print_event(void *arg, const char *group, const char *name, const char *desc, bool avail)
{
	list_ctx *c = arg;
	if (!avail && !c->all)
		return;
	if (!c->group || strcmp(c->group, group) != 0) {
		printf("%s%s:\n", c->group ? "\n" : "", group_title(group));
		c->group = group;
	}
	fputs("  ", stdout);
	cli_puts_safe(stdout, name);
	printf("%*s", (int)(strlen(name) < 32 ? 32 - strlen(name) : 1), "");
	cli_puts_safe(stdout, desc ? desc : "");
	if (!avail)
		fputs("  (not available here)", stdout);
	fputc('\n', stdout);
}

/* --mem: what dsprof record --mem would sample here, or why it cannot. */
static void list_mem(void)
{
	ds_mem_plan p;
	ds_err err = {0};

	fputs("Precise memory sampling (dsprof record --mem):\n", stdout);
	if (ds_mem_plan_make(true, true, 30, &p, &err)) {
		fputs("  none here: ", stdout);
		cli_puts_safe(stdout, err.msg);
		fputc('\n', stdout);
	} else {
		printf("  %s\n", p.mechanism);
		for (size_t i = 0; i < p.nevents; i++) {
			fputs("  ", stdout);
			cli_puts_safe(stdout, p.events[i]);
			fputc('\n', stdout);
		}
		ds_mem_plan_fini(&p);
	}
	fputs("  simulated, on every machine (--sim --mem): sim:MEM_CYCLES sim:stores\n", stdout);
}

int cmd_list(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"all", no_argument, NULL, 'a'},
		{"mem", no_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char why[512];
	list_ctx c = {0};
	bool mem = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ah", lopts, NULL)) != -1) {
		switch (opt) {
		case 'a': c.all = true; break;
		case 'M': mem = true; break;
		case 'h': fputs(list_usage, stdout); return 0;
		default: return cli_bad_option("list", argv, opt, NULL);
		}
	}
	if (optind < argc)
		return cli_usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (mem) {
		list_mem();
		return 0;
	}
	if (!ds_pmu_available(why, sizeof why)) {
		/* why says what is missing: "no hardware PMU: ..." */
		fputs("This machine: ", stdout);
		cli_puts_safe(stdout, why);
		fputs(".\nHardware events cannot be sampled here; use cpu-clock (timer samples with\n"
		      "backtracking to the data access), page-faults (exact data addresses), or\n"
		      "record --sim for the simulated events below (exact cache misses).\n\n", stdout);
	}
	ds_event_list(print_event, &c, c.all);
	ds_sim_event_list(print_event, &c);
	return 0;
}
