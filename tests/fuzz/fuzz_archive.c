/*
 * libFuzzer target: `dsprof archive` over a crafted experiment.  Its
 * perf.data's build-id list names the files to keep, and dsprof runs as
 * root: whatever the list says (paths with "..", relative or absolute
 * ones, names of special files), the archive writes nothing outside
 * DIR/archive, and keeps a file only under the build-id it has.  Run
 * again, it keeps nothing more and still writes nowhere else.  Damage
 * gives notes and errors, never a crash, a leak or a hang.
 *
 * The input holds the experiment's files (fuzz.h: "--- NAME" lines):
 *   perf.data   its HEADER_BUILD_ID feature, or pipe-mode records, lists
 *               the objects (real files of this machine, in the seeds)
 *   vdso.so     the vDSO image kept with it
 *   archive/... an archive already there
 * The experiment is a fresh folder FZ_DEEP/exp for each input.
 */
#include "cli/cli.h"
#include "dwarfmap/dwarfmap.h"
#include "experiment/experiment.h"
#include "tests/fuzz/fuzz.h"

#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXP FZ_DEEP "/exp"

/* Each object the archive kept (PATH/BUILD-ID/elf or vdso, not the
 * input's own) has that build-id. */
static void check_kept(const fz_part *parts, size_t n)
{
	char *top = ds_xasprintf("%s/" EXP "/archive", fz_dir()), *roots[] = {top, NULL};
	size_t skip = strlen(fz_dir()) + strlen("/" EXP "/");
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	FTSENT *e;

	while (fts && (e = fts_read(fts))) {
		uint8_t id[DS_BUILD_ID_MAX];
		char hex[2 * DS_BUILD_ID_MAX + 1], *folder;
		if (e->fts_info != FTS_F || (strcmp(e->fts_name, "elf") && strcmp(e->fts_name, "vdso")) ||
		    fz_find(parts, n, e->fts_path + skip))
			continue;
		ds_build_id_hex(id, ds_build_id_of_file(e->fts_path, id, sizeof id), hex);
		folder = ds_xstrndup(e->fts_path, strlen(e->fts_path) - strlen(e->fts_name) - 1);
		if (strcmp(strrchr(folder, '/') + 1, hex) != 0) {
			fprintf(stderr, "fuzz_archive: '%s' is kept, and its build-id is '%s'\n", e->fts_path, hex);
			abort();
		}
		free(folder);
	}
	if (fts)
		fts_close(fts);
	free(top);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = {EXP "/archive", NULL};
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts);
	char *dir = ds_xasprintf("%s/" EXP, fz_dir()), *tree;
	ds_err err = {0};

	fz_clear();
	fz_write_parts(parts, n, "", EXP);
	for (int run = 0; run < 2; run++) {
		tree = fz_tree(keep);
		cli_archive(dir, true, &err);
		fz_same_tree(tree, keep, "dsprof archive");
		check_kept(parts, n);
	}
	free(dir);
	return 0;
}
