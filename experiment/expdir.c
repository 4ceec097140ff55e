/* The experiment directory: creating it without losing what was there,
 * marking it until it is complete, and finding its files. */
#include "experiment/experiment.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static bool exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* An experiment's file that is a symbolic link: dsprof wrote a file
 * there, so the link was planted; it is not followed. */
static bool planted(const char *p, ds_err *err)
{
	struct stat st;

	if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
		return false;
	ds_err_set(err, DS_EINPUT, "cannot read '%s': it is a symbolic link, where dsprof wrote a file", p);
	return true;
}

/* ---- what a directory is ----
 * An experiment dsprof made holds only the names dsprof writes there, and
 * says it is dsprof's: a complete one by its meta.json (format
 * "dsprof-experiment"), one whose recording has not ended (or never will:
 * the recorder was killed, the disk was full) by its mark, written before
 * anything else and removed once meta.json is in place. */

#define MARK "recording.json"
#define MARK_FORMAT "dsprof-recording"

enum dir_kind {
	D_ABSENT,
	D_EMPTY,
	D_COMPLETE,
	D_UNFINISHED,
	D_FOREIGN, /* anything else: never moved, never removed */
};

/* Whether a name in sim/ is one the simulator writes: PID.stream, valgrind.PID.log. */
static bool sim_name(const char *n)
{
	size_t d = strspn(n, "0123456789");
	if (d && strcmp(n + d, ".stream") == 0)
		return true;
	if (strncmp(n, "valgrind.", 9) != 0)
		return false;
	d = strspn(n + 9, "0123456789");
	return d && strcmp(n + 9 + d, ".log") == 0;
}

/* Whether a name in heap/ is one the heap tracker writes: PID-START.heap. */
static bool heap_name(const char *n)
{
	size_t d = strspn(n, "0123456789"), e;
	if (!d || n[d] != '-')
		return false;
	e = strspn(n + d + 1, "0123456789");
	return e && strcmp(n + d + 1 + e, ".heap") == 0;
}

/* The first name in the directory dirfd that dsprof does not write there,
 * or NULL (malloc'd); *n counts the names, SIZE_MAX when it cannot be
 * read.  sub: it is the experiment's folder of that name ("sim", "heap"),
 * or NULL. */
static char *stranger(int dirfd, const char *sub, size_t *n)
{
	static const char *const own[] = {"perf.data", "perf.data.tmp", "meta.json", "meta.json.tmp",
					  "kallsyms", "kallsyms.tmp", "vdso.so", "vdso.so.tmp", "sim", "heap",
					  "archive", MARK};
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char *found = NULL;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		*n = SIZE_MAX;
		return NULL;
	}
	rewinddir(d);
	while (!found && (e = readdir(d))) {
		bool known = sub && (!strcmp(sub, "sim") ? sim_name(e->d_name) : heap_name(e->d_name));
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		(*n)++;
		for (size_t i = 0; !sub && i < sizeof own / sizeof own[0]; i++)
			known |= strcmp(e->d_name, own[i]) == 0;
		if (!known)
			found = ds_xasprintf("%s%s%s", sub ? sub : "", sub ? "/" : "", e->d_name);
		else if (!sub && (!strcmp(e->d_name, "sim") || !strcmp(e->d_name, "heap"))) {
			int subfd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
			size_t ns = SIZE_MAX;
			if (subfd >= 0) {
				found = stranger(subfd, e->d_name, &ns);
				close(subfd);
			}
			if (ns == SIZE_MAX)
				found = ds_xasprintf("%s/, which is no folder dsprof can read", e->d_name);
		}
	}
	closedir(d);
	return found;
}

/* Whether path is a JSON object whose "format" is fmt. */
static bool json_format_is(const char *path, const char *fmt)
{
	size_t len;
	char *text = ds_read_own(path, &len, NULL);
	ds_json *j = text ? ds_json_parse(text, len, path, NULL) : NULL;
	const char *f = ds_json_get_str(j, "format");
	bool yes = f && strcmp(f, fmt) == 0;

	ds_json_free(j);
	free(text);
	return yes;
}

