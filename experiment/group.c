/* Experiment groups: a directory of experiments and its index
 * (experiment.h, docs/experiment-format.md "Groups").
 *
 * Several dsprof processes add to one group at once (the ranks of an MPI
 * job on one machine), so every change to the group happens under an
 * exclusive lock on its index: choosing a member's name and making its
 * directory, and appending its line once it is complete.  A line is
 * written with one write(2) on a file opened for appending, and readers
 * take only whole lines: a member whose recording died is a directory
 * without a line, never a torn one. */
#include "experiment/experiment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX "group"
#define HEADER "dsprof-group 1\n"

bool ds_group_is(const char *dir)
{
	char *path = ds_xasprintf("%s/" INDEX, dir), head[sizeof HEADER];
	int fd = ds_open_own(path, NULL);
	bool yes = false;

	if (fd >= 0) {
		yes = read(fd, head, sizeof HEADER - 1) == (ssize_t)(sizeof HEADER - 1) &&
		      memcmp(head, HEADER, sizeof HEADER - 1) == 0;
		close(fd);
	}
	free(path);
	return yes;
}

/* What the group g holds besides its index: whether anything (*others),
 * and the highest K of its run.K directories (0: none). */
static void scan_group(const ds_wdir *g, bool *others, int64_t *last_run)
{
	int fd = dup(ds_wdir_fd(g));
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	*others = false;
	*last_run = 0;
	if (!d && fd >= 0)
		close(fd);
	if (d)
		rewinddir(d);
	while (d && (e = readdir(d))) {
		char *end;
		long long k;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, INDEX))
			continue;
		*others = true;
		if (strncmp(e->d_name, "run.", 4) != 0)
			continue;
		errno = 0;
		k = strtoll(e->d_name + 4, &end, 10);
		if (!errno && !*end && end != e->d_name + 4 && k > *last_run)
			*last_run = k;
	}
	if (d)
		closedir(d);
}

/* The index of group, open and locked for writing, and the group's
 * directory in *gdir; both made when absent.  -1 with err.  The index is
 * opened without following a link and must be a regular file of this
 * user's, in a directory of this user's that no other may write in. */
static int lock_index(const char *group, ds_wdir **gdir, ds_err *err)
{
	char *name = NULL;
	ds_wdir *parent = ds_wdir_parent(group, &name, err), *g = NULL;
	int fd = -1;

	*gdir = NULL;
	if (!parent || !(g = ds_wdir_sub(parent, name, true, err)))
		goto out;
	if ((fd = ds_wdir_open_file(g, INDEX, O_RDWR | O_APPEND | O_CREAT, err)) < 0)
		goto out;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			ds_err_set(err, DS_EENV, "cannot lock '%s/" INDEX "': %s", group, strerror(errno));
			close(fd);
			fd = -1;
			goto out;
		}
	if (lseek(fd, 0, SEEK_END) == 0) {
		/* a new index; an empty group directory becomes a group, any other
		 * directory is the user's */
		bool others;
		int64_t last;
		scan_group(g, &others, &last);
		if (others) {
			ds_err_set(err, DS_EINPUT, "cannot use '%s' as a group: it holds files and no group index; "
				   "give a new directory, or an experiment group dsprof made", group);
			ds_wdir_unlink(g, INDEX, NULL);
			close(fd);
			fd = -1;
			goto out;
		}
		if (write(fd, HEADER, sizeof HEADER - 1) != (ssize_t)(sizeof HEADER - 1)) {
			ds_err_set(err, DS_EENV, "cannot write '%s/" INDEX "': %s", group, strerror(errno));
			close(fd);
			fd = -1;
		}
	} else if (!ds_group_is(group)) {
		ds_err_set(err, DS_EINPUT, "cannot use '%s' as a group: its '" INDEX "' is not a dsprof group "
			   "index", group);
		close(fd);
		fd = -1;
	}
out:
	if (fd >= 0)
		*gdir = g;
	else
		ds_wdir_close(g);
	ds_wdir_close(parent);
	free(name);
	return fd;
}

int ds_group_make(const char *group, ds_err *err)
{
	ds_wdir *g;
	int fd = lock_index(group, &g, err);

	if (fd < 0)
		return -1;
	close(fd);
	ds_wdir_close(g);
	return 0;
}

