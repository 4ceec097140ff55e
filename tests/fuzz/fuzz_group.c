/*
 * libFuzzer target: an experiment group (experiment.h, "experiment
 * groups") and the merge of its members (analyze.h, "several experiments
 * as one").  The group's index is read as every command reads it
 * (cli_expand), its members' view is merged as `dsprof report -i GROUP`
 * merges it and rendered as text and JSON (which must parse); then a
 * member is reserved and listed as record --group does.  A member's name
 * never leaves the group's folder; a group that read before still reads
 * after a member was added, and lists it; nothing is written outside the
 * group's folder.  A damaged index or member gives an error or notes,
 * never a crash, a leak or a hang.
 *
 * The input holds the group's files (fuzz.h: "--- NAME" lines):
 *   g/group             the index
 *   g/NAME/perf.data, g/NAME/meta.json
 *                       members (or anything else in the group's folder)
 *   opts                KEY=VALUE lines: view (none: one the input's size
 *                       picks), merge (sum or mean; none: as report picks),
 *                       filter, sort, limit, and add (KIND ID PROG: the
 *                       member to reserve and list)
 */
#include "analyze/analyze.h"
#include "cli/cli.h"
#include "tests/fuzz/fuzz.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUP FZ_DEEP "/g"

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "fuzz_group: %s: '%s'\n", what, name);
	abort();
}

/* The index's members; their names must stay in the group's folder.
 * -1 with err when it does not read. */
static int members(const char *g, ds_group_member **mv, size_t *n, ds_err *err)
{
	char *note;

	if (ds_group_members(g, mv, n, &note, err))
		return -1;
	free(note);
	for (size_t i = 0; i < *n; i++) {
		const char *name = (*mv)[i].name;
		if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
			fail("a member's name leaves the group's folder", name);
	}
	return 0;
}

static int set_filter(ds_session *s, void *ctx, ds_err *err)
{
	return ds_session_set_filter(s, ctx, err);
}

static void render(const ds_table *t)
{
	for (int json = 0; json < 2; json++) {
		char *p = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&p, &len);
		cli_render(f, t, json ? CLI_JSON : CLI_TEXT, "group", false, NULL);
		fclose(f);
		if (json)
			fz_check_json(p, len, t->view);
		free(p);
	}
}

/* The members' view, merged as report merges a group's. */
static void merge(const char *g, const fz_part *opts, size_t size)
{
	const char *const *views = ds_view_names();
	char *view = fz_opt(opts, "view"), *how = fz_opt(opts, "merge"), *filter = fz_opt(opts, "filter");
	char *sort = fz_opt(opts, "sort"), *limit = fz_opt(opts, "limit"), *ks = ds_xasprintf("%s/kallsyms", fz_dir());
	char *debug = ds_xasprintf("%s/no-debug", fz_dir());
	ds_session_opts so = {.debug_root = debug, .kallsyms = ks};
	ds_view_opts vo = {.sort = sort, .limit = limit ? strtoul(limit, NULL, 0) : 0, .slices = 8};
	cli_exps e = {0};
	ds_table *t = NULL;
	ds_err err = {0};
	size_t nviews = 0;

	while (views[nviews])
		nviews++;
	if (cli_expand(&g, 1, &e, &err) == 0 &&
	    cli_merged_view(&e, cli_merge_how(&e, how ? !strcmp(how, "mean") : -1), &so,
			    view ? view : views[size % nviews], &vo, filter ? set_filter : NULL, filter, &t, &err) == 0)
		render(t);
	ds_table_free(t);
	cli_exps_free(&e);
	free(view);
	free(how);
	free(filter);
	free(sort);
	free(limit);
	free(ks);
	free(debug);
}

/* A member reserved and listed, as record --group adds one: a group
 * that read (`reads`) reads after, and lists it. */
static void add(const char *g, const fz_part *opts, bool reads)
{
	char *spec = fz_opt(opts, "add"), kind[16], prog[64] = "";
	long long id;
	char *path = NULL;
	int64_t got;
	ds_group_member *mv;
	size_t n;
	bool listed = false;
	ds_err err = {0};

	/* the kinds record --group gives */
	if (!spec || sscanf(spec, "%15s %lld %63s", kind, &id, prog) < 2 ||
	    (strcmp(kind, "rank") && strcmp(kind, "run") && strcmp(kind, "process"))) {
		free(spec);
		return;
	}
	if (ds_group_reserve(g, kind, id, prog, &path, &got, &err) == 0 &&
	    ds_group_add(g, path, kind, got, &err) == 0 && reads) {
		if (members(g, &mv, &n, &err))
			fail("the group does not read after a member was added", err.msg);
		for (size_t i = 0; i < n; i++)
			listed |= !strcmp(mv[i].name, strrchr(path, '/') + 1);
		if (!listed)
			fail("the member added is not listed", path);
		ds_group_members_free(mv, n);
	}
	free(path);
	free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = {GROUP, NULL};
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts), nm;
	char *g = ds_xasprintf("%s/" GROUP, fz_dir()), *tree;
	const fz_part *opts = fz_find(parts, n, "opts");
	ds_group_member *mv;
	ds_err err = {0};
	bool reads;

	fz_clear();
	fz_write_parts(parts, n, "g/", GROUP);
	fz_write("kallsyms", NULL, 0);
	tree = fz_tree(keep);
	if ((reads = members(g, &mv, &nm, &err) == 0))
		ds_group_members_free(mv, nm);
	if (ds_group_is(g))
		merge(g, opts, size);
	add(g, opts, reads);
	fz_same_tree(tree, keep, "a group's writer");
	free(g);
	return 0;
}
