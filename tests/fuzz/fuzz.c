/* What the fuzz targets share: see fuzz.h. */
#include "tests/fuzz/fuzz.h"

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NSLOTS 8

static void die(const char *what)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
	abort();
}

const char *fz_memfile(int slot, const void *data, size_t size)
{
	static char *paths[NSLOTS];
	const char *p = data;
	int fd;

	if (slot < 0 || slot >= NSLOTS)
		abort();
	/* a regular file: dsprof reads an experiment's files without following
	 * a link, and /proc/self/fd/N of a memfd is one */
	if (!paths[slot])
		paths[slot] = ds_xasprintf("%s/.slot%d", fz_dir(), slot);
	if ((fd = open(paths[slot], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		die(paths[slot]);
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, p + done, size - done);
		if (w <= 0)
			die("write");
		done += (size_t)w;
	}
	close(fd);
	return paths[slot];
}

static char *scratch;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0 || !scratch || strcmp(path, scratch) != 0)
		remove(path);
	return 0;
}

static void remove_scratch(void)
{
	if (scratch)
		nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (scratch)
		rmdir(scratch);
}

const char *fz_dir(void)
{
	if (!scratch) {
		const char *tmp = getenv("TMPDIR");
		struct stat st;
		char *t = ds_xasprintf("%s/dsprof-fuzz.XXXXXX",
				       stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm"
				       : tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(t))
			die(t);
		scratch = t;
		atexit(remove_scratch);
		/* the user's memory objects: never the real file */
		t = ds_xasprintf("%s/user-mobj", scratch);
		setenv("DSPROF_MOBJ", t, 1);
		free(t);
	}
	return scratch;
}

void fz_clear(void)
{
	nftw(fz_dir(), remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

bool fz_write(const char *name, const void *data, size_t size)
{
	char *path = ds_xasprintf("%s/%s", fz_dir(), name);
	FILE *f;
	bool ok;

	for (char *s = path + strlen(fz_dir()) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(path, 0755);
		*s = '/';
	}
	ok = (f = fopen(path, "wb")) && (!size || fwrite(data, 1, size, f) == size);
	ok = (!f || fclose(f) == 0) && ok;
	free(path);
	return ok;
}

size_t fz_split(const uint8_t *data, size_t size, fz_part *parts)
{
	static const char mark[] = "--- ";
	const size_t mlen = sizeof mark - 1;
	size_t n = 0, at = 0;

	while (at <= size && n < FZ_MAX_PARTS) {
		fz_part *p = &parts[n];
		const uint8_t *next = NULL;
		size_t body = at;

		memset(p, 0, sizeof *p);
		/* a marker here: its name, up to the end of the line */
		if (size - at >= mlen && memcmp(data + at, mark, mlen) == 0) {
			const uint8_t *nl = memchr(data + at + mlen, '\n', size - at - mlen);
			size_t len = nl ? (size_t)(nl - data) - at - mlen : size - at - mlen;
			snprintf(p->name, sizeof p->name, "%.*s", (int)len, (const char *)data + at + mlen);
			body = nl ? (size_t)(nl - data) + 1 : size;
		} else if (at > 0) {
			break;
		}
		/* the body runs to "\n--- " */
		for (size_t k = body; k + mlen + 1 <= size && !next; k++)
			if (data[k] == '\n' && memcmp(data + k + 1, mark, mlen) == 0)
				next = data + k;
		p->data = data + body;
		p->size = (next ? (size_t)(next - data) : size) - body;
		if (p->name[0] || p->size)
			n++;
		if (!next)
			break;
		at = (size_t)(next - data) + 1;
	}
	return n;
}

const fz_part *fz_find(const fz_part *parts, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(parts[i].name, name) == 0)
			return &parts[i];
	return NULL;
}

char *fz_text(const fz_part *p)
{
	return p ? ds_xstrndup((const char *)p->data, p->size) : ds_xstrdup("");
}

char *fz_opt(const fz_part *p, const char *key)
{
	size_t len = strlen(key);

	for (size_t at = 0; p && at < p->size;) {
		const uint8_t *nl = memchr(p->data + at, '\n', p->size - at);
		size_t end = nl ? (size_t)(nl - p->data) : p->size;
		if (end - at > len && memcmp(p->data + at, key, len) == 0 && p->data[at + len] == '=')
			return ds_xstrndup((const char *)p->data + at + len + 1, end - at - len - 1);
		at = end + 1;
	}
	return NULL;
}

/* A path of the input's that stays where it is put: relative, with no
 * empty, "." or ".." component. */
static bool inside(const char *path)
{
	for (const char *p = path; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p)) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
	}
	return *path != 0;
}

