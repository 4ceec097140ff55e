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

int cli_copy_file(const char *from, const char *to, ds_err *err)
{
	int in = ds_open_regular(from, err), out;
	char buf[1 << 16];
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return ds_err_set(err, DS_EENV, "cannot create '%s': %s", to, strerror(errno));
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || fsync(out) < 0) {
		ds_err_set(err, DS_EENV, "cannot copy '%s' to '%s': %s", from, to, strerror(errno));
		close(in);
		close(out);
		return -1;
	}
	close(in);
	close(out);
	return 0;
}

typedef struct archive {
	char *top;        /* DIR/archive */
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
static int keep(archive *a, const char *from, const char *folder, const char *name, ds_err *err)
{
	char *to = ds_xasprintf("%s/%s", folder, name), *tmp = ds_xasprintf("%s.tmp", to);
	struct stat st;
	int rc;

	ds_make_parents(to);
	rc = cli_copy_file(from, tmp, err);
	if (rc == 0 && rename(tmp, to) != 0)
		rc = ds_err_set(err, DS_EENV, "cannot rename '%s' to '%s': %s", tmp, to, strerror(errno));
	if (rc)
		unlink(tmp);
	else if (stat(to, &st) == 0)
		a->bytes += (uint64_t)st.st_size;
	free(tmp);
	free(to);
	return rc;
}

/* archive/.build-id/xx/rest -> ../../NAME/BUILD-ID, as perf links its cache. */
static int link_build_id(archive *a, const char *name, const char *hex, ds_err *err)
{
	char *link = ds_xasprintf("%s/.build-id/%.2s/%s", a->top, hex, hex + 2);
	char *target = ds_xasprintf("../..%s%s/%s", name[0] == '/' ? "" : "/", name, hex);
	int rc = 0;

	ds_make_parents(link);
	unlink(link);
	if (symlink(target, link) != 0)
		rc = ds_err_set(err, DS_EENV, "cannot make the link '%s': %s", link, strerror(errno));
	free(link);
	free(target);
	return rc;
}

static int archive_one(archive *a, const char *dir, const ds_build_id *b, ds_err *err)
{
	bool vdso = strcmp(b->path, "[vdso]") == 0;
	const char *name = vdso ? "vdso" : "elf";
	char hex[2 * DS_BUILD_ID_MAX + 1];
	char *src = vdso ? ds_xasprintf("%s/vdso.so", dir) : ds_xstrdup(b->path);
	char *folder, *have;
	int rc = 0;

	ds_build_id_hex(b->id, b->size, hex);
	folder = ds_xasprintf("%s/%s/%s", a->top, b->path, hex);
	have = ds_xasprintf("%s/%s", folder, name);
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
		rc = keep(a, src, folder, name, err);
		if (rc == 0 && debug)
			rc = keep(a, debug, folder, "debug", err);
		ds_dso_close(d);
		if (rc)
			goto out;
		a->kept++;
	}
	rc = link_build_id(a, b->path, hex, err);
out:
	free(have);
	free(folder);
	free(src);
	return rc;
}

int cli_archive(const char *input, bool quiet, ds_err *err)
{
	archive a = {0};
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
