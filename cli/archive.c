/*
 * dsprof archive [-i DIR]: keep the sampled objects with the experiment.
 *
 * The files are filed by build-id as perf files its build-id cache
 * (~/.debug, `perf archive`), so that perf finds them too:
 *
 *   DIR/archive/PATH/BUILD-ID/elf     a copy of the object
 *   DIR/archive/PATH/BUILD-ID/debug   its separate debug file, when it has one
 *   DIR/archive/[vdso]/BUILD-ID/vdso  the vDSO image
 *   DIR/archive/.build-id/xx/rest     link to ../../PATH/BUILD-ID
 *
 * Only a file whose build-id is the recorded one is kept: a file replaced
 * since the recording is another program.
 */
#include "cli/cli.h"

#include "dwarfmap/dwarfmap.h"
#include "experiment/experiment.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char archive_usage[] =
	"usage: dsprof archive [-i DIR] [-q]\n"
	"\n"
	"Copies into DIR/archive every object file the experiment's samples and call chains fall\n"
	"in, with its separate debug file when it has one, filed by build-id: reports of the\n"
	"experiment then read these copies on any machine.  Run it where the experiment was\n"
	"recorded, before the files change ('dsprof record --archive' does it at once).\n"
	"\n"
	"  -i, --input DIR   the experiment (default dsprof.data)\n"
	"  -q, --quiet       no summary line\n";

typedef struct archive {
	char *top;        /* DIR/archive */
	ds_wdir *dir;     /* the same, open: every copy and link is made through it */
	unsigned kept, had;
	uint64_t bytes;
	DS_VEC(char *) notes;
} archive;

/* A name that files safely under archive/: absolute, without "." or ".."
 * components (a crafted perf.data must not write outside the folder). */
static bool safe_name(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *p = path; *p; p++)
		if (p[0] == '/' && (p[1] == '/' || p[1] == 0 ||
				    (p[1] == '.' && (p[2] == '/' || p[2] == 0 ||
						     (p[2] == '.' && (p[3] == '/' || p[3] == 0))))))
			return false;
	return true;
}

static bool has_build_id(const char *path, const ds_build_id *b)
{
	uint8_t id[DS_BUILD_ID_MAX];
	return ds_build_id_of_file(path, id, sizeof id) == b->size && memcmp(id, b->id, b->size) == 0;
}

/* Copy from into folder/name, through a temporary file: an interrupted
 * copy never looks like an archived file. */