size_t fz_write_parts(const fz_part *parts, size_t n, const char *prefix, const char *dir)
{
	size_t done = 0, len = strlen(prefix);

	for (size_t i = 0; i < n; i++) {
		char *name;
		if (strncmp(parts[i].name, prefix, len) || !inside(parts[i].name + len))
			continue;
		name = ds_xasprintf("%s/%s", dir, parts[i].name + len);
		done += fz_write(name, parts[i].data, parts[i].size);
		free(name);
	}
	return done;
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

char *fz_tree(const char *const *keep)
{
	char *roots[] = {(char *)fz_dir(), NULL};
	size_t top = strlen(roots[0]);
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, by_name);
	ds_buf b = {0};
	FTSENT *e;

	if (!fts)
		die("fts_open");
	while ((e = fts_read(fts))) {
		const char *rel = e->fts_path + top + (e->fts_path[top] == '/');
		bool kept = false;
		if (e->fts_info == FTS_DP)
			continue;
		for (size_t i = 0; keep[i] && !kept; i++)
			kept = strcmp(rel, keep[i]) == 0;
		if (kept) {
			fts_set(fts, e, FTS_SKIP);
			continue;
		}
		/* a folder's own size and time change with what is kept in it */
		if (e->fts_info == FTS_D)
			ds_buf_printf(&b, "%s/\n", rel);
		else
			ds_buf_printf(&b, "%s %o %llu %lld %lld.%09ld\n", rel, e->fts_statp->st_mode,
				      (unsigned long long)e->fts_statp->st_ino, (long long)e->fts_statp->st_size,
				      (long long)e->fts_statp->st_mtim.tv_sec, e->fts_statp->st_mtim.tv_nsec);
	}
	fts_close(fts);
	return ds_buf_steal(&b);
}

void fz_same_tree(char *before, const char *const *keep, const char *who)
{
	char *after = fz_tree(keep);
	size_t at = 0;

	if (strcmp(before, after) != 0) {
		while (before[at] == after[at])
			at++;
		while (at > 0 && before[at - 1] != '\n')
			at--;
		fprintf(stderr, "fuzz: %s wrote or removed outside the folders it may write in %s; "
				"before:\n%.400s\nafter:\n%.400s\n", who, fz_dir(), before + at, after + at);
		abort();
	}
	free(before);
	free(after);
}

char *fz_command(int (*cmd)(int, char **), char **argv, int *status, size_t *len)
{
	static int fd = -1;
	char *reset[] = {"fuzz", NULL}, *out;
	int argc = 0, saved;
	struct stat st;

	while (argv[argc])
		argc++;
	if (fd < 0 && (fd = memfd_create("stdout", MFD_CLOEXEC)) < 0)
		die("memfd_create");
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) < 0)
		die("ftruncate");
	/* getopt starts afresh (optind 0): a command that stopped in the
	 * middle of "-xyz" left it pointing there */
	optind = 0;
	opterr = 0;
	getopt(1, reset, "");
	fflush(stdout);
	if ((saved = dup(STDOUT_FILENO)) < 0 || dup2(fd, STDOUT_FILENO) < 0)
		die("dup2");
	*status = cmd(argc, argv);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) < 0)
		die("dup2");
	close(saved);
	if (*status < 0 || *status > 2) {
		fprintf(stderr, "fuzz: %s exited with status %d\n", argv[0], *status);
		abort();
	}
	if (fstat(fd, &st))
		die("fstat");
	*len = (size_t)st.st_size;
	out = ds_xcalloc(1, *len + 1);
	if (*len && pread(fd, out, *len, 0) != (ssize_t)*len)
		die("pread");
	return out;
}

void fz_check_json(const char *p, size_t len, const char *what)
{
	ds_err err = {0};
	ds_json *j = ds_json_parse(p, len, what, &err);

	if (!j) {
		fprintf(stderr, "fuzz: the JSON of %s does not parse: %s\n", what, err.msg);
		abort();
	}
	ds_json_free(j);
}

const char *fz_experiment(void)
{
	const char *e = getenv("DSPROF_FUZZ_EXPERIMENT");

	if (!e || !*e) {
		fprintf(stderr, "fuzz: set DSPROF_FUZZ_EXPERIMENT to the experiment to run over "
				"(tests/fuzz/run.sh records one)\n");
		exit(2);
	}
	return e;
}
