/*
 * Heap tracking for a recording (record --heap): the interposer to preload
 * (sampler/preload/heap.c, built as libdsprof-heap.so), the environment
 * that preloads it, and the broker that makes its files: every process
 * image of the command asks dsprof for its file over an abstract socket
 * (sampler/preload/heapask.h), and dsprof makes it in the experiment's
 * heap folder and sends its descriptor.  A program that cannot load the
 * tracker (statically linked) is said so before it starts.
 *
 * The broker makes files for whoever connects with the socket's name
 * (which has 128 random bits, and is in the command's environment only),
 * each named by the process the kernel says connected, never by what it
 * asks: PID-START.heap in the heap folder, made new (O_EXCL, no link
 * followed), or one it made before, checked to be that file still.  It
 * answers at once, never waits for a process, and keeps at most a few
 * connections that have not asked yet (for a while: one that never asks
 * is dropped), so that the recording goes on whatever they do.
 */
#include "sampler/backend.h"
#include "experiment/heapfile.h"
#include "sampler/preload/heapask.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define PENDING (DS_HEAP_BROKER_FDS - 1) /* connections that have not asked yet, at most */
#define PENDING_SECONDS 10    /* ... each for so long at most */

/* A file the broker made: the only ones it opens again. */
typedef struct served {
	uint32_t pid;
	uint64_t start, dev, ino;
} served;

struct ds_heap_broker {
	ds_wdir *dir;             /* the heap folder (the caller's) */
	int sock;                 /* listening; -1 once stopped */
	char name[64];            /* the abstract socket's (without its NUL) */
	bool tsc;                 /* the kernel keeps time by the TSC */
	struct {
		int fd;
		double since;
	} pending[PENDING];
	size_t npending;
	DS_VEC(served) files;
	size_t failed;            /* asks answered without a file */
	char *first_failure;
};

/* The kernel's clocksource is the TSC (on x86-64, which has one): the
 * tracker stamps events by it (sampler/preload/heap.c). */
static bool tsc_clock(void)
{
#if defined(__x86_64__)
	char *cs = ds_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
	bool yes = cs && strcmp(cs, "tsc") == 0;
	free(cs);
	return yes;
#else
	return false;
#endif
}

static ds_heap_broker *broker_new(ds_wdir *dir, ds_err *err)
{
	ds_heap_broker *b = ds_xcalloc(1, sizeof *b);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	unsigned char r[16];
	size_t len;

	b->dir = dir;
	b->tsc = tsc_clock();
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		ds_err_set(err, DS_EENV, "--heap: cannot name the heap tracker's socket: getrandom: %s", strerror(errno));
		goto fail;
	}
	len = (size_t)snprintf(b->name, sizeof b->name, "dsprof-heap-");
	for (size_t i = 0; i < sizeof r; i++)
		len += (size_t)snprintf(b->name + len, sizeof b->name - len, "%02x", r[i]);
	memcpy(sa.sun_path + 1, b->name, len);
	b->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (b->sock < 0 ||
	    bind(b->sock, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) ||
	    listen(b->sock, 128)) {
		ds_err_set(err, DS_EENV, "--heap: cannot listen for the heap tracker: %s", strerror(errno));
		goto fail;
	}
	return b;
fail:
	if (b->sock >= 0)
		close(b->sock);
	free(b);
	return NULL;
}

static void failure(ds_heap_broker *b, uint32_t pid, const char *what, int e)
{
	if (!b->failed++)
		b->first_failure = ds_xasprintf("process %" PRIu32 ": %s: %s", pid, what, strerror(e));
}

/* A new file for image h of process pid; its descriptor, or -1 with a->err. */
static int make_file(ds_heap_broker *b, uint32_t pid, const struct ds_heap_header *asked, struct ds_heap_answer *a)
{
	struct ds_heap_header h = *asked;
	char name[64], page[DS_HEAP_HEADER];
	struct stat st;
	int f;

	snprintf(name, sizeof name, "%" PRIu32 "-%llu.heap", pid, (unsigned long long)h.start_ns);
	f = ds_wdir_create(b->dir, name, O_RDWR, NULL);
	if (f < 0) {
		a->err = errno;
		failure(b, pid, "cannot create its heap file", errno);
		return -1;
	}
	memcpy(h.magic, DS_HEAP_MAGIC, 8);
	h.version = DS_HEAP_VERSION;
	h.header_size = DS_HEAP_HEADER;
	h.chunk_size = DS_HEAP_CHUNK;
	h.pid = pid;
	h.flags &= DS_HEAP_F_FORKED;
	h.exe[sizeof h.exe - 1] = 0;
	memset(page, 0, sizeof page);
	memcpy(page, &h, sizeof h);
	if (pwrite(f, page, sizeof page, 0) != (ssize_t)sizeof page || fstat(f, &st)) {
		a->err = errno ? errno : ENOSPC;
		failure(b, pid, "cannot write its heap file", a->err);
		close(f);
		return -1;
	}
	ds_vec_push(&b->files, ((served){pid, h.start_ns, st.st_dev, st.st_ino}));
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	return f;
}

