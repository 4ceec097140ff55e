/*
 * Writing files as root without being turned against the machine
 * (base.h, "writing files").
 *
 * The dangers are the classic ones of a privileged program writing where
 * others may write: a symbolic link planted at a name it is about to
 * create (root's open follows it and truncates /etc/shadow), a directory
 * swapped for a link between a check and a use (a path checked is not the
 * path used), a FIFO at a name it reads or writes (the open never
 * returns), a tree removed by path while someone renames its parts.  So:
 *   - every directory is held open (O_DIRECTORY|O_NOFOLLOW from its parent's
 *     descriptor) and everything below it is reached through that
 *     descriptor with the *at() calls, so a path that changes afterwards
 *     changes nothing;
 *   - files are made with O_CREAT|O_EXCL|O_NOFOLLOW: a name already there,
 *     a link included, is an error and is never written through; a file
 *     that is replaced is written under name.tmp and renamed over it;
 *   - a directory is written in only when this process's user owns it and
 *     no other user may write in it: the owner of a directory can always
 *     replace what is in it;
 *   - an open that may meet a FIFO or a device is non-blocking and checked
 *     with fstat before anything is read or written.
 * The one directory that may be another user's is the parent a new
 * experiment is made in (/tmp, a user's home): a ds_wdir from
 * ds_wdir_parent, in which entries are made, renamed and removed, each
 * entry checked to be this user's through its own descriptor first.
 */
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ds_wdir {
	int fd;
	char *path;   /* as the user gave it, for messages */
	bool foreign; /* a parent that may be another user's: no files made in it */
	dev_t dev;
	ino_t ino;
};

/* Why a directory of these attributes is no place for this process to
 * write in (malloc'd), or NULL. */
static char *unsafe_dir(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return ds_xstrdup("it is not a directory");
	if (st->st_uid != geteuid())
		return ds_xasprintf("it belongs to user %u, and dsprof (running as user %u) writes only in "
				    "directories of its own user", (unsigned)st->st_uid, (unsigned)geteuid());
	if (st->st_mode & S_IWOTH)
		return ds_xstrdup("every user may write in it");
	if ((st->st_mode & S_IWGRP) && st->st_gid != getegid())
		return ds_xasprintf("the users of group %u may write in it", (unsigned)st->st_gid);
	return NULL;
}

static ds_wdir *wrap(int fd, char *path, bool foreign, const struct stat *st)
{
	ds_wdir *d = ds_xcalloc(1, sizeof *d);
	d->fd = fd;
	d->path = path;
	d->foreign = foreign;
	d->dev = st->st_dev;
	d->ino = st->st_ino;
	return d;
}

/* A name is one component: no '/', not "." or "..", not empty. */
static bool one_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int bad_name(const ds_wdir *d, const char *name, ds_err *err)
{
	errno = EINVAL;
	return ds_err_set(err, DS_EINPUT, "cannot use '%s' in '%s': not a file name", name, d->path);
}

/* The directory name under dirfd, opened without following a link and
 * checked; path names it in messages.  NULL with err (errno kept). */
static ds_wdir *open_checked(int dirfd, const char *name, const char *path, ds_err *err)
{
	struct stat st;
	char *why;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), e;

	if (fd < 0) {
		e = errno;
		if (e == ELOOP || e == ENOTDIR) {
			bool link = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
			ds_err_set(err, DS_EINPUT, "cannot write in '%s': it is %s; give a directory of your own",
				   path, link ? "a symbolic link" : "not a directory");
		} else {
			ds_err_set(err, e == ENOENT ? DS_EINPUT : DS_EENV, "cannot open directory '%s': %s", path,
				   strerror(e));
		}
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		e = errno;
		close(fd);
		ds_err_set(err, DS_EENV, "cannot look at directory '%s': %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if ((why = unsafe_dir(&st))) {
		ds_err_set(err, DS_EINPUT, "cannot write in '%s': %s; remove it or choose another name", path, why);
		free(why);
		close(fd);
		errno = EPERM;
		return NULL;
	}
	return wrap(fd, ds_xstrdup(path), false, &st);
}

