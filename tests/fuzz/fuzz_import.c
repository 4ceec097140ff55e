/*
 * libFuzzer target: the writers that make experiments out of a perf.data:
 * `dsprof import` (a copy, or for Arm SPE a rewrite with a sample per load
 * and store; meta.json from the header) and the split of a recording by
 * program (record --follow-exec, ds_perfdata_split).  Whatever the file
 * holds, they write only into the experiment's folder (and DIR.old, where
 * an experiment there moves), never move or remove a file of the user's
 * there, and what they wrote reads back: an imported experiment is
 * complete, its meta.json reads without a problem and its perf.data
 * opens; each split file opens and holds its program's samples.  Damage
 * gives notes and errors, never a crash, a leak or a hang.
 *
 * The input holds the files (fuzz.h: "--- NAME" lines):
 *   perf.data     what is imported and split
 *   out/NAME      what the folder imported into holds already (none: no
 *                 such folder), out.old/NAME what out.old does
 * Each input's files are in a fresh folder, FZ_DEEP.
 */
#include "cli/cli.h"
#include "experiment/experiment.h"
#include "experiment/perf_file.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT FZ_DEEP "/out"
#define SPLIT FZ_DEEP "/split"
#define MAX_IMAGES 4

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_import: %s: %s\n", what, detail);
	abort();
}

/* The names dsprof writes in an experiment: the others are the user's. */
static bool users(const char *name)
{
	static const char *const own[] = {"perf.data", "meta.json", "kallsyms", "vdso.so", "recording.json"};
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	if (!strncmp(name, "sim/", 4) || strstr(name, "/sim/"))
		return false;
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (!strcmp(base, own[i]))
			return false;
	return true;
}

/* Which parts are files of the user's in out/ or out.old/, there now. */
static void users_there(const fz_part *parts, size_t n, bool *there)
{
	for (size_t i = 0; i < n; i++) {
		char *path = ds_xasprintf("%s/" FZ_DEEP "/%s", fz_dir(), parts[i].name);
		there[i] = (!strncmp(parts[i].name, "out/", 4) || !strncmp(parts[i].name, "out.old/", 8)) &&
			   users(parts[i].name) && access(path, F_OK) == 0;
		free(path);
	}
}

/* What import made reads back. */
static void check_imported(const char *out)
{
	char *meta = ds_xasprintf("%s/meta.json", out), *pd = ds_xasprintf("%s/perf.data", out);
	ds_expdir_mark_info mark;
	ds_perfdata *p;
	ds_meta m;
	ds_err err = {0};

	if (ds_expdir_mark(out, &mark))
		fail("the experiment imported is marked unfinished", out);
	if (ds_meta_read(&m, meta, &err) || m.nproblems)
		fail("the meta.json written does not read back", m.nproblems ? m.problems[0] : err.msg);
	if (ds_perfdata_open(pd, &p, &err))
		fail("the perf.data written does not open", err.msg);
	ds_perfdata_close(p);
	ds_meta_fini(&m);
	free(meta);
	free(pd);
}

/* The samples of the perf.data at path; *payloads: whether it has records
 * with bytes after them (AUXTRACE, a pipe's TRACING_DATA). */
static uint64_t samples(const char *path, bool *payloads)
{
	ds_perfdata *pd;
	ds_record r;
	uint64_t cur = 0, n = 0;
	ds_err err = {0};

	if (ds_perfdata_open(path, &pd, &err))
		fail("a perf.data written does not open", err.msg);
	*payloads = false;
	while (ds_perfdata_next(pd, &cur, &r, &err) > 0) {
		n += r.kind == DS_REC_SAMPLE;
		*payloads |= r.type == PF_RECORD_AUXTRACE || r.type == PF_RECORD_HEADER_TRACING_DATA;
	}
	ds_perfdata_close(pd);
	return n;
}

/* The recording split by program, as record --follow-exec splits it (its
 * first MAX_IMAGES programs, image K into SPLIT/K/perf.data). */
static void split(const char *in)
{
	ds_image *im;
	size_t n, k = 0;
	char *top = ds_xasprintf("%s/" SPLIT, fz_dir()), *paths[MAX_IMAGES];
	ds_wdir *at = NULL, *dirs[MAX_IMAGES];
	ds_err err = {0};
	bool payloads;

	/* ds_perfdata_split copies each record without the bytes after it: a
	 * recording with such records (record --follow-exec never makes one)
	 * splits into damaged files, which only have to open. */
	if (ds_perfdata_images(in, &im, &n, &err)) {
		free(top);
		return;
	}
	fz_write(SPLIT "/.keep", NULL, 0);
	if (!(at = ds_wdir_open(top, &err)))
		fail("cannot open the split's folder", err.msg);
	for (; k < n && k < MAX_IMAGES; k++) {
		char name[24];
		snprintf(name, sizeof name, "%zu", k);
		if (!(dirs[k] = ds_wdir_make(at, name, &err)))
			fail("cannot make a split's folder", err.msg);
		paths[k] = ds_wdir_join(dirs[k], "perf.data");
	}
	if (k && ds_perfdata_split(in, k, dirs, &err) == 0) {
		samples(in, &payloads);
		for (size_t i = 0; i < k; i++)
			if (samples(paths[i], &(bool){0}) != im[i].samples && !payloads)
				fail("a split file holds other samples than its program's", paths[i]);
	}
	for (size_t i = 0; i < k; i++) {
		free(paths[i]);
		ds_wdir_close(dirs[i]);
	}
	ds_wdir_close(at);
	ds_images_free(im, n);
	free(top);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = {OUT, OUT ".old", SPLIT, NULL};
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts), len;
	const fz_part *pd = fz_find(parts, n, "perf.data");
	char *in = ds_xasprintf("%s/" FZ_DEEP "/in.data", fz_dir()), *out = ds_xasprintf("%s/" OUT, fz_dir());
	char *argv[] = {"import", in, "-o", out, NULL}, *said, *tree;
	bool before[FZ_MAX_PARTS], after[FZ_MAX_PARTS];
	int status;

	fz_clear();
	if (pd && fz_write(FZ_DEEP "/in.data", pd->data, pd->size)) {
		fz_write_parts(parts, n, "out/", OUT);
		fz_write_parts(parts, n, "out.old/", OUT ".old");
		tree = fz_tree(keep);
		users_there(parts, n, before);
		said = fz_command(cmd_import, argv, &status, &len);
		users_there(parts, n, after);
		for (size_t i = 0; i < n; i++)
			if (before[i] && !after[i])
				fail("a file of the user's was moved or removed", parts[i].name);
		if (status == 0)
			check_imported(out);
		split(in);
		fz_same_tree(tree, keep, "dsprof import, or a split");
		free(said);
	}
	free(in);
	free(out);
	return 0;
}