/* What the entry name of parent is.  D_FOREIGN says why in *why; a
 * directory dsprof may not write in (another user's) is D_FOREIGN with
 * the line that says so in *refusal. */
static enum dir_kind classify(ds_wdir *parent, const char *name, char **why, char **refusal)
{
	struct stat st;
	char *path = ds_wdir_join(parent, name), *p, *odd;
	ds_wdir *d;
	ds_err e = {0};
	size_t n;
	enum dir_kind k;

	*why = *refusal = NULL;
	if (fstatat(ds_wdir_fd(parent), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		k = errno == ENOENT ? D_ABSENT : D_FOREIGN;
		if (k == D_FOREIGN)
			*why = ds_xasprintf("cannot be looked at (%s)", strerror(errno));
		free(path);
		return k;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = ds_xstrdup(S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a directory");
		free(path);
		return D_FOREIGN;
	}
	if (!(d = ds_wdir_sub(parent, name, false, &e))) {
		*refusal = ds_xstrdup(e.msg);
		free(path);
		return D_FOREIGN;
	}
	if (ds_group_is(path)) {
		k = D_COMPLETE; /* a group dsprof made: moved aside as an experiment is */
	} else if ((odd = stranger(ds_wdir_fd(d), NULL, &n)) || n == SIZE_MAX) {
		*why = odd ? ds_xasprintf("holds '%s', which dsprof does not write", odd)
			   : ds_xasprintf("cannot be read (%s)", strerror(errno));
		free(odd);
		k = D_FOREIGN;
	} else if (!n) {
		k = D_EMPTY;
	} else {
		p = ds_xasprintf("%s/" MARK, path);
		k = json_format_is(p, MARK_FORMAT) ? D_UNFINISHED : D_FOREIGN;
		free(p);
		if (k == D_FOREIGN) {
			p = ds_xasprintf("%s/meta.json", path);
			k = json_format_is(p, "dsprof-experiment") ? D_COMPLETE : D_FOREIGN;
			free(p);
		}
		if (k == D_FOREIGN)
			*why = ds_xstrdup("has neither a dsprof meta.json nor the mark of a dsprof recording");
	}
	ds_wdir_close(d);
	free(path);
	return k;
}

/* NAME.old, for the entry NAME */
static char *old_name(const char *name)
{
	return ds_xasprintf("%s.old", name);
}

int ds_expdir_remove(const char *dir, ds_err *err)
{
	char *name;
	ds_wdir *parent = ds_wdir_parent(dir, &name, err);
	int rc = parent ? ds_wdir_remove(parent, name, err) : -1;

	ds_wdir_close(parent);
	free(name);
	return rc;
}

/* The mark: who is writing the experiment, on which machine and boot, so
 * that an unfinished one can say what happened and still find this boot's
 * kernel symbols. */
static int write_mark(ds_wdir *d, ds_err *err)
{
	char *boot = ds_read_line("/proc/sys/kernel/random/boot_id");
	struct utsname u;
	ds_buf b = {0};
	ds_jw w;
	int fd, rc = 0;

	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	ds_jw_init(&w, &b, true);
	ds_jw_obj_begin(&w);
	ds_jw_key(&w, "format"); ds_jw_str(&w, MARK_FORMAT);
	ds_jw_key(&w, "pid"); ds_jw_i64(&w, getpid());
	ds_jw_key(&w, "host"); ds_jw_str(&w, u.nodename);
	ds_jw_key(&w, "kernel"); ds_jw_str(&w, u.release);
	ds_jw_key(&w, "boot_id"); ds_jw_str(&w, boot);
	ds_jw_key(&w, "started"); ds_jw_double(&w, (double)time(NULL));
	ds_jw_obj_end(&w);
	ds_buf_putc(&b, '\n');
	if ((fd = ds_wdir_create(d, MARK, O_WRONLY, err)) < 0)
		rc = -1;
	else if (write(fd, b.p, b.len) != (ssize_t)b.len) {
		char *path = ds_wdir_join(d, MARK);
		rc = ds_err_set(err, DS_EENV, "cannot write '%s': %s", path, strerror(errno));
		free(path);
	}
	if (fd >= 0)
		close(fd);
	free(boot);
	ds_buf_free(&b);
	return rc;
}

ds_wdir *ds_expdir_create(const char *dir, ds_expdir_prev *prev, ds_err *err)
{
	char *name = NULL, *old = NULL, *why = NULL, *why_old = NULL, *no = NULL, *no_old = NULL, *oldpath = NULL;
	ds_wdir *parent, *d = NULL;
	enum dir_kind k, ko = D_ABSENT;
	ds_expdir_mark_info mk;

	memset(prev, 0, sizeof *prev);
	if (!(parent = ds_wdir_parent(dir, &name, err)))
		return NULL;
	old = old_name(name);
	oldpath = ds_wdir_join(parent, old);
	k = classify(parent, name, &why, &no);
	if (no) {
		ds_err_set(err, DS_EINPUT, "cannot make experiment '%s': %s", dir, no);
		goto out;
	}
	if (k == D_UNFINISHED && ds_expdir_mark(dir, &mk) && mk.live) {
		ds_err_set(err, DS_EINPUT, "cannot make experiment '%s': dsprof (pid %lld) is writing it now; "
			   "choose another name with -o", dir, (long long)mk.pid);
		goto out;
	}
	if (k == D_FOREIGN) {
		ds_err_set(err, DS_EINPUT, "cannot make experiment '%s': it exists and %s, so it is not an "
			   "experiment dsprof made; choose another name with -o", dir, why);
		goto out;
	}
	if (k == D_COMPLETE || k == D_UNFINISHED) {
		ko = classify(parent, old, &why_old, &no_old);
		if (no_old) {
			ds_err_set(err, DS_EINPUT, "cannot move experiment '%s' to '%s': %s", dir, oldpath, no_old);
			goto out;
		}
		if (ko == D_UNFINISHED && ds_expdir_mark(oldpath, &mk) && mk.live) {
			ds_err_set(err, DS_EINPUT, "cannot move experiment '%s' to '%s': dsprof (pid %lld) is "
				   "writing '%s' now; choose another name with -o", dir, oldpath, (long long)mk.pid,
				   oldpath);
			goto out;
		}
		if (ko == D_FOREIGN) {
			ds_err_set(err, DS_EINPUT, "cannot move experiment '%s' to '%s': '%s' %s, so dsprof "
				   "does not replace it; move it away, or choose another name with -o",
				   dir, oldpath, oldpath, why_old);
			goto out;
		}
	}
	if (k == D_UNFINISHED && ko == D_COMPLETE) {
		/* the last complete experiment stays where it is */
		if (ds_wdir_remove(parent, name, err))
			goto out;
		snprintf(prev->said, sizeof prev->said, "removed '%s', a recording that never ended; '%s' keeps "
			 "the last complete experiment", dir, oldpath);
	} else if (k == D_COMPLETE || k == D_UNFINISHED) {
		if (ko != D_ABSENT && ds_wdir_remove(parent, old, err))
			goto out;
		if (ds_wdir_rename(parent, name, old, err))
			goto out;
		prev->moved = true;
		snprintf(prev->said, sizeof prev->said, "moved the previous %sexperiment '%s' to '%s'%s",
			 k == D_UNFINISHED ? "(unfinished) " : "", dir, oldpath,
			 ko != D_ABSENT && ko != D_EMPTY ? ", replacing the older one there" : "");
	}
	prev->kept_dir = k == D_EMPTY;
	d = k == D_EMPTY ? ds_wdir_sub(parent, name, false, err) : ds_wdir_make(parent, name, err);
	if (d && write_mark(d, err)) {
		ds_wdir_close(d);
		d = NULL;
		if (!prev->kept_dir)
			ds_wdir_remove(parent, name, NULL);
	}
	if (!d && prev->moved && ds_wdir_rename(parent, old, name, NULL) == 0)
		prev->moved = false;
out:
	ds_wdir_close(parent);
	free(name);
	free(old);
	free(oldpath);
	free(why);
	free(why_old);
	free(no);
	free(no_old);
	return d;
}

int ds_expdir_complete(ds_wdir *d, ds_err *err)
{
	return ds_wdir_unlink(d, MARK, err);
}

bool ds_expdir_discard(const char *dir, const ds_expdir_prev *prev)
{
	char *name, *old;
	ds_wdir *parent = ds_wdir_parent(dir, &name, NULL);
	bool back;

	if (!parent)
		return false;
	old = old_name(name);
	back = ds_wdir_remove(parent, name, NULL) == 0 && prev->moved && ds_wdir_rename(parent, old, name, NULL) == 0;
	if (prev->kept_dir)
		ds_wdir_close(ds_wdir_sub(parent, name, true, NULL)); /* the empty directory it was given */
	ds_wdir_close(parent);
	free(name);
	free(old);
	return back;
}

bool ds_expdir_mark(const char *dir, ds_expdir_mark_info *m)
{
	char *p = ds_xasprintf("%s/" MARK, dir), *text, *line, comm[64];
	size_t len;
	ds_json *j;
	const char *f;
	int64_t pid = -1;

	memset(m, 0, sizeof *m);
	m->pid = -1;
	text = ds_read_own(p, &len, NULL);
	free(p);
	j = text ? ds_json_parse(text, len, MARK, NULL) : NULL;
	free(text);
	f = ds_json_get_str(j, "format");
	if (!f || strcmp(f, MARK_FORMAT) != 0) {
		ds_json_free(j);
		return false;
	}
	if (ds_json_get_i64(j, "pid", &pid) && pid > 0 && pid <= INT32_MAX)
		m->pid = pid;
	snprintf(m->host, sizeof m->host, "%s", ds_json_get_str(j, "host") ? ds_json_get_str(j, "host") : "");
	snprintf(m->kernel, sizeof m->kernel, "%s", ds_json_get_str(j, "kernel") ? ds_json_get_str(j, "kernel") : "");
	snprintf(m->boot_id, sizeof m->boot_id, "%s",
		 ds_json_get_str(j, "boot_id") ? ds_json_get_str(j, "boot_id") : "");
	ds_json_free(j);
	line = ds_read_line("/proc/sys/kernel/random/boot_id");
	m->this_boot = line && m->boot_id[0] && strcmp(line, m->boot_id) == 0;
	free(line);
	if (m->this_boot && m->pid > 0 && m->pid != getpid()) {
		/* the pid of a dsprof now: the writer, unless reused by another dsprof */
		snprintf(comm, sizeof comm, "/proc/%lld/comm", (long long)m->pid);
		line = ds_read_line(comm);
		m->live = line && strcmp(line, "dsprof") == 0;
		free(line);
	}
	return true;
}

char *ds_expdir_previous(const char *dir)
{
	char *name, *old, *why, *no, *path = NULL;
	ds_wdir *parent = ds_wdir_parent(dir, &name, NULL);

	if (!parent)
		return NULL;
	old = old_name(name);
	if (classify(parent, old, &why, &no) == D_COMPLETE)
		path = ds_wdir_join(parent, old);
	ds_wdir_close(parent);
	free(why);
	free(no);
	free(old);
	free(name);
	return path;
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
		if (planted(*perfdata, err)) {
			free(*perfdata);
			free(mj);
			*perfdata = NULL;
			return -1;
		}
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

int ds_expdir_save_vdso(ds_wdir *d, ds_err *err)
{
	const void *img;
	size_t len;

	if (!ds_self_vdso(&img, &len))
		return 0; /* no vDSO on this system: nothing can be sampled in it */
	return ds_wdir_write_file(d, "vdso.so", img, len, err);
}