ds_wdir *ds_wdir_open(const char *path, ds_err *err)
{
	char *base = NULL, *trim = ds_xstrdup(path), *last;
	size_t n = strlen(trim);
	ds_wdir *parent, *d;

	while (n > 1 && trim[n - 1] == '/')
		trim[--n] = 0;
	last = strrchr(trim, '/') ? strrchr(trim, '/') + 1 : trim;
	if (!strcmp(last, ".") || !strcmp(last, "..") || !strcmp(trim, "/")) {
		/* no last name that could be a link */
		d = open_checked(AT_FDCWD, trim, path, err);
		free(trim);
		return d;
	}
	free(trim);
	if (!(parent = ds_wdir_parent(path, &base, err)))
		return NULL;
	d = open_checked(parent->fd, base, path, err);
	free(base);
	ds_wdir_close(parent);
	return d;
}

ds_wdir *ds_wdir_parent(const char *path, char **base, ds_err *err)
{
	size_t n = strlen(path);
	char *dir;
	const char *slash;
	struct stat st;
	int fd, e;

	*base = NULL;
	while (n > 1 && path[n - 1] == '/')
		n--;
	dir = ds_xstrndup(path, n);
	slash = strrchr(dir, '/');
	if (!*dir || !strcmp(dir, "/") || !one_name(slash ? slash + 1 : dir)) {
		free(dir);
		errno = EINVAL;
		ds_err_set(err, DS_EINPUT, "cannot use '%s': give a name of a directory to make, not '.', '..' or '/'",
			   path);
		return NULL;
	}
	*base = ds_xstrdup(slash ? slash + 1 : dir);
	if (slash)
		dir[slash == dir ? 1 : slash - dir] = 0;
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0) {
		e = errno;
		ds_err_set(err, e == ENOENT || e == ENOTDIR ? DS_EINPUT : DS_EENV, "cannot use '%s': its folder '%s': %s",
			   path, dir, strerror(e));
		if (fd >= 0)
			close(fd);
		free(dir);
		free(*base);
		*base = NULL;
		errno = e;
		return NULL;
	}
	return wrap(fd, dir, true, &st);
}

ds_wdir *ds_wdir_sub(ds_wdir *d, const char *path, bool make, ds_err *err)
{
	char *rest = ds_xstrdup(path), *save = NULL, *name = strtok_r(rest, "/", &save);
	ds_wdir *at = NULL;

	if (!name)
		bad_name(d, path, err);
	for (; name; name = strtok_r(NULL, "/", &save)) {
		ds_wdir *up = at ? at : d, *next;
		char *full = ds_wdir_join(up, name);
		if (!one_name(name)) {
			bad_name(up, name, err);
			next = NULL;
		} else {
			if (make && mkdirat(up->fd, name, 0755) < 0 && errno != EEXIST) {
				int e = errno;
				ds_err_set(err, e == ENOENT ? DS_EINPUT : DS_EENV, "cannot make directory '%s': %s", full,
					   strerror(e));
				next = NULL;
			} else {
				next = open_checked(up->fd, name, full, err);
			}
		}
		free(full);
		if (at)
			ds_wdir_close(at);
		at = next;
		if (!at)
			break;
	}
	free(rest);
	return at;
}

ds_wdir *ds_wdir_make(ds_wdir *d, const char *name, ds_err *err)
{
	char *full = ds_wdir_join(d, name);
	ds_wdir *sub = NULL;

	if (!one_name(name))
		bad_name(d, name, err);
	else if (mkdirat(d->fd, name, 0755) < 0) {
		int e = errno;
		ds_err_set(err, e == ENOENT || e == EEXIST ? DS_EINPUT : DS_EENV, "cannot make directory '%s': %s",
			   full, strerror(e));
		errno = e;
	} else {
		sub = open_checked(d->fd, name, full, err);
	}
	free(full);
	return sub;
}

void ds_wdir_close(ds_wdir *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d->path);
	free(d);
}

