/* dsprof mobj list|define|undefine: memory objects, predefined and the user's. */
#include "cli/cli.h"

#include "memobj/memobj.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char mobj_usage[] =
	"usage: dsprof mobj list [--machine FILE | -i DIR]\n"
	"       dsprof mobj define [--force] NAME EXPR\n"
	"       dsprof mobj undefine NAME\n"
	"\n"
	"Memory objects map each sampled access to an index (a cache line, a set, a page...)\n"
	"through an expression such as 'VADDR / L1D_LINE % L1D_SETS'.\n"
	"  list        the predefined objects of the machine and the user-defined ones\n"
	"  define      add an object to the user's file (--force replaces one)\n"
	"  undefine    remove one from it\n"
	"\n"
	"  -m, --machine FILE     a machine model file instead of this machine\n"
	"  -i, --input DIR        the machine an experiment was recorded on\n"
	"  -f, --force            define: replace an existing definition\n"
	"  --                     ends the options (an EXPR that starts with -)\n"
	"\n"
	"User definitions live in $DSPROF_MOBJ, else ~/.config/dsprof/mobj.\n"
	"The language: man dsprof-mobj, docs/memory-objects.md.\n";

/* The machine list describes: a model, an experiment's, or this one. */
static int pick_machine(const char *model, const char *input, ds_machine *m, ds_err *err)
{
	char *perfdata = NULL, *meta_path = NULL;
	ds_meta meta;
	int rc;

	if (model)
		return ds_machine_load(m, model, err);
	if (!input)
		return ds_machine_sysfs(m, err);
	if (ds_expdir_resolve(input, &perfdata, &meta_path, err))
		return -1;
	free(perfdata);
	if (!meta_path)
		return ds_err_set(err, DS_EINPUT,
				  "'%s' has no meta.json, so its machine is unknown: use --machine FILE", input);
	ds_meta_init(&meta);
	rc = ds_meta_read(&meta, meta_path, err);
	for (size_t i = 0; rc == 0 && i < meta.nproblems; i++) {
		fputs("dsprof: note: ", stderr);
		cli_puts_safe(stderr, meta.problems[i]);
		fputc('\n', stderr);
	}
	if (rc == 0)
		ds_machine_from_meta(m, &meta);
	ds_meta_fini(&meta);
	free(meta_path);
	return rc;
}

static void print_size(uint64_t v)
{
	if (v && v % (1ull << 20) == 0)
		printf("%" PRIu64 "M", v >> 20);
	else if (v && v % 1024 == 0)
		printf("%" PRIu64 "K", v >> 10);
	else
		printf("%" PRIu64, v);
}

static void print_machine(const ds_machine *m)
{
	int64_t v;
	int n = 0;

	fputs("machine: ", stdout);
	cli_puts_safe(stdout, m->source ? m->source : "");
	fputc('\n', stdout);
	for (int i = 0; i < m->ncaches; i++) {
		const ds_cache_level *c = &m->caches[i];
		printf("  L%d %-11s ", c->level, c->type);
		print_size(c->size);
		printf(", %u-way, %u-byte lines, %u sets", c->ways, c->line, c->sets);
		if (c->shared_cpus[0]) {
			fputs(", CPUs ", stdout);
			cli_puts_safe(stdout, c->shared_cpus);
		}
		fputc('\n', stdout);
	}
	if (!m->ncaches)
		fputs("  no cache levels known (sysfs says nothing here): use --machine FILE\n", stdout);
	fputs("  page ", stdout);
	print_size(m->page_size);
	fputs(", huge page ", stdout);
	if (m->huge_page_size)
		print_size(m->huge_page_size);
	else
		fputs("unknown", stdout);
	if (m->numa_nodes)
		printf(", %d NUMA node%s", m->numa_nodes, m->numa_nodes == 1 ? "" : "s");
	fputs("\nconstants:", stdout);
	for (int i = 0; ds_machine_constants[i]; i++)
		if (ds_machine_constant(m, ds_machine_constants[i], &v))
			printf("%s%s=%" PRId64, n++ % 4 ? " " : "\n  ", ds_machine_constants[i], v);
	fputc('\n', stdout);
}

