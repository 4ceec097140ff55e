/* The experiment directory: creating it safely and finding its files. */
#include "experiment/experiment.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Whether dir holds only what an experiment holds (so it is ours to move). */
static bool looks_like_experiment(const char *dir)
{
	char *pd = ds_xasprintf("%s/perf.data", dir), *mj = ds_xasprintf("%s/meta.json", dir);
	bool yes = exists(pd) || exists(mj);
	DIR *d;
	struct dirent *e;
	bool empty = true;

	free(pd);
	free(mj);
	if (yes)
		return true;
	d = opendir(dir);
	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int ds_expdir_create(const char *dir, bool *moved_old, ds_err *err)
{
	struct stat st;

	*moved_old = false;
	if (stat(dir, &st) == 0) {
		char *old;
		if (!S_ISDIR(st.st_mode))
			return ds_err_set(err, DS_EINPUT,
					  "cannot create experiment '%s': a file of that name exists; "
					  "choose another name with -o", dir);
		if (!looks_like_experiment(dir))
			return ds_err_set(err, DS_EINPUT,
					  "cannot create experiment '%s': the directory exists and is not "
					  "an experiment; choose another name with -o", dir);
		old = ds_xasprintf("%s.old", dir);
		if (exists(old) && nftw(old, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0) {
			ds_err_set(err, DS_EENV, "cannot remove the previous '%s': %s", old, strerror(errno));
			free(old);
			return -1;
		}
		if (rename(dir, old) < 0) {
			ds_err_set(err, DS_EENV, "cannot rename '%s' to '%s': %s", dir, old, strerror(errno));
			free(old);
			return -1;
		}
		free(old);
		*moved_old = true;
	}
	if (mkdir(dir, 0755) < 0)
		return ds_err_set(err, errno == ENOENT ? DS_EINPUT : DS_EENV,
				  "cannot create experiment directory '%s': %s", dir, strerror(errno));
	return 0;
}

void ds_expdir_discard(const char *dir, bool moved_old)
{
	char *old = ds_xasprintf("%s.old", dir);
	if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 && moved_old)
		rename(old, dir);
	free(old);
}

int ds_expdir_resolve(const char *path, char **perfdata, char **meta, ds_err *err)
{
	struct stat st;

	*perfdata = *meta = NULL;
	if (stat(path, &st) < 0)
		return ds_err_set(err, DS_EINPUT,
				  "cannot open experiment '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		char *mj = ds_xasprintf("%s/meta.json", path);
		*perfdata = ds_xasprintf("%s/perf.data", path);
		if (!exists(*perfdata)) {
			ds_err_set(err, DS_EINPUT,
				   "cannot open experiment '%s': it has no perf.data (not an experiment "
				   "directory, or the recording failed before it started)", path);
			free(*perfdata);
			free(mj);
			*perfdata = NULL;
			return -1;
		}
		if (exists(mj))
			*meta = mj;
		else
			free(mj);
		return 0;
	}
	*perfdata = ds_xstrdup(path);
	{
		/* DIR/perf.data given directly: its meta.json sits beside it */
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		if (strcmp(base, "perf.data") == 0) {
			char *mj = ds_xasprintf("%.*smeta.json", (int)(base - path), path);
			if (exists(mj))
				*meta = mj;
			else
				free(mj);
		}
	}
	return 0;
}

int ds_expdir_save_vdso(const char *dir, ds_err *err)
{
	const void *img;
	size_t len;
	char *path;
	int fd, rc = 0;

	if (!ds_self_vdso(&img, &len))
		return 0; /* no vDSO on this system: nothing can be sampled in it */
	path = ds_xasprintf("%s/vdso.so", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, img, len) != (ssize_t)len) {
		rc = ds_err_set(err, DS_EENV, "cannot write '%s': %s", path, strerror(errno));
		unlink(path);
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}
