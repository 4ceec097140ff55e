/* What the fuzz targets share: see fuzz.h. */
#include "tests/fuzz/fuzz.h"

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