int ds_wdir_fd(const ds_wdir *d)
{
	return d->fd;
}

const char *ds_wdir_path(const ds_wdir *d)
{
	return d->path;
}

char *ds_wdir_join(const ds_wdir *d, const char *name)
{
	if (!strcmp(d->path, "."))
		return ds_xstrdup(name);
	return ds_xasprintf("%s%s%s", d->path, d->path[strlen(d->path) - 1] == '/' ? "" : "/", name);
}

bool ds_wdir_in_place(const ds_wdir *d)
{
	struct stat st;
	return lstat(d->path, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino;
}

/* ---- files ---- */

/* d may have files made in it (it is no foreign parent), and name is one. */
static int writable(const ds_wdir *d, const char *name, ds_err *err)
{
	if (!one_name(name))
		return bad_name(d, name, err);
	if (d->foreign) {
		errno = EPERM;
		return ds_err_set(err, DS_EENV, "cannot write '%s' in '%s': dsprof makes no files there", name,
				  d->path);
	}
	return 0;
}

static int create_fail(const ds_wdir *d, const char *name, int e, ds_err *err)
{
	char *full = ds_wdir_join(d, name);
	struct stat st;

	if (e == EEXIST && fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		ds_err_set(err, DS_EINPUT, "cannot create '%s': a symbolic link is there, and dsprof never writes "
			   "through one; remove it", full);
	else if (e == EEXIST)
		ds_err_set(err, DS_EINPUT, "cannot create '%s': something else already has that name; remove it",
			   full);
	else
		ds_err_set(err, DS_EENV, "cannot create '%s': %s", full, strerror(e));
	free(full);
	errno = e;
	return -1;
}

int ds_wdir_create(ds_wdir *d, const char *name, int flags, ds_err *err)
{
	int fd;

	if (writable(d, name, err))
		return -1;
	fd = openat(d->fd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	return fd < 0 ? create_fail(d, name, errno, err) : fd;
}

int ds_wdir_open_file(ds_wdir *d, const char *name, int flags, ds_err *err)
{
	struct stat st;
	char *full, *why = NULL;
	int fd, e;

	if (writable(d, name, err))
		return -1;
	/* A socket or FIFO is refused before open: opening a socket fails with
	 * ENXIO, which would read as a broken machine rather than a planted file. */
	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		full = ds_wdir_join(d, name);
		ds_err_set(err, DS_EINPUT, "cannot write '%s': it is not a regular file; remove it", full);
		free(full);
		errno = EPERM;
		return -1;
	}
	fd = openat(d->fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT) {
			full = ds_wdir_join(d, name);
			ds_err_set(err, DS_EINPUT, "cannot open '%s': %s", full, strerror(e));
			free(full);
			errno = e;
			return -1;
		}
		return create_fail(d, name, e == ELOOP ? EEXIST : e, err);
	}
	if (fstat(fd, &st) != 0)
		why = ds_xstrdup(strerror(errno));
	else if (!S_ISREG(st.st_mode))
		why = ds_xstrdup("it is not a regular file");
	else if (st.st_uid != geteuid())
		why = ds_xasprintf("it belongs to user %u", (unsigned)st.st_uid);
	if (why) {
		full = ds_wdir_join(d, name);
		ds_err_set(err, DS_EINPUT, "cannot write '%s': %s; remove it", full, why);
		free(full);
		free(why);
		close(fd);
		errno = EPERM;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

static char *tmp_name(const char *name)
{
	return ds_xasprintf("%s.tmp", name);
}

int ds_wdir_create_tmp(ds_wdir *d, const char *name, int flags, ds_err *err)
{
	char *tmp = tmp_name(name);
	int fd = -1;

	if (!writable(d, name, err) && !ds_wdir_unlink(d, tmp, err))
		fd = ds_wdir_create(d, tmp, flags, err);
	free(tmp);
	return fd;
}

int ds_wdir_commit_tmp(ds_wdir *d, const char *name, ds_err *err)
{
	char *tmp = tmp_name(name);
	int rc = ds_wdir_rename(d, tmp, name, err);

	if (rc)
		unlinkat(d->fd, tmp, 0);
	free(tmp);
	return rc;
}

static int write_all(int fd, const void *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, (const char *)p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

/* The end of writing name.tmp (fd): synced, closed and renamed over
 * name, keeping the permission bits of the file it replaces; when failed
 * (the caller said why in err), removed. */
static int finish_tmp(ds_wdir *d, const char *name, int fd, bool failed, ds_err *err)
{
	struct stat old;
	char *tmp = tmp_name(name), *full = ds_wdir_join(d, name);

	if (!failed && fstatat(d->fd, name, &old, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(old.st_mode))
		fchmod(fd, old.st_mode & 0777);
	if (!failed && (fsync(fd) != 0 || close(fd) != 0)) {
		ds_err_set(err, DS_EENV, "cannot write '%s': %s", full, strerror(errno));
		failed = true;
		fd = -1;
	} else if (!failed) {
		fd = -1;
		failed = ds_wdir_rename(d, tmp, name, err) != 0;
	}
	if (fd >= 0)
		close(fd);
	if (failed)
		unlinkat(d->fd, tmp, 0);
	free(tmp);
	free(full);
	return failed ? -1 : 0;
}

int ds_wdir_write_file(ds_wdir *d, const char *name, const void *p, size_t n, ds_err *err)
{
	int fd = ds_wdir_create_tmp(d, name, O_WRONLY, err);
	bool failed;

	if (fd < 0)
		return -1;
	if ((failed = write_all(fd, p, n) != 0)) {
		char *full = ds_wdir_join(d, name);
		ds_err_set(err, DS_EENV, "cannot write '%s': %s", full, strerror(errno));
		free(full);
	}
	return finish_tmp(d, name, fd, failed, err);
}

int ds_wdir_copy_in(ds_wdir *d, const char *name, const char *from, ds_err *err)
{
	int in = ds_open_regular(from, err), out;
	bool failed = false;
	char buf[1 << 16];
	ssize_t got;

	if (in < 0)
		return -1;
	if ((out = ds_wdir_create_tmp(d, name, O_WRONLY, err)) < 0) {
		close(in);
		return -1;
	}
	while ((got = read(in, buf, sizeof buf)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || write_all(out, buf, (size_t)got)) {
			ds_err_set(err, DS_EENV, "cannot copy '%s' into '%s': %s", from, d->path, strerror(errno));
			failed = true;
			break;
		}
	}
	close(in);
	return finish_tmp(d, name, out, failed, err);
}

int ds_wdir_share(ds_wdir *from, const char *from_name, ds_wdir *d, const char *to_name, ds_err *err)
{
	char *src;
	int rc;

	if (writable(d, to_name, err) || !one_name(from_name))
		return -1;
	if (linkat(from->fd, from_name, d->fd, to_name, 0) == 0)
		return 0;
	if (errno == ENOENT)
		return 0; /* nothing to share */
	src = ds_wdir_join(from, from_name);
	rc = ds_wdir_copy_in(d, to_name, src, err);
	free(src);
	return rc;
}

int ds_wdir_symlink(ds_wdir *d, const char *target, const char *name, ds_err *err)
{
	struct stat st;
	char *full;

	if (writable(d, name, err))
		return -1;
	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		unlinkat(d->fd, name, 0);
	if (symlinkat(target, d->fd, name) == 0)
		return 0;
	full = ds_wdir_join(d, name);
	ds_err_set(err, DS_EENV, "cannot make the link '%s': %s", full, strerror(errno));
	free(full);
	return -1;
}

int ds_wdir_rename(ds_wdir *d, const char *from, const char *to, ds_err *err)
{
	char *a, *b;
	int e;

	if (!one_name(from))
		return bad_name(d, from, err);
	if (!one_name(to))
		return bad_name(d, to, err);
	if (renameat(d->fd, from, d->fd, to) == 0)
		return 0;
	e = errno;
	a = ds_wdir_join(d, from);
	b = ds_wdir_join(d, to);
	ds_err_set(err, DS_EENV, "cannot rename '%s' to '%s': %s", a, b, strerror(e));
	free(a);
	free(b);
	errno = e;
	return -1;
}

int ds_wdir_unlink(ds_wdir *d, const char *name, ds_err *err)
{
	char *full;
	int e;

	if (!one_name(name))
		return bad_name(d, name, err);
	if (unlinkat(d->fd, name, 0) == 0 || errno == ENOENT)
		return 0;
	e = errno;
	full = ds_wdir_join(d, name);
	ds_err_set(err, DS_EENV, "cannot remove '%s': %s", full, strerror(e));
	free(full);
	errno = e;
	return -1;
}

/* Everything in the directory dirfd, then nothing of it is left but the
 * directory itself.  depth guards the descriptors a deep tree takes. */
static int empty_tree(int dirfd, int depth)
{
	int fd = dup(dirfd), rc = 0;
	DIR *dir;
	struct dirent *e;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(dir))) {
		int sub;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd, e->d_name, 0) == 0)
			continue;
		if ((errno != EISDIR && errno != EPERM) || depth > 64) {
			rc = -1;
			continue;
		}
		sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (sub < 0 || empty_tree(sub, depth + 1) || unlinkat(dirfd, e->d_name, AT_REMOVEDIR))
			rc = -1;
		if (sub >= 0)
			close(sub);
	}
	closedir(dir);
	return rc;
}

int ds_wdir_remove(ds_wdir *d, const char *name, ds_err *err)
{
	struct stat st;
	char *full;
	int fd, rc = 0, e = 0;

	if (!one_name(name))
		return bad_name(d, name, err);
	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return ds_wdir_unlink(d, name, err);
	fd = openat(d->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
		e = fd < 0 ? errno : EPERM;
		rc = -1;
	} else if (empty_tree(fd, 0) || unlinkat(d->fd, name, AT_REMOVEDIR)) {
		e = errno;
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	if (rc) {
		full = ds_wdir_join(d, name);
		ds_err_set(err, DS_EENV, "cannot remove '%s': %s", full,
			   e == EPERM ? "it belongs to another user" : strerror(e));
		free(full);
		errno = e;
	}
	return rc;
}

ds_wdir *ds_wdir_temp(const char *what, ds_err *err)
{
	const char *tmp = getenv("TMPDIR");
	char *path = ds_xasprintf("%s/dsprof-%s.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp", what);
	struct stat st;
	int fd;

	/* mkdtemp makes the directory anew (mode 0700), or fails */
	if (!mkdtemp(path) || (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) != 0) {
		ds_err_set(err, DS_EENV, "cannot make a directory '%s': %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	return wrap(fd, path, false, &st);
}

/* ---- output the user named ---- */

int ds_create_output(const char *path, ds_err *err)
{
	struct stat st;
	const char *why = NULL;
	int fd, e;

	/* a FIFO without a reader fails to open (ENXIO): say what it is */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		errno = EPERM;
		return ds_err_set(err, DS_EINPUT, "cannot write '%s': it is not a regular file", path);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP)
			ds_err_set(err, DS_EINPUT, "cannot write '%s': it is a symbolic link, which dsprof does not "
				   "write through; give the file it points to", path);
		else
			ds_err_set(err, e == ENOENT || e == EISDIR ? DS_EINPUT : DS_EENV, "cannot write '%s': %s",
				   path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "it is not a regular file";
	else if (st.st_uid != geteuid())
		why = "it belongs to another user";
	if (why || ftruncate(fd, 0) != 0) {
		e = why ? EPERM : errno;
		ds_err_set(err, why ? DS_EINPUT : DS_EENV, "cannot write '%s': %s", path, why ? why : strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

FILE *ds_fcreate_output(const char *path, ds_err *err)
{
	int fd = ds_create_output(path, err);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w"))) {
		ds_err_set(err, DS_EENV, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
	}
	return f;
}
