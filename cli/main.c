/* dsprof: which data structures, fields, cache lines and pages cost a
 * program its memory time. */
#include "cli/cli.h"

#include "analyze/analyze.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} commands[] = {
	{"record", cmd_record, "run a command (or attach to a process) and record samples"},
	{"report", cmd_report, "print views of an experiment (text, CSV, JSON)"},
	{"diff", cmd_diff, "compare two experiments view by view (rows matched by name)"},
	{"list", cmd_list, "list the events this machine supports"},
	{"import", cmd_import, "make an experiment out of a perf.data recorded by perf"},
	{"archive", cmd_archive, "keep the sampled object files with an experiment, by build-id"},
	{"layout", cmd_layout, "print the layout of structs as pahole does (holes, cache lines)"},
	{"mobj", cmd_mobj, "list, define and undefine memory objects (cache lines, sets, pages...)"},
	{"tui", cmd_tui, "browse an experiment's views in the terminal"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: dsprof [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'dsprof COMMAND --help' describes a command; 'man dsprof' tells more.\n");
}

int cli_fail(const ds_err *err)
{
	fputs("dsprof: ", stderr);
	cli_puts_safe(stderr, err->msg);
	fputc('\n', stderr);
	return err->kind ? err->kind : 1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	ds_buf b = {0};
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	fputs("dsprof: ", stderr);
	cli_puts_safe(stderr, ds_buf_str(&b));
	fprintf(stderr, " (see 'dsprof %s --help')\n", cmd);
	ds_buf_free(&b);
	return 1;
}

void cli_puts_safe(FILE *f, const char *s)
{
	ds_buf b = {0};
	ds_sanitize(&b, s, false);
	fputs(ds_buf_str(&b), f);
	ds_buf_free(&b);
}

int cli_default_experiment(const char *cmd)
{
	if (access("dsprof.data", F_OK) == 0)
		return 0;
	fprintf(stderr, "dsprof: no experiment here (no dsprof.data): record one with 'dsprof record -- "
		"COMMAND', or name one with 'dsprof %s -i DIR'\n", cmd);
	return 1;
}

int cli_bad_option(const char *cmd, char **argv, int c, const char *hint)
{
	char shortopt[3] = {'-', (char)optopt, 0};
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;
	/* a long option names itself; a short one may sit in a group ("-qV") */
	const char *name = arg && strncmp(arg, "--", 2) == 0 ? arg : optopt ? shortopt : arg ? arg : "?";
	char *cut = ds_xstrdup(name), *eq = strchr(cut, '=');

	if (eq)
		*eq = 0;
	if (c == ':')
		cli_usage_error(cmd, "option '%s' needs a value%s%s", cut, hint ? "; " : "", hint ? hint : "");
	else
		cli_usage_error(cmd, "unknown option '%s'%s%s", cut, hint ? "; " : "", hint ? hint : "");
	free(cut);
	return 1;
}

int main(int argc, char **argv)
{
	opterr = 0; /* each command says what getopt found wrong, in one line */
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("dsprof %s\n", DSPROF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fputs("dsprof: unknown command '", stderr);
	cli_puts_safe(stderr, argv[1]);
	fputs("' (see 'dsprof --help')\n", stderr);
	return 1;
}

int cli_parse_format(const char *cmd, const char *arg, enum cli_format *fmt)
{
	if (strcmp(arg, "text") == 0)
		*fmt = CLI_TEXT;
	else if (strcmp(arg, "csv") == 0)
		*fmt = CLI_CSV;
	else if (strcmp(arg, "json") == 0)
		*fmt = CLI_JSON;
	else if (strcmp(arg, "folded") == 0 && strcmp(cmd, "report") == 0)
		*fmt = CLI_FOLDED;
	else
		return cli_usage_error(cmd, "unknown format '%s' (text, csv%s json)", arg,
				       strcmp(cmd, "report") == 0 ? ", json or folded" : " or");
	return 0;
}

void cli_note(const char *msg)
{
	fputs("dsprof: note: ", stderr);
	cli_puts_safe(stderr, msg);
	fputc('\n', stderr);
}

void cli_print_notes(const ds_session *s, const char *label, const ds_table *shown)
{
	for (size_t i = 0; i < ds_session_nnotes(s); i++) {
		bool dup = false;
		for (size_t k = 0; shown && k < shown->nprops && !dup; k++)
			dup = !strcmp(shown->props[k].key, "note") && !strcmp(shown->props[k].value, ds_session_note(s, i));
		if (dup)
			continue;
		fputs("dsprof: note: ", stderr);
		if (label) {
			cli_puts_safe(stderr, label);
			fputs(": ", stderr);
		}
		cli_puts_safe(stderr, ds_session_note(s, i));
		fputc('\n', stderr);
	}
}