static bool member_line(char *line, ds_group_member *m)
{
	char *kind = strchr(line, '\t'), *id, *end;
	long long v;

	if (!kind || !(id = strchr(kind + 1, '\t')))
		return false;
	*kind++ = 0;
	*id++ = 0;
	errno = 0;
	v = strtoll(id, &end, 10);
	if (!*line || strchr(line, '/') || !strcmp(line, ".") || !strcmp(line, "..") || errno || end == id ||
	    *end || (strcmp(kind, "rank") && strcmp(kind, "run") && strcmp(kind, "process")))
		return false;
	m->name = ds_xstrdup(line);
	m->kind = ds_xstrdup(kind);
	m->id = v;
	return true;
}

/* Whether line number `at` of the members repeats an earlier one's name. */
static size_t repeated(const ds_group_member *v, size_t at)
{
	for (size_t i = 0; i < at; i++)
		if (!strcmp(v[i].name, v[at].name))
			return i;
	return SIZE_MAX;
}

int ds_group_members(const char *group, ds_group_member **out, size_t *n, char **note, ds_err *err)
{
	char *path = ds_xasprintf("%s/" INDEX, group), *text = NULL;
	size_t len = 0, bad = 0, first;
	int fd;
	DS_VEC(ds_group_member) v = {0};
	bool cut = false;

	*out = NULL;
	*n = 0;
	*note = NULL;
	/* under a shared lock: no writer is halfway through a line */
	if ((fd = ds_open_own(path, err)) < 0)
		goto fail;
	while (flock(fd, LOCK_SH) < 0 && errno == EINTR)
		;
	if (!(text = ds_read_fd(fd, path, &len, err)))
		goto fail;
	if (len < sizeof HEADER - 1 || memcmp(text, HEADER, sizeof HEADER - 1) != 0) {
		ds_err_set(err, DS_EINPUT, "'%s' is not a dsprof group index", path);
		goto fail;
	}
	for (char *p = text + sizeof HEADER - 1, *nl; p < text + len; p = nl + 1) {
		ds_group_member m;
		if (!(nl = memchr(p, '\n', (size_t)(text + len - p)))) {
			nl = text + len; /* the text's terminating NUL */
			cut = true;
		}
		*nl = 0;
		if (memchr(p, 0, (size_t)(nl - p)) || !member_line(p, &m)) {
			bad++;
			continue;
		}
		ds_vec_push(&v, m);
		if ((first = repeated(v.v, v.n - 1)) != SIZE_MAX) {
			ds_err_set(err, DS_EINPUT, "'%s' lists '%s' twice (as member %zu and %zu): it was changed by "
				   "hand or damaged; remove the repeated line", path, m.name, first + 1, v.n);
			goto fail;
		}
	}
	if (bad) {
		ds_err_set(err, DS_EINPUT, "'%s' has %zu lines that are not 'NAME<tab>KIND<tab>ID': it was "
			   "changed by hand or damaged", path, bad);
		goto fail;
	}
	if (cut)
		*note = ds_xasprintf("'%s' ends in a line without a newline (changed by hand, or cut short): its "
				     "member '%s' is read as listed", path, v.n ? v.v[v.n - 1].name : "");
	free(text);
	free(path);
	*out = v.v;
	*n = v.n;
	return 0;
fail:
	ds_group_members_free(v.v, v.n);
	free(text);
	free(path);
	return -1;
}

void ds_group_members_free(ds_group_member *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].kind);
	}
	free(v);
}

/* The text of the index open at fd (NUL-terminated, malloc'd). */
static char *index_text(int fd)
{
	ds_buf b = {0};
	char chunk[4096];
	ssize_t got;

	for (off_t at = 0; (got = pread(fd, chunk, sizeof chunk, at)) > 0; at += got)
		ds_buf_append(&b, chunk, (size_t)got);
	ds_buf_putc(&b, 0);
	return ds_buf_steal(&b);
}

/* Whether the index's text lists a member named name (its line follows
 * the header's newline, or another line's). */
static bool listed(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; (p = strchr(p, '\n')); p++)
		if (!strncmp(p + 1, name, len) && p[1 + len] == '\t')
			return true;
	return false;
}

