/*
 * libFuzzer target: the files that define machines and memory objects.
 * The input holds (fuzz.h: "--- NAME" lines):
 *   machine    a --machine model file (docs/memory-objects.md)
 *   override   a --cache override ("L1D=32K:8:64,...") applied after it
 *   mobj       the user's memory-object file (DSPROF_MOBJ)
 *   define     NAME = EXPR lines that `dsprof mobj define` and `undefine`
 *              apply to that file
 * Bad files are one error naming the file and line, never a crash; what
 * loads must evaluate; and editing the file keeps it readable, with the
 * definition added, replaced or removed and every other one as it was.
 */
#include "memobj/memobj.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t accesses[][DS_NOPERANDS] = {
	{0x7f3a12345678, 0x1234567890, 4242, 3, 0x401234, 123456789},
	{-1, -1, -1, -1, -1, -1},
	{0, 0, 0, 0, 0, 0},
	{INT64_MIN, INT64_MAX, 1, -2, 64, 4096},
};

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "fuzz_machine: %s: %s\n", what, name);
	abort();
}

static void evaluate(const ds_mobjs *objs)
{
	char buf[64];

	for (size_t i = 0; i < objs->n; i++)
		for (size_t k = 0; objs->v[i].code && k < sizeof accesses / sizeof accesses[0]; k++) {
			ds_access a = {0};
			memcpy(a.v, accesses[k], sizeof a.v);
			ds_mobj_format(&objs->v[i], ds_expr_eval(objs->v[i].code, &a), buf, sizeof buf);
		}
}

static void use_machine(const ds_machine *m, const char *user)
{
	static const char *const levels[] = {"L1D", "L1I", "L2", "L3", "L4", "L9", "L"};
	ds_mobjs objs;
	ds_err err = {0};
	int64_t v;

	for (size_t i = 0; ds_machine_constants[i]; i++)
		ds_machine_constant(m, ds_machine_constants[i], &v);
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
		ds_machine_level(m, levels[i]);
	ds_mobjs_init(&objs, m);
	ds_mobjs_add_user(&objs, user, &err);
	evaluate(&objs);
	for (size_t i = 0; i < objs.n; i++)
		ds_mobjs_find(&objs, objs.v[i].name, &err);
	ds_mobjs_fini(&objs);
}

/* The definition of name in the file at path (NULL: none); defs too. */
static const ds_mobj_def *def_of(const ds_mobj_def *defs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return &defs[i];
	return NULL;
}

/* After an edit of name: the file reads, and holds what it held but for
 * name, which has text (NULL: is gone). */
static void check_edit(const char *path, const ds_mobj_def *before, size_t nb, const char *name,
		       const char *text)
{
	ds_mobj_def *after;
	size_t na;
	ds_err err = {0};
	const ds_mobj_def *d;

	if (ds_mobj_file_read(path, &after, &na, &err))
		fail("an edit left a file that does not read", err.msg);
	d = def_of(after, na, name);
	if (text ? !d || strcmp(d->text, text) : d != NULL)
		fail(text ? "a definition did not take" : "an undefined name is still there", name);
	for (size_t i = 0; i < nb; i++)
		if (strcmp(before[i].name, name) &&
		    (!(d = def_of(after, na, before[i].name)) || strcmp(d->text, before[i].text)))
			fail("an edit changed another definition", before[i].name);
	ds_mobj_defs_free(after, na);
}

/* `dsprof mobj define NAME EXPR` (with --force) and `undefine NAME` of
 * each line of edits, on a copy of the user's file. */
static void edit(const char *user, size_t len, char *edits)
{
	char *path = ds_xasprintf("%s/mobj", fz_dir());

	fz_write("mobj", user, len);
	for (char *l = edits, *next; *l; l = next) {
		ds_mobj_def *defs;
		size_t n;
		ds_err err = {0};
		char *eq, *name, *text;
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		else
			next = l + strlen(l);
		if (!(eq = strchr(l, '=')))
			continue;
		*eq = 0;
		name = ds_trim(l);
		text = ds_trim(eq + 1);
		if (ds_mobj_file_read(path, &defs, &n, &err))
			break;
		if (ds_mobj_file_define(path, name, text, true, &err) == 0)
			check_edit(path, defs, n, name, text);
		if (ds_mobj_file_undefine(path, name, &err) == 0)
			check_edit(path, defs, n, name, NULL);
		ds_mobj_defs_free(defs, n);
	}
	free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts);
	const fz_part *model = fz_find(parts, n, "machine"), *user = fz_find(parts, n, "mobj");
	char *override = fz_text(fz_find(parts, n, "override")), *edits = fz_text(fz_find(parts, n, "define"));
	const char *user_path = fz_memfile(1, user ? user->data : NULL, user ? user->size : 0);
	ds_machine m;
	ds_err err = {0};
	ds_mobj_def *defs;
	size_t ndefs;

	if (model && ds_machine_load(&m, fz_memfile(0, model->data, model->size), &err) == 0) {
		use_machine(&m, user_path);
		if (*override && ds_machine_override(&m, override, &err) == 0)
			use_machine(&m, user_path);
		ds_machine_fini(&m);
	} else {
		memset(&m, 0, sizeof m);
		if (ds_machine_override(&m, *override ? override : "L1D=32K:8:64,L2=1M:16:64,PAGE_SIZE=4K",
					&err) == 0)
			use_machine(&m, user_path);
		ds_machine_fini(&m);
	}
	if (ds_mobj_file_read(user_path, &defs, &ndefs, &err) == 0)
		ds_mobj_defs_free(defs, ndefs);
	fz_clear();
	edit(user ? (const char *)user->data : "", user ? user->size : 0, edits);
	free(override);
	free(edits);
	return 0;
}
