/*
 * The descriptor guard (fdguard.h): the slots it keeps, and the program's
 * calls it stands in front of.
 *
 * The slots are few (a tracker's file, the socket it asks dsprof record
 * through, a library's pipe) and listed once for good; a call of the
 * program looks at each, a load apiece, and only a number that is one of
 * them costs a system call (fstat, to tell whether it is still the
 * tracker's or the program's already).
 */
#include "sampler/preload/fdguard.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* The C library's close and dup2 under their other names (close is a
 * cancellation point: the program's call stays one); the calls that are
 * not go to the kernel straight. */
extern int __close(int fd);
extern int __dup2(int fd, int fd2);

#define SLOTS 8
static ds_fdslot *_Atomic listed[SLOTS];
static ds_fdslot pins[4];     /* a library's pipes (two ends each) */
static atomic_int pins_lost;
static TLS int own;           /* > 0: in the tracker's call of a library */
static TLS ds_fdslot *holding; /* the slot this thread holds (ds_fdguard_use) */

static void list(ds_fdslot *s)
{
	for (int i = 0; i < SLOTS; i++) {
		ds_fdslot *none = NULL;
		if (atomic_load(&listed[i]) == s || atomic_compare_exchange_strong(&listed[i], &none, s))
			return;
	}
}

/* A number near the top of the table, where the program's descriptors,
 * which get the lowest free number, do not come: 16 below the soft limit
 * or 1024, whichever is less; half a small limit. */
static int high_base(void)
{
	struct rlimit rl;
	rlim_t top = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	return top > 64 ? (int)top - 16 : (int)top / 2;
}

/* A copy of fd at a free high number, close-on-exec (any free number from
 * 3 on when none up there is); -1 when none is free. */
static int dup_high(int fd)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, high_base());
	return n >= 0 ? n : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static bool is_file(const ds_fdslot *s, int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

/* s no longer has the number fd: the program's from now on. */
static void lose(ds_fdslot *s, int fd)
{
	if (atomic_compare_exchange_strong(&s->fd, &fd, 0)) {
		atomic_store(&s->taken, 1);
		if (s->pinned)
			atomic_store(&pins_lost, 1);
	}
}

/* The slot that guards number fd, when it is still the slot's file; a
 * number the program took by a call the guard did not see is let go. */
static ds_fdslot *guarding(int fd)
{
	if (fd < 3)
		return NULL;
	for (int i = 0; i < SLOTS; i++) {
		ds_fdslot *s = atomic_load_explicit(&listed[i], memory_order_acquire);
		if (!s)
			break;
		if (atomic_load_explicit(&s->fd, memory_order_acquire) != fd)
			continue;
		if (is_file(s, fd))
			return s;
		lose(s, fd);
	}
	return NULL;
}

int ds_fdguard_keep(ds_fdslot *s, int fd, dev_t want_dev, ino_t want_ino)
{
	struct stat st;
	int high;

	if (fstat(fd, &st) != 0)
		return -1;
	if ((want_dev || want_ino) && (st.st_dev != want_dev || st.st_ino != want_ino))
		return -1; /* not the file that was sent: the program's number now */
	high = dup_high(fd);
	syscall(SYS_close, fd);
	if (high < 0)
		return -1;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	atomic_store(&s->taken, 0);
	list(s);
	atomic_store_explicit(&s->fd, high, memory_order_release);
	return high;
}

void ds_fdguard_drop(ds_fdslot *s)
{
	int fd = atomic_exchange(&s->fd, 0);
	if (fd > 0 && is_file(s, fd))
		syscall(SYS_close, fd);
}

int ds_fdguard_use(ds_fdslot *s)
{
	int fd;

	/* counted before the number is read: a dup2 that moves the
	 * descriptor stores the new number before it reads the count */
	atomic_fetch_add(&s->users, 1);
	holding = s;
	fd = atomic_load(&s->fd);
	if (fd > 0 && is_file(s, fd))
		return fd;
	if (fd > 0)
		lose(s, fd);
	ds_fdguard_done(s);
	return -1;
}

void ds_fdguard_done(ds_fdslot *s)
{
	holding = NULL;
	atomic_fetch_sub(&s->users, 1);
}

void ds_fdguard_forked(void)
{
	holding = NULL;
	for (int i = 0; i < SLOTS; i++) {
		ds_fdslot *s = atomic_load(&listed[i]);
		if (s)
			atomic_store(&s->users, 0);
	}
}

void ds_fdguard_own(int delta)
{
	own += delta;
}

bool ds_fdguard_pins_lost(void)
{
	return atomic_load_explicit(&pins_lost, memory_order_relaxed);
}

bool ds_fdguard_pins_check(void)
{
	for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
		int fd = atomic_load(&pins[i].fd);
		if (fd > 0 && !is_file(&pins[i], fd))
			lose(&pins[i], fd);
	}
	return atomic_load(&pins_lost);
}

