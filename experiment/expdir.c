/* The experiment directory: creating it without losing what was there,
 * marking it until it is complete, and finding its files. */
#include "experiment/experiment.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
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

/* The first name in dir that dsprof does not write there, or NULL
 * (malloc'd); *n counts the names, SIZE_MAX when dir cannot be read.  sub:
 * dir is the experiment's folder of that name ("sim", "heap"), or NULL. */
static char *stranger(const char *dir, const char *sub, size_t *n)
{
	static const char *const own[] = {"perf.data", "perf.data.tmp", "meta.json", "meta.json.tmp",
					  "kallsyms", "vdso.so", "sim", "heap", "archive", MARK};
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	*n = 0;
	if (!d) {
		*n = SIZE_MAX;
		return NULL;
	}
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
			char *path = ds_xasprintf("%s/%s", dir, e->d_name);
			size_t ns;
			found = stranger(path, e->d_name, &ns);
			if (ns == SIZE_MAX)
				found = ds_xasprintf("%s/, which cannot be read", e->d_name);
			free(path);
		}
	}
	closedir(d);
	return found;
}

/* Whether path is a JSON object whose "format" is fmt. */
static bool json_format_is(const char *path, const char *fmt)
{
	size_t len;
	char *text = ds_read_file_err(path, &len, NULL);
	ds_json *j = text ? ds_json_parse(text, len, path, NULL) : NULL;
	const char *f = ds_json_get_str(j, "format");
	bool yes = f && strcmp(f, fmt) == 0;

	ds_json_free(j);
	free(text);
	return yes;
}

static enum dir_kind classify(const char *dir, char **why)
{
	struct stat st;
	char *p, *odd;
	size_t n;
	enum dir_kind k;

	*why = NULL;
	if (lstat(dir, &st) != 0) {
		if (errno == ENOENT)
			return D_ABSENT;
		*why = ds_xasprintf("cannot be looked at (%s)", strerror(errno));
		return D_FOREIGN;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = ds_xstrdup(S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a directory");
		return D_FOREIGN;
	}
	if (ds_group_is(dir))
		return D_COMPLETE; /* a group dsprof made: moved aside as an experiment is */
	if ((odd = stranger(dir, NULL, &n)) || n == SIZE_MAX) {
		*why = odd ? ds_xasprintf("holds '%s', which dsprof does not write", odd)
			   : ds_xasprintf("cannot be read (%s)", strerror(errno));
		free(odd);
		return D_FOREIGN;
	}
	if (!n)
		return D_EMPTY;
	p = ds_xasprintf("%s/" MARK, dir);
	k = json_format_is(p, MARK_FORMAT) ? D_UNFINISHED : D_FOREIGN;
	free(p);
	if (k == D_FOREIGN) {
		p = ds_xasprintf("%s/meta.json", dir);
		k = json_format_is(p, "dsprof-experiment") ? D_COMPLETE : D_FOREIGN;
		free(p);
	}
	if (k == D_FOREIGN)
		*why = ds_xstrdup("has neither a dsprof meta.json nor the mark of a dsprof recording");
	return k;
}

/* DIR.old, also for DIR given as "DIR/" */
static char *old_name(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return ds_xasprintf("%.*s.old", (int)n, dir);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int remove_tree(const char *dir, ds_err *err)
{
	if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0)
		return 0;
	return ds_err_set(err, DS_EENV, "cannot remove '%s': %s", dir, strerror(errno));
}

int ds_expdir_remove(const char *dir, ds_err *err)
{
	return remove_tree(dir, err);
}

/* The mark: who is writing the experiment, on which machine and boot, so
 * that an unfinished one can say what happened and still find this boot's
 * kernel symbols. */
static int write_mark(const char *dir, ds_err *err)
{
	char *path = ds_xasprintf("%s/" MARK, dir), *boot = ds_read_line("/proc/sys/kernel/random/boot_id");
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
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len)
		rc = ds_err_set(err, DS_EENV, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
	free(boot);
	ds_buf_free(&b);
	return rc;
}

int ds_expdir_create(const char *dir, ds_expdir_prev *prev, ds_err *err)
{
	char *old = old_name(dir), *why = NULL, *why_old = NULL;
	enum dir_kind k = classify(dir, &why), ko = D_ABSENT;
	ds_expdir_mark_info mk;
	int rc = -1;

	memset(prev, 0, sizeof *prev);
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
		ko = classify(old, &why_old);
		if (ko == D_UNFINISHED && ds_expdir_mark(old, &mk) && mk.live) {
			ds_err_set(err, DS_EINPUT, "cannot move experiment '%s' to '%s': dsprof (pid %lld) is "
				   "writing '%s' now; choose another name with -o", dir, old, (long long)mk.pid, old);
			goto out;
		}
		if (ko == D_FOREIGN) {
			ds_err_set(err, DS_EINPUT, "cannot move experiment '%s' to '%s': '%s' %s, so dsprof "
				   "does not replace it; move it away, or choose another name with -o",
				   dir, old, old, why_old);
			goto out;
		}
	}
	if (k == D_UNFINISHED && ko == D_COMPLETE) {
		/* the last complete experiment stays where it is */
		if (remove_tree(dir, err))
			goto out;
		snprintf(prev->said, sizeof prev->said, "removed '%s', a recording that never ended; '%s' keeps "
			 "the last complete experiment", dir, old);
	} else if (k == D_COMPLETE || k == D_UNFINISHED) {
		if (ko != D_ABSENT && remove_tree(old, err))
			goto out;
		if (rename(dir, old) < 0) {
			ds_err_set(err, DS_EENV, "cannot rename '%s' to '%s': %s", dir, old, strerror(errno));
			goto out;
		}
		prev->moved = true;
		snprintf(prev->said, sizeof prev->said, "moved the previous %sexperiment '%s' to '%s'%s",
			 k == D_UNFINISHED ? "(unfinished) " : "", dir, old,
			 ko != D_ABSENT && ko != D_EMPTY ? ", replacing the older one there" : "");
	}
	prev->kept_dir = k == D_EMPTY;
	if (k != D_EMPTY && mkdir(dir, 0755) < 0) {
		ds_err_set(err, errno == ENOENT ? DS_EINPUT : DS_EENV, "cannot create experiment directory '%s': %s",
			   dir, strerror(errno));
		goto undo;
	}
	if (write_mark(dir, err)) {
		if (!prev->kept_dir)
			rmdir(dir);
		goto undo;
	}
	rc = 0;
	goto out;
undo:
	if (prev->moved && rename(old, dir) == 0)
		prev->moved = false;
out:
	free(old);
	free(why);
	free(why_old);
	return rc;
}

int ds_expdir_complete(const char *dir, ds_err *err)
{
	char *p = ds_xasprintf("%s/" MARK, dir);
	int rc = 0;

	if (unlink(p) < 0)
		rc = ds_err_set(err, DS_EENV, "cannot remove '%s': %s", p, strerror(errno));
	free(p);
	return rc;
}

bool ds_expdir_discard(const char *dir, const ds_expdir_prev *prev)
{
	char *old = old_name(dir);
	bool back = remove_tree(dir, NULL) == 0 && prev->moved && rename(old, dir) == 0;

	if (prev->kept_dir)
		mkdir(dir, 0755); /* the empty directory it was given */
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
	text = ds_read_file_err(p, &len, NULL);
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
	char *old = old_name(dir), *why;

	if (classify(old, &why) == D_COMPLETE)
		return old;
	free(why);
	free(old);
	return NULL;
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