/* The file of process pid's image begun at start again (the program took
 * the tracker's descriptor): one the broker made, still that file. */
static int file_again(ds_heap_broker *b, uint32_t pid, uint64_t start, struct ds_heap_answer *a)
{
	const served *sv = NULL;
	char name[64];
	struct stat st;
	int f;

	for (size_t i = 0; i < b->files.n && !sv; i++)
		if (b->files.v[i].pid == pid && b->files.v[i].start == start)
			sv = &b->files.v[i];
	snprintf(name, sizeof name, "%" PRIu32 "-%llu.heap", pid, (unsigned long long)start);
	f = sv ? ds_wdir_open_file(b->dir, name, O_RDWR, NULL) : -1;
	if (f < 0 || fstat(f, &st) || !S_ISREG(st.st_mode) || st.st_dev != sv->dev || st.st_ino != sv->ino) {
		a->err = sv ? EBADF : ENOENT;
		failure(b, pid, "cannot open its heap file again", a->err);
		if (f >= 0)
			close(f);
		return -1;
	}
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	return f;
}

/* Answer connection c's ask, if it has come: true when c is done with
 * (answered, or not worth keeping). */
static bool answer(ds_heap_broker *b, int c)
{
	struct ds_heap_ask q;
	struct ds_heap_answer a = {DS_HEAP_ASK_MAGIC, 0, 0, b->tsc ? DS_HEAP_ANSWER_TSC : 0, 0, 0};
	struct ucred cr;
	socklen_t crlen = sizeof cr;
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {&a, sizeof a};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n = recv(c, &q, sizeof q, MSG_DONTWAIT);
	int f = -1;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n != (ssize_t)sizeof q || q.magic != DS_HEAP_ASK_MAGIC ||
	    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) || cr.pid <= 0)
		return true; /* not the tracker, or a process dsprof cannot name */
	a.pid = (uint32_t)cr.pid;
	if (q.op == DS_HEAP_ASK_NEW)
		f = make_file(b, a.pid, &q.header, &a);
	else if (q.op == DS_HEAP_ASK_AGAIN)
		f = file_again(b, a.pid, q.header.start_ns, &a);
	else
		a.err = EPROTO;
	if (f >= 0) {
		struct cmsghdr *h;
		memset(&ctl, 0, sizeof ctl);
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof ctl.b;
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof f);
		memcpy(CMSG_DATA(h), &f, sizeof f);
	}
	/* the reply fits the peer's empty queue: this does not wait */
	sendmsg(c, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (f >= 0)
		close(f);
	return true;
}

size_t ds_heap_broker_fds(const ds_heap_broker *b, struct pollfd *p)
{
	size_t n = 0;

	if (!b || b->sock < 0)
		return 0;
	if (b->npending < PENDING)
		p[n++] = (struct pollfd){b->sock, POLLIN, 0};
	for (size_t i = 0; i < b->npending; i++)
		p[n++] = (struct pollfd){b->pending[i].fd, POLLIN, 0};
	return n;
}

