/*
 * Opening files for reading, whatever a path names.
 *
 * dsprof reads paths it did not choose: the files a perf.data's mappings
 * name, DSPROF_MOBJ, --machine.  open() of a FIFO for reading waits for a writer,
 * and a read of a terminal or a device waits for input: either hangs the
 * command forever.  So the type is checked before the open, the open does
 * not block (O_NONBLOCK; O_NOCTTY so that a terminal never becomes ours),
 * the descriptor is checked again (the path may have changed in between),
 * and only a regular file is read, with blocking reads as usual.
 * The files dsprof wrote itself (an experiment's, a group's index) are read
 * without following a link at their name: dsprof never makes one there, so
 * one that is there was planted, and may point at a FIFO or at a file the
 * user may not read.
 */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, for the message. */
static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

static int refuse(const char *path, mode_t m, ds_err *err)
{
	ds_err_set(err, DS_EINPUT, "cannot read '%s': it is %s, not a regular file", path, file_kind(m));
	errno = S_ISDIR(m) ? EISDIR : EINVAL;
	return -1;
}

/* name under dirfd (path in messages), read-only; a link at name is
 * followed only when follow. */
static int open_regular(int dirfd, const char *name, const char *path, bool follow, ds_err *err)
{
	struct stat st;
	int fd, e;

	if (fstatat(dirfd, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISLNK(st.st_mode)) {
			ds_err_set(err, DS_EINPUT, "cannot read '%s': it is a symbolic link, where dsprof wrote a file",
				   path);
			errno = ELOOP;
			return -1;
		}
		return refuse(path, st.st_mode, err);
	}
	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		e = errno;
		ds_err_set(err, e == EACCES || e == EPERM ? DS_EENV : DS_EINPUT, "cannot open '%s': %s", path,
			   strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(path, st.st_mode, err);
	}
	/* reads of a regular file never return EAGAIN, but say what we mean */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int ds_open_regular(const char *path, ds_err *err)
{
	return open_regular(AT_FDCWD, path, path, true, err);
}

int ds_open_own(const char *path, ds_err *err)
{
	return open_regular(AT_FDCWD, path, path, false, err);
}

int ds_open_regular_at(int dirfd, const char *name, ds_err *err)
{
	return open_regular(dirfd, name, name, false, err);
}

static FILE *fopen_fd(int fd, const char *path, ds_err *err)
{
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "r"))) {
		int e = errno;
		close(fd);
		ds_err_set(err, DS_EENV, "cannot open '%s': %s", path, strerror(e));
		errno = e;
	}
	return f;
}

FILE *ds_fopen_regular(const char *path, ds_err *err)
{
	return fopen_fd(ds_open_regular(path, err), path, err);
}

FILE *ds_fopen_own(const char *path, ds_err *err)
{
	return fopen_fd(ds_open_own(path, err), path, err);
}

char *ds_read_fd(int fd, const char *path, size_t *lenp, ds_err *err)
{
	ds_buf b = {0};
	char tmp[4096];
	ssize_t n;
	int e;

	if (fd < 0)
		return NULL;
	for (;;) {
		n = read(fd, tmp, sizeof tmp);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ds_buf_append(&b, tmp, (size_t)n);
	}
	e = errno;
	close(fd);
	if (n < 0) {
		ds_buf_free(&b);
		ds_err_set(err, DS_EINPUT, "cannot read '%s': %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if (lenp)
		*lenp = b.len;
	return ds_buf_steal(&b);
}

char *ds_read_file_err(const char *path, size_t *lenp, ds_err *err)
{
	return ds_read_fd(ds_open_regular(path, err), path, lenp, err);
}

char *ds_read_own(const char *path, size_t *lenp, ds_err *err)
{
	return ds_read_fd(ds_open_own(path, err), path, lenp, err);
}

char *ds_read_file(const char *path, size_t *lenp)
{
	return ds_read_file_err(path, lenp, NULL);
}

char *ds_read_line(const char *path)
{
	char *s = ds_read_file(path, NULL);
	if (s)
		s[strcspn(s, "\n")] = 0;
	return s;
}

char *ds_find_command(const char *cmd)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return ds_xstrdup(cmd);
	for (path = path ? path : "/usr/local/bin:/usr/bin:/bin"; *path;) {
		size_t n = strcspn(path, ":");
		char *full = ds_xasprintf("%.*s/%s", (int)(n ? n : 1), n ? path : ".", cmd);
		struct stat st;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return full;
		free(full);
		path += n + (path[n] == ':');
	}
	return NULL;
}

unsigned long long ds_as_limit_mib(void)
{
	struct rlimit as;

	if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY)
		return 0;
	return as.rlim_cur >> 20 ? (unsigned long long)(as.rlim_cur >> 20) : 1;
}

/* A file is mapped whole: its size is taken from the address space, so a
 * file larger than ulimit -v cannot be read however little of it is
 * resident at once (perf.data readers let the pages behind them go). */
const void *ds_map_file(int fd, const char *path, size_t size, ds_err *err)
{
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;
	unsigned long long limit;

	if (p != MAP_FAILED)
		return p;
	limit = ds_as_limit_mib();
	if (e == ENOMEM && limit)
		ds_err_set(err, DS_EENV,
			   "cannot map '%s' (%zu MiB): the address-space limit (ulimit -v) is %llu MiB; "
			   "raise it well above the file's size ('ulimit -v unlimited')",
			   path, size >> 20, limit);
	else
		ds_err_set(err, DS_EENV, "cannot map '%s' (%zu MiB): %s; free memory or address space, "
			   "or copy the file to a local file system", path, size >> 20, strerror(e));
	return NULL;
}
