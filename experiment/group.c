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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes = false;

	if (fd >= 0) {
		yes = read(fd, head, sizeof HEADER - 1) == (ssize_t)(sizeof HEADER - 1) &&
		      memcmp(head, HEADER, sizeof HEADER - 1) == 0;
		close(fd);
	}
	free(path);
	return yes;
}

/* What group holds besides its index: whether anything (*others), and
 * the highest K of its run.K directories (0: none). */
static void scan_group(const char *group, bool *others, int64_t *last_run)
{
	DIR *d = opendir(group);
	struct dirent *e;

	*others = false;
	*last_run = 0;
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

/* The index of group, open and locked for writing; made (with the group)
 * when absent.  -1 with err. */
static int lock_index(const char *group, ds_err *err)
{
	char *path = ds_xasprintf("%s/" INDEX, group);
	struct stat st;
	int fd = -1;

	if (mkdir(group, 0755) < 0 && errno != EEXIST) {
		ds_err_set(err, errno == ENOENT ? DS_EINPUT : DS_EENV, "cannot create group '%s': %s", group,
			   strerror(errno));
		goto out;
	}
	if (stat(group, &st) != 0 || !S_ISDIR(st.st_mode)) {
		ds_err_set(err, DS_EINPUT, "cannot use '%s' as a group: it is not a directory", group);
		goto out;
	}
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ds_err_set(err, DS_EENV, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			ds_err_set(err, DS_EENV, "cannot lock '%s': %s", path, strerror(errno));
			close(fd);
			fd = -1;
			goto out;
		}
	if (lseek(fd, 0, SEEK_END) == 0) {
		/* a new index; an empty group directory becomes a group, any other
		 * directory is the user's */
		bool others;
		int64_t last;
		scan_group(group, &others, &last);
		if (others) {
			ds_err_set(err, DS_EINPUT, "cannot use '%s' as a group: it holds files and no group index; "
				   "give a new directory, or an experiment group dsprof made", group);
			unlink(path);
			close(fd);
			fd = -1;
			goto out;
		}
		if (write(fd, HEADER, sizeof HEADER - 1) != (ssize_t)(sizeof HEADER - 1)) {
			ds_err_set(err, DS_EENV, "cannot write '%s': %s", path, strerror(errno));
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
	free(path);
	return fd;
}

int ds_group_make(const char *group, ds_err *err)
{
	int fd = lock_index(group, err);

	if (fd < 0)
		return -1;
	close(fd);
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

int ds_group_members(const char *group, ds_group_member **out, size_t *n, ds_err *err)
{
	char *path = ds_xasprintf("%s/" INDEX, group), *text;
	size_t len, bad = 0;
	DS_VEC(ds_group_member) v = {0};

	*out = NULL;
	*n = 0;
	if (!(text = ds_read_file_err(path, &len, err))) {
		free(path);
		return -1;
	}
	if (len < sizeof HEADER - 1 || memcmp(text, HEADER, sizeof HEADER - 1) != 0) {
		ds_err_set(err, DS_EINPUT, "'%s' is not a dsprof group index", path);
		free(text);
		free(path);
		return -1;
	}
	for (char *p = text + sizeof HEADER - 1, *nl; p < text + len; p = nl + 1) {
		ds_group_member m;
		if (!(nl = memchr(p, '\n', (size_t)(text + len - p))))
			break; /* a line being written: not a member yet */
		*nl = 0;
		if (memchr(p, 0, (size_t)(nl - p)) || !member_line(p, &m)) {
			bad++;
			continue;
		}
		ds_vec_push(&v, m);
	}
	free(text);
	if (bad) {
		ds_group_members_free(v.v, v.n);
		ds_err_set(err, DS_EINPUT, "'%s' has %zu lines that are not 'NAME<tab>KIND<tab>ID': it was "
			   "changed by hand or damaged", path, bad);
		free(path);
		return -1;
	}
	free(path);
	*out = v.v;
	*n = v.n;
	return 0;
}

void ds_group_members_free(ds_group_member *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].kind);
	}
	free(v);
}

/* A process member's name: its program's, made safe for a directory. */
static char *process_name(const char *group, const char *prog, int64_t id)
{
	ds_buf b = {0};
	char *path;

	for (const char *p = prog && *prog ? prog : "process"; *p; p++)
		ds_buf_putc(&b, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
					*p == '_' || *p == '-' || (*p == '.' && p != prog) ? *p : '_');
	ds_buf_printf(&b, ".%" PRId64, id);
	path = ds_xasprintf("%s/%s", group, ds_buf_str(&b));
	for (int k = 2; access(path, F_OK) == 0; k++) {
		free(path);
		path = ds_xasprintf("%s/%s.%d", group, ds_buf_str(&b), k);
	}
	ds_buf_free(&b);
	return path;
}

int ds_group_reserve(const char *group, const char *kind, int64_t id, const char *prog, char **path, int64_t *got,
		     ds_err *err)
{
	int fd = lock_index(group, err), rc = -1;

	*path = NULL;
	if (fd < 0)
		return -1;
	if (!strcmp(kind, "run")) {
		/* the next number after every run there is, listed or not */
		bool others;
		scan_group(group, &others, &id);
		id++;
	}
	*path = !strcmp(kind, "process") ? process_name(group, prog, id)
		: ds_xasprintf("%s/%s.%" PRId64, group, !strcmp(kind, "rank") ? "rank" : "run", id);
	if (mkdir(*path, 0755) < 0) {
		ds_err_set(err, errno == EEXIST ? DS_EINPUT : DS_EENV, "cannot make '%s' in group '%s': %s%s", *path,
			   group, strerror(errno),
			   errno == EEXIST ? " (each rank is recorded once into a group: give a new one)"
					   : "");
		free(*path);
		*path = NULL;
	} else {
		*got = id;
		rc = 0;
	}
	close(fd);
	return rc;
}

int ds_group_add(const char *group, const char *path, const char *kind, int64_t id, ds_err *err)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int fd = lock_index(group, err), rc = 0;
	char *line;

	if (fd < 0)
		return -1;
	line = ds_xasprintf("%s\t%s\t%" PRId64 "\n", name, kind, id);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || fsync(fd) < 0)
		rc = ds_err_set(err, DS_EENV, "cannot add '%s' to group '%s': %s", name, group, strerror(errno));
	free(line);
	close(fd);
	return rc;
}