void ds_heap_broker_serve(ds_heap_broker *b)
{
	double now = ds_now();
	size_t kept = 0;
	int c;

	if (!b || b->sock < 0)
		return;
	for (size_t i = 0; i < b->npending; i++) {
		if (answer(b, b->pending[i].fd) || now - b->pending[i].since > PENDING_SECONDS)
			close(b->pending[i].fd);
		else
			b->pending[kept++] = b->pending[i];
	}
	b->npending = kept;
	while (b->npending < PENDING && (c = accept4(b->sock, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		if (answer(b, c))
			close(c);
		else
			b->pending[b->npending++] = (typeof(b->pending[0])){c, now};
	}
}

void ds_heap_broker_stop(ds_heap_broker *b)
{
	if (!b || b->sock < 0)
		return;
	/* what is still queued is answered: those processes wait for it */
	ds_heap_broker_serve(b);
	for (size_t i = 0; i < b->npending; i++)
		close(b->pending[i].fd);
	b->npending = 0;
	close(b->sock);
	b->sock = -1;
}

const char *ds_heap_broker_failed(const ds_heap_broker *b, size_t *n)
{
	*n = b ? b->failed : 0;
	return b ? b->first_failure : NULL;
}

void ds_heap_broker_free(ds_heap_broker *b)
{
	if (!b)
		return;
	ds_heap_broker_stop(b);
	ds_vec_free(&b->files);
	free(b->first_failure);
	free(b);
}

/* $DSPROF_HEAP_LIB, else the build tree's lib/ next to the dsprof
 * binary, else the installed lib/dsprof/. */
static char *heap_lib(ds_err *err)
{
	const char *env = getenv("DSPROF_HEAP_LIB");
	char exe[4096], *slash, *cand[2] = {NULL, NULL}, *found = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	exe[n > 0 ? n : 0] = 0;
	if ((slash = strrchr(exe, '/')))
		*slash = 0;
	if (env && *env) {
		cand[0] = ds_xstrdup(env);
	} else {
		cand[0] = ds_xasprintf("%s/lib/%s", exe, DS_HEAP_LIB);
		cand[1] = ds_xasprintf("%s/../lib/dsprof/%s", exe, DS_HEAP_LIB);
	}
	for (int i = 0; i < 2 && cand[i] && !found; i++)
		if (access(cand[i], R_OK) == 0)
			found = realpath(cand[i], NULL);
	if (!found)
		ds_err_set(err, DS_EENV, "--heap needs the heap tracker, which is not built: no %s; run 'make'",
			   cand[0]);
	free(cand[0]);
	free(cand[1]);
	return found;
}

/* Whether the ELF file at path is linked statically: no program
 * interpreter to preload a library.  A file that is no ELF (a script)
 * runs an interpreter that is: false. */
static bool static_elf(const char *path)
{
	Elf64_Ehdr eh;
	bool stat_elf = false;
	int fd = ds_open_regular(path, NULL);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 4096) {
		stat_elf = true;
		for (unsigned i = 0; i < eh.e_phnum && stat_elf; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
				stat_elf = false;
			else if (ph.p_type == PT_INTERP)
				stat_elf = false;
		}
	}
	close(fd);
	return stat_elf;
}

int ds_heap_env(ds_wdir *outdir, char *const *argv, bool sim, ds_wdir **heap, char ***env, ds_heap_broker **broker,
		char **note, ds_err *err)
{
	char *lib = NULL, *cmd = argv ? ds_find_command(argv[0]) : NULL;
	const char *preload = getenv("LD_PRELOAD");
	ds_heap_broker *b = NULL;
	char **e;

	*env = NULL;
	*broker = NULL;
	*note = NULL;
	*heap = NULL;
	if (cmd && static_elf(cmd)) {
		*note = ds_xasprintf("'%s' is statically linked: %s; recording without heap data", cmd,
				     sim ? "the simulator cannot replace its allocator"
					 : "the heap tracker cannot be preloaded into it");
		free(cmd);
		return 0;
	}
	free(cmd);
	if (!sim && !(lib = heap_lib(err)))
		return -1;
	if (!(*heap = ds_wdir_sub(outdir, "heap", true, err))) {
		free(lib);
		return -1;
	}
	if (!sim && !(b = broker_new(*heap, err))) {
		ds_wdir_close(*heap);
		*heap = NULL;
		free(lib);
		return -1;
	}
	e = ds_xcalloc(3, sizeof *e);
	if (sim) {
		/* the folder through this process's descriptor of it: absolute
		 * (the command may change its directory), and the folder dsprof
		 * made whatever happens to the experiment's path meanwhile */
		e[0] = ds_xasprintf("DSPROF_SIM_HEAP=/proc/%d/fd/%d", (int)getpid(), ds_wdir_fd(*heap));
	} else {
		/* the tracker first: its malloc is the one the program's calls find */
		e[0] = preload && *preload ? ds_xasprintf("LD_PRELOAD=%s:%s", lib, preload)
					   : ds_xasprintf("LD_PRELOAD=%s", lib);
		e[1] = ds_xasprintf("DSPROF_HEAP=%s", b->name);
	}
	*env = e;
	*broker = b;
	free(lib);
	return 0;
}

void ds_heap_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
