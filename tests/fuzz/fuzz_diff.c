/*
 * libFuzzer target: `dsprof diff BEFORE AFTER` of two damaged experiments,
 * or groups of them (their mean runs, with run-to-run intervals), with the
 * options a user gives: a view or --by keys, --sort, --limit, --metrics and
 * a format.  The diff must succeed or fail with its one line and status,
 * never crash, leak or hang, and its JSON must parse.
 *
 * The input holds both sides' files (fuzz.h: "--- NAME" lines):
 *   a/perf.data a/meta.json a/kallsyms a/vdso.so ...
 *                  BEFORE: an experiment, or a group (a/group, the index,
 *                  and a/NAME/perf.data... its members)
 *   b/...          AFTER, alike
 *   opts           KEY=VALUE lines: view, by, sort, limit, metrics,
 *                  format (text, csv, json), ascii (any value)
 * Kernel symbols come from an empty file, debug files from nowhere.
 */
#include "cli/cli.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

/* The options given as "--KEY=VALUE": a value never reads as an option. */
static const char *const keys[] = {"view", "by", "sort", "limit", "metrics", "format"};
#define NKEYS (sizeof keys / sizeof keys[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts), len, argc = 0;
	const fz_part *opts = fz_find(parts, n, "opts");
	char *argv[NKEYS + 8], *given[NKEYS], *out, *format, *ascii;
	int status;

	fz_clear();
	if (!fz_write_parts(parts, n, "a/", "a") || !fz_write_parts(parts, n, "b/", "b"))
		return 0;
	fz_write("kallsyms", NULL, 0);
	format = fz_opt(opts, "format");
	ascii = fz_opt(opts, "ascii");
	argv[argc++] = ds_xstrdup("diff");
	argv[argc++] = ds_xasprintf("%s/a", fz_dir());
	argv[argc++] = ds_xasprintf("%s/b", fz_dir());
	argv[argc++] = ds_xasprintf("--kallsyms=%s/kallsyms", fz_dir());
	argv[argc++] = ds_xasprintf("--debug-root=%s/no-debug", fz_dir());
	if (ascii)
		argv[argc++] = ds_xstrdup("--ascii");
	for (size_t i = 0; i < NKEYS; i++)
		if ((given[i] = fz_opt(opts, keys[i]))) {
			argv[argc++] = ds_xasprintf("--%s=%s", keys[i], given[i]);
			free(given[i]);
		}
	argv[argc] = NULL;
	out = fz_command(cmd_diff, argv, &status, &len);
	if (status == 0 && format && !strcmp(format, "json"))
		fz_check_json(out, len, "the diff");
	free(out);
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(format);
	free(ascii);
	return 0;
}