/* A process member's name in group g: its program's, made safe for a
 * directory, neither there nor listed in the index's text (malloc'd). */
static char *process_name(const ds_wdir *g, const char *text, const char *prog, int64_t id)
{
	ds_buf b = {0};
	char *name;
	struct stat st;

	for (const char *p = prog && *prog ? prog : "process"; *p; p++)
		ds_buf_putc(&b, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
					*p == '_' || *p == '-' || (*p == '.' && p != prog) ? *p : '_');
	ds_buf_printf(&b, ".%" PRId64, id);
	name = ds_xstrdup(ds_buf_str(&b));
	for (int k = 2; fstatat(ds_wdir_fd(g), name, &st, AT_SYMLINK_NOFOLLOW) == 0 || listed(text, name); k++) {
		free(name);
		name = ds_xasprintf("%s.%d", ds_buf_str(&b), k);
	}
	ds_buf_free(&b);
	return name;
}

/* The number of a new run in group g: the next after every run there,
 * that the index's text does not list; -1 when there is none (a run
 * numbered INT64_MAX is there, or listed). */
static int64_t next_run(const ds_wdir *g, const char *text)
{
	bool others, taken = true;
	int64_t id;

	scan_group(g, &others, &id);
	while (taken && id < INT64_MAX) {
		char *run = ds_xasprintf("run.%" PRId64, ++id);
		taken = listed(text, run);
		free(run);
	}
	return taken ? -1 : id;
}

int ds_group_reserve(const char *group, const char *kind, int64_t id, const char *prog, char **path, int64_t *got,
		     ds_err *err)
{
	ds_wdir *g, *member = NULL;
	int fd = lock_index(group, &g, err), rc = -1;
	char *name = NULL, *text;

	*path = NULL;
	if (fd < 0)
		return -1;
	/* a name the index lists is taken even when its directory is gone (a
	 * member removed by hand): a second line of it makes the index refused */
	text = index_text(fd);
	if (!strcmp(kind, "run") && (id = next_run(g, text)) < 0) {
		ds_err_set(err, DS_EINPUT, "cannot number a new run in group '%s': it has a run numbered %" PRId64
			   "; give a new group", group, INT64_MAX);
		goto out;
	}
	name = !strcmp(kind, "process") ? process_name(g, text, prog, id)
		: ds_xasprintf("%s.%" PRId64, !strcmp(kind, "rank") ? "rank" : "run", id);
	if (listed(text, name))
		ds_err_set(err, DS_EINPUT, "cannot make '%s/%s' in group '%s': its index lists it already (each "
			   "rank is recorded once into a group: give a new one)", group, name, group);
	else if (!(member = ds_wdir_make(g, name, err))) {
		if (errno == EEXIST)
			ds_err_set(err, DS_EINPUT, "cannot make '%s/%s' in group '%s': it exists (each rank is "
				   "recorded once into a group: give a new one)", group, name, group);
	} else {
		*path = ds_wdir_join(g, name);
		*got = id;
		rc = 0;
	}
out:
	ds_wdir_close(member);
	ds_wdir_close(g);
	free(name);
	free(text);
	close(fd);
	return rc;
}

int ds_group_add(const char *group, const char *path, const char *kind, int64_t id, ds_err *err)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	ds_wdir *g;
	int fd = lock_index(group, &g, err), rc = 0;
	char *line, last;
	off_t end;

	if (fd < 0)
		return -1;
	/* an index whose last line lost its newline (cut short, or edited by
	 * hand) is read with a note: this line starts a line of its own, or
	 * the two would make one that no reader takes */
	end = lseek(fd, 0, SEEK_END);
	if (end <= 0 || pread(fd, &last, 1, end - 1) != 1)
		last = '\n';
	line = ds_xasprintf("%s%s\t%s\t%" PRId64 "\n", last == '\n' ? "" : "\n", name, kind, id);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || fsync(fd) < 0)
		rc = ds_err_set(err, DS_EENV, "cannot add '%s' to group '%s': %s", name, group, strerror(errno));
	free(line);
	close(fd);
	ds_wdir_close(g);
	return rc;
}