static int keep(archive *a, const char *from, ds_wdir *folder, const char *name, ds_err *err)
{
	struct stat st;
	int rc = ds_wdir_copy_in(folder, name, from, err);

	if (rc == 0 && fstatat(ds_wdir_fd(folder), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		a->bytes += (uint64_t)st.st_size;
	return rc;
}

/* archive/.build-id/xx/rest -> ../../NAME/BUILD-ID, as perf links its cache. */
static int link_build_id(archive *a, const char *name, const char *hex, ds_err *err)
{
	char *sub = ds_xasprintf(".build-id/%.2s", hex);
	char *target = ds_xasprintf("../..%s%s/%s", name[0] == '/' ? "" : "/", name, hex);
	ds_wdir *d = ds_wdir_sub(a->dir, sub, true, err);
	int rc = d ? ds_wdir_symlink(d, target, hex + 2, err) : -1;

	ds_wdir_close(d);
	free(sub);
	free(target);
	return rc;
}

static int archive_one(archive *a, const char *dir, const ds_build_id *b, ds_err *err)
{
	bool vdso = strcmp(b->path, "[vdso]") == 0;
	const char *name = vdso ? "vdso" : "elf";
	char hex[2 * DS_BUILD_ID_MAX + 1];
	char *src = vdso ? ds_xasprintf("%s/vdso.so", dir) : ds_xstrdup(b->path);
	char *sub, *have;
	ds_wdir *folder = NULL;
	int rc = 0;

	ds_build_id_hex(b->id, b->size, hex);
	sub = ds_xasprintf("%s/%s", b->path, hex);
	have = ds_xasprintf("%s/%s/%s", a->top, sub, name);
	if (has_build_id(have, b)) {
		a->had++;
	} else if (!has_build_id(src, b)) {
		ds_vec_push(&a->notes, ds_xasprintf("'%s' is not kept: %s", b->path,
						    access(src, R_OK) == 0
							    ? "the file here is not the one that was recorded (its build-id differs)"
							    : "there is no such file here"));
		goto out;
	} else {
		ds_err none;
		ds_dso *d = vdso ? NULL : ds_dso_open(src, NULL, &none);
		const char *debug = d ? ds_dso_separate_debug_file(d) : NULL;
		folder = ds_wdir_sub(a->dir, sub, true, err);
		rc = folder ? keep(a, src, folder, name, err) : -1;
		if (rc == 0 && debug)
			rc = keep(a, debug, folder, "debug", err);
		ds_dso_close(d);
		if (rc)
			goto out;
		a->kept++;
	}
	rc = link_build_id(a, b->path, hex, err);
out:
	ds_wdir_close(folder);
	free(have);
	free(sub);
	free(src);
	return rc;
}

int cli_archive(const char *input, bool quiet, ds_err *err)
{
	archive a = {0};
	ds_wdir *exp;
	ds_perfdata *pd = NULL;
	char *pdpath = NULL, *meta = NULL, *dir = NULL, *slash;
	const ds_build_id *ids;
	size_t n;
	int rc = -1;

	if (ds_expdir_resolve(input, &pdpath, &meta, err) || ds_perfdata_open(pdpath, &pd, err))
		goto out;
	slash = strrchr(pdpath, '/');
	dir = slash ? ds_xstrndup(pdpath, (size_t)(slash - pdpath)) : ds_xstrdup(".");
	ids = ds_perfdata_build_ids(pd, &n);
	if (!n) {
		ds_err_set(err, DS_EINPUT, "cannot archive '%s': it lists no build-ids (recorded by an "
			   "older dsprof, or by 'perf record --no-buildid'), so which files it sampled "
			   "cannot be told", input);
		goto out;
	}
	a.top = ds_xasprintf("%s/archive", dir);
	exp = ds_wdir_open(dir, err);
	a.dir = exp ? ds_wdir_sub(exp, "archive", true, err) : NULL;
	ds_wdir_close(exp);
	if (!a.dir)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (ids[i].kernel)
			continue; /* the kernel's symbols are kept in DIR/kallsyms */
		if (strcmp(ids[i].path, "[vdso]") != 0 && !safe_name(ids[i].path)) {
			ds_vec_push(&a.notes, ds_xasprintf("'%s' is not kept: not a file name", ids[i].path));
			continue;
		}
		if (archive_one(&a, dir, &ids[i], err))
			goto out;
	}
	rc = 0;
	if (!quiet) {
		fprintf(stderr, "[ dsprof archive: %u objects kept (%.2f MB)", a.kept, (double)a.bytes / 1e6);
		if (a.had)
			fprintf(stderr, ", %u already there", a.had);
		fputs(" in '", stderr);
		cli_puts_safe(stderr, a.top);
		fputs("' ]\n", stderr);
	}
out:
	for (size_t i = 0; i < a.notes.n; i++) {
		cli_note(a.notes.v[i]);
		free(a.notes.v[i]);
	}
	ds_vec_free(&a.notes);
	ds_wdir_close(a.dir);
	free(a.top);
	free(dir);
	free(pdpath);
	free(meta);
	ds_perfdata_close(pd);
	return rc;
}

int cmd_archive(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *input = "dsprof.data";
	bool quiet = false, input_given = false;
	ds_err err = {0};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; input_given = true; break;
		case 'q': quiet = true; break;
		case 'h': fputs(archive_usage, stdout); return 0;
		default: return cli_bad_option("archive", argv, c, NULL);
		}
	}
	if (optind < argc)
		return cli_usage_error("archive", "unexpected argument '%s' (the experiment is given with -i)",
				       argv[optind]);
	if (!input_given && cli_default_experiment("archive"))
		return 1;
	return cli_archive(input, quiet, &err) ? cli_fail(&err) : 0;
}
