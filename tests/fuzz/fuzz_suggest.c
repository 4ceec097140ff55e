/*
 * libFuzzer target: `dsprof layout -i DIR --suggest` over a damaged
 * experiment: the program found from its meta.json or its mappings, the
 * hot types (or those named) and their members' samples, and a member
 * order for each with its prediction (analyze/suggest.c).  It must succeed
 * or fail with its one line and status, never crash, leak or hang.  --verify, which
 * runs a program, is never given.
 *
 * The input holds the experiment's files (fuzz.h: "--- NAME" lines):
 *   a/perf.data a/meta.json a/kallsyms
 *                  the experiment (kallsyms: empty when absent, so that
 *                  this kernel's are never read)
 *   opts           KEY=VALUE lines: type (the TYPEs, comma-separated),
 *                  line (--line), keep-abi, all (any value: given)
 * Debug files come from nowhere but the program itself.
 */
#include "cli/cli.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TYPES 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts), len, argc = 0;
	const fz_part *opts = fz_find(parts, n, "opts");
	char *argv[MAX_TYPES + 8], *line, *keep_abi, *all, *out, *types;
	int status;

	fz_clear();
	if (!fz_write_parts(parts, n, "a/", "a"))
		return 0;
	if (!fz_find(parts, n, "a/kallsyms"))
		fz_write("a/kallsyms", NULL, 0);
	argv[argc++] = ds_xstrdup("layout");
	argv[argc++] = ds_xasprintf("--input=%s/a", fz_dir());
	argv[argc++] = ds_xstrdup("--suggest");
	argv[argc++] = ds_xasprintf("--debug-root=%s/no-debug", fz_dir());
	if ((line = fz_opt(opts, "line")))
		argv[argc++] = ds_xasprintf("--line=%s", line);
	if ((keep_abi = fz_opt(opts, "keep-abi")))
		argv[argc++] = ds_xstrdup("--keep-abi");
	if ((all = fz_opt(opts, "all")))
		argv[argc++] = ds_xstrdup("--all");
	/* the types, one a line; none that reads as an option */
	types = fz_opt(opts, "type");
	for (char *t = types, *next; t && *t && argc < MAX_TYPES + 7; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = 0;
		else
			next = t + strlen(t);
		if (*t != '-')
			argv[argc++] = ds_xstrdup(t);
	}
	argv[argc] = NULL;
	out = fz_command(cmd_layout, argv, &status, &len);
	free(out);
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(line);
	free(keep_abi);
	free(all);
	free(types);
	return 0;
}