static int list(const char *model, const char *input)
{
	static const char *const origins[] = {"predefined", "machine", "user", "option"};
	ds_machine m;
	ds_mobjs s;
	ds_err err = {0};
	char *path = NULL;
	int rc;

	if (pick_machine(model, input, &m, &err))
		return cli_fail(&err);
	ds_mobjs_init(&s, &m);
	rc = ds_mobj_user_path(&path, &err) || ds_mobjs_add_user(&s, path, &err);
	if (rc == 0) {
		print_machine(&m);
		printf("\n%-16s %-10s %-5s %s\n", "NAME", "ORIGIN", "INDEX", "EXPRESSION");
		for (size_t i = 0; i < s.n; i++) {
			const ds_mobj *o = &s.v[i];
			printf("%-16s %-10s %-5s ", o->name, origins[o->origin],
			       !o->code ? "-" : o->hex ? "hex" : "dec");
			cli_puts_safe(stdout, o->text);
			if (o->needs_paddr)
				fputs("   (needs PADDR)", stdout);
			if (o->error) {
				fputs("   (not here: ", stdout);
				cli_puts_safe(stdout, o->error);
				fputc(')', stdout);
			}
			fputc('\n', stdout);
		}
		fputs("\nuser definitions: ", stdout);
		cli_puts_safe(stdout, path);
		fputc('\n', stdout);
	}
	free(path);
	ds_mobjs_fini(&s);
	ds_machine_fini(&m);
	return rc ? cli_fail(&err) : 0;
}

static int define(const char *name, const char *text, bool force)
{
	ds_machine m;
	ds_expr *e;
	ds_err err = {0};
	char *path = NULL;

	if (ds_mobj_user_path(&path, &err) || ds_mobj_file_define(path, name, text, force, &err)) {
		free(path);
		return cli_fail(&err);
	}
	free(path);
	/* a definition for other machines is fine, but worth a word */
	ds_machine_sysfs(&m, &err);
	if (ds_expr_compile(name, text, &m, &e, &err)) {
		fputs("dsprof: note: defined, but not usable on this machine: ", stderr);
		cli_puts_safe(stderr, err.msg);
		fputc('\n', stderr);
	}
	ds_expr_free(e);
	ds_machine_fini(&m);
	return 0;
}

static int undefine(const char *name)
{
	ds_err err = {0};
	char *path = NULL;
	int rc;

	if (ds_mobj_user_path(&path, &err))
		return cli_fail(&err);
	if (ds_mobj_predefined_name(name))
		rc = ds_err_set(&err, DS_EINPUT, "'%s' is predefined, not user-defined", name);
	else
		rc = ds_mobj_file_undefine(path, name, &err);
	free(path);
	return rc ? cli_fail(&err) : 0;
}

int cmd_mobj(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"machine", required_argument, NULL, 'm'},
		{"input", required_argument, NULL, 'i'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *model = NULL, *input = NULL, *sub;
	bool force = false;
	int c, nargs;

	if (argc < 2)
		return cli_usage_error("mobj", "expected a subcommand: list, define or undefine");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(mobj_usage, stdout);
		return 0;
	}
	sub = argv[1];
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, ":m:i:fh", lopts, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'i': input = optarg; break;
		case 'f': force = true; break;
		case 'h': fputs(mobj_usage, stdout); return 0;
		default:
			return cli_bad_option("mobj", argv + 1, c,
					      strcmp(sub, "define") != 0 ? NULL
					      : "an expression that starts with '-' goes after '--': "
						"dsprof mobj define NAME -- '-EXPR'");
		}
	}
	nargs = argc - 1 - optind;
	argv += 1 + optind;
	if (strcmp(sub, "list") == 0) {
		if (nargs)
			return cli_usage_error("mobj", "unexpected argument '%s'", argv[0]);
		if (force)
			return cli_usage_error("mobj", "--force is for define");
		if (model && input)
			return cli_usage_error("mobj", "give --machine or --input, not both");
		return list(model, input);
	}
	if (model || input)
		return cli_usage_error("mobj", "--machine and --input are for list");
	if (strcmp(sub, "define") == 0) {
		if (nargs != 2)
			return cli_usage_error("mobj", "define takes NAME and EXPR (quote the expression)");
		return define(argv[0], argv[1], force);
	}
	if (force)
		return cli_usage_error("mobj", "--force is for define");
	if (strcmp(sub, "undefine") == 0) {
		if (nargs != 1)
			return cli_usage_error("mobj", "undefine takes one NAME");
		return undefine(argv[0]);
	}
	return cli_usage_error("mobj", "unknown subcommand '%s' (list, define or undefine)", sub);
}