/* Number fd is s's and the program is about to put another file there
 * (dup2): s's descriptor moves to another number first, once no thread
 * writes through the old one; a pinned one, or one with nowhere to go,
 * is given up. */
static void make_room(ds_fdslot *s, int fd)
{
	int to = s->pinned ? -1 : dup_high(fd);

	if (to < 0) {
		lose(s, fd);
		return;
	}
	if (!atomic_compare_exchange_strong(&s->fd, &fd, to)) {
		syscall(SYS_close, to); /* moved or lost meanwhile */
		return;
	}
	while (atomic_load(&s->users) > (holding == s))
		sched_yield();
}

/* ---- the program's calls ---- */

EXPORT int close(int fd)
{
	ds_fdslot *s = guarding(fd);

	if (!s)
		return __close(fd);
	if (s->pinned && own > 0) {
		/* the library closes its own (to make it anew) */
		atomic_store(&s->fd, 0);
		return (int)syscall(SYS_close, fd);
	}
	errno = EBADF;
	return -1;
}

/* The guarded numbers in [first, last] into g, ascending; how many. */
static int guarded_in(unsigned first, unsigned last, int *g)
{
	int n = 0;
	for (int i = 0; i < SLOTS; i++) {
		ds_fdslot *s = atomic_load(&listed[i]);
		int fd;
		if (!s)
			break;
		fd = atomic_load(&s->fd);
		if (fd > 0 && (unsigned)fd >= first && (unsigned)fd <= last && guarding(fd) == s) {
			int k = n++;
			for (; k > 0 && g[k - 1] > fd; k--)
				g[k] = g[k - 1];
			g[k] = fd;
		}
	}
	return n;
}

EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	int g[SLOTS], n = first <= last ? guarded_in(first, last, g) : 0, rc = 0;
	unsigned from = first;

	if (!n)
		return (int)syscall(SYS_close_range, first, last, flags);
	/* the ranges between them (last may be ~0U: no number past it) */
	for (int i = 0; i <= n; i++) {
		unsigned to = i < n ? (unsigned)g[i] - 1 : last;
		if (from <= to && rc == 0)
			rc = (int)syscall(SYS_close_range, from, to, flags);
		if (i < n)
			from = (unsigned)g[i] + 1;
	}
	return rc;
}

EXPORT void closefrom(int lowfd)
{
	unsigned from = lowfd > 0 ? (unsigned)lowfd : 0;
	struct rlimit rl;

	if (close_range(from, ~0U, 0) == 0)
		return;
	/* a kernel without close_range (before 5.9): each number the table
	 * can hold */
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > 1u << 20)
		rl.rlim_cur = 1u << 20;
	for (unsigned fd = from; fd < rl.rlim_cur; fd++)
		if (!guarding((int)fd))
			syscall(SYS_close, fd);
}

EXPORT int dup2(int fd, int fd2)
{
	ds_fdslot *s;

	if (guarding(fd)) {
		errno = EBADF;
		return -1;
	}
	if ((s = guarding(fd2)))
		make_room(s, fd2);
	return __dup2(fd, fd2);
}

EXPORT int dup3(int fd, int fd2, int flags)
{
	ds_fdslot *s;

	if (guarding(fd)) {
		errno = EBADF;
		return -1;
	}
	if (fd != fd2 && (s = guarding(fd2)))
		make_room(s, fd2);
	return (int)syscall(SYS_dup3, fd, fd2, flags);
}

/* A pipe the library makes for itself (inside ds_fdguard_own): its ends
 * high and pinned.  An end the guard cannot keep (no slot, no free
 * number) is one the library must not be trusted with. */
EXPORT int pipe2(int fds[2], int flags)
{
	int rc = (int)syscall(SYS_pipe2, fds, flags);

	if (rc != 0 || own <= 0)
		return rc;
	for (int e = 0; e < 2; e++) {
		ds_fdslot *s = NULL;
		int fd = -1;
		for (size_t i = 0; i < sizeof pins / sizeof pins[0] && !s; i++) {
			int none = 0;
			/* claimed with -1, a number no guarded call looks for */
			if (atomic_compare_exchange_strong(&pins[i].fd, &none, -1))
				s = &pins[i];
		}
		if (s) {
			s->pinned = true;
			if ((fd = ds_fdguard_keep(s, fds[e], 0, 0)) < 0)
				atomic_store(&s->fd, 0);
		}
		if (fd < 0)
			atomic_store(&pins_lost, 1);
		else
			fds[e] = fd;
	}
	return 0;
}
